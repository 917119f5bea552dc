//! The error an endpoint answers a request with (async-nats's
//! `service::error::Error`): a code and a text, sent in the
//! `Nats-Service-Error-Code` and `Nats-Service-Error` headers and kept as
//! the endpoint's `last_error` (`"<code>:<status>"` in its stats).

use std::fmt;

use serde::{Deserialize, Serialize};

/// A request's failure as its endpoint reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Error {
    /// The text for people (`Nats-Service-Error`).
    pub status: String,
    /// The code for programs (`Nats-Service-Error-Code`), HTTP-like by convention.
    pub code: usize,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "service request error code: {}, status: {}", self.code, self.status)
    }
}

impl std::error::Error for Error {}

/// `Option<Error>` as the stats' `last_error` string: `"<code>:<status>"`,
/// `""` for none. A text without a numeric code before its first `:`
/// reads as code 0 with the whole text as status.
pub(crate) mod last_error {
    use serde::{Deserialize, Deserializer, Serializer};

    use super::Error;

    pub fn serialize<S: Serializer>(error: &Option<Error>, s: S) -> Result<S::Ok, S::Error> {
        match error {
            Some(e) => s.collect_str(&format_args!("{}:{}", e.code, e.status)),
            None => s.serialize_str(""),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Error>, D::Error> {
        let text = Option::<String>::deserialize(d)?.unwrap_or_default();
        if text.is_empty() {
            return Ok(None);
        }
        let coded = text.split_once(':').and_then(|(code, status)| Some((code.parse().ok()?, status)));
        Ok(Some(match coded {
            Some((code, status)) if code != 0 => Error { code, status: status.to_string() },
            _ => Error { code: 0, status: text },
        }))
    }
}

#[cfg(test)]
mod tests {
    use serde::{Deserialize, Serialize};

    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Holder {
        #[serde(default, with = "last_error")]
        last_error: Option<Error>,
    }

    fn read(json: &str) -> Option<Error> {
        serde_json::from_str::<Holder>(json).unwrap().last_error
    }

    fn err(code: usize, status: &str) -> Error {
        Error { code, status: status.into() }
    }

    #[test]
    fn displays_code_then_status() {
        assert_eq!(err(503, "busy").to_string(), "service request error code: 503, status: busy");
    }

    #[test]
    fn last_error_is_code_colon_status() {
        let some = Holder { last_error: Some(err(500, "db down: retry")) };
        assert_eq!(serde_json::to_string(&some).unwrap(), r#"{"last_error":"500:db down: retry"}"#);
        assert_eq!(read(r#"{"last_error":"500:db down: retry"}"#), Some(err(500, "db down: retry")));
        assert_eq!(serde_json::to_string(&Holder { last_error: None }).unwrap(), r#"{"last_error":""}"#);
        for none in [r#"{"last_error":""}"#, r#"{"last_error":null}"#, "{}"] {
            assert_eq!(read(none), None, "{none}");
        }
    }

    #[test]
    fn a_last_error_without_a_code_is_all_status() {
        assert_eq!(read(r#"{"last_error":"oops"}"#), Some(err(0, "oops")));
        assert_eq!(read(r#"{"last_error":"bad:thing"}"#), Some(err(0, "bad:thing")));
        assert_eq!(read(r#"{"last_error":"0:zero"}"#), Some(err(0, "0:zero")));
    }
}
