//! The fault proxy of the harness checked on its own, against a loopback
//! echo socket: it forwards, and each fault does what it says.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::io::ErrorKind;
use std::time::Duration;

use common::FaultProxy;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::time::timeout;

const WAIT: Duration = Duration::from_secs(10);
/// How long "nothing arrives" is watched for.
const QUIET: Duration = Duration::from_millis(300);

/// An echo socket on 127.0.0.1 and a proxy in front of it.
async fn echo_behind_proxy() -> (FaultProxy, tokio::task::JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let echo = tokio::spawn(async move {
        while let Ok((mut s, _)) = listener.accept().await {
            tokio::spawn(async move {
                let (mut r, mut w) = s.split();
                let _ = tokio::io::copy(&mut r, &mut w).await;
            });
        }
    });
    (FaultProxy::start(port), echo)
}

async fn round_trip(stream: &mut TcpStream, bytes: &[u8]) -> Vec<u8> {
    stream.write_all(bytes).await.unwrap();
    let mut back = vec![0; bytes.len()];
    timeout(WAIT, stream.read_exact(&mut back)).await.unwrap().unwrap();
    back
}

#[tokio::test]
async fn forwards_both_ways_and_reconnects_after_a_cut() {
    let (proxy, _echo) = echo_behind_proxy().await;
    let mut a = TcpStream::connect(("127.0.0.1", proxy.port())).await.unwrap();
    assert_eq!(round_trip(&mut a, b"hello").await, b"hello");
    proxy.cut();
    let mut buf = [0u8; 8];
    let read = timeout(WAIT, a.read(&mut buf)).await.unwrap();
    assert_eq!(read.map_err(|e| e.kind()), Err(ErrorKind::ConnectionReset), "an RST, not a FIN");
    let mut b = TcpStream::connect(("127.0.0.1", proxy.port())).await.unwrap();
    assert_eq!(round_trip(&mut b, b"again").await, b"again", "new connections are forwarded");
    assert_eq!(proxy.accepted(), 2);
}

#[tokio::test]
async fn a_stall_and_a_half_open_link_carry_nothing_and_stay_open() {
    let (proxy, _echo) = echo_behind_proxy().await;
    for fault in [FaultProxy::stall as fn(&FaultProxy), FaultProxy::half_open] {
        let mut s = TcpStream::connect(("127.0.0.1", proxy.port())).await.unwrap();
        assert_eq!(round_trip(&mut s, b"x").await, b"x");
        fault(&proxy);
        s.write_all(b"lost").await.unwrap();
        let mut buf = [0u8; 8];
        assert!(timeout(QUIET, s.read(&mut buf)).await.is_err(), "no bytes, no EOF, no reset");
        assert_eq!(proxy.open_connections(), 0, "the faulted link is not counted as forwarded");
    }
}

#[tokio::test]
async fn a_bandwidth_cap_delivers_everything_paced() {
    let (proxy, _echo) = echo_behind_proxy().await;
    let mut s = TcpStream::connect(("127.0.0.1", proxy.port())).await.unwrap();
    proxy.slow(Some(8 * 1024));
    let data: Vec<u8> = (0..16 * 1024).map(|i| i as u8).collect();
    s.write_all(&data).await.unwrap();
    // 16 KiB at 8 KiB/s each way takes about two seconds: after 300 ms far from all is back.
    let mut rest = Vec::new();
    let quiet_until = tokio::time::Instant::now() + QUIET;
    let mut buf = vec![0; data.len()];
    while let Ok(read) = tokio::time::timeout_at(quiet_until, s.read(&mut buf)).await {
        rest.extend_from_slice(&buf[..read.unwrap()]);
    }
    assert!(rest.len() < data.len() / 2, "the cap holds the bytes back: {} back", rest.len());
    proxy.slow(None);
    while rest.len() < data.len() {
        let n = timeout(WAIT, s.read(&mut buf)).await.unwrap().unwrap();
        assert!(n > 0);
        rest.extend_from_slice(&buf[..n]);
    }
    assert_eq!(rest, data, "everything, in order");
}
