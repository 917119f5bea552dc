//! Exactly-once with many workers on one shared durable consumer: each
//! message's effect lands once in a SQLite aggregate that cannot tell
//! duplicates apart, across crashes, restarts and changes of worker count.
//!
//! Each worker has its own connection, checkpoint ledger and SQLite
//! connection. Per epoch it takes `ledger.snapshot(epoch)`, writes the
//! epoch's deltas and the snapshot in one transaction, then acks with
//! `ledger.commit(epoch)`; an epoch at risk is aborted (nak'd, deltas
//! dropped). On start it merges the states every worker saved into the rows
//! of the new worker count, restores that union into every ledger and reads
//! through `ledger.filter`, so redeliveries of work the aggregate already
//! holds are acked instead of applied again. A failure inside the process
//! (acks refused) restarts all workers from the database the same way.
//!
//! The stream and durable (AckExplicit) must exist; this program only consumes.
//! Payloads are `ID KEY VALUE` (see `shared.rs`). The crash test publishes and
//! kills it: `cargo run --example exactly_once_crash`.
//!
//! Usage: exactly_once URL DB WORKERS [--stream S] [--durable D] [--forever] [--max-messages M]
//!
//! It exits once the consumer has nothing pending and nothing waiting for an
//! ack (not with `--forever`), or after this run applied M messages.
//! Environment: `NATSJET_PAUSE_AFTER_DB_COMMIT_MS` pauses each worker between
//! its database commit and its acks (printing `in-pause-window` first);
//! `NATSJET_NO_RESTORE=1` skips the restore, so redeliveries are applied again.

mod shared;

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::StreamExt;
use natsjet::jetstream::ack::LedgerState;
use natsjet::jetstream::{self, CheckpointLedger, LedgerOptions, Message, PullConsumer};
use rusqlite::{Connection, TransactionBehavior, params};
use shared::{CHECKPOINT, DONE, Input, PAUSE_MARKER, READY};
use tokio::sync::watch;
use tokio::task::JoinSet;
use tokio::time::Instant;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Time between a worker's checkpoints.
const CHECKPOINT_EVERY: Duration = Duration::from_millis(250);
/// Messages per pull.
const BATCH: u64 = 100;

struct Args {
    url: String,
    db: PathBuf,
    workers: usize,
    stream: String,
    durable: String,
    forever: bool,
    max_messages: Option<u64>,
    pause: Option<Duration>,
    restore: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut args = std::env::args().skip(1);
    let mut positional = Vec::new();
    let (mut stream, mut durable) = ("EO".to_string(), "eo-workers".to_string());
    let (mut forever, mut max_messages) = (false, None);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "--stream" => stream = value("--stream")?,
            "--durable" => durable = value("--durable")?,
            "--forever" => forever = true,
            "--max-messages" => {
                max_messages = Some(value("--max-messages")?.parse().map_err(|_| "bad --max-messages")?)
            }
            _ => positional.push(arg),
        }
    }
    let [url, db, workers] = <[String; 3]>::try_from(positional).map_err(|_| "expected URL DB WORKERS")?;
    let pause = std::env::var("NATSJET_PAUSE_AFTER_DB_COMMIT_MS").ok().and_then(|ms| ms.parse().ok());
    Ok(Args {
        url,
        db: db.into(),
        workers: workers.parse().map_err(|_| "bad WORKERS")?,
        stream,
        durable,
        forever,
        max_messages,
        pause: pause.map(Duration::from_millis),
        restore: std::env::var("NATSJET_NO_RESTORE").as_deref() != Ok("1"),
    })
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(args) => Arc::new(args),
        Err(e) => {
            eprintln!(
                "{e}\nusage: exactly_once URL DB WORKERS [--stream S] [--durable D] [--forever] [--max-messages M]"
            );
            return ExitCode::from(2);
        }
    };
    match run(args).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("exactly_once: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Starts the workers from the database until a generation of them finishes.
async fn run(args: Arc<Args>) -> Result<(), BoxError> {
    let db = Db::open(&args)?;
    let js = jetstream::new(natsjet::connect(args.url.as_str()).await?);
    let consumer: PullConsumer = js.get_stream(&args.stream).await?.get_consumer(&args.durable).await?;
    let mut totals = Counts::default();
    for generation in 1.. {
        let workers = args.workers;
        let union = Arc::new(db.run(move |db| prepare_restore(db, workers)).await?);
        let restored = if args.restore { union.len() } else { 0 };
        println!("{READY} generation={generation} workers={workers} restored={restored}");
        let (counts, failure) = run_generation(&args, generation, union, &consumer).await;
        totals.add(&counts);
        let Some(reason) = failure else { break };
        println!("restarting generation={generation} reason={reason:?}");
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    println!("{DONE} workers={} {}", args.workers, totals.fields());
    Ok(())
}

/// In one transaction: the union of every saved ledger state goes into the
/// row of each worker index of this run, and rows past it go away. A crash
/// before this run's first checkpoint then still finds the whole union.
fn prepare_restore(db: &mut Connection, workers: usize) -> Result<LedgerState, BoxError> {
    let tx = db.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let saved: Vec<String> =
        tx.prepare("SELECT state FROM ledger_state")?.query_map([], |row| row.get(0))?.collect::<Result<_, _>>()?;
    let states = saved.iter().map(|json| serde_json::from_str(json)).collect::<Result<Vec<LedgerState>, _>>()?;
    let union = LedgerState::union(&states);
    let json = serde_json::to_string(&union)?;
    for worker in 0..workers {
        tx.execute(
            "INSERT OR REPLACE INTO ledger_state (worker, state) VALUES (?1, ?2)",
            params![worker as i64, json],
        )?;
    }
    tx.execute("DELETE FROM ledger_state WHERE worker >= ?1", params![workers as i64])?;
    tx.commit()?;
    Ok(union)
}

/// What the workers of a generation are told.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    Run,
    /// Checkpoint what is open, then end.
    Finish,
    /// End now without a checkpoint: another worker failed, all restart.
    Abandon,
}

/// Runs one set of workers until they finish or one fails; returns their
/// counts and the failure.
async fn run_generation(
    args: &Arc<Args>,
    generation: u64,
    union: Arc<LedgerState>,
    consumer: &PullConsumer,
) -> (Counts, Option<String>) {
    let (stop, stopped) = watch::channel(Stop::Run);
    let applied = Arc::new(AtomicU64::new(0));
    let mut workers = JoinSet::new();
    for index in 0..args.workers {
        let worker = WorkerSetup {
            index,
            generation,
            args: args.clone(),
            union: union.clone(),
            stop: stopped.clone(),
            applied: applied.clone(),
        };
        workers.spawn(worker.run());
    }
    let (mut totals, mut failure) = (Counts::default(), None);
    let mut tick = tokio::time::interval(Duration::from_millis(500));
    while !workers.is_empty() {
        tokio::select! {
            Some(end) = workers.join_next() => {
                let (counts, result) = end.unwrap_or_else(|e| (Counts::default(), Err(format!("worker panicked: {e}"))));
                totals.add(&counts);
                if let Err(reason) = result {
                    failure.get_or_insert(reason);
                    stop.send_replace(Stop::Abandon);
                }
            }
            _ = tick.tick(), if *stop.borrow() == Stop::Run => {
                if finished(args, consumer, &applied).await {
                    stop.send_replace(Stop::Finish);
                }
            }
        }
    }
    (totals, failure)
}

/// Whether this run is done: it applied `--max-messages`, or the consumer
/// has nothing left to deliver and every delivery is acked.
async fn finished(args: &Args, consumer: &PullConsumer, applied: &AtomicU64) -> bool {
    if args.max_messages.is_some_and(|max| applied.load(Ordering::Relaxed) >= max) {
        return true;
    }
    if args.forever {
        return false;
    }
    let info = consumer.get_info().await;
    info.is_ok_and(|info| info.num_pending == 0 && info.num_ack_pending == 0)
}

/// One worker's SQLite connection; rusqlite is blocking, so every use runs
/// on tokio's blocking pool.
#[derive(Clone)]
struct Db(Arc<Mutex<Connection>>);

impl Db {
    fn open(args: &Args) -> rusqlite::Result<Db> {
        Ok(Db(Arc::new(Mutex::new(shared::open_db(&args.db)?))))
    }

    async fn run<T, E>(&self, f: impl FnOnce(&mut Connection) -> Result<T, E> + Send + 'static) -> Result<T, E>
    where
        T: Send + 'static,
        E: Send + 'static,
    {
        let db = self.0.clone();
        tokio::task::spawn_blocking(move || f(&mut db.lock().expect("a database user panicked")))
            .await
            .expect("the database task panicked")
    }
}

/// The deltas of one open epoch.
#[derive(Default)]
struct EpochWork {
    /// Per key: count and sum of the values.
    deltas: HashMap<u32, (u64, u64)>,
    /// Message ids, for the crash test's evidence.
    ids: Vec<u64>,
}

impl EpochWork {
    fn add(&mut self, input: Input) {
        let (count, sum) = self.deltas.entry(input.key).or_default();
        *count += 1;
        *sum += input.value;
        self.ids.push(input.id);
    }
}

/// One checkpoint's transaction: the epoch's deltas and the worker's ledger
/// state, together or not at all. (SQLite integers are i64; ours are far below.)
fn save(db: &mut Connection, worker: usize, work: &EpochWork, state: &str) -> rusqlite::Result<()> {
    let tx = db.transaction_with_behavior(TransactionBehavior::Immediate)?;
    {
        let mut add = tx.prepare_cached(
            "INSERT INTO aggregate (key, count, sum) VALUES (?1, ?2, ?3)
             ON CONFLICT (key) DO UPDATE SET count = count + excluded.count, sum = sum + excluded.sum",
        )?;
        for (key, (count, sum)) in &work.deltas {
            add.execute(params![key, *count as i64, *sum as i64])?;
        }
        let mut log = tx.prepare_cached(
            "INSERT INTO applied_log (id, times) VALUES (?1, 1) ON CONFLICT (id) DO UPDATE SET times = times + 1",
        )?;
        for id in &work.ids {
            log.execute(params![*id as i64])?;
        }
    }
    tx.execute("INSERT OR REPLACE INTO ledger_state (worker, state) VALUES (?1, ?2)", params![worker as i64, state])?;
    tx.commit()
}

/// What a ledger did, plus the messages applied.
#[derive(Debug, Default, Clone, Copy)]
struct Counts {
    applied: u64,
    skipped: u64,
    aborted: u64,
    at_risk: u64,
    redelivered: u64,
}

impl Counts {
    fn add(&mut self, other: &Counts) {
        self.applied += other.applied;
        self.skipped += other.skipped;
        self.aborted += other.aborted;
        self.at_risk += other.at_risk;
        self.redelivered += other.redelivered;
    }

    fn fields(&self) -> String {
        format!(
            "applied={} skipped={} aborted={} at_risk={} redelivered={}",
            self.applied, self.skipped, self.aborted, self.at_risk, self.redelivered
        )
    }
}

/// What a worker starts from.
struct WorkerSetup {
    index: usize,
    generation: u64,
    args: Arc<Args>,
    union: Arc<LedgerState>,
    stop: watch::Receiver<Stop>,
    /// Messages applied by this generation, for `--max-messages`.
    applied: Arc<AtomicU64>,
}

/// A running worker: its ledger, database and open epoch.
struct Worker<'a> {
    setup: &'a WorkerSetup,
    ledger: &'a CheckpointLedger,
    db: Db,
    open: EpochWork,
    /// The state last written, to skip writing an unchanged one.
    saved: Option<LedgerState>,
    applied: u64,
}

impl WorkerSetup {
    /// Works until told to stop; returns the counts and why it failed.
    async fn run(self) -> (Counts, Result<(), String>) {
        let mut counts = Counts::default();
        let result = self.work(&mut counts).await.map_err(|e| format!("worker {}: {e}", self.index));
        (counts, result)
    }

    async fn work(&self, counts: &mut Counts) -> Result<(), BoxError> {
        let js = jetstream::new(natsjet::connect(self.args.url.as_str()).await?);
        let consumer: PullConsumer = js.get_stream(&self.args.stream).await?.get_consumer(&self.args.durable).await?;
        let options = LedgerOptions { workers: self.args.workers, batch: BATCH, checkpoint_interval: CHECKPOINT_EVERY };
        let ledger = CheckpointLedger::new(&consumer, options)?;
        for warning in ledger.warnings() {
            eprintln!("worker {}: {warning}", self.index);
        }
        if self.args.restore {
            ledger.restore(std::slice::from_ref(&self.union)).await?;
        }
        let messages = consumer.stream().max_messages_per_batch(BATCH as usize).messages().await?;
        let mut messages = ledger.filter(messages);
        let mut stop = self.stop.clone();
        let mut worker = Worker {
            setup: self,
            ledger: &ledger,
            db: Db::open(&self.args)?,
            open: EpochWork::default(),
            saved: None,
            applied: 0,
        };
        let mut epoch = 1;
        let mut next_checkpoint = Instant::now() + CHECKPOINT_EVERY;
        loop {
            tokio::select! {
                biased;
                changed = stop.changed() => {
                    let order = if changed.is_ok() { *stop.borrow() } else { Stop::Abandon };
                    if order == Stop::Finish {
                        worker.checkpoint(epoch).await?;
                    }
                    if order != Stop::Run {
                        *counts = worker.counts();
                        return Ok(());
                    }
                }
                next = messages.next() => match next {
                    Some(Ok(message)) => worker.take(&message, epoch)?,
                    Some(Err(e)) => eprintln!("worker {}: {e}", self.index), // heartbeats missed and the like: it goes on
                    None => return Err("the consumer's messages ended".into()),
                },
                _ = tokio::time::sleep_until(next_checkpoint) => {}
            }
            if Instant::now() >= next_checkpoint {
                worker.checkpoint(epoch).await?;
                *counts = worker.counts();
                epoch += 1;
                next_checkpoint = Instant::now() + CHECKPOINT_EVERY;
            }
        }
    }
}

impl Worker<'_> {
    /// Applies `message` to the open epoch (in memory until its checkpoint).
    fn take(&mut self, message: &Message, epoch: u64) -> Result<(), BoxError> {
        let input = Input::parse(&message.payload).ok_or("a payload that is not `ID KEY VALUE`")?;
        self.ledger.track(message, epoch)?;
        self.open.add(input);
        Ok(())
    }

    /// Saves the epoch's deltas with the ledger's snapshot, then acks. An
    /// epoch at risk, or one whose transaction failed, is aborted instead.
    /// Acks the server did not confirm are held by the ledger and sent again
    /// with the next commit; refused ones (the consumer is gone) are a failure.
    async fn checkpoint(&mut self, epoch: u64) -> Result<(), BoxError> {
        let state = match self.ledger.snapshot(epoch) {
            Ok(state) => state,
            Err(natsjet::Error::AtRisk { sequences }) => return self.abort(epoch, sequences.len()).await,
            Err(e) => return Err(e.into()),
        };
        let work = std::mem::take(&mut self.open);
        let messages = work.ids.len() as u64;
        if messages > 0 || self.saved.as_ref() != Some(&state) {
            let (worker, json) = (self.setup.index, serde_json::to_string(&state)?);
            if let Err(e) = self.db.run(move |db| save(db, worker, &work, &json)).await {
                eprintln!("worker {worker}: checkpoint of epoch {epoch} failed: {e}");
                return self.abort(epoch, 0).await;
            }
            self.saved = Some(state);
            if let Some(pause) = self.setup.args.pause.filter(|_| messages > 0) {
                println!("{PAUSE_MARKER} worker={worker} epoch={epoch}");
                tokio::time::sleep(pause).await;
            }
        }
        let report = self.ledger.commit(epoch).await?;
        self.applied += messages;
        self.setup.applied.fetch_add(messages, Ordering::Relaxed);
        if let Some((_, why)) = report.refused.first() {
            return Err(format!("epoch {epoch}: {} acks refused: {why}", report.refused.len()).into());
        }
        if !report.unconfirmed.is_empty() {
            println!("worker={} epoch={epoch} unconfirmed={} (sent again)", self.setup.index, report.unconfirmed.len());
        }
        let (generation, worker) = (self.setup.generation, self.setup.index);
        println!("{CHECKPOINT} generation={generation} worker={worker} epoch={epoch} {}", self.counts().fields());
        Ok(())
    }

    /// Drops the open epoch's deltas and naks its messages (if the nak is
    /// lost, they come back after `ack_wait` all the same).
    async fn abort(&mut self, epoch: u64, at_risk: usize) -> Result<(), BoxError> {
        self.open = EpochWork::default();
        let worker = self.setup.index;
        match self.ledger.abort(epoch).await {
            Ok(naked) => println!("aborted worker={worker} epoch={epoch} messages={naked} at_risk={at_risk}"),
            Err(e) => eprintln!("worker {worker}: naks of epoch {epoch} failed: {e}"),
        }
        Ok(())
    }

    fn counts(&self) -> Counts {
        let c = self.ledger.counts();
        Counts {
            applied: self.applied,
            skipped: c.skipped,
            aborted: c.aborted,
            at_risk: c.at_risk,
            redelivered: c.redelivered,
        }
    }
}
