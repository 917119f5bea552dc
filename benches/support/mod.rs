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

/// Read and write syscalls of the watched server so far (/proc/<pid>/io):
/// how many reads its clients' writes cost it (acks packed into one write
/// cost one read) and how many writes its deliveries took.
fn server_syscalls() -> Option<(u64, u64)> {
    let pid = SERVER_PID.load(Ordering::Relaxed);
    if pid == 0 {
        return None;
    }
    let io = std::fs::read_to_string(format!("/proc/{pid}/io")).ok()?;
    let field = |name: &str| io.lines().find_map(|l| l.strip_prefix(name)?.trim().parse::<u64>().ok());
    Some((field("syscr:")?, field("syscw:")?))
}

/// Throughput and client CPU of one run of `count` operations, and the
/// watched server's CPU per operation and share of one core (NaN: unknown).
#[derive(Debug, Clone, Copy)]
pub struct Run {
    pub per_second: f64,
    pub cpu_us_per_op: f64,
    pub server_us_per_op: f64,
    pub server_share: f64,
    /// The server's read and write syscalls per operation (NaN: unknown).
    pub server_reads_per_op: f64,
    pub server_writes_per_op: f64,
}

/// Wall and CPU clocks started together; `stop` turns them into a [`Run`].
pub struct Stopwatch {
    cpu: Duration,
    server: Option<Duration>,
    syscalls: Option<(u64, u64)>,
    wall: Instant,
}

impl Stopwatch {
    pub fn start() -> Self {
        Stopwatch { cpu: cpu_time(), server: server_cpu_time(), syscalls: server_syscalls(), wall: Instant::now() }
    }

    /// The run of `count` operations since `start`.
    pub fn stop(self, count: usize) -> Run {
        let (cpu, wall) = (cpu_time() - self.cpu, self.wall.elapsed());
        let server = server_cpu_time().zip(self.server).map(|(end, start)| end.saturating_sub(start));
        let server_secs = server.map_or(f64::NAN, |d| d.as_secs_f64());
        let syscalls = server_syscalls().zip(self.syscalls).map(|(end, start)| (end.0 - start.0, end.1 - start.1));
        let per_op = |n: u64| n as f64 / count as f64;
        Run {
            per_second: count as f64 / wall.as_secs_f64(),
            cpu_us_per_op: cpu.as_secs_f64() * 1e6 / count as f64,
            server_us_per_op: server_secs * 1e6 / count as f64,
            server_share: server_secs / wall.as_secs_f64(),
            server_reads_per_op: syscalls.map_or(f64::NAN, |s| per_op(s.0)),
            server_writes_per_op: syscalls.map_or(f64::NAN, |s| per_op(s.1)),
        }
    }
}

/// The best of `times` runs (highest throughput).
pub fn best(times: usize, mut run: impl FnMut() -> Run) -> Run {
    (0..times).map(|_| run()).max_by(|a, b| a.per_second.total_cmp(&b.per_second)).expect("at least one run")
}

/// The median run of `runs` by throughput, each other figure the median of
/// its own (a noisy machine moves them apart).
pub fn median(runs: &[Run]) -> Run {
    let mid = |f: fn(&Run) -> f64| {
        let mut v: Vec<f64> = runs.iter().map(f).collect();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    Run {
        per_second: mid(|r| r.per_second),
        cpu_us_per_op: mid(|r| r.cpu_us_per_op),
        server_us_per_op: mid(|r| r.server_us_per_op),
        server_share: mid(|r| r.server_share),
        server_reads_per_op: mid(|r| r.server_reads_per_op),
        server_writes_per_op: mid(|r| r.server_writes_per_op),
    }
}

/// How far apart runs were: the spread of their throughputs around the median, in percent.
pub fn spread(runs: &[Run]) -> f64 {
    let rates = runs.iter().map(|r| r.per_second);
    let (lo, hi) = rates.fold((f64::MAX, f64::MIN), |(lo, hi), r| (lo.min(r), hi.max(r)));
    (hi - lo) / median(runs).per_second * 100.0
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
/// one core during each client's run (a server near one core is the bound),
/// and its read and write syscalls per operation.
pub fn server_table(rows: &[(String, Run, Run)]) {
    println!();
    println!(
        "| {:<50} | {:>30} | {:>30} |",
        "workload (nats-server CPU/op, % of a core, syscalls/op)", "natsjet", "async-nats"
    );
    println!("|{:-<52}|{:-<32}|{:-<32}|", "", "", "");
    let cell = |r: &Run| {
        format!(
            "{:.2} µs, {:.0}%, r {:.3} w {:.3}",
            r.server_us_per_op,
            r.server_share * 100.0,
            r.server_reads_per_op,
            r.server_writes_per_op
        )
    };
    for (name, ours, theirs) in rows {
        println!("| {name:<50} | {:>30} | {:>30} |", cell(ours), cell(theirs));
    }
}
