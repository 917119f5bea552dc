//! What the server sends: parsed operations routed to the handshake,
//! subscriptions, requests, PING bookkeeping and error handling.

use bytes::BytesMut;

use super::pings::PingKind;
use super::{Connection, ConnectionEvent, Event, Phase, Sid};
use crate::core::error::{Error, PermissionOp, ProtocolError, ServerError, ServerErrorKind};
use crate::core::message::Message;
use crate::core::proto::{self, ServerOp};
use crate::core::time::Instant;

impl Connection {
    pub(super) fn on_input(&mut self, now: Instant, data: &mut BytesMut) {
        if !data.is_empty() {
            self.pings.heard();
        }
        while self.reads_input() {
            match self.parser.parse(data) {
                Ok(Some(op)) => self.on_op(now, op),
                Ok(None) => break,
                Err(e) => self.close_transport(Some(e)),
            }
        }
    }

    /// Input matters from transport open until we ask to close it; not
    /// while TLS is being set up underneath.
    fn reads_input(&self) -> bool {
        matches!(self.phase, Phase::AwaitInfo | Phase::AwaitPong | Phase::Connected | Phase::Moving)
    }

    fn on_op(&mut self, now: Instant, op: ServerOp) {
        if self.phase == Phase::AwaitInfo {
            match op {
                ServerOp::Info(info) => self.on_handshake_info(*info),
                _ => self.close_transport(Some(Error::Protocol(ProtocolError::ExpectedInfo))),
            }
            return;
        }
        match op {
            ServerOp::Info(info) => {
                let lame_duck = info.lame_duck_mode;
                self.apply_info(*info);
                if lame_duck && self.phase == Phase::Connected {
                    self.start_move(now);
                }
            }
            ServerOp::Msg { sid, message } => self.on_msg(sid, message),
            ServerOp::Ping => proto::encode_pong(self.out.open()),
            ServerOp::Pong => match self.pings.pong() {
                Some(PingKind::Handshake) => self.on_handshake_done(now),
                Some(PingKind::Flush(id)) => self.events.push_back(Event::Flushed { id, result: Ok(()) }),
                Some(PingKind::LameDuck) => self.finish_move(now),
                Some(PingKind::KeepAlive) | None => {}
            },
            ServerOp::Ok => {}
            ServerOp::Err(text) => self.on_server_error(ServerError::from_message(&text)),
        }
    }

    fn on_msg(&mut self, sid: u64, message: Message) {
        self.stats.in_messages += 1;
        self.stats.in_bytes += message.payload.len() as u64;
        if self.requests.mux_sid() == Some(sid) {
            if let Some((id, result)) = self.requests.route(message) {
                self.events.push_back(Event::Response { id, result });
            }
            return;
        }
        let Some(last) = self.subs.deliver(sid) else { return };
        let sid = Sid(sid);
        self.events.push_back(Event::Message { sid, message });
        if last {
            self.events.push_back(Event::SubscriptionEnded { sid });
        }
    }

    /// Permission violations are reported and the connection stays up; the
    /// server closes the connection after any other `-ERR`, so do we. A
    /// refused publish is never answered: the requests published to exactly
    /// its subject fail with the violation at once (as nats.js does) instead
    /// of waiting for their timeout.
    fn on_server_error(&mut self, error: ServerError) {
        if error.is_fatal_for_connection() {
            self.close_transport(Some(Error::Server(error)));
        } else {
            if let ServerErrorKind::PermissionsViolation { operation: PermissionOp::Publish, subject, .. } = &error.kind
            {
                for id in self.requests.refused(subject) {
                    self.events.push_back(Event::Response { id, result: Err(Error::Server(error.clone())) });
                }
            }
            let event = ConnectionEvent::ServerError(Error::Server(error));
            self.events.push_back(Event::Connection(event));
        }
    }
}
