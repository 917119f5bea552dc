//! [`Request`]: a request built step by step for `Client::send_request`,
//! as async-nats builds it.

use std::time::Duration;

use bytes::Bytes;

use crate::core::header::HeaderMap;

/// The parts of a request that are not its subject. Unset parts take the
/// client's defaults: no payload, no headers, the default request timeout
/// and the connection's muxed inbox.
#[derive(Debug, Clone, Default)]
pub struct Request {
    /// The payload (default: empty).
    pub payload: Option<Bytes>,
    /// Headers to send with the request.
    pub headers: Option<HeaderMap>,
    /// `Some(None)` waits forever.
    pub timeout: Option<Option<Duration>>,
    /// An inbox subscribed for this request only (nats.js `noMux`).
    pub inbox: Option<String>,
}

impl Request {
    /// A request with the client's defaults.
    pub fn new() -> Request {
        Request::default()
    }

    /// Sets the payload.
    pub fn payload(mut self, payload: Bytes) -> Request {
        self.payload = Some(payload);
        self
    }

    /// Sets the headers.
    pub fn headers(mut self, headers: HeaderMap) -> Request {
        self.headers = Some(headers);
        self
    }

    /// Sets the timeout; `None` waits forever.
    pub fn timeout(mut self, timeout: Option<Duration>) -> Request {
        self.timeout = Some(timeout);
        self
    }

    /// Has the answer come to `inbox`, subscribed for this request only (nats.js `noMux` and `reply`).
    pub fn inbox(mut self, inbox: String) -> Request {
        self.inbox = Some(inbox);
        self
    }
}
