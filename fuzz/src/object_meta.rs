//! Arbitrary bytes as an object's meta message: the hand-written codec
//! reads every object serde's derive reads, alike (it may read more: a
//! `null` as a missing field, a repeated field), never panics, and a meta
//! read, written and read again is the same meta.

use natsjet::fuzzing::{object_meta, object_meta_json};
use natsjet::jetstream::object_store::ObjectInfo;

pub fn check(data: &[u8]) {
    let ours = object_meta(data);
    let object = data.trim_ascii_start().first() == Some(&b'{');
    if let Ok(theirs) =
        serde_json::from_slice::<ObjectInfo>(data).map_err(drop).and_then(|i| object.then_some(i).ok_or(()))
    {
        assert_eq!(ours.as_ref().ok(), Some(&theirs), "for {}", String::from_utf8_lossy(data));
    }
    let Ok(info) = ours else { return };
    let json = object_meta_json(&info).expect("a meta read can be written");
    assert_eq!(object_meta(&json).expect("a written meta reads"), info);
}
