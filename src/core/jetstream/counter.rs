//! Counters (ADR-49; streams with `allow_msg_counter`, server 2.12): every
//! subject of such a stream is a counter. A publish carries its increment
//! in `Nats-Incr` (a decimal integer of any size, signed or not) and no
//! payload; the stream adds it to the subject's last total, stores the new
//! total as the body `{"val":"<decimal>"}` and answers with it in the
//! ack's `val`. A counter that sums other streams' counters (through
//! sources) also carries `Nats-Counter-Sources`: for each source (stream
//! name and subject before any transform) the last total taken from it,
//! `{"<stream>":{"<subject>":"<decimal>"}}`.
//!
//! These rules read and check the decimal texts without doing arithmetic,
//! so the core and the wasm need no big-integer type: the Rust API turns
//! them into `num_bigint::BigInt`, the npm package into `bigint`.
//! `tests/vectors/counters.json` holds the cases both must agree on.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::core::error::{Error, ProtocolError};
use crate::core::header::{HeaderMap, NATS_COUNTER_SOURCES, NATS_INCR};
use crate::core::jetstream::raw_message::StreamMessage;

/// For each source stream, the totals last taken from its subjects, as decimal texts.
pub type SourceTotals = BTreeMap<String, BTreeMap<String, String>>;

/// A counter as its last message holds it, the numbers as decimal texts.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CounterReading {
    /// The counter's subject.
    pub subject: String,
    /// The stream sequence of the message that holds it.
    pub sequence: u64,
    /// The total.
    pub value: String,
    /// The increment that message made (`Nats-Incr`), when it has one.
    pub increment: Option<String>,
    /// The per-source breakdown (`Nats-Counter-Sources`), empty for a counter without sources.
    pub sources: SourceTotals,
    /// When the stream stored it, RFC 3339 as the server wrote it.
    pub time: String,
}

/// Whether `text` is a decimal integer the server takes as an increment or
/// total: an optional sign, then one digit or more (`^[+-]?[0-9]+$`).
pub fn is_decimal(text: &str) -> bool {
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// Refuses an increment that is not a decimal integer, before a byte is written.
pub fn check_increment(text: &str) -> Result<(), Error> {
    match is_decimal(text) {
        true => Ok(()),
        false => Err(Error::InvalidArgument(format!("counter increment {text:?} is not a decimal integer"))),
    }
}

/// The total in a counter message's body, `{"val":"<decimal>"}`.
pub fn parse_value(body: &[u8]) -> Result<String, Error> {
    #[derive(Deserialize)]
    struct Body {
        val: String,
    }
    // serde reads a struct from an array too; the body is an object.
    if body.trim_ascii_start().first() != Some(&b'{') {
        return Err(broken("a counter body is a JSON object".into()));
    }
    let body: Body = serde_json::from_slice(body).map_err(|e| broken(format!("counter body: {e}")))?;
    decimal(body.val, "counter value")
}

/// The per-source breakdown in `headers` (`Nats-Counter-Sources`); empty without the header.
pub fn parse_sources(headers: &HeaderMap) -> Result<SourceTotals, Error> {
    let Some(text) = headers.get(NATS_COUNTER_SOURCES) else { return Ok(SourceTotals::new()) };
    let sources: SourceTotals =
        serde_json::from_str(text.as_str()).map_err(|e| broken(format!("{NATS_COUNTER_SOURCES}: {e}")))?;
    for totals in sources.values() {
        for total in totals.values() {
            decimal(total.clone(), "source total")?;
        }
    }
    Ok(sources)
}

/// The counter `message` (a counter stream's last message on a subject) holds.
pub fn read(message: &StreamMessage) -> Result<CounterReading, Error> {
    let increment = match message.headers.get(NATS_INCR) {
        Some(text) => Some(decimal(text.as_str().to_owned(), "counter increment")?),
        None => None,
    };
    Ok(CounterReading {
        subject: message.subject.clone(),
        sequence: message.sequence,
        value: parse_value(&message.payload)?,
        increment,
        sources: parse_sources(&message.headers)?,
        time: message.time.clone(),
    })
}

fn decimal(text: String, what: &str) -> Result<String, Error> {
    match is_decimal(&text) {
        true => Ok(text),
        false => Err(broken(format!("{what} {text:?} is not a decimal integer"))),
    }
}

/// What a counter stream holds breaks ADR-49's rules.
fn broken(text: String) -> Error {
    Error::Protocol(ProtocolError::Store(text))
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// The cases `tests/vectors/counters.json` shares with the npm package.
    #[derive(Deserialize)]
    struct Vectors {
        increments: Vec<(String, bool)>,
        bodies: Vec<(String, Option<String>)>,
        sources: Vec<(String, Option<SourceTotals>)>,
    }

    fn vectors() -> Vectors {
        serde_json::from_str(include_str!("../../../tests/vectors/counters.json")).unwrap()
    }

    #[test]
    fn increments_are_decimal_integers() {
        for (text, ok) in vectors().increments {
            assert_eq!(check_increment(&text).is_ok(), ok, "{text:?}");
        }
    }

    #[test]
    fn bodies_hold_the_total() {
        for (body, want) in vectors().bodies {
            let got = parse_value(body.as_bytes());
            assert_eq!(got.as_ref().ok(), want.as_ref(), "{body:?}");
            if let Err(e) = got {
                assert!(matches!(e, Error::Protocol(ProtocolError::Store(_))), "{e:?}");
            }
        }
    }

    #[test]
    fn sources_header_is_the_breakdown() {
        for (text, want) in vectors().sources {
            let mut headers = HeaderMap::new();
            headers.insert(NATS_COUNTER_SOURCES, text.as_str());
            assert_eq!(parse_sources(&headers).ok(), want, "{text:?}");
        }
        assert_eq!(parse_sources(&HeaderMap::new()).unwrap(), SourceTotals::new());
    }

    #[test]
    fn a_message_reads_as_its_counter() {
        let mut headers = HeaderMap::new();
        headers.insert(NATS_INCR, "-3");
        headers.insert(NATS_COUNTER_SOURCES, r#"{"EU":{"c.eu":"10"}}"#);
        let message = StreamMessage {
            subject: "c.total".into(),
            sequence: 7,
            headers,
            payload: br#"{"val":"18446744073709551621"}"#.as_slice().into(),
            time: "2026-01-01T00:00:00Z".into(),
        };
        let reading = read(&message).unwrap();
        assert_eq!(reading.value, "18446744073709551621");
        assert_eq!(reading.increment.as_deref(), Some("-3"));
        assert_eq!(reading.sources["EU"]["c.eu"], "10");
        assert_eq!((reading.subject.as_str(), reading.sequence), ("c.total", 7));

        let mut bad = message.clone();
        bad.headers.insert(NATS_INCR, "1e3");
        assert!(read(&bad).is_err());
    }
}
