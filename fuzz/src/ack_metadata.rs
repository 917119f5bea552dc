//! Arbitrary text as a JetStream ack subject: the full reader and the one
//! that takes the numbers without allocating must agree (same numbers, same
//! error), and what they read, written back as a subject, reads the same.

use natsjet::fuzzing::delivery_numbers_of;
use natsjet::jetstream::ack::MessageMetadata;

pub fn check(data: &[u8]) {
    let Ok(subject) = std::str::from_utf8(data) else {
        return;
    };
    let full = MessageMetadata::parse(subject);
    let numbers = delivery_numbers_of(subject);
    let metadata = match (full, numbers) {
        (Ok(m), Ok(n)) => {
            assert_eq!(numbers_of(&m), n);
            m
        }
        (Err(a), Err(b)) => {
            assert_eq!(a.to_string(), b.to_string());
            return;
        }
        (full, numbers) => panic!("readers disagree on {subject:?}: {full:?} and {numbers:?}"),
    };
    let [delivered, stream_sequence, consumer_sequence, timestamp, pending] = numbers_of(&metadata);
    let names = match &metadata.acc_hash {
        None => format!("{}.{}", metadata.stream, metadata.consumer),
        Some(hash) => {
            let domain = metadata.domain.as_deref().unwrap_or("_");
            format!("{domain}.{hash}.{}.{}", metadata.stream, metadata.consumer)
        }
    };
    let token = metadata.token.as_deref().map(|t| format!(".{t}")).unwrap_or_default();
    let written =
        format!("$JS.ACK.{names}.{delivered}.{stream_sequence}.{consumer_sequence}.{timestamp}.{pending}{token}");
    assert_eq!(MessageMetadata::parse(&written).expect("a written subject reads"), metadata);
}

fn numbers_of(m: &MessageMetadata) -> [u64; 5] {
    let delivered = u64::try_from(m.delivered).expect("a delivery count read is not negative");
    [delivered, m.stream_sequence, m.consumer_sequence, m.timestamp_nanos, m.pending]
}
