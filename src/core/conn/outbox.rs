//! The bytes waiting for the transport: whole segments handed out as they
//! are, then the segment being filled.
//!
//! Appends go to a block; a large one (an object's chunk) that does not fit
//! seals the block's bytes as a segment and goes to a block with room, so
//! its bytes are copied in once and never again, and memory is what waits
//! plus a block's spare room. (One growing buffer that the writer takes
//! pieces of would, on every append that does not fit while a piece is
//! being written, copy everything not yet taken to a new allocation, the
//! old one living on until that piece is out.) Small appends grow the open
//! block up to [`SMALL_BLOCK`] and then open the next, so a burst the writer
//! does not get to (a synchronous JavaScript loop) lies in blocks the size
//! of its data, never in one buffer doubling towards twice that. A block whose bytes were all
//! written is used again: a put streams through two blocks, no allocation
//! (and no fresh pages to fault in) per chunk.

use std::collections::VecDeque;

use bytes::{Bytes, BytesMut};

/// The smallest block: what the driver writes at once, so small messages
/// still go out in writes of this size.
const BLOCK: usize = 256 * 1024;
/// Blocks hold four large appends, up to this size (a larger append gets a
/// block of its size).
const MAX_BLOCK: usize = 1024 * 1024;
/// Appends of fewer bytes than this join the open block while it holds
/// less than a [`SMALL_BLOCK`], however it has to grow.
const SMALL: usize = 4 * 1024;
/// Where a block of small appends is sealed. As large as what a publisher
/// that waits may leave (the driver's high water mark), so such a block
/// grows and is used again in place as the writer catches up (no fresh
/// allocation, no fresh pages to fault in); only a burst past it, which no
/// writer caught up with, goes on in new blocks of this size.
const SMALL_BLOCK: usize = 4 * 1024 * 1024;

#[derive(Debug, Default)]
pub(super) struct Outbox {
    /// Segments closed to appends, oldest first.
    sealed: VecDeque<Bytes>,
    sealed_len: usize,
    /// Where appends go; after everything sealed.
    open: BytesMut,
    /// The block used before `open`'s (empty): taken again once its bytes are written.
    previous: BytesMut,
}

impl Outbox {
    /// Bytes waiting.
    pub fn len(&self) -> usize {
        self.sealed_len + self.open.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn clear(&mut self) {
        self.sealed.clear();
        self.sealed_len = 0;
        self.open.clear();
    }

    /// The block to append to, with room for `need` more bytes without
    /// growing: a full block is sealed first, unless it is small, or holds
    /// less than a [`SMALL_BLOCK`] and the append is small.
    pub fn room(&mut self, need: usize) -> &mut BytesMut {
        if self.open.capacity() - self.open.len() >= need {
            return &mut self.open;
        }
        if self.open.len() < SMALL || (need < SMALL && self.open.len() < SMALL_BLOCK) {
            self.open.reserve(need);
            return &mut self.open;
        }
        self.seal();
        let want = match need < SMALL {
            true => SMALL_BLOCK,
            false => need.saturating_mul(4).clamp(BLOCK, MAX_BLOCK).max(need),
        };
        // The open block is being written: try the one before it, else a new one.
        if !self.open.try_reclaim(want) {
            let full = std::mem::take(&mut self.open);
            self.open = std::mem::replace(&mut self.previous, full);
            if !self.open.try_reclaim(want) {
                self.open = BytesMut::with_capacity(want);
            }
        }
        &mut self.open
    }

    /// Appends `bytes` as a segment of its own, shared, never copied.
    pub fn push_shared(&mut self, bytes: Bytes) {
        self.seal();
        self.sealed_len += bytes.len();
        self.sealed.push_back(bytes);
    }

    /// The block to append small writes to (it grows as they need).
    pub fn open(&mut self) -> &mut BytesMut {
        &mut self.open
    }

    fn seal(&mut self) {
        if !self.open.is_empty() {
            let segment = self.open.split().freeze();
            self.sealed_len += segment.len();
            self.sealed.push_back(segment);
        }
    }

    /// Puts back `pieces` taken by [`take`](Self::take) and not written
    /// (oldest first): they come out again before everything else.
    pub fn untake(&mut self, pieces: impl DoubleEndedIterator<Item = Bytes>) {
        for piece in pieces.rev() {
            self.sealed_len += piece.len();
            self.sealed.push_front(piece);
        }
    }

    /// The next at most `max` (at least 1) bytes to write, oldest first.
    pub fn take(&mut self, max: usize) -> Option<Bytes> {
        if self.sealed.is_empty() {
            self.seal();
        }
        let front = self.sealed.front_mut()?;
        let piece = match front.len() > max.max(1) {
            true => front.split_to(max.max(1)),
            false => self.sealed.pop_front()?,
        };
        self.sealed_len -= piece.len();
        Some(piece)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn drain(outbox: &mut Outbox, max: usize) -> Vec<u8> {
        let mut all = Vec::new();
        while let Some(piece) = outbox.take(max) {
            assert!(!piece.is_empty() && piece.len() <= max);
            all.extend_from_slice(&piece);
        }
        all
    }

    #[test]
    fn bytes_come_out_in_order_in_pieces_of_at_most_max() {
        let mut outbox = Outbox::default();
        let mut expected = Vec::new();
        for i in 0..50u8 {
            let len = if i % 7 == 0 { 100_000 } else { 10 + i as usize };
            let bytes = vec![i; len];
            outbox.room(len).extend_from_slice(&bytes);
            expected.extend_from_slice(&bytes);
            if i % 3 == 0 {
                outbox.open().extend_from_slice(b"PING\r\n");
                expected.extend_from_slice(b"PING\r\n");
            }
            if i % 11 == 0 {
                // The writer takes a piece between appends.
                let piece = outbox.take(1000).unwrap();
                assert_eq!(&piece[..], &expected[..piece.len()]);
                expected.drain(..piece.len());
            }
        }
        assert_eq!(outbox.len(), expected.len());
        assert_eq!(drain(&mut outbox, 64 * 1024), expected);
        assert!(outbox.is_empty());
        assert_eq!(outbox.take(10), None);
    }

    #[test]
    fn large_appends_share_a_block_and_a_written_block_is_used_again() {
        let mut outbox = Outbox::default();
        outbox.room(SMALL * 2).extend_from_slice(&[1; SMALL * 2]);
        let chunk = 128 * 1024;
        outbox.room(chunk).extend_from_slice(&[2; 128 * 1024]);
        let block = outbox.open().as_ptr();
        outbox.room(chunk).extend_from_slice(&[3; 128 * 1024]);
        // Both chunks in the block made for the first (it holds four).
        assert_eq!((outbox.open().as_ptr(), outbox.open().len()), (block, 2 * chunk));
        let piece = outbox.take(usize::MAX).unwrap();
        assert_eq!(piece.len(), SMALL * 2, "the bytes sealed before the chunks");
        let piece = outbox.take(usize::MAX).unwrap();
        assert_eq!((piece.as_ptr(), piece.len()), (block, 2 * chunk), "handed out where they were written");
        for i in 4..8 {
            outbox.room(chunk).extend_from_slice(&[i; 128 * 1024]);
        }
        // The block is full and still being written: a second one.
        let second = outbox.open().as_ptr();
        assert_ne!(second, block);
        assert_eq!(outbox.take(usize::MAX).unwrap().len(), 2 * chunk, "the rest of the first block");
        drop(piece);
        outbox.room(chunk).extend_from_slice(&[8; 128 * 1024]);
        outbox.room(chunk).extend_from_slice(&[9; 128 * 1024]);
        outbox.room(chunk).extend_from_slice(&[10; 128 * 1024]);
        // The second block is full, the first all written: it takes the next chunk.
        assert_eq!(outbox.open().as_ptr(), block);
        assert_eq!(outbox.len(), 5 * chunk);
        assert_eq!(drain(&mut outbox, usize::MAX).len(), 5 * chunk);
    }

    #[test]
    fn a_burst_of_small_appends_lies_in_blocks_the_size_of_its_data() {
        let mut outbox = Outbox::default();
        let message = [5u8; 1100];
        let count = 40 * 1024 * 1024 / message.len();
        for _ in 0..count {
            outbox.room(message.len()).extend_from_slice(&message);
        }
        let data = count * message.len();
        assert_eq!(outbox.len(), data);
        // Blocks of a SMALL_BLOCK, each full but for less than a message (one
        // buffer doubling would hold the whole burst, in up to twice its size).
        // (The first one's growth may take it past a SMALL_BLOCK.)
        assert!(outbox.open.capacity() <= 2 * SMALL_BLOCK, "{}", outbox.open.capacity());
        assert!(outbox.sealed.len() >= data / (2 * SMALL_BLOCK));
        for block in &outbox.sealed {
            assert!((SMALL_BLOCK - message.len()..=2 * SMALL_BLOCK).contains(&block.len()), "{}", block.len());
        }
        assert_eq!(drain(&mut outbox, usize::MAX).len(), data);
    }

    #[test]
    fn pieces_put_back_come_out_first_in_their_order() {
        let mut outbox = Outbox::default();
        outbox.open().extend_from_slice(b"abcdefgh");
        let pieces = [outbox.take(3).unwrap(), outbox.take(2).unwrap()];
        outbox.open().extend_from_slice(b"ij");
        outbox.untake(pieces.into_iter());
        assert_eq!(outbox.len(), 10);
        assert_eq!(drain(&mut outbox, 4), b"abcdefghij");
    }

    #[test]
    fn a_shared_append_is_handed_out_as_it_is() {
        let mut outbox = Outbox::default();
        outbox.open().extend_from_slice(b"PUB a 100000\r\n");
        let payload = Bytes::from(vec![7; 100_000]);
        outbox.push_shared(payload.clone());
        outbox.open().extend_from_slice(b"\r\nPING\r\n");
        assert_eq!(outbox.len(), 14 + 100_000 + 8);
        assert_eq!(&outbox.take(usize::MAX).unwrap()[..], b"PUB a 100000\r\n");
        let piece = outbox.take(60_000).unwrap();
        assert_eq!((piece.as_ptr(), piece.len()), (payload.as_ptr(), 60_000), "not copied");
        assert_eq!(outbox.take(usize::MAX).unwrap().len(), 40_000);
        assert_eq!(&outbox.take(usize::MAX).unwrap()[..], b"\r\nPING\r\n");
        assert!(outbox.is_empty());
    }
}
