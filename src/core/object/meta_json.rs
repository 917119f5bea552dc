//! An object's meta ([`ObjectInfo`]) from its JSON, read by hand so that
//! `null` is a missing field wherever it stands (async-nats writes nulls for
//! what it has not, down to a metadata value), which the serde derive
//! refuses for plain fields. It reads whatever nats.js, nats.go and
//! async-nats write (unknown fields skipped, escapes) and everything the
//! serde derive reads; it refuses a meta that is not a JSON object or lacks
//! `name` or `bucket`. Metas are written by the derive.

use std::collections::HashMap;

use super::info::{ObjectInfo, ObjectLink, ObjectOptions};
use crate::core::error::{Error, ProtocolError};
use crate::core::header::HeaderMap;
use crate::core::jetstream::api::timestamp;

/// `info` as the JSON of its meta message: serde's derive, whose code is
/// much like the other API types' and so costs the wasm little.
pub fn write(info: &ObjectInfo) -> Vec<u8> {
    // Nothing in a meta fails to encode (its maps' keys are strings).
    serde_json::to_vec(info).unwrap_or_default()
}

/// The meta whose JSON is `json`.
pub fn read(json: &[u8]) -> Result<ObjectInfo, Error> {
    let mut reader = Reader { json, at: 0 };
    let info = reader.info();
    match info {
        Ok(info) if reader.peek().is_none() => Ok(info),
        Ok(_) => Err(reader.bad()),
        Err(e) => Err(e),
    }
}

/// A cursor over the meta's JSON.
struct Reader<'a> {
    json: &'a [u8],
    at: usize,
}

/// A field's value, read into the meta by `read` (`null` is never passed).
type Fields<'r, 'a> = &'r mut dyn FnMut(&mut Reader<'a>, &str) -> Result<(), Error>;

impl<'a> Reader<'a> {
    fn info(&mut self) -> Result<ObjectInfo, Error> {
        let (mut name, mut bucket) = (None, None);
        let mut info = ObjectInfo {
            name: String::new(),
            description: None,
            metadata: HashMap::new(),
            headers: None,
            options: None,
            bucket: String::new(),
            nuid: String::new(),
            size: 0,
            chunks: 0,
            modified: None,
            digest: None,
            deleted: false,
        };
        self.object(&mut |r, key| {
            match key {
                "name" => name = Some(r.string()?),
                "bucket" => bucket = Some(r.string()?),
                "description" => info.description = Some(r.string()?).filter(|s| !s.is_empty()),
                "digest" => info.digest = Some(r.string()?).filter(|s| !s.is_empty()),
                "nuid" => info.nuid = r.string()?,
                "size" => info.size = r.size()?,
                "chunks" => info.chunks = r.size()?,
                "deleted" => info.deleted = r.boolean()?,
                "mtime" => info.modified = timestamp::parse_rfc3339(&r.string()?),
                "metadata" => r.object(&mut |r, key| {
                    info.metadata.insert(key.to_string(), r.string()?);
                    Ok(())
                })?,
                "headers" => {
                    let mut headers = HeaderMap::new();
                    r.object(&mut |r, key| {
                        r.array(&mut |r| {
                            headers.append(key.to_string(), r.string()?);
                            Ok(())
                        })
                    })?;
                    info.headers = Some(headers);
                }
                "options" => info.options = Some(r.options()?),
                _ => r.skip()?,
            }
            Ok(())
        })?;
        info.name = name.ok_or_else(|| self.bad())?;
        info.bucket = bucket.ok_or_else(|| self.bad())?;
        Ok(info)
    }

    fn options(&mut self) -> Result<ObjectOptions, Error> {
        let mut options = ObjectOptions::default();
        self.object(&mut |r, key| {
            match key {
                "max_chunk_size" => options.max_chunk_size = Some(r.size()?),
                "link" => {
                    let (mut name, mut bucket) = (None, None);
                    r.object(&mut |r, key| {
                        match key {
                            "name" => name = Some(r.string()?),
                            "bucket" => bucket = Some(r.string()?),
                            _ => r.skip()?,
                        }
                        Ok(())
                    })?;
                    options.link = Some(ObjectLink { name, bucket: bucket.ok_or_else(|| r.bad())? });
                }
                _ => r.skip()?,
            }
            Ok(())
        })?;
        Ok(options)
    }

    fn bad(&self) -> Error {
        Error::Protocol(ProtocolError::Store(format!("bad object meta at byte {}", self.at)))
    }

    /// The next byte that is not white space, not taken.
    fn peek(&mut self) -> Option<u8> {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.json.get(self.at) {
            self.at += 1;
        }
        self.json.get(self.at).copied()
    }

    /// Takes `token` if it comes next.
    fn take(&mut self, token: &str) -> bool {
        let next = self.peek().is_some() && self.json[self.at..].starts_with(token.as_bytes());
        if next {
            self.at += token.len();
        }
        next
    }

    fn expect(&mut self, token: &str) -> Result<(), Error> {
        if self.take(token) { Ok(()) } else { Err(self.bad()) }
    }

    /// An object's members, each value to `field` unless it is `null`.
    fn object(&mut self, field: Fields<'_, 'a>) -> Result<(), Error> {
        self.expect("{")?;
        if self.take("}") {
            return Ok(());
        }
        loop {
            // A key is only compared (a bad one is no field's) or kept as a map's.
            let key = String::from_utf8_lossy(&self.text()?).into_owned();
            self.expect(":")?;
            if !self.take("null") {
                field(self, &key)?;
            }
            if !self.take(",") {
                return self.expect("}");
            }
        }
    }

    /// An array's items, each to `item` unless it is `null`.
    fn array(&mut self, item: &mut dyn FnMut(&mut Reader<'a>) -> Result<(), Error>) -> Result<(), Error> {
        self.expect("[")?;
        if self.take("]") {
            return Ok(());
        }
        loop {
            if !self.take("null") {
                item(self)?;
            }
            if !self.take(",") {
                return self.expect("]");
            }
        }
    }

    /// Any value, read past (an unknown field's).
    fn skip(&mut self) -> Result<(), Error> {
        match self.peek() {
            Some(b'"') => self.text().map(drop),
            Some(b'{') => self.object(&mut |r, _| r.skip()),
            Some(b'[') => self.array(&mut |r| r.skip()),
            _ => {
                let start = self.at;
                while let Some(b'0'..=b'9' | b'a'..=b'z' | b'E' | b'+' | b'-' | b'.') = self.json.get(self.at) {
                    self.at += 1;
                }
                if self.at == start { Err(self.bad()) } else { Ok(()) }
            }
        }
    }

    fn boolean(&mut self) -> Result<bool, Error> {
        if self.take("true") {
            Ok(true)
        } else if self.take("false") {
            Ok(false)
        } else {
            Err(self.bad())
        }
    }

    /// A count: digits only.
    fn size(&mut self) -> Result<usize, Error> {
        self.peek();
        let start = self.at;
        let mut n: usize = 0;
        while let Some(&digit @ b'0'..=b'9') = self.json.get(self.at) {
            n = n.checked_mul(10).and_then(|n| n.checked_add(usize::from(digit - b'0'))).ok_or_else(|| self.bad())?;
            self.at += 1;
        }
        let fraction = matches!(self.json.get(self.at), Some(b'.' | b'e' | b'E'));
        if self.at == start || fraction {
            return Err(self.bad());
        }
        Ok(n)
    }

    fn string(&mut self) -> Result<String, Error> {
        let text = self.text()?;
        String::from_utf8(text).map_err(|_| self.bad())
    }

    /// A string's bytes, unescaped (UTF-8 unchecked: an unknown field's need not be).
    fn text(&mut self) -> Result<Vec<u8>, Error> {
        self.expect("\"")?;
        let mut text = Vec::new();
        loop {
            let Some(&b) = self.json.get(self.at) else { return Err(self.bad()) };
            self.at += 1;
            match b {
                b'"' => return Ok(text),
                b'\\' => {
                    let Some(&e) = self.json.get(self.at) else { return Err(self.bad()) };
                    self.at += 1;
                    let c = match e {
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => self.escaped()?,
                        b'"' | b'\\' | b'/' => char::from(e),
                        _ => return Err(self.bad()),
                    };
                    text.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                }
                b => text.push(b),
            }
        }
    }

    /// The character of a `\u` escape (a surrogate pair: two of them).
    fn escaped(&mut self) -> Result<char, Error> {
        let high = self.hex4()?;
        let code = match high {
            0xd800..0xdc00 => {
                let pair = self.json.get(self.at..self.at + 2) == Some(&b"\\u"[..]);
                self.at += 2;
                let low = if pair { self.hex4()? } else { 0 };
                if !(0xdc00..0xe000).contains(&low) {
                    return Err(self.bad());
                }
                0x10000 + ((high - 0xd800) << 10) + (low - 0xdc00)
            }
            _ => high,
        };
        char::from_u32(code).ok_or_else(|| self.bad())
    }

    fn hex4(&mut self) -> Result<u32, Error> {
        let mut code = 0;
        for _ in 0..4 {
            let digit = self.json.get(self.at).and_then(|&b| char::from(b).to_digit(16));
            code = code << 4 | digit.ok_or_else(|| self.bad())?;
            self.at += 1;
        }
        Ok(code)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// Metas as the other clients write them, and JSON they could.
    const METAS: &[&str] = &[
        // nats.js 3.4: an empty description and digest, no mtime for a link.
        r#"{"name":"a.txt","description":"","options":{"max_chunk_size":131072},"metadata":{"k":"v"},
           "headers":{"X-A":["1","2"]},"bucket":"b","nuid":"N","size":5,"chunks":1,
           "mtime":"2026-01-02T03:04:05.6Z","digest":"SHA-256=ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0=","deleted":false}"#,
        r#"{"name":"l","bucket":"b","options":{"link":{"bucket":"c","name":"o"}}}"#,
        // nats.go: Go's zero time, fields in its order.
        r#"{"name":"g","description":"d","headers":{"A":["b"]},"options":{"link":{"bucket":"B"},"max_chunk_size":8},
           "bucket":"B","nuid":"N","size":0,"mtime":"0001-01-01T00:00:00Z","chunks":0,"deleted":true}"#,
        // async-nats: nulls for what it has not.
        r#"{"name":"n","description":null,"metadata":{},"headers":null,"options":null,"bucket":"b","nuid":"N",
           "size":4294967295,"chunks":2,"mtime":"2026-12-01T10:00:00.123456789+01:00","digest":null,"deleted":false}"#,
        // Escapes, a surrogate pair, raw UTF-8, white space, unknown fields of every kind.
        " {\"name\" : \"q\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00 é\", \"bucket\":\"b\",
           \"future\":{\"a\":[1,-2.5e3,true,false,null,{\"b\":\"}\"}],\"c\":\"[\"},\"x\":[],\"y\":{},
           \"metadata\":{\"k\\u0022\":\"v\\n\"}} \n",
        r#"{"bucket":"b","name":"","size":0,"headers":{}}"#,
    ];

    fn serde(json: &str) -> Option<ObjectInfo> {
        let object = json.trim_start().starts_with('{');
        serde_json::from_str(json).ok().filter(|_| object)
    }

    #[test]
    fn metas_read_as_the_serde_derive_reads_them() {
        for json in METAS {
            let info = read(json.as_bytes()).unwrap_or_else(|e| panic!("{e} in {json}"));
            assert_eq!(Some(&info), serde(json).as_ref(), "{json}");
            // What is written reads back the same.
            assert_eq!(read(&write(&info)).unwrap(), info);
        }
        let info = read(METAS[4].as_bytes()).unwrap();
        assert_eq!(info.name, "q\"\\/\u{8}\u{c}\n\r\té😀 é");
        assert_eq!(info.metadata["k\""], "v\n");
        let info = read(METAS[2].as_bytes()).unwrap();
        assert_eq!((info.modified, info.deleted), (None, true));
        assert_eq!(info.link(), Some(&ObjectLink { name: None, bucket: "B".into() }));
    }

    #[test]
    fn nulls_are_missing_fields() {
        let info = read(
            br#"{"name":"a","bucket":"b","size":null,"deleted":null,"metadata":{"k":null},"headers":{"H":[null,"v"]}}"#,
        )
        .unwrap();
        assert_eq!((info.size, info.deleted, info.metadata.len()), (0, false, 0));
        assert_eq!(info.headers.unwrap().get_all("H").collect::<Vec<_>>(), ["v"]);
    }

    #[test]
    fn what_is_not_a_meta_is_refused() {
        for bad in [
            &b""[..],
            b"[]",
            br#"["a","b"]"#,
            b"null",
            br#"{"name":"a"}"#,
            br#"{"bucket":"b"}"#,
            br#"{"name":null,"bucket":"b"}"#,
            br#"{"name":"a","bucket":"b"} x"#,
            br#"{"name":"a","bucket":"b","size":1.5}"#,
            br#"{"name":"a","bucket":"b","size":-1}"#,
            br#"{"name":"a","bucket":"b","size":-0}"#,
            br#"{"name":"a","bucket":"b","size":"1"}"#,
            br#"{"name":"a","bucket":"b","size":99999999999999999999999}"#,
            br#"{"name":"a","bucket":"b","deleted":1}"#,
            br#"{"name":"a","bucket":"b","options":{"link":{"name":"x"}}}"#,
            br#"{"name":"a\x","bucket":"b"}"#,
            br#"{"name":"\ud83d","bucket":"b"}"#,
            br#"{"name":"\ud83d\u0041","bucket":"b"}"#,
            br#"{"name":"\u12","bucket":"b"}"#,
            b"{\"name\":\"\xff\",\"bucket\":\"b\"}",
            br#"{"name":"a","bucket":"b""#,
            br#"{"name":"a","bucket":"b",}"#,
            br#"{"name":"a" "bucket":"b"}"#,
            br#"{"name":"a","bucket":"b","x":}"#,
        ] {
            assert!(read(bad).is_err(), "{}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn control_characters_are_escaped() {
        let info = read(br#"{"name":"\u0000\u001f\u007f","bucket":"b"}"#).unwrap();
        let written = write(&info);
        assert_eq!(&written[..22], b"{\"name\":\"\\u0000\\u001f\x7f");
        assert_eq!(read(&written).unwrap(), info);
    }

    /// Every truncation and every byte replaced by a JSON delimiter, of
    /// every sample: never a panic, and what serde reads, read alike.
    #[test]
    fn altered_metas_read_as_serde_reads_them_or_are_refused() {
        for json in METAS {
            let bytes = json.as_bytes();
            for at in 0..bytes.len() {
                let mut cases = vec![bytes[..at].to_vec()];
                for b in [b'"', b'\\', b'{', b'}', b'[', b']', b',', b':', b'0', b'n', b' '] {
                    let mut altered = bytes.to_vec();
                    altered[at] = b;
                    cases.push(altered);
                }
                for case in cases {
                    let ours = read(&case);
                    let Ok(text) = std::str::from_utf8(&case) else { continue };
                    if let Some(theirs) = serde(text) {
                        assert_eq!(ours.as_ref().ok(), Some(&theirs), "{text}");
                    }
                    if let Ok(info) = ours {
                        assert_eq!(read(&write(&info)).unwrap(), info, "{text}");
                    }
                }
            }
        }
    }
}
