//! The crash test of the exactly-once example: it starts its own
//! nats-server, creates the stream and the shared durable, publishes
//! messages in the background (acked, a window of 256, each with a message
//! id so a resend after the server's restart is stored once), and meanwhile
//! runs `exactly_once` (the binary next to this one) and kills it with
//! SIGKILL again and again: at random moments, and right after a worker said
//! it is between its database commit and its acks. Worker counts cycle
//! 4 → 6 → 3 → 4; the server restarts on its store once, mid-run. The last
//! run drains the consumer; then the SQLite aggregate must equal the exact
//! aggregate of everything published.
//!
//! Usage: exactly_once_crash [--messages N] [--kills K] [--window-kills W]
//!        [--stalls N] [--publish-seconds S] [--final-timeout SECS]
//!
//! Defaults: 100,000 messages, 10 kills of which 5 in the pause window.
//! Publishing is spread over S seconds (15 by default) so that every run
//! until the last has work in flight when it is killed. `--stalls N` also
//! freezes the first N runs (SIGSTOP) for longer than `ack_wait` before
//! their kill: a long GC pause or a VM migration.
//!
//! Last line: `exactly-once: published N, applied N, duplicates D, lost L,
//! kills K, restores R, skipped S, aborted A`. Exit status 1 if anything was
//! applied twice or lost. With `NATSJET_NO_RESTORE=1` (passed on to the
//! example) the run must show duplicates instead: it proves the test can
//! fail. `NATSJET_SEED` repeats a run's random choices.

#[path = "../../tests/common/mod.rs"]
mod common;
mod shared;

use std::collections::{HashMap, VecDeque};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use common::NatsServer;
use natsjet::jetstream::api::{AckPolicy, ConsumerConfig, StreamConfig};
use natsjet::jetstream::{self, Context, Publish};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use shared::{CHECKPOINT, DONE, Input, PAUSE_MARKER, READY, field};

const STREAM: &str = "EO";
const DURABLE: &str = "eo-workers";
const SUBJECT: &str = "eo.in";
/// Publishes awaiting their ack.
const WINDOW: usize = 256;
/// Worker counts of consecutive runs.
const WORKER_CYCLE: [usize; 4] = [4, 6, 3, 4];
/// Keys of the aggregate.
const KEYS: u64 = 64;
const ACK_WAIT: Duration = Duration::from_secs(10);
/// How long a worker waits between its database commit and its acks, in
/// the runs killed there.
const PAUSE_MS: &str = "300";
const USAGE: &str = "usage: exactly_once_crash [--messages N] [--kills K] [--window-kills W] [--stalls N] \
                     [--publish-seconds S] [--final-timeout SECS]";

struct Config {
    messages: u64,
    kills: usize,
    window_kills: usize,
    /// Runs frozen (SIGSTOP) for longer than `ack_wait` before their kill.
    stalls: usize,
    publish_time: Duration,
    final_timeout: Duration,
    restore: bool,
    seed: u64,
}

fn parse_args() -> Result<Config, String> {
    let mut config = Config {
        messages: 100_000,
        kills: 10,
        window_kills: 5,
        stalls: 0,
        publish_time: Duration::from_secs(15),
        final_timeout: Duration::from_secs(120),
        restore: std::env::var("NATSJET_NO_RESTORE").as_deref() != Ok("1"),
        seed: std::env::var("NATSJET_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(time_seed),
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let value: u64 = args.next().and_then(|v| v.parse().ok()).ok_or(format!("{arg} needs a number"))?;
        match arg.as_str() {
            "--messages" => config.messages = value,
            "--kills" => config.kills = value as usize,
            "--window-kills" => config.window_kills = value as usize,
            "--stalls" => config.stalls = value as usize,
            "--publish-seconds" => config.publish_time = Duration::from_secs(value),
            "--final-timeout" => config.final_timeout = Duration::from_secs(value),
            _ => return Err(format!("unknown argument {arg}")),
        }
    }
    Ok(config)
}

fn time_seed() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64)
}

/// Message `id` of the run with `seed`: computed again for the check, not stored.
fn input(seed: u64, id: u64) -> Input {
    let r: u64 = StdRng::seed_from_u64(seed ^ id.wrapping_mul(0xA24B_AED4_963E_E407)).r#gen();
    Input { id, key: (r % KEYS) as u32, value: 1 + (r >> 32) % 1000 }
}

fn main() -> ExitCode {
    let config = match parse_args() {
        Ok(config) => config,
        Err(e) => {
            eprintln!("{e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    println!(
        "seed {} (NATSJET_SEED={0} repeats it), restore {}",
        config.seed,
        if config.restore { "on" } else { "off" }
    );
    let outcome = crash_test(&config);
    for problem in &outcome.problems {
        println!("problem: {problem}");
    }
    println!("{}", outcome.line());
    if outcome.passed(config.restore) { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}

/// Publishes, kills and restarts, lets the last run finish, and checks.
fn crash_test(config: &Config) -> Outcome {
    let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
    let mut server = NatsServer::builder().jetstream().start();
    let url = server.client_url();
    let db = server.dir().join("exactly_once.sqlite3");
    let js = runtime.block_on(create_stream(&url)).expect("create the stream and the durable");
    let started = Instant::now();
    let publisher = runtime.spawn(publish_all(js.clone(), config.seed, config.messages, config.publish_time));
    let mut rng = StdRng::seed_from_u64(config.seed);
    let mut outcome = Outcome::default();
    for run in 0..config.kills {
        let (report, moment) = killed_run(config, run, &mut server, &db, &mut rng);
        outcome.add_run(report);
        let (workers, at) = (WORKER_CYCLE[run % 4], started.elapsed().as_secs_f64());
        println!("run {run}: {workers} workers, killed {moment} at {at:.1} s");
    }
    let published = runtime.block_on(publisher).expect("the publisher panicked");
    println!("published {published} at {:.1} s", started.elapsed().as_secs_f64());
    let mut last = Example::start(&url, &db, WORKER_CYCLE[config.kills % 4], false, false);
    let finished = last.wait_for(DONE, config.final_timeout);
    outcome.add_run(last.finish());
    println!(
        "last run {} at {:.1} s",
        if finished { "finished" } else { "timed out" },
        started.elapsed().as_secs_f64()
    );
    let stored = runtime.block_on(stored_messages(&js));
    outcome.check(&db, config.seed, published, stored);
    outcome
}

/// Run `run` of the example, killed: at a random moment, or (spread evenly
/// over the runs, `--window-kills` of them) right after a worker said it is
/// between its database commit and its acks. The server restarts during
/// the middle run. Returns what it said and where it was killed.
fn killed_run(
    config: &Config,
    run: usize,
    server: &mut NatsServer,
    db: &Path,
    rng: &mut StdRng,
) -> (RunReport, &'static str) {
    let in_window = run * config.window_kills / config.kills != (run + 1) * config.window_kills / config.kills;
    let mut example = Example::start(&server.client_url(), db, WORKER_CYCLE[run % 4], in_window, true);
    if run == config.kills / 2 {
        std::thread::sleep(Duration::from_millis(rng.gen_range(200..1000)));
        server.restart();
        println!("run {run}: nats-server restarted on its store");
    }
    example.pump_for(Duration::from_millis(rng.gen_range(50..if in_window { 2000 } else { 2500 })));
    if run < config.stalls {
        example.stall(ACK_WAIT + Duration::from_secs(2));
        println!("run {run}: frozen for longer than ack_wait");
        example.pump_for(Duration::from_secs(2));
    }
    // Whatever a worker holds comes back within ack_wait: a pause window opens by then, or no work is left.
    let seen = in_window && example.wait_for(PAUSE_MARKER, ACK_WAIT + Duration::from_secs(5));
    (example.kill(), if seen { "in the pause window" } else { "at a random moment" })
}

/// The stream and the shared durable (AckExplicit).
async fn create_stream(url: &str) -> Result<Context, natsjet::Error> {
    let js = jetstream::new(natsjet::connect(url).await?);
    let stream = js
        .create_stream(StreamConfig { name: STREAM.into(), subjects: vec!["eo.>".into()], ..Default::default() })
        .await?;
    let durable = ConsumerConfig {
        durable_name: Some(DURABLE.into()),
        ack_policy: AckPolicy::Explicit,
        ack_wait: ACK_WAIT,
        max_ack_pending: 20_000,
        ..Default::default()
    };
    stream.create_consumer(durable).await?;
    Ok(js)
}

/// Publishes ids `0..total` evenly over `time`, at most [`WINDOW`] awaiting
/// their ack, until the stream acked every one; a failed publish goes again
/// with the same message id (the stream's duplicate window stores it once).
async fn publish_all(js: Context, seed: u64, total: u64, time: Duration) -> u64 {
    js.set_max_ack_inflight(WINDOW);
    let start = tokio::time::Instant::now();
    let mut todo: VecDeque<u64> = (0..total).collect();
    let mut in_flight = VecDeque::new();
    loop {
        if in_flight.len() < WINDOW {
            if let Some(id) = todo.pop_front() {
                if id % 100 == 0 {
                    tokio::time::sleep_until(start + time.mul_f64(id as f64 / total as f64)).await;
                }
                let publish = Publish::build().payload(input(seed, id).payload().into()).message_id(id.to_string());
                match js.send_publish(SUBJECT, publish).await {
                    Ok(ack) => {
                        in_flight.push_back((id, ack));
                        continue;
                    }
                    Err(_) => todo.push_front(id),
                }
            }
        }
        match in_flight.pop_front() {
            Some((id, ack)) => {
                if ack.await.is_err() {
                    todo.push_back(id);
                }
            }
            None if todo.is_empty() => return total,
            None => tokio::time::sleep(Duration::from_millis(50)).await, // disconnected: the client refuses for now
        }
    }
}

/// Messages the stream holds: each published id exactly once, or the check means nothing.
async fn stored_messages(js: &Context) -> Option<u64> {
    let stream = js.get_stream(STREAM).await.ok()?;
    Some(stream.get_info().await.ok()?.state.messages)
}

/// One process of the example, its stdout read line by line.
struct Example {
    child: Child,
    lines: Receiver<String>,
    report: RunReport,
}

/// What one process said about itself.
#[derive(Default)]
struct RunReport {
    /// The counts of each worker's last checkpoint, by generation and worker.
    workers: HashMap<(u64, u64), Counts>,
    /// Starts of workers that restored a non-empty state.
    restores: u64,
    /// The counts of the `done` line, when it got that far.
    done: Option<Counts>,
    killed: bool,
    /// Ended on its own: with an error, or done.
    exit: Option<std::process::ExitStatus>,
}

impl Example {
    fn start(url: &str, db: &Path, workers: usize, pause: bool, forever: bool) -> Example {
        let mut command = Command::new(example_binary());
        command.arg(url).arg(db).arg(workers.to_string()).args(["--stream", STREAM, "--durable", DURABLE]);
        if forever {
            command.arg("--forever");
        }
        if pause {
            command.env("NATSJET_PAUSE_AFTER_DB_COMMIT_MS", PAUSE_MS);
        } else {
            command.env_remove("NATSJET_PAUSE_AFTER_DB_COMMIT_MS");
        }
        let mut child = command.stdout(Stdio::piped()).spawn().expect("start the exactly_once example");
        let stdout = child.stdout.take().expect("its stdout");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        let mut example = Example { child, lines, report: RunReport::default() };
        example.wait_for(READY, Duration::from_secs(30));
        example
    }

    /// Reads lines until one starts with `prefix` (true) or `timeout` passes
    /// or the process ends (false).
    fn wait_for(&mut self, prefix: &str, timeout: Duration) -> bool {
        self.read_until(timeout, |line| line.starts_with(prefix))
    }

    /// Reads lines for `time` (less if the process ends).
    fn pump_for(&mut self, time: Duration) {
        self.read_until(time, |_| false);
    }

    fn read_until(&mut self, timeout: Duration, wanted: impl Fn(&str) -> bool) -> bool {
        let deadline = Instant::now() + timeout;
        loop {
            match self.lines.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(line) => {
                    self.report.read(&line);
                    if wanted(&line) {
                        return true;
                    }
                }
                Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => return false,
            }
        }
    }

    /// Freezes the process for `time` (a long GC pause, a VM migration):
    /// its `+WPI`s stop and the server redelivers what it holds.
    fn stall(&mut self, time: Duration) {
        let pid = self.child.id() as libc::pid_t;
        // SAFETY: signals to our own child, which we have not waited for yet.
        unsafe { libc::kill(pid, libc::SIGSTOP) };
        std::thread::sleep(time);
        unsafe { libc::kill(pid, libc::SIGCONT) };
    }

    /// SIGKILL, unless it already ended.
    fn kill(mut self) -> RunReport {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            self.report.killed = true;
        }
        self.finish()
    }

    /// Waits for the end (killing it after 10 s) and reads what it printed until then.
    fn finish(mut self) -> RunReport {
        let deadline = Instant::now() + Duration::from_secs(10);
        while !self.report.killed && matches!(self.child.try_wait(), Ok(None)) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let status = self.child.wait().expect("wait for the example");
        while let Ok(line) = self.lines.recv_timeout(Duration::from_secs(5)) {
            self.report.read(&line);
        }
        if !self.report.killed {
            self.report.exit = Some(status);
        }
        std::mem::take(&mut self.report)
    }
}

/// No example outlives the test (it would reconnect forever).
impl Drop for Example {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl RunReport {
    /// Takes in one line; echoes the rare ones (aborts, restarts, the end).
    fn read(&mut self, line: &str) {
        if !line.starts_with(CHECKPOINT) && !line.starts_with(PAUSE_MARKER) {
            println!("  | {line}");
        }
        let counts =
            || Counts { skipped: field(line, "skipped").unwrap_or(0), aborted: field(line, "aborted").unwrap_or(0) };
        if line.starts_with(CHECKPOINT) {
            let at = (field(line, "generation").unwrap_or(0), field(line, "worker").unwrap_or(0));
            self.workers.insert(at, counts());
        } else if line.starts_with(READY) {
            self.restores += u64::from(field(line, "restored").is_some_and(|n| n > 0));
        } else if line.starts_with(DONE) {
            self.done = Some(counts());
        }
    }

    /// Every worker's counts: the last line's, or (killed) the sum of each worker's last checkpoint.
    fn counts(&self) -> Counts {
        self.done.unwrap_or_else(|| self.workers.values().fold(Counts::default(), |sum, c| sum.plus(c)))
    }
}

/// The example's binary, built next to this one (target/<profile>/examples).
fn example_binary() -> PathBuf {
    let me = std::env::current_exe().expect("the path of this program");
    me.with_file_name(format!("exactly_once{}", std::env::consts::EXE_SUFFIX))
}

/// What the example's ledgers reported.
#[derive(Debug, Default, Clone, Copy)]
struct Counts {
    skipped: u64,
    aborted: u64,
}

impl Counts {
    fn plus(self, other: &Counts) -> Counts {
        Counts { skipped: self.skipped + other.skipped, aborted: self.aborted + other.aborted }
    }
}

/// The figures of the final line, and what else went wrong.
#[derive(Default)]
struct Outcome {
    published: u64,
    applied: u64,
    duplicates: u64,
    lost: u64,
    kills: u64,
    restores: u64,
    reported: Counts,
    /// Problems that fail the test whatever the mode.
    problems: Vec<String>,
}

impl Outcome {
    fn add_run(&mut self, run: RunReport) {
        self.kills += u64::from(run.killed);
        self.restores += run.restores;
        self.reported = self.reported.plus(&run.counts());
        match run.exit {
            Some(status) if !status.success() => self.problems.push(format!("an example run failed: {status}")),
            Some(_) if run.done.is_none() => self.problems.push("an example run ended without its done line".into()),
            _ => {}
        }
    }

    /// Compares the database with what was published.
    fn check(&mut self, db: &Path, seed: u64, published: u64, stored: Option<u64>) {
        self.published = published;
        if stored != Some(published) {
            self.problems.push(format!("the stream holds {stored:?} messages for {published} ids"));
        }
        let (aggregate, log) = read_db(db).expect("read the database");
        self.applied = aggregate.values().map(|&(count, _)| count).sum();
        self.duplicates = log.values().map(|&times| times.saturating_sub(1)).sum();
        self.lost = (0..published).filter(|id| !log.contains_key(id)).count() as u64;
        let exact = fold((0..published).map(|id| (input(seed, id), 1)));
        let logged = fold(log.iter().map(|(&id, &times)| (input(seed, id), times)));
        if aggregate != logged {
            self.problems.push("the aggregate disagrees with the log written in the same transactions".into());
        }
        if self.duplicates == 0 && self.lost == 0 && aggregate != exact {
            self.problems.push("the aggregate differs from the exact aggregate of what was published".into());
        }
    }

    fn line(&self) -> String {
        format!(
            "exactly-once: published {}, applied {}, duplicates {}, lost {}, kills {}, restores {}, skipped {}, aborted {}",
            self.published,
            self.applied,
            self.duplicates,
            self.lost,
            self.kills,
            self.restores,
            self.reported.skipped,
            self.reported.aborted
        )
    }

    /// Restore on: nothing twice, nothing lost. Off: something twice (the
    /// test can fail), still nothing lost.
    fn passed(&self, restore: bool) -> bool {
        let duplicates_ok = if restore { self.duplicates == 0 } else { self.duplicates > 0 };
        self.problems.is_empty() && self.lost == 0 && duplicates_ok
    }
}

type Aggregate = HashMap<u32, (u64, u64)>;

/// Per key, count and sum of `inputs`, each counted `times`.
fn fold(inputs: impl Iterator<Item = (Input, u64)>) -> Aggregate {
    let mut aggregate = Aggregate::new();
    for (input, times) in inputs {
        let (count, sum) = aggregate.entry(input.key).or_default();
        *count += times;
        *sum += input.value * times;
    }
    aggregate
}

/// The aggregate and the log of applied ids (id → times).
fn read_db(path: &Path) -> rusqlite::Result<(Aggregate, HashMap<u64, u64>)> {
    let db = shared::open_db(path)?;
    let aggregate = db
        .prepare("SELECT key, count, sum FROM aggregate")?
        .query_map([], |row| Ok((row.get(0)?, (int(row, 1)?, int(row, 2)?))))?
        .collect::<Result<_, _>>()?;
    let log = db
        .prepare("SELECT id, times FROM applied_log")?
        .query_map([], |row| Ok((int(row, 0)?, int(row, 1)?)))?
        .collect::<Result<_, _>>()?;
    Ok((aggregate, log))
}

/// Column `i` of `row` (SQLite's integers are i64; these are never negative).
fn int(row: &rusqlite::Row, i: usize) -> rusqlite::Result<u64> {
    row.get::<_, i64>(i).map(|n| n as u64)
}
