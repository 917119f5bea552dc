//! The `*.NAMES` and `*.LIST` calls as a lazy `Stream` of items: the server
//! answers a page at a time (`total`, `offset`, items), so the next page is
//! asked for with the offset of the items seen so far, only when the caller
//! has consumed the current one.
//!
//! Pages are read as JSON items, whatever they hold, so there is one pager
//! for every listing; the typed listings parse each item, the JS API hands
//! the items over as text.

use std::collections::VecDeque;

use futures_core::Stream;
use futures_util::StreamExt;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;

use super::api::{self, StreamNamesRequest};
use super::context::Context;
use crate::error::Error;
use crate::subject::validate_subject;

/// One page of any listing: the items are under `streams` or `consumers`.
#[derive(Deserialize)]
struct Page {
    total: usize,
    #[serde(alias = "consumers", default, deserialize_with = "api::null_as_default")]
    streams: Vec<Box<RawValue>>,
}

struct Pager {
    context: Context,
    /// An invalid filter is reported as the first item.
    subject: Result<String, Error>,
    filter: Option<String>,
    offset: usize,
    items: VecDeque<Box<RawValue>>,
    done: bool,
}

impl Context {
    /// The items of every page of the listing at the full API `subject`
    /// (`api::stream_names` …), each as its JSON text. `filter` keeps the
    /// streams that store a subject (wildcards allowed); consumer listings
    /// take none. Ends after an error. Boxed so that it is `Unpin`: callers
    /// can use `.next()` without pinning, as with async-nats. It owns a
    /// clone of the context, so it outlives the borrow.
    pub fn list_json(
        &self,
        subject: String,
        filter: Option<String>,
    ) -> impl Stream<Item = Result<Box<RawValue>, Error>> + Unpin + use<> {
        let subject = filter.as_deref().map_or(Ok(()), validate_subject).map(|()| subject);
        let pager = Pager { context: self.clone(), subject, filter, offset: 0, items: VecDeque::new(), done: false };
        Box::pin(futures_util::stream::unfold(pager, |mut pager| async move {
            loop {
                if let Some(item) = pager.items.pop_front() {
                    return Some((Ok(item), pager));
                }
                if pager.done {
                    return None;
                }
                pager.done = true;
                match pager.next_page().await {
                    Ok(page) => {
                        pager.offset += page.streams.len();
                        pager.done = page.streams.is_empty() || pager.offset >= page.total;
                        pager.items.extend(page.streams);
                    }
                    Err(e) => return Some((Err(e), pager)),
                }
            }
        }))
    }
}

impl Pager {
    async fn next_page(&self) -> Result<Page, Error> {
        let subject = self.subject.as_ref().map_err(Error::clone)?;
        let body = StreamNamesRequest { offset: self.offset, subject: self.filter.clone() };
        self.context.request(subject, &body).await
    }
}

/// The items of a listing, each parsed as `T`.
pub(crate) fn typed<T: DeserializeOwned>(
    items: impl Stream<Item = Result<Box<RawValue>, Error>> + Unpin,
) -> impl Stream<Item = Result<T, Error>> + Unpin {
    items.map(|item| item.and_then(|json| api::parse_checked(json.get().as_bytes())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_of_any_listing() {
        let page: Page = api::parse_checked(
            br#"{"type":"x","total":3,"offset":0,"limit":256,"streams":[{"config":{"name":"A"}}, "B"],"missing":["C"]}"#,
        )
        .unwrap();
        assert_eq!(page.total, 3);
        let items: Vec<&str> = page.streams.iter().map(|item| item.get()).collect();
        assert_eq!(items, [r#"{"config":{"name":"A"}}"#, r#""B""#]);
        let page: Page = api::parse_checked(br#"{"total":1,"consumers":["c"]}"#).unwrap();
        assert_eq!(page.streams[0].get(), r#""c""#);
        // Go sends `null` for an empty slice.
        let page: Page = api::parse_checked(br#"{"total":0,"offset":0,"limit":1024,"consumers":null}"#).unwrap();
        assert!(page.streams.is_empty());
    }
}
