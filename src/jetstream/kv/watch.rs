//! Reading a bucket in order: [`Watch`] (entries as they change),
//! [`History`] (every kept revision, then the end) and [`Keys`] (the keys
//! with a value, then the end). Each reads through an ordered push consumer
//! on the bucket's subjects, so gaps, missed heartbeats, a deleted consumer
//! and reconnects make a new consumer that resumes after the last entry
//! handed out: nothing is skipped or repeated. Flow control and heartbeats
//! run in the connection's task.
//!
//! Each knows when it has delivered what the bucket held when it started
//! ([`Entry::seen_current`], [`Watch::seen_current`]), also when that was
//! nothing: the consumer says how many messages it had to deliver when it
//! was made, and every message says how many are left after it.

use std::pin::Pin;
use std::task::{Context as TaskContext, Poll, ready};
use std::time::Duration;

use futures_core::Stream;

use super::entry::Entry;
use super::error::{WatchError, WatchErrorKind, WatcherError, WatcherErrorKind};
use super::names::check_filter;
use super::store::Store;
use crate::core::error::Error;
use crate::core::error::SortCause;
use crate::core::kv::read::{PutsOnly, SizedEntry, watched_entry};
use crate::jetstream::api::{DeliverPolicy, ReplayPolicy};
use crate::jetstream::ordered::OrderedConfig;
use crate::jetstream::reader::tracked::TrackedRead;

/// How long the server keeps a reader's consumer once nobody listens on
/// its deliver subject. The reader replaces a lost consumer by itself, so
/// this only bounds what a dropped reader leaves behind.
const INACTIVE_THRESHOLD: Duration = Duration::from_secs(30);

/// What a watch delivers before the changes that happen while it runs
/// (nats.js's `KvWatchInclude`, nats.go's `IncludeHistory`/`UpdatesOnly`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WatchInclude {
    /// The latest entry of every matching key.
    #[default]
    LastValue,
    /// Every kept revision of every matching key.
    AllHistory,
    /// Nothing: only changes made after the watch started.
    UpdatesOnly,
}

/// Options of [`Store::watch_with`]: nats.go's watch options, which
/// async-nats lacks.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WatchOptions {
    /// Which entries: all history, the last values or updates only.
    pub include: WatchInclude,
    /// Leave out deletes and purges. The last initial put still says the
    /// watch caught up when a delete left out came after it; when every
    /// initial entry is left out, no entry says so.
    pub ignore_deletes: bool,
    /// Entries without their values (headers only).
    pub meta_only: bool,
    /// Start at this revision instead (overrides `include`).
    pub resume_from_revision: Option<u64>,
}

impl WatchOptions {
    fn deliver_policy(&self) -> DeliverPolicy {
        match (self.resume_from_revision, self.include) {
            (Some(start_sequence), _) => DeliverPolicy::ByStartSequence { start_sequence },
            (None, WatchInclude::LastValue) => DeliverPolicy::LastPerSubject,
            (None, WatchInclude::AllHistory) => DeliverPolicy::All,
            (None, WatchInclude::UpdatesOnly) => DeliverPolicy::New,
        }
    }
}

/// One ordered read of entries, which knows when it has delivered those
/// that existed at its start: what [`Watch`], [`History`] and [`Keys`]
/// are made of, so the wasm holds one future and one poll for all three.
pub(crate) struct Reader {
    entries: Entries,
    /// Set when deletes are left out (`ignore_deletes`, a key listing).
    puts: Option<PutsOnly>,
    /// The end or error of the read, handed out after what `puts` held.
    end: Option<Option<Result<SizedEntry, Error>>>,
}

/// The entries an ordered push consumer delivers.
struct Entries {
    read: TrackedRead,
    bucket: String,
    /// `$KV.<bucket>.`: a subject without it is no entry of the bucket.
    prefix: String,
    /// Ends once what existed at the start was delivered (a history or key listing).
    until_current: bool,
}

impl Entries {
    fn poll_entry(&mut self, cx: &mut TaskContext<'_>) -> Poll<Option<Result<SizedEntry, Error>>> {
        let next = match self.until_current {
            true => ready!(self.read.poll_until_current(cx)),
            false => ready!(self.read.poll_next(cx)),
        };
        Poll::Ready(next.map(|delivery| {
            let (message, numbers) = delivery?;
            watched_entry(&self.bucket, &self.prefix, self.read.seen_current(), message, numbers)
        }))
    }
}

impl Reader {
    /// Reads `keys` as `options` say; with `until_current`, until what
    /// existed at the start was delivered.
    pub(crate) async fn open<K: AsRef<str>>(
        store: &Store,
        keys: impl IntoIterator<Item = K>,
        options: &WatchOptions,
        until_current: bool,
    ) -> Result<Reader, Error> {
        let mut filter_subjects = Vec::new();
        for key in keys {
            let key = key.as_ref();
            check_filter(key)?;
            filter_subjects.push(store.subjects.read(key));
        }
        if filter_subjects.is_empty() {
            return Err(Error::InvalidArgument("a watch needs at least one key".into()));
        }
        let ordered = OrderedConfig {
            filter_subjects,
            deliver_policy: options.deliver_policy(),
            replay_policy: ReplayPolicy::Instant,
            inactive_threshold: INACTIVE_THRESHOLD,
            headers_only: options.meta_only,
            name_prefix: None,
        };
        let entries = Entries {
            read: TrackedRead::open(&store.context, &store.stream_name, ordered).await?,
            bucket: store.name.clone(),
            prefix: store.subjects.read.clone(),
            until_current,
        };
        Ok(Reader { entries, puts: options.ignore_deletes.then(PutsOnly::default), end: None })
    }

    /// Whether every entry the keys had when the read started has been
    /// handed out (at once when there were none).
    pub(crate) fn seen_current(&self) -> bool {
        self.entries.read.seen_current()
    }

    /// Stops reading: what arrived can still be read, then it ends.
    pub(crate) fn stop(&mut self) {
        self.entries.read.stop();
    }

    /// The next entry and the size of its value (also for headers only).
    pub(crate) fn poll_entry(&mut self, cx: &mut TaskContext<'_>) -> Poll<Option<Result<SizedEntry, Error>>> {
        loop {
            return Poll::Ready(match ready!(self.poll_step(cx)) {
                Some(Ok(None)) => continue,
                Some(Ok(Some(entry))) => Some(Ok(entry)),
                Some(Err(e)) => Some(Err(e)),
                None => None,
            });
        }
    }

    /// The next entry as [`poll_entry`](Self::poll_entry), or `None` for a
    /// step that handed none out (a delete or purge left out, or a put held
    /// to see whether it completes the initial entries): a reader that hands
    /// out entries in batches sees [`seen_current`](Self::seen_current)
    /// turn true without an entry too.
    pub(crate) fn poll_step(&mut self, cx: &mut TaskContext<'_>) -> Poll<Option<Result<Step, Error>>> {
        let Some(puts) = &mut self.puts else {
            return Poll::Ready(ready!(self.entries.poll_entry(cx)).map(|r| r.map(Some)));
        };
        if let Some(entry) = puts.poll_entry() {
            return Poll::Ready(Some(Ok(Some(entry))));
        }
        if let Some(end) = self.end.take() {
            return Poll::Ready(end.map(|r| r.map(Some)));
        }
        match ready!(self.entries.poll_entry(cx)) {
            Some(Ok(entry)) => puts.handle_entry(entry),
            end => {
                puts.handle_end();
                self.end = Some(end);
            }
        }
        Poll::Ready(Some(Ok(puts.poll_entry())))
    }
}

/// An entry and the size of its value, or `None` for one a watch leaves out.
pub(crate) type Step = Option<(Entry, usize)>;

/// Entries of the watched keys as they change, as async-nats's `kv::Watch`:
/// a `Stream` of `Result<Entry, WatcherError>` that never ends by itself.
pub struct Watch {
    reader: Reader,
}

impl Watch {
    pub(crate) async fn open<K: AsRef<str>>(
        store: &Store,
        keys: impl IntoIterator<Item = K>,
        options: WatchOptions,
    ) -> Result<Watch, WatchError> {
        Ok(Watch { reader: Reader::open(store, keys, &options, false).await.map_err(WatchErrorKind::error)? })
    }

    /// Whether every entry the keys had when the watch started has been
    /// handed out: at once when there were none (an empty bucket, no
    /// matching key, or only updates asked for), else with the entry whose
    /// [`seen_current`](Entry::seen_current) is first `true`.
    pub fn seen_current(&self) -> bool {
        self.reader.seen_current()
    }

    /// Stops reading: what arrived can still be read, then it ends.
    pub fn stop(&mut self) {
        self.reader.stop();
    }
}

impl Stream for Watch {
    type Item = Result<Entry, WatcherError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Option<Self::Item>> {
        let item = ready!(self.reader.poll_entry(cx));
        Poll::Ready(item.map(|r| r.map(|(entry, _)| entry).map_err(WatcherErrorKind::error)))
    }
}

/// Every kept revision of the keys, oldest first, then the end: async-nats's
/// `kv::History`.
pub struct History {
    reader: Reader,
}

impl History {
    /// Reads `keys` as `options` say (where to start, headers only) until
    /// what existed at the start was delivered.
    pub(crate) async fn open<K: AsRef<str>>(
        store: &Store,
        keys: impl IntoIterator<Item = K>,
        options: WatchOptions,
    ) -> Result<History, WatchError> {
        Ok(History { reader: Reader::open(store, keys, &options, true).await.map_err(WatchErrorKind::error)? })
    }

    pub(crate) fn poll_entry(&mut self, cx: &mut TaskContext<'_>) -> Poll<Option<Result<SizedEntry, Error>>> {
        self.reader.poll_entry(cx)
    }
}

impl Stream for History {
    type Item = Result<Entry, WatcherError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Option<Self::Item>> {
        let item = ready!(self.poll_entry(cx));
        Poll::Ready(item.map(|r| r.map(|(entry, _)| entry).map_err(WatcherErrorKind::error)))
    }
}

/// The keys that hold a value (not deleted or purged), then the end:
/// async-nats's `kv::Keys`. Reads headers only, so values never travel.
pub struct Keys {
    reader: Reader,
}

/// What a key listing reads: the last entry of each key, headers only,
/// deletes and purges left out.
pub(crate) const KEYS: WatchOptions = WatchOptions {
    include: WatchInclude::LastValue,
    ignore_deletes: true,
    meta_only: true,
    resume_from_revision: None,
};

impl Keys {
    pub(crate) async fn open<K: AsRef<str>>(
        store: &Store,
        filters: impl IntoIterator<Item = K>,
    ) -> Result<Keys, WatchError> {
        Ok(Keys { reader: Reader::open(store, filters, &KEYS, true).await.map_err(WatchErrorKind::error)? })
    }
}

impl Stream for Keys {
    type Item = Result<String, WatcherError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Option<Self::Item>> {
        let item = ready!(self.reader.poll_entry(cx));
        Poll::Ready(item.map(|r| r.map(|(entry, _)| entry.key).map_err(WatcherErrorKind::error)))
    }
}
