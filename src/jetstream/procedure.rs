//! The pump of every core [`Procedure`] over a JetStream [`Context`]: it
//! carries each [`Step`] out (an API request, a batched direct get, acked
//! publishes — sent one after the other, their acks awaited together and
//! handed back in order —, a subscription and the publishes answered on
//! it, a stored message's read, the info of the ordered push consumer it
//! reads for the procedure),
//! hands back what it brought as a [`Reply`], sleeps to the procedure's
//! deadline, and yields the procedure's items. It knows no procedure's
//! rules; the wasm export of procedures is this pump too.

use std::collections::VecDeque;
use std::pin::Pin;
use std::task::{Context as TaskContext, Poll};

use bytes::Bytes;
use futures_core::Stream;

use crate::Subscriber;
use crate::core::error::Error;
use crate::core::header::StatusCode;
use crate::core::jetstream::publish::Publish;
use crate::core::procedure::{Procedure, Reply, Step, Yield};
use crate::core::time::Instant;
use crate::driver::{BoxFuture, DefaultRuntime, Runtime};
use crate::jetstream::DirectBatch;
use crate::jetstream::context::Context;
use crate::jetstream::publish::PublishAckFuture;
use crate::jetstream::reader::{OrderedMessages, OrderedPushConsumer};

/// The header of a batch's message with the matching messages after it.
const NUM_PENDING: &str = "Nats-Num-Pending";

/// A procedure and the steps it has under way.
pub(crate) struct Pump<P> {
    procedure: P,
    context: Context,
    request: Option<BoxFuture<Result<Bytes, Error>>>,
    /// A stored message awaited.
    other: Option<BoxFuture<Reply>>,
    /// Publishes not sent yet, in order, and the one being sent.
    outgoing: VecDeque<Outgoing>,
    sending: Option<BoxFuture<Result<Option<PublishAckFuture>, Error>>>,
    /// The acks awaited, oldest first.
    acks: VecDeque<PublishAckFuture>,
    /// The procedure's inbox.
    inbox: Option<Subscriber>,
    batch: Option<DirectBatch>,
    pushed: Option<Pushed>,
    /// The sleep to the procedure's deadline, and the instant it ends.
    sleep: Option<(Instant, BoxFuture<()>)>,
}

impl<P: Procedure> Pump<P> {
    /// Pumps `procedure` over `context`.
    pub(crate) fn new(context: Context, procedure: P) -> Self {
        Pump {
            procedure,
            context,
            request: None,
            other: None,
            outgoing: VecDeque::new(),
            sending: None,
            acks: VecDeque::new(),
            inbox: None,
            batch: None,
            pushed: None,
            sleep: None,
        }
    }

    /// Reads for the procedure what the ordered push consumer `consumer`
    /// makes pushes ([`Reply::Pushed`], then [`Reply::BatchEnd`]; a failure
    /// to make it is [`Reply::BatchFailed`]) and asks it for its info at
    /// [`Step::ConsumerInfo`].
    pub(crate) fn pushed_by(mut self, consumer: BoxFuture<Result<OrderedPushConsumer, Error>>) -> Self {
        self.pushed = Some(Pushed::Making(consumer));
        self
    }

    /// The procedure, for what it tells of itself.
    pub(crate) fn procedure(&self) -> &P {
        &self.procedure
    }

    /// The procedure, to feed it what its user read itself.
    pub(crate) fn procedure_mut(&mut self) -> &mut P {
        &mut self.procedure
    }

    /// The procedure's next item; `None` once it is over.
    pub(crate) fn poll_item(&mut self, cx: &mut TaskContext<'_>) -> Poll<Option<Result<P::Item, Error>>> {
        loop {
            self.carry_out();
            match self.procedure.poll_item(DefaultRuntime::now()) {
                Yield::Item(item) => return Poll::Ready(Some(Ok(item))),
                Yield::Failed(e) => {
                    self.carry_out();
                    return Poll::Ready(Some(Err(e)));
                }
                Yield::Done => {
                    self.carry_out();
                    return Poll::Ready(None);
                }
                Yield::Wait => {}
            }
            // Taking items may have made room for more.
            self.carry_out();
            if self.poll_replies(cx).is_pending() {
                return Poll::Pending;
            }
        }
    }

    /// Starts the steps the procedure asked for.
    fn carry_out(&mut self) {
        while let Some(step) = self.procedure.poll_step() {
            match step {
                Step::Request { subject, payload } => self.request(subject, payload),
                Step::DirectBatch { stream, request } => {
                    match self.context.direct_get_batch_from_stream(&stream, request.as_bytes()) {
                        Ok(batch) => self.batch = Some(batch),
                        Err(e) => self.procedure.handle_reply(DefaultRuntime::now(), Reply::BatchFailed(e)),
                    }
                }
                Step::Publish { subject, publish } => self.outgoing.push_back(Outgoing::Publish(subject, publish)),
                Step::Send { subject, reply, publish } => {
                    self.outgoing.push_back(Outgoing::Send(subject, reply, publish))
                }
                Step::Subscribe { subject } => match self.context.client().subscribe_inner(&subject, None) {
                    Ok(inbox) => self.inbox = Some(inbox),
                    Err(e) => self.procedure.handle_reply(DefaultRuntime::now(), Reply::Inbox(Err(e))),
                },
                Step::GetMessage { stream, direct, request } => {
                    let context = self.context.clone();
                    self.other = Some(Box::pin(async move {
                        Reply::Stored(context.stored_message(&stream, direct, &request).await)
                    }));
                }
                Step::StopBatch => {
                    if let Some(mut batch) = self.batch.take() {
                        batch.stop();
                    }
                    if let Some(Pushed::Reading(_, Some(messages))) = &mut self.pushed {
                        messages.stop();
                    }
                }
                Step::ConsumerInfo => {
                    let subject = match &self.pushed {
                        Some(Pushed::Reading(consumer, _)) => consumer.info_subject(),
                        _ => Err(Error::ApiMisuse("no consumer pushes this procedure's messages yet")),
                    };
                    match subject {
                        Ok(subject) => self.request(subject, Bytes::new()),
                        Err(e) => self.procedure.handle_reply(DefaultRuntime::now(), Reply::Answer(Err(e))),
                    }
                }
            }
        }
    }

    /// Starts the API request on `subject`.
    fn request(&mut self, subject: String, payload: Bytes) {
        let context = self.context.clone();
        self.request = Some(Box::pin(async move { context.request_json(&subject, &payload).await }));
    }

    /// Starts sending the next publish, if none is being sent.
    fn send_next(&mut self) {
        if self.sending.is_some() {
            return;
        }
        let Some(next) = self.outgoing.pop_front() else { return };
        let context = self.context.clone();
        self.sending = Some(match next {
            Outgoing::Publish(subject, publish) => {
                Box::pin(async move { Ok(Some(context.send_publish(subject, publish).await?)) })
            }
            Outgoing::Send(subject, reply, publish) => Box::pin(async move {
                let client = context.client();
                client.publish_shared(&subject, Some(&reply), publish.headers.as_ref(), &publish.payload).await?;
                Ok(None)
            }),
        });
    }

    /// Ready once a publish was sent (or failed to be), an ack or a message on the inbox came.
    fn poll_publishes(&mut self, cx: &mut TaskContext<'_>) -> Poll<()> {
        self.send_next();
        if let Some(sending) = &mut self.sending
            && let Poll::Ready(sent) = sending.as_mut().poll(cx)
        {
            self.sending = None;
            match sent {
                Ok(Some(ack)) => self.acks.push_back(ack),
                Ok(None) => {}
                Err(e) => self.procedure.handle_reply(DefaultRuntime::now(), Reply::Acked(Err(e))),
            }
            return Poll::Ready(());
        }
        if let Some(ack) = self.acks.front_mut()
            && let Poll::Ready(acked) = Pin::new(ack).poll(cx)
        {
            self.acks.pop_front();
            let acked = acked.map(|ack| ack.sequence).map_err(Error::from);
            self.procedure.handle_reply(DefaultRuntime::now(), Reply::Acked(acked));
            return Poll::Ready(());
        }
        if let Some(inbox) = &mut self.inbox
            && let Poll::Ready(message) = Pin::new(inbox).poll_next(cx)
        {
            let reply = match message {
                Some(message) if message.status == Some(StatusCode::NO_RESPONDERS) => Err(Error::NoResponders),
                Some(message) => Ok(message.payload),
                None => {
                    self.inbox = None;
                    Err(Error::Closed)
                }
            };
            self.procedure.handle_reply(DefaultRuntime::now(), Reply::Inbox(reply));
            return Poll::Ready(());
        }
        Poll::Pending
    }

    /// Ready once something came for the procedure (a reply, its deadline).
    fn poll_replies(&mut self, cx: &mut TaskContext<'_>) -> Poll<()> {
        if self.poll_publishes(cx).is_ready() {
            return Poll::Ready(());
        }
        if let Some(batch) = &mut self.batch
            && let Poll::Ready(item) = Pin::new(batch).poll_next(cx)
        {
            let reply = match item {
                Some(Ok(message)) => {
                    let pending = message.headers.get(NUM_PENDING).and_then(|p| p.parse().ok()).unwrap_or(1);
                    Reply::Message { sequence: message.sequence, payload: message.payload, pending }
                }
                Some(Err(e)) => {
                    self.batch = None;
                    Reply::BatchFailed(e)
                }
                None => {
                    self.batch = None;
                    Reply::BatchEnd
                }
            };
            self.procedure.handle_reply(DefaultRuntime::now(), reply);
            return Poll::Ready(());
        }
        if let Some(reply) = self.poll_pushed(cx) {
            self.procedure.handle_reply(DefaultRuntime::now(), reply);
            return Poll::Ready(());
        }
        if let Some(request) = &mut self.request
            && let Poll::Ready(answer) = request.as_mut().poll(cx)
        {
            self.request = None;
            self.procedure.handle_reply(DefaultRuntime::now(), Reply::Answer(answer));
            return Poll::Ready(());
        }
        if let Some(other) = &mut self.other
            && let Poll::Ready(reply) = other.as_mut().poll(cx)
        {
            self.other = None;
            self.procedure.handle_reply(DefaultRuntime::now(), reply);
            return Poll::Ready(());
        }
        self.poll_deadline(cx)
    }

    /// What the pushing consumer brought: made (or not), a message, the end.
    fn poll_pushed(&mut self, cx: &mut TaskContext<'_>) -> Option<Reply> {
        match self.pushed.as_mut()? {
            Pushed::Making(making) => {
                let Poll::Ready(made) = making.as_mut().poll(cx) else { return None };
                let consumer = match made {
                    Ok(consumer) => consumer,
                    Err(e) => {
                        self.pushed = None;
                        return Some(Reply::BatchFailed(e));
                    }
                };
                // One with nothing to deliver when made pushes nothing: its messages end at once.
                let messages = match consumer.pending_at_creation() {
                    0 => Ok(None),
                    _ => consumer.consume().map(|messages| Some(Box::new(messages))),
                };
                let (messages, reply) = match messages {
                    Ok(Some(messages)) => (Some(messages), None),
                    Ok(None) => (None, Some(Reply::BatchEnd)),
                    Err(e) => (None, Some(Reply::BatchFailed(e))),
                };
                self.pushed = Some(Pushed::Reading(consumer, messages));
                // Made: its first message may be there already.
                reply.or_else(|| self.poll_pushed(cx))
            }
            Pushed::Reading(_, reading) => {
                let Poll::Ready(item) = reading.as_mut()?.poll_delivery(cx) else { return None };
                Some(match item {
                    Some(Ok((delivery, _))) => {
                        let message = delivery.message;
                        let ack = message.reply.map(|ack| ack.as_str().to_string()).unwrap_or_default();
                        Reply::Pushed { ack, payload: message.payload }
                    }
                    Some(Err(e)) => {
                        *reading = None;
                        Reply::BatchFailed(e)
                    }
                    None => {
                        *reading = None;
                        Reply::BatchEnd
                    }
                })
            }
        }
    }

    /// Ready once the procedure's deadline passed (and it was told).
    fn poll_deadline(&mut self, cx: &mut TaskContext<'_>) -> Poll<()> {
        let Some(deadline) = self.procedure.poll_deadline() else {
            self.sleep = None;
            return Poll::Pending;
        };
        loop {
            let now = DefaultRuntime::now();
            if deadline.at <= now {
                self.sleep = None;
                self.procedure.handle_timeout(now);
                return Poll::Ready(());
            }
            // A sleep ending before the deadline is kept: when it ends, the deadline is looked at again.
            match &mut self.sleep {
                Some((ends, sleep)) if *ends <= deadline.at => {
                    if sleep.as_mut().poll(cx).is_pending() {
                        return Poll::Pending;
                    }
                    self.sleep = None;
                }
                _ => {
                    let ends = deadline.at;
                    self.sleep = Some((ends, DefaultRuntime::sleep(ends.saturating_duration_since(now))));
                }
            }
        }
    }
}

/// The ordered push consumer whose messages the procedure reads.
enum Pushed {
    /// Being made.
    Making(BoxFuture<Result<OrderedPushConsumer, Error>>),
    /// Made, and its messages until they end.
    Reading(OrderedPushConsumer, Option<Box<OrderedMessages>>),
}

/// A publish waiting its turn to be sent.
enum Outgoing {
    /// Acked: its ack comes back as [`Reply::Acked`].
    Publish(String, Publish),
    /// With a reply subject, no ack awaited.
    Send(String, String, Publish),
}

impl<P: Procedure + Unpin> Stream for Pump<P> {
    type Item = Result<P::Item, Error>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Option<Self::Item>> {
        self.get_mut().poll_item(cx)
    }
}
