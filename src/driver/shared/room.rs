//! Room in the outgoing buffer: publishers that can wait do so past the
//! high water mark; in wasm, those that cannot hand what waits to the host.

use std::task::Waker;

use super::Inner;
use crate::core::conn::State;

/// Buffered bytes above which publishers wait for the writer.
pub(crate) const HIGH_WATER: usize = 4 * 1024 * 1024;
/// wasm: bytes waiting past which a publish that cannot wait hands them to the host first.
#[cfg(target_arch = "wasm32")]
const SPILL: usize = 8 * 1024 * 1024;

impl Inner {
    /// Whether publishers that can wait should: the outgoing buffer is past
    /// the high water mark (or the smaller bound set for it), so they wait
    /// instead of meeting `OutgoingBufferFull`.
    #[inline]
    pub(super) fn publishers_wait(&self) -> bool {
        let high_water = HIGH_WATER.min(self.session.outgoing_buffer_size());
        self.session.state() == State::Connected && self.session.pending_bytes() >= high_water
    }

    /// Before a publish from a caller that cannot wait (JavaScript's
    /// `publish` and acks): in wasm a loop of them never lets the driver
    /// write, so once more than `SPILL` bytes wait they go to the host
    /// first. Natively such callers meet the outgoing bound.
    pub fn make_room_now(&mut self) {
        #[cfg(target_arch = "wasm32")]
        if self.session.transmit_bytes() >= SPILL {
            self.spill();
        }
    }

    /// Hands every byte waiting to the open transport's host, whatever it
    /// already holds: a burst then lies in its socket buffer, outside wasm
    /// memory (as nats.js's writes do), and leaves while the loop runs
    /// where the host writes at once (Node). What the host holds counts
    /// toward the outgoing bound; should it refuse (out of memory),
    /// publishes are refused until the driver looks again.
    #[cfg(target_arch = "wasm32")]
    fn spill(&mut self) {
        let Some(host) = &self.host else { return };
        while let Some(piece) = self.session.poll_transmit(crate::driver::task::MAX_WRITE) {
            if host.send(&piece).is_err() {
                self.session.untransmit(std::iter::once(piece));
                self.session.handle_unwritten(usize::MAX);
                return;
            }
        }
        self.session.handle_unwritten(host.buffered());
    }

    /// wasm: tells the connection what the host still holds unsent.
    #[cfg(target_arch = "wasm32")]
    pub(crate) fn look_at_host(&mut self) {
        if let Some(host) = &self.host {
            self.session.handle_unwritten(host.buffered());
        }
    }

    /// Whether a publisher must wait for room in the outgoing buffer: if
    /// so it is woken once there is. Inlined: every publish and ack asks.
    #[inline]
    pub fn wait_for_room(&mut self, waker: &Waker) -> bool {
        if !self.publishers_wait() {
            return false;
        }
        self.space_waiters.push(waker.clone());
        self.wake_driver();
        true
    }
}
