//! Object store benchmark: natsjet side by side with async-nats in one run,
//! against one local nats-server started here.
//!
//! Run with `cargo bench --bench object_store` (`BENCH_SCALE=0.1` for a
//! quick pass). Puts then gets a 64 MiB object (MiB/s, client CPU per MiB,
//! the median of 5 passes, the clients alternating, `BENCH_PASSES` to change;
//! natsjet with its defaults and in a bucket with
//! `allow_batched`, its one tuning knob; the gets read the chunk stream,
//! and once more as async-nats programs do, `AsyncRead::read_to_end` into an
//! empty `Vec`), with the server's CPU beside;
//! then, each in a process of its own so the figure is its own, puts and
//! gets a 1 GiB object streamed from and to nowhere and reports the peak
//! resident memory (`VmHWM`): before the put, during it, during the get.

#[path = "../tests/common/mod.rs"]
mod common;
mod support;

use std::time::Duration;

use bytes::Bytes;
use futures_util::StreamExt;
use support::{Run, Stopwatch, scale};
use tokio::io::AsyncReadExt;

const MIB: usize = 1 << 20;

/// `len` bytes in 1 MiB pieces, made as they are read.
fn source(len: usize) -> impl tokio::io::AsyncRead + Unpin {
    let piece = Bytes::from(vec![7u8; MIB]);
    let pieces = futures_util::stream::iter((0..len.div_ceil(MIB)).map(move |i| {
        let n = MIB.min(len - i * MIB);
        Ok::<_, std::io::Error>(piece.slice(..n))
    }));
    reader(pieces)
}

/// A reader over a stream of byte pieces.
fn reader(
    pieces: impl futures_util::Stream<Item = std::io::Result<Bytes>> + Unpin,
) -> impl tokio::io::AsyncRead + Unpin {
    struct Reader<S> {
        pieces: S,
        current: Bytes,
    }
    impl<S: futures_util::Stream<Item = std::io::Result<Bytes>> + Unpin> tokio::io::AsyncRead for Reader<S> {
        fn poll_read(
            mut self: std::pin::Pin<&mut Self>,
            cx: &mut std::task::Context<'_>,
            buf: &mut tokio::io::ReadBuf<'_>,
        ) -> std::task::Poll<std::io::Result<()>> {
            if self.current.is_empty() {
                match std::task::ready!(self.pieces.poll_next_unpin(cx)) {
                    Some(Ok(piece)) => self.current = piece,
                    Some(Err(e)) => return std::task::Poll::Ready(Err(e)),
                    None => return std::task::Poll::Ready(Ok(())),
                }
            }
            let n = buf.remaining().min(self.current.len());
            let taken = self.current.split_to(n);
            buf.put_slice(&taken);
            std::task::Poll::Ready(Ok(()))
        }
    }
    Reader { pieces, current: Bytes::new() }
}

/// A put and a get with natsjet; with `fast`, in a bucket that takes fast
/// batches. `mark` is called before the put and before the get.
async fn natsjet_pass(url: &str, len: usize, fast: bool, mut mark: impl FnMut()) -> (Run, Run) {
    use natsjet::jetstream::object_store::{Config, ObjectMetadata};
    let js = natsjet::connect(url).await.unwrap().jetstream();
    let _ = js.delete_object_store("bench").await;
    let config = Config { bucket: "bench".into(), allow_batched: fast, ..Default::default() };
    let store = js.create_object_store(config).await.unwrap();
    mark();
    let clock = Stopwatch::start();
    store.put(ObjectMetadata::from("blob"), &mut source(len)).await.unwrap();
    let put = clock.stop(len / MIB);
    mark();
    let clock = Stopwatch::start();
    let mut object = store.get("blob").await.unwrap();
    let mut read = 0;
    while let Some(chunk) = object.next().await {
        read += chunk.unwrap().len();
    }
    assert_eq!(read, len);
    (put, clock.stop(len / MIB))
}

/// A get as async-nats programs write it: `get`, then `AsyncRead::read_to_end`
/// into an empty `Vec`, of the object the last pass put.
async fn natsjet_read_to_end(url: &str, len: usize) -> Run {
    let js = natsjet::connect(url).await.unwrap().jetstream();
    let store = js.get_object_store("bench").await.unwrap();
    let clock = Stopwatch::start();
    let mut bytes = Vec::new();
    store.get("blob").await.unwrap().read_to_end(&mut bytes).await.unwrap();
    assert_eq!(bytes.len(), len);
    clock.stop(len / MIB)
}

/// [`natsjet_read_to_end`] with async-nats.
async fn async_nats_read_to_end(url: &str, len: usize) -> Run {
    let js = async_nats::jetstream::new(async_nats::connect(url).await.unwrap());
    let store = js.get_object_store("bench").await.unwrap();
    let clock = Stopwatch::start();
    let mut bytes = Vec::new();
    store.get("blob").await.unwrap().read_to_end(&mut bytes).await.unwrap();
    assert_eq!(bytes.len(), len);
    clock.stop(len / MIB)
}

async fn async_nats_pass(url: &str, len: usize, mut mark: impl FnMut()) -> (Run, Run) {
    use async_nats::jetstream::object_store::{Config, ObjectMetadata};
    let js = async_nats::jetstream::new(async_nats::connect(url).await.unwrap());
    let _ = js.delete_object_store("bench").await;
    let store = js.create_object_store(Config { bucket: "bench".into(), ..Default::default() }).await.unwrap();
    mark();
    let clock = Stopwatch::start();
    store.put(ObjectMetadata { name: "blob".into(), ..Default::default() }, &mut source(len)).await.unwrap();
    let put = clock.stop(len / MIB);
    mark();
    let clock = Stopwatch::start();
    let mut object = store.get("blob").await.unwrap();
    let mut buffer = vec![0; MIB];
    let mut read = 0;
    loop {
        let n = object.read(&mut buffer).await.unwrap();
        if n == 0 {
            break;
        }
        read += n;
    }
    assert_eq!(read, len);
    (put, clock.stop(len / MIB))
}

/// A memory figure of this process from `/proc/self/status`, in MiB.
fn status_mib(field: &str) -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kib =
        status.lines().find_map(|l| l.strip_prefix(field)).and_then(|v| v.split_whitespace().next()?.parse().ok());
    kib.map_or(f64::NAN, |kib: f64| kib / 1024.0)
}

/// The peak resident memory of this process (since the last [`reset_peak`]), in MiB.
fn peak_mib() -> f64 {
    status_mib("VmHWM:")
}

/// The resident memory of this process now, in MiB.
fn resident_mib() -> f64 {
    status_mib("VmRSS:")
}

/// Starts a new peak: `VmHWM` falls back to what is resident now (Linux 4.0+).
fn reset_peak() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// Runs in a child process: one client puts and gets `len` bytes, then
/// prints its peak memory over the whole run, the resident memory before
/// the put (connected, bucket made), the peaks of the put and of the get
/// alone (each a new peak from what was resident when it started), and
/// the two throughputs.
fn peak_child(client: &str, url: &str, len: usize) {
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    let mut marks = Vec::new();
    let mut mark = || {
        marks.push((peak_mib(), resident_mib()));
        reset_peak();
    };
    let (put, get) = match client {
        "natsjet" => rt.block_on(natsjet_pass(url, len, false, &mut mark)),
        "natsjet-fast" => rt.block_on(natsjet_pass(url, len, true, &mut mark)),
        _ => rt.block_on(async_nats_pass(url, len, &mut mark)),
    };
    let whole = marks.iter().map(|m| m.0).fold(peak_mib(), f64::max);
    let (before, put_peak, get_peak) = (marks[0].1, marks[1].0, peak_mib());
    println!("{whole:.1} {before:.1} {put_peak:.1} {get_peak:.1} {:.0} {:.0}", put.per_second, get.per_second);
}

fn peak_row(client: &str, url: &str, len: usize) {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .env("BENCH_OBJECT_PEAK", format!("{client} {url} {len}"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let fields: Vec<&str> = text.split_whitespace().collect();
    let field = |i: usize| fields.get(i).copied().unwrap_or("?");
    println!(
        "| {client:<12} | {:>8} MiB | {:>8} MiB | {:>8} MiB | {:>8} MiB | {:>7} MiB/s | {:>7} MiB/s |",
        field(0),
        field(1),
        field(2),
        field(3),
        field(4),
        field(5)
    );
}

fn main() {
    if let Ok(args) = std::env::var("BENCH_OBJECT_PEAK") {
        let mut args = args.split(' ');
        let (client, url, len) = (args.next().unwrap(), args.next().unwrap(), args.next().unwrap().parse().unwrap());
        return peak_child(client, url, len);
    }
    let server = common::NatsServer::start_jetstream();
    support::watch_server(Some(server.pid()));
    let url = server.client_url();
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    let len = scale(64) * MIB;
    rt.block_on(natsjet_pass(&url, len / 8, false, || ()));
    rt.block_on(async_nats_pass(&url, len / 8, || ()));

    let passes = std::env::var("BENCH_PASSES").ok().and_then(|p| p.parse().ok()).unwrap_or(5usize).max(1);
    println!("MiB/s (CPU per MiB), median of {passes} passes:");
    support::header();
    let (mut ours, mut fast, mut theirs) = (Vec::new(), Vec::new(), Vec::new());
    // Each client reads the object async-nats just put, both with read_to_end.
    let (mut our_reads, mut their_reads) = (Vec::new(), Vec::new());
    for _ in 0..passes {
        ours.push(rt.block_on(natsjet_pass(&url, len, false, || ())));
        fast.push(rt.block_on(natsjet_pass(&url, len, true, || ())));
        theirs.push(rt.block_on(async_nats_pass(&url, len, || ())));
        our_reads.push(rt.block_on(natsjet_read_to_end(&url, len)));
        their_reads.push(rt.block_on(async_nats_read_to_end(&url, len)));
    }
    let median_of = |mut runs: Vec<Run>| {
        runs.sort_by(|a, b| a.per_second.total_cmp(&b.per_second));
        runs[(runs.len() - 1) / 2]
    };
    let median = |runs: &[(Run, Run)], get: bool| median_of(runs.iter().map(|r| if get { r.1 } else { r.0 }).collect());
    let mib = len / MIB;
    let rows = [
        (format!("object put {mib} MiB"), median(&ours, false), median(&theirs, false)),
        (format!("object get {mib} MiB"), median(&ours, true), median(&theirs, true)),
        (format!("object put {mib} MiB, fast batches (allow_batched)"), median(&fast, false), median(&theirs, false)),
        (format!("object get {mib} MiB, from that bucket"), median(&fast, true), median(&theirs, true)),
        (format!("object get {mib} MiB, AsyncRead::read_to_end"), median_of(our_reads), median_of(their_reads)),
    ];
    for (name, ours, theirs) in &rows {
        support::row(name, *ours, *theirs);
    }
    support::server_table(&rows);
    drop(rt);

    let big = scale(1024) * MIB;
    println!();
    println!("{} MiB put then get, each client in a process of its own:", big / MIB);
    println!(
        "| {:<12} | {:>12} | {:>12} | {:>12} | {:>12} | {:>13} | {:>13} |",
        "client", "peak RSS", "before put", "put's peak", "get's peak", "put", "get"
    );
    println!("|{:-<14}|{:-<14}|{:-<14}|{:-<14}|{:-<14}|{:-<15}|{:-<15}|", "", "", "", "", "", "", "");
    peak_row("natsjet", &url, big);
    peak_row("natsjet-fast", &url, big);
    peak_row("async-nats", &url, big);
    std::thread::sleep(Duration::from_millis(50));
}
