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
/// The interval between flow acks asked for until the server says otherwise.
pub const DEFAULT_FLOW: u16 = 10;
/// Flow-ack intervals that may be in flight at once.
pub const DEFAULT_OUTSTANDING: u16 = 2;

/// What a publish of the batch does, as its reply subject says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Start = 0,
    Append = 1,
    Commit = 2,
    /// Commits without storing the message that carries it (server 2.14).
    CommitEob = 3,
}

/// A control message of the batch, as the server sent it to the inbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Control {
    /// Everything up to `seq` arrived; flow acks now come every `msgs`.
    Ack { seq: u64, msgs: u64 },
    /// Messages from `expected` up to (not including) `current` were lost;
    /// only reported when the batch goes on over gaps.
    Gap { expected: u64, current: u64 },
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
    last_seq: u64,
    /// Set on the final `PublishAck`.
    batch: Option<String>,
}

/// How a fast batch runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FastOptions {
    /// Flow acks asked for every this many messages (the server may change it).
    pub flow: u16,
    /// Flow intervals that may be unacknowledged before a publish waits.
    pub outstanding: u16,
    /// Go on over lost messages (`ok`: each is reported as a gap) instead
    /// of ending the batch at the first one (`fail`).
    pub continue_on_gap: bool,
}

impl Default for FastOptions {
    fn default() -> Self {
        FastOptions { flow: DEFAULT_FLOW, outstanding: DEFAULT_OUTSTANDING, continue_on_gap: false }
    }
}

/// The sequence numbers, reply subjects and window of one fast batch.
#[derive(Debug)]
pub struct FastWindow {
    inbox: String,
    options: FastOptions,
    seq: u64,
    acked: u64,
    flow: u64,
}

impl FastWindow {
    /// A batch answered on `inbox` (a fresh inbox, its last token the batch id), with the default options.
    #[cfg(test)]
    pub fn new(inbox: String) -> Self {
        Self::with_options(inbox, FastOptions::default())
    }

    /// A batch answered on `inbox`, run as `options` say (a flow and a
    /// window of at least 1).
    pub fn with_options(inbox: String, options: FastOptions) -> Self {
        let options = FastOptions { flow: options.flow.max(1), outstanding: options.outstanding.max(1), ..options };
        FastWindow { inbox, options, seq: 0, acked: 0, flow: options.flow.into() }
    }

    /// What the caller subscribes to for the batch's control messages.
    pub fn subscription(&self) -> String {
        format!("{}.>", self.inbox)
    }

    /// Whether the next publish fits the window.
    pub fn has_room(&self) -> bool {
        self.seq - self.acked < self.flow * u64::from(self.options.outstanding)
    }

    /// The reply subject of the next publish (the last one with `commit`).
    pub fn next_reply(&mut self, commit: bool) -> String {
        self.seq += 1;
        let op = match (self.seq, commit) {
            (_, true) => Op::Commit,
            (1, false) => Op::Start,
            _ => Op::Append,
        };
        self.reply(op)
    }

    /// The reply subject of an end of batch that stores no message (server 2.14).
    pub fn end_reply(&mut self) -> String {
        self.seq += 1;
        self.reply(Op::CommitEob)
    }

    fn reply(&self, op: Op) -> String {
        let gap = if self.options.continue_on_gap { "ok" } else { "fail" };
        format!("{}.{}.{gap}.{}.{}.$FI", self.inbox, self.options.flow, self.seq, op as u8)
    }

    /// Messages sent so far (the batch sequence of the last one).
    pub fn sent(&self) -> u64 {
        self.seq
    }

    /// Messages the server acknowledged so far.
    pub fn acked(&self) -> u64 {
        self.acked
    }

    /// A message on the inbox: flow ack, gap, the batch's `PublishAck`, or the error that ended it.
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
            "gap" if self.options.continue_on_gap => Ok(Control::Gap { expected: flow.last_seq, current: flow.seq }),
            "gap" => Err(Error::Protocol(ProtocolError::FastBatch(format!(
                "the stream lost messages {} to {} of fast batch {}",
                flow.last_seq,
                flow.seq.saturating_sub(1),
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
        // An `err` control message carries the server's error.
        let err = window.handle(
            br#"{"type":"err","seq":4,"error":{"code":400,"err_code":10208,"description":"batch publish ID unknown"}}"#,
        );
        assert!(matches!(&err, Err(Error::JetStream(e)) if e.err_code.0 == 10208), "{err:?}");
    }

    #[test]
    fn options_shape_the_replies_and_the_window() {
        let options = FastOptions { flow: 100, outstanding: 3, continue_on_gap: true };
        let mut window = FastWindow::with_options("_INBOX.F".into(), options);
        assert_eq!(window.next_reply(false), "_INBOX.F.100.ok.1.0.$FI");
        for _ in 1..300 {
            assert!(window.has_room());
            window.next_reply(false);
        }
        assert!(!window.has_room(), "300 unacknowledged: three intervals of 100");
        assert_eq!(window.end_reply(), "_INBOX.F.100.ok.301.3.$FI");
        assert_eq!(window.sent(), 301);
        // Going on over gaps reports each one.
        let gap = window.handle(br#"{"type":"gap","last_seq":7,"seq":9}"#).unwrap();
        assert_eq!(gap, Control::Gap { expected: 7, current: 9 });
        // A flow and a window of 0 would stall for good: at least 1.
        let mut tiny = FastWindow::with_options("_INBOX.T".into(), FastOptions { flow: 0, outstanding: 0, ..options });
        assert!(tiny.has_room());
        assert_eq!(tiny.next_reply(false), "_INBOX.T.1.ok.1.0.$FI");
        assert!(!tiny.has_room());
    }
}
