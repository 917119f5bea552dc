//! Subjects of the JetStream API calls, and the name checks that keep a
//! stream or consumer name from changing which call a subject makes
//! (`server/jetstream_api.go`).
//!
//! Every builder takes the prefix from [`api_prefix`] and validates the names
//! it puts into the subject, so `STREAM.INFO.a.b` can never be sent for a
//! stream called `a.b`.

use super::consumer::ConsumerConfig;
use crate::core::error::Error;
use crate::core::subject::validate_subject;

/// The server's limit on stream and consumer name length.
const MAX_NAME_LEN: usize = 255;

/// The API prefix: `$JS.<domain>.API` with a domain (which wins, as in
/// nats.js), else `prefix` (an account import), else `$JS.API`.
pub fn api_prefix(prefix: Option<&str>, domain: Option<&str>) -> String {
    match (domain.filter(|d| !d.is_empty()), prefix.filter(|p| !p.is_empty())) {
        (Some(domain), _) => format!("$JS.{domain}.API"),
        (None, Some(prefix)) => prefix.trim_end_matches('.').to_string(),
        (None, None) => "$JS.API".to_string(),
    }
}

/// Checks a stream name: non-empty, at most 255 bytes, none of whitespace,
/// control characters, `.`, `*`, `>`, `/`, `\`.
pub fn validate_stream_name(name: &str) -> Result<(), Error> {
    validate_name("stream", name)
}

/// Checks a consumer (or durable) name; same rules as a stream name.
pub fn validate_consumer_name(name: &str) -> Result<(), Error> {
    validate_name("consumer", name)
}

fn validate_name(kind: &str, name: &str) -> Result<(), Error> {
    let reason = if name.is_empty() {
        "is empty"
    } else if name.len() > MAX_NAME_LEN {
        "is longer than 255 bytes"
    } else if name.chars().any(|c| c.is_whitespace() || c.is_control()) {
        "contains whitespace or a control character"
    } else if name.contains(['.', '*', '>']) {
        "contains '.', '*' or '>'"
    } else if name.contains(['/', '\\']) {
        "contains a path separator"
    } else {
        return Ok(());
    };
    Err(Error::InvalidArgument(format!("{kind} name {name:?} {reason}")))
}

/// `INFO`: account information.
pub fn account_info(prefix: &str) -> String {
    format!("{prefix}.INFO")
}

fn stream_op(prefix: &str, op: &str, stream: &str) -> Result<String, Error> {
    validate_stream_name(stream)?;
    Ok(format!("{prefix}.STREAM.{op}.{stream}"))
}

/// `STREAM.CREATE.<stream>`: creates a stream from a [`StreamConfig`](super::stream::StreamConfig) body.
pub fn stream_create(prefix: &str, stream: &str) -> Result<String, Error> {
    stream_op(prefix, "CREATE", stream)
}

/// `STREAM.UPDATE.<stream>`: changes a stream's config.
pub fn stream_update(prefix: &str, stream: &str) -> Result<String, Error> {
    stream_op(prefix, "UPDATE", stream)
}

/// `STREAM.INFO.<stream>`: a stream's config and state.
pub fn stream_info(prefix: &str, stream: &str) -> Result<String, Error> {
    stream_op(prefix, "INFO", stream)
}

/// `STREAM.DELETE.<stream>`: deletes a stream and its messages.
pub fn stream_delete(prefix: &str, stream: &str) -> Result<String, Error> {
    stream_op(prefix, "DELETE", stream)
}

/// `STREAM.PURGE.<stream>`: removes messages ([`PurgeRequest`](super::stream::PurgeRequest) body).
pub fn stream_purge(prefix: &str, stream: &str) -> Result<String, Error> {
    stream_op(prefix, "PURGE", stream)
}

/// `STREAM.MSG.GET.<stream>`: reads one message through the stream's leader.
pub fn stream_msg_get(prefix: &str, stream: &str) -> Result<String, Error> {
    stream_op(prefix, "MSG.GET", stream)
}

/// `STREAM.MSG.DELETE.<stream>`: deletes one message.
pub fn stream_msg_delete(prefix: &str, stream: &str) -> Result<String, Error> {
    stream_op(prefix, "MSG.DELETE", stream)
}

/// `STREAM.NAMES`: a page of stream names.
pub fn stream_names(prefix: &str) -> String {
    format!("{prefix}.STREAM.NAMES")
}

/// `STREAM.LIST`: a page of stream infos.
pub fn stream_list(prefix: &str) -> String {
    format!("{prefix}.STREAM.LIST")
}

/// `DIRECT.GET.<stream>`: the request body says what to get.
pub fn direct_get(prefix: &str, stream: &str) -> Result<String, Error> {
    validate_stream_name(stream)?;
    Ok(format!("{prefix}.DIRECT.GET.{stream}"))
}

/// `DIRECT.GET.<stream>.<subject>`: the last message of `subject`, empty body.
pub fn direct_get_last(prefix: &str, stream: &str, subject: &str) -> Result<String, Error> {
    validate_stream_name(stream)?;
    validate_subject(subject)?;
    Ok(format!("{prefix}.DIRECT.GET.{stream}.{subject}"))
}

/// The subject that creates the consumer `config` describes:
/// `CONSUMER.CREATE.<s>` without a name (ephemeral),
/// `CONSUMER.CREATE.<s>.<name>` with `name` (else `durable_name`), plus
/// `.<filter>` when the config has a single `filter_subject` and no
/// `filter_subjects`, the only case the server accepts that form for. The
/// filter form lets account permissions be scoped per filter.
pub fn consumer_create(prefix: &str, stream: &str, config: &ConsumerConfig) -> Result<String, Error> {
    validate_stream_name(stream)?;
    let Some(name) = config.name.as_deref().or(config.durable_name.as_deref()) else {
        return Ok(format!("{prefix}.CONSUMER.CREATE.{stream}"));
    };
    validate_consumer_name(name)?;
    match Some(config.filter_subject.as_str()).filter(|f| !f.is_empty() && config.filter_subjects.is_empty()) {
        Some(filter) => {
            validate_subject(filter)?;
            Ok(format!("{prefix}.CONSUMER.CREATE.{stream}.{name}.{filter}"))
        }
        None => Ok(format!("{prefix}.CONSUMER.CREATE.{stream}.{name}")),
    }
}

fn consumer_op(prefix: &str, op: &str, stream: &str, consumer: &str) -> Result<String, Error> {
    validate_stream_name(stream)?;
    validate_consumer_name(consumer)?;
    Ok(format!("{prefix}.CONSUMER.{op}.{stream}.{consumer}"))
}

/// `CONSUMER.INFO.<stream>.<consumer>`: a consumer's config and state.
pub fn consumer_info(prefix: &str, stream: &str, consumer: &str) -> Result<String, Error> {
    consumer_op(prefix, "INFO", stream, consumer)
}

/// `CONSUMER.DELETE.<stream>.<consumer>`: deletes a consumer.
pub fn consumer_delete(prefix: &str, stream: &str, consumer: &str) -> Result<String, Error> {
    consumer_op(prefix, "DELETE", stream, consumer)
}

/// `CONSUMER.PAUSE.<stream>.<consumer>`: pauses or resumes delivery (server 2.11).
pub fn consumer_pause(prefix: &str, stream: &str, consumer: &str) -> Result<String, Error> {
    consumer_op(prefix, "PAUSE", stream, consumer)
}

/// `CONSUMER.UNPIN.<stream>.<consumer>`: drops a priority group's pinned client (server 2.11).
pub fn consumer_unpin(prefix: &str, stream: &str, consumer: &str) -> Result<String, Error> {
    consumer_op(prefix, "UNPIN", stream, consumer)
}

/// `CONSUMER.RESET.<stream>.<consumer>`: moves a consumer back or forward (ADR-60, server 2.14).
pub fn consumer_reset(prefix: &str, stream: &str, consumer: &str) -> Result<String, Error> {
    consumer_op(prefix, "RESET", stream, consumer)
}

/// `CONSUMER.MSG.NEXT.<s>.<c>`: where pull requests go.
pub fn consumer_next(prefix: &str, stream: &str, consumer: &str) -> Result<String, Error> {
    consumer_op(prefix, "MSG.NEXT", stream, consumer)
}

/// `CONSUMER.NAMES.<stream>`: a page of consumer names.
pub fn consumer_names(prefix: &str, stream: &str) -> Result<String, Error> {
    validate_stream_name(stream)?;
    Ok(format!("{prefix}.CONSUMER.NAMES.{stream}"))
}

/// `CONSUMER.LIST.<stream>`: a page of consumer infos.
pub fn consumer_list(prefix: &str, stream: &str) -> Result<String, Error> {
    validate_stream_name(stream)?;
    Ok(format!("{prefix}.CONSUMER.LIST.{stream}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn prefixes() {
        assert_eq!(api_prefix(None, None), "$JS.API");
        assert_eq!(api_prefix(None, Some("hub")), "$JS.hub.API");
        assert_eq!(api_prefix(Some("$JS.other.API."), None), "$JS.other.API");
        assert_eq!(api_prefix(Some("imported.API"), Some("hub")), "$JS.hub.API");
        assert_eq!(api_prefix(Some(""), Some("")), "$JS.API");
    }

    #[test]
    fn stream_and_consumer_subjects() {
        let p = "$JS.API";
        assert_eq!(account_info(p), "$JS.API.INFO");
        assert_eq!(stream_create(p, "S").unwrap(), "$JS.API.STREAM.CREATE.S");
        assert_eq!(stream_update(p, "S").unwrap(), "$JS.API.STREAM.UPDATE.S");
        assert_eq!(stream_info(p, "S").unwrap(), "$JS.API.STREAM.INFO.S");
        assert_eq!(stream_delete(p, "S").unwrap(), "$JS.API.STREAM.DELETE.S");
        assert_eq!(stream_purge(p, "S").unwrap(), "$JS.API.STREAM.PURGE.S");
        assert_eq!(stream_msg_get(p, "S").unwrap(), "$JS.API.STREAM.MSG.GET.S");
        assert_eq!(stream_msg_delete(p, "S").unwrap(), "$JS.API.STREAM.MSG.DELETE.S");
        assert_eq!(stream_names(p), "$JS.API.STREAM.NAMES");
        assert_eq!(stream_list(p), "$JS.API.STREAM.LIST");
        assert_eq!(direct_get(p, "KV_b").unwrap(), "$JS.API.DIRECT.GET.KV_b");
        assert_eq!(direct_get_last(p, "KV_b", "$KV.b.k").unwrap(), "$JS.API.DIRECT.GET.KV_b.$KV.b.k");
        assert_eq!(consumer_info(p, "S", "c").unwrap(), "$JS.API.CONSUMER.INFO.S.c");
        assert_eq!(consumer_delete(p, "S", "c").unwrap(), "$JS.API.CONSUMER.DELETE.S.c");
        assert_eq!(consumer_pause(p, "S", "c").unwrap(), "$JS.API.CONSUMER.PAUSE.S.c");
        assert_eq!(consumer_unpin(p, "S", "c").unwrap(), "$JS.API.CONSUMER.UNPIN.S.c");
        assert_eq!(consumer_reset(p, "S", "c").unwrap(), "$JS.API.CONSUMER.RESET.S.c");
        assert_eq!(consumer_next(p, "S", "c").unwrap(), "$JS.API.CONSUMER.MSG.NEXT.S.c");
        assert_eq!(consumer_names(p, "S").unwrap(), "$JS.API.CONSUMER.NAMES.S");
        assert_eq!(consumer_list(p, "S").unwrap(), "$JS.API.CONSUMER.LIST.S");
        assert_eq!(stream_info("$JS.hub.API", "S").unwrap(), "$JS.hub.API.STREAM.INFO.S");
    }

    #[test]
    fn consumer_create_forms() {
        let p = "$JS.API";
        let mut cfg = ConsumerConfig::default();
        assert_eq!(consumer_create(p, "S", &cfg).unwrap(), "$JS.API.CONSUMER.CREATE.S");
        cfg.durable_name = Some("d".into());
        assert_eq!(consumer_create(p, "S", &cfg).unwrap(), "$JS.API.CONSUMER.CREATE.S.d");
        cfg.name = Some("n".into());
        assert_eq!(consumer_create(p, "S", &cfg).unwrap(), "$JS.API.CONSUMER.CREATE.S.n");
        cfg.filter_subject = "orders.*.new".into();
        assert_eq!(consumer_create(p, "S", &cfg).unwrap(), "$JS.API.CONSUMER.CREATE.S.n.orders.*.new");
        cfg.filter_subject = String::new();
        cfg.filter_subjects = vec!["a".into()];
        assert_eq!(consumer_create(p, "S", &cfg).unwrap(), "$JS.API.CONSUMER.CREATE.S.n");
        cfg.name = Some("bad.name".into());
        assert!(matches!(consumer_create(p, "S", &cfg), Err(Error::InvalidArgument(_))));
        cfg.name = Some("n".into());
        cfg.filter_subjects.clear();
        cfg.filter_subject = "bad subject".into();
        assert!(matches!(consumer_create(p, "S", &cfg), Err(Error::InvalidSubject { .. })));
    }

    #[test]
    fn names_are_validated() {
        for bad in ["", "a.b", "a*", "a>", "a b", "a\tb", "a/b", "a\\b", "a\u{0}b", &"x".repeat(256)] {
            assert!(matches!(validate_stream_name(bad), Err(Error::InvalidArgument(_))), "{bad:?}");
            assert!(validate_consumer_name(bad).is_err(), "{bad:?}");
            assert!(stream_info("$JS.API", bad).is_err(), "{bad:?}");
            assert!(consumer_next("$JS.API", "S", bad).is_err(), "{bad:?}");
        }
        for good in ["ORDERS", "KV_config-1", "OBJ_x", "é", &"x".repeat(255)] {
            assert_eq!(validate_stream_name(good), Ok(()), "{good:?}");
        }
        assert!(direct_get_last("$JS.API", "S", "a..b").is_err());
    }
}
