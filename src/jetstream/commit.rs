//! Sending an [`AckBatch`]: every ack written in one flush, or sent as
//! pipelined requests over the connection's one muxed inbox and sorted by
//! the server's answers (no subscription per ack, no waiting one by one).

use std::time::Duration;

use std::future::poll_fn;
use std::task::Poll;

use super::ack::{Ack, AckBatch, AckConfirmations, AckReport, AckToken};
use super::message::Message;
use crate::client::Client;
use crate::core::conn::RequestId;
use crate::core::error::Error;
use crate::core::time::Instant;
use crate::driver::{DefaultRuntime, Runtime};
use crate::runtime::queue::Queue;

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
        let sent = client.send_request_group(plan.iter().map(|ack| (ack.subject.as_str(), &ack.body[..])), &answers);
        let mut confirmations = AckConfirmations::new(Instant::ZERO, timeout);
        let ids = sent_or_fail(client, sent)?;
        for (id, ack) in ids.iter().zip(&plan) {
            confirmations.sent(id.0, ack);
        }
        await_confirmations(client, ids, &answers, confirmations, timeout).await
    }
}

/// `+ACK` for each of `tokens` (distinct deliveries), confirmed per consumer
/// by its last: that one goes as a request, the others before it without a
/// reply. nats-server takes a consumer's acks from one connection in the
/// order they came, so its answer to the last settles those before it; the
/// checkpoint ledger's commit, thousands at a time, pays one answer instead
/// of thousands.
pub(crate) async fn ack_confirmed(
    client: &Client,
    tokens: Vec<AckToken>,
    timeout: Duration,
) -> Result<AckReport, Error> {
    let body = Ack::Ack.body();
    let mut groups: Vec<Vec<AckToken>> = Vec::new();
    for token in tokens {
        let same = |g: &&mut Vec<AckToken>| g[0].stream() == token.stream() && g[0].consumer() == token.consumer();
        match groups.iter_mut().find(same) {
            Some(group) => group.push(token),
            None => groups.push(vec![token]),
        }
    }
    let before_lasts = groups.iter().flat_map(|g| &g[..g.len() - 1]).map(|t| (t.subject(), &body[..]));
    match client.publish_group(before_lasts).await {
        Ok(()) => {}
        // Not all sent: every ack is unconfirmed (and safe to send again).
        Err(Error::Closed | Error::ReconnectBufferFull { .. } | Error::OutgoingBufferFull { .. }) => {
            return Ok(AckReport { unconfirmed: groups.into_iter().flatten().collect(), ..AckReport::default() });
        }
        Err(e) => return Err(e),
    }
    let answers = Queue::new(groups.len().max(1));
    let lasts = groups.iter().map(|g| (g[g.len() - 1].subject(), &body[..]));
    let sent = client.send_request_group(lasts, &answers);
    let mut confirmations = AckConfirmations::new(Instant::ZERO, timeout);
    let ids = sent_or_fail(client, sent)?;
    let unsent = groups.len() - ids.len();
    let mut groups = groups.into_iter();
    for (id, group) in ids.iter().zip(groups.by_ref()) {
        confirmations.sent_many(id.0, group);
    }
    let mut report = await_confirmations(client, ids, &answers, confirmations, timeout).await?;
    debug_assert_eq!(groups.len(), unsent);
    report.unconfirmed.extend(groups.flatten());
    Ok(report)
}

/// The ids of the requests sent. Not sent at all (the client closed, or
/// the reconnect or outgoing buffer is full) is no error: those acks end
/// unconfirmed. Any other failure is, and the sent ones are forgotten.
fn sent_or_fail(client: &Client, (ids, failure): (Vec<RequestId>, Option<Error>)) -> Result<Vec<RequestId>, Error> {
    match failure {
        None | Some(Error::Closed | Error::ReconnectBufferFull { .. } | Error::OutgoingBufferFull { .. }) => Ok(ids),
        Some(e) => {
            client.forget_requests(ids);
            Err(e)
        }
    }
}

/// Waits up to `timeout` for the answers to requests `ids`; whatever got
/// none (timeout, no responders, disconnect) is unconfirmed.
async fn await_confirmations(
    client: &Client,
    ids: Vec<RequestId>,
    answers: &Queue<(RequestId, Result<crate::Message, Error>)>,
    mut confirmations: AckConfirmations,
    timeout: Duration,
) -> Result<AckReport, Error> {
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
    confirmations.handle_timeout(Instant::ZERO + timeout);
    Ok(confirmations.into_report())
}

impl Message {
    /// The token of this message, marking `kind` as taken (final acks once).
    pub(crate) fn claim_token(&self, kind: &Ack) -> Result<AckToken, Error> {
        AckToken::new(self.claim(kind)?)
    }
}
