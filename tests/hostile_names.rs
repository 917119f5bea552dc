//! Every kind of name refused before a byte is written when it is wrong:
//! subjects, queue groups, stream, consumer, bucket, key, object and link
//! names, one table each, tried against the real API calls on a client of
//! a fake server (tests/common/fake.rs) that records what the client
//! wrote. Each error names the bad input; nothing but the closing flush's
//! PING follows the setup on the wire.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::time::Duration;

use bytes::Bytes;
use common::{FakeConn, FakeServer};
use natsjet::jetstream::api::{ConsumerConfig, StreamConfig};
use natsjet::jetstream::{self, kv, object_store};
use natsjet::{Client, ConnectOptions};

/// Forms every name refuses: empty, whitespace, CR/LF (a protocol line
/// injection), tabs, NUL, DEL.
const NEVER: &[&str] = &["", " ", "a b", "a\tb", "a\rb", "a\nb", "a\r\nPUB x 1\r\n", "a\0b", "a\x7fb"];

/// What the server plays: the handshake, PONGs, and the info of any
/// stream asked for as a bucket's (so Key-Value and object store handles
/// can be had without a real server).
fn serve(conn: &mut FakeConn) {
    if !conn.handshake() {
        return;
    }
    let mut inbox_sid = String::new();
    while let Some(line) = conn.next_line() {
        let fields: Vec<&str> = line.split_ascii_whitespace().collect();
        match fields.as_slice() {
            ["PING"] => drop(conn.send(b"PONG\r\n")),
            ["SUB", subject, sid] if subject.starts_with("_INBOX.") => inbox_sid = sid.to_string(),
            ["PUB", subject, reply, _] if subject.starts_with("$JS.API.STREAM.INFO.") => {
                let stream = &subject["$JS.API.STREAM.INFO.".len()..];
                let json = format!(r#"{{"config":{{"name":"{stream}","max_msgs_per_subject":1}},"state":{{}}}}"#);
                conn.send(format!("MSG {reply} {inbox_sid} {}\r\n{json}\r\n", json.len()).as_bytes());
            }
            _ => {}
        }
    }
}

struct Fixture {
    client: Client,
    js: jetstream::Context,
    fake: FakeServer,
    /// What the client had written when the setup was done.
    mark: usize,
}

async fn fixture() -> Fixture {
    let fake = FakeServer::start(serve);
    let client = ConnectOptions::new().max_reconnects(0).connect(fake.url()).await.unwrap();
    let js = jetstream::new(client.clone());
    client.flush().await.unwrap();
    let mark = fake.written().len();
    Fixture { client, js, fake, mark }
}

impl Fixture {
    /// Asserts that since the mark the client wrote only the PING of a flush.
    async fn assert_nothing_written(&mut self) {
        self.client.flush().await.unwrap();
        let written = self.fake.written();
        assert_eq!(String::from_utf8_lossy(&written[self.mark..]), "PING\r\n", "bytes after the setup");
        self.mark = written.len();
    }
}

/// `result` failed with an error that quotes `bad` (or says it is empty).
#[track_caller]
fn assert_names<T, E: std::fmt::Display>(call: &str, bad: &str, result: Result<T, E>) {
    match result {
        Ok(_) => panic!("{call}({bad:?}) was accepted"),
        Err(e) => {
            let text = e.to_string();
            let named = text.contains(&format!("{bad:?}")) || (bad.is_empty() && text.contains("empty"));
            assert!(named, "{call}({bad:?}): {text}");
        }
    }
}

async fn fast<T>(f: impl Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(5), f).await.expect("refused at once, not sent")
}

fn over(len: usize) -> String {
    "n".repeat(len + 1)
}

#[tokio::test]
async fn subjects() {
    let mut f = fixture().await;
    let mut bad: Vec<String> = NEVER.iter().map(|s| s.to_string()).collect();
    bad.extend([".a", "a.", "a..b", "."].map(String::from));
    for subject in &bad {
        assert_names("publish", subject, f.client.publish(subject.clone(), Bytes::from_static(b"x")).await);
        assert_names("request", subject, fast(f.client.request(subject.clone(), Bytes::from_static(b"x"))).await);
        assert_names("subscribe", subject, f.client.subscribe(subject.clone()).await);
        assert_names("queue_subscribe", subject, f.client.queue_subscribe(subject.clone(), "q".to_string()).await);
        assert_names("js.publish", subject, fast(f.js.publish(subject.clone(), "x".into())).await);
    }
    // Wildcards only as whole tokens, '>' only last, to subscribe.
    for subject in ["a.b*", "a*.b", "a.>.b", ">a", "a.b>"] {
        assert_names("subscribe", subject, f.client.subscribe(subject).await);
    }
    f.assert_nothing_written().await;
}

#[tokio::test]
async fn queue_groups() {
    let mut f = fixture().await;
    for queue in NEVER {
        let result = f.client.queue_subscribe("q.ok", queue.to_string()).await;
        assert!(
            matches!(&result, Err(e) if e.to_string().contains("queue group") && e.to_string().contains(&format!("{queue:?}"))),
            "{queue:?}: {result:?}"
        );
    }
    f.assert_nothing_written().await;
}

/// Stream and consumer names: none of `.`, `*`, `>`, `/`, `\`, at most 255 bytes.
fn bad_api_names() -> Vec<String> {
    let mut bad: Vec<String> = NEVER.iter().map(|s| s.to_string()).collect();
    bad.extend(["a.b", "a*", "a>", "*", ">", "a/b", "a\\b"].map(String::from));
    bad.push(over(255));
    bad
}

#[tokio::test]
async fn stream_names() {
    let mut f = fixture().await;
    for name in bad_api_names() {
        assert_names("get_stream", &name, fast(f.js.get_stream(&name)).await);
        assert_names("delete_stream", &name, fast(f.js.delete_stream(&name)).await);
        let config = StreamConfig { name: name.clone(), subjects: vec!["s.>".into()], ..Default::default() };
        assert_names("create_stream", &name, fast(f.js.create_stream(config)).await);
        assert_names(
            "get_consumer_from_stream",
            &name,
            fast(f.js.get_consumer_from_stream::<ConsumerConfig, _, _>("c", &name)).await,
        );
    }
    f.assert_nothing_written().await;
}

#[tokio::test]
async fn consumer_names() {
    let mut f = fixture().await;
    for name in bad_api_names() {
        assert_names(
            "get_consumer_from_stream",
            &name,
            fast(f.js.get_consumer_from_stream::<ConsumerConfig, _, _>(&name, "S")).await,
        );
        assert_names("consumer_info_from_stream", &name, fast(f.js.consumer_info_from_stream(&name, "S")).await);
        assert_names("delete_consumer_from_stream", &name, fast(f.js.delete_consumer_from_stream(&name, "S")).await);
        let config = ConsumerConfig { durable_name: Some(name.clone()), ..Default::default() };
        assert_names("create_consumer_on_stream", &name, fast(f.js.create_consumer_on_stream(config, "S")).await);
    }
    f.assert_nothing_written().await;
}

#[tokio::test]
async fn bucket_names() {
    let mut f = fixture().await;
    let mut bad: Vec<String> = NEVER.iter().map(|s| s.to_string()).collect();
    bad.extend(["a.b", "a*", "a>", "a/b", "ü", "a=b"].map(String::from));
    for bucket in bad.iter().cloned().chain([over(251)]) {
        assert_names("get_object_store", &bucket, fast(f.js.get_object_store(&bucket)).await);
        assert_names("delete_object_store", &bucket, fast(f.js.delete_object_store(&bucket)).await);
        let config = object_store::Config { bucket: bucket.clone(), ..Default::default() };
        assert_names("create_object_store", &bucket, fast(f.js.create_object_store(config)).await);
    }
    for bucket in bad.into_iter().chain([over(252)]) {
        assert_names("get_key_value", &bucket, fast(f.js.get_key_value(&bucket)).await);
        assert_names("delete_key_value", &bucket, fast(f.js.delete_key_value(&bucket)).await);
        let config = kv::Config { bucket: bucket.clone(), ..Default::default() };
        assert_names("create_key_value", &bucket, fast(f.js.create_key_value(config)).await);
    }
    f.assert_nothing_written().await;
}

#[tokio::test]
async fn keys() {
    let mut f = fixture().await;
    let store = fast(f.js.get_key_value("b")).await.unwrap();
    f.client.flush().await.unwrap();
    f.mark = f.fake.written().len();
    let mut bad: Vec<String> = NEVER.iter().map(|s| s.to_string()).collect();
    bad.extend([".a", "a.", "a..b", "a\\b", "ü", "a:b"].map(String::from));
    for key in &bad {
        assert_names("put", key, fast(store.put(key, Bytes::from_static(b"v"))).await);
        assert_names("create", key, fast(store.create(key, Bytes::from_static(b"v"))).await);
        assert_names("update", key, fast(store.update(key, Bytes::from_static(b"v"), 1)).await);
        assert_names("get", key, fast(store.get(key.clone())).await);
        assert_names("entry", key, fast(store.entry(key.clone())).await);
        assert_names("delete", key, fast(store.delete(key)).await);
        assert_names("purge", key, fast(store.purge(key)).await);
        assert_names("history", key, fast(store.history(key)).await);
        assert_names("watch", key, fast(store.watch(key)).await);
    }
    // Wildcards are for watching, not for writing or reading one key.
    for key in ["*", ">", "a.*", "a.>"] {
        assert_names("put", key, fast(store.put(key, Bytes::from_static(b"v"))).await);
        assert_names("get", key, fast(store.get(key)).await);
    }
    for key in ["a.>.b", "a*", ">a"] {
        assert_names("watch", key, fast(store.watch(key)).await);
    }
    f.assert_nothing_written().await;
}

#[tokio::test]
async fn object_and_link_names() {
    let mut f = fixture().await;
    let store = fast(f.js.get_object_store("b")).await.unwrap();
    f.client.flush().await.unwrap();
    f.mark = f.fake.written().len();
    // Any text names an object (it is base64 in the subject): only an
    // empty or an over-long name is wrong.
    let target = object_store::ObjectInfo {
        name: "target".into(),
        description: None,
        metadata: Default::default(),
        headers: None,
        options: None,
        bucket: "b".into(),
        nuid: "N".into(),
        size: 1,
        chunks: 1,
        modified: None,
        digest: None,
        deleted: false,
    };
    for name in [String::new(), over(object_store::names::MAX_NAME_LEN)] {
        assert_names("info", &name, fast(store.info(&name)).await);
        assert_names("get", &name, fast(store.get(&name)).await);
        assert_names("delete", &name, fast(store.delete(&name)).await);
        assert_names("put", &name, fast(store.put(name.as_str(), &mut &b"data"[..])).await);
        assert_names("add_link", &name, fast(store.add_link(&name, &target)).await);
        assert_names("add_bucket_link", &name, fast(store.add_bucket_link(&name, "other")).await);
    }
    f.assert_nothing_written().await;
}
