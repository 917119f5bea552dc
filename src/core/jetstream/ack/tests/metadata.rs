//! Ack reply subjects, v1 and v2, and what is refused.

use super::*;
use crate::core::error::{Error, ProtocolError};
use crate::core::jetstream::ack::MessageMetadata;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

#[test]
fn v1_nine_tokens() {
    let m = MessageMetadata::parse("$JS.ACK.ORDERS.workers.3.1042.77.1764412345123456789.12").unwrap();
    assert_eq!(
        m,
        MessageMetadata {
            domain: None,
            acc_hash: None,
            stream: "ORDERS".into(),
            consumer: "workers".into(),
            delivered: 3,
            stream_sequence: 1042,
            consumer_sequence: 77,
            published: crate::core::jetstream::api::timestamp::from_unix_nanos(1_764_412_345_123_456_789),
            timestamp_nanos: 1_764_412_345_123_456_789,
            pending: 12,
            token: None,
        }
    );
    assert!(m.timestamp_nanos > 1 << 53, "kept exact beyond f64 precision");
}

#[test]
fn v2_with_domain_hash_and_extra_tokens() {
    let m = MessageMetadata::parse("$JS.ACK.hub.ACCHASH.ORDERS.workers.1.5.6.18446744073709551615.0.rand123").unwrap();
    assert_eq!(m.domain.as_deref(), Some("hub"));
    assert_eq!(m.acc_hash.as_deref(), Some("ACCHASH"));
    assert_eq!((m.stream.as_str(), m.consumer.as_str()), ("ORDERS", "workers"));
    assert_eq!((m.delivered, m.stream_sequence, m.consumer_sequence), (1, 5, 6));
    assert_eq!(m.timestamp_nanos, u64::MAX);
    let eleven = MessageMetadata::parse("$JS.ACK._.ACCHASH.S.C.1.2.3.4.5").unwrap();
    assert_eq!(eleven.domain, None, "`_` is no domain");
    assert_eq!(eleven.pending, 5);
    let many = format!("$JS.ACK._.H.S.C.1.2.3.4.5{}", ".x".repeat(1000));
    assert_eq!(MessageMetadata::parse(&many).unwrap().stream, "S");
}

#[test]
fn refuses_anything_else() {
    let bad = [
        "",
        "$JS.ACK",
        "orders.new",
        "$JS.NAK.S.C.1.2.3.4.5",
        "$JS.ACK.S.C.1.2.3.4",                      // 8 tokens
        "$JS.ACK._.H.S.C.1.2.3.4",                  // 10 tokens
        "$JS.ACK.S.C.1.2.x.4.5",                    // not a number
        "$JS.ACK.S.C.1.+2.3.4.5",                   // sign
        "$JS.ACK.S.C.1.2.3.4.",                     // empty number
        "$JS.ACK.S..1.2.3.4.5",                     // empty consumer
        "$JS.ACK.S.C.1.2.3.18446744073709551616.5", // overflow
        "$JS.ACK..H.S.C.1.2.3.4.5",                 // empty domain
    ];
    for subject in bad {
        assert!(matches!(MessageMetadata::parse(subject), Err(Error::Protocol(_))), "{subject:?}");
    }
    let long = format!("$JS.ACK.{}", "é".repeat(10_000));
    let Err(Error::Protocol(ProtocolError::AckSubject(text))) = MessageMetadata::parse(&long) else { panic!() };
    assert!(text.len() < 300, "the error quotes a bounded prefix");
}

#[test]
fn tokens_serialize_as_the_subject_and_are_checked_on_the_way_back() {
    let tok = token("S", "C", 9, 4);
    let json = serde_json::to_string(&tok).unwrap();
    assert_eq!(json, r#""$JS.ACK.S.C.1.9.4.1700000000000000000.0""#);
    let back: AckToken = serde_json::from_str(&json).unwrap();
    assert_eq!(back, tok);
    assert_eq!((back.stream(), back.consumer(), back.stream_sequence()), ("S", "C", 9));
    assert!(serde_json::from_str::<AckToken>(r#""orders.new""#).is_err());
}

#[test]
fn token_from_a_message_needs_a_reply() {
    let mut message = crate::core::message::Message {
        subject: "orders.new".into(),
        reply: Some("$JS.ACK.S.C.1.2.3.4.5".into()),
        payload: bytes::Bytes::new(),
        headers: None,
        status: None,
        description: None,
        length: 0,
    };
    assert_eq!(AckToken::from_message(&message).unwrap().consumer_sequence(), 3);
    message.reply = None;
    assert!(AckToken::from_message(&message).is_err());
}
