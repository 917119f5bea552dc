//! The interface every protocol machine of the core shares, shaped like
//! the sub-machines of str0m and quinn-proto: input and the clock go in,
//! events and the next deadline (with its reason) come out, and the link
//! to the server going down or up is one more input. A session drives
//! any of them the same way: feed, then drain to the next deadline.

use crate::core::time::Instant;
use crate::core::timer::Deadline;

/// The link a machine's traffic goes over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Link {
    /// Connected again (for the connection itself: the transport opened).
    Up,
    /// Lost; what was in flight may be gone.
    Down,
}

/// A sans-IO machine: it never reads a clock, never blocks and never
/// writes; `now` never goes backwards for it (an earlier `now` counts as
/// the latest it saw, see [`Clock`](crate::core::time::Clock)).
pub trait Machine {
    /// What comes in from the server.
    type Input<'a>;
    /// What the machine says about each input (nothing, or how to route it).
    type Verdict;
    /// What it reports to whoever drives it.
    type Event;
    /// Its timers: the reason carried by each deadline.
    type Timer;

    /// Takes input from the server at `now`.
    fn handle_input(&mut self, now: Instant, input: Self::Input<'_>) -> Self::Verdict;

    /// Fires what is due at `now`; early calls do nothing.
    fn handle_timeout(&mut self, now: Instant);

    /// The link went down or came back up at `now`.
    fn handle_link(&mut self, now: Instant, link: Link);

    /// The next event for whoever drives the machine.
    fn poll_event(&mut self) -> Option<Self::Event>;

    /// When to call [`handle_timeout`](Self::handle_timeout) next, and why.
    fn poll_deadline(&self) -> Option<Deadline<Self::Timer>>;
}
