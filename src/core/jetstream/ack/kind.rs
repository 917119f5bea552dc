//! The kinds of ack and their wire bodies (`server/consumer.go` processAck).

use std::time::Duration;

use bytes::Bytes;

use crate::core::jetstream::pull::PullRequest;

/// What to tell the server about a delivered message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AckKind {
    /// `+ACK`: done with it.
    Ack,
    /// `-NAK`: redeliver, after the delay if one is given.
    Nak(Option<Duration>),
    /// `+WPI`: still working; resets the ack timer. The only kind that can repeat.
    Progress,
    /// `+TERM`: never redeliver; the reason shows in the server's advisory.
    Term(Option<String>),
    /// `+NXT`: ack and pull more (the ack's reply subject receives the messages).
    Next(Option<PullRequest>),
}

impl AckKind {
    /// Whether the message is settled after this ack: every kind but [`AckKind::Progress`].
    pub fn is_final(&self) -> bool {
        !matches!(self, AckKind::Progress)
    }

    /// The payload to publish to the message's reply subject.
    pub fn body(&self) -> Bytes {
        match self {
            AckKind::Ack => Bytes::from_static(b"+ACK"),
            AckKind::Nak(None) => Bytes::from_static(b"-NAK"),
            AckKind::Nak(Some(delay)) => {
                let nanos = i64::try_from(delay.as_nanos()).unwrap_or(i64::MAX);
                Bytes::from(format!("-NAK {{\"delay\":{nanos}}}"))
            }
            AckKind::Progress => Bytes::from_static(b"+WPI"),
            AckKind::Term(Some(reason)) if !reason.is_empty() => Bytes::from(format!("+TERM {reason}")),
            AckKind::Term(_) => Bytes::from_static(b"+TERM"),
            AckKind::Next(None) => Bytes::from_static(b"+NXT"),
            AckKind::Next(Some(request)) => {
                let mut body = b"+NXT ".to_vec();
                body.extend_from_slice(&request.to_json());
                Bytes::from(body)
            }
        }
    }
}
