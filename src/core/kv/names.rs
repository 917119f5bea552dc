//! Bucket names, keys and the subjects they make (ADR-8): checked before a
//! byte is written, with an error that names the bad input.
//!
//! A bucket `b` is the stream `KV_b` storing `$KV.b.>`; key `k` is the
//! subject `$KV.b.k`. Reads (direct gets, watches) use the bucket's own
//! prefix; writes go to the origin of a mirror, and through the JetStream
//! API prefix when the context has one of its own (an imported account).

use crate::core::error::Error;

/// The prefix of a bucket's stream name.
pub const STREAM_PREFIX: &str = "KV_";
/// The API prefix a context has unless it names a domain or an import.
const DEFAULT_API_PREFIX: &str = "$JS.API";

/// `[A-Za-z0-9_-]+`.
pub fn is_valid_bucket_name(bucket: &str) -> bool {
    !bucket.is_empty() && bucket.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// `[-/_=.A-Za-z0-9]+`, without a dot at either end or two in a row.
pub fn is_valid_key(key: &str) -> bool {
    key_error(key, false).is_none()
}

pub(crate) fn check_bucket(bucket: &str) -> Result<(), Error> {
    check_bucket_of(STREAM_PREFIX, bucket)
}

/// A bucket name whose stream is `stream_prefix` and the name: its stream
/// name must fit the server's 255 bytes.
pub(crate) fn check_bucket_of(stream_prefix: &str, bucket: &str) -> Result<(), Error> {
    let longest = 255 - stream_prefix.len();
    let why = if !is_valid_bucket_name(bucket) {
        "use letters, digits, '_' and '-' only".to_string()
    } else if bucket.len() > longest {
        format!("longer than {longest} bytes")
    } else {
        return Ok(());
    };
    Err(Error::InvalidArgument(format!("invalid bucket name {bucket:?}: {why}")))
}

pub(crate) fn check_key(key: &str) -> Result<(), Error> {
    key_error(key, false).map_or(Ok(()), |why| Err(invalid_key(key, why)))
}

/// A key to watch or list: also `*` for one token and `>` for the rest.
pub(crate) fn check_filter(key: &str) -> Result<(), Error> {
    key_error(key, true).map_or(Ok(()), |why| Err(invalid_key(key, why)))
}

fn invalid_key(key: &str, why: &str) -> Error {
    Error::InvalidArgument(format!("invalid key {key:?}: {why}"))
}

fn key_error(key: &str, wildcards: bool) -> Option<&'static str> {
    if key.is_empty() {
        return Some("empty key");
    }
    let mut tokens = key.split('.').peekable();
    while let Some(token) = tokens.next() {
        if token.is_empty() {
            return Some("a dot at either end or two dots in a row");
        }
        if wildcards && token == "*" {
            continue;
        }
        if wildcards && token == ">" {
            if tokens.peek().is_some() {
                return Some("'>' must be the last token");
            }
            continue;
        }
        let allowed = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'/' | b'_' | b'=');
        if !token.bytes().all(allowed) {
            return Some(match wildcards {
                true => "use letters, digits and '-/_=.' only, and '*' or '>' as whole tokens",
                false => "use letters, digits and '-/_=.' only",
            });
        }
    }
    None
}

/// The stream of bucket `bucket`.
pub fn stream_name(bucket: &str) -> String {
    format!("{STREAM_PREFIX}{bucket}")
}

/// The bucket of stream `stream`, if it is a bucket's.
pub fn bucket_of_stream(stream: &str) -> Option<&str> {
    stream.strip_prefix(STREAM_PREFIX).filter(|b| is_valid_bucket_name(b))
}

/// Where a bucket's keys are read and written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct KeySubjects {
    /// `$KV.<bucket>.`: the subjects the bucket's stream holds.
    pub read: String,
    /// Put before a key to write it.
    pub write: String,
}

/// A mirror's origin: its bucket, and the API prefix of its account or
/// domain when it lives elsewhere.
pub(crate) struct Origin<'a> {
    pub bucket: &'a str,
    pub external_api: Option<&'a str>,
}

impl KeySubjects {
    /// The subjects of `bucket` for a context on `api_prefix`, following
    /// nats.go: a mirror writes to its origin, an imported API prefix is
    /// put before writes.
    pub fn new(bucket: &str, api_prefix: &str, mirror: Option<Origin<'_>>) -> Self {
        let mut read = format!("$KV.{bucket}.");
        let mut use_api_prefix = api_prefix != DEFAULT_API_PREFIX;
        let mut put = None;
        if let Some(origin) = mirror {
            match origin.external_api.filter(|api| !api.is_empty()) {
                Some(api) => {
                    use_api_prefix = false;
                    read = format!("$KV.{}.", origin.bucket);
                    put = Some(format!("{api}.$KV.{}.", origin.bucket));
                }
                None => put = Some(format!("$KV.{}.", origin.bucket)),
            }
        }
        let put = put.unwrap_or_else(|| read.clone());
        let write = if use_api_prefix { format!("{api_prefix}.{put}") } else { put };
        KeySubjects { read, write }
    }

    pub fn read(&self, key: &str) -> String {
        format!("{}{key}", self.read)
    }

    pub fn write(&self, key: &str) -> String {
        format!("{}{key}", self.write)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn bucket_names() {
        for ok in ["b", "my-bucket_2", "A"] {
            assert!(is_valid_bucket_name(ok), "{ok}");
            check_bucket(ok).unwrap();
        }
        for bad in ["", "a.b", "a b", "a*", "a>", "ü", "a\r\n", "a/b"] {
            assert!(!is_valid_bucket_name(bad), "{bad:?}");
            let Err(Error::InvalidArgument(text)) = check_bucket(bad) else { panic!("{bad:?}") };
            assert!(text.contains(&format!("{bad:?}")), "{text}");
        }
        // Its stream's name fits the server's 255 bytes, or it is refused.
        check_bucket(&"b".repeat(252)).unwrap();
        let Err(Error::InvalidArgument(text)) = check_bucket(&"b".repeat(253)) else { panic!() };
        assert!(text.ends_with("longer than 252 bytes"), "{text}");
        check_bucket_of("OBJ_", &"b".repeat(251)).unwrap();
        assert!(check_bucket_of("OBJ_", &"b".repeat(252)).is_err());
    }

    #[test]
    fn keys() {
        for ok in ["k", "a.b.c", "a/b=c", "-_=/", "x.Y.0", "_kv"] {
            assert!(is_valid_key(ok), "{ok}");
        }
        for bad in ["", ".a", "a.", "a..b", "a b", "a*", "*", ">", "a.>", "a\tb", "a\nb", "ü", "a\0", "a:b"] {
            assert!(!is_valid_key(bad), "{bad:?}");
            let Err(Error::InvalidArgument(text)) = check_key(bad) else { panic!("{bad:?}") };
            assert!(text.contains(&format!("{bad:?}")), "{text}");
        }
    }

    #[test]
    fn filters() {
        for ok in ["k", ">", "*", "a.*", "a.>", "*.b.>", "a.*.c"] {
            check_filter(ok).unwrap();
        }
        for bad in ["", "a.>.b", "a*", ">a", "a..b", ".>", "a b"] {
            assert!(check_filter(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn subjects() {
        let plain = KeySubjects::new("b", "$JS.API", None);
        assert_eq!((plain.read("k"), plain.write("k")), ("$KV.b.k".into(), "$KV.b.k".into()));

        let imported = KeySubjects::new("b", "JS.acc.API", None);
        assert_eq!((imported.read("k"), imported.write("k")), ("$KV.b.k".into(), "JS.acc.API.$KV.b.k".into()));

        let mirror = KeySubjects::new("m", "$JS.API", Some(Origin { bucket: "o", external_api: None }));
        assert_eq!((mirror.read("k"), mirror.write("k")), ("$KV.m.k".into(), "$KV.o.k".into()));

        let external = Origin { bucket: "o", external_api: Some("$JS.hub.API") };
        let leaf = KeySubjects::new("m", "$JS.leaf.API", Some(external));
        assert_eq!((leaf.read("k"), leaf.write("k")), ("$KV.o.k".into(), "$JS.hub.API.$KV.o.k".into()));
    }

    #[test]
    fn stream_names() {
        assert_eq!(stream_name("b"), "KV_b");
        assert_eq!(bucket_of_stream("KV_b"), Some("b"));
        assert_eq!(bucket_of_stream("OBJ_b"), None);
        assert_eq!(bucket_of_stream("KV_"), None);
    }
}
