//! nats.js's nested `KvOptions` (`mirror`, `sources`, `placement`,
//! `republish`) from the two lists TS makes of them (`nested` in
//! bindings/kv/kvm.ts), in this order:
//! - numbers: a mirror (1 or 0), how many sources, a placement (1 or 0), a
//!   republish (1 or 0); per stream source, the mirror first,
//!   `opt_start_seq` (0: none) and how many subject transforms; the
//!   placement's tags; the republish's `headers_only` (1 or 0);
//! - strings (`""`: none): per stream source `name`, `filter_subject`,
//!   `opt_start_time`, `external.api`, `external.deliver`, `consumer.name`,
//!   `consumer.deliver_subject`, then each transform's `src` and `dest`;
//!   the placement's `cluster`, `preferred` and tags; the republish's `src`
//!   and `dest`.
//!
//! Lists cost the wasm far less than reading the server's JSON shapes of
//! these types (5 KB gzip of deserializers).

use std::slice::Iter;

use crate::core::error::Error;
use crate::jetstream::api::{External, Placement, Republish, Source, StreamConsumerSource, SubjectTransform};
use crate::wasm::options::whole;

/// The nested options, for the Rust `Config`.
#[derive(Default)]
pub(super) struct Nested {
    pub mirror: Option<Source>,
    pub sources: Option<Vec<Source>>,
    pub placement: Option<Placement>,
    pub republish: Option<Republish>,
}

pub(super) fn nested(strings: &[String], numbers: &[f64]) -> Result<Nested, Error> {
    let mut lists = Lists { strings: strings.iter(), numbers: numbers.iter() };
    let [mirror, sources, placement, republish] =
        ["mirror", "sources", "placement", "republish"].map(|what| lists.count(what));
    let (mirror, sources) = (usize::from(mirror? > 0), sources?);
    let (placement, republish) = (placement? > 0, republish? > 0);
    let mut all = (0..mirror + sources).map(|_| lists.source()).collect::<Result<Vec<_>, _>>()?;
    let sources = all.split_off(mirror);
    let placement = placement.then(|| lists.placement()).transpose()?;
    let republish = republish.then(|| lists.republish()).transpose()?;
    Ok(Nested { mirror: all.pop(), sources: Some(sources).filter(|s| !s.is_empty()), placement, republish })
}

struct Lists<'a> {
    strings: Iter<'a, String>,
    numbers: Iter<'a, f64>,
}

impl Lists<'_> {
    fn string(&mut self) -> String {
        self.strings.next().cloned().unwrap_or_default()
    }

    fn text(&mut self) -> Option<String> {
        Some(self.string()).filter(|s| !s.is_empty())
    }

    fn count(&mut self, what: &str) -> Result<usize, Error> {
        whole(self.numbers.next().copied().unwrap_or(0.0), what)
    }

    fn source(&mut self) -> Result<Source, Error> {
        let name = self.string();
        let [filter_subject, start_time, api, deliver, consumer, deliver_subject] =
            std::array::from_fn(|_| self.text());
        let start_sequence = Some(self.count("opt_start_seq")? as u64).filter(|seq| *seq > 0);
        let transforms = self.count("subject_transforms")?;
        let subject_transforms =
            (0..transforms).map(|_| SubjectTransform { source: self.string(), destination: self.string() }).collect();
        let consumer = (consumer.is_some() || deliver_subject.is_some())
            .then_some(StreamConsumerSource { name: consumer, deliver_subject });
        let external = api.map(|api_prefix| External { api_prefix, delivery_prefix: deliver });
        Ok(Source { name, start_sequence, start_time, filter_subject, subject_transforms, external, consumer })
    }

    fn placement(&mut self) -> Result<Placement, Error> {
        let [cluster, preferred] = std::array::from_fn(|_| self.text());
        let tags = (0..self.count("placement.tags")?).map(|_| self.string()).collect();
        Ok(Placement { cluster, tags, preferred })
    }

    fn republish(&mut self) -> Result<Republish, Error> {
        let [source, destination] = std::array::from_fn(|_| self.string());
        Ok(Republish { source, destination, headers_only: self.count("republish.headers_only")? > 0 })
    }
}
