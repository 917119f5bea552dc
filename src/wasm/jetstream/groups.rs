//! Partitioned consumer groups on `RawJetStream`: the admin calls and
//! `groupJoin`, whose member reads like any consumer (`RawConsumerMessages`,
//! the partition token already off the subject, each batch with its
//! messages' partitions). A member's checkpoint is read by the JS function
//! given to `groupJoin`, called from the Rust API's
//! [`Member::resume_with`]: the skipping is the Rust member's. Thin: documents cross as
//! the Go library's JSON text, parsed and checked by the Rust API
//! ([`crate::jetstream::groups`]).

use std::pin::Pin;
use std::task::{Context as TaskContext, Poll};

use futures_core::Stream;
use js_sys::{Array, Function, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::context::RawJetStream;
use super::messages::{RawConsumerMessages, Reader};
use super::whole_number;
use crate::core::error::Error;
use crate::jetstream::Message;
use crate::jetstream::api::AckPolicy;
use crate::jetstream::consumer::pull;
use crate::jetstream::groups::Mappings;
use crate::jetstream::groups::{self, ElasticConfig, Kind, Member, StaticConfig};
use crate::jetstream::pull::ConsumerEvent;
use crate::jetstream::reader::Raw;
use crate::transport::js_message;
use crate::wasm::options::millis;
use crate::wasm::promise;

fn kind(text: &str) -> Result<Kind, Error> {
    match text {
        "static" => Ok(Kind::Static),
        "elastic" => Ok(Kind::Elastic),
        _ => Err(Error::InvalidArgument(format!("a consumer group is static or elastic, not {text:?}"))),
    }
}

fn strings(values: Vec<String>) -> JsValue {
    values.into_iter().map(JsValue::from).collect::<Array>().into()
}

#[wasm_bindgen]
impl RawJetStream {
    /// Creates a group from its document (the Go library's JSON); resolves to the stored document.
    #[wasm_bindgen(js_name = groupCreate, unchecked_return_type = "Promise<string>")]
    pub fn group_create(&self, kind_name: String, stream: String, group: String, document: String) -> Promise {
        let js = self.context.clone();
        promise(async move {
            let json = match kind(&kind_name)? {
                Kind::Static => groups::create_static(&js, &stream, &group, StaticConfig::parse(document.as_bytes())?)
                    .await?
                    .to_json(),
                Kind::Elastic => {
                    let config = ElasticConfig::parse(document.as_bytes())?;
                    groups::create_elastic(&js, &stream, &group, config).await?.to_json()
                }
            };
            Ok(JsValue::from(String::from_utf8_lossy(&json).into_owned()))
        })
    }

    /// The group's document (JSON).
    #[wasm_bindgen(js_name = groupConfig, unchecked_return_type = "Promise<string>")]
    pub fn group_config(&self, kind_name: String, stream: String, group: String) -> Promise {
        let js = self.context.clone();
        promise(async move {
            let json = match kind(&kind_name)? {
                Kind::Static => groups::static_config(&js, &stream, &group).await?.to_json(),
                Kind::Elastic => groups::elastic_config(&js, &stream, &group).await?.to_json(),
            };
            Ok(JsValue::from(String::from_utf8_lossy(&json).into_owned()))
        })
    }

    /// Deletes a group (document, then consumers or stream).
    #[wasm_bindgen(js_name = groupDelete, unchecked_return_type = "Promise<void>")]
    pub fn group_delete(&self, kind_name: String, stream: String, group: String) -> Promise {
        let js = self.context.clone();
        promise(async move {
            groups::delete(&js, kind(&kind_name)?, &stream, &group).await?;
            Ok(JsValue::UNDEFINED)
        })
    }

    /// The groups of a kind on a stream.
    #[wasm_bindgen(js_name = groupList, unchecked_return_type = "Promise<string[]>")]
    pub fn group_list(&self, kind_name: String, stream: String) -> Promise {
        let js = self.context.clone();
        promise(async move { Ok(strings(groups::list(&js, kind(&kind_name)?, &stream).await?)) })
    }

    /// Adds (`add`) or drops members of an elastic group; resolves to the members.
    #[wasm_bindgen(js_name = groupMembership, unchecked_return_type = "Promise<string[]>")]
    pub fn group_membership(&self, add: bool, stream: String, group: String, members: Vec<String>) -> Promise {
        let js = self.context.clone();
        promise(async move {
            let now = if add {
                groups::add_members(&js, &stream, &group, &members).await?
            } else {
                groups::drop_members(&js, &stream, &group, &members).await?
            };
            Ok(strings(now))
        })
    }

    /// Sets an elastic group's mappings (JSON `{"mappings": [{member, partitions}]}`), or removes them (`null`).
    #[wasm_bindgen(js_name = groupMappings, unchecked_return_type = "Promise<void>")]
    pub fn group_mappings(&self, stream: String, group: String, mappings: Option<String>) -> Promise {
        let js = self.context.clone();
        promise(async move {
            match mappings {
                Some(text) => groups::set_mappings(&js, &stream, &group, Mappings::parse(text.as_bytes())?).await?,
                None => groups::delete_mappings(&js, &stream, &group).await?,
            }
            Ok(JsValue::UNDEFINED)
        })
    }

    /// Moves a member's pin to another of its instances.
    #[wasm_bindgen(js_name = groupStepDown, unchecked_return_type = "Promise<void>")]
    pub fn group_step_down(&self, kind_name: String, stream: String, group: String, member: String) -> Promise {
        let js = self.context.clone();
        promise(async move {
            groups::step_down(&js, kind(&kind_name)?, &stream, &group, &member).await?;
            Ok(JsValue::UNDEFINED)
        })
    }

    /// Each member's state: `[member, active, waiting, pinnedClientId | null]` rows.
    #[wasm_bindgen(js_name = groupMembers, unchecked_return_type = "Promise<[string, boolean, number, string | null][]>")]
    pub fn group_members(&self, kind_name: String, stream: String, group: String) -> Promise {
        let js = self.context.clone();
        promise(async move {
            let states = groups::members(&js, kind(&kind_name)?, &stream, &group).await?;
            let rows: Array = states
                .into_iter()
                .map(|s| {
                    let pin = s.pinned_client_id.map_or(JsValue::NULL, JsValue::from);
                    Array::of4(&s.member.into(), &s.active.into(), &(s.waiting as f64).into(), &pin)
                })
                .collect();
            Ok(JsValue::from(rows))
        })
    }

    /// Joins a group as an instance of `member`, with the template's
    /// `ack_wait` (ms; unset: 5 s), `max_ack_pending` and `max_deliver`
    /// (unset: the server's), and explicit acks unless `ack_none`; resolves
    /// to its reader. `resume_with(partition)` gives (or resolves to) the
    /// last stream sequence the application finished in a partition, or
    /// `null`/`undefined` for none ([`Member::resume_with`]).
    #[wasm_bindgen(js_name = groupJoin, unchecked_return_type = "Promise<RawConsumerMessages>")]
    #[allow(clippy::too_many_arguments, reason = "flat values cross the boundary cheaply")]
    pub fn group_join(
        &self,
        kind_name: String,
        stream: String,
        group: String,
        member: String,
        #[wasm_bindgen(unchecked_param_type = "number | undefined")] ack_wait_ms: JsValue,
        #[wasm_bindgen(unchecked_param_type = "number | undefined")] max_ack_pending: JsValue,
        #[wasm_bindgen(unchecked_param_type = "number | undefined")] max_deliver: JsValue,
        ack_none: bool,
        #[wasm_bindgen(
            unchecked_param_type = "((partition: number) => number | null | undefined | Promise<number | null | undefined>) | undefined"
        )]
        resume_with: Option<Function>,
    ) -> Promise {
        let js = self.context.clone();
        promise(async move {
            let template = pull::Config {
                ack_wait: millis(ack_wait_ms, "ack_wait")?.unwrap_or_default(),
                max_ack_pending: whole_number(max_ack_pending, "max_ack_pending")?.unwrap_or(0),
                max_deliver: whole_number(max_deliver, "max_deliver")?.unwrap_or(0),
                ack_policy: if ack_none { AckPolicy::None } else { AckPolicy::Explicit },
                ..pull::Config::default()
            };
            let mut joined = groups::join(&js, kind(&kind_name)?, &stream, &group, &member, template).await?;
            if let Some(read) = resume_with {
                joined = joined.resume_with(move |partition| checkpoint(read.call1(&JsValue::NULL, &partition.into())));
            }
            Ok(RawConsumerMessages::new(GroupReader { member: joined, partitions: Vec::new() }).into())
        })
    }
}

/// The last sequence done in a partition, as the JS checkpoint reader
/// `called` gave it (a number, none, or a promise of either); what it
/// threw or rejected with as an error.
async fn checkpoint(called: Result<JsValue, JsValue>) -> Result<Option<u64>, Error> {
    let thrown = |e: JsValue| Error::Other(js_message(&e));
    let value = JsFuture::from(Promise::resolve(&called.map_err(thrown)?)).await.map_err(thrown)?;
    whole_number(value, "the resumeWith sequence")
}

/// A member read from JS: the partitions of the messages it handed out
/// since its last batch.
struct GroupReader {
    member: Member,
    partitions: Vec<u32>,
}

#[wasm_bindgen]
impl RawConsumerMessages {
    /// A consumer group member's redeliveries of work already done, acked and not handed out.
    pub fn skipped(&self) -> f64 {
        self.reader.borrow().stream.get_ref().skipped() as f64
    }
}

impl Stream for Raw<GroupReader> {
    type Item = Result<Message, Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Option<Self::Item>> {
        let reader = &mut self.0;
        Pin::new(&mut reader.member).poll_next(cx).map(|item| {
            item.map(|m| {
                m.map(|m| {
                    reader.partitions.push(m.partition);
                    m.message
                })
            })
        })
    }
}

impl Reader for Raw<GroupReader> {
    fn partitions(&mut self) -> Option<Vec<u32>> {
        Some(std::mem::take(&mut self.0.partitions))
    }
    fn skipped(&self) -> u64 {
        self.0.member.skipped()
    }
    fn poll_event(&self, _cx: &mut TaskContext<'_>) -> Poll<Option<ConsumerEvent>> {
        Poll::Pending
    }
    fn pending(&self) -> usize {
        0
    }
    fn stop(&mut self) {
        self.0.member.stop()
    }
    fn drain(&mut self) -> Pin<Box<dyn Future<Output = Result<(), Error>>>> {
        self.0.member.stop();
        Box::pin(std::future::ready(Ok(())))
    }
}
