//! async-nats's `ContextBuilder`: a JetStream context with its prefix or
//! domain, timeouts and window of publishes awaiting their ack, set once.

use std::time::Duration;

use super::Context;
use crate::client::Client;
use crate::jetstream::api;
use crate::jetstream::publish::DEFAULT_MAX_ACK_INFLIGHT;

/// Settings of a [`Context`], applied by [`build`](Self::build).
#[derive(Debug, Clone)]
pub struct ContextBuilder {
    prefix: String,
    timeout: Option<Duration>,
    ack_timeout: Option<Duration>,
    max_ack_inflight: usize,
    backpressure_on_inflight: bool,
}

impl Default for ContextBuilder {
    fn default() -> Self {
        ContextBuilder {
            prefix: api::api_prefix(None, None),
            timeout: None,
            ack_timeout: None,
            max_ack_inflight: DEFAULT_MAX_ACK_INFLIGHT,
            backpressure_on_inflight: true,
        }
    }
}

impl ContextBuilder {
    /// A builder with the defaults (the `$JS.API` prefix, no domain, a 5 s timeout).
    pub fn new() -> Self {
        Self::default()
    }

    /// The API prefix of an imported JetStream account.
    pub fn api_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = api::api_prefix(Some(&prefix.into()), None);
        self
    }

    /// A JetStream domain: the prefix becomes `$JS.<domain>.API`.
    pub fn domain(mut self, domain: impl Into<String>) -> Self {
        self.prefix = api::api_prefix(None, Some(&domain.into()));
        self
    }

    /// Timeout of API calls (and of acks, unless [`ack_timeout`](Self::ack_timeout) is set).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// How long a publish waits for its ack.
    pub fn ack_timeout(mut self, ack_timeout: Duration) -> Self {
        self.ack_timeout = Some(ack_timeout);
        self
    }

    /// Publishes awaiting their ack at most (at least 1).
    pub fn max_ack_inflight(mut self, capacity: usize) -> Self {
        self.max_ack_inflight = capacity;
        self
    }

    /// With a full window, `publish` waits for room (true, the default) or
    /// fails at once with `PublishErrorKind::MaxAckPending` (false).
    pub fn backpressure_on_inflight(mut self, enabled: bool) -> Self {
        self.backpressure_on_inflight = enabled;
        self
    }

    /// The context, over `client`.
    pub fn build(self, client: Client) -> Context {
        let mut context = Context::new(client).with_api_prefix(self.prefix);
        if let Some(timeout) = self.timeout {
            context.set_timeout(timeout);
        }
        context.set_max_ack_inflight(self.max_ack_inflight);
        context.publish.ack_timeout = self.ack_timeout;
        context.publish.backpressure = self.backpressure_on_inflight;
        context
    }
}
