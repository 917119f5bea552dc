//! Scripted tests of the pull consumer: messages are built by hand, time is
//! `Instant::from_millis`, nothing sleeps. One behaviour per file.

mod consume;
mod fetch;
mod heartbeat;
mod pin;
mod reconnect;
mod statuses;

use bytes::Bytes;

use super::{ConsumerEvent, PullConsumer, PullRequest};
use crate::core::header::{HeaderMap, StatusCode};
use crate::core::message::Message;
use crate::core::time::Instant;

fn t(ms: u64) -> Instant {
    Instant::from_millis(ms)
}

/// A stream message that took `length` bytes on the wire.
fn user(length: usize) -> Message {
    Message {
        subject: "orders.new".into(),
        reply: Some("$JS.ACK.ORDERS.worker.1.1.1.1700000000000000000.0".into()),
        payload: Bytes::from_static(b"x"),
        headers: None,
        status: None,
        description: None,
        length,
    }
}

/// A header-only status message.
fn status(code: u16, description: &str) -> Message {
    status_with(code, description, HeaderMap::new())
}

/// A status carrying `Nats-Pending-Messages` and `Nats-Pending-Bytes`.
fn status_pending(code: u16, description: &str, msgs: u64, bytes: u64) -> Message {
    let headers: HeaderMap =
        [("Nats-Pending-Messages", msgs.to_string()), ("Nats-Pending-Bytes", bytes.to_string())].into_iter().collect();
    status_with(code, description, headers)
}

fn status_with(code: u16, description: &str, headers: HeaderMap) -> Message {
    Message {
        subject: "_INBOX.abc".into(),
        reply: None,
        payload: Bytes::new(),
        headers: Some(headers),
        status: Some(StatusCode(code)),
        description: Some(description.into()),
        length: 0,
    }
}

fn pulls(consumer: &mut PullConsumer) -> Vec<PullRequest> {
    std::iter::from_fn(|| consumer.poll_pull()).collect()
}

fn events(consumer: &mut PullConsumer) -> Vec<ConsumerEvent> {
    std::iter::from_fn(|| consumer.poll_event()).collect()
}
