//! The async driver: one task per connection that moves bytes between the
//! transport and the sans-IO core and wakes the readers waiting on it. The
//! runtimes it runs on live in `src/runtime`; their public types are
//! re-exported here, where they always were.

pub use crate::runtime::*;

#[cfg(has_runtime)]
pub(crate) mod readers;
#[cfg(has_runtime)]
pub(crate) mod shared;
#[cfg(has_runtime)]
pub(crate) mod task;
