//! The errors a program's own code meets, put into natsjet's [`Error`] by
//! `?`: async-nats's `Error` is a boxed `dyn Error`, so programs written
//! for it return `Result<_, async_nats::Error>` from code that parses
//! payloads, JSON and numbers, or fails with a message of its own.

use crate::core::error::Error;

macro_rules! other_errors {
    ($($error:ty),* $(,)?) => {
        $(impl From<$error> for Error {
            fn from(e: $error) -> Self {
                Error::Other(e.to_string())
            }
        })*
    };
}

other_errors!(
    std::str::Utf8Error,
    std::string::FromUtf8Error,
    std::num::ParseIntError,
    std::num::ParseFloatError,
    std::num::TryFromIntError,
    std::net::AddrParseError,
    std::env::VarError,
    std::fmt::Error,
    std::time::SystemTimeError,
    serde_json::Error,
    String,
    &str,
    Box<dyn std::error::Error + Send + Sync>,
);

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn parse(payload: &[u8]) -> Result<u32, Error> {
        Ok(std::str::from_utf8(payload)?.parse()?)
    }

    #[test]
    fn a_programs_errors_pass_through_question_mark() {
        assert_eq!(parse(b"42"), Ok(42));
        assert!(matches!(parse(b"\xff"), Err(Error::Other(e)) if e.contains("utf-8")));
        assert!(matches!(parse(b"x"), Err(Error::Other(_))));
        let own: Error = "no such order".into();
        assert_eq!(own.to_string(), "no such order");
        let json: Error = serde_json::from_str::<u32>("{").unwrap_err().into();
        assert!(matches!(json, Error::Other(_)));
    }
}
