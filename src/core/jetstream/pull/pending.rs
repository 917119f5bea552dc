//! Pending accounting (ADR-37): what the pulls we sent may still deliver.

/// Messages and bytes requested and not yet delivered or handed back.
/// Saturating: a late or duplicate status can never drive it negative.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Pending {
    pub msgs: u64,
    pub bytes: u64,
}

impl Pending {
    pub fn add(&mut self, msgs: u64, bytes: u64) {
        self.msgs = self.msgs.saturating_add(msgs);
        self.bytes = self.bytes.saturating_add(bytes);
    }

    pub fn sub(&mut self, msgs: u64, bytes: u64) {
        self.msgs = self.msgs.saturating_sub(msgs);
        self.bytes = self.bytes.saturating_sub(bytes);
    }

    pub fn reset(&mut self) {
        *self = Pending::default();
    }
}
