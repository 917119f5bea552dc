//! The kinds of ack and their wire bodies (`server/consumer.go` processAck):
//! async-nats's [`AckKind`], and [`Ack`], which also carries what it leaves
//! out (the reason of a term, the pull request of a `+NXT`).

use std::time::Duration;

use bytes::Bytes;

use crate::core::jetstream::pull::PullRequest;

/// What to tell the server about a delivered message, as async-nats names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AckKind {
    /// `+ACK`: done with it.
    Ack,
    /// `-NAK`: redeliver, after the delay if one is given.
    Nak(Option<Duration>),
    /// `+WPI`: still working; resets the ack timer. The only kind that can repeat.
    Progress,
    /// `+NXT`: ack and ask for the next message (to the ack's reply subject).
    Next,
    /// `+TERM`: never redeliver.
    Term,
}

impl From<AckKind> for Ack {
    fn from(kind: AckKind) -> Self {
        match kind {
            AckKind::Ack => Ack::Ack,
            AckKind::Nak(delay) => Ack::Nak(delay),
            AckKind::Progress => Ack::Progress,
            AckKind::Next => Ack::Next(None),
            AckKind::Term => Ack::Term(None),
        }
    }
}

impl From<AckKind> for Bytes {
    fn from(kind: AckKind) -> Self {
        Ack::from(kind).body()
    }
}

/// An ack with everything it can say: an [`AckKind`], a term's reason
/// (shown in the server's advisory), a `+NXT`'s pull request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ack {
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

impl Ack {
    /// Whether the message is settled after this ack: every kind but [`Ack::Progress`].
    pub fn is_final(&self) -> bool {
        !matches!(self, Ack::Progress)
    }

    /// The payload to publish to the message's reply subject.
    pub fn body(&self) -> Bytes {
        match self {
            Ack::Ack => Bytes::from_static(b"+ACK"),
            Ack::Nak(None) => Bytes::from_static(b"-NAK"),
            Ack::Nak(Some(delay)) => {
                let nanos = i64::try_from(delay.as_nanos()).unwrap_or(i64::MAX);
                Bytes::from(format!("-NAK {{\"delay\":{nanos}}}"))
            }
            Ack::Progress => Bytes::from_static(b"+WPI"),
            Ack::Term(Some(reason)) if !reason.is_empty() => Bytes::from(format!("+TERM {reason}")),
            Ack::Term(_) => Bytes::from_static(b"+TERM"),
            Ack::Next(None) => Bytes::from_static(b"+NXT"),
            Ack::Next(Some(request)) => {
                let mut body = b"+NXT ".to_vec();
                body.extend_from_slice(&request.to_json());
                Bytes::from(body)
            }
        }
    }
}
