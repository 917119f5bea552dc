//! Worker processes killed with SIGKILL in the middle of a commit: three
//! `worker_process` examples share a durable consumer; one, behind a
//! proxy, says it is committing, the proxy lets part of the commit's acks
//! through and holds the rest, and the test kills the process there. After
//! ack_wait the survivors get everything it never acked; nothing is lost.
//! Runs once with an `AckBatch` commit, once with a `CheckpointLedger` one.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use common::{FaultProxy, LossLedger, NatsServer, publish_with_retries, wait_for};
use natsjet::jetstream::api::{AckPolicy, ConsumerConfig, StreamConfig};
use natsjet::jetstream::{self, Context};

const COUNT: u64 = 3_000;
const WAIT: Duration = Duration::from_secs(45);
/// Bytes of the victim's commit let through: a few acks of the ~50 it sends.
const PARTIAL_COMMIT: u64 = 600;

/// The worker binary, built once per test run (a no-op when up to date).
fn worker_binary() -> &'static PathBuf {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let status = Command::new(cargo)
            .args(["build", "--quiet", "--example", "worker_process"])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .status()
            .expect("run cargo build");
        assert!(status.success(), "building the worker_process example failed");
        // tests run from target/<profile>/deps; examples sit in target/<profile>/examples.
        let exe = std::env::current_exe().unwrap();
        exe.parent().unwrap().parent().unwrap().join("examples").join("worker_process")
    })
}

/// One worker process; killed on drop (also when the test panics).
struct Worker {
    child: Child,
    stdin: ChildStdin,
    lines: mpsc::Receiver<String>,
    /// Every line it printed, for the failure message.
    transcript: Arc<Mutex<Vec<String>>>,
}

impl Worker {
    /// Starts a worker on `url`; every `committing` line goes into `ledger`.
    fn spawn(url: &str, mode: &str, gated: bool, ledger: &LossLedger) -> Worker {
        let mut cmd = Command::new(worker_binary());
        cmd.args([url, "WP", "work", mode]);
        if gated {
            cmd.arg("gated");
        }
        let mut child = cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().expect("start worker_process");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        let transcript = Arc::new(Mutex::new(Vec::new()));
        let (ledger, kept) = (ledger.clone(), transcript.clone());
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Some(ids) = line.strip_prefix("committing ") {
                    for (id, delivered) in ids.split(' ').filter_map(|w| w.split_once('/')) {
                        ledger.consumed(id.parse().unwrap(), delivered.parse().unwrap());
                    }
                }
                kept.lock().unwrap().push(line.split(' ').take(2).collect::<Vec<_>>().join(" "));
                // The test may have stopped listening: keep reading so the worker never blocks on stdout.
                let _ = tx.send(line);
            }
        });
        Worker { child, stdin, lines, transcript }
    }

    /// The next line that starts with `prefix`, within `WAIT`.
    fn expect_line(&self, prefix: &str) -> String {
        loop {
            match self.lines.recv_timeout(WAIT) {
                Ok(line) if line.starts_with(prefix) => return line,
                Ok(_) => {}
                Err(e) => panic!("no `{prefix}` line ({e}); worker said {:?}", self.transcript.lock().unwrap()),
            }
        }
    }

    fn kill(&mut self) {
        let _ = self.child.kill(); // SIGKILL
        let _ = self.child.wait();
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.kill();
    }
}

async fn setup(server: &NatsServer, ledger: &LossLedger) -> Context {
    let js = jetstream::new(natsjet::connect(server.client_url()).await.unwrap());
    let config = StreamConfig { name: "WP".into(), subjects: vec!["WP.>".into()], ..Default::default() };
    js.create_stream(config).await.unwrap();
    tokio::time::timeout(WAIT, publish_with_retries(&js, "WP", 0..COUNT, ledger, |_| {})).await.unwrap();
    let consumer = ConsumerConfig {
        durable_name: Some("work".into()),
        ack_policy: AckPolicy::Explicit,
        ack_wait: Duration::from_secs(2),
        max_ack_pending: 1_000,
        ..Default::default()
    };
    js.get_stream("WP").await.unwrap().create_consumer(consumer).await.unwrap();
    js
}

async fn killed_mid_commit(mode: &str) {
    let server = NatsServer::start_jetstream();
    let ledger = LossLedger::new();
    let js = setup(&server, &ledger).await;
    let proxy = FaultProxy::start(server.port());

    // The victim alone first, so its first commit is a full one.
    let mut victim = Worker::spawn(&proxy.nats_url(), mode, true, &ledger);
    victim.expect_line("ready");
    let committing = victim.expect_line("committing ");
    let held = committing.split(' ').count() - 1;
    proxy.pass_up_then_stall(PARTIAL_COMMIT);
    writeln!(victim.stdin, "go").unwrap();
    wait_for(WAIT, "part of the commit through the proxy", || proxy.up_stalled().then_some(()));
    victim.kill();
    let said = victim.transcript.lock().unwrap().clone();
    assert!(!said.iter().any(|l| l.starts_with("committed")), "killed before the commit ended: {said:?}");

    let survivors: Vec<Worker> = (0..2).map(|_| Worker::spawn(&server.client_url(), mode, false, &ledger)).collect();
    let stream = js.get_stream("WP").await.unwrap();
    let drained = tokio::time::timeout(WAIT, async {
        loop {
            let info = stream.consumer_info("work").await.unwrap();
            if info.ack_floor.stream_sequence == COUNT && info.num_ack_pending == 0 && info.num_pending == 0 {
                return;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    });
    drained.await.unwrap_or_else(|_| panic!("not drained; {:?}", ledger.report()));
    drop(survivors);
    let report = ledger.check(&format!("worker killed mid-{mode}-commit ({held} held)"), 1_000);
    assert!(report.redelivered > 0, "what the victim never acked came back redelivered");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_killed_mid_ack_batch_commit_loses_nothing() {
    killed_mid_commit("ackbatch").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_killed_mid_checkpoint_ledger_commit_loses_nothing() {
    killed_mid_commit("ledger").await;
}
