#![allow(dead_code)] // each benchmark uses a part of this module
//! Shared by the benchmarks: scaling, CPU accounting and the printed table.
//!
//! Both clients run in this process against the same server, so the CPU time
//! this process spends per message (user + system, from getrusage) is the
//! client's cost; the server's is in its own process. On a small machine the
//! server's share decides throughput, so the table shows both.

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// `n` times `BENCH_SCALE` (default 1).
pub fn scale(n: usize) -> usize {
    let s: f64 = std::env::var("BENCH_SCALE").ok().and_then(|s| s.parse().ok()).unwrap_or(1.0);
    ((n as f64) * s).max(1.0) as usize
}

fn cpu_time() -> Duration {
    // SAFETY: getrusage only writes into the struct we pass.
    let usage = unsafe {
        let mut usage = std::mem::zeroed::<libc::rusage>();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage
    };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

/// The nats-server process whose CPU time runs also record (0: none).
static SERVER_PID: AtomicU32 = AtomicU32::new(0);

/// Makes every [`Run`] also record the CPU time of process `pid` (the server).
pub fn watch_server(pid: Option<u32>) {
    SERVER_PID.store(pid.unwrap_or(0), Ordering::Relaxed);
}

/// CPU time of the watched server so far: Linux only (/proc, 10 ms ticks).
fn server_cpu_time() -> Option<Duration> {
    let pid = SERVER_PID.load(Ordering::Relaxed);
    if pid == 0 {
        return None;
    }
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let fields: Vec<&str> = stat.rsplit_once(") ")?.1.split(' ').collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some(Duration::from_millis(ticks * 10))
}

/// Throughput and client CPU of one run of `count` operations, and the
/// watched server's CPU per operation and share of one core (NaN: unknown).
#[derive(Debug, Clone, Copy)]
pub struct Run {
    pub per_second: f64,
    pub cpu_us_per_op: f64,
    pub server_us_per_op: f64,
    pub server_share: f64,
}

/// Wall and CPU clocks started together; `stop` turns them into a [`Run`].
pub struct Stopwatch {
    cpu: Duration,
    server: Option<Duration>,
    wall: Instant,
}

impl Stopwatch {
    pub fn start() -> Self {
        Stopwatch { cpu: cpu_time(), server: server_cpu_time(), wall: Instant::now() }
    }

    /// The run of `count` operations since `start`.
    pub fn stop(self, count: usize) -> Run {
        let (cpu, wall) = (cpu_time() - self.cpu, self.wall.elapsed());
        let server = server_cpu_time().zip(self.server).map(|(end, start)| end.saturating_sub(start));
        let server_secs = server.map_or(f64::NAN, |d| d.as_secs_f64());
        Run {
            per_second: count as f64 / wall.as_secs_f64(),
            cpu_us_per_op: cpu.as_secs_f64() * 1e6 / count as f64,
            server_us_per_op: server_secs * 1e6 / count as f64,
            server_share: server_secs / wall.as_secs_f64(),
        }
    }
}

/// The best of `times` runs (highest throughput).
pub fn best(times: usize, mut run: impl FnMut() -> Run) -> Run {
    (0..times).map(|_| run()).max_by(|a, b| a.per_second.total_cmp(&b.per_second)).expect("at least one run")
}

pub fn header() {
    println!(
        "| {:<50} | {:>13} | {:>13} | {:>6} | {:>15} | {:>15} |",
        "workload", "natsjet /s", "async-nats /s", "ratio", "natsjet CPU/op", "async-nats CPU"
    );
    println!("|{:-<52}|{:-<15}|{:-<15}|{:-<8}|{:-<17}|{:-<17}|", "", "", "", "", "", "");
}

pub fn row(name: &str, ours: Run, theirs: Run) {
    println!(
        "| {name:<50} | {:>13.0} | {:>13.0} | {:>5.2}x | {:>12.2} µs | {:>12.2} µs |",
        ours.per_second,
        theirs.per_second,
        ours.per_second / theirs.per_second,
        ours.cpu_us_per_op,
        theirs.cpu_us_per_op
    );
}

/// The server's side of some rows: its CPU per operation and its share of
/// one core during each client's run (a server near one core is the bound).
pub fn server_table(rows: &[(String, Run, Run)]) {
    println!();
    println!("| {:<50} | {:>22} | {:>22} |", "workload (nats-server CPU/op, % of a core)", "natsjet", "async-nats");
    println!("|{:-<52}|{:-<24}|{:-<24}|", "", "", "");
    let cell = |r: &Run| format!("{:.2} µs, {:.0}%", r.server_us_per_op, r.server_share * 100.0);
    for (name, ours, theirs) in rows {
        println!("| {name:<50} | {:>22} | {:>22} |", cell(ours), cell(theirs));
    }
}
