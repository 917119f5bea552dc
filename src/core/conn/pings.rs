//! Outstanding PINGs. The server answers PINGs in order, so each PONG
//! completes the oldest one; each knows why it was sent.

use std::collections::VecDeque;

use bytes::BytesMut;

use super::FlushId;
use crate::core::proto::encode_ping;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum PingKind {
    /// Ends the handshake: the server has processed CONNECT and the SUBs.
    Handshake,
    KeepAlive,
    Flush(FlushId),
    /// Everything written to a lame-duck server has been processed.
    LameDuck,
}

#[derive(Default)]
pub(super) struct Pings {
    sent: VecDeque<PingKind>,
    /// Flushes asked for while not connected; their PINGs follow the next handshake.
    queued: Vec<FlushId>,
    /// Server bytes arrived since the last keep-alive tick.
    heard: bool,
}

impl Pings {
    pub(super) fn send(&mut self, out: &mut BytesMut, kind: PingKind) {
        encode_ping(out);
        self.sent.push_back(kind);
    }

    pub(super) fn queue_flush(&mut self, id: FlushId) {
        self.queued.push(id);
    }

    /// Sends the PINGs of flushes queued while disconnected.
    pub(super) fn send_queued(&mut self, out: &mut BytesMut) {
        for id in std::mem::take(&mut self.queued) {
            self.send(out, PingKind::Flush(id));
        }
    }

    /// The PING a PONG answers (`None` for an unsolicited PONG).
    pub(super) fn pong(&mut self) -> Option<PingKind> {
        self.sent.pop_front()
    }

    pub(super) fn heard(&mut self) {
        self.heard = true;
    }

    /// Whether server bytes arrived since the last call.
    pub(super) fn take_heard(&mut self) -> bool {
        std::mem::take(&mut self.heard)
    }

    pub(super) fn keepalives_unanswered(&self) -> u32 {
        self.sent.iter().filter(|k| **k == PingKind::KeepAlive).count() as u32
    }

    /// Forgets the PINGs of a lost transport; returns the flushes among them.
    pub(super) fn take_sent_flushes(&mut self) -> Vec<FlushId> {
        self.sent
            .drain(..)
            .filter_map(|k| match k {
                PingKind::Flush(id) => Some(id),
                _ => None,
            })
            .collect()
    }

    pub(super) fn take_queued_flushes(&mut self) -> Vec<FlushId> {
        std::mem::take(&mut self.queued)
    }
}
