//! Key-Value for JavaScript: the raw exports that `bindings/kv/` shapes
//! like nats.js 3.4's `@nats-io/kv`. Thin like the rest of `wasm`: every
//! call goes to the Rust store ([`crate::jetstream::kv`]), which owns the
//! rules (names, keys, subjects, operations, the bucket's stream, create
//! over markers, watches that resume and know when they caught up); here
//! arguments are converted and entries packed for the crossing.
//! - [`buckets`]: `RawJetStream.kvStream` / `kvBind` (for nats.js's
//!   `kvm.create` and `kvm.open`);
//! - [`options`]: nats.js's `KvOptions` read into the Rust `Config`, and
//!   [`nested`] its `mirror`, `sources`, `placement` and `republish`;
//! - [`store`]: `RawKv`, one bucket: writes, gets and reads (a watch,
//!   history or key listing, read in batches by [`crate::wasm::reader`]).

mod buckets;
mod nested;
mod options;
mod store;
