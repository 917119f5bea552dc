#![allow(dead_code)] // each benchmark uses a part of this module
//! Shared by the benchmarks: scaling, CPU accounting and the printed table.
//!
//! Both clients run in this process against the same server, so the CPU time
//! this process spends per message (user + system, from getrusage) is the
//! client's cost; the server's is in its own process. On a small machine the
//! server's share decides throughput, so the table shows both.

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

/// Throughput and client CPU of one run of `count` operations.
#[derive(Debug, Clone, Copy)]
pub struct Run {
    pub per_second: f64,
    pub cpu_us_per_op: f64,
}

/// Wall and CPU clocks started together; `stop` turns them into a [`Run`].
pub struct Stopwatch {
    cpu: Duration,
    wall: Instant,
}

impl Stopwatch {
    pub fn start() -> Self {
        Stopwatch { cpu: cpu_time(), wall: Instant::now() }
    }

    /// The run of `count` operations since `start`.
    pub fn stop(self, count: usize) -> Run {
        let (cpu, wall) = (cpu_time() - self.cpu, self.wall.elapsed());
        Run { per_second: count as f64 / wall.as_secs_f64(), cpu_us_per_op: cpu.as_secs_f64() * 1e6 / count as f64 }
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
