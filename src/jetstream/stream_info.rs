//! `STREAM.INFO` with details: the per-subject message counts come a page
//! at a time (`offset`, `limit` = 100 000 subjects a reply, `total`;
//! `server/jetstream_api.go`), so every page is asked for here, once, for
//! the typed API (which merges them) and the JS API (which gets the pages'
//! JSON text).

use bytes::Bytes;
use serde::Deserialize;

use super::api::{self, StreamInfoRequest};
use super::context::{Context, encode_request};
use crate::core::error::Error;
use crate::core::subject::validate_subject;

/// Where a reply's page of subjects sits: from `offset`, at most `limit`,
/// of `total` (all 0 without subjects to page).
#[derive(Deserialize, Default)]
#[cfg_attr(test, derive(Debug))]
#[serde(default)]
struct Page {
    total: usize,
    offset: usize,
    limit: usize,
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
            let body = encode_request(&request)?;
            let reply = self.request_json(&subject, &body).await?;
            let page: Page = api::parse_checked_plain(&reply)?;
            pages.push(reply);
            request.offset = page.offset + page.limit;
            if page.limit == 0 || request.offset >= page.total {
                return Ok(pages);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_say_where_the_next_one_starts() {
        let json = br#"{"type":"x","total":250000,"offset":100000,"limit":100000,"config":{"name":"S"},
                "state":{"messages":4,"subjects":{"a":1}}}"#;
        crate::plain_json::assert_same::<Page>(json);
        let page: Page = api::parse_checked_plain(json).unwrap();
        assert_eq!((page.total, page.offset, page.limit), (250_000, 100_000, 100_000));
        let page: Page = api::parse_checked_plain(br#"{"config":{},"state":{"messages":0}}"#).unwrap();
        assert_eq!((page.total, page.offset, page.limit), (0, 0, 0));
    }
}
