//! Delivery metadata read from a JetStream ack reply subject (ADR-15).
//!
//! v1 (9 tokens): `$JS.ACK.<stream>.<consumer>.<delivered>.<sseq>.<cseq>.<ts>.<pending>`;
//! v2 (11 or more): `$JS.ACK.<domain>.<account hash>.<stream>.<consumer>.<delivered>.<sseq>.<cseq>.<ts>.<pending>[.<more>…]`,
//! domain `_` meaning none. Anything else is refused with a typed error; the
//! work is one pass over the subject, whatever it holds.

use std::time::SystemTime;

use crate::error::Error;
use crate::jetstream::api::timestamp;

/// Where and when a JetStream message was delivered, with async-nats's
/// field names (`jetstream::message::Info`), owned rather than borrowed.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MessageMetadata {
    /// JetStream domain (v2 subjects), `None` for `_` or v1.
    pub domain: Option<String>,
    /// Hash of the account (v2 subjects), used by the server for routing.
    pub acc_hash: Option<String>,
    pub stream: String,
    pub consumer: String,
    /// How many times this message was delivered, this time included.
    pub delivered: i64,
    pub stream_sequence: u64,
    pub consumer_sequence: u64,
    /// When the stream stored the message.
    pub published: SystemTime,
    /// [`published`](Self::published) in Unix nanoseconds, exact: above
    /// 2^53 it is kept as `u64`, never as a float.
    pub timestamp_nanos: u64,
    /// Messages left for the consumer after this one.
    pub pending: u64,
    /// The token after the pending count in v2 subjects, if the server sends one.
    pub token: Option<String>,
}

const V1_TOKENS: usize = 9;
const V2_TOKENS: usize = 11;

impl MessageMetadata {
    /// Reads the metadata of an ack reply subject.
    pub fn parse(subject: &str) -> Result<Self, Error> {
        // One more than v2 needs, so "11" and "more than 11" both show.
        let mut tokens = [""; V2_TOKENS + 1];
        let mut count = 0;
        for token in subject.splitn(V2_TOKENS + 1, '.') {
            tokens[count] = token;
            count += 1;
        }
        if tokens[0] != "$JS" || tokens[1] != "ACK" {
            return Err(refuse(subject, "it does not start with $JS.ACK"));
        }
        let (domain, acc_hash, at) = match count {
            V1_TOKENS => (None, None, 2),
            n if n >= V2_TOKENS => {
                let domain = Some(tokens[2]).filter(|d| *d != "_");
                (domain.map(str::to_string), Some(tokens[3].to_string()), 4)
            }
            _ => return Err(refuse(subject, "it has neither 9 nor 11 or more tokens")),
        };
        let names = [tokens[at], tokens[at + 1]];
        if names.iter().chain(&tokens[2..at]).any(|t| t.is_empty()) {
            return Err(refuse(subject, "a name token is empty"));
        }
        let number = |i: usize| number(tokens[at + i]).ok_or_else(|| refuse(subject, "a number token is not a number"));
        let timestamp_nanos = number(5)?;
        let delivered = i64::try_from(number(2)?).map_err(|_| refuse(subject, "the delivery count is too large"))?;
        // splitn leaves what follows the pending count in the last token.
        let token = (count > V2_TOKENS).then(|| tokens[V2_TOKENS].split('.').next().unwrap_or_default().to_string());
        Ok(MessageMetadata {
            domain,
            acc_hash,
            stream: names[0].to_string(),
            consumer: names[1].to_string(),
            delivered,
            stream_sequence: number(3)?,
            consumer_sequence: number(4)?,
            published: timestamp::from_unix_nanos(timestamp_nanos),
            timestamp_nanos,
            pending: number(6)?,
            token,
        })
    }
}

/// Plain ASCII digits only (`u64::from_str` would also take a `+`).
fn number(token: &str) -> Option<u64> {
    if token.is_empty() || !token.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    token.parse().ok()
}

fn refuse(subject: &str, why: &str) -> Error {
    let shown: String = subject.chars().take(80).collect();
    let more = if shown.len() < subject.len() { "…" } else { "" };
    Error::Protocol(format!("not a JetStream ack subject ({why}): {shown}{more}"))
}
