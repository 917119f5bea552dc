//! Managing objects and buckets against a real server: deletes, links to
//! objects and buckets and the links refused, meta updates and renames,
//! seals, status, listings, watches, bucket calls, and bad names refused
//! before anything is written.
#![cfg(not(target_arch = "wasm32"))]

mod common;
mod objects;

use std::collections::HashMap;
use std::time::Duration;

use common::NatsServer;
use futures_util::StreamExt;
use natsjet::header::HeaderMap;
use natsjet::jetstream::api::{ErrorCode, StorageType, StreamConfig};
use natsjet::jetstream::object_store::names::meta_subject;
use natsjet::jetstream::object_store::{
    self, AddLinkErrorKind, CreateObjectStoreErrorKind, DeleteErrorKind, GetErrorKind, InfoErrorKind, ObjectLink,
    ObjectMetadata, ObjectStoreErrorKind, PutErrorKind, UpdateMetadata, UpdateMetadataErrorKind, WatchOptions,
};
use natsjet::jetstream::{Context, kv};
use objects::{WAIT, bucket, chunk_messages, collect, data, js, names, read_all, subjects};
use tokio::time::timeout;

async fn put(store: &object_store::ObjectStore, name: &str, bytes: &[u8]) -> object_store::ObjectInfo {
    let meta = ObjectMetadata { name: name.into(), chunk_size: Some(100), ..Default::default() };
    store.put(meta, &mut &bytes[..]).await.unwrap()
}

/// The server's error code under an error's cause.
fn code(cause: &natsjet::Error) -> ErrorCode {
    match cause {
        natsjet::Error::JetStream(e) => e.err_code,
        other => panic!("not the server's refusal: {other:?}"),
    }
}

#[tokio::test]
async fn a_deleted_object_is_not_found_its_meta_says_deleted_and_its_chunks_are_gone() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "d").await;
    put(&store, "gone", &data(250)).await;
    put(&store, "kept", &data(10)).await;
    store.delete("gone").await.unwrap();

    assert_eq!(store.get("gone").await.unwrap_err().kind(), GetErrorKind::NotFound);
    let info = store.info("gone").await.unwrap();
    assert!(info.deleted);
    assert_eq!((info.size, info.chunks, info.digest), (0, 0, None));
    assert_eq!(chunk_messages(&js, "d").await, 1, "only kept's chunk is left");
    assert_eq!(names(&collect(store.list().await.unwrap(), None).await), ["kept"]);
    assert_eq!(store.get("never").await.unwrap_err().kind(), GetErrorKind::NotFound);
    assert_eq!(store.delete("never").await.unwrap_err().kind(), DeleteErrorKind::NotFound);
    // A name can be used again.
    put(&store, "gone", b"back").await;
    assert_eq!(read_all(&mut store.get("gone").await.unwrap()).await.unwrap(), b"back");
}

#[tokio::test]
async fn links_to_objects_in_this_and_another_bucket_are_followed() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "here").await;
    let other = bucket(&js, "there").await;
    let local = put(&store, "local", b"near").await;
    let remote = put(&other, "remote", b"far away").await;

    let link = store.add_link("to-local", &local).await.unwrap();
    assert_eq!(link.link(), Some(&ObjectLink { name: Some("local".into()), bucket: "here".into() }));
    assert_eq!((link.bucket.as_str(), link.size, link.digest.as_deref()), ("here", 0, None));
    store.add_link("to-remote", &remote).await.unwrap();
    assert_eq!(store.info("to-remote").await.unwrap().link().map(|l| l.bucket.as_str()), Some("there"));

    let mut object = store.get("to-local").await.unwrap();
    assert_eq!(object.info().name, "local", "the target's info");
    assert_eq!(read_all(&mut object).await.unwrap(), b"near");
    let mut object = store.get("to-remote").await.unwrap();
    assert_eq!((object.info().name.as_str(), object.info().bucket.as_str()), ("remote", "there"));
    assert_eq!(read_all(&mut object).await.unwrap(), b"far away");
    // A link whose target was deleted leads nowhere.
    other.delete("remote").await.unwrap();
    assert_eq!(store.get("to-remote").await.unwrap_err().kind(), GetErrorKind::NotFound);
    // Links are listed with the objects.
    assert_eq!(names(&collect(store.list().await.unwrap(), None).await), ["local", "to-local", "to-remote"]);
}

#[tokio::test]
async fn a_link_to_a_bucket_is_listed_but_is_not_an_object_to_get() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "b").await;
    bucket(&js, "target").await;
    let link = store.add_bucket_link("all-of-target", "target").await.unwrap();
    assert_eq!(link.link(), Some(&ObjectLink { name: None, bucket: "target".into() }));
    assert_eq!(store.info("all-of-target").await.unwrap().link(), link.link());
    assert_eq!(store.get("all-of-target").await.unwrap_err().kind(), GetErrorKind::BucketLink);
    let bad = store.add_bucket_link("l", "not.a.bucket").await.unwrap_err();
    assert!(matches!(bad.cause(), natsjet::Error::InvalidArgument(_)), "{bad:?}");
}

#[tokio::test]
async fn links_that_cannot_be_made_are_refused() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "l").await;
    let object = put(&store, "object", b"x").await;
    let link = store.add_link("link", &object).await.unwrap();

    let kind = async |name: &str, to: &object_store::ObjectInfo| store.add_link(name, to).await.unwrap_err().kind();
    assert_eq!(kind("", &object).await, AddLinkErrorKind::EmptyName);
    let nameless = object_store::ObjectInfo { name: String::new(), ..object.clone() };
    assert_eq!(kind("l2", &nameless).await, AddLinkErrorKind::ObjectRequired);
    let deleted = object_store::ObjectInfo { deleted: true, ..object.clone() };
    assert_eq!(kind("l2", &deleted).await, AddLinkErrorKind::Deleted);
    assert_eq!(kind("l2", &link).await, AddLinkErrorKind::LinkToLink);
    assert_eq!(kind("object", &object).await, AddLinkErrorKind::AlreadyExists, "a link never hides an object");
    assert_eq!(store.add_bucket_link("object", "l").await.unwrap_err().kind(), AddLinkErrorKind::AlreadyExists);
    assert_eq!(store.add_bucket_link("", "l").await.unwrap_err().kind(), AddLinkErrorKind::EmptyName);

    // A link may replace a link, and take a deleted object's name.
    let other = put(&store, "other", b"y").await;
    store.add_link("link", &other).await.unwrap();
    assert_eq!(read_all(&mut store.get("link").await.unwrap()).await.unwrap(), b"y");
    store.delete("object").await.unwrap();
    store.add_link("object", &other).await.unwrap();
    // Links lead one step: a link to what became a link is refused at get.
    let chain = store.add_link("chain", &other).await.unwrap();
    assert!(chain.link().is_some());
    store.delete("other").await.unwrap();
    let hop = store.add_link("other", &put(&store, "last", b"z").await).await.unwrap();
    assert!(hop.link().is_some());
    let refused = store.get("chain").await.unwrap_err();
    assert_eq!(refused.kind(), GetErrorKind::Other, "{refused:?}");
}

#[tokio::test]
async fn update_metadata_changes_the_meta_in_place() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "u").await;
    let before = put(&store, "o", &data(150)).await;
    let headers: HeaderMap = [("X-A", "1")].into_iter().collect();
    let update = UpdateMetadata {
        name: "o".into(),
        description: Some("now described".into()),
        metadata: HashMap::from([("k".into(), "v".into())]),
        headers: Some(headers.clone()),
    };
    let updated = store.update_metadata("o", update).await.unwrap();
    let info = store.info("o").await.unwrap();
    for got in [&updated, &info] {
        assert_eq!(got.description.as_deref(), Some("now described"));
        assert_eq!(got.metadata.get("k").map(String::as_str), Some("v"));
        assert_eq!(got.headers.as_ref(), Some(&headers));
        assert_eq!((&got.nuid, got.size, &got.digest), (&before.nuid, 150, &before.digest), "same bytes");
    }
    assert_eq!(subjects(&js, "u").await.get(&meta_subject("u", "o")), Some(&1), "one meta");
    assert_eq!(read_all(&mut store.get("o").await.unwrap()).await.unwrap(), data(150));

    let missing = store.update_metadata("never", UpdateMetadata { name: "never".into(), ..Default::default() });
    assert_eq!(missing.await.unwrap_err().kind(), UpdateMetadataErrorKind::NotFound);
    store.delete("o").await.unwrap();
    let deleted = store.update_metadata("o", UpdateMetadata { name: "o".into(), ..Default::default() });
    assert_eq!(deleted.await.unwrap_err().kind(), UpdateMetadataErrorKind::NotFound);
}

#[tokio::test]
async fn a_rename_moves_the_meta_and_never_takes_a_used_name() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "n").await;
    put(&store, "old", &data(150)).await;
    put(&store, "taken", b"t").await;
    let rename = |to: &str| UpdateMetadata { name: to.into(), ..Default::default() };

    let taken = store.update_metadata("old", rename("taken")).await.unwrap_err();
    assert_eq!(taken.kind(), UpdateMetadataErrorKind::NameAlreadyInUse);
    let renamed = store.update_metadata("old", rename("new")).await.unwrap();
    assert_eq!(renamed.name, "new");
    assert_eq!(store.info("old").await.unwrap_err().kind(), InfoErrorKind::NotFound);
    let held = subjects(&js, "n").await;
    assert_eq!(held.get(&meta_subject("n", "old")), None, "the old name's meta is purged");
    assert_eq!(held.get(&meta_subject("n", "new")), Some(&1));
    assert_eq!(read_all(&mut store.get("new").await.unwrap()).await.unwrap(), data(150));
    // A deleted object's name is free.
    store.delete("taken").await.unwrap();
    store.update_metadata("new", rename("taken")).await.unwrap();
    assert_eq!(read_all(&mut store.get("taken").await.unwrap()).await.unwrap(), data(150));
    let bad = store.update_metadata("taken", rename("")).await.unwrap_err();
    assert_eq!(bad.kind(), UpdateMetadataErrorKind::InvalidName);
}

#[tokio::test]
async fn a_sealed_bucket_refuses_writes_with_the_servers_code_and_still_reads() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let mut store = bucket(&js, "s").await;
    let object = put(&store, "o", &data(250)).await;
    store.seal().await.unwrap();
    assert!(store.status().await.unwrap().sealed());

    let refused = store.put("p", &mut &data(250)[..]).await.unwrap_err();
    assert_eq!(refused.kind(), PutErrorKind::PublishChunks);
    assert_eq!(code(refused.cause()), ErrorCode::STREAM_SEALED);
    let refused = store.put("empty", &mut &b""[..]).await.unwrap_err();
    assert_eq!(refused.kind(), PutErrorKind::PublishMetadata, "no chunks: the meta is refused");
    assert_eq!(code(refused.cause()), ErrorCode::STREAM_SEALED);
    let refused = store.delete("o").await.unwrap_err();
    assert_eq!(refused.kind(), DeleteErrorKind::Metadata);
    assert_eq!(code(refused.cause()), ErrorCode::STREAM_SEALED);
    let update = UpdateMetadata { name: "o".into(), description: Some("d".into()), ..Default::default() };
    let refused = store.update_metadata("o", update).await.unwrap_err();
    assert_eq!(refused.kind(), UpdateMetadataErrorKind::PublishMetadata);
    assert_eq!(code(refused.cause()), ErrorCode::STREAM_SEALED);
    let refused = store.add_link("l", &object).await.unwrap_err();
    assert_eq!(refused.kind(), AddLinkErrorKind::PublishMetadata);
    assert_eq!(code(refused.cause()), ErrorCode::STREAM_SEALED);

    assert_eq!(read_all(&mut store.get("o").await.unwrap()).await.unwrap(), data(250));
    assert_eq!(names(&collect(store.list().await.unwrap(), None).await), ["o"]);
    assert_eq!(subjects(&js, "s").await.len(), 2, "o's chunks and meta, nothing more");
}

#[tokio::test]
async fn status_reports_the_buckets_settings_and_size() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let config = object_store::Config {
        bucket: "st".into(),
        description: Some("the status bucket".into()),
        max_age: Duration::from_secs(3600),
        max_bytes: 1 << 20,
        storage: StorageType::Memory,
        num_replicas: 1,
        compression: true,
        placement: None,
        metadata: HashMap::from([("team".into(), "infra".into())]),
        allow_batched: false,
    };
    let store = js.create_object_store(config).await.unwrap();
    let empty = store.status().await.unwrap();
    assert_eq!(empty.bucket(), "st");
    assert_eq!(empty.description(), Some("the status bucket"));
    assert_eq!(empty.ttl(), Duration::from_secs(3600));
    assert_eq!((empty.storage(), empty.replicas(), empty.sealed()), (StorageType::Memory, 1, false));
    assert_eq!(empty.metadata().get("team").map(String::as_str), Some("infra"));
    assert_eq!(empty.info.config.max_bytes, 1 << 20);
    assert_eq!(empty.size(), 0);
    put(&store, "o", &data(1000)).await;
    let full = store.status().await.unwrap();
    assert!(full.size() > 1000, "chunks and meta: {} bytes", full.size());
    assert_eq!(full.info.state.messages, 11);
}

#[tokio::test]
async fn a_listing_shows_every_object_once_and_ends() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "ls").await;
    assert!(collect(store.list().await.unwrap(), None).await.is_empty(), "an empty bucket lists nothing and ends");
    for name in ["a", "b", "c", "d"] {
        put(&store, name, name.as_bytes()).await;
    }
    put(&store, "b", b"b, replaced").await;
    store.delete("c").await.unwrap();
    let listed = collect(store.list().await.unwrap(), None).await;
    assert_eq!(names(&listed), ["a", "b", "d"]);
    assert_eq!(listed.iter().find(|i| i.name == "b").unwrap().size, 11, "the newest version");
    assert!(listed.iter().all(|i| i.modified.is_some()));
    store.delete("a").await.unwrap();
    store.delete("b").await.unwrap();
    store.delete("d").await.unwrap();
    assert!(collect(store.list().await.unwrap(), None).await.is_empty(), "only deleted objects: nothing");
}

#[tokio::test]
async fn a_watch_sees_puts_and_deletes_from_now_on() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "w").await;
    put(&store, "before", b"x").await;
    let mut watch = store.watch().await.unwrap();
    assert!(watch.seen_current(), "nothing old to deliver");
    put(&store, "after", b"y").await;
    store.delete("before").await.unwrap();
    let seen = collect(&mut watch, Some(2)).await;
    assert_eq!((seen[0].name.as_str(), seen[0].deleted, seen[0].size), ("after", false, 1));
    assert_eq!((seen[1].name.as_str(), seen[1].deleted), ("before", true));
    assert!(seen.iter().all(|i| i.modified.is_some()));
}

#[tokio::test]
async fn a_watch_with_history_starts_with_each_objects_newest_meta() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "h").await;
    put(&store, "a", b"1").await;
    put(&store, "b", b"1").await;
    put(&store, "a", b"22").await;
    let mut watch = store.watch_with_history().await.unwrap();
    assert!(!watch.seen_current());
    let first = collect(&mut watch, Some(1)).await;
    assert!(!watch.seen_current(), "one of two delivered");
    let second = collect(&mut watch, Some(1)).await;
    assert!(watch.seen_current());
    let mut old: Vec<_> = first.iter().chain(&second).map(|i| (i.name.clone(), i.size)).collect();
    old.sort();
    assert_eq!(old, [("a".to_string(), 2), ("b".to_string(), 1)]);
    put(&store, "c", b"333").await;
    assert_eq!(collect(&mut watch, Some(1)).await[0].name, "c");

    let mut empty = bucket(&js, "h2").await.watch_with_history().await.unwrap();
    assert!(empty.seen_current(), "an empty bucket is current at once");
    put(&js.get_object_store("h2").await.unwrap(), "x", b"x").await;
    assert_eq!(collect(&mut empty, Some(1)).await[0].name, "x");
}

#[tokio::test]
async fn a_watch_can_leave_deletes_out() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "i").await;
    put(&store, "dead", b"x").await;
    store.delete("dead").await.unwrap();
    put(&store, "alive", b"y").await;
    let options = WatchOptions { include_history: true, ignore_deletes: true };
    let mut watch = store.watch_with(options).await.unwrap();
    put(&store, "doomed", b"z").await;
    store.delete("doomed").await.unwrap();
    put(&store, "last", b"w").await;
    let seen = collect(&mut watch, Some(3)).await;
    let seen: Vec<_> = seen.iter().map(|i| (i.name.as_str(), i.deleted)).collect();
    assert_eq!(seen, [("alive", false), ("doomed", false), ("last", false)]);
}

#[tokio::test]
async fn buckets_are_created_opened_listed_and_deleted() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let config = |bucket: &str| object_store::Config { bucket: bucket.into(), ..Default::default() };
    js.create_object_store(config("one")).await.unwrap();
    js.create_object_store(config("one")).await.expect("the same config again is the same bucket");
    let other = object_store::Config { description: Some("else".into()), ..config("one") };
    let refused = js.create_object_store(other.clone()).await.unwrap_err();
    assert_eq!(refused.kind(), CreateObjectStoreErrorKind::BucketCreate);
    assert_eq!(code(refused.cause()), ErrorCode::STREAM_NAME_EXIST);
    let existing = js.get_or_create_object_store(other).await.unwrap();
    assert_eq!(existing.status().await.unwrap().description(), None, "the bucket as it is");
    js.get_or_create_object_store(config("two")).await.unwrap();
    assert_eq!(js.get_object_store("two").await.unwrap().bucket(), "two");
    assert_eq!(js.get_object_store("none").await.unwrap_err().kind(), ObjectStoreErrorKind::GetStore);

    // Neither a KV bucket nor another stream is an object store.
    js.create_key_value(kv::Config { bucket: "kv".into(), ..Default::default() }).await.unwrap();
    js.create_stream(StreamConfig { name: "OTHER".into(), subjects: vec!["other".into()], ..Default::default() })
        .await
        .unwrap();
    let listed = |js: Context| async move {
        let mut names: Vec<String> = js.object_store_names().map(Result::unwrap).collect().await;
        names.sort();
        let mut statuses: Vec<String> = js.object_stores().map(|s| s.unwrap().bucket).collect().await;
        statuses.sort();
        assert_eq!(names, statuses);
        names
    };
    assert_eq!(timeout(WAIT, listed(js.clone())).await.unwrap(), ["one", "two"]);
    js.delete_object_store("one").await.unwrap();
    assert_eq!(js.get_object_store("one").await.unwrap_err().kind(), ObjectStoreErrorKind::GetStore);
    assert_eq!(timeout(WAIT, listed(js.clone())).await.unwrap(), ["two"]);
    assert_eq!(js.delete_object_store("one").await.unwrap_err().kind(), ObjectStoreErrorKind::GetStore);
}

#[tokio::test]
async fn bad_names_are_refused_before_anything_is_written() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "v").await;
    let object = put(&store, "o", b"x").await;
    let sent = || js.client().statistics().out_messages;
    let before = sent();

    for bad in ["", "a.b", "a b", "a*", "a>", "ü"] {
        let config = object_store::Config { bucket: bad.into(), ..Default::default() };
        let created = js.create_object_store(config.clone()).await.unwrap_err();
        assert_eq!(created.kind(), CreateObjectStoreErrorKind::InvalidStoreName, "{bad:?}");
        let opened = js.get_or_create_object_store(config).await.unwrap_err();
        assert_eq!(opened.kind(), CreateObjectStoreErrorKind::InvalidStoreName, "{bad:?}");
        assert_eq!(js.get_object_store(bad).await.unwrap_err().kind(), ObjectStoreErrorKind::InvalidBucketName);
        assert_eq!(js.delete_object_store(bad).await.unwrap_err().kind(), ObjectStoreErrorKind::InvalidBucketName);
        let link = store.add_bucket_link("l", bad).await.unwrap_err();
        assert!(matches!(link.cause(), natsjet::Error::InvalidArgument(_)), "{bad:?}: {link:?}");
    }
    let too_long = "x".repeat(object_store::names::MAX_NAME_LEN + 1);
    for bad in ["", too_long.as_str()] {
        assert_eq!(store.put(bad, &mut &b"x"[..]).await.unwrap_err().kind(), PutErrorKind::InvalidName);
        let pieces = futures_util::stream::iter([Ok::<_, std::io::Error>(bytes::Bytes::from_static(b"x"))]);
        assert_eq!(store.put_stream(bad, pieces).await.unwrap_err().kind(), PutErrorKind::InvalidName);
        assert_eq!(store.get(bad).await.unwrap_err().kind(), GetErrorKind::InvalidName);
        assert_eq!(store.info(bad).await.unwrap_err().kind(), InfoErrorKind::InvalidName);
        assert_eq!(store.delete(bad).await.unwrap_err().kind(), DeleteErrorKind::InvalidName);
        let update = UpdateMetadata { name: "o".into(), ..Default::default() };
        assert_eq!(store.update_metadata(bad, update).await.unwrap_err().kind(), UpdateMetadataErrorKind::InvalidName);
        assert_eq!(store.add_link(bad, &object).await.unwrap_err().kind(), AddLinkErrorKind::EmptyName);
        assert_eq!(store.add_bucket_link(bad, "v").await.unwrap_err().kind(), AddLinkErrorKind::EmptyName);
    }
    let renamed = store.update_metadata("o", UpdateMetadata { name: too_long.clone(), ..Default::default() });
    assert_eq!(renamed.await.unwrap_err().kind(), UpdateMetadataErrorKind::InvalidName);
    // The rename looked "o" up; nothing else went out.
    assert_eq!(sent() - before, 1, "one lookup, no write");
    assert_eq!(subjects(&js, "v").await.len(), 2, "o's chunk and meta");
}
