//! Arbitrary bytes as an object's meta message: native and wasm read the
//! same meta (see [`super::agree`]), and a meta read, written and read
//! again is the same meta.

use natsjet::fuzzing::{as_in_wasm, object_meta, object_meta_json};

pub fn check(data: &[u8]) {
    let Some(info) = super::agree(data, object_meta(data), as_in_wasm(|| object_meta(data))) else {
        return;
    };
    let json = object_meta_json(&info).expect("a meta read can be written");
    assert_eq!(object_meta(&json).expect("a written meta reads"), info);
}
