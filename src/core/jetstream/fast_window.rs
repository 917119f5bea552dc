//! Fast ingest (ADR-50, server API level 4, streams with `allow_batched`):
//! a batch of publishes whose acknowledgements the server sends only every
//! so many messages, so the sender streams without waiting on each one.
//! What each publish means travels in its reply subject,
//! `<inbox>.<flow>.<gaps>.<seq>.<op>.$FI`, answered on the inbox: flow acks
//! `{"type":"ack","seq":n,"msgs":m}` (at most two intervals of `m`
//! messages may be unacknowledged), and for the last message the `PublishAck`
//! of the batch. [`FastWindow`] is the sans-IO bookkeeping; the publish
//! module's `FastIngest` sends over a client.

use serde::Deserialize;

use crate::core::error::{Error, ProtocolError};
use crate::core::jetstream::api::{self, PublishAck};

/// The API level of servers that take fast batches (nats-server 2.14).
pub const FAST_INGEST_API_LEVEL: u32 = 4;
/// The server's interval between flow acks until it says otherwise.
const INITIAL_FLOW: u64 = 10;
/// Flow-ack intervals that may be in flight at once.
const OUTSTANDING: u64 = 2;

/// What a publish of the batch does, as its reply subject says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Start = 0,
    Append = 1,
    Commit = 2,
}

/// A control message of the batch, as the server sent it to the inbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Control {
    /// Everything up to `seq` arrived; flow acks now come every `msgs`.
    Ack { seq: u64, msgs: u64 },
    /// The batch is committed.
    Done(PublishAck),
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Flow {
    #[serde(rename = "type")]
    kind: String,
    seq: u64,
    msgs: u64,
    /// Set on the final `PublishAck`.
    batch: Option<String>,
}

/// The sequence numbers, reply subjects and window of one fast batch.
#[derive(Debug)]
pub struct FastWindow {
    inbox: String,
    seq: u64,
    acked: u64,
    flow: u64,
}

impl FastWindow {
    /// A batch answered on `inbox` (a fresh inbox, its last token the batch id).
    pub fn new(inbox: String) -> Self {
        FastWindow { inbox, seq: 0, acked: 0, flow: INITIAL_FLOW }
    }

    /// What the caller subscribes to for the batch's control messages.
    pub fn subscription(&self) -> String {
        format!("{}.>", self.inbox)
    }

    /// Whether the next publish fits the window.
    pub fn has_room(&self) -> bool {
        self.seq - self.acked < self.flow * OUTSTANDING
    }

    /// The reply subject of the next publish (the last one with `commit`).
    pub fn next_reply(&mut self, commit: bool) -> String {
        self.seq += 1;
        let op = match (self.seq, commit) {
            (_, true) => Op::Commit,
            (1, false) => Op::Start,
            _ => Op::Append,
        };
        format!("{}.{INITIAL_FLOW}.fail.{}.{}.$FI", self.inbox, self.seq, op as u8)
    }

    /// Messages the server acknowledged so far.
    pub fn acked(&self) -> u64 {
        self.acked
    }

    /// A message on the inbox: flow ack, the batch's `PublishAck`, or the error that ended it.
    pub fn handle(&mut self, payload: &[u8]) -> Result<Control, Error> {
        api::check_response(payload)?;
        let flow: Flow = api::parse_checked_plain(payload)?;
        if flow.batch.is_some() {
            return Ok(Control::Done(api::parse_checked_plain(payload)?));
        }
        match flow.kind.as_str() {
            "ack" => {
                self.acked = self.acked.max(flow.seq);
                if flow.msgs > 0 {
                    self.flow = flow.msgs;
                }
                Ok(Control::Ack { seq: flow.seq, msgs: self.flow })
            }
            "gap" => Err(Error::Protocol(ProtocolError::FastBatch(format!(
                "the stream missed messages of fast batch {}",
                self.inbox
            )))),
            other => {
                Err(Error::Protocol(ProtocolError::FastBatch(format!("fast batch control message of type {other:?}"))))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn replies_say_what_each_publish_does() {
        let mut window = FastWindow::new("_INBOX.B1".into());
        assert_eq!(window.subscription(), "_INBOX.B1.>");
        assert_eq!(window.next_reply(false), "_INBOX.B1.10.fail.1.0.$FI");
        assert_eq!(window.next_reply(false), "_INBOX.B1.10.fail.2.1.$FI");
        assert_eq!(window.next_reply(true), "_INBOX.B1.10.fail.3.2.$FI");
    }

    #[test]
    fn the_window_holds_two_flow_intervals() {
        let mut window = FastWindow::new("_INBOX.B".into());
        for _ in 0..20 {
            assert!(window.has_room());
            window.next_reply(false);
        }
        assert!(!window.has_room(), "20 unacknowledged");
        assert_eq!(window.handle(br#"{"type":"ack","seq":10,"msgs":10}"#).unwrap(), Control::Ack { seq: 10, msgs: 10 });
        assert!(window.has_room());
        // The server may change the interval; acks never move back.
        window.handle(br#"{"type":"ack","seq":4,"msgs":50}"#).unwrap();
        for _ in 0..89 {
            window.next_reply(false);
        }
        assert!(window.has_room(), "109 sent, 10 acked, window 100");
        window.next_reply(false);
        assert!(!window.has_room());
    }

    #[test]
    fn the_batch_ends_with_its_pub_ack_or_an_error() {
        let mut window = FastWindow::new("_INBOX.B".into());
        let done = window.handle(br#"{"stream":"OBJ_b","seq":301,"batch":"B","count":301}"#).unwrap();
        assert!(matches!(done, Control::Done(ack) if ack.sequence == 301 && ack.batch_size == Some(301)));
        let refused = window.handle(br#"{"error":{"code":400,"err_code":10174,"description":"no"}}"#);
        assert!(matches!(refused, Err(Error::JetStream(e)) if e.err_code.0 == 10174));
        assert!(matches!(window.handle(br#"{"type":"gap","last_seq":3,"seq":5}"#), Err(Error::Protocol(_))));
        assert!(window.handle(b"not json").is_err());
    }
}
