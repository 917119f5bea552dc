//! Requests over one muxed inbox subscription `<prefix>.<token>.*`: each
//! request gets its own last token, so one SUB serves every request and the
//! first reply settles it. A request for many replies stays open until
//! its caller cancels it. Each pending request keeps a hash of the subject
//! it was published to: the server refuses a publish by `-ERR` naming only
//! that subject, never answering it, and [`Requests::refused`] finds the
//! requests that will never be answered. A hash, not the subject, because
//! every acked publish and confirmed ack is a request and a refusal is rare.

use super::RequestId;
use crate::core::error::Error;
use crate::core::id_map::IdMap;
use crate::core::message::Message;
use crate::core::proto::decimal_before;

/// A request waiting for an answer.
struct Pending {
    /// For many replies: it stays pending until cancelled.
    many: bool,
    /// [`subject_hash`] of the subject it was published to.
    subject: u64,
}

#[derive(Default)]
pub(super) struct Requests {
    /// The muxed subscription's sid and the reply prefix (ends with '.').
    mux: Option<(u64, String)>,
    /// The requests waiting for an answer.
    pending: IdMap<u64, Pending>,
    last_id: u64,
    /// The last reply subject, its buffer reused: a batch of confirmed acks
    /// makes thousands.
    reply: String,
}

impl Requests {
    pub(super) fn mux_sid(&self) -> Option<u64> {
        self.mux.as_ref().map(|(sid, _)| *sid)
    }

    pub(super) fn open_mux(&mut self, sid: u64, reply_prefix: String) {
        self.mux = Some((sid, reply_prefix));
    }

    /// A new request id and its reply subject, to hand back with
    /// [`recycle`](Self::recycle) once written. Call after `open_mux`.
    pub(super) fn next(&mut self) -> (RequestId, String) {
        self.last_id += 1;
        let mut reply = std::mem::take(&mut self.reply);
        reply.clear();
        reply.push_str(self.mux.as_ref().map_or("", |(_, p)| p.as_str()));
        // Without the formatting machinery: thousands per batch of confirmed acks.
        let mut digits = [0u8; 20];
        let start = decimal_before(&mut digits, self.last_id);
        digits[start..].iter().for_each(|&d| reply.push(char::from(d)));
        (RequestId(self.last_id), reply)
    }

    /// Takes back a reply subject's buffer for the next request.
    pub(super) fn recycle(&mut self, reply: String) {
        self.reply = reply;
    }

    pub(super) fn track(&mut self, id: RequestId, many: bool, subject: &str) {
        self.pending.insert(id.0, Pending { many, subject: subject_hash(subject) });
    }

    pub(super) fn cancel(&mut self, id: RequestId) {
        self.pending.remove(&id.0);
    }

    /// Settles the request a message on the muxed inbox answers; `None` for
    /// replies nobody waits for (cancelled, already answered, foreign).
    pub(super) fn route(&mut self, message: Message) -> Option<(RequestId, Result<Message, Error>)> {
        let (_, prefix) = self.mux.as_ref()?;
        let token: u64 = message.subject.strip_prefix(prefix.as_str())?.parse().ok()?;
        if !self.pending.get(&token)?.many {
            self.pending.remove(&token);
        }
        Some((RequestId(token), message.into_answer()))
    }

    /// The pending requests published to exactly `subject`, oldest first,
    /// forgotten: the server refused that publish (a permissions violation).
    pub(super) fn refused(&mut self, subject: &str) -> Vec<RequestId> {
        let subject = subject_hash(subject);
        let mut ids = Vec::new();
        self.pending.retain(|id, pending| {
            let hit = pending.subject == subject;
            if hit {
                ids.push(RequestId(*id));
            }
            !hit
        });
        ids
    }

    /// Every pending request, oldest first, forgotten.
    pub(super) fn take_pending(&mut self) -> Vec<RequestId> {
        self.pending.drain().map(|(id, _)| RequestId(id)).collect()
    }
}

/// FNV-1a, 64 bits: no allocation per request, and two pending subjects
/// that differ collide with odds near 2^-64.
fn subject_hash(subject: &str) -> u64 {
    subject.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3))
}
