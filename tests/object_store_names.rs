//! Object names outside ASCII against a real server. natsjet keys a meta
//! by the base64 of the name's UTF-8 bytes, as async-nats and nats.go do;
//! nats.js 3.4 keys it by `btoa(name)`, the name's Latin-1 bytes. Objects
//! nats.js wrote (laid out here by hand, as nats.js writes them) are found,
//! read, listed, replaced and deleted by their name all the same.
#![cfg(not(target_arch = "wasm32"))]

mod common;
mod objects;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE;
use bytes::Bytes;
use common::NatsServer;
use natsjet::jetstream::Context;
use natsjet::jetstream::object_store::{GetErrorKind, ObjectMetadata, UpdateMetadata};
use objects::{bucket, collect, data, js, names, read_all, subjects};
use sha2::{Digest as _, Sha256};

const NAME: &str = "café-ü.txt";
/// WIRE.md's example: the meta subjects of [`NAME`] in bucket `b`.
const UTF8_META: &str = "$O.b.M.Y2Fmw6ktw7wudHh0";
const LATIN1_META: &str = "$O.b.M.Y2Fm6S38LnR4dA==";

/// Writes `bytes` as object `name` of bucket `b` the way nats.js 3.4 does:
/// chunks of `chunk` bytes, then its meta JSON (its field order, an empty
/// description, an ISO `mtime`) with a rollup, under `btoa(name)`.
async fn put_as_nats_js(js: &Context, name: &str, bytes: &[u8], chunk: usize, nuid: &str) -> String {
    for piece in bytes.chunks(chunk) {
        js.publish(format!("$O.b.C.{nuid}"), Bytes::copy_from_slice(piece)).await.unwrap().await.unwrap();
    }
    let latin1: Vec<u8> = name.chars().map(|c| u8::try_from(u32::from(c)).expect("a Latin-1 name")).collect();
    let subject = format!("$O.b.M.{}", URL_SAFE.encode(latin1));
    let meta = serde_json::json!({
        "bucket": "b", "nuid": nuid, "size": bytes.len(), "chunks": bytes.len().div_ceil(chunk),
        "name": name, "description": "", "options": {"max_chunk_size": chunk},
        "mtime": "2026-11-30T12:00:00.000Z",
        "digest": format!("SHA-256={}", URL_SAFE.encode(Sha256::digest(bytes))), "deleted": false,
    });
    let mut headers = natsjet::header::HeaderMap::new();
    headers.insert("Nats-Rollup", "sub");
    let payload = Bytes::from(serde_json::to_vec(&meta).unwrap());
    js.publish_with_headers(subject.clone(), headers, payload).await.unwrap().await.unwrap();
    subject
}

#[tokio::test]
async fn natsjet_keys_a_name_by_its_utf8_bytes() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "b").await;
    let info = store.put(NAME, &mut &data(300)[..]).await.unwrap();
    assert_eq!(info.name, NAME);
    let held = subjects(&js, "b").await;
    assert_eq!(held.get(UTF8_META), Some(&1), "{held:?}");
    assert_eq!(held.get(LATIN1_META), None);
    assert_eq!(read_all(&mut store.get(NAME).await.unwrap()).await.unwrap(), data(300));

    // Names nats.js cannot encode at all, and ones that look like subjects.
    for name in ["snow ☃ 雪", "dir/sub dir/file *.txt", "a.b.>", " ", "\u{0}"] {
        store.put(name, &mut &name.as_bytes()[..]).await.unwrap();
        assert_eq!(read_all(&mut store.get(name).await.unwrap()).await.unwrap(), name.as_bytes(), "{name:?}");
    }
    let listed = collect(store.list().await.unwrap(), None).await;
    assert_eq!(names(&listed), ["\u{0}", " ", "a.b.>", NAME, "dir/sub dir/file *.txt", "snow ☃ 雪"]);
}

#[tokio::test]
async fn an_object_nats_js_wrote_under_its_latin1_name_is_found_read_listed_and_deleted() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "b").await;
    let bytes = data(2500);
    assert_eq!(put_as_nats_js(&js, NAME, &bytes, 1000, "NATSJSNUID0000000000AA").await, LATIN1_META);
    store.put("naïve.txt", &mut &b"natsjet's"[..]).await.unwrap();

    let info = store.info(NAME).await.unwrap();
    assert_eq!((info.name.as_str(), info.size, info.chunks, info.description), (NAME, 2500, 3, None));
    assert!(info.modified.is_some(), "the time the server stored it");
    assert_eq!(read_all(&mut store.get(NAME).await.unwrap()).await.unwrap(), bytes);
    let listed = collect(store.list().await.unwrap(), None).await;
    assert_eq!(names(&listed), [NAME, "naïve.txt"], "both kinds");

    store.delete(NAME).await.unwrap();
    assert_eq!(store.get(NAME).await.unwrap_err().kind(), GetErrorKind::NotFound);
    assert!(store.info(NAME).await.unwrap().deleted);
    let held = subjects(&js, "b").await;
    assert_eq!(held.get(LATIN1_META), Some(&1), "nats.js finds the delete where it looks");
    assert_eq!(held.get("$O.b.C.NATSJSNUID0000000000AA"), None, "its chunks are purged");
    assert_eq!(names(&collect(store.list().await.unwrap(), None).await), ["naïve.txt"]);
}

#[tokio::test]
async fn replacing_or_renaming_an_object_nats_js_wrote_leaves_one_meta() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "b").await;
    put_as_nats_js(&js, NAME, &data(1500), 1000, "NATSJSNUID0000000000AB").await;
    let meta = ObjectMetadata { name: NAME.into(), description: Some("now natsjet's".into()), ..Default::default() };
    store.put(meta, &mut &b"v2"[..]).await.unwrap();
    let held = subjects(&js, "b").await;
    assert_eq!((held.get(UTF8_META), held.get(LATIN1_META)), (Some(&1), None), "{held:?}");
    assert_eq!(held.get("$O.b.C.NATSJSNUID0000000000AB"), None, "the old chunks are purged");
    assert_eq!(read_all(&mut store.get(NAME).await.unwrap()).await.unwrap(), b"v2");
    assert_eq!(names(&collect(store.list().await.unwrap(), None).await), [NAME]);

    put_as_nats_js(&js, "größe.bin", &data(10), 1000, "NATSJSNUID0000000000AC").await;
    store.update_metadata("größe.bin", UpdateMetadata { name: "size.bin".into(), ..Default::default() }).await.unwrap();
    assert_eq!(read_all(&mut store.get("size.bin").await.unwrap()).await.unwrap(), data(10));
    assert_eq!(store.get("größe.bin").await.unwrap_err().kind(), GetErrorKind::NotFound);
    assert_eq!(names(&collect(store.list().await.unwrap(), None).await), [NAME, "size.bin"]);
}

#[tokio::test]
async fn when_both_clients_wrote_a_name_the_newer_object_is_the_one() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "b").await;
    // natsjet first, then nats.js, which does not see natsjet's meta and
    // writes its own under the other subject.
    store.put(NAME, &mut &b"natsjet's, older"[..]).await.unwrap();
    put_as_nats_js(&js, NAME, b"nats.js's, newer", 1000, "NATSJSNUID0000000000AD").await;
    assert_eq!(store.info(NAME).await.unwrap().nuid, "NATSJSNUID0000000000AD");
    assert_eq!(read_all(&mut store.get(NAME).await.unwrap()).await.unwrap(), b"nats.js's, newer");

    // natsjet's next write leaves the name one meta and one set of chunks.
    store.put(NAME, &mut &b"natsjet's, newest"[..]).await.unwrap();
    let held = subjects(&js, "b").await;
    assert_eq!(held.len(), 2, "one meta, one chunk: {held:?}");
    assert_eq!(read_all(&mut store.get(NAME).await.unwrap()).await.unwrap(), b"natsjet's, newest");
    put_as_nats_js(&js, NAME, b"nats.js's again", 1000, "NATSJSNUID0000000000AE").await;
    store.delete(NAME).await.unwrap();
    assert!(store.info(NAME).await.unwrap().deleted);
    assert!(collect(store.list().await.unwrap(), None).await.is_empty(), "neither version is left");
    let held = subjects(&js, "b").await;
    assert!(held.keys().all(|s| s.starts_with("$O.b.M.")), "no chunks left: {held:?}");
}

#[tokio::test]
async fn a_latin1_subject_that_is_another_names_utf8_subject_is_not_that_name() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "b").await;
    // nats.js keys "Ã©" by the bytes C3 A9, which are "é" in UTF-8.
    let subject = put_as_nats_js(&js, "Ã©", b"mojibake", 1000, "NATSJSNUID0000000000AF").await;
    assert_eq!(subject, natsjet::jetstream::object_store::names::meta_subject("b", "é"));
    assert_eq!(store.info("é").await.unwrap_err().kind(), natsjet::jetstream::object_store::InfoErrorKind::NotFound);
    assert_eq!(read_all(&mut store.get("Ã©").await.unwrap()).await.unwrap(), b"mojibake");
}

#[tokio::test]
async fn a_link_nats_js_wrote_between_latin1_names_is_followed() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "b").await;
    put_as_nats_js(&js, NAME, b"the target", 1000, "NATSJSNUID0000000000AG").await;
    // nats.js's `link()`: no nuid, size, digest or mtime, no rollup.
    let link = serde_json::json!({"name": "lien-é", "bucket": "b", "options": {"link": {"bucket": "b", "name": NAME}}});
    let subject = format!("$O.b.M.{}", URL_SAFE.encode(b"lien-\xe9"));
    js.publish(subject, Bytes::from(serde_json::to_vec(&link).unwrap())).await.unwrap().await.unwrap();

    let info = store.info("lien-é").await.unwrap();
    assert_eq!(info.link().and_then(|l| l.name.as_deref()), Some(NAME));
    let mut object = store.get("lien-é").await.unwrap();
    assert_eq!(object.info().name, NAME);
    assert_eq!(read_all(&mut object).await.unwrap(), b"the target");
}
