//! Arbitrary bytes as a JetStream API reply and as the plain JSON the wasm
//! reads with its own parser: no reader may panic, and for the plain types
//! serde_json (native) and serde-json-core (wasm) must agree (see
//! [`super::agree`]).

use natsjet::ServerInfo;
use natsjet::fuzzing::{as_in_wasm, plain_json};
use natsjet::jetstream::api::{
    AccountInfo, ConsumerInfo, JetStreamError, PublishAck, StreamInfo, check_response, parse_response,
};
use serde::de::DeserializeOwned;

pub fn check(data: &[u8]) {
    let _ = check_response(data);
    let _ = as_in_wasm(|| check_response(data));
    let _ = parse_response::<StreamInfo>(data);
    let _ = parse_response::<ConsumerInfo>(data);
    let _ = parse_response::<AccountInfo>(data);
    agree::<PublishAck>(data);
    agree::<ServerInfo>(data);
    agree::<JetStreamError>(data);
}

fn agree<T: DeserializeOwned + PartialEq + std::fmt::Debug>(json: &[u8]) {
    super::agree(json, plain_json::<T>(json), as_in_wasm(|| plain_json::<T>(json)));
}
