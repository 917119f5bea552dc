//! A fake server (tests/common/fake.rs) sending malformed and adversarial
//! input: every case ends in a typed error that the connection, its
//! subscriptions and its pending requests (core and JetStream API) learn,
//! and nothing panics. Memory under hostile input: tests/hostile_memory.rs.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::time::Duration;

use bytes::Bytes;

use common::{FakeConn, FakeServer, fake::INFO};
use futures_util::StreamExt;
use natsjet::{ConnectOptions, ConnectionEvent, Error};
use tokio::sync::mpsc;

/// Bound on every wait of these tests: a case that hangs fails.
const BOUND: Duration = Duration::from_secs(20);

/// No reconnects: the first fault closes the client, with its cause.
fn options() -> (ConnectOptions, mpsc::UnboundedReceiver<Option<Error>>) {
    let (tx, rx) = mpsc::unbounded_channel();
    let options = ConnectOptions::new().max_reconnects(0).on_event(move |event| {
        if let ConnectionEvent::Closed { error } = event {
            let _ = tx.send(error);
        }
    });
    (options, rx)
}

async fn within<T>(what: &str, f: impl Future<Output = T>) -> T {
    tokio::time::timeout(BOUND, f).await.unwrap_or_else(|_| panic!("{what} did not end within {BOUND:?}"))
}

/// What a client with a subscription, a core request and a JetStream API
/// request in flight learns when the fake server, once all three are out,
/// does `fault`.
struct Outcome {
    closed: Option<Error>,
    /// What the subscription says ended it.
    subscription: Option<Error>,
    request: Result<natsjet::Message, Error>,
    api: Result<natsjet::jetstream::api::AccountInfo, Error>,
}

async fn in_flight(fault: impl Fn(&mut FakeConn) + Send + 'static) -> Outcome {
    let fake = FakeServer::start(move |conn| {
        assert!(conn.handshake());
        for op in ["SUB hostile.sub", "PUB svc", "PUB $JS.API.INFO"] {
            assert!(conn.expect_anywhere(format!("\n{op} ").as_bytes()).is_some(), "{op} not written");
        }
        fault(conn);
        conn.wait_closed();
    });
    let (options, mut closed) = options();
    let client = within("connect", options.connect(fake.url())).await.unwrap();
    let mut sub = client.subscribe("hostile.sub").await.unwrap();
    let request = tokio::spawn({
        let client = client.clone();
        async move { client.request("svc", Bytes::from_static(b"?")).await.map_err(Error::from) }
    });
    let js = natsjet::jetstream::new(client.clone());
    let api = tokio::spawn(async move { js.query_account().await.map_err(Error::from) });
    let request = within("the request", request).await.unwrap();
    let api = within("the API request", api).await.unwrap();
    let closed = within("the close", closed.recv()).await.unwrap();
    assert!(within("the subscription", sub.next()).await.is_none(), "the subscription goes on");
    Outcome { closed, subscription: sub.closed_reason(), request, api }
}

/// The connection closed with a protocol error saying `why`, and the
/// requests in flight failed with it.
#[track_caller]
fn assert_protocol_error(outcome: Outcome, why: &str) {
    let is_it = |e: &Error| matches!(e, Error::Protocol(cause) if cause.to_string().contains(why));
    match &outcome.closed {
        Some(e) if is_it(e) => {}
        other => panic!("closed with {other:?}, not a protocol error about {why:?}"),
    }
    assert!(outcome.subscription.as_ref().is_some_and(is_it), "subscription: {:?}", outcome.subscription);
    assert!(outcome.request.as_ref().is_err_and(is_it), "request: {:?}", outcome.request);
    assert!(outcome.api.as_ref().is_err_and(is_it), "API request: {:?}", outcome.api);
}

#[tokio::test]
async fn huge_size() {
    let outcome = in_flight(|conn| {
        conn.send(b"MSG hostile.sub 1 1073741824\r\n");
    })
    .await;
    assert_protocol_error(outcome, "payload");
}

#[tokio::test]
async fn negative_size() {
    let outcome = in_flight(|conn| {
        conn.send(b"MSG hostile.sub 1 -5\r\n");
    })
    .await;
    assert_protocol_error(outcome, "bad size");
}

#[tokio::test]
async fn unknown_op() {
    let outcome = in_flight(|conn| {
        conn.send(b"BOGUS op\r\n");
    })
    .await;
    assert_protocol_error(outcome, "BOGUS");
}

#[tokio::test]
async fn control_line_that_never_ends() {
    let outcome = in_flight(|conn| {
        conn.send(b"MSG hostile.sub 1 ");
        conn.flood(&[b'7'; 4096], 64 << 20);
    })
    .await;
    assert_protocol_error(outcome, "control line");
}

#[tokio::test]
async fn truncated_frame() {
    // Half a message, then the socket closes.
    let outcome = in_flight(|conn| {
        conn.send(b"MSG hostile.sub 1 10\r\nabc");
        conn.close();
    })
    .await;
    let hung_up = |e: &Error| matches!(e, Error::Io { kind: std::io::ErrorKind::UnexpectedEof, .. });
    assert!(outcome.closed.as_ref().is_some_and(hung_up), "closed with {:?}", outcome.closed);
    assert!(outcome.request.as_ref().is_err_and(hung_up), "{:?}", outcome.request);
    assert!(outcome.api.as_ref().is_err_and(hung_up), "{:?}", outcome.api);
}

/// Connecting to a fake server playing `script` fails with what `check` takes.
async fn refused(script: impl Fn(&mut FakeConn) + Send + 'static, options: ConnectOptions) -> Error {
    let fake = FakeServer::start(script);
    let error =
        within("connect", options.max_reconnects(0).connect(fake.url())).await.map_err(Error::from).unwrap_err();
    assert!(!fake.written().windows(4).any(|w| w == b"SUB "), "the client went on after a refused handshake");
    error
}

#[tokio::test]
async fn invalid_info() {
    for info in [&b"INFO {not json}\r\n"[..], b"INFO [1,2]\r\n", b"INFO {\"max_payload\":-1}\r\n", b"INFO\r\n"] {
        let error = refused(move |conn| assert!(conn.send(info)), ConnectOptions::new()).await;
        assert!(matches!(&error, Error::Protocol(cause) if cause.to_string().contains("INFO")), "{info:?}: {error:?}");
    }
}

#[tokio::test]
async fn not_a_nats_server() {
    let error = refused(|conn| assert!(conn.send(b"HTTP/1.1 400 Bad Request\r\n\r\n")), ConnectOptions::new()).await;
    assert!(matches!(&error, Error::Protocol(_)), "{error:?}");
}

#[tokio::test]
async fn info_that_never_ends() {
    let error = refused(
        |conn| {
            conn.send(b"INFO {\"server_name\":\"");
            conn.flood(&[b'a'; 4096], 64 << 20);
        },
        ConnectOptions::new(),
    )
    .await;
    assert!(matches!(&error, Error::Protocol(cause) if cause.to_string().contains("control line")), "{error:?}");
}

#[tokio::test]
async fn info_a_byte_per_second() {
    let options = ConnectOptions::new().connection_timeout(Duration::from_millis(1500));
    let error = refused(
        |conn| {
            for byte in INFO.chunks(1) {
                if !conn.send(byte) {
                    return;
                }
                std::thread::sleep(Duration::from_secs(1));
            }
        },
        options,
    )
    .await;
    assert_eq!(error, Error::Timeout);
}

#[tokio::test]
async fn ping_flood() {
    // A million PINGs get a million PONGs, and the connection stays usable.
    const PINGS: usize = 1_000_000;
    let fake = FakeServer::start(|conn| {
        assert!(conn.handshake());
        assert!(conn.expect_op("SUB").is_some());
        let pings = [&b"PING\r\n"[..]; 1000].concat();
        for _ in 0..PINGS / 1000 {
            assert!(conn.send(&pings));
        }
        assert!(conn.expect_count(b"PONG\r\n", PINGS), "a PONG for every PING");
        conn.send(b"MSG after.flood 1 2\r\nok\r\n");
        conn.wait_closed();
    });
    let (options, _closed) = options();
    let client = within("connect", options.connect(fake.url())).await.unwrap();
    let mut sub = client.subscribe("after.flood").await.unwrap();
    let message = within("the message after the flood", sub.next()).await.unwrap();
    assert_eq!(&message.payload[..], b"ok");
}

/// A JetStream API reply with JSON that is not what the call reads: the
/// call fails with a protocol error; the connection stays.
#[tokio::test]
async fn jetstream_replies_with_wrong_json() {
    const REPLIES: [&[u8]; 5] =
        [b"{bad", b"{\"memory\":\"lots\"}", b"[1,2,3]", b"{\"error\":{\"code\":\"x\",\"description\":7}}", b"\xff\xfe"];
    let fake = FakeServer::start(|conn| {
        assert!(conn.handshake());
        let sid = conn.expect_op("SUB").expect("the inbox SUB")[1].clone();
        for reply in REPLIES {
            let fields = conn.expect_op("PUB").expect("an API request");
            assert_eq!(fields[0], "$JS.API.INFO");
            let head = format!("MSG {} {sid} {}\r\n", fields[1], reply.len());
            conn.send(&[head.as_bytes(), reply, b"\r\n"].concat());
        }
        // The client's flush.
        assert!(conn.expect(b"\nPING").is_some());
        conn.send(b"PONG\r\n");
        conn.wait_closed();
    });
    let (options, _closed) = options();
    let client = within("connect", options.connect(fake.url())).await.unwrap();
    let js = natsjet::jetstream::new(client.clone());
    for reply in REPLIES {
        let result = within("the API request", js.query_account()).await.map_err(Error::from);
        assert!(matches!(result, Err(Error::Protocol(_))), "{:?}: {result:?}", String::from_utf8_lossy(reply));
    }
    client.flush().await.expect("the connection stays up");
}
