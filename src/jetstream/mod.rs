//! JetStream: the sans-IO API types, pull consumer, push inbox, ack and
//! ordered-read machines (from `src/core/jetstream`, under their old paths
//! here), and — where a runtime exists — the context,
//! management calls, acked publish, pull, push and ordered readers, acks,
//! `AckBatch` commits, the checkpoint ledger, partitioned consumer groups
//! ([`groups`]), the Key-Value store ([`kv`]) and the object store
//! ([`object_store`]).
//!
//! The modules a program uses have async-nats's paths and names:
//! [`context`], [`stream`], [`consumer`] (with `pull` and `push`),
//! [`message`], [`publish`], [`account`]; [`api`] holds the same types under
//! natsjet's names, for code that needs no runtime.

#[cfg(has_runtime)]
pub mod account;
pub use crate::core::jetstream::{ack, api, ordered, pull, push};
pub mod groups;
pub mod kv;
pub mod object_store;

#[cfg(has_runtime)]
mod checkpoint;
#[cfg(has_runtime)]
mod commit;
#[cfg(has_runtime)]
pub mod consumer;
#[cfg(has_runtime)]
mod consumers;
#[cfg(has_runtime)]
pub mod context;
#[cfg(has_runtime)]
pub mod counters;
#[cfg(has_runtime)]
mod direct_batch;
#[cfg(has_runtime)]
pub mod message;
#[cfg(has_runtime)]
pub(crate) mod paging;
#[cfg(has_runtime)]
pub(crate) mod procedure;
#[cfg(has_runtime)]
pub mod publish;
#[cfg(has_runtime)]
mod purge;
#[cfg(has_runtime)]
mod push_consumer;
#[cfg(has_runtime)]
pub(crate) mod reader;
#[cfg(has_runtime)]
pub mod stream;
#[cfg(has_runtime)]
mod stream_info;
#[cfg(has_runtime)]
mod streams;

pub use ack::AckKind;
pub use api::{ErrorCode, JetStreamError as Error};
#[cfg(has_runtime)]
pub use checkpoint::{Admitted, CheckpointLedger, LedgerOptions, output_msg_id};
#[cfg(has_runtime)]
pub use consumer::{Consumer, PullConsumer, PushConsumer};
#[cfg(has_runtime)]
pub use context::{Context, new, with_domain, with_prefix};
#[cfg(has_runtime)]
pub use direct_batch::DirectBatch;
#[cfg(has_runtime)]
pub use message::Message;
#[cfg(has_runtime)]
pub use publish::{Publish, PublishAckFuture};
#[cfg(has_runtime)]
pub use push_consumer::BoundPushConfig;
#[cfg(has_runtime)]
pub use reader::{Batch, FetchBuilder, Messages, OrderedConsumer, OrderedMessages, OrderedPushConsumer, StreamBuilder};
