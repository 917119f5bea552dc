//! Reading a push consumer: a subscription on its deliver subject (a queue
//! subscription with its deliver group) whose messages the driver task
//! sorts with a [`PushInbox`]: heartbeats and probes after missed ones
//! happen there, whatever the reader's pace; flow-control replies once the
//! reader has taken what came before them.

use std::collections::VecDeque;
use std::sync::Arc;

use super::{Messages, Source};
use crate::core::error::Error;
use crate::core::jetstream::read_mark::ReadMark;
use crate::core::session::Reader;
use crate::driver::readers::{Delivery, EVENT_CAPACITY, ReaderQueues};
use crate::jetstream::api::{self, ConsumerInfo};
use crate::jetstream::push::{PushInbox, PushOptions};
use crate::jetstream::{Context, PushConsumer};
use crate::runtime::queue::Queue;

impl PushConsumer {
    /// The consumer's messages, as the server pushes them. Never ends by
    /// itself: the subscription comes back with the connection. It ends with
    /// the server's [`Error::JetStream`] (consumer or stream not found) when
    /// missed heartbeats lead to a `CONSUMER.INFO` that finds the consumer
    /// gone — only if the consumer's config has `idle_heartbeat`, since
    /// the server sends a push consumer nothing when it is deleted (and
    /// never for a bound consumer, which has no name to ask about).
    /// Missed heartbeats are events ([`Messages::try_next_event`]).
    /// Dropping the stream naks the messages received and not read.
    ///
    /// What waits to be read is bounded as a subscription's is
    /// ([`ConnectOptions::subscription_capacity`](crate::ConnectOptions::subscription_capacity)
    /// and `_bytes`); the server bounds what it sends with `max_ack_pending`
    /// and, when the consumer has `flow_control`, by waiting for the
    /// flow-control reply, which goes out only once the reader has taken
    /// what came before. A reader that falls behind further drops new
    /// messages, counted by [`Messages::dropped`] and reported as
    /// [`Event::SlowConsumer`](crate::Event::SlowConsumer). A dropped message
    /// is not acked: a consumer with `AckPolicy::Explicit` redelivers it after
    /// `ack_wait`, nothing is lost. **An `AckPolicy::None` consumer's dropped
    /// messages are lost** (give it `flow_control` so the server waits
    /// instead), and with `AckPolicy::All` an ack of a later message covers
    /// a dropped one.
    pub async fn messages(&self) -> Result<Messages, Error> {
        self.consume_with(PushOptions::default())
    }

    /// [`messages`](Self::messages) with options (keep waiting for a
    /// deleted consumer to come back). Refused for a consumer without a
    /// deliver group that someone already listens to, as its last info
    /// says (`push_bound`): both would get every message.
    pub fn consume_with(&self, options: PushOptions) -> Result<Messages, Error> {
        listen(&self.context, &self.info, !self.is_bound(), options)
    }
}

/// Listens on the deliver subject of the consumer `info` describes; with
/// `probe`, asks `CONSUMER.INFO` after missed heartbeats (a bound
/// consumer's name is unknown). Also the ordered push reader's start.
pub(super) fn listen(
    context: &Context,
    info: &ConsumerInfo,
    probe: bool,
    options: PushOptions,
) -> Result<Messages, Error> {
    let config = &info.config;
    let Some(deliver_subject) = config.deliver_subject.as_deref() else {
        return Err(Error::InvalidArgument(format!("consumer {:?} is not a push consumer", info.name)));
    };
    if info.push_bound && config.deliver_group.is_none() {
        return Err(Error::InvalidArgument(format!("consumer {:?} is already bound", info.name)));
    }
    let client = context.client().clone();
    let info_subject =
        probe.then(|| api::consumer_info(context.api_prefix(), &info.stream_name, &info.name)).transpose()?;
    let heartbeat = Some(config.idle_heartbeat).filter(|hb| !hb.is_zero());
    // The server bounds what is in flight (max_ack_pending, flow control);
    // past the subscription bounds messages are dropped (see the driver's routing of reader messages).
    let items = client.subscription_queue(Delivery::length);
    let events = Queue::new(EVENT_CAPACITY);
    let mark = Arc::new(ReadMark::new());
    let sid = {
        let inbox = PushInbox::new(client.now(), heartbeat, options);
        let queues = ReaderQueues { items: items.clone(), events: events.clone() };
        let reader = Reader::push(inbox, info_subject, mark.clone());
        let group = config.deliver_group.as_deref();
        client.shared().lock().start_reader(deliver_subject, group, reader, queues)?
    };
    let ack_timeout = context.timeout();
    let buffer = VecDeque::new();
    let source = Source::Reader(sid);
    Ok(Messages { source, client, items, buffer, events, ack_timeout, report: None, taken: (0, 0), mark: Some(mark) })
}
