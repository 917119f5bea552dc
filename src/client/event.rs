//! How an [`Event`] reads: async-nats's texts for the events both
//! clients have (`connected`, `disconnected`, `closed`…), with the server
//! natsjet's events carry.

use std::fmt;

use super::Event;

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Event::Connected { server } => write!(f, "connected to {server}"),
            Event::Disconnected { server, error: None } => write!(f, "disconnected from {server}"),
            Event::Disconnected { server, error: Some(e) } => write!(f, "disconnected from {server}: {e}"),
            Event::Reconnecting { server } => write!(f, "reconnecting to {server}"),
            Event::Reconnected { server } => write!(f, "reconnected to {server}"),
            Event::ClusterUpdate { added, deleted } => {
                write!(f, "cluster update: {} servers added, {} deleted", added.len(), deleted.len())
            }
            Event::LameDuck { server } => write!(f, "lame duck mode detected on {server}"),
            Event::Ping { pending_pings } => write!(f, "ping ({pending_pings} unanswered)"),
            Event::StaleConnection { server } => write!(f, "stale connection to {server}"),
            Event::ForcedReconnect { server } => write!(f, "forced reconnect from {server}"),
            Event::ServerError(e) => write!(f, "server error: {e}"),
            Event::SlowConsumer { sid, dropped } => {
                write!(f, "slow consumers for subscription {sid} ({dropped} messages dropped)")
            }
            Event::Closed { error: None } => f.write_str("closed"),
            Event::Closed { error: Some(e) } => write!(f, "closed: {e}"),
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
        assert_eq!(Event::Closed { error: None }.to_string(), "closed");
        let connected = Event::Connected { server: server.clone() }.to_string();
        assert!(connected.starts_with("connected to ") && !connected.contains("secret"), "{connected}");
        assert!(Event::LameDuck { server }.to_string().starts_with("lame duck mode detected"));
        assert!(
            Event::SlowConsumer { sid: 7, dropped: 2 }.to_string().starts_with("slow consumers for subscription 7")
        );
    }
}
