//! Sending an [`AckBatch`]: every ack written in one flush, or sent as
//! pipelined requests over the connection's one muxed inbox and sorted by
//! the server's answers (no subscription per ack, no waiting one by one).

use std::time::Duration;

use futures_util::StreamExt;
use futures_util::stream::FuturesUnordered;

use super::ack::{AckBatch, AckConfirmations, AckKind, AckReport, AckToken};
use super::message::Message;
use crate::client::Client;
use crate::error::Error;
use crate::time::Instant;

impl AckBatch {
    /// Adds the final ack `kind` for `message`; the message then refuses any
    /// other final ack ([`Error::AlreadyAcknowledged`]), so it is acked once.
    pub fn add_message(&mut self, message: &Message, kind: AckKind) -> Result<(), Error> {
        let token = message.claim_token(&kind)?;
        self.add(token, kind)
    }

    /// Publishes every ack and returns once the server has processed them
    /// (one flush round trip). Unconfirmed in the server's terms: acks to a
    /// consumer that is gone are dropped silently.
    pub async fn commit(self, client: &Client) -> Result<(), Error> {
        for ack in self.plan(self.policy()) {
            client.publish(&ack.subject, &ack.body).await?;
        }
        client.flush().await
    }

    /// Sends every ack as a request and waits up to `timeout` for the
    /// server's answers: each delivery ends up confirmed, refused (with the
    /// server's reason) or unconfirmed (no answer: ambiguous, safe to resend).
    pub async fn commit_confirmed(self, client: &Client, timeout: Duration) -> Result<AckReport, Error> {
        let plan = self.plan(self.policy());
        let mut confirmations = AckConfirmations::new(Instant::ZERO, timeout);
        let mut answers = FuturesUnordered::new();
        for (id, ack) in plan.iter().enumerate() {
            confirmations.sent(id as u64, ack);
            match client.send_request(&ack.subject, None, &ack.body, Some(timeout)) {
                Ok(answer) => answers.push(async move { (id as u64, answer.await) }),
                // Not sent (e.g. the client closed): reported as unconfirmed below.
                Err(Error::Closed | Error::ReconnectBufferFull { .. }) => break,
                Err(e) => return Err(e),
            }
        }
        while let Some((id, answer)) = answers.next().await {
            if let Ok(reply) = answer {
                confirmations.handle_reply(id, &reply);
            }
        }
        // Whatever got no answer (timeout, no responders, disconnect) is unconfirmed.
        confirmations.handle_timeout(Instant::ZERO + timeout);
        Ok(confirmations.into_report())
    }
}

impl Message {
    /// The token of this message, marking `kind` as taken (final acks once).
    pub(crate) fn claim_token(&self, kind: &AckKind) -> Result<AckToken, Error> {
        AckToken::new(self.claim(kind)?)
    }
}
