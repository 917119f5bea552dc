//! A member instance: joins a group under a member name, follows the
//! group's document, and reads its partitions through the member's pinned
//! pull consumer (the existing pull reader, pulls in the priority group
//! `PCG`). Several instances of one member may run: the server pins one and
//! the others' pulls wait until its pin lapses (`ack_wait`, at least 1 s,
//! without a pull) or a step-down moves it.
//!
//! The member is a `Stream` and makes progress while it is polled: it takes
//! the document's changes, (re)creates its consumer, and hands out
//! messages with the partition token taken off their subject.

use std::collections::BTreeSet;
use std::future::Future;
use std::ops::{Deref, DerefMut};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context as TaskContext, Poll, Waker};
use std::time::Duration;

use futures_core::Stream;

use super::Kind;
use super::admin::document;
use super::requests::{self, is_code};
use crate::core::error::Error;
use crate::core::jetstream::groups::order::{Offered, PartitionGate, Settle, Ticket};
use crate::core::jetstream::groups::{ElasticConfig, StaticConfig, member as rules, names, strip_partition};
use crate::core::jetstream::pull::{ConsumerEvent, StatusKind};
use crate::core::time::Instant;
use crate::jetstream::ack::Ack;
use crate::jetstream::api::{AckPolicy, ConsumerConfig, ErrorCode};
use crate::jetstream::consumer::{IntoConsumerConfig, pull};
use crate::jetstream::context::Context;
use crate::jetstream::kv::{self, Watch};
use crate::jetstream::message::Message;
use crate::jetstream::pull::{ConsumeOptions, PriorityOptions};
use crate::jetstream::reader::Messages;
use crate::runtime::{BoxFuture, DefaultRuntime, MaybeSend, Runtime};

/// A message of the group: the partition it came from, and the message
/// with that partition's token taken off its subject (ack it as usual).
#[derive(Debug)]
pub struct GroupMessage {
    /// The partition number (the subject's first token on the wire).
    pub partition: u32,
    /// The message; its subject is the one that was published.
    pub message: Message,
}

impl GroupMessage {
    /// The message's sequence in the stream the member reads (what a
    /// checkpoint for [`Member::resume_with`] records per partition).
    pub fn sequence(&self) -> Result<u64, Error> {
        Ok(self.message.info()?.stream_sequence)
    }
}

impl Deref for GroupMessage {
    type Target = Message;
    fn deref(&self) -> &Message {
        &self.message
    }
}

impl DerefMut for GroupMessage {
    fn deref_mut(&mut self) -> &mut Message {
        &mut self.message
    }
}

/// The group's document as the member last took it.
#[derive(Debug, Clone, PartialEq)]
enum Document {
    Static(StaticConfig),
    Elastic(ElasticConfig),
}

impl Document {
    fn parse(kind: Kind, json: &[u8]) -> Result<Document, Error> {
        Ok(match kind {
            Kind::Static => Document::Static(StaticConfig::parse(json)?),
            Kind::Elastic => Document::Elastic(ElasticConfig::parse(json)?),
        })
    }

    fn filters(&self, member: &str) -> Vec<String> {
        match self {
            Document::Static(c) => c.member_filters(member),
            Document::Elastic(c) => c.member_filters(member),
        }
    }

    fn is_member(&self, member: &str) -> bool {
        match self {
            Document::Static(c) => c.is_member(member),
            Document::Elastic(c) => c.is_member(member),
        }
    }
}

/// Joins a group as an instance of `member`, with `template` as the
/// consumer config (its name, filters and priority fields are replaced;
/// `ack_wait` sets the pinned TTL and pull expiry, 5 s when unset; elastic
/// groups need explicit acks). A static member must be in the group; an
/// elastic one may join before it is added and starts reading when it is.
///
/// Order: a partition's next message is handed out only after the previous
/// one was acked (or terminated), while the member's other partitions'
/// messages flow meanwhile: each partition is processed strictly in stream
/// order. The template's `max_ack_pending` bounds the messages in flight
/// over all the member's partitions (1, as with orbit.go's `cg` tool, is one
/// at a time; the number of partitions or more pipelines them). The order
/// holds across a failover: an instance that just got the pin hands out
/// nothing until none of the lost instance's messages is pending elsewhere
/// (see docs/consumer-groups.md). With
/// `AckPolicy::None` or `All` (static groups) messages are handed out as they come.
pub async fn join(
    js: &Context,
    kind: Kind,
    stream: &str,
    group: &str,
    member: &str,
    template: pull::Config,
) -> Result<Member, Error> {
    names::check_name("member", member)?;
    let template = template.into_consumer_config();
    if kind == Kind::Elastic {
        // Refuse a template the consumer could never be made from, now.
        rules::elastic_consumer_config(&template, member, Vec::new())?;
    }
    requests::stream_facts(js, &kind.consumer_stream(stream, group)).await?;
    let (json, _) = document(js, kind, stream, group).await?;
    let config = Document::parse(kind, &json)?;
    if kind == Kind::Static && !config.is_member(member) {
        return Err(Error::InvalidArgument(format!("{member} is not in the current static consumer group membership")));
    }
    let store = requests::bucket(js, kind).await?;
    let watch = store.watch_with_history(names::config_key(stream, group)).await?;
    let ack_wait = rules::ack_wait(&template);
    let ordered = template.ack_policy == AckPolicy::Explicit;
    let mut joined = Member {
        js: js.clone(),
        kind,
        stream: kind.consumer_stream(stream, group),
        group: group.into(),
        member: member.into(),
        template,
        ack_wait,
        watch,
        config,
        reader: None,
        joining: None,
        rejoin: None,
        pin_id: None,
        lost_pin: None,
        ended: false,
        ordered,
        gate: PartitionGate::new(ack_wait),
        settled: Arc::default(),
        keep_alive: None,
        resume: None,
        resumed: BTreeSet::new(),
        reading: None,
        waiting: Vec::new(),
        skipped: 0,
        consumer: String::new(),
        takeover_timer: None,
        ack_state: None,
    };
    joined.start_join(false, Duration::ZERO);
    if joined.ordered {
        let weak = Arc::downgrade(&joined.settled);
        DefaultRuntime::spawn(watchdog(js.clone(), joined.stream.clone(), weak, ack_wait));
    }
    Ok(joined)
}

/// A running member instance: a `Stream` of [`GroupMessage`]s. It ends
/// when the group is deleted, or with an error when the group's document
/// changes in a way the member cannot follow (any change of a static group;
/// an elastic group's partitions, filters or limits). Dropping it, or
/// [`stop`](Self::stop), leaves the group (other instances take over).
pub struct Member {
    js: Context,
    kind: Kind,
    /// The stream the member's consumer reads: the group's stream, or the elastic group's.
    stream: String,
    group: String,
    member: String,
    template: ConsumerConfig,
    ack_wait: Duration,
    watch: Watch,
    config: Document,
    reader: Option<Messages>,
    joining: Option<BoxFuture<Result<Option<Messages>, Error>>>,
    rejoin: Option<BoxFuture<()>>,
    /// The pin id this instance's messages carry (`Nats-Pin-Id`).
    pin_id: Option<String>,
    /// The pin id this instance lost (the server answered its pull with
    /// 423): messages still coming with it are nak'd, not handed out.
    lost_pin: Option<String>,
    ended: bool,
    /// Whether messages go through `gate` (acks are explicit).
    ordered: bool,
    /// The delivered messages, one out per partition.
    gate: PartitionGate<Message>,
    /// The acks of the messages out, from wherever they are taken.
    settled: Arc<Settlements>,
    /// When the gate has held messages to keep alive, or a message out to give up.
    keep_alive: Option<BoxFuture<()>>,
    /// The application's checkpoint, read per partition (see [`Member::resume_with`]).
    resume: Option<ResumeFn>,
    /// Partitions whose checkpoint was read since the consumer was (re)made.
    resumed: BTreeSet<u32>,
    /// A partition's checkpoint being read.
    reading: Option<(u32, CheckpointRead)>,
    /// Delivered messages of partitions whose checkpoint is not read yet: (partition, sequence, message).
    waiting: Vec<(u32, u64, Message)>,
    /// Redeliveries of work done (by the checkpoint or acked here) not handed out.
    skipped: u64,
    /// The member's consumer's name.
    consumer: String,
    /// When the gate's takeover (the pin just moved here) wants the consumer's state next.
    takeover_timer: Option<(Instant, BoxFuture<()>)>,
    /// The consumer's ack floor and ack-pending count, asked for a takeover.
    ack_state: Option<BoxFuture<Result<(u64, u64), Error>>>,
}

/// The last stream sequence the application finished in a partition, being read.
type CheckpointRead = BoxFuture<Result<Option<u64>, Error>>;
/// Reads the last stream sequence the application finished in a partition.
#[cfg(not(target_arch = "wasm32"))]
type ResumeFn = Box<dyn FnMut(u32) -> CheckpointRead + Send>;
/// Reads the last stream sequence the application finished in a partition.
#[cfg(target_arch = "wasm32")]
type ResumeFn = Box<dyn FnMut(u32) -> CheckpointRead>;

/// Acks of handed-out messages, gathered for the member's next poll; and
/// what the watchdog needs to step down when a handler hangs.
#[derive(Default)]
struct Settlements {
    acks: Mutex<Vec<(Ticket, Settle)>>,
    waker: Mutex<Option<Waker>>,
    /// Messages handed out and not settled: when the watchdog gives up on
    /// their handler, `None` after an in-progress (it sets a new one).
    out: Mutex<Vec<(Ticket, Option<Instant>)>>,
    /// The consumer and the pin id of this instance, while it is pinned.
    pinned: Mutex<Option<(String, String)>>,
}

fn locked<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

impl Settlements {
    fn push(&self, ticket: Ticket, settle: Settle) {
        {
            let mut out = locked(&self.out);
            if let Some(at) = out.iter().position(|(t, _)| *t == ticket) {
                match settle {
                    Settle::Progress => out[at].1 = None,
                    Settle::Done | Settle::Redeliver(_) => {
                        out.swap_remove(at);
                    }
                }
            }
        }
        self.acks.lock().unwrap_or_else(|e| e.into_inner()).push((ticket, settle));
        if let Some(waker) = self.waker.lock().unwrap_or_else(|e| e.into_inner()).take() {
            waker.wake();
        }
    }

    /// Registers the member's task and takes what was acked since.
    fn take(&self, waker: &Waker) -> Vec<(Ticket, Settle)> {
        let mut slot = self.waker.lock().unwrap_or_else(|e| e.into_inner());
        if !slot.as_ref().is_some_and(|w| w.will_wake(waker)) {
            *slot = Some(waker.clone());
        }
        drop(slot);
        std::mem::take(&mut *self.acks.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

impl std::fmt::Debug for Member {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Member")
            .field("stream", &self.stream)
            .field("group", &self.group)
            .field("member", &self.member)
            .field("reading", &self.reader.is_some())
            .field("pin_id", &self.pin_id)
            .finish()
    }
}

impl Member {
    /// The member's name.
    pub fn name(&self) -> &str {
        &self.member
    }

    /// The partitions the group's document gives this member now.
    pub fn partitions(&self) -> Vec<u32> {
        match &self.config {
            Document::Static(c) => crate::core::jetstream::groups::member_partitions(
                &c.members,
                c.max_members,
                &c.member_mappings,
                &self.member,
            ),
            Document::Elastic(c) => crate::core::jetstream::groups::member_partitions(
                &c.members,
                c.max_members,
                &c.member_mappings,
                &self.member,
            ),
        }
    }

    /// The pin id of this instance, once the server pinned it (messages come to it).
    pub fn pin_id(&self) -> Option<&str> {
        self.pin_id.as_deref()
    }

    /// Exactly-once per partition: `done(partition)` reads the last stream
    /// sequence (of the stream the member's consumer reads: the group's
    /// work-queue stream `<stream>-<group>` for elastic groups, the stream
    /// for static ones) whose work the application finished in that
    /// partition, from its own checkpoint. It is called once per partition
    /// each time the member's consumer is (re)made, before the partition's
    /// first message is handed out; what comes again at or below that
    /// sequence (a crash between the checkpoint and the ack, or a partition
    /// that moved from another member whose checkpoint is shared) is acked
    /// and not handed out (counted in [`skipped`](Self::skipped)). An error
    /// from `done` is handed out and the partition's messages come again
    /// later (after `ack_wait`). Needs explicit acks.
    pub fn resume_with<F, Fut>(mut self, mut done: F) -> Self
    where
        F: FnMut(u32) -> Fut + MaybeSend + 'static,
        Fut: Future<Output = Result<Option<u64>, Error>> + MaybeSend + 'static,
    {
        self.resume = Some(Box::new(move |partition| Box::pin(done(partition))));
        self
    }

    /// Redelivered messages of work already done (by the checkpoint
    /// [`resume_with`](Self::resume_with) read, or acked by this instance)
    /// that were acked and not handed out.
    pub fn skipped(&self) -> u64 {
        self.skipped
    }

    /// Stops reading (what was received and not read is handed back); the stream ends.
    pub fn stop(&mut self) {
        self.reader = None;
        self.joining = None;
        self.ended = true;
    }

    /// Creates (or re-creates) the member's consumer and starts reading it,
    /// after deleting it first (`delete_first`, the pinned instance on a
    /// membership change) or after `wait`.
    fn start_join(&mut self, delete_first: bool, wait: Duration) {
        self.reader = None;
        self.rejoin = None;
        self.forget_delivered();
        let filters = self.config.filters(&self.member);
        if filters.is_empty() {
            self.joining = None;
            return;
        }
        let config = match self.kind {
            Kind::Static => rules::static_consumer_config(&self.template, &self.group, &self.member, filters),
            Kind::Elastic => match rules::elastic_consumer_config(&self.template, &self.member, filters) {
                Ok(config) => config,
                Err(_) => return,
            },
        };
        let (js, stream, kind) = (self.js.clone(), self.stream.clone(), self.kind);
        let expires = rules::pull_expiry(self.ack_wait);
        let name = config.name.clone().or_else(|| config.durable_name.clone()).unwrap_or_default();
        self.consumer = name.clone();
        self.joining = Some(Box::pin(async move {
            if delete_first {
                let _ = requests::delete_consumer(&js, &stream, &name).await;
            } else if !wait.is_zero() {
                DefaultRuntime::sleep(wait).await;
            }
            open(&js, kind, &stream, &name, config, expires).await
        }));
    }

    /// After the reader ended or a join failed: try again later (elastic), or at once.
    fn arm_rejoin(&mut self) {
        self.reader = None;
        self.forget_delivered();
        if self.config.is_member(&self.member) {
            self.rejoin = Some(DefaultRuntime::sleep(rules::rejoin_interval(self.ack_wait)));
        }
    }

    /// A new document (or its removal) from the watch: `Some(item)` ends the stream.
    fn take_update(&mut self, entry: kv::Entry) -> Option<Option<Result<GroupMessage, Error>>> {
        if entry.operation != kv::Operation::Put {
            self.end_static_consumer();
            self.stop();
            return Some(None);
        }
        let next = match Document::parse(self.kind, &entry.value) {
            Ok(next) => next,
            Err(e) => return Some(Some(Err(self.fail(e)))),
        };
        match (&self.config, &next) {
            (current, next) if current == next => None,
            (Document::Static(_), _) => Some(Some(Err(self
                .fail(Error::InvalidArgument("the static consumer group's config changed: the member stops".into()))))),
            (Document::Elastic(current), Document::Elastic(next_config)) => {
                if !current.same_shape(next_config) {
                    return Some(Some(Err(self.fail(Error::InvalidArgument(
                        "the elastic consumer group's partitions, filters or buffer limits changed: the member stops"
                            .into(),
                    )))));
                }
                let pinned = self.reader.is_some() && self.pin_id.is_some();
                self.config = next;
                self.pin_id = None;
                // The pinned instance re-creates the consumer (new partitions
                // may lie behind its position); the others let it go first.
                let wait = Duration::from_millis(400 + jitter_ms(100));
                self.start_join(pinned, wait);
                None
            }
            (Document::Elastic(_), Document::Static(_)) => None,
        }
    }

    /// Stops with `error`; a static member deletes its consumer, as in Go.
    fn fail(&mut self, error: Error) -> Error {
        self.end_static_consumer();
        self.stop();
        error
    }

    fn end_static_consumer(&mut self) {
        if self.kind == Kind::Static {
            let (js, stream) = (self.js.clone(), self.stream.clone());
            let name = names::static_consumer(&self.group, &self.member);
            DefaultRuntime::spawn(async move {
                let _ = requests::delete_consumer(&js, &stream, &name).await;
            });
        }
    }
}

impl Member {
    /// The consumer was re-made or went: what it delivered comes again, and
    /// each partition's checkpoint is read again (it may have moved on).
    fn forget_delivered(&mut self) {
        self.gate.reset();
        *locked(&self.settled.pinned) = None;
        locked(&self.settled.out).clear();
        self.takeover_timer = None;
        self.ack_state = None;
        self.resumed.clear();
        self.reading = None;
        self.waiting.clear();
    }

    /// Gives a delivered message to the gate, or waits for its partition's
    /// checkpoint first.
    fn offer(&mut self, partition: u32, sequence: u64, message: Message) {
        if self.resume.is_some() && !self.resumed.contains(&partition) {
            self.waiting.push((partition, sequence, message));
            self.read_next_checkpoint();
            return;
        }
        // The server's ack timer runs from about the receipt, maybe long before now.
        let received = message.received();
        if let Offered::Settled(again) = self.gate.offer(partition, sequence, message, received) {
            // Done before (acked here, or by the checkpoint): ack it again.
            let _ = again.ack_nowait(Ack::Ack);
            self.skipped += 1;
        }
    }

    /// Starts reading the checkpoint of the first waiting message's partition.
    fn read_next_checkpoint(&mut self) {
        if self.reading.is_some() {
            return;
        }
        if let (Some(resume), Some((partition, _, _))) = (self.resume.as_mut(), self.waiting.first()) {
            self.reading = Some((*partition, resume(*partition)));
        }
    }

    /// A partition's checkpoint was read: its waiting messages go to the gate.
    fn resumed(&mut self, partition: u32, done: Option<u64>) {
        if let Some(done) = done {
            self.gate.resume(partition, done);
        }
        self.resumed.insert(partition);
        let (ready, still): (Vec<_>, Vec<_>) =
            std::mem::take(&mut self.waiting).into_iter().partition(|w| w.0 == partition);
        self.waiting = still;
        for (partition, sequence, message) in ready {
            self.offer(partition, sequence, message);
        }
        self.read_next_checkpoint();
    }

    /// A delivered message's partition, its subject without the partition
    /// token; notes the pin id it carries (a new one starts the gate's
    /// takeover). `true` when it carries the pin this instance lost (it
    /// was on its way when the pin moved).
    fn arrived(&mut self, mut message: Message, now: Instant) -> (u32, Message, bool) {
        let wire = message.message.subject.to_string();
        let partition = wire.split('.').next().and_then(|p| p.parse().ok()).unwrap_or(u32::MAX);
        message.message.subject = strip_partition(&wire).into();
        let pin = message.message.headers.as_ref().and_then(|h| h.get("Nats-Pin-Id")).map(|p| p.to_string());
        if pin.is_some() && pin == self.lost_pin {
            return (partition, message, true);
        }
        if let Some(pin) = pin
            && self.pin_id.as_deref() != Some(pin.as_str())
        {
            *locked(&self.settled.pinned) = Some((self.consumer.clone(), pin.clone()));
            self.pin_id = Some(pin);
            self.gate.pinned(now);
        }
        (partition, message, false)
    }

    /// The server moved the pin away from this instance (a step-down, or
    /// its pin lapsed) and said so (423 to its pull): what the gate holds
    /// and what waits for a checkpoint is nak'd, so that it goes at once
    /// to the instance pinned now, whose takeover keeps each partition's
    /// order (see [`PartitionGate::pin_lost`]); the messages out finish as usual.
    fn lose_pin(&mut self) {
        let Some(pin) = self.pin_id.take() else { return };
        *locked(&self.settled.pinned) = None;
        let mut give_back = |message: Message| {
            let _ = message.ack_nowait(Ack::Nak(None));
        };
        self.gate.pin_lost(&mut give_back);
        for (_, _, message) in self.waiting.drain(..) {
            give_back(message);
        }
        self.takeover_timer = None;
        self.ack_state = None;
        self.lost_pin = Some(pin);
    }

    /// A message that carries the pin this instance lost: acked again when
    /// it was settled here, otherwise nak'd for the instance pinned now.
    fn give_back_stale(&mut self, partition: u32, message: Message) {
        let done = message.info().is_ok_and(|info| self.gate.was_settled(partition, info.stream_sequence));
        let _ = message.ack_nowait(if done { Ack::Ack } else { Ack::Nak(None) });
    }
}

impl Member {
    /// Drives the gate's takeover: asks for the consumer's ack state when
    /// due and gives the answer to the gate; `true` when something changed.
    fn takeover(&mut self, cx: &mut TaskContext<'_>, now: Instant) -> bool {
        if self.gate.takeover_asked(now) && self.ack_state.is_none() {
            let (js, stream, consumer) = (self.js.clone(), self.stream.clone(), self.consumer.clone());
            self.ack_state = Some(Box::pin(async move { requests::ack_state(&js, &stream, &consumer).await }));
        }
        if let Some(asked) = self.ack_state.as_mut()
            && let Poll::Ready(answer) = asked.as_mut().poll(cx)
        {
            self.ack_state = None;
            match answer {
                Ok((floor, pending)) => self.gate.consumer_state(floor, pending, now),
                Err(_) => self.gate.consumer_state_unknown(now),
            }
            return true;
        }
        let Some(due) = self.gate.takeover_due() else {
            self.takeover_timer = None;
            return false;
        };
        if self.takeover_timer.as_ref().is_none_or(|(at, _)| *at != due) {
            self.takeover_timer = Some((due, DefaultRuntime::sleep(due.saturating_duration_since(now))));
        }
        if let Some((_, timer)) = self.takeover_timer.as_mut()
            && timer.as_mut().poll(cx).is_ready()
        {
            self.takeover_timer = None;
            return true;
        }
        false
    }
}

/// Steps this instance down (unpins it) when a message handed out stays
/// unsettled past [`hang_bound`](rules::hang_bound) (its handler hangs
/// while the connection, and so the pin, lives on), so that a standby
/// takes over; checks every half `ack_wait`; ends with the member.
async fn watchdog(js: Context, stream: String, settled: std::sync::Weak<Settlements>, ack_wait: Duration) {
    let bound = rules::hang_bound(ack_wait);
    loop {
        DefaultRuntime::sleep(ack_wait / 2).await;
        let Some(settled) = settled.upgrade() else { return };
        let now = js.client().now();
        let hung = {
            let mut out = locked(&settled.out);
            for (_, deadline) in out.iter_mut() {
                deadline.get_or_insert(now + bound);
            }
            let before = out.len();
            out.retain(|(_, deadline)| deadline.is_some_and(|d| d > now));
            out.len() < before
        };
        let pinned = locked(&settled.pinned).clone();
        drop(settled);
        if let (true, Some((consumer, pin))) = (hung, pinned) {
            // Only while the server still pins this instance: another's pin is not ours to move.
            if requests::pinned_id(&js, &stream, &consumer).await.ok().flatten().as_deref() == Some(pin.as_str()) {
                let _ = requests::unpin(&js, &stream, &consumer, names::PRIORITY_GROUP).await;
            }
        }
    }
}

/// A number in `0..max` from the entropy source (0 without one).
fn jitter_ms(max: u64) -> u64 {
    getrandom::u64().map_or(0, |n| n % max)
}

/// Whether a failed consumer create is one of the elastic group's
/// expected, passing cases (another instance's view of the members stands
/// in the way, or the cluster is electing a leader): try again later, quietly.
/// Anything else (the stream gone, a bad config, limits, a request that
/// timed out, one refused by permissions) is handed out as well.
fn is_passing_create_error(error: &Error) -> bool {
    match error {
        Error::JetStream(e) => [
            ErrorCode::CONSUMER_ALREADY_EXISTS,
            ErrorCode::CONSUMER_NAME_EXIST,
            ErrorCode::CONSUMER_NOT_FOUND,
            ErrorCode::CONSUMER_WQ_NOT_UNIQUE,
            ErrorCode::CONSUMER_WQ_MULTIPLE_UNFILTERED,
            ErrorCode::CLUSTER_NOT_AVAILABLE,
        ]
        .contains(&e.err_code),
        Error::Disconnected => true,
        _ => false,
    }
}

/// Whether the consumer's reader ended in an expected way: its consumer was
/// deleted or re-made by another instance (the member joins again quietly).
fn is_passing_reader_error(error: &Error) -> bool {
    match error {
        Error::JetStream(e) => e.err_code == ErrorCode::CONSUMER_NOT_FOUND,
        Error::ConsumerStatus(status) => status.kind == StatusKind::ConsumerDeleted,
        Error::Timeout | Error::Disconnected => true,
        _ => false,
    }
}

/// Creates the consumer and starts reading it; `None` when another
/// instance's view of the group stands in the way for now (elastic).
async fn open(
    js: &Context,
    kind: Kind,
    stream: &str,
    name: &str,
    config: ConsumerConfig,
    expires: Duration,
) -> Result<Option<Messages>, Error> {
    let created = match requests::create_consumer(js, stream, config.clone()).await {
        Err(e) if kind == Kind::Elastic && is_code(&e, ErrorCode::CONSUMER_ALREADY_EXISTS) => {
            // Made by an instance with an older view: replace it.
            let _ = requests::delete_consumer(js, stream, name).await;
            requests::create_consumer(js, stream, config).await
        }
        other => other,
    };
    let consumer = match created {
        Ok(consumer) => consumer,
        // Another instance's view of the members stands in the way
        // (`filtered consumer not unique on workqueue stream`…): try again later.
        Err(e) if kind == Kind::Elastic && is_passing_create_error(&e) => return Ok(None),
        Err(e) => return Err(e),
    };
    let options = ConsumeOptions {
        expires: Some(expires),
        priority: Some(PriorityOptions { group: names::PRIORITY_GROUP.into(), ..PriorityOptions::default() }),
        ..ConsumeOptions::default()
    };
    Ok(Some(consumer.consume_with(options)?))
}

impl Stream for Member {
    type Item = Result<GroupMessage, Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        loop {
            if this.ended {
                return Poll::Ready(None);
            }
            match Pin::new(&mut this.watch).poll_next(cx) {
                Poll::Ready(Some(Ok(entry))) => {
                    if let Some(end) = this.take_update(entry) {
                        return Poll::Ready(end);
                    }
                    continue;
                }
                Poll::Ready(Some(Err(e))) => return Poll::Ready(Some(Err(this.fail(e.into())))),
                Poll::Ready(None) => {
                    return Poll::Ready(Some(Err(
                        this.fail(Error::InvalidArgument("the consumer group's config watcher has been closed".into()))
                    )));
                }
                Poll::Pending => {}
            }
            if let Some(joining) = this.joining.as_mut() {
                match joining.as_mut().poll(cx) {
                    Poll::Ready(Ok(Some(reader))) => {
                        this.joining = None;
                        this.reader = Some(reader);
                        continue;
                    }
                    Poll::Ready(Ok(None)) => {
                        this.joining = None;
                        this.arm_rejoin();
                        continue;
                    }
                    Poll::Ready(Err(e)) => {
                        this.joining = None;
                        this.arm_rejoin();
                        return Poll::Ready(Some(Err(e)));
                    }
                    Poll::Pending => {}
                }
            }
            if let Some(rejoin) = this.rejoin.as_mut()
                && rejoin.as_mut().poll(cx).is_ready()
            {
                this.rejoin = None;
                if this.reader.is_none() && this.joining.is_none() {
                    this.start_join(false, Duration::ZERO);
                }
                continue;
            }
            let now = this.js.client().now();
            for (ticket, settle) in this.settled.take(cx.waker()) {
                this.gate.settle(ticket, settle, now);
            }
            if this.keep_alive.is_none()
                && let Some(at) = this.gate.deadline()
            {
                this.keep_alive = Some(DefaultRuntime::sleep(at.saturating_duration_since(now)));
            }
            if let Some(timer) = this.keep_alive.as_mut()
                && timer.as_mut().poll(cx).is_ready()
            {
                this.keep_alive = None;
                this.gate.keep_alive(now, |held| {
                    let _ = held.ack_nowait(Ack::Progress);
                });
                continue;
            }
            if this.takeover(cx, now) {
                continue;
            }
            if let Some((partition, read)) = this.reading.as_mut()
                && let Poll::Ready(result) = read.as_mut().poll(cx)
            {
                let partition = *partition;
                this.reading = None;
                match result {
                    Ok(done) => this.resumed(partition, done),
                    Err(e) => {
                        // Not handed out nor kept alive: the server delivers them again.
                        this.waiting.retain(|w| w.0 != partition);
                        this.read_next_checkpoint();
                        return Poll::Ready(Some(Err(e)));
                    }
                }
                continue;
            }
            if let Some(reader) = this.reader.as_mut() {
                let mut lost = false;
                while let Poll::Ready(Some(event)) = reader.poll_next_event(cx) {
                    lost |= matches!(event, ConsumerEvent::PinIdMismatch);
                }
                if lost {
                    this.lose_pin();
                    continue;
                }
            }
            if let Some(reader) = this.reader.as_mut() {
                match reader.poll_raw(cx) {
                    Poll::Ready(Some(Ok(message))) => {
                        let (partition, message, stale) = this.arrived(message, now);
                        if stale && this.ordered {
                            this.give_back_stale(partition, message);
                            continue;
                        }
                        if !this.ordered {
                            return Poll::Ready(Some(Ok(GroupMessage { partition, message })));
                        }
                        match message.info().map(|info| (info.stream_sequence, info.delivered)) {
                            Ok((sequence, delivered)) => {
                                if delivered == 1 {
                                    this.gate.delivered_first(sequence);
                                }
                                this.offer(partition, sequence, message)
                            }
                            Err(_) => return Poll::Ready(Some(Ok(GroupMessage { partition, message }))),
                        }
                        continue;
                    }
                    Poll::Ready(ended) => {
                        // The consumer went (another instance re-created it,
                        // or it was deleted): join again later. Anything
                        // unexpected (the stream gone, permissions) is handed
                        // out too.
                        this.pin_id = None;
                        this.arm_rejoin();
                        if let Some(Err(e)) = ended
                            && !is_passing_reader_error(&e)
                        {
                            return Poll::Ready(Some(Err(e)));
                        }
                        continue;
                    }
                    Poll::Pending => {}
                }
            }
            if let Some((ticket, mut message)) = this.gate.next(now) {
                locked(&this.settled.out).push((ticket, Some(now + rules::hang_bound(this.ack_wait))));
                let settled = this.settled.clone();
                message.observe(Box::new(move |ack| {
                    let settle = match ack {
                        Ack::Progress => Settle::Progress,
                        Ack::Nak(delay) => Settle::Redeliver(*delay),
                        _ => Settle::Done,
                    };
                    settled.push(ticket, settle);
                }));
                return Poll::Ready(Some(Ok(GroupMessage { partition: ticket.partition, message })));
            }
            return Poll::Pending;
        }
    }
}
