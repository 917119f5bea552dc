//! The subscription table: what to resubscribe after a reconnect and how
//! many messages each subscription may still receive.

use bytes::BytesMut;

use crate::core::id_map::IdMap;
use crate::core::proto::{encode_sub, encode_unsub};

struct Sub {
    subject: String,
    queue: Option<String>,
    /// End after this many messages in total (`unsubscribe(sid, Some(max))`).
    max: Option<u64>,
    delivered: u64,
    /// `delivered` when SUB was last written: the server counts its UNSUB
    /// limit from there.
    delivered_at_sub: u64,
    /// UNSUB was sent for a drain: messages already on the way are still
    /// delivered, but a new connection does not subscribe again.
    draining: bool,
}

/// What `unsubscribe(sid, Some(max))` has to tell the server.
pub(super) enum Limit {
    /// No such subscription (already ended).
    Unknown,
    /// Enough messages were already delivered: the subscription is gone.
    Reached,
    /// Send `UNSUB sid <remaining>`, counted from the last SUB.
    Remaining(u64),
}

/// Subscriptions by sid, kept in sid order so resubscription is deterministic.
#[derive(Default)]
pub(super) struct Subscriptions {
    subs: IdMap<u64, Sub>,
    last_sid: u64,
}

impl Subscriptions {
    pub(super) fn add(&mut self, subject: &str, queue: Option<&str>) -> u64 {
        self.last_sid += 1;
        let sub = Sub {
            subject: subject.to_string(),
            queue: queue.map(str::to_string),
            max: None,
            delivered: 0,
            delivered_at_sub: 0,
            draining: false,
        };
        self.subs.insert(self.last_sid, sub);
        self.last_sid
    }

    pub(super) fn remove(&mut self, sid: u64) -> bool {
        self.subs.remove(&sid).is_some()
    }

    /// Marks `sid` as draining; false if unknown or already draining.
    pub(super) fn drain(&mut self, sid: u64) -> bool {
        match self.subs.get_mut(&sid) {
            Some(sub) if !sub.draining => {
                sub.draining = true;
                true
            }
            _ => false,
        }
    }

    pub(super) fn is_draining(&self, sid: u64) -> bool {
        self.subs.get(&sid).is_some_and(|sub| sub.draining)
    }

    pub(super) fn limit(&mut self, sid: u64, max: u64) -> Limit {
        let Some(sub) = self.subs.get_mut(&sid) else { return Limit::Unknown };
        if sub.delivered >= max {
            self.subs.remove(&sid);
            return Limit::Reached;
        }
        sub.max = Some(max);
        Limit::Remaining(max - sub.delivered_at_sub)
    }

    /// Counts one message for `sid`: `None` if unknown (drop it), otherwise
    /// whether this message was its last.
    pub(super) fn deliver(&mut self, sid: u64) -> Option<bool> {
        let sub = self.subs.get_mut(&sid)?;
        sub.delivered += 1;
        let last = sub.max.is_some_and(|max| sub.delivered >= max);
        if last {
            self.subs.remove(&sid);
        }
        Some(last)
    }

    /// Writes SUB for every subscription (plus UNSUB with what remains of a
    /// limit), for a fresh server connection.
    pub(super) fn resubscribe(&mut self, out: &mut BytesMut) {
        for (sid, sub) in self.subs.iter_mut().filter(|(_, sub)| !sub.draining) {
            encode_sub(out, &sub.subject, sub.queue.as_deref(), *sid);
            sub.delivered_at_sub = sub.delivered;
            if let Some(max) = sub.max {
                encode_unsub(out, *sid, Some(max - sub.delivered));
            }
        }
    }
}
