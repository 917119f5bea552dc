//! Reading from a pull consumer: `fetch` (one bounded batch), `next` (one
//! message) and `messages` (continuous consume, ADR-37); and from a push
//! consumer ([`push`]). The protocol work — pulls, pending accounting,
//! heartbeats, statuses, re-pulls after a reconnect, flow control — happens
//! in the session's reader machine (`core/session/reader.rs`), which the
//! connection's driver task feeds; the streams here only hand messages to
//! the user from its queues (`driver/readers.rs`) and report what was taken
//! (refills and flow-control replies wait for it).

mod ordered;
mod push;
mod sequence;
pub(crate) mod tracked;

pub use ordered::{OrderedConsumer, OrderedMessages, OrderedPushConsumer};
pub use sequence::Sequence;

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use futures_core::Stream;

use super::api::{self, ConsumerInfo};
use super::consumer::StreamErrorKind;
use super::consumer::{BatchError, BatchErrorKind, Consumer, MessagesError, MessagesErrorKind, PullKind, StreamError};
use super::context::Context as JsContext;
use super::message::Message;
use super::pull::{ConsumeOptions, ConsumerEvent, FetchOptions, PriorityOptions, PullConsumer};
use crate::client::Client;
use crate::core::conn::Sid;
use crate::core::error::{Error, SortCause};
use crate::core::jetstream::read_mark::ReadMark;
use crate::core::session::{OrderedId, Reader, Route};
use crate::driver::readers::{Delivery, EVENT_CAPACITY, ReaderQueues};
use crate::runtime::queue::Queue;

/// Room for messages between the driver and the reader. The pull machine
/// bounds what is buffered (it counts untaken messages against its refill
/// threshold), so this only has to be larger than any one batch.
const ITEM_CAPACITY: usize = 1 << 24;

impl<T: PullKind> Consumer<T> {
    /// Continuous reading with the default options (300 messages requested
    /// ahead, refilled with pulls of 200 when 100 are left, as async-nats
    /// does; 30 s expiry, heartbeats every 15 s): a slow handler's message
    /// waits up to 300 handler runs, which must fit the consumer's `ack_wait`. Never
    /// ends by itself: it re-pulls after reconnects, leader changes and
    /// missed heartbeats; only a terminal status (consumer deleted…) ends
    /// it, with an error. A consumer deleted while no pull was waiting
    /// answers the next pull with no responders: the reader then asks for
    /// the consumer's info, reports [`ConsumerEvent::ConsumerGone`] for each
    /// answer that it is gone, and ends with that error after three in a row
    /// (never with `keep_waiting`).
    pub async fn messages(&self) -> Result<Messages, StreamError> {
        self.stream().messages().await
    }

    /// Continuous reading with options.
    pub fn stream(&self) -> StreamBuilder<'_> {
        StreamBuilder { consumer: self.puller(), options: ConsumeOptions::default(), per_pull: None }
    }

    /// One batch of what is there now, up to `max_messages` (default 100),
    /// as async-nats's `fetch`: the pull does not wait for more (`no_wait`).
    pub fn fetch(&self) -> FetchBuilder<'_> {
        FetchBuilder { consumer: self.puller(), options: FetchOptions { no_wait: true, ..FetchOptions::default() } }
    }

    /// One batch: up to `max_messages` (default 100), waiting up to `expires`
    /// (default 30 s) for them, as async-nats's `batch`.
    pub fn batch(&self) -> FetchBuilder<'_> {
        FetchBuilder { consumer: self.puller(), options: FetchOptions::default() }
    }

    /// The next message, waiting up to `expires`; `None` if none came.
    pub async fn next(&self, expires: Duration) -> Result<Option<Message>, Error> {
        let mut batch = self.batch().max_messages(1).expires(expires).messages().await?;
        std::future::poll_fn(|cx| batch.poll_raw(cx)).await.transpose()
    }

    /// Continuous reading with these options, as given.
    pub fn consume_with(&self, options: ConsumeOptions) -> Result<Messages, Error> {
        self.puller().consume_with(options)
    }

    /// One batch with these options.
    pub fn fetch_with(&self, options: FetchOptions) -> Result<Messages, Error> {
        self.puller().fetch_with(options)
    }

    fn puller(&self) -> Puller<'_> {
        Puller { context: &self.context, info: &self.info }
    }
}

/// What pulling from a consumer needs: the context and the consumer's names.
#[derive(Clone, Copy)]
struct Puller<'a> {
    context: &'a JsContext,
    info: &'a ConsumerInfo,
}

impl Puller<'_> {
    fn consume_with(self, options: ConsumeOptions) -> Result<Messages, Error> {
        let mut machine = PullConsumer::consume(self.context.client().now(), options.clone())?;
        machine.track_buffered();
        self.start(machine, Some(Report::for_consume(&options)?))
    }

    fn fetch_with(self, options: FetchOptions) -> Result<Messages, Error> {
        self.start(PullConsumer::fetch(self.context.client().now(), options)?, None)
    }

    fn start(self, machine: PullConsumer, report: Option<Report>) -> Result<Messages, Error> {
        let context = self.context;
        let client = context.client().clone();
        let next_subject = api::consumer_next(context.api_prefix(), &self.info.stream_name, &self.info.name)?;
        let info_subject = api::consumer_info(context.api_prefix(), &self.info.stream_name, &self.info.name)?;
        let inbox = client.new_inbox();
        let items = Queue::new(ITEM_CAPACITY);
        let events = Queue::new(EVENT_CAPACITY);
        let sid = {
            let queues = ReaderQueues { items: items.clone(), events: events.clone() };
            let reader = Reader::pull(machine, next_subject, inbox.clone(), Some(info_subject));
            client.shared().lock().start_reader(&inbox, None, reader, queues)?
        };
        let ack_timeout = context.timeout();
        let buffer = VecDeque::new();
        let source = Source::Reader(sid);
        Ok(Messages { source, client, items, buffer, events, ack_timeout, report, taken: (0, 0), mark: None })
    }
}

/// async-nats's priority-group calls (ADR-42) of a builder whose
/// `options.priority` every pull sends.
macro_rules! priority_group_methods {
    () => {
        /// The priority group the pulls ask in.
        pub fn group(mut self, group: impl Into<String>) -> Self {
            priority_options(&mut self.options.priority).group = group.into();
            self
        }

        /// Overflow policy: served only while the consumer has at least this many pending.
        pub fn min_pending(mut self, min_pending: usize) -> Self {
            priority_options(&mut self.options.priority).min_pending = Some(saturating_i64(min_pending));
            self
        }

        /// Overflow policy: served only while at least this many acks are pending.
        pub fn min_ack_pending(mut self, min_ack_pending: usize) -> Self {
            priority_options(&mut self.options.priority).min_ack_pending = Some(saturating_i64(min_ack_pending));
            self
        }

        /// Prioritized policy: 0 (served first) to 9; the server refuses more.
        pub fn priority(mut self, priority: usize) -> Self {
            priority_options(&mut self.options.priority).priority = Some(u8::try_from(priority).unwrap_or(u8::MAX));
            self
        }
    };
}

/// The priority-group fields of a pull, made on the first one set.
fn priority_options(priority: &mut Option<PriorityOptions>) -> &mut PriorityOptions {
    priority.get_or_insert_with(PriorityOptions::default)
}

/// A count as the pull request's JSON number (a `usize` past `i64::MAX` means "no bound").
fn saturating_i64(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// Options of a continuous reader, shaped like async-nats's `stream()` builder.
pub struct StreamBuilder<'a> {
    consumer: Puller<'a>,
    options: ConsumeOptions,
    /// Set by the `*_per_batch` methods: every refill asks for this much.
    per_pull: Option<PerPull>,
}

/// The size of every pull, as async-nats means `max_*_per_batch`.
#[derive(Clone, Copy)]
enum PerPull {
    Messages(u64),
    Bytes(u64),
}

impl StreamBuilder<'_> {
    /// Messages per pull, as in async-nats: each refill asks for `n` when
    /// pending plus untaken messages fall to the threshold (default `n / 2`),
    /// so up to `n` + threshold are requested ahead. Half as many pull
    /// requests as [`max_messages`](Self::max_messages) with the same `n`,
    /// which the server feels: each pull costs it a request to parse, queue
    /// and retire (a durable drain of 200k messages with `n` = 500 costs the
    /// server about 10 % less CPU per message).
    pub fn max_messages_per_batch(mut self, n: usize) -> Self {
        self.options.max_messages = None;
        self.options.max_bytes = None;
        self.per_pull = Some(PerPull::Messages(n as u64));
        self
    }

    /// Bytes per pull, as in async-nats: each refill asks for `bytes` when
    /// pending bytes fall to the threshold (default `bytes / 2`).
    pub fn max_bytes_per_batch(mut self, bytes: usize) -> Self {
        self.options.max_messages = None;
        self.options.max_bytes = None;
        self.per_pull = Some(PerPull::Bytes(bytes as u64));
        self
    }

    /// Messages kept requested ahead, as nats.js and nats.go mean
    /// `max_messages` (default 300): a refill at the threshold (default
    /// half; 100 with the defaults) asks for what brings pending plus
    /// untaken back to `n`. It bounds a slow handler's wait: the last message taken in waits up to
    /// `n` handler runs, which must fit the consumer's `ack_wait` (else it
    /// comes again). Larger `n`, fewer pulls, less server work per message.
    pub fn max_messages(mut self, n: u64) -> Self {
        self.per_pull = None;
        self.options.max_messages = Some(n);
        self
    }

    /// Bytes kept requested ahead instead of a message count, as nats.js
    /// and nats.go mean `max_bytes`.
    pub fn max_bytes(mut self, bytes: u64) -> Self {
        self.per_pull = None;
        self.options.max_bytes = Some(bytes);
        self
    }

    /// Refill when pending plus untaken messages fall to this.
    pub fn threshold_messages(mut self, n: u64) -> Self {
        self.options.threshold_messages = Some(n);
        self
    }

    /// Pull again once the bytes requested ahead fall to `bytes` (with `max_bytes`).
    pub fn threshold_bytes(mut self, bytes: u64) -> Self {
        self.options.threshold_bytes = Some(bytes);
        self
    }

    /// How long each pull waits on the server (default 30 s).
    pub fn expires(mut self, expires: Duration) -> Self {
        self.options.expires = Some(expires);
        self
    }

    /// Idle heartbeat the server sends while a pull waits (default min(expires/2, 30 s)).
    pub fn heartbeat(mut self, heartbeat: Duration) -> Self {
        self.options.idle_heartbeat = Some(heartbeat);
        self
    }

    priority_group_methods!();

    /// Keep waiting (with backoff) after a terminal status such as
    /// "consumer deleted", in case the consumer comes back: the status is
    /// then an event ([`Messages::poll_next_event`]), not an error item.
    pub fn keep_waiting(mut self) -> Self {
        self.options.keep_waiting = true;
        self
    }

    /// Starts reading: a stream of messages that keeps pulls outstanding until dropped.
    pub async fn messages(self) -> Result<Messages, StreamError> {
        self.start().map_err(StreamErrorKind::error)
    }

    fn start(mut self) -> Result<Messages, Error> {
        // A pull of `n` at threshold `t` is a buffer of `n + t` refilled at `t`.
        match self.per_pull {
            Some(PerPull::Messages(n)) => {
                let t = per_pull_threshold(self.options.threshold_messages, n, "messages")?;
                self.options.max_messages = Some(n.saturating_add(t));
                self.options.threshold_messages = Some(t);
            }
            Some(PerPull::Bytes(n)) => {
                let t = per_pull_threshold(self.options.threshold_bytes, n, "bytes")?;
                self.options.max_bytes = Some(n.saturating_add(t));
                self.options.threshold_bytes = Some(t);
            }
            None => {}
        }
        self.consumer.consume_with(self.options)
    }
}

fn per_pull_threshold(given: Option<u64>, per_pull: u64, unit: &str) -> Result<u64, Error> {
    match given {
        Some(t) if t > per_pull => {
            Err(Error::InvalidArgument(format!("threshold_{unit} cannot exceed max_{unit}_per_batch")))
        }
        Some(t) => Ok(t),
        None => Ok(per_pull / 2),
    }
}

/// Options of one batch.
pub struct FetchBuilder<'a> {
    consumer: Puller<'a>,
    options: FetchOptions,
}

impl FetchBuilder<'_> {
    /// The batch: at most `n` messages.
    pub fn max_messages(mut self, n: usize) -> Self {
        self.options.max_messages = n as u64;
        self
    }

    /// Stop at this many bytes (messages then count up to 1,000,000).
    pub fn max_bytes(mut self, bytes: usize) -> Self {
        self.options.max_bytes = Some(bytes as u64);
        if self.options.max_messages == super::pull::DEFAULT_MAX_MESSAGES {
            self.options.max_messages = super::pull::BYTES_MODE_BATCH;
        }
        self
    }

    /// How long the pull waits on the server for messages.
    pub fn expires(mut self, expires: Duration) -> Self {
        self.options.expires = expires;
        self
    }

    /// Return at once with what is available.
    pub fn no_wait(mut self) -> Self {
        self.options.no_wait = true;
        self
    }

    /// Ask the server for idle heartbeats at this interval while the pull waits.
    pub fn heartbeat(mut self, heartbeat: Duration) -> Self {
        self.options.idle_heartbeat = Some(heartbeat);
        self
    }

    priority_group_methods!();

    /// Sends the pull: a stream of the batch's messages, which ends with the batch.
    pub async fn messages(self) -> Result<Messages, BatchError> {
        self.consumer.fetch_with(self.options).map_err(BatchErrorKind::error)
    }
}

/// Messages of a pull or push consumer, as a `Stream` of `Result<Message, Error>`.
/// Ends after a fetch's batch, after [`stop`](Self::stop), or with the error
/// of a terminal status. Dropping it naks what was received but not read,
/// so those messages are redelivered at once instead of after ack_wait.
pub struct Messages {
    source: Source,
    client: Client,
    /// The messages; the error that ended the reader, if one did, is its close reason.
    items: Arc<Queue<Delivery>>,
    /// Taken from `items` in one go (one lock for all that waited), not yet handed out.
    buffer: VecDeque<Delivery>,
    events: Arc<Queue<ConsumerEvent>>,
    ack_timeout: Duration,
    /// For a consume: when to tell the driver what the user took.
    report: Option<Report>,
    taken: (u64, u64),
    /// For a push reader: what was taken, which its flow control waits for.
    mark: Option<Arc<ReadMark>>,
}

/// Where a reader's messages come from.
#[derive(Clone, Copy)]
enum Source {
    /// A reader attached to the session under its subscription.
    Reader(Sid),
    /// An ordered read the session runs; its [`OrderedMessages`] retires it.
    Ordered(OrderedId),
}

/// When a consume reader reports taken messages to the driver (a lock and a
/// wake each time, so not per message). Whatever is left unreported stays
/// below the refill threshold, so reporting late never stalls the refill.
#[derive(Debug, Clone, Copy)]
enum Report {
    /// Every this many messages (at most the message threshold), or this
    /// many bytes (0: never) under the default bytes bound: taken bytes
    /// left unreported could otherwise hold the next pull back.
    Messages(u64, u64),
    /// Every this many bytes, or when the buffer runs empty (one message can
    /// be larger than the byte threshold).
    Bytes(u64),
}

impl Report {
    /// For a consume with `options`: a quarter of what is kept requested
    /// ahead, at most the message threshold.
    fn for_consume(options: &ConsumeOptions) -> Result<Report, Error> {
        let plan = options.plan()?;
        Ok(match (plan.threshold_bytes, plan.threshold_messages) {
            (Some(threshold), _) => Report::Bytes(threshold / 2),
            (None, threshold) => {
                let every = (plan.max_messages / 4).min(threshold.unwrap_or(plan.max_messages)).max(1);
                Report::Messages(every, plan.pull_bytes() / 2)
            }
        })
    }

    fn is_due(self, (msgs, bytes): (u64, u64), run_empty: impl FnOnce() -> bool) -> bool {
        match self {
            Report::Messages(every, every_bytes) => msgs >= every || (every_bytes > 0 && bytes >= every_bytes),
            Report::Bytes(every) => bytes >= every || run_empty(),
        }
    }
}

/// The async-nats name for a fetched batch.
pub type Batch = Messages;

impl Messages {
    /// Messages received and not yet read from this stream.
    pub fn pending(&self) -> usize {
        self.buffer.len() + self.items.len()
    }

    /// Messages a push reader dropped because its buffer was full (the
    /// connection's subscription bounds), as
    /// [`Event::SlowConsumer`](crate::Event::SlowConsumer) reports them: a
    /// consumer with acks redelivers them after `ack_wait`, an ack-none one
    /// does not. Always 0 for a pull reader, whose pulls bound what comes.
    pub fn dropped(&self) -> u64 {
        self.items.dropped()
    }

    /// The next consumer event (heartbeats missed, warnings, resets, pin
    /// changes), if any is waiting. Events never end the stream by themselves.
    pub fn try_next_event(&self) -> Option<ConsumerEvent> {
        self.events.try_pop()
    }

    /// Waits for the next consumer event, for watching events as they come
    /// (the JS `status()` iterator) rather than between messages. `None` once
    /// the reader ended and every event was read.
    pub fn poll_next_event(&self, cx: &mut Context<'_>) -> Poll<Option<ConsumerEvent>> {
        self.events.poll_pop(cx)
    }

    /// Stops pulling. Messages already received can still be read; the
    /// stream then ends. Messages the server sends after this are
    /// redelivered once their ack_wait passes.
    pub fn stop(&mut self) {
        let Source::Reader(sid) = self.source else { return };
        let mut inner = self.client.shared().lock();
        if inner.has_reader(sid) {
            inner.retire(Route::Reader(sid));
            inner.wake_driver();
        }
    }

    /// Stops pulling now, then waits until the server has every ack sent so
    /// far. The wait does not borrow the reader, which can go on being read.
    pub fn drain(&mut self) -> impl Future<Output = Result<(), Error>> + 'static {
        self.stop();
        let client = self.client.clone();
        async move { client.flush_pong().await }
    }

    /// Stops and forgets what was received but not read, without naks:
    /// an ordered read's consumers take no acks, and the next read resumes
    /// after the last message taken. Whether anything was dropped.
    fn discard(mut self) -> bool {
        self.stop();
        let mut dropped = !self.buffer.is_empty();
        self.buffer.clear();
        while self.items.try_pop().is_some() {
            dropped = true;
        }
        dropped
    }

    /// The messages an ordered read in the session lets through.
    fn ordered(
        id: OrderedId,
        client: Client,
        items: Arc<Queue<Delivery>>,
        events: Arc<Queue<ConsumerEvent>>,
        ack_timeout: Duration,
        report: Option<Report>,
        mark: Option<Arc<ReadMark>>,
    ) -> Self {
        let source = Source::Ordered(id);
        Messages { source, client, items, buffer: VecDeque::new(), events, ack_timeout, report, taken: (0, 0), mark }
    }

    fn report_taken(&mut self) {
        let (msgs, bytes) = std::mem::take(&mut self.taken);
        let now = self.client.now();
        let mut inner = self.client.shared().lock();
        match self.source {
            Source::Reader(sid) => inner.command(|s| s.reader_taken(now, sid, msgs, bytes)),
            Source::Ordered(id) => inner.command(|s| s.ordered_taken(now, id, msgs, bytes)),
        };
    }
}

impl Stream for Messages {
    type Item = Result<Message, MessagesError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.poll_raw(cx).map(|item| item.map(|item| item.map_err(MessagesErrorKind::error)))
    }
}

/// A reader whose items keep natsjet's [`Error`], for callers that need
/// the cause rather than async-nats's kind (the wasm readers).
#[cfg(all(feature = "wasm-jetstream", target_arch = "wasm32"))]
pub(crate) struct Raw<S>(pub S);

#[cfg(all(feature = "wasm-jetstream", target_arch = "wasm32"))]
impl Stream for Raw<Messages> {
    type Item = Result<Message, Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.0.poll_raw(cx)
    }
}

impl Messages {
    /// The next message, or what ended the reader as natsjet's [`Error`].
    pub(crate) fn poll_raw(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<Message, Error>>> {
        let item = ready!(self.poll_core(cx));
        Poll::Ready(item.map(|r| r.map(|d| Message::new(d.message, self.client.clone(), self.ack_timeout, d.received))))
    }

    /// The next message as it came, counted as taken; [`poll_raw`](Self::poll_raw)
    /// wraps it with its acks.
    pub(crate) fn poll_core(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<Delivery, Error>>> {
        if self.buffer.is_empty() && !ready!(self.items.poll_pop_all(cx, &mut self.buffer)) {
            // Ended, after every message: with the error that ended the reader, once.
            return Poll::Ready(self.items.take_close_reason().map(Err));
        }
        let Some(delivery) = self.buffer.pop_front() else { return Poll::Ready(None) };
        if let Some(report) = self.report {
            self.taken.0 += 1;
            self.taken.1 += delivery.length() as u64;
            if report.is_due(self.taken, || self.buffer.is_empty() && self.items.is_empty()) {
                self.report_taken();
            }
        }
        if self.mark.as_ref().is_some_and(|mark| mark.take_one()) {
            self.report_taken();
        }
        Poll::Ready(Some(Ok(delivery)))
    }
}

impl Drop for Messages {
    fn drop(&mut self) {
        let Source::Reader(sid) = self.source else { return };
        let mut inner = self.client.shared().lock();
        inner.retire(Route::Reader(sid));
        // Received but never read: hand them back now.
        let nak = super::ack::Ack::Nak(None).body();
        while let Some(delivery) = self.buffer.pop_front().or_else(|| self.items.try_pop()) {
            if let Some(reply) = delivery.message.reply {
                let _ = inner.write(|s| s.publish(&reply, None, None, &nak));
            }
        }
        inner.wake_driver();
    }
}
