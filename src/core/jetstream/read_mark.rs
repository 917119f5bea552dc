//! How far the user has read a push reader, shared by the user's stream
//! and the driver without a lock: the driver holds a flow-control reply
//! until the user has taken what came before it, and the stream tells the
//! driver when it gets there.

use std::sync::atomic::{AtomicU64, Ordering::SeqCst};

/// Messages taken, and the count the driver waits for (`u64::MAX`: none).
/// Both sides write their own counter and then read the other's, all
/// sequentially consistent, so at least one of them sees that the wait is
/// over and the reply is never forgotten.
#[derive(Debug)]
pub(crate) struct ReadMark {
    taken: AtomicU64,
    wanted: AtomicU64,
}

impl ReadMark {
    pub fn new() -> Self {
        ReadMark { taken: AtomicU64::new(0), wanted: AtomicU64::new(u64::MAX) }
    }

    /// The user took one more message: whether the driver waits for this
    /// count, so must be told.
    pub fn take_one(&self) -> bool {
        let taken = self.taken.fetch_add(1, SeqCst) + 1;
        taken >= self.wanted.load(SeqCst)
    }

    /// The driver waits for `wanted` messages taken (or for nothing).
    pub fn want(&self, wanted: Option<u64>) {
        self.wanted.store(wanted.unwrap_or(u64::MAX), SeqCst);
    }

    pub fn taken(&self) -> u64 {
        self.taken.load(SeqCst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn the_user_is_told_to_report_when_the_wanted_count_is_reached() {
        let mark = ReadMark::new();
        assert!(!mark.take_one(), "nothing wanted");
        mark.want(Some(3));
        assert!(!mark.take_one());
        assert!(mark.take_one(), "the third");
        assert!(mark.take_one(), "still wanted until the driver says otherwise");
        mark.want(None);
        assert!(!mark.take_one());
        assert_eq!(mark.taken(), 5);
    }
}
