//! The two views of a connection's events: async-nats's [`Event`] (unit
//! variants a program matches on, through `event_callback`) and natsjet's
//! [`ConnectionEvent`] with the server and the cause (through `on_event`),
//! which the first is made from. Both read as async-nats's texts.

use std::fmt;

use crate::core::conn::ConnectionEvent;
use crate::core::error::{Error, ServerErrorKind};

/// A connection event as async-nats 0.52 has it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// Connected, first or again.
    Connected,
    /// The connection was lost; reconnecting follows unless the client closes.
    Disconnected,
    /// The server announced it is shutting down (lame duck mode); the client will move to another.
    LameDuckMode,
    /// [`Client::drain`](crate::Client::drain) began.
    Draining,
    /// The client closed for good.
    Closed,
    /// A subscription (by its id) dropped messages it had no room for.
    SlowConsumer(u64),
    /// The server sent an error (`-ERR`).
    ServerError(ServerError),
    /// An error of the client that ended no call.
    ClientError(ClientError),
}

/// An error the server reported, as async-nats sorts it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerError {
    /// The server refused the credentials.
    AuthorizationViolation,
    /// A subscription (by its id) could not keep up.
    SlowConsumer(u64),
    /// Any other error, as its text.
    Other(String),
}

/// An error of the client that did not end a call, as async-nats sorts it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClientError {
    /// Any other error, as its text.
    Other(String),
    /// No server is left to try: the client closes.
    MaxReconnects,
    /// The `reconnect_to_server_callback` chose a server outside the pool.
    ServerNotInPool,
}

impl Event {
    /// What async-nats reports for `event`: none, one, or (a client giving
    /// up) the reason and then `Closed`.
    pub(crate) fn from_connection(event: &ConnectionEvent) -> impl Iterator<Item = Event> {
        let (first, then) = match event {
            ConnectionEvent::Connected { .. } | ConnectionEvent::Reconnected { .. } => (Some(Event::Connected), None),
            ConnectionEvent::Disconnected { .. } => (Some(Event::Disconnected), None),
            ConnectionEvent::LameDuck { .. } => (Some(Event::LameDuckMode), None),
            ConnectionEvent::Draining => (Some(Event::Draining), None),
            ConnectionEvent::SlowConsumer { sid, .. } => (Some(Event::SlowConsumer(*sid)), None),
            ConnectionEvent::ServerNotInPool { .. } => (Some(Event::ClientError(ClientError::ServerNotInPool)), None),
            ConnectionEvent::ServerError(error) => (Some(Event::ServerError(ServerError::from(error))), None),
            ConnectionEvent::Closed { error: None } => (Some(Event::Closed), None),
            ConnectionEvent::Closed { error: Some(_) } => {
                (Some(Event::ClientError(ClientError::MaxReconnects)), Some(Event::Closed))
            }
            ConnectionEvent::Reconnecting { .. }
            | ConnectionEvent::ClusterUpdate { .. }
            | ConnectionEvent::Ping { .. }
            | ConnectionEvent::StaleConnection { .. }
            | ConnectionEvent::ForcedReconnect { .. } => (None, None),
        };
        first.into_iter().chain(then)
    }
}

impl From<&Error> for ServerError {
    fn from(error: &Error) -> Self {
        match error {
            Error::Server(e) if e.kind == ServerErrorKind::AuthorizationViolation => {
                ServerError::AuthorizationViolation
            }
            Error::Server(e) => ServerError::Other(e.message.clone()),
            other => ServerError::Other(other.to_string()),
        }
    }
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Event::Connected => f.write_str("connected"),
            Event::Disconnected => f.write_str("disconnected"),
            Event::LameDuckMode => f.write_str("lame duck mode detected"),
            Event::Draining => f.write_str("draining"),
            Event::Closed => f.write_str("closed"),
            Event::SlowConsumer(sid) => write!(f, "slow consumers for subscription {sid}"),
            Event::ServerError(e) => write!(f, "server error: {e}"),
            Event::ClientError(e) => write!(f, "client error: {e}"),
        }
    }
}

impl fmt::Display for ServerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ServerError::AuthorizationViolation => f.write_str("nats: authorization violation"),
            ServerError::SlowConsumer(sid) => write!(f, "nats: subscription {sid} is a slow consumer"),
            ServerError::Other(e) => write!(f, "nats: {e}"),
        }
    }
}

impl std::error::Error for ServerError {}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClientError::Other(e) => write!(f, "nats: {e}"),
            ClientError::MaxReconnects => f.write_str("nats: max reconnects reached"),
            ClientError::ServerNotInPool => f.write_str("nats: reconnect callback returned server not in pool"),
        }
    }
}

impl fmt::Display for ConnectionEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConnectionEvent::Connected { server } => write!(f, "connected to {server}"),
            ConnectionEvent::Disconnected { server, error: None } => write!(f, "disconnected from {server}"),
            ConnectionEvent::Disconnected { server, error: Some(e) } => write!(f, "disconnected from {server}: {e}"),
            ConnectionEvent::Reconnecting { server } => write!(f, "reconnecting to {server}"),
            ConnectionEvent::Reconnected { server } => write!(f, "reconnected to {server}"),
            ConnectionEvent::ClusterUpdate { added, deleted } => {
                write!(f, "cluster update: {} servers added, {} deleted", added.len(), deleted.len())
            }
            ConnectionEvent::LameDuck { server } => write!(f, "lame duck mode detected on {server}"),
            ConnectionEvent::Ping { pending_pings } => write!(f, "ping ({pending_pings} unanswered)"),
            ConnectionEvent::StaleConnection { server } => write!(f, "stale connection to {server}"),
            ConnectionEvent::ForcedReconnect { server } => write!(f, "forced reconnect from {server}"),
            ConnectionEvent::ServerNotInPool { server } => {
                write!(f, "the server chooser picked {server}, not in the pool")
            }
            ConnectionEvent::ServerError(e) => write!(f, "server error: {e}"),
            ConnectionEvent::SlowConsumer { sid, dropped } => {
                write!(f, "slow consumers for subscription {sid} ({dropped} messages dropped)")
            }
            ConnectionEvent::Closed { error: None } => f.write_str("closed"),
            ConnectionEvent::Closed { error: Some(e) } => write!(f, "closed: {e}"),
            ConnectionEvent::Draining => f.write_str("draining"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ServerAddr;

    #[test]
    fn reads_as_async_nats_events_do() {
        let server = ServerAddr::parse("nats://user:secret@127.0.0.1:4222").unwrap();
        assert_eq!(ConnectionEvent::Closed { error: None }.to_string(), "closed");
        let connected = ConnectionEvent::Connected { server: server.clone() }.to_string();
        assert!(connected.starts_with("connected to ") && !connected.contains("secret"), "{connected}");
        assert!(ConnectionEvent::LameDuck { server }.to_string().starts_with("lame duck mode detected"));
        let slow = ConnectionEvent::SlowConsumer { sid: 7, dropped: 2 };
        assert!(slow.to_string().starts_with("slow consumers for subscription 7"));
        assert_eq!(
            Event::from_connection(&slow).map(|e| e.to_string()).collect::<Vec<_>>(),
            ["slow consumers for subscription 7"]
        );
    }

    #[test]
    fn async_nats_events_from_natsjet_events() {
        let server = ServerAddr::parse("127.0.0.1:4222").unwrap();
        let seen = |event: ConnectionEvent| Event::from_connection(&event).collect::<Vec<_>>();
        assert_eq!(seen(ConnectionEvent::Reconnected { server: server.clone() }), [Event::Connected]);
        assert_eq!(
            seen(ConnectionEvent::Disconnected { server: server.clone(), error: Some(Error::Timeout) }),
            [Event::Disconnected]
        );
        assert_eq!(seen(ConnectionEvent::Ping { pending_pings: 1 }), []);
        assert_eq!(
            seen(ConnectionEvent::Closed { error: Some(Error::Timeout) }),
            [Event::ClientError(ClientError::MaxReconnects), Event::Closed]
        );
        let violation = Error::Server(crate::core::error::ServerError::from_message("Authorization Violation"));
        assert_eq!(
            seen(ConnectionEvent::ServerError(violation)),
            [Event::ServerError(ServerError::AuthorizationViolation)]
        );
        assert_eq!(
            seen(ConnectionEvent::ServerNotInPool { server: server.clone() }),
            [Event::ClientError(ClientError::ServerNotInPool)]
        );
        assert_eq!(
            Event::ClientError(ClientError::MaxReconnects).to_string(),
            "client error: nats: max reconnects reached"
        );
    }
}
