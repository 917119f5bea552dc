//! Plain JSON from the server (INFO, publish acks, JetStream API errors,
//! listing pages, the core of consumer infos) into serde types. Natively
//! serde_json. In wasm serde-json-core: serde_json's errors describe every
//! kind of unexpected value, which links the whole float printer and
//! `Debug` escaping into the npm package's wasm; with the rest of its
//! parser that was an eighth of it (56 KB, 24 KB gzip). serde-json-core's
//! errors are plain codes. Writing JSON is serde_json everywhere: that costs
//! no such thing.
//!
//! Plain means structs, options, sequences, maps, numbers, strings and
//! unit enums: serde-json-core cannot read `flatten`, untagged enums or
//! `RawValue` (it has no `deserialize_any`), so the full API types go
//! through serde_json on every target. The two parsers agree on what the
//! server sends ([`assert_same`] checks the types read here); serde-json-core
//! refuses escaped surrogate pairs (`\ud83d\ude00`), which Go's encoder
//! never writes (it sends UTF-8).

use std::collections::HashMap;
use std::fmt;

use serde::Deserialize;
use serde::de::{DeserializeOwned, Deserializer, MapAccess, Visitor};

/// `json` as a plain `T`, or what was wrong with it (briefly in wasm).
/// Plain JSON from the server is an object: serde_json would read an array
/// into a struct field by field (`[]` as every field defaulted),
/// serde-json-core would not, so neither does.
pub(crate) fn from_slice<T: DeserializeOwned>(json: &[u8]) -> Result<T, String> {
    if json.trim_ascii_start().first() != Some(&b'{') {
        return Err("not a JSON object".into());
    }
    #[cfg(feature = "fuzzing")]
    if AS_IN_WASM.get() {
        return lite::from_slice(json);
    }
    #[cfg(not(target_arch = "wasm32"))]
    return serde_json::from_slice(json).map_err(|e| e.to_string());
    #[cfg(target_arch = "wasm32")]
    return lite::from_slice(json);
}

#[cfg(feature = "fuzzing")]
thread_local! {
    /// Plain JSON goes through the wasm's reader on this thread
    /// (`natsjet::fuzzing::as_in_wasm`, to compare the two natively).
    pub(crate) static AS_IN_WASM: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// A map key. serde-json-core reads keys only through `deserialize_str`
/// (`String`'s own `deserialize_string` hits an `unreachable!` there), so
/// maps with string keys read their keys as this.
pub(crate) struct Key(pub String);

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Key, D::Error> {
        struct Text;
        impl<'de> Visitor<'de> for Text {
            type Value = Key;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_str<E>(self, s: &str) -> Result<Key, E> {
                Ok(Key(s.to_string()))
            }
        }
        d.deserialize_str(Text)
    }
}

/// A map of strings to `V`, `null` as empty, for `deserialize_with`.
pub(crate) fn string_map<'de, D, V>(d: D) -> Result<HashMap<String, V>, D::Error>
where
    D: Deserializer<'de>,
    V: Deserialize<'de>,
{
    struct Entries<V>(std::marker::PhantomData<V>);
    impl<'de, V: Deserialize<'de>> Visitor<'de> for Entries<V> {
        type Value = HashMap<String, V>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a map")
        }
        fn visit_none<E>(self) -> Result<Self::Value, E> {
            Ok(HashMap::new())
        }
        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok(HashMap::new())
        }
        fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_map(self)
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut entries = HashMap::new();
            while let Some((Key(key), value)) = map.next_entry()? {
                entries.insert(key, value);
            }
            Ok(entries)
        }
    }
    d.deserialize_option(Entries(std::marker::PhantomData))
}

#[cfg(any(test, feature = "fuzzing", target_arch = "wasm32"))]
mod lite {
    use serde::de::DeserializeOwned;

    pub(super) fn from_slice<T: DeserializeOwned>(json: &[u8]) -> Result<T, String> {
        // Strings are unescaped into a buffer, needed only when there is an escape.
        let parsed = match memchr::memchr(b'\\', json) {
            None => serde_json_core::from_slice(json),
            Some(_) => serde_json_core::from_slice_escaped(json, &mut vec![0; json.len()]),
        };
        parsed.map(|(value, _)| value).map_err(|e| e.to_string())
    }
}

/// Asserts that serde_json and the wasm parser read `json` alike: the same
/// value (by its `Debug` form), or both an error.
#[cfg(test)]
#[track_caller]
pub(crate) fn assert_same<T: DeserializeOwned + std::fmt::Debug>(json: &[u8]) {
    let full: Result<T, _> = serde_json::from_slice(json);
    let lite: Result<T, _> = lite::from_slice(json);
    match (&full, &lite) {
        (Ok(full), Ok(lite)) => assert_eq!(format!("{full:?}"), format!("{lite:?}")),
        (Err(_), Err(_)) => {}
        _ => panic!("serde_json: {full:?}\nwasm: {lite:?}\nfor {}", String::from_utf8_lossy(json)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::jetstream::api::PublishAck;
    use crate::core::proto::ServerInfo;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn server_info_alike() {
        // nats-server 2.15's INFO, plus escapes Go writes and fields we skip.
        assert_same::<ServerInfo>(
            r#"{"server_id":"NC7CRAY7","server_name":"a \"b\" \\ \u003cc\u003e \u0026 \u2028 \t\n","version":"2.15.1","proto":1,"git_commit":"b2fd3ef","go":"go1.25.4","host":"127.0.0.1","port":45085,"headers":true,"auth_required":true,"tls_available":true,"max_payload":1048576,"jetstream":true,"client_id":18446744073709551615,"client_ip":"127.0.0.1","nonce":"pS_Ru2T8w","cluster":"c1","domain":"hub","connect_urls":["10.0.0.1:4222","[::1]:4222"],"ws_connect_urls":[],"ldm":false,"xkey":"XD5","tags":null,"nested":{"a":[1,2.5e-3,{"b":null}],"c":-0.0},"ünïcode":"ë"}"#
                .as_bytes(),
        );
        assert_same::<ServerInfo>(b"{}");
        assert_same::<ServerInfo>(br#" { "port" : 4222 , "connect_urls" : null } "#);
    }

    #[test]
    fn bad_json_fails_in_both() {
        for json in [
            &b""[..],
            b"not json",
            br#"{"port":4222} trailing"#,
            br#"{"port":-1}"#,
            br#"{"port":70000}"#,
            br#"{"port":1.5}"#,
            br#"{"server_id":1}"#,
            br#"{"connect_urls":"x"}"#,
            br#"{"server_id":"open"#,
            br#"{"server_id":"\x"}"#,
            br#"[1,2]"#,
        ] {
            assert_same::<ServerInfo>(json);
            assert!(lite::from_slice::<ServerInfo>(json).is_err(), "{}", String::from_utf8_lossy(json));
        }
    }

    #[derive(Debug, Deserialize)]
    struct WithMap {
        #[serde(default, deserialize_with = "string_map")]
        m: HashMap<String, String>,
    }

    #[test]
    fn string_maps_alike() {
        for json in [&br#"{"m":{"a":"1","b\"c":"2"}}"#[..], br#"{"m":null}"#, b"{}", br#"{"m":{}}"#, br#"{"m":[1]}"#] {
            let full: Result<WithMap, _> = serde_json::from_slice(json);
            let lite: Result<WithMap, _> = lite::from_slice(json);
            match (full, lite) {
                (Ok(full), Ok(lite)) => {
                    let sorted =
                        |m: HashMap<String, String>| m.into_iter().collect::<std::collections::BTreeMap<_, _>>();
                    assert_eq!(sorted(full.m), sorted(lite.m));
                }
                (Err(_), Err(_)) => {}
                other => panic!("{other:?} for {}", String::from_utf8_lossy(json)),
            }
        }
    }

    #[test]
    fn only_objects_are_plain_json() {
        // serde_json alone would take `[]` as a ServerInfo with every field defaulted.
        for json in [&b"[]"[..], b" [1]", b"7", b"\"s\"", b"null", b""] {
            assert_eq!(from_slice::<PublishAck>(json).unwrap_err(), "not a JSON object");
            assert!(from_slice::<ServerInfo>(json).is_err());
        }
        assert_eq!(from_slice::<PublishAck>(br#" {"stream":"S","seq":1}"#).unwrap().sequence, 1);
    }

    #[test]
    fn pub_acks_alike() {
        for json in [
            &br#"{"stream":"ORDERS","seq":22}"#[..],
            br#"{"stream":"S","seq":3,"domain":"hub","duplicate":true,"future":{"x":1}}"#,
            br#"{"stream":"C","seq":9,"val":"42"}"#,
            br#"{"stream":"B","seq":10,"batch":"b1","count":3}"#,
            br#"{"error":{"code":503,"description":"no \"leader\""},"stream":"S"}"#,
        ] {
            assert_same::<PublishAck>(json);
        }
    }
}
