//! The native side of the JS interop tests (bindings/test/interop.test.mjs):
//! one small command per role, messages printed as JSON lines so the test
//! can compare what each client saw.
//!
//! Usage: cargo run --example interop -- <url> <command>
//!   publish <subject> <payload> [Name:Value ...]     core publish with headers
//!   js-publish <subject> <payload> [Name:Value ...]  JetStream publish, waits for the PublishAck
//!   subscribe <subject> <count>                      prints "ready", then <count> messages
//!   echo <subject>                                   prints "ready", answers requests with
//!                                                    their payload and headers, forever
//!   consume <stream> <durable> <count>               <count> messages, each acked (confirmed)

use futures_util::StreamExt;
use natsjet::jetstream::PullConsumer;
use natsjet::{HeaderMap, Message, jetstream};
use serde_json::{Map, Value, json};

#[tokio::main]
async fn main() -> Result<(), natsjet::Error> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [url, command, rest @ ..] = args.as_slice() else {
        return Err(natsjet::Error::InvalidArgument("usage: interop <url> <command> [args]".into()));
    };
    let client = natsjet::connect(url.as_str()).await?;
    match (command.as_str(), rest) {
        ("publish", [subject, payload, headers @ ..]) => {
            client.publish_with_headers(subject.as_str(), parse_headers(headers)?, payload.clone().into()).await?;
            client.flush().await?;
        }
        ("js-publish", [subject, payload, headers @ ..]) => {
            let js = jetstream::new(client.clone());
            let ack = js.publish_with_headers(subject.clone(), parse_headers(headers)?, payload.clone().into()).await?;
            println!("{}", json!({ "seq": ack.await?.sequence }));
        }
        ("subscribe", [subject, count]) => {
            let mut sub = client.subscribe(subject.as_str()).await?;
            client.flush().await?;
            println!("ready");
            for _ in 0..parse_count(count)? {
                let Some(msg) = sub.next().await else { break };
                println!("{}", to_json(&msg));
            }
        }
        ("echo", [subject]) => {
            let mut requests = client.subscribe(subject.as_str()).await?;
            client.flush().await?;
            println!("ready");
            while let Some(request) = requests.next().await {
                if let Some(reply) = request.reply {
                    let headers = request.headers.unwrap_or_default();
                    client.publish_with_headers(reply, headers, request.payload).await?;
                }
            }
        }
        ("consume", [stream, durable, count]) => {
            let js = jetstream::new(client.clone());
            let consumer: PullConsumer = js.get_stream(stream).await?.get_consumer(durable).await?;
            let count = parse_count(count)?;
            let mut messages = consumer.stream().max_messages_per_batch(count).messages().await?;
            for _ in 0..count {
                let Some(msg) = messages.next().await else { break };
                let msg = msg?;
                msg.double_ack().await?;
                println!("{}", to_json(&msg));
            }
        }
        _ => return Err(natsjet::Error::InvalidArgument(format!("unknown command or arguments: {command} {rest:?}"))),
    }
    client.drain().await
}

/// `Name:Value` arguments as headers; a name may repeat.
fn parse_headers(args: &[String]) -> Result<HeaderMap, natsjet::Error> {
    let mut headers = HeaderMap::new();
    for arg in args {
        let (name, value) = arg
            .split_once(':')
            .ok_or_else(|| natsjet::Error::InvalidArgument(format!("header {arg:?}: expected Name:Value")))?;
        headers.append(name, value);
    }
    Ok(headers)
}

fn parse_count(arg: &str) -> Result<usize, natsjet::Error> {
    arg.parse().map_err(|_| natsjet::Error::InvalidArgument(format!("count {arg:?}: expected a number")))
}

/// `{"subject", "payload", "headers": {name: [values]}}`, payload as UTF-8.
fn to_json(msg: &Message) -> Value {
    let mut headers = Map::new();
    for (name, value) in msg.headers.iter().flat_map(HeaderMap::iter) {
        let values = headers.entry(name).or_insert_with(|| json!([]));
        values.as_array_mut().expect("array").push(value.into());
    }
    json!({ "subject": msg.subject, "payload": String::from_utf8_lossy(&msg.payload), "headers": headers })
}
