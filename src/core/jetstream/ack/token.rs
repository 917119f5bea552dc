//! A storable handle to one delivery, to ack later from any connection.

use std::ops::Range;

use serde::{Deserialize, Serialize};

use super::metadata::{DeliveryNumbers, MessageMetadata};
use crate::core::error::{Error, ProtocolError};
use crate::core::message::Message;

/// One delivery of one message: its ack reply subject, which names stream,
/// consumer and sequences, so any connection of the account can ack it.
///
/// Serializes as the bare subject string, small enough for a checkpoint;
/// reading it back checks the subject again. Holds the subject and its
/// numbers only (the names are ranges of the subject): the checkpoint
/// ledger makes one per message it tracks.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct AckToken {
    subject: String,
    stream: Range<u32>,
    consumer: Range<u32>,
    numbers: DeliveryNumbers,
}

// The numbers are read from the subject: the subject alone is the identity
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
        if u32::try_from(subject.len()).is_err() {
            return Err(Error::Protocol(ProtocolError::AckSubject("ack subject longer than 4 GiB".into())));
        }
        let (stream, consumer, numbers) = DeliveryNumbers::parse_named(&subject)?;
        // Both names are slices of `subject`, whose length fits u32.
        let range = |name: &str| {
            let start = name.as_ptr() as usize - subject.as_ptr() as usize;
            start as u32..(start + name.len()) as u32
        };
        let (stream, consumer) = (range(stream), range(consumer));
        Ok(AckToken { subject, stream, consumer, numbers })
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

    /// Everything the subject says, read again (names owned).
    pub fn metadata(&self) -> MessageMetadata {
        // Parsed once already: it cannot fail now.
        MessageMetadata::parse(&self.subject).unwrap_or_else(|_| unreachable!("checked by AckToken::new"))
    }

    /// The stream the message is in.
    pub fn stream(&self) -> &str {
        &self.subject[self.stream.start as usize..self.stream.end as usize]
    }

    /// The consumer that delivered it.
    pub fn consumer(&self) -> &str {
        &self.subject[self.consumer.start as usize..self.consumer.end as usize]
    }

    /// The message's stream sequence.
    pub fn stream_sequence(&self) -> u64 {
        self.numbers.stream_sequence
    }

    /// The consumer sequence of this delivery.
    pub fn consumer_sequence(&self) -> u64 {
        self.numbers.consumer_sequence
    }

    /// How many times the message was delivered, this time included.
    pub fn delivered(&self) -> u64 {
        self.numbers.delivered
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
