//! Object and bucket names and the subjects they make (ADR-20): bucket `b`
//! is the stream `OBJ_b`; an object's chunks go to `$O.b.C.<nuid>` and its
//! meta to `$O.b.M.<name>`, the name in URL-safe base64 with padding of its
//! UTF-8 bytes, as async-nats and nats.go write it. nats.js 3.4 encodes the
//! name with `btoa`, i.e. its Latin-1 bytes: the same for ASCII, another
//! subject for a name with characters from U+0080 to U+00FF, which
//! [`latin1_meta_subject`] gives so such objects are found by name too.
//!
//! So for such a name `info`, `get`, `delete`, `update_metadata` and
//! `add_link` look under both subjects; when both clients wrote the name,
//! the newer meta is the object, and natsjet's write purges the older one
//! with its chunks. A put writes the UTF-8 subject (nats.js 3.4 then no
//! longer finds it); a delete or an update without rename stays where the
//! object was, so its writer still sees it. `list` and the watches show
//! metas under either subject, a name written by both clients twice until
//! natsjet writes it. A meta is an object's only if it holds that name:
//! nats.js's subject of `"Ã©"` is the UTF-8 one of `"é"`.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE;

use crate::core::error::Error;

/// The prefix of a bucket's stream name.
pub const STREAM_PREFIX: &str = "OBJ_";
/// The longest object name, in UTF-8 bytes: its meta subject must fit a
/// protocol line (the server's `max_control_line`, 4 KiB by default).
pub const MAX_NAME_LEN: usize = 2048;

pub use crate::core::kv::names::is_valid_bucket_name;

/// A bucket name: as a Key-Value bucket's, for a stream named `OBJ_…`.
pub(crate) fn check_bucket(bucket: &str) -> Result<(), Error> {
    crate::core::kv::names::check_bucket_of(STREAM_PREFIX, bucket)
}

/// An object or link name: not empty, at most [`MAX_NAME_LEN`] bytes.
pub(crate) fn check_name(name: &str) -> Result<(), Error> {
    let why = match name.len() {
        0 => "empty name",
        n if n > MAX_NAME_LEN => "longer than 2048 bytes",
        _ => return Ok(()),
    };
    Err(Error::InvalidArgument(format!("invalid object name {name:?}: {why}")))
}

/// The stream of bucket `bucket`.
pub fn stream_name(bucket: &str) -> String {
    format!("{STREAM_PREFIX}{bucket}")
}

/// The bucket of stream `stream`, if it is an object store's.
pub fn bucket_of_stream(stream: &str) -> Option<&str> {
    stream.strip_prefix(STREAM_PREFIX).filter(|b| is_valid_bucket_name(b))
}

/// Where the chunks of the object with `nuid` go.
pub fn chunk_subject(bucket: &str, nuid: &str) -> String {
    format!("$O.{bucket}.C.{nuid}")
}

/// Where the meta of object `name` goes.
pub fn meta_subject(bucket: &str, name: &str) -> String {
    format!("$O.{bucket}.M.{}", URL_SAFE.encode(name))
}

/// Every object's meta.
pub fn all_meta(bucket: &str) -> String {
    format!("$O.{bucket}.M.>")
}

/// The meta subject nats.js 3.4 uses for `name`, when it differs from
/// [`meta_subject`]: the name has characters from U+0080 to U+00FF and
/// none above (above, nats.js cannot encode it at all).
pub fn latin1_meta_subject(bucket: &str, name: &str) -> Option<String> {
    if name.is_ascii() || name.chars().any(|c| u32::from(c) > 0xff) {
        return None;
    }
    let latin1: Vec<u8> = name.chars().map(|c| c as u8).collect();
    Some(format!("$O.{bucket}.M.{}", URL_SAFE.encode(latin1)))
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn subjects() {
        assert_eq!(stream_name("b"), "OBJ_b");
        assert_eq!(bucket_of_stream("OBJ_b"), Some("b"));
        assert_eq!(bucket_of_stream("KV_b"), None);
        assert_eq!(chunk_subject("b", "N1"), "$O.b.C.N1");
        assert_eq!(all_meta("b"), "$O.b.M.>");
        // Padded, URL-safe: '?' in "a?>" makes a '/' in plain base64.
        assert_eq!(meta_subject("b", "a?>"), "$O.b.M.YT8-");
        assert_eq!(meta_subject("b", "file.txt"), "$O.b.M.ZmlsZS50eHQ=");
    }

    #[test]
    fn names_outside_ascii_as_each_client_keys_them() {
        // The example of WIRE.md: UTF-8 bytes for async-nats and nats.go,
        // Latin-1 bytes for nats.js 3.4.
        assert_eq!(meta_subject("b", "café-ü.txt"), "$O.b.M.Y2Fmw6ktw7wudHh0");
        assert_eq!(latin1_meta_subject("b", "café-ü.txt").as_deref(), Some("$O.b.M.Y2Fm6S38LnR4dA=="));
        assert_eq!(latin1_meta_subject("b", "plain.txt"), None, "ASCII: the same subject");
        assert_eq!(latin1_meta_subject("b", "snow ☃"), None, "nats.js cannot encode it");
    }

    #[test]
    fn names_are_checked() {
        check_name("a").unwrap();
        check_name(&"x".repeat(MAX_NAME_LEN)).unwrap();
        for bad in [String::new(), "x".repeat(MAX_NAME_LEN + 1)] {
            let Err(Error::InvalidArgument(text)) = check_name(&bad) else { panic!("{bad:?}") };
            assert!(text.starts_with("invalid object name"), "{text}");
        }
    }
}
