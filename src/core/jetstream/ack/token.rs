//! A storable handle to one delivery, to ack later from any connection.

use serde::{Deserialize, Serialize};

use super::metadata::MessageMetadata;
use crate::core::error::{Error, ProtocolError};
use crate::core::message::Message;

/// One delivery of one message: its ack reply subject, which names stream,
/// consumer and sequences, so any connection of the account can ack it.
///
/// Serializes as the bare subject string, small enough for a checkpoint;
/// reading it back checks the subject again.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct AckToken {
    subject: String,
    metadata: MessageMetadata,
}

// The metadata is read from the subject: the subject alone is the identity
// (and hashing only it keeps a batch of thousands of acks cheap).
impl PartialEq for AckToken {
    fn eq(&self, other: &Self) -> bool {
        self.subject == other.subject
    }
}

impl Eq for AckToken {}

impl std::hash::Hash for AckToken {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.subject.hash(state);
    }
}

impl AckToken {
    /// A token from an ack reply subject.
    pub fn new(subject: impl Into<String>) -> Result<Self, Error> {
        let subject = subject.into();
        let metadata = MessageMetadata::parse(&subject)?;
        Ok(AckToken { subject, metadata })
    }

    /// The token of a delivered JetStream message (its reply subject).
    pub fn from_message(message: &Message) -> Result<Self, Error> {
        match &message.reply {
            Some(reply) => AckToken::new(reply.clone()),
            None => Err(Error::Protocol(ProtocolError::AckSubject(format!(
                "message on {} has no ack reply subject",
                message.subject
            )))),
        }
    }

    /// The subject acks are published to.
    pub fn subject(&self) -> &str {
        &self.subject
    }

    pub fn metadata(&self) -> &MessageMetadata {
        &self.metadata
    }

    pub fn stream(&self) -> &str {
        &self.metadata.stream
    }

    pub fn consumer(&self) -> &str {
        &self.metadata.consumer
    }

    pub fn stream_sequence(&self) -> u64 {
        self.metadata.stream_sequence
    }
}

impl TryFrom<String> for AckToken {
    type Error = Error;

    fn try_from(subject: String) -> Result<Self, Error> {
        AckToken::new(subject)
    }
}

impl From<AckToken> for String {
    fn from(token: AckToken) -> String {
        token.subject
    }
}
