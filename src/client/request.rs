//! [`Request`]: a request built step by step for `Client::send_request`,
//! as async-nats builds it.

use std::time::Duration;

use bytes::Bytes;

use crate::header::HeaderMap;

/// The parts of a request that are not its subject. Unset parts take the
/// client's defaults: no payload, no headers, the default request timeout
/// and the connection's muxed inbox.
#[derive(Debug, Clone, Default)]
pub struct Request {
    pub payload: Option<Bytes>,
    pub headers: Option<HeaderMap>,
    /// `Some(None)` waits forever.
    pub timeout: Option<Option<Duration>>,
    /// An inbox subscribed for this request only (nats.js `noMux`).
    pub inbox: Option<String>,
}

impl Request {
    pub fn new() -> Request {
        Request::default()
    }

    pub fn payload(mut self, payload: Bytes) -> Request {
        self.payload = Some(payload);
        self
    }

    pub fn headers(mut self, headers: HeaderMap) -> Request {
        self.headers = Some(headers);
        self
    }

    pub fn timeout(mut self, timeout: Option<Duration>) -> Request {
        self.timeout = Some(timeout);
        self
    }

    pub fn inbox(mut self, inbox: String) -> Request {
        self.inbox = Some(inbox);
        self
    }
}
