//! Runs every compat program against its own real nats-server and checks
//! its transcript. The same expectations hold for both libraries: this
//! file is built once with `--features natsjet` and once with
//! `--features async-nats`, so what natsjet does is what async-nats does.

#[path = "../../tests/common/mod.rs"]
mod common;

use common::NatsServer;
use natsjet_compat::Outcome;

/// Runs `program` on a fresh JetStream server and prints its transcript.
async fn run<F: Future<Output = Outcome>>(program: impl FnOnce(String) -> F) -> Vec<String> {
    let server = NatsServer::builder().jetstream().start();
    match program(server.client_url()).await {
        Ok(seen) => {
            for line in &seen {
                println!("{line}");
            }
            seen
        }
        Err(e) => panic!("program failed: {e}\n{}", server.log_tail(20)),
    }
}

macro_rules! program {
    ($name:ident, $path:path, [$($line:literal,)*]) => {
        #[tokio::test]
        async fn $name() {
            let seen = run(|url| async move { $path(&url).await }).await;
            assert_eq!(seen, [$($line),*]);
        }
    };
}

program!(
    publish_subscribe,
    natsjet_compat::core::publish_subscribe,
    [
        "greet.joe hello",
        "greet.ann hi",
        "headers Some(\"42\") Some(\"m-1\")",
        "greet.bob yo",
        "reply to greet.replies",
        "after unsubscribe: None",
    ]
);

program!(
    queue_groups,
    natsjet_compat::core::queue_groups,
    ["queue members took 10", "unsubscribe_after(3) delivered 3",]
);

program!(
    request_reply,
    natsjet_compat::core::request_reply,
    ["PING", "HELLO for ann", "BUILT", "no responders", "timed out",]
);

program!(
    connect_and_errors,
    natsjet_compat::core::connect_and_errors,
    [
        "max payload 1048576",
        "state Connected",
        "subscribe: invalid subject",
        "publish: invalid subject",
        "publish: too big",
        "closed event: true",
        "connect: io",
    ]
);

program!(
    manage_streams,
    natsjet_compat::streams::manage_streams,
    [
        "created ORDERS",
        "messages 5 first 1 last 5 consumers 0",
        "storage Memory retention Limits discard Old",
        "raw 2 orders.0 order 2 id Some(\"order-2\")",
        "last on orders.1: 5",
        "direct last on orders.0: 4",
        "direct 1: order 1",
        "deleted 3: true",
        "purged 2 success true",
        "updated max_messages 50",
        "get_or_create kept WorkQueue",
        "names [\"EVENTS\", \"ORDERS\"]",
        "streams [\"EVENTS=0\", \"ORDERS=2\"]",
        "by subject: EVENTS",
        "create again: name exists (400)",
        "get missing: not found",
        "deleted EVENTS: true",
        "delete again: JetStream error",
        "account streams 1",
    ]
);

program!(
    manage_consumers,
    natsjet_compat::consumers::manage_consumers,
    [
        "even: pending 3 ack pending 0 delivered 0/0 filter tasks.even",
        "after two acks: pending 1 ack floor 3/2",
        "cached still 3 pending, name even",
        "got even on TASKS",
        "description Some(\"even tasks\")",
        "odd ack policy Explicit",
        "get_or_create kept filter tasks.odd",
        "ephemeral has a name: true",
        "odd pending 3",
        "consumer names: 3",
        "durables [\"even\", \"odd\"]",
        "missing consumer: not found",
        "deleted odd: true",
        "deleted even: true",
    ]
);

program!(
    publish_with_acks,
    natsjet_compat::publish::publish_with_acks,
    [
        "PAYMENTS 1 duplicate false",
        "batch 2..=21",
        "dedup: 22 then 22 (duplicate true)",
        "with headers: 23",
        "expected last sequence ok: 24",
        "stale: wrong last sequence",
        "wrong stream: Other",
        "no stream: stream not found",
        "stored 24",
    ]
);

program!(
    fetch_batch_messages,
    natsjet_compat::pull::fetch_batch_messages,
    [
        "fetch: [\"events.0\", \"events.1\", \"events.2\", \"events.3\", \"events.4\"]",
        "batch: 10 up to stream sequence 15 (15 pending)",
        "fetch the rest: 15",
        "empty fetch: 0",
        "messages: 30 from event 0 to event 29",
        "stream builder: 30, last 30 of EVENTS by tuned",
    ]
);

program!(
    every_ack_kind,
    natsjet_compat::acks::every_ack_kind,
    [
        "nak: seq 1 delivered 1",
        "redelivered: seq 1 delivered 2",
        "after delay: seq 2 delivered 2",
        "progress twice, then double ack",
        "term: seq 3 delivered 1",
        "nothing left: true",
        "ack floor 5 pending 0 ack pending 0 redelivered 0",
    ]
);

program!(
    shared_durable,
    natsjet_compat::workers::shared_durable,
    ["handled 200 messages, 200 distinct", "ack floor 200 pending 0 ack pending 0",]
);

program!(
    ordered_consumers,
    natsjet_compat::ordered::ordered_consumers,
    [
        "ordered pull: [2, 3, 5, 6, 8, 9, 11, 12]",
        "ordered from last: line 11",
        "ordered push: [\"line 0\", \"line 3\", \"line 6\", \"line 9\"]",
    ]
);

program!(
    push_consumers,
    natsjet_compat::push::push_consumers,
    [
        "push: 10 first alerts.0 last alerts.9",
        "group Some(\"team\")",
        "deliver group took 10",
        "pager pending 0 deliver subject set true",
    ]
);

program!(
    key_value,
    natsjet_compat::kv::key_value,
    [
        "sue.color @ 1 -> blue (Put)",
        "update: wrong last revision",
        "updated to revision 1",
        "create: already exists",
        "get: Some(\"green\")",
        "history: [\"blue\", \"green\"]",
        "after delete: Some(Delete)",
        "get deleted: None",
        "keys: [\"sue.color\"]",
        "watch history: sue.color Put",
        "watch: sue.color -> yellow",
        "watch all: ann.color",
        "status: profiles history 5 values 7",
        "get_key_value: Some(5)",
        "missing bucket: GetBucket",
        "bucket deleted",
    ]
);

program!(
    object_store,
    natsjet_compat::object_store::object_store,
    [
        "put report.bin 307200 bytes in 3 chunks, digest set true",
        "put notes.txt 10 bytes, owner Some(\"sue\")",
        "get 307200 bytes, same: true, info size 307200",
        "info notes.txt Some(\"notes\") deleted false",
        "through the link: some notes",
        "list [\"latest\", \"notes.txt\", \"report.bin\"]",
        "watch: new.txt 3",
        "get deleted: not found",
        "info missing: not found",
        "put after seal: PublishChunks",
        "reopened: 307200",
        "bucket deleted",
    ]
);

program!(
    pull_builder_arities,
    natsjet_compat::switch::pull_builder_arities,
    [
        "fetch 3",
        "batch 3",
        "overflow below min_pending 0",
        "stream [\"jobs.6\", \"jobs.7\", \"jobs.8\", \"jobs.9\", \"jobs.10\", \"jobs.11\"]",
        "nothing left: true",
    ]
);

program!(
    link_to_object,
    natsjet_compat::switch::link_to_object,
    ["link latest to Some(\"report.txt\")", "through the link: quarterly",]
);

program!(
    match_events,
    natsjet_compat::switch::match_events,
    ["connected", "disconnected", "connected", "draining", "closed",]
);

program!(
    header_values,
    natsjet_compat::switch::header_values,
    [
        "try_from refused: invalid character found in header value (value cannot contain '\\r' or '\\n')",
        "parse refused: true",
        "X-Owned: Some(\"owned\")",
        "X-Lossy: Some(\"one two\")",
        "X-Inserted: Some(\"three  four\")",
        "X-Number: Some(\"42\")",
    ]
);

program!(
    program_errors,
    natsjet_compat::switch::program_errors,
    ["state connected", "parsed 42", "own error: \"forty-two\" is spelled out", "status Some((503, true, true))",]
);

program!(
    server_facts,
    natsjet_compat::calls::server_facts,
    [
        "max payload 1048576",
        "info has a version: true",
        "at least 2.10.0: true",
        "at least 99.0.0: false",
        "request timeout Some(4s)",
    ]
);

program!(
    built_context,
    natsjet_compat::calls::built_context,
    [
        "created LOG max_messages -1",
        "updated LOG max_messages 100",
        "third: max ack pending",
        "acks 1 2",
        "no-info handle reads 2 messages",
        "a missing stream's handle fails later: true",
        "domain context reaches nothing: true",
    ]
);

program!(
    sequences_and_split_acks,
    natsjet_compat::calls::sequences_and_split_acks,
    [
        "split message has no reply: true",
        "split message has no reply: true",
        "batch [\"task 0\", \"task 1\"]",
        "split message has no reply: true",
        "split message has no reply: true",
        "batch [\"task 2\", \"task 3\"]",
        "acked 4 pending 1",
    ]
);

program!(
    last_sequence_of_another_subject,
    natsjet_compat::calls::last_sequence_of_another_subject,
    ["stored at 3", "refused: WrongLastSequence",]
);

program!(paced_reconnect, natsjet_compat::calls::paced_reconnect, ["paced by the callback, then connected: true",]);

program!(
    server_pool,
    natsjet_compat::calls::server_pool,
    ["pool [(true, true)]", "empty: refused", "new pool 2 servers, ours in it: true", "still connected",]
);

#[tokio::test]
async fn async_auth() {
    let server = NatsServer::builder().auth(common::auth::Auth::NKey).start();
    let key = std::sync::Arc::new(nkeys::KeyPair::from_seed(&server.nkey_seed()).unwrap());
    let signer = key.clone();
    let sign: natsjet_compat::calls::Signer = std::sync::Arc::new(move |nonce| signer.sign(nonce).unwrap());
    let url = server.client_url();
    let seen = natsjet_compat::calls::async_auth(&url, key.public_key(), sign, String::new());
    assert_eq!(seen.await.unwrap(), ["auth callback: connected", "failing callback connects: false"]);

    let server = NatsServer::builder().auth(common::auth::Auth::Creds).start();
    let user = server.creds_user();
    let key = std::sync::Arc::new(nkeys::KeyPair::from_seed(&user.seed).unwrap());
    let signer = key.clone();
    let sign: natsjet_compat::calls::Signer = std::sync::Arc::new(move |nonce| signer.sign(nonce).unwrap());
    let url = server.client_url();
    let seen = natsjet_compat::calls::async_auth(&url, key.public_key(), sign, user.jwt.clone());
    let seen = seen.await.unwrap();
    assert_eq!(seen.last().map(String::as_str), Some("jwt: connected"), "{seen:?}");
}

program!(
    picked_reconnect,
    natsjet_compat::calls::picked_reconnect,
    ["asked, then connected: true", "shown the pool: Some(1)",]
);

program!(
    connect_options,
    natsjet_compat::options::connect_options,
    [
        "through a 64-byte read buffer: 100000 bytes",
        "through a command capacity of 4: 1000 messages",
        "taken local address: io",
        "skipping validation: empty token published",
        "empty subject: invalid",
        "subscribe: invalid",
    ]
);

#[tokio::test]
async fn tls_client_config() {
    let server = NatsServer::builder().tls(common::Tls::Server).start();
    let seen = natsjet_compat::options::tls_client_config(&server.tls_url(), &server.tls_files().ca_pem).await;
    let seen = seen.unwrap_or_else(|e| panic!("program failed: {e}\n{}", server.log_tail(20)));
    assert_eq!(seen, ["roots 1", "over TLS: sealed", "trusting nothing refused: true"]);
}

program!(
    subjects_and_times,
    natsjet_compat::options::subjects_and_times,
    [
        "validated events.data",
        "\"invalid subject\": Err(InvalidFormat) invalid subject format",
        "\"\": Err(InvalidFormat) invalid subject format",
        "\".invalid\": Err(InvalidFormat) invalid subject format",
        "\"a..b\": Err(InvalidFormat) invalid subject format",
        "const events.data valid: true",
        "is_valid a..b: false",
        "an error to match: true",
        "parsed 2023-01-02 3:04:05.123456789 +00:00:00 (1672628645123456789 ns)",
        "from nanos 1969-12-31 23:59:59.999999999 +00:00:00",
        "plus 1.5s 2023-01-02 3:04:06.623456789 +00:00:00",
        "overflow refused: true",
        "garbage refused: true",
        "now is later: true",
    ]
);

program!(
    micro_service,
    natsjet_compat::service::micro_service,
    [
        "bad version refused: true",
        "bad name refused: true",
        "started calc 1.2.3-beta.1 \"arithmetic\" [(\"team\", \"math\")]",
        "calc.add \"1, 2, 3\": 6",
        "calc.add \"x\": error 422 not a number (payload 0 bytes)",
        "calc.div \"84/2\": 42",
        "calc.div \"1/0\": error 400 division by zero (payload 0 bytes)",
        "ping io.nats.micro.v1.ping_response calc 1.2.3-beta.1 [(\"team\", \"math\")] id matches true",
        "info io.nats.micro.v1.info_response \"arithmetic\"",
        "  endpoint calc-add on calc.add in q []",
        "  endpoint divide on calc.div in q [(\"unit\", \"integer\")]",
        "stats io.nats.micro.v1.stats_response calc 1.2.3-beta.1",
        "  calc-add requests 2 errors 1 last Some(\"422:not a number\") timed true average true data {\"endpoint\":\"calc.add\",\"requests\":2}",
        "  divide requests 2 errors 1 last Some(\"400:division by zero\") timed true average true data {\"endpoint\":\"divide\",\"requests\":2}",
        "instances answering ping: 2",
        "40 adds: 40 answered, by both: true",
        "after reset: [\"calc.add=0/0\", \"divide=0/0\"]",
        "after stop: no responders",
    ]
);
