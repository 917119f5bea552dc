//! The `*.NAMES` and `*.LIST` calls as a lazy `Stream` of pages: the server
//! answers a page at a time (`total`, `offset`, items), so the next page is
//! asked for with the offset of the items seen so far, only when the caller
//! has consumed the current one.
//!
//! Pages are handed over as the server's JSON, whatever they hold, so there
//! is one pager for every listing; the typed listings parse each item, the
//! JS API hands the pages over as text.

use bytes::Bytes;
use futures_core::Stream;
use futures_util::StreamExt;
use serde::Deserialize;
use serde::de::{DeserializeOwned, IgnoredAny};
use serde_json::Value;

use super::api::{self, StreamNamesRequest};
use super::context::{Context, encode_request};
use crate::core::error::Error;
use crate::core::subject::validate_subject;

/// One page of any listing: the items are under `streams` or `consumers`.
#[derive(Deserialize)]
#[cfg_attr(test, derive(Debug))]
#[serde(bound = "T: Deserialize<'de>")]
struct Page<T> {
    total: usize,
    #[serde(alias = "consumers", default, deserialize_with = "api::null_as_default")]
    streams: Vec<T>,
}

struct Pager {
    context: Context,
    /// An invalid filter is reported as the first page.
    subject: Result<String, Error>,
    filter: Option<String>,
    offset: usize,
    done: bool,
}

impl Context {
    /// Every page of the listing at the full API `subject` (`api::stream_names`
    /// …), each as the server's JSON (its items under `streams` or
    /// `consumers`). `filter` keeps the streams that store a subject
    /// (wildcards allowed); consumer listings take none. Ends after an error
    /// or a page that completes the listing. Boxed so that it is `Unpin`:
    /// callers can use `.next()` without pinning, as with async-nats. It owns
    /// a clone of the context, so it outlives the borrow.
    pub fn list_pages(
        &self,
        subject: String,
        filter: Option<String>,
    ) -> impl Stream<Item = Result<Bytes, Error>> + Unpin + use<> {
        let subject = filter.as_deref().map_or(Ok(()), validate_subject).map(|()| subject);
        let pager = Pager { context: self.clone(), subject, filter, offset: 0, done: false };
        Box::pin(futures_util::stream::unfold(pager, |mut pager| async move {
            if pager.done {
                return None;
            }
            pager.done = true;
            let page = pager.next_page().await;
            if let Ok((_, count)) = &page {
                pager.offset += count.streams.len();
                pager.done = count.streams.is_empty() || pager.offset >= count.total;
            }
            Some((page.map(|(json, _)| json), pager))
        }))
    }
}

impl Pager {
    /// The next page, and its items counted.
    async fn next_page(&self) -> Result<(Bytes, Page<IgnoredAny>), Error> {
        let subject = self.subject.as_ref().map_err(Error::clone)?;
        let body = encode_request(&StreamNamesRequest { offset: self.offset, subject: self.filter.clone() })?;
        let json = self.context.request_json(subject, &body).await?;
        let count = api::parse_checked_plain(&json)?;
        Ok((json, count))
    }
}

/// The items of a listing's pages, each parsed as `T`: an item that does not
/// fit is an error of its own, the items around it still come.
pub(crate) fn typed<T: DeserializeOwned>(
    pages: impl Stream<Item = Result<Bytes, Error>> + Unpin,
) -> impl Stream<Item = Result<T, Error>> + Unpin {
    pages.flat_map(|page| {
        let items = page.and_then(|json| {
            // `Value`, not `RawValue`: serde_json's `raw_value` feature adds a
            // raw-value arm to every serializer, the wasm's too (1.6 KB gzip).
            let page: Page<Value> = serde_json::from_slice(&json).map_err(|e| api::bad_response(&e))?;
            Ok(page.streams)
        });
        let items: Vec<Result<T, Error>> = match items {
            Ok(items) => {
                items.into_iter().map(|item| T::deserialize(item).map_err(|e| api::bad_response(&e))).collect()
            }
            Err(e) => vec![Err(e)],
        };
        futures_util::stream::iter(items)
    })
}

#[cfg(test)]
mod tests {
    use futures_util::{FutureExt, stream};

    use super::*;

    const PAGE: &[u8] =
        br#"{"type":"x","total":3,"offset":0,"limit":256,"streams":[{"config":{"name":"A"}}, "B"],"missing":["C"]}"#;

    #[test]
    fn pages_of_any_listing_are_counted() {
        let page: Page<IgnoredAny> = api::parse_checked(PAGE).unwrap();
        assert_eq!((page.total, page.streams.len()), (3, 2));
        let page: Page<IgnoredAny> = api::parse_checked(br#"{"total":1,"consumers":["c"]}"#).unwrap();
        assert_eq!(page.streams.len(), 1);
        // Go sends `null` for an empty slice.
        let page: Page<IgnoredAny> =
            api::parse_checked(br#"{"total":0,"offset":0,"limit":1024,"consumers":null}"#).unwrap();
        assert!(page.streams.is_empty());
        for json in [PAGE, br#"{"total":0,"consumers":null}"#, br#"{"streams":[]}"#, br#"{"total":1,"streams":{}}"#] {
            crate::plain_json::assert_same::<Page<IgnoredAny>>(json);
        }
    }

    #[derive(Debug, PartialEq, Deserialize)]
    struct Named {
        name: String,
    }

    #[test]
    fn typed_items_fail_alone() {
        let pages = stream::iter([
            Ok(Bytes::from_static(br#"{"total":3,"streams":[{"name":"A"},"B"]}"#)),
            Ok(Bytes::from_static(br#"{"total":3,"consumers":[{"name":"C"}]}"#)),
            Ok(Bytes::from_static(b"not json")),
        ]);
        let items: Vec<Result<Named, Error>> = typed(pages).collect().now_or_never().unwrap();
        assert_eq!(items[0], Ok(Named { name: "A".into() }));
        assert!(matches!(items[1], Err(Error::Protocol(_))), "{items:?}");
        assert_eq!(items[2], Ok(Named { name: "C".into() }));
        assert!(matches!(items[3], Err(Error::Protocol(_))), "{items:?}");
        assert_eq!(items.len(), 4);
    }
}
