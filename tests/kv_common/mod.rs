//! What the Key-Value test files share: a context on a test server,
//! bounded reads of watches and listings, the raw stored message of a
//! revision, and a [`Tap`] that proves a refused call wrote nothing.
#![allow(dead_code)]

use std::time::Duration;

use bytes::Bytes;
use futures_util::{Stream, StreamExt};
use natsjet::jetstream::kv::{self, Entry, Store};
use natsjet::jetstream::stream::StreamMessage;
use natsjet::jetstream::{self, Context};
use natsjet::{Client, Subscriber};
use tokio::time::timeout;

/// The longest any single step may take on a loaded machine.
pub const WAIT: Duration = Duration::from_secs(20);

pub async fn js(url: &str) -> Context {
    jetstream::new(natsjet::connect(url).await.unwrap())
}

pub fn b(s: &str) -> Bytes {
    Bytes::copy_from_slice(s.as_bytes())
}

/// A bucket named `bucket` with `history` values per key, else the defaults.
pub async fn bucket(js: &Context, bucket: &str, history: i64) -> Store {
    js.create_key_value(kv::Config { bucket: bucket.into(), history, ..Default::default() }).await.unwrap()
}

/// The next item of a stream that must come within [`WAIT`] and not end it.
pub async fn next<S: Stream<Item = Result<T, E>> + Unpin, T, E: std::fmt::Debug>(stream: &mut S) -> T {
    timeout(WAIT, stream.next()).await.expect("an item in time").expect("not ended").unwrap()
}

/// Everything a finite stream (a history, a key listing) yields before it ends.
pub async fn all<S: Stream<Item = Result<T, E>> + Unpin, T, E: std::fmt::Debug>(mut stream: S) -> Vec<T> {
    let mut items = Vec::new();
    while let Some(item) = timeout(WAIT, stream.next()).await.expect("the next item or the end in time") {
        items.push(item.unwrap());
    }
    items
}

/// Key, revision and operation of each entry: what watches are compared by.
pub fn summary(entries: &[Entry]) -> Vec<(String, u64, kv::Operation)> {
    entries.iter().map(|e| (e.key.clone(), e.revision, e.operation)).collect()
}

/// The message the bucket's stream stored at `revision`, headers and all.
pub async fn stored(js: &Context, store: &Store, revision: u64) -> StreamMessage {
    js.get_stream(&store.stream_name).await.unwrap().get_raw_message(revision).await.unwrap()
}

/// Messages in the bucket's stream now.
pub async fn stored_count(js: &Context, store: &Store) -> u64 {
    js.get_stream(&store.stream_name).await.unwrap().cached_info().state.messages
}

/// The headers of a stored message as sorted (name, value) pairs.
pub fn header_pairs(message: &StreamMessage) -> Vec<(String, String)> {
    let mut pairs: Vec<_> = message.headers.iter().map(|(n, v)| (n.into(), v.into())).collect();
    pairs.sort();
    pairs
}

/// Listens, on a client of its own, to every key write and every JetStream
/// API request; [`assert_silent`](Tap::assert_silent) shows that nothing
/// reached the server since the tap opened.
pub struct Tap {
    /// Keeps the subscriptions' connection open.
    _listener: Client,
    writes: Subscriber,
    requests: Subscriber,
}

impl Tap {
    pub async fn open(url: &str) -> Tap {
        let listener = natsjet::connect(url).await.unwrap();
        let writes = listener.subscribe("$KV.>").await.unwrap();
        let requests = listener.subscribe("$JS.API.>").await.unwrap();
        listener.flush().await.unwrap();
        Tap { _listener: listener, writes, requests }
    }

    /// `sender` publishes a marker on each subject; the first thing the tap
    /// hears on each must be that marker (one connection's messages keep
    /// their order), so `sender` sent nothing there before it.
    pub async fn assert_silent(&mut self, sender: &Client, what: &str) {
        for (subject, sub) in [("$KV.tap.end", &mut self.writes), ("$JS.API.tap.end", &mut self.requests)] {
            sender.publish(subject, "end".into()).await.unwrap();
            sender.flush().await.unwrap();
            let first = timeout(WAIT, sub.next()).await.expect("the end marker in time").expect("subscribed");
            assert_eq!(first.subject, subject, "{what} sent {:?} to the server", first.subject);
        }
    }

    /// The subjects of the API requests heard until `sender`'s marker.
    pub async fn requests(&mut self, sender: &Client) -> Vec<String> {
        sender.publish("$JS.API.tap.end", "end".into()).await.unwrap();
        sender.flush().await.unwrap();
        let mut subjects = Vec::new();
        loop {
            let message = timeout(WAIT, self.requests.next()).await.expect("the end marker in time").unwrap();
            if message.subject == "$JS.API.tap.end" {
                return subjects;
            }
            subjects.push(message.subject.to_string());
        }
    }
}
