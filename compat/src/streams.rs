//! Stream management: create with storage, retention and discard
//! policies, info, update, listings, messages by sequence and subject,
//! purge, delete, and the error kinds of create and get.

use std::time::Duration;

use futures_util::{StreamExt, TryStreamExt};

use crate::nats::jetstream::stream::{self, DiscardPolicy, RetentionPolicy, StorageType};
use crate::nats::jetstream::{self, ErrorCode};
use crate::nats::{self, HeaderMap, header};
use crate::{Outcome, Transcript};

pub async fn manage_streams(url: &str) -> Outcome {
    let mut seen = Transcript::new();
    let client = nats::connect(url).await?;
    let js = jetstream::new(client);

    let mut orders = js
        .create_stream(stream::Config {
            name: "ORDERS".to_string(),
            subjects: vec!["orders.>".to_string()],
            storage: StorageType::Memory,
            retention: RetentionPolicy::Limits,
            discard: DiscardPolicy::Old,
            max_messages: 100,
            max_age: Duration::from_secs(3600),
            allow_direct: true,
            ..Default::default()
        })
        .await?;
    seen.push(format!("created {}", orders.cached_info().config.name));

    for i in 1..=5 {
        let mut headers = HeaderMap::new();
        headers.insert(header::NATS_MESSAGE_ID, format!("order-{i}").as_str());
        js.publish_with_headers(format!("orders.{}", i % 2), headers, format!("order {i}").into()).await?.await?;
    }
    let info = orders.info().await?;
    seen.push(format!(
        "messages {} first {} last {} consumers {}",
        info.state.messages, info.state.first_sequence, info.state.last_sequence, info.state.consumer_count
    ));
    let info = orders.get_info().await?;
    seen.push(format!(
        "storage {:?} retention {:?} discard {:?}",
        info.config.storage, info.config.retention, info.config.discard
    ));

    let message = orders.get_raw_message(2).await?;
    seen.push(format!(
        "raw {} {} {} id {:?}",
        message.sequence,
        message.subject.as_str(),
        String::from_utf8_lossy(&message.payload),
        message.headers.get(header::NATS_MESSAGE_ID).map(|v| v.to_string())
    ));
    let last = orders.get_last_raw_message_by_subject("orders.1").await?;
    seen.push(format!("last on orders.1: {}", last.sequence));
    let direct = orders.direct_get_last_for_subject("orders.0").await?;
    seen.push(format!("direct last on orders.0: {}", direct.sequence));
    let direct = orders.direct_get(1).await?;
    seen.push(format!("direct 1: {}", String::from_utf8_lossy(&direct.payload)));
    seen.push(format!("deleted 3: {}", orders.delete_message(3).await?));

    let purged = orders.purge().filter("orders.1").await?;
    seen.push(format!("purged {} success {}", purged.purged, purged.success));

    let updated = js
        .update_stream(stream::Config {
            name: "ORDERS".to_string(),
            subjects: vec!["orders.>".to_string()],
            storage: StorageType::Memory,
            max_messages: 50,
            allow_direct: true,
            ..Default::default()
        })
        .await?;
    seen.push(format!("updated max_messages {}", updated.config.max_messages));

    js.get_or_create_stream(stream::Config {
        name: "EVENTS".to_string(),
        subjects: vec!["events.>".to_string()],
        retention: RetentionPolicy::WorkQueue,
        ..Default::default()
    })
    .await?;
    let again = js.get_or_create_stream(stream::Config { name: "EVENTS".to_string(), ..Default::default() }).await?;
    seen.push(format!("get_or_create kept {:?}", again.cached_info().config.retention));

    let mut names = js.stream_names().try_collect::<Vec<String>>().await?;
    names.sort();
    seen.push(format!("names {names:?}"));
    let mut streams = js.streams();
    let mut described = Vec::new();
    while let Some(info) = streams.next().await {
        let info = info?;
        described.push(format!("{}={}", info.config.name, info.state.messages));
    }
    described.sort();
    seen.push(format!("streams {described:?}"));
    seen.push(format!("by subject: {}", js.stream_by_subject("events.x").await?));

    match js
        .create_stream(stream::Config {
            name: "ORDERS".to_string(),
            subjects: vec!["other".to_string()],
            ..Default::default()
        })
        .await
    {
        Err(e) => match e.kind() {
            jetstream::context::CreateStreamErrorKind::JetStream(err)
                if err.error_code() == ErrorCode::STREAM_NAME_EXIST =>
            {
                seen.push(format!("create again: name exists ({})", err.code()))
            }
            kind => seen.push(format!("create again: {kind:?}")),
        },
        Ok(_) => seen.push("created twice".into()),
    }
    match js.get_stream("MISSING").await {
        Err(e) => match e.kind() {
            jetstream::context::GetStreamErrorKind::JetStream(err)
                if err.error_code() == ErrorCode::STREAM_NOT_FOUND =>
            {
                seen.push("get missing: not found".into())
            }
            kind => seen.push(format!("get missing: {kind:?}")),
        },
        Ok(_) => seen.push("found a missing stream".into()),
    }

    let status = js.delete_stream("EVENTS").await?;
    seen.push(format!("deleted EVENTS: {}", status.success));
    match js.delete_stream("EVENTS").await {
        Err(e) if matches!(e.kind(), jetstream::context::DeleteStreamErrorKind::JetStream(_)) => {
            seen.push("delete again: JetStream error".into())
        }
        other => seen.push(format!("delete again: {:?}", other.map(|s| s.success))),
    }
    let account = js.query_account().await?;
    seen.push(format!("account streams {}", account.streams));
    Ok(seen)
}
