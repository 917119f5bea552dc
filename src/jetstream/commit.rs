//! Sending an [`AckBatch`]: every ack written in one flush, or sent as
//! pipelined requests over the connection's one muxed inbox and sorted by
//! the server's answers (no subscription per ack, no waiting one by one).

use std::time::Duration;

use std::future::poll_fn;
use std::task::Poll;

use super::ack::{Ack, AckBatch, AckConfirmations, AckReport, AckToken};
use super::message::Message;
use crate::client::Client;
use crate::driver::{DefaultRuntime, Runtime};
use crate::error::Error;
use crate::runtime::queue::Queue;
use crate::time::Instant;

impl AckBatch {
    /// Adds the final ack `kind` for `message`; the message then refuses any
    /// other final ack ([`Error::AlreadyAcknowledged`]), so it is acked once.
    pub fn add_message(&mut self, message: &Message, kind: impl Into<Ack>) -> Result<(), Error> {
        let kind = kind.into();
        let token = message.claim_token(&kind)?;
        self.add(token, kind)
    }

    /// Publishes every ack and returns once the server has processed them
    /// (one flush round trip). Unconfirmed in the server's terms: acks to a
    /// consumer that is gone are dropped silently.
    pub async fn commit(self, client: &Client) -> Result<(), Error> {
        for ack in self.plan(self.policy()) {
            client.publish_message(&ack.subject, None, None, &ack.body).await?;
        }
        client.flush_pong().await
    }

    /// Sends every ack as a request and waits up to `timeout` for the
    /// server's answers: each delivery ends up confirmed, refused (with the
    /// server's reason) or unconfirmed (no answer: ambiguous, safe to resend).
    pub async fn commit_confirmed(self, client: &Client, timeout: Duration) -> Result<AckReport, Error> {
        let plan = self.plan(self.policy());
        let answers = Queue::new(plan.len().max(1));
        let (ids, failure) =
            client.send_request_group(plan.iter().map(|ack| (ack.subject.as_str(), &ack.body[..])), &answers);
        match failure {
            // Not sent (the client closed, or the reconnect or outgoing buffer
            // is full): those acks are reported unconfirmed below.
            None | Some(Error::Closed | Error::ReconnectBufferFull { .. } | Error::OutgoingBufferFull { .. }) => {}
            Some(e) => {
                client.forget_requests(ids);
                return Err(e);
            }
        }
        let mut confirmations = AckConfirmations::new(Instant::ZERO, timeout);
        for (id, ack) in ids.iter().zip(&plan) {
            confirmations.sent(id.0, ack);
        }
        let mut deadline = DefaultRuntime::sleep(timeout);
        let mut waiting = ids.len();
        while waiting > 0 {
            let answer = poll_fn(|cx| match answers.poll_pop(cx) {
                Poll::Ready(answer) => Poll::Ready(answer),
                Poll::Pending => deadline.as_mut().poll(cx).map(|()| None),
            })
            .await;
            let Some((id, answer)) = answer else { break };
            waiting -= 1;
            if let Ok(reply) = answer {
                confirmations.handle_reply(id.0, &reply);
            }
        }
        client.forget_requests(ids);
        // Whatever got no answer (timeout, no responders, disconnect) is unconfirmed.
        confirmations.handle_timeout(Instant::ZERO + timeout);
        Ok(confirmations.into_report())
    }
}

impl Message {
    /// The token of this message, marking `kind` as taken (final acks once).
    pub(crate) fn claim_token(&self, kind: &Ack) -> Result<AckToken, Error> {
        AckToken::new(self.claim(kind)?)
    }
}
