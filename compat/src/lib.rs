//! Programs written for async-nats 0.52, the way its docs and examples use
//! its API, that build against natsjet by switching the one alias line
//! below. Each program takes a server URL and returns what it saw, line by
//! line, so the tests can check that both libraries see the same.
//!
//! Build with exactly one of `--features natsjet` and `--features async-nats`.

#[cfg(all(feature = "natsjet", feature = "async-nats"))]
compile_error!("pick one library: --features natsjet or --features async-nats");
#[cfg(not(any(feature = "natsjet", feature = "async-nats")))]
compile_error!("pick a library: --features natsjet or --features async-nats");

// The one line a program switches.
#[cfg(feature = "async-nats")]
use async_nats as nats;
#[cfg(feature = "natsjet")]
use natsjet as nats;

pub mod acks;
pub mod calls;
pub mod consumers;
pub mod core;
pub mod kv;
pub mod object_store;
pub mod options;
pub mod ordered;
pub mod publish;
pub mod pull;
pub mod push;
pub mod service;
pub mod streams;
pub mod surface;
pub mod switch;
pub mod workers;

/// What a program saw, one line per observation.
pub type Transcript = Vec<String>;

/// The result of every program: a transcript, or the library's error.
pub type Outcome = Result<Transcript, nats::Error>;
