//! The services API's rules (ADR-32, "micro"), sans-IO: names, versions
//! and the discovery subjects ([`names`]), the PING, INFO and STATS replies
//! field by field ([`replies`], [`endpoint`]), the error an endpoint answers
//! with ([`error`]) and what a running service keeps ([`registry`]). The
//! `service` API folder uses them over a client; nothing here subscribes,
//! publishes or reads a clock.

pub mod endpoint;
pub mod error;
pub mod names;
pub mod registry;
pub mod replies;

pub use names::{
    DEFAULT_QUEUE_GROUP, NATS_SERVICE_ERROR, NATS_SERVICE_ERROR_CODE, SERVICE_API_PREFIX, Verb, is_valid_name,
    is_valid_version,
};
pub use registry::{Endpoints, Identity};
pub use replies::{INFO_RESPONSE_TYPE, Info, PING_RESPONSE_TYPE, PingResponse, STATS_RESPONSE_TYPE, Stats};
