//! Object Store for JavaScript: the raw exports that `bindings/obj/` shapes
//! like nats.js 3.4's `@nats-io/obj`. Thin like the rest of `wasm`: every
//! call goes to the Rust store ([`crate::jetstream::object_store`]) or the
//! sync decisions it is made of, which own the rules (bucket and object names, subjects, chunking, the SHA-256,
//! links, replacing and cleaning up, nats.js's Latin-1 names); here
//! arguments are converted and metas packed for the crossing. A meta
//! crosses as JSON both ways: out with its revision next to it
//! (`RawEntries`), in as TS writes it; sealing, status and destroy are
//! JetStream API calls in TS. Puts leave fast batches out (see `put`).
//! - [`buckets`]: `RawJetStream.objStream` (the stream a bucket is made
//!   of) and `objBind` (a handle from the stream's config);
//! - [`store`]: `RawObjectStore`, one bucket: lookups, gets' checks,
//!   deletes, updates and links, puts;
//! - [`upload`]: `RawObjectUpload`, an object being put;
//! - [`meta`]: metas from JS and to JS.

mod buckets;
mod meta;
mod store;
mod upload;
