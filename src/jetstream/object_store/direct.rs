//! Whether a get reads an object's chunks by batched direct gets (ADR-31,
//! server 2.11+, the bucket's stream with `allow_direct`). The read itself
//! is the core's procedure (`core::object::read`), pumped over the context
//! by `jetstream::procedure`.

use crate::jetstream::context::Context;

/// Whether `context` can read chunks by batched direct gets from a
/// stream with `allow_direct` (a server of API level 1, 2.11, or later).
pub(crate) fn available(context: &Context, allow_direct: bool) -> bool {
    allow_direct && context.client().api_level() >= 1
}
