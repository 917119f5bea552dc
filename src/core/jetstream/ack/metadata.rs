//! Delivery metadata read from a JetStream ack reply subject (ADR-15).
//!
//! v1 (9 tokens): `$JS.ACK.<stream>.<consumer>.<delivered>.<sseq>.<cseq>.<ts>.<pending>`;
//! v2 (11 or more): `$JS.ACK.<domain>.<account hash>.<stream>.<consumer>.<delivered>.<sseq>.<cseq>.<ts>.<pending>[.<more>…]`,
//! domain `_` meaning none. Anything else is refused with a typed error; the
//! work is one pass over the subject, whatever it holds.

use std::time::SystemTime;

use crate::core::error::{Error, ProtocolError};
use crate::core::jetstream::api::timestamp;

/// Where and when a JetStream message was delivered, with async-nats's
/// field names (`jetstream::message::Info`), owned rather than borrowed.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MessageMetadata {
    /// JetStream domain (v2 subjects), `None` for `_` or v1.
    pub domain: Option<String>,
    /// Hash of the account (v2 subjects), used by the server for routing.
    pub acc_hash: Option<String>,
    /// The stream the message is in.
    pub stream: String,
    /// The consumer that delivered it.
    pub consumer: String,
    /// How many times this message was delivered, this time included.
    pub delivered: i64,
    /// The message's sequence in the stream.
    pub stream_sequence: u64,
    /// The consumer's count of deliveries, this one included (redeliveries
    /// count too).
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

/// The numbers of a [`MessageMetadata`], for readers that need no names:
/// read with the same checks, without allocating.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DeliveryNumbers {
    pub delivered: u64,
    pub stream_sequence: u64,
    pub consumer_sequence: u64,
    pub timestamp_nanos: u64,
    pub pending: u64,
}

impl DeliveryNumbers {
    /// Reads the numbers of an ack reply subject; refuses what
    /// [`MessageMetadata::parse`] refuses.
    pub fn parse(subject: &str) -> Result<Self, Error> {
        Ok(Tokens::parse(subject)?.numbers)
    }

    /// The stream and consumer names with the numbers, borrowed from `subject`.
    pub fn parse_named(subject: &str) -> Result<(&str, &str, Self), Error> {
        let tokens = Tokens::parse(subject)?;
        Ok((tokens.stream, tokens.consumer, tokens.numbers))
    }
}

/// An ack reply subject's names, borrowed, and its numbers.
struct Tokens<'a> {
    domain: Option<&'a str>,
    acc_hash: Option<&'a str>,
    stream: &'a str,
    consumer: &'a str,
    numbers: DeliveryNumbers,
    token: Option<&'a str>,
}

impl<'a> Tokens<'a> {
    fn parse(subject: &'a str) -> Result<Self, Error> {
        // Where each token ends; one more than v2 needs, so "11" and "more
        // than 11" both show, the last holding the rest of the subject.
        // Plain loops over bytes here and in `number`: this runs for every
        // delivery the checkpoint ledger holds, and iterator adapters and
        // `str` slicing (a char-boundary check each) cost about twice.
        let bytes = subject.as_bytes();
        let mut ends = [0; V2_TOKENS + 1];
        let mut count = 0;
        let mut at = 0;
        while at < bytes.len() && count < V2_TOKENS {
            if bytes[at] == b'.' {
                ends[count] = at;
                count += 1;
            }
            at += 1;
        }
        ends[count] = bytes.len();
        count += 1;
        let raw = |i: usize| raw_token(bytes, &ends, i);
        // Tokens end at an ASCII dot or the end: always a char boundary.
        let text = |i: usize| &subject[token_span(&ends, i)];
        if raw(0) != b"$JS" || raw(1) != b"ACK" {
            return Err(refuse(subject, "it does not start with $JS.ACK"));
        }
        let (domain, acc_hash, at) = match count {
            V1_TOKENS => (None, None, 2),
            n if n >= V2_TOKENS => (Some(text(2)).filter(|d| *d != "_"), Some(text(3)), 4),
            _ => return Err(refuse(subject, "it has neither 9 nor 11 or more tokens")),
        };
        if (2..at + 2).any(|i| raw(i).is_empty()) {
            return Err(refuse(subject, "a name token is empty"));
        }
        let (Some(delivered), Some(stream_sequence), Some(consumer_sequence), Some(timestamp_nanos), Some(pending)) =
            (number(raw(at + 2)), number(raw(at + 3)), number(raw(at + 4)), number(raw(at + 5)), number(raw(at + 6)))
        else {
            return Err(refuse(subject, "a number token is not a number"));
        };
        if i64::try_from(delivered).is_err() {
            return Err(refuse(subject, "the delivery count is too large"));
        }
        let numbers = DeliveryNumbers { delivered, stream_sequence, consumer_sequence, timestamp_nanos, pending };
        // What follows the pending count in v2 subjects, up to its next dot.
        let token = (count > V2_TOKENS).then(|| text(V2_TOKENS).split('.').next().unwrap_or_default());
        Ok(Tokens { domain, acc_hash, stream: text(at), consumer: text(at + 1), numbers, token })
    }
}

impl MessageMetadata {
    /// Reads the metadata of an ack reply subject.
    pub fn parse(subject: &str) -> Result<Self, Error> {
        let Tokens { domain, acc_hash, stream, consumer, numbers, token } = Tokens::parse(subject)?;
        Ok(MessageMetadata {
            domain: domain.map(str::to_string),
            acc_hash: acc_hash.map(str::to_string),
            stream: stream.to_string(),
            consumer: consumer.to_string(),
            // Checked by Tokens::parse.
            delivered: numbers.delivered as i64,
            stream_sequence: numbers.stream_sequence,
            consumer_sequence: numbers.consumer_sequence,
            published: timestamp::from_unix_nanos(numbers.timestamp_nanos),
            timestamp_nanos: numbers.timestamp_nanos,
            pending: numbers.pending,
            token: token.map(str::to_string),
        })
    }
}

/// Token `i` of a subject whose tokens end at `ends`. Inlined, as
/// [`raw_token`]: as calls (opt-level z's choice for the closures they
/// were) they cost a third of the parse.
#[inline(always)]
fn token_span(ends: &[usize; V2_TOKENS + 1], i: usize) -> std::ops::Range<usize> {
    let start = if i == 0 { 0 } else { ends[i - 1] + 1 };
    start..ends[i]
}

/// The bytes of token `i` (see [`token_span`]).
#[inline(always)]
fn raw_token<'a>(bytes: &'a [u8], ends: &[usize; V2_TOKENS + 1], i: usize) -> &'a [u8] {
    &bytes[token_span(ends, i)]
}

/// Plain ASCII digits only (`u64::from_str` would also take a `+`), in one pass.
fn number(token: &[u8]) -> Option<u64> {
    if token.is_empty() {
        return None;
    }
    // 19 digits never overflow: no checked multiply, which wasm does in 128 bits.
    let short = token.len() <= 19;
    let mut n = 0u64;
    for &b in token {
        let digit = u64::from(b.wrapping_sub(b'0'));
        if digit > 9 {
            return None;
        }
        n = match short {
            true => n * 10 + digit,
            false => n.checked_mul(10)?.checked_add(digit)?,
        };
    }
    Some(n)
}

fn refuse(subject: &str, why: &str) -> Error {
    let shown: String = subject.chars().take(80).collect();
    let more = if shown.len() < subject.len() { "…" } else { "" };
    Error::Protocol(ProtocolError::AckSubject(format!("not a JetStream ack subject ({why}): {shown}{more}")))
}
