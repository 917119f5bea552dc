//! Key-Value buckets: put, get, entries and revisions, optimistic updates
//! and creates with their error kinds, delete and purge, keys, history,
//! watches and status.

use futures_util::{StreamExt, TryStreamExt};

use crate::nats;
use crate::nats::jetstream::{self, kv};
use crate::{Outcome, Transcript};

pub async fn key_value(url: &str) -> Outcome {
    let mut seen = Transcript::new();
    let js = jetstream::new(nats::connect(url).await?);
    let store =
        js.create_key_value(kv::Config { bucket: "profiles".to_string(), history: 5, ..Default::default() }).await?;

    let first = store.put("sue.color", "blue".into()).await?;
    let entry = store.entry("sue.color").await?.expect("no entry");
    seen.push(format!(
        "{} @ {} -> {} ({:?})",
        entry.key,
        entry.revision,
        String::from_utf8_lossy(&entry.value),
        entry.operation
    ));

    match store.update("sue.color", "red".into(), first + 100).await {
        Err(e) if e.kind() == kv::UpdateErrorKind::WrongLastRevision => seen.push("update: wrong last revision".into()),
        other => seen.push(format!("update: {:?}", other.map_err(|e| e.kind()))),
    }
    let second = store.update("sue.color", "green".into(), first).await?;
    seen.push(format!("updated to revision {}", second - first));
    match store.create("sue.color", "pink".into()).await {
        Err(e) if e.kind() == kv::CreateErrorKind::AlreadyExists => seen.push("create: already exists".into()),
        other => seen.push(format!("create: {:?}", other.map_err(|e| e.kind()))),
    }
    store.create("sue.food", "pizza".into()).await?;
    let value = store.get("sue.color").await?;
    seen.push(format!("get: {:?}", value.map(|v| String::from_utf8_lossy(&v).to_string())));

    let history: Vec<kv::Entry> = store.history("sue.color").await?.try_collect().await?;
    seen.push(format!(
        "history: {:?}",
        history.iter().map(|e| String::from_utf8_lossy(&e.value).to_string()).collect::<Vec<_>>()
    ));

    store.put("bob.color", "black".into()).await?;
    store.delete("bob.color").await?;
    let deleted = store.entry("bob.color").await?;
    seen.push(format!("after delete: {:?}", deleted.map(|e| e.operation)));
    seen.push(format!("get deleted: {:?}", store.get("bob.color").await?));
    store.purge("sue.food").await?;

    let mut keys = store.keys().await?.try_collect::<Vec<String>>().await?;
    keys.sort();
    seen.push(format!("keys: {keys:?}"));

    let mut watch = store.watch_with_history("sue.>").await?;
    let current = watch.next().await.expect("watch ended")?;
    seen.push(format!("watch history: {} {:?}", current.key, current.operation));
    let mut changes = store.watch("sue.color").await?;
    store.put("sue.color", "yellow".into()).await?;
    let change = changes.next().await.expect("watch ended")?;
    seen.push(format!("watch: {} -> {}", change.key, String::from_utf8_lossy(&change.value)));
    let mut all = store.watch_all().await?;
    store.put("ann.color", "white".into()).await?;
    let any = all.next().await.expect("watch ended")?;
    seen.push(format!("watch all: {}", any.key));

    let again = js.get_key_value("profiles").await?;
    let status = again.status().await?;
    seen.push(format!("status: {} history {} values {}", status.bucket(), status.history(), status.values()));
    seen.push(format!("get_key_value: {:?}", again.get("ann.color").await?.map(|v| v.len())));
    match js.get_key_value("missing").await {
        Err(e) => seen.push(format!("missing bucket: {:?}", e.kind())),
        Ok(_) => seen.push("found a missing bucket".into()),
    }
    js.delete_key_value("profiles").await?;
    seen.push("bucket deleted".into());
    Ok(seen)
}
