//! What the wasm tests check on every transport: publish, subscribe,
//! receive in order (including a burst of small messages, coalesced into
//! few frames, and one that fills the send buffer), request.

use futures_util::StreamExt;
use natsjet::Client;

/// Runs publish/subscribe/request under `prefix` and leaves `client` open.
pub async fn round_trip(client: &Client, prefix: &str) {
    let mut sub = client.subscribe(format!("{prefix}.>")).await.unwrap();
    client.flush().await.unwrap();
    for i in 0..10 {
        client.publish(format!("{prefix}.{i}"), format!("hello {i}").into()).await.unwrap();
    }
    for i in 0..10 {
        let msg = sub.next().await.expect("message");
        assert_eq!(msg.subject, format!("{prefix}.{i}"));
        assert_eq!(&msg.payload[..], format!("hello {i}").as_bytes());
    }
    // Many small writes in one JS task leave coalesced: complete and in order.
    for i in 0..5000 {
        client.publish(format!("{prefix}.seq"), i.to_string().into()).await.unwrap();
    }
    for i in 0..5000 {
        let msg = sub.next().await.expect("burst message");
        assert_eq!((msg.subject.as_str(), &msg.payload[..]), (&*format!("{prefix}.seq"), i.to_string().as_bytes()));
    }
    // 4 MiB in one go: more than any host's send buffer holds.
    let big = bytes::Bytes::from(vec![7u8; 64 * 1024]);
    for _ in 0..64 {
        client.publish(format!("{prefix}.big"), big.clone()).await.unwrap();
    }
    for _ in 0..64 {
        let msg = sub.next().await.expect("big message");
        assert_eq!(msg.payload.len(), big.len());
    }

    let mut echo = client.subscribe(format!("echo.{prefix}")).await.unwrap();
    let responder = client.clone();
    wasm_bindgen_futures::spawn_local(async move {
        if let Some(req) = echo.next().await {
            responder.publish(req.reply.unwrap(), req.payload).await.unwrap();
        }
    });
    client.flush().await.unwrap();
    let answer = client.request(format!("echo.{prefix}"), "ping".into()).await.unwrap();
    assert_eq!(&answer.payload[..], b"ping");
    assert_eq!(client.request("nobody.home", "x".into()).await.unwrap_err().into_cause(), natsjet::Error::NoResponders);
}
