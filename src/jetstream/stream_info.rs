//! `STREAM.INFO` with details: the per-subject message counts come a page
//! at a time (`total`, `offset`, at most 100 000 subjects a reply;
//! `server/jetstream_api.go`), so every page is asked for here, once, for
//! the typed API (which merges them) and the JS API (which gets the pages'
//! JSON text).

use std::fmt;

use bytes::Bytes;
use serde::Deserialize;
use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};

use super::api::{self, StreamInfoRequest};
use super::context::Context;
use crate::error::Error;
use crate::subject::validate_subject;

/// What paging needs from a reply: the subjects in all, and in this page.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Page {
    total: usize,
    state: PageState,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct PageState {
    subjects: Count,
}

/// The number of entries of a JSON object (`null` or absent: 0), values skipped.
#[derive(Default)]
struct Count(usize);

impl<'de> Deserialize<'de> for Count {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Counter;
        impl<'de> Visitor<'de> for Counter {
            type Value = Count;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a map of subjects")
            }
            fn visit_unit<E>(self) -> Result<Count, E> {
                Ok(Count(0))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Count, A::Error> {
                let mut n = 0;
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {
                    n += 1;
                }
                Ok(Count(n))
            }
        }
        d.deserialize_any(Counter)
    }
}

impl Context {
    /// The replies to `STREAM.INFO` of `stream` with `request`'s details,
    /// as JSON text: one, or one per page of subject counts while the
    /// subjects matching the filter outnumber one reply.
    pub async fn stream_info_json(&self, stream: &str, request: &StreamInfoRequest) -> Result<Vec<Bytes>, Error> {
        if let Some(filter) = &request.subjects_filter {
            validate_subject(filter)?;
        }
        let subject = api::stream_info(self.api_prefix(), stream)?;
        let mut request = request.clone();
        let mut pages = Vec::new();
        loop {
            let body = serde_json::to_vec(&request).map_err(|e| Error::InvalidArgument(e.to_string()))?;
            let reply = self.request_json(&subject, &body).await?;
            let page: Page = api::parse_checked(&reply)?;
            pages.push(reply);
            request.offset += page.state.subjects.0;
            if page.state.subjects.0 == 0 || request.offset >= page.total {
                return Ok(pages);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_count_their_subjects() {
        let page: Page = api::parse_checked(
            br#"{"type":"x","total":3,"offset":0,"limit":100000,"config":{"name":"S"},
                "state":{"messages":4,"subjects":{"a":1,"b":2,"c":{"odd":[1]}}}}"#,
        )
        .unwrap();
        assert_eq!((page.total, page.state.subjects.0), (3, 3));
        let page: Page = api::parse_checked(br#"{"state":{"messages":0,"subjects":null}}"#).unwrap();
        assert_eq!((page.total, page.state.subjects.0), (0, 0));
        let page: Page = api::parse_checked(br#"{"config":{},"state":{"messages":0}}"#).unwrap();
        assert_eq!(page.state.subjects.0, 0);
    }
}
