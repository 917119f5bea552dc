//! Getting an object, sans-IO: how many chunks a batched direct get asks for,
//! and the check of the chunks against the meta's size and SHA-256 before
//! the last one is handed out. The `object_store` API folder reads the
//! chunks over a JetStream context.

use super::digest::{self, Digest};
use super::error::{GetError, GetErrorKind};
use super::info::ObjectInfo;
use crate::core::error::{Error, KindError, ProtocolError};
use crate::core::jetstream::api::{ErrorCode, JetStreamError};

/// Bytes a batch of direct gets asks for.
pub(crate) const BATCH: usize = 1 << 20;

/// A SHA-256 the host computes (Node's `node:crypto`, many times faster
/// than `sha2` compiled to wasm).
pub(crate) trait Sha256Host {
    /// Hashes `bytes` too.
    fn update(&mut self, bytes: &[u8]) -> Result<(), Error>;
    /// The digest of everything hashed.
    fn finish(&mut self) -> Result<[u8; 32], Error>;
}

/// Who hashes a get's bytes.
#[cfg_attr(not(feature = "wasm-object-store"), allow(dead_code))]
enum Hasher {
    Core(Digest),
    Host(Box<dyn Sha256Host>),
}

/// What a get checks an object's chunks against: its meta's size and
/// SHA-256.
pub(crate) struct Check {
    name: String,
    size: u64,
    digest: Hasher,
    expected: [u8; 32],
    /// Bytes hashed so far.
    pub(crate) received: u64,
}

impl Check {
    /// The check of the object `info` describes; a deleted object is not
    /// found, one without a digest cannot be checked.
    pub(crate) fn new(info: &ObjectInfo) -> Result<Check, GetError> {
        if info.deleted {
            let cause = Error::JetStream(JetStreamError {
                code: 404,
                err_code: ErrorCode::NO_MESSAGE_FOUND,
                description: format!("object {:?} was deleted", info.name),
            });
            return Err(KindError::new(GetErrorKind::NotFound, cause));
        }
        Check::of(&info.name, info.size as u64, info.digest.as_deref())
            .map_err(|e| KindError::new(GetErrorKind::Other, e))
    }

    /// The check of object `name`, `size` bytes whose meta's digest is
    /// `digest`; an error for one without a digest to check it with.
    pub(crate) fn of(name: &str, size: u64, digest: Option<&str>) -> Result<Check, Error> {
        let Some(expected) = digest.and_then(digest::parse) else {
            return Err(Error::Protocol(ProtocolError::Store(format!(
                "object {name:?} has no SHA-256 digest to check it with"
            ))));
        };
        Ok(Check { name: name.to_string(), size, digest: Hasher::Core(Digest::new()), expected, received: 0 })
    }

    /// The same check, hashing with `host`.
    #[cfg_attr(not(feature = "wasm-object-store"), allow(dead_code))]
    pub(crate) fn with_host(mut self, host: Box<dyn Sha256Host>) -> Check {
        self.digest = Hasher::Host(host);
        self
    }

    /// The object's size.
    pub(crate) fn size(&self) -> u64 {
        self.size
    }

    /// Hashes `chunk`; an error once more bytes came than the object has.
    pub(crate) fn chunk(&mut self, chunk: &[u8]) -> Result<(), Error> {
        self.received += chunk.len() as u64;
        if self.received > self.size {
            return Err(self.size_mismatch());
        }
        match &mut self.digest {
            Hasher::Core(digest) => digest.update(chunk),
            Hasher::Host(host) => host.update(chunk)?,
        }
        Ok(())
    }

    /// Whether what arrived is the object its meta describes; once, at the end.
    pub(crate) fn finish(&mut self) -> Result<(), Error> {
        if self.received != self.size {
            return Err(self.size_mismatch());
        }
        let computed = match &mut self.digest {
            Hasher::Core(digest) => std::mem::take(digest).finish(),
            Hasher::Host(host) => host.finish()?,
        };
        if computed != self.expected {
            return Err(Error::DigestMismatch {
                name: self.name.clone(),
                expected: digest::format(&self.expected),
                computed: digest::format(&computed),
            });
        }
        Ok(())
    }

    /// The error of a get whose bytes do not add up to the object's size.
    pub(crate) fn size_mismatch(&self) -> Error {
        Error::SizeMismatch { name: self.name.clone(), expected: self.size, received: self.received }
    }
}

/// Chunks a batch asks for, of an object of `size` bytes in `chunks`
/// chunks: about [`BATCH`] bytes.
pub(crate) fn per_batch(size: usize, chunks: usize) -> usize {
    let chunk = size.div_ceil(chunks.max(1)).max(1);
    (BATCH / chunk).clamp(1, chunks.max(1))
}
