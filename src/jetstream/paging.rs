//! The `*.NAMES` and `*.LIST` calls as a lazy `Stream` of items: the server
//! answers a page at a time (`total`, `offset`, items), so the next page is
//! asked for with the offset of the items seen so far, only when the caller
//! has consumed the current one.

use std::collections::VecDeque;

use futures_core::Stream;
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::api::{ConsumerInfo, ConsumerListResponse, ConsumerNamesResponse, StreamInfo};
use super::api::{StreamListResponse, StreamNamesResponse};
use super::context::Context;
use crate::error::Error;

/// One page of a listing reply.
pub(crate) trait Page: DeserializeOwned {
    type Item;
    /// The number of items in all pages, and this page's items.
    fn into_items(self) -> (usize, Vec<Self::Item>);
}

impl Page for StreamNamesResponse {
    type Item = String;
    fn into_items(self) -> (usize, Vec<String>) {
        (self.total, self.streams)
    }
}

impl Page for StreamListResponse {
    type Item = StreamInfo;
    fn into_items(self) -> (usize, Vec<StreamInfo>) {
        (self.total, self.streams)
    }
}

impl Page for ConsumerNamesResponse {
    type Item = String;
    fn into_items(self) -> (usize, Vec<String>) {
        (self.total, self.consumers)
    }
}

impl Page for ConsumerListResponse {
    type Item = ConsumerInfo;
    fn into_items(self) -> (usize, Vec<ConsumerInfo>) {
        (self.total, self.consumers)
    }
}

struct Pager<P: Page, F> {
    context: Context,
    /// An invalid name or filter is reported as the first item.
    subject: Result<String, Error>,
    body: F,
    offset: usize,
    items: VecDeque<P::Item>,
    done: bool,
}

/// Items of every page of the listing at `subject`; `body(offset)` is the
/// request for the page starting at `offset`. Ends after an error. Boxed so
/// that it is `Unpin`: callers can use `.next()` without pinning, as with
/// async-nats. It owns a clone of `context`, so it outlives the borrow.
pub(crate) fn pages<P, F, B>(
    context: &Context,
    subject: Result<String, Error>,
    body: F,
) -> impl Stream<Item = Result<P::Item, Error>> + Unpin + use<P, F, B>
where
    P: Page,
    F: Fn(usize) -> B,
    B: Serialize,
{
    let pager: Pager<P, F> =
        Pager { context: context.clone(), subject, body, offset: 0, items: VecDeque::new(), done: false };
    Box::pin(futures_util::stream::unfold(pager, |mut pager| async move {
        loop {
            if let Some(item) = pager.items.pop_front() {
                return Some((Ok(item), pager));
            }
            if pager.done {
                return None;
            }
            pager.done = true;
            let page = match &pager.subject {
                Ok(subject) => pager.context.request::<P>(subject, &(pager.body)(pager.offset)).await,
                Err(e) => Err(e.clone()),
            };
            match page {
                Ok(page) => {
                    let (total, items) = page.into_items();
                    pager.offset += items.len();
                    pager.done = items.is_empty() || pager.offset >= total;
                    pager.items.extend(items);
                }
                Err(e) => return Some((Err(e), pager)),
            }
        }
    }))
}
