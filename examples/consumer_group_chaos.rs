//! Chaos for consumer groups (`bash scripts/chaos.sh consumer-groups rust`):
//! an elastic group of 8 partitions over a stream of 200 keys; members go
//! 3 → 5 → 2 while 20,000 messages flow, each member instance a separate
//! process; the pinned instance of a member with a standby is killed with
//! SIGKILL, and another's is stalled (SIGSTOP, then SIGCONT once its standby
//! took over). At the end every key's messages must have been processed,
//! in publish order (a redelivery may repeat one already processed, never
//! skip ahead). Prints one line:
//! `consumer-groups: published N, processed N, lost 0, out_of_order 0, redelivered R, failover_ms F, rebalance_ms B`.
//!
//! Usage: consumer_group_chaos [--messages N] ; `consumer_group_chaos member URL NAME` is one instance.
//! The members' `max_ack_pending` is `CHAOS_MAX_ACK_PENDING` (1 unless set; above 1 the partitions are pipelined, order per key kept across the failovers).

#[path = "../tests/common/mod.rs"]
mod common;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, ExitCode, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use common::NatsServer;
use futures_util::StreamExt;
use natsjet::jetstream::api::StreamConfig;
use natsjet::jetstream::consumer::pull;
use natsjet::jetstream::groups::{self, ElasticConfig, Kind, PartitioningFilter};
use natsjet::jetstream::{self, Context};

const KEYS: u64 = 200;
const STREAM: &str = "ORDERS";
const GROUP: &str = "chaos";

fn micros() -> u128 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_micros()
}

/// One member instance: prints `P <micros> <key> <index>` for each message, then acks it.
async fn member(url: &str, name: &str) -> Result<(), natsjet::Error> {
    let js = jetstream::new(natsjet::connect(url).await?);
    // One message in flight per member unless CHAOS_MAX_ACK_PENDING says more (pipelined partitions).
    let max_ack_pending = std::env::var("CHAOS_MAX_ACK_PENDING").ok().and_then(|s| s.parse().ok()).unwrap_or(1);
    let template = pull::Config { ack_wait: Duration::from_secs(2), max_ack_pending, ..Default::default() };
    let mut joined = groups::join(&js, Kind::Elastic, STREAM, GROUP, name, template).await?;
    let mut out = std::io::stdout().lock();
    while let Some(message) = joined.next().await {
        let Ok(message) = message else { continue };
        let text = String::from_utf8_lossy(&message.payload).to_string();
        let (key, index) = text.split_once(':').unwrap_or(("?", "0"));
        writeln!(out, "P {} {key} {index}", micros()).ok();
        out.flush().ok();
        let _ = message.ack().await;
    }
    Ok(())
}

/// A member process and the lines it printed, tagged.
struct Instance {
    tag: String,
    child: Child,
}

fn spawn(url: &str, name: &str, tag: &str, lines: mpsc::Sender<(String, String)>) -> Instance {
    let me = std::env::current_exe().expect("this program");
    let mut child =
        Command::new(me).args(["member", url, name]).stdout(Stdio::piped()).spawn().expect("a member process");
    let stdout = child.stdout.take().expect("its stdout");
    let owned = tag.to_string();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if lines.send((owned.clone(), line)).is_err() {
                return;
            }
        }
    });
    Instance { tag: tag.into(), child }
}

/// Lines processed: (micros, tag, key, index).
#[derive(Default)]
struct Seen {
    rows: Vec<(u128, String, u64, u64)>,
    done: BTreeMap<u64, u64>,
}

impl Seen {
    fn take(&mut self, lines: &Receiver<(String, String)>) {
        while let Ok((tag, line)) = lines.try_recv() {
            let parts: Vec<&str> = line.split(' ').collect();
            if let ["P", at, key, index] = parts[..] {
                let key: u64 = key.trim_start_matches('k').parse().unwrap_or(u64::MAX);
                let index: u64 = index.parse().unwrap_or(0);
                let next = self.done.entry(key).or_default();
                *next = (*next).max(index + 1);
                self.rows.push((at.parse().unwrap_or(0), tag, key, index));
            }
        }
    }

    fn processed(&self) -> u64 {
        self.done.values().sum()
    }

    /// When `tag` (any of `tags`) first processed a message after `since`.
    fn first_after(&self, tags: &[&str], since: u128) -> Option<u128> {
        self.rows.iter().filter(|r| r.0 >= since && tags.contains(&r.1.as_str())).map(|r| r.0).min()
    }
}

async fn wait_until(seen: &mut Seen, lines: &Receiver<(String, String)>, what: &str, done: impl Fn(&Seen) -> bool) {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        seen.take(lines);
        if done(seen) {
            return;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}: processed {}", seen.processed());
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn run(total: u64) -> Result<bool, natsjet::Error> {
    let server = NatsServer::start_jetstream();
    let url = server.client_url();
    let js: Context = jetstream::new(natsjet::connect(url.as_str()).await?);
    js.create_stream(StreamConfig { name: STREAM.into(), subjects: vec!["orders.*".into()], ..Default::default() })
        .await?;
    let filter = PartitioningFilter { filter: "orders.*".into(), partitioning_wildcards: Some(vec![1]) };
    let config = ElasticConfig { max_members: 8, partitioning_filters: Some(vec![filter]), ..Default::default() };
    groups::create_elastic(&js, STREAM, GROUP, config).await?;
    let names = |n: &[&str]| n.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    groups::add_members(&js, STREAM, GROUP, &names(&["m1", "m2", "m3"])).await?;
    let (tx, lines) = mpsc::channel();
    let mut instances: Vec<Instance> =
        [("m1", "m1a"), ("m1", "m1b"), ("m2", "m2a"), ("m2", "m2b"), ("m3", "m3"), ("m4", "m4"), ("m5", "m5")]
            .iter()
            .map(|(name, tag)| spawn(&url, name, tag, tx.clone()))
            .collect();
    let publisher = {
        let js = js.clone();
        tokio::spawn(async move {
            for i in 0..total {
                let (key, index) = (i % KEYS, i / KEYS);
                let ack = js.publish(format!("orders.k{key}"), format!("k{key}:{index}").into()).await;
                let _ = ack.expect("publish").await.expect("stored");
            }
        })
    };
    let mut seen = Seen::default();
    wait_until(&mut seen, &lines, "a quarter", |s| s.processed() >= total / 4).await;
    // 3 → 5 members.
    let grown = micros();
    groups::add_members(&js, STREAM, GROUP, &names(&["m4", "m5"])).await?;
    wait_until(&mut seen, &lines, "the new members", |s| s.first_after(&["m4", "m5"], grown).is_some()).await;
    let rebalance_ms = (seen.first_after(&["m4", "m5"], grown).unwrap() - grown) / 1000;
    wait_until(&mut seen, &lines, "half", |s| s.processed() >= total / 2).await;
    // Kill m1's active instance (the one that processed last).
    let active = seen.rows.iter().rev().find(|r| r.1.starts_with("m1")).map(|r| r.1.clone()).unwrap_or("m1a".into());
    let standby = if active == "m1a" { "m1b" } else { "m1a" };
    let killed = micros();
    if let Some(instance) = instances.iter_mut().find(|i| i.tag == active) {
        instance.child.kill().ok();
        instance.child.wait().ok();
    }
    wait_until(&mut seen, &lines, "m1's standby", |s| s.first_after(&[standby], killed).is_some()).await;
    let failover_ms = (seen.first_after(&[standby], killed).unwrap() - killed) / 1000;
    wait_until(&mut seen, &lines, "60 %", |s| s.processed() >= total * 6 / 10).await;
    // Stall m2's active instance; its standby takes over once the pin lapses.
    let active = seen.rows.iter().rev().find(|r| r.1.starts_with("m2")).map(|r| r.1.clone()).unwrap_or("m2a".into());
    let standby = if active == "m2a" { "m2b" } else { "m2a" };
    let stalled = micros();
    let pid = instances.iter().find(|i| i.tag == active).map(|i| i.child.id() as i32);
    signal(pid, libc::SIGSTOP);
    wait_until(&mut seen, &lines, "m2's standby", |s| s.first_after(&[standby], stalled).is_some()).await;
    println!(
        "stalled {active} replaced by {standby} after {} ms",
        (seen.first_after(&[standby], stalled).unwrap() - stalled) / 1000
    );
    signal(pid, libc::SIGCONT);
    wait_until(&mut seen, &lines, "70 %", |s| s.processed() >= total * 7 / 10).await;
    // 5 → 2 members.
    groups::drop_members(&js, STREAM, GROUP, &names(&["m1", "m3", "m5"])).await?;
    publisher.await.expect("the publisher");
    wait_until(&mut seen, &lines, "every message", |s| s.processed() >= total).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    seen.take(&lines);
    // Order per key by processing time (a member prints before it acks, and
    // the next message of its partition comes only after that ack).
    seen.rows.sort_by_key(|r| r.0);
    let (mut out_of_order, mut redelivered) = (0u64, 0u64);
    let mut next: BTreeMap<u64, u64> = BTreeMap::new();
    for (_, _, key, index) in &seen.rows {
        let n = next.entry(*key).or_default();
        if *index == *n {
            *n += 1;
        } else if *index < *n {
            redelivered += 1;
        } else {
            out_of_order += 1;
            *n = index + 1;
        }
    }
    let processed: u64 = next.values().sum();
    let lost = total.saturating_sub(processed);
    println!(
        "consumer-groups: published {total}, processed {processed}, lost {lost}, out_of_order {out_of_order}, \
         redelivered {redelivered}, failover_ms {failover_ms}, rebalance_ms {rebalance_ms}"
    );
    groups::delete(&js, Kind::Elastic, STREAM, GROUP).await?;
    for mut instance in instances {
        let _ = instance.child.kill();
        let _ = instance.child.wait();
    }
    Ok(lost == 0 && out_of_order == 0)
}

fn signal(pid: Option<i32>, signal: i32) {
    if let Some(pid) = pid {
        // SAFETY: kill(2) on a child process this program started and still owns.
        unsafe { libc::kill(pid, signal) };
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("member") {
        return match member(&args[1], &args[2]).await {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("member {}: {e}", args[2]);
                ExitCode::FAILURE
            }
        };
    }
    let total = match args.iter().position(|a| a == "--messages") {
        Some(i) => args.get(i + 1).and_then(|n| n.parse().ok()).unwrap_or(20_000),
        None => 20_000,
    };
    match run(total).await {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("consumer-groups: {e}");
            ExitCode::FAILURE
        }
    }
}
