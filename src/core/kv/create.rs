//! A KV create as a [`Procedure`]: the value published expecting no
//! message on the key; when the key has one (wrong last sequence), its
//! latest entry looked up, and over a delete or purge marker the value
//! published again expecting the marker's revision. Whoever pumps it (the
//! Rust store, the wasm's one procedure export) only publishes and gets.

use std::collections::VecDeque;

use bytes::Bytes;

use super::read::stored_entry;
use super::write::CreateOver;
use crate::core::error::Error;
use crate::core::jetstream::api::{ErrorCode, MsgGetRequest};
use crate::core::jetstream::publish::Publish;
use crate::core::procedure::{Procedure, Reply, Step, Wait, Yield};
use crate::core::time::Instant;
use crate::core::timer::Deadline;

/// Where a create is.
#[derive(Debug)]
enum State {
    /// The first publish, expecting no message on the key.
    First,
    /// Its latest entry asked for, after the first publish failed with this.
    Looking(Error),
    /// The publish over the marker.
    Over,
    /// Over: the revision written, or why not.
    Done(Option<Result<u64, Error>>),
}

/// The create of one key.
pub struct KvCreate {
    bucket: String,
    key: String,
    /// The key's subject as the stream stores it.
    subject: String,
    /// The subject the value is published to (a domain's prefix in front).
    write_subject: String,
    stream: String,
    direct: bool,
    value: Bytes,
    with: Publish,
    state: State,
    already_exists: bool,
    steps: VecDeque<Step>,
}

/// A create's bucket and key, and how its stream is read and written.
pub struct CreateTarget {
    /// The bucket's name.
    pub bucket: String,
    /// The key.
    pub key: String,
    /// The key's subject as the stream stores it (`$KV.<bucket>.<key>`).
    pub subject: String,
    /// The subject a write of the key is published to.
    pub write_subject: String,
    /// The bucket's stream.
    pub stream: String,
    /// Whether the stream answers direct gets.
    pub direct: bool,
}

impl KvCreate {
    /// The create of `value` at `target`'s key, published with the extra headers of `with` (a TTL).
    pub fn new(target: CreateTarget, value: Bytes, with: Publish) -> Self {
        let CreateTarget { bucket, key, subject, write_subject, stream, direct } = target;
        let publish = with.clone().expected_last_subject_sequence(0).payload(value.clone());
        let steps = VecDeque::from([Step::Publish { subject: write_subject.clone(), publish }]);
        KvCreate {
            bucket,
            key,
            subject,
            write_subject,
            stream,
            direct,
            value,
            with,
            state: State::First,
            already_exists: false,
            steps,
        }
    }

    /// Whether it failed because the key holds a value.
    pub fn already_exists(&self) -> bool {
        self.already_exists
    }

    fn end(&mut self, result: Result<u64, Error>) {
        self.state = State::Done(Some(result));
    }
}

impl Procedure for KvCreate {
    type Item = u64;

    fn handle_reply(&mut self, _now: Instant, reply: Reply) {
        let state = std::mem::replace(&mut self.state, State::Done(None));
        match (state, reply) {
            (State::First, Reply::Acked(Ok(revision))) => self.end(Ok(revision)),
            (State::First, Reply::Acked(Err(first))) => {
                let code = match &first {
                    Error::JetStream(e) => Some(e.err_code),
                    _ => None,
                };
                if !CreateOver::looks(code) {
                    return self.end(Err(first));
                }
                let request = MsgGetRequest { last_by_subj: Some(self.subject.clone()), ..MsgGetRequest::default() };
                self.steps.push_back(Step::GetMessage { stream: self.stream.clone(), direct: self.direct, request });
                self.state = State::Looking(first);
            }
            (State::Looking(first), Reply::Stored(found)) => {
                let found = match found {
                    Ok(message) => stored_entry(&self.bucket, &self.key, &self.subject, message),
                    Err(Error::JetStream(e)) if e.err_code == ErrorCode::NO_MESSAGE_FOUND => None,
                    Err(e) => return self.end(Err(e)),
                };
                match CreateOver::after(found.as_ref().map(|(entry, _)| entry)) {
                    CreateOver::Marker(revision) => {
                        let publish =
                            self.with.clone().expected_last_subject_sequence(revision).payload(self.value.clone());
                        self.steps.push_back(Step::Publish { subject: self.write_subject.clone(), publish });
                        self.state = State::Over;
                    }
                    CreateOver::Taken => {
                        self.already_exists = true;
                        self.end(Err(first));
                    }
                    CreateOver::Failed => self.end(Err(first)),
                }
            }
            (State::Over, Reply::Acked(written)) => {
                self.already_exists = matches!(&written, Err(Error::JetStream(e)) if e.is_wrong_last_sequence());
                self.end(written);
            }
            // A reply to nothing asked: ignored.
            (state, _) => self.state = state,
        }
    }

    fn handle_timeout(&mut self, _now: Instant) {}

    fn poll_step(&mut self) -> Option<Step> {
        self.steps.pop_front()
    }

    fn poll_item(&mut self, _now: Instant) -> Yield<u64> {
        match &mut self.state {
            State::Done(result) => match result.take() {
                Some(Ok(revision)) => Yield::Item(revision),
                Some(Err(e)) => Yield::Failed(e),
                None => Yield::Done,
            },
            _ => Yield::Wait,
        }
    }

    fn poll_deadline(&self) -> Option<Deadline<Wait>> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::header::HeaderMap;
    use crate::core::jetstream::api::JetStreamError;
    use crate::core::jetstream::raw_message::StreamMessage;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    const NOW: Instant = Instant::ZERO;

    fn fresh() -> KvCreate {
        let target = CreateTarget {
            bucket: "b".into(),
            key: "k".into(),
            subject: "$KV.b.k".into(),
            write_subject: "$KV.b.k".into(),
            stream: "KV_b".into(),
            direct: true,
        };
        KvCreate::new(target, Bytes::from_static(b"v"), Publish::build())
    }

    /// The steps asked for: the expected last subject sequence of a
    /// publish, `get` for a read of the key's last message.
    fn steps(create: &mut KvCreate) -> Vec<String> {
        std::iter::from_fn(|| create.poll_step())
            .map(|step| match step {
                Step::Publish { subject, publish } => {
                    let headers = publish.header_map().cloned().unwrap_or_default();
                    let expected = headers.get("Nats-Expected-Last-Subject-Sequence").map(|v| v.to_string());
                    format!("publish {subject} expecting {}", expected.unwrap_or_default())
                }
                Step::GetMessage { stream, direct, request } => {
                    format!("get {stream} {direct} {}", request.last_by_subj.unwrap_or_default())
                }
                other => format!("{other:?}"),
            })
            .collect()
    }

    fn wrong_last_sequence() -> Error {
        Error::JetStream(JetStreamError {
            code: 400,
            err_code: ErrorCode::STREAM_WRONG_LAST_SEQUENCE,
            description: "wrong last sequence: 7".into(),
        })
    }

    fn stored(operation: Option<&str>, sequence: u64) -> Reply {
        let mut headers = HeaderMap::new();
        if let Some(op) = operation {
            headers.insert("KV-Operation", op);
        }
        let message = StreamMessage {
            subject: "$KV.b.k".into(),
            sequence,
            headers,
            payload: Bytes::new(),
            time: "2026-12-07T10:00:00Z".into(),
        };
        Reply::Stored(Ok(message))
    }

    #[test]
    fn a_create_of_a_new_key_is_one_publish_expecting_no_message() {
        let mut create = fresh();
        assert_eq!(steps(&mut create), ["publish $KV.b.k expecting 0"]);
        assert_eq!(create.poll_item(NOW), Yield::Wait);
        create.handle_reply(NOW, Reply::Acked(Ok(3)));
        assert_eq!(create.poll_item(NOW), Yield::Item(3));
        assert_eq!(create.poll_item(NOW), Yield::Done);
        assert_eq!(steps(&mut create), Vec::<String>::new());
    }

    #[test]
    fn a_create_over_a_delete_or_purge_marker_publishes_again_expecting_the_marker() {
        for op in ["DEL", "PURGE"] {
            let mut create = fresh();
            let _ = steps(&mut create);
            create.handle_reply(NOW, Reply::Acked(Err(wrong_last_sequence())));
            assert_eq!(steps(&mut create), ["get KV_b true $KV.b.k"]);
            create.handle_reply(NOW, stored(Some(op), 7));
            assert_eq!(steps(&mut create), ["publish $KV.b.k expecting 7"]);
            create.handle_reply(NOW, Reply::Acked(Ok(8)));
            assert_eq!(create.poll_item(NOW), Yield::Item(8));
        }
    }

    #[test]
    fn a_key_with_a_value_already_exists_and_other_failures_are_the_first() {
        let mut create = fresh();
        let _ = steps(&mut create);
        create.handle_reply(NOW, Reply::Acked(Err(wrong_last_sequence())));
        let _ = steps(&mut create);
        create.handle_reply(NOW, stored(None, 7));
        assert_eq!(create.poll_item(NOW), Yield::Failed(wrong_last_sequence()));
        assert!(create.already_exists());
        assert_eq!(steps(&mut create), Vec::<String>::new());

        // Another writer wrote over the marker first.
        let mut create = fresh();
        let _ = steps(&mut create);
        create.handle_reply(NOW, Reply::Acked(Err(wrong_last_sequence())));
        let _ = steps(&mut create);
        create.handle_reply(NOW, stored(Some("DEL"), 7));
        let _ = steps(&mut create);
        create.handle_reply(NOW, Reply::Acked(Err(wrong_last_sequence())));
        assert_eq!(create.poll_item(NOW), Yield::Failed(wrong_last_sequence()));
        assert!(create.already_exists());

        // A failure that is not the key's: no look-up, the first error.
        let mut create = fresh();
        let _ = steps(&mut create);
        create.handle_reply(NOW, Reply::Acked(Err(Error::Timeout)));
        assert_eq!(steps(&mut create), Vec::<String>::new());
        assert_eq!(create.poll_item(NOW), Yield::Failed(Error::Timeout));
        assert!(!create.already_exists());

        // The key's message gone by the look-up: the first error.
        let mut create = fresh();
        let _ = steps(&mut create);
        create.handle_reply(NOW, Reply::Acked(Err(wrong_last_sequence())));
        let _ = steps(&mut create);
        let gone =
            JetStreamError { code: 404, err_code: ErrorCode::NO_MESSAGE_FOUND, description: "no message".into() };
        create.handle_reply(NOW, Reply::Stored(Err(Error::JetStream(gone))));
        assert_eq!(create.poll_item(NOW), Yield::Failed(wrong_last_sequence()));
        assert!(!create.already_exists());
    }
}
