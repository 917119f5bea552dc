//! Ordered consumers (ADR-17) over pull consumers, and ordered push
//! consumers over push consumers. Every read, continuous or one fetched
//! batch, runs in the session (`core/session/ordered.rs`): the sans-IO
//! [`OrderedCursor`] judges every message there, and the session makes the
//! next consumer and retries on its own deadline whether or not the user
//! polls; this module makes the first consumer, reads what the session let
//! through and reports what was taken.

use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context as TaskContext, Poll, ready};
use std::time::Duration;

use futures_core::Stream;

#[cfg(all(feature = "wasm-jetstream", target_arch = "wasm32"))]
use super::Raw;
use super::{ITEM_CAPACITY, Messages, Report};
use crate::core::error::{Error, SortCause};
use crate::core::jetstream::read_mark::ReadMark;
use crate::core::session::{OrderedId, OrderedMode, OrderedSpec, Route};
use crate::driver::readers::{Delivery, EVENT_CAPACITY, ReaderQueues};
use crate::jetstream::ack::DeliveryNumbers;
use crate::jetstream::api::{self, ConsumerAction, ConsumerInfo, CreateConsumerRequest};
use crate::jetstream::consumer::{Consumer, OrderedError, OrderedErrorKind};
use crate::jetstream::context::{Context, encode_request};
use crate::jetstream::message::Message;
use crate::jetstream::ordered::{OrderedConfig, OrderedCursor, OrderedPushConfig, delivery_numbers};
use crate::jetstream::pull::{ConsumeOptions, ConsumerEvent, FetchOptions};
use crate::jetstream::stream::Stream as JsStream;
use crate::runtime::queue::{Queue, lock};

/// A stream read in order through client-made consumers, shaped like
/// async-nats's `Consumer<OrderedConfig>` and nats.js's ordered consumer.
/// Clones share the position; one reader at a time.
#[derive(Debug, Clone)]
pub struct OrderedConsumer {
    context: Context,
    stream: String,
    state: Arc<Mutex<State>>,
}

#[derive(Debug)]
struct State {
    cursor: OrderedCursor,
    /// The last consumer made.
    current: Consumer,
    /// `current` must be replaced before the next read: it pulled ahead (a
    /// consume), a fetch ended early, a reader left messages unread, or a
    /// read is under way.
    stale: bool,
    /// A reader is open and not ended.
    reading: bool,
    /// The session's ordered read of the open continuous reader: the
    /// cursor and current consumer above are its start until it ends.
    session: Option<OrderedId>,
}

impl Context {
    /// An ordered consumer on `stream`; its first consumer is made now, so
    /// a missing stream or a bad option fails here.
    ///
    /// ```no_run
    /// # async fn f(js: natsjet::jetstream::Context) -> Result<(), natsjet::Error> {
    /// use futures_util::StreamExt;
    /// use natsjet::jetstream::api::DeliverPolicy;
    /// use natsjet::jetstream::ordered::OrderedConfig;
    ///
    /// let config = OrderedConfig {
    ///     filter_subjects: vec!["orders.eu.>".into()],
    ///     deliver_policy: DeliverPolicy::ByStartSequence { start_sequence: 1000 },
    ///     ..OrderedConfig::default()
    /// };
    /// let mut messages = js.ordered_consumer("ORDERS", config).await?.messages().await?;
    /// while let Some(message) = messages.next().await {
    ///     let message = message?; // each stream message once, in order; no acks
    ///     println!("{} {:?}", message.info()?.stream_sequence, message.payload);
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn ordered_consumer(
        &self,
        stream: impl Into<String>,
        config: OrderedConfig,
    ) -> Result<OrderedConsumer, Error> {
        let inbox = self.client().new_inbox();
        let cursor = OrderedCursor::new(config, unique(&inbox))?;
        self.start_ordered(stream.into(), cursor).await
    }

    /// An ordered push consumer on `stream`, as nats.js's
    /// `getPushConsumer(stream, opts?)` and async-nats's
    /// `push::OrderedConfig`: the server pushes the messages to a fresh
    /// subject, with flow control and heartbeats; a gap, two missed
    /// heartbeats (a deleted consumer) or a reconnect make a consumer that
    /// resumes after the last message handed out. Its first consumer is
    /// made now, so a missing stream or a bad option fails here.
    ///
    /// ```no_run
    /// # async fn f(js: natsjet::jetstream::Context) -> Result<(), natsjet::Error> {
    /// use futures_util::StreamExt;
    /// use natsjet::jetstream::ordered::{OrderedConfig, OrderedPushConfig};
    ///
    /// let ordered = OrderedConfig { filter_subjects: vec!["orders.eu.>".into()], ..OrderedConfig::default() };
    /// let config = OrderedPushConfig { ordered, ..OrderedPushConfig::default() };
    /// let mut messages = js.ordered_push_consumer("ORDERS", config).await?.messages().await?;
    /// while let Some(message) = messages.next().await {
    ///     let message = message?; // each stream message once, in order; no acks
    ///     println!("{} {:?}", message.info()?.stream_sequence, message.payload);
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn ordered_push_consumer(
        &self,
        stream: impl Into<String>,
        config: OrderedPushConfig,
    ) -> Result<OrderedPushConsumer, Error> {
        let inbox = self.client().new_inbox();
        let prefix = config.deliver_prefix.as_deref().unwrap_or(&inbox);
        let cursor = OrderedCursor::new(config.ordered, unique(&inbox))?.pushing(prefix, config.idle_heartbeat)?;
        Ok(self.start_ordered(stream.into(), cursor).await?.into())
    }

    async fn start_ordered(&self, stream: String, mut cursor: OrderedCursor) -> Result<OrderedConsumer, Error> {
        let current = create(self.clone(), stream.clone(), cursor.next_consumer()).await?;
        Ok(OrderedConsumer::adopt(self.clone(), stream, cursor, current))
    }
}

impl OrderedConsumer {
    /// Reads on from `current`, a consumer made (elsewhere) as the
    /// cursor's first: async-nats's `create_consumer(OrderedConfig)`.
    pub(crate) fn adopt(context: Context, stream: String, mut cursor: OrderedCursor, current: Consumer) -> Self {
        cursor.handle_created();
        cursor.handle_started_after(current.cached_info().delivered.stream_sequence);
        let state = State { cursor, current, stale: false, reading: false, session: None };
        // JS values make the client `!Send` in wasm, where there is one thread.
        #[cfg_attr(target_arch = "wasm32", allow(clippy::arc_with_non_send_sync))]
        let state = Arc::new(Mutex::new(state));
        OrderedConsumer { context, stream, state }
    }
}

impl From<OrderedConsumer> for OrderedPushConsumer {
    /// An ordered consumer whose cursor makes push consumers.
    fn from(ordered: OrderedConsumer) -> Self {
        OrderedPushConsumer { ordered }
    }
}

/// The last token of an inbox: a NUID no other client uses.
fn unique(inbox: &str) -> &str {
    inbox.rsplit('.').next().unwrap_or_default()
}

impl<I> JsStream<I> {
    /// An ordered consumer on this stream: see [`Context::ordered_consumer`].
    pub async fn ordered_consumer(&self, config: OrderedConfig) -> Result<OrderedConsumer, Error> {
        self.context.ordered_consumer(self.name(), config).await
    }

    /// An ordered push consumer on this stream: see [`Context::ordered_push_consumer`].
    pub async fn ordered_push_consumer(&self, config: OrderedPushConfig) -> Result<OrderedPushConsumer, Error> {
        self.context.ordered_push_consumer(self.name(), config).await
    }
}

/// A stream read in order through client-made push consumers, shaped like
/// async-nats's `Consumer<push::OrderedConfig>` and nats.js's ordered
/// `PushConsumer`. Clones share the position; one reader at a time.
#[derive(Debug, Clone)]
pub struct OrderedPushConsumer {
    ordered: OrderedConsumer,
}

impl OrderedPushConsumer {
    /// The name of the consumer pushing now (it changes on every reset).
    pub fn name(&self) -> String {
        self.ordered.name()
    }

    /// The stream it reads.
    pub fn stream_name(&self) -> &str {
        self.ordered.stream_name()
    }

    /// Fresh info of the current consumer.
    pub async fn info(&self) -> Result<ConsumerInfo, Error> {
        self.ordered.info().await
    }

    /// Messages the current consumer had to deliver when it was made.
    pub(crate) fn pending_at_creation(&self) -> u64 {
        self.ordered.pending_at_creation()
    }

    /// The API subject of [`info`](Self::info), for a core procedure to ask
    /// and read ([`ConsumerInfo::from_json_core`]: no serde_json parser in the wasm for it).
    pub(crate) fn info_subject(&self) -> Result<String, Error> {
        api::consumer_info(self.ordered.context.api_prefix(), self.stream_name(), &self.name())
    }

    /// See [`OrderedCursor::end_without_stream`].
    pub(crate) fn end_without_stream(&self) {
        lock(&self.ordered.state).cursor.end_without_stream();
    }

    /// The messages, each once and in stream order; never ends by itself.
    /// A new reader (after the last one ended) starts on a new consumer.
    pub async fn messages(&self) -> Result<OrderedMessages, Error> {
        self.consume()
    }

    /// [`messages`](Self::messages), without the `async`.
    pub fn consume(&self) -> Result<OrderedMessages, Error> {
        self.ordered.open(Mode::Push)
    }
}

impl OrderedConsumer {
    /// The name of the consumer reads go to now (it changes on every reset).
    pub fn name(&self) -> String {
        let state = lock(&self.state);
        let running =
            state.session.and_then(|id| self.context.client().shared().lock().session().ordered_consumer_name(id));
        running.unwrap_or_else(|| state.current.name().to_string())
    }

    /// Messages the current consumer had to deliver when it was made.
    pub(crate) fn pending_at_creation(&self) -> u64 {
        lock(&self.state).current.cached_info().num_pending
    }

    /// The stream it reads.
    pub fn stream_name(&self) -> &str {
        &self.stream
    }

    /// Fresh info of the current consumer.
    pub async fn info(&self) -> Result<ConsumerInfo, Error> {
        self.context.consumer_info_from_stream(self.name(), &self.stream).await
    }

    /// Continuous reading with the default options; see [`consume`](Self::consume).
    pub async fn messages(&self) -> Result<OrderedMessages, Error> {
        self.consume(ConsumeOptions::default())
    }

    /// Continuous reading: never ends by itself. A gap, missed heartbeats,
    /// a reconnect or a deleted consumer make a new consumer that resumes
    /// after the last message handed out. `keep_waiting` is ignored.
    pub fn consume(&self, options: ConsumeOptions) -> Result<OrderedMessages, Error> {
        self.open(Mode::Consume(ConsumeOptions { keep_waiting: false, ..options }))
    }

    /// One batch, in order; a gap or a lost consumer ends it early, and
    /// the next read resumes after the last message handed out. A batch
    /// whose connection was lost and came back (a server restart) reads the
    /// rest from a new consumer, made by the session whether or not the
    /// batch is polled meanwhile.
    pub fn fetch(&self, options: FetchOptions) -> Result<OrderedMessages, Error> {
        self.open(Mode::Fetch(options))
    }

    /// The next message, waiting up to `expires`; `None` if none came.
    pub async fn next(&self, expires: Duration) -> Result<Option<Message>, Error> {
        let options = FetchOptions { expires, ..FetchOptions::messages(1) };
        let mut batch = self.fetch(options)?;
        std::future::poll_fn(|cx| batch.poll_raw(cx)).await.transpose()
    }

    fn open(&self, mode: Mode) -> Result<OrderedMessages, Error> {
        let events = Queue::new(EVENT_CAPACITY);
        let mut state = lock(&self.state);
        if state.reading {
            return Err(Error::ApiMisuse("an ordered consumer has one reader at a time"));
        }
        let last = state.cursor.stream_sequence();
        let reader = self.attach(&mut state, mode.in_session()?, &events)?;
        state.reading = true;
        drop(state);
        Ok(OrderedMessages { consumer: self.clone(), reader: Some(reader), events, holds: true, last })
    }

    /// Hands a read to the session, which makes its consumers (starting on
    /// the current one if it can serve the read).
    fn attach(
        &self,
        state: &mut State,
        read: SessionRead,
        events: &Arc<Queue<ConsumerEvent>>,
    ) -> Result<Messages, Error> {
        let context = &self.context;
        let client = context.client().clone();
        let (mode, report, mark) = read;
        let spec = OrderedSpec {
            api_prefix: context.api_prefix().to_string(),
            stream: self.stream.clone(),
            mode,
            create_timeout: context.timeout(),
        };
        let current = (!state.stale).then(|| state.current.info.clone());
        let items = Queue::new(ITEM_CAPACITY);
        let queues = ReaderQueues { items: items.clone(), events: events.clone() };
        let now = client.now();
        let id = client.shared().lock().start_ordered(now, (spec, state.cursor.clone(), current), queues)?;
        state.session = Some(id);
        state.stale = true;
        Ok(Messages::ordered(id, client, items, events.clone(), context.timeout(), report, mark))
    }
}

/// Makes consumer `config` on `stream`.
async fn create(context: Context, stream: String, config: api::ConsumerConfig) -> Result<Consumer, Error> {
    let subject = api::consumer_create(context.api_prefix(), &stream, &config)?;
    let request = CreateConsumerRequest { stream_name: stream, config, action: ConsumerAction::Create };
    let created = context.request_json(&subject, &encode_request(&request)?).await?;
    Ok(Consumer::new(context.clone(), ConsumerInfo::from_json_core(&created)?))
}

enum Mode {
    Consume(ConsumeOptions),
    /// One batch.
    Fetch(FetchOptions),
    /// Listening on a push consumer's deliver subject.
    Push,
}

/// How the session reads, when to report what was taken, and the push
/// readers' mark of it.
type SessionRead = (OrderedMode, Option<Report>, Option<Arc<ReadMark>>);

impl Mode {
    /// What the session needs to run the read.
    fn in_session(self) -> Result<SessionRead, Error> {
        Ok(match self {
            Mode::Consume(options) => {
                let report = Report::for_consume(&options)?;
                (OrderedMode::Consume(options), Some(report), None)
            }
            Mode::Push => {
                let mark = Arc::new(ReadMark::new());
                (OrderedMode::Push(mark.clone()), None, Some(mark))
            }
            Mode::Fetch(options) => (OrderedMode::Fetch(options), None, None),
        })
    }
}

/// Messages of an ordered consumer, as a `Stream` of `Result<Message, Error>`:
/// each stream message once, in stream order. Acks are not needed (the
/// consumers take none).
pub struct OrderedMessages {
    consumer: OrderedConsumer,
    /// What the session let through, until the read ends: the session
    /// judges, re-creates and retries whether or not this is polled.
    reader: Option<Messages>,
    /// The readers' events, and [`ConsumerEvent::OrderedRecreated`].
    events: Arc<Queue<ConsumerEvent>>,
    /// Until it ends, this reader is the consumer's one.
    holds: bool,
    /// The stream sequence of the last message handed out (the cursor's at
    /// the start): where the next reader resumes.
    last: u64,
}

impl OrderedMessages {
    /// Messages received and not yet read.
    pub fn pending(&self) -> usize {
        self.reader.as_ref().map_or(0, Messages::pending)
    }

    /// The next consumer event, as [`Messages::poll_next_event`]; events
    /// pass through as the messages are read.
    pub fn poll_next_event(&self, cx: &mut TaskContext<'_>) -> Poll<Option<ConsumerEvent>> {
        self.events.poll_pop(cx)
    }

    /// Stops pulling; what was received can still be read, then it ends.
    pub fn stop(&mut self) {
        self.events.close();
        self.retire_session();
    }

    /// Stops pulling, then waits until the server has what was sent so far.
    pub fn drain(&mut self) -> impl Future<Output = Result<(), Error>> + 'static {
        self.stop();
        let client = self.consumer.context.client().clone();
        async move { client.flush_pong().await }
    }

    /// Takes the read back from the session: its cursor and consumer are
    /// the consumer's again (the session's queue ends).
    fn retire_session(&mut self) {
        let c = &self.consumer;
        let mut state = lock(&c.state);
        let Some(id) = state.session.take() else { return };
        let Some(retired) = c.context.client().shared().lock().retire(Route::Ordered(id)) else { return };
        state.cursor = retired.cursor;
        if let Some(info) = retired.current {
            state.current = Consumer::new(c.context.clone(), info);
        }
        state.stale = !retired.reusable;
    }

    /// Ended: the consumer is free for the next reader, which needs a new
    /// one unless this one's can serve it with nothing unread, and resumes
    /// after the last message handed out.
    fn finish(&mut self) {
        let unread = self.reader.take().is_some_and(Messages::discard);
        self.retire_session();
        self.events.close();
        if std::mem::take(&mut self.holds) {
            let mut state = lock(&self.consumer.state);
            state.reading = false;
            state.stale |= unread;
            state.cursor.resume_after(self.last);
        }
    }

    fn fail<T>(&mut self, error: Error) -> Poll<Option<Result<T, Error>>> {
        self.finish();
        Poll::Ready(Some(Err(error)))
    }
}

impl Stream for OrderedMessages {
    type Item = Result<Message, OrderedError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Option<Self::Item>> {
        self.poll_raw(cx).map(|item| item.map(|item| item.map_err(OrderedErrorKind::error)))
    }
}

#[cfg(all(feature = "wasm-jetstream", target_arch = "wasm32"))]
impl Stream for Raw<OrderedMessages> {
    type Item = Result<Message, Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Option<Self::Item>> {
        self.0.poll_raw(cx)
    }
}

impl OrderedMessages {
    /// The next message, or what ended the read as natsjet's [`Error`].
    pub(crate) fn poll_raw(&mut self, cx: &mut TaskContext<'_>) -> Poll<Option<Result<Message, Error>>> {
        let item = ready!(self.poll_delivery(cx));
        let context = &self.consumer.context;
        Poll::Ready(
            item.map(|r| {
                r.map(|(d, _)| Message::new(d.message, context.client().clone(), context.timeout(), d.received))
            }),
        )
    }

    /// The next message the cursor lets through and the numbers of its ack
    /// subject, read once: [`poll_raw`](Self::poll_raw) without the acks
    /// (the consumers take none), for readers that need the numbers too.
    pub(crate) fn poll_delivery(
        &mut self,
        cx: &mut TaskContext<'_>,
    ) -> Poll<Option<Result<(Delivery, DeliveryNumbers), Error>>> {
        let Some(reader) = &mut self.reader else { return Poll::Ready(None) };
        match ready!(reader.poll_core(cx)) {
            // The session judged it; its numbers were read there too.
            Some(Ok(delivery)) => match delivery_numbers(&delivery.message) {
                Ok(numbers) => {
                    self.last = numbers.stream_sequence;
                    Poll::Ready(Some(Ok((delivery, numbers))))
                }
                Err(e) => self.fail(e),
            },
            Some(Err(e)) => self.fail(e),
            None => {
                self.finish();
                Poll::Ready(None)
            }
        }
    }
}

impl Drop for OrderedMessages {
    fn drop(&mut self) {
        self.finish();
    }
}
