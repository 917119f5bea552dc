//! [`create_inbox`]: inbox subjects without a connection (nats.js `createInbox`).

use std::sync::Mutex;

use crate::core::conn::{Rng, validate_inbox_prefix};
use crate::core::error::Error;
use crate::runtime::queue::lock;

/// The process's inbox generator, seeded from the OS on first use.
static INBOXES: Mutex<Option<Rng>> = Mutex::new(None);

/// A unique subject `<prefix>.<22 base62 characters>`, `prefix` being
/// `_INBOX` when `None` or empty: the same generator as
/// [`Client::new_inbox`](super::Client::new_inbox), seeded once per process
/// from the OS, for callers without a connection. Fails on a prefix that is
/// not a subject or has wildcards.
pub fn create_inbox(prefix: Option<&str>) -> Result<String, Error> {
    let prefix = prefix.filter(|p| !p.is_empty()).unwrap_or("_INBOX");
    validate_inbox_prefix(prefix)?;
    let mut inboxes = lock(&INBOXES);
    let rng = match &mut *inboxes {
        Some(rng) => rng,
        None => {
            let seed = getrandom::u64().map_err(|e| Error::InvalidArgument(format!("no entropy source: {e}")))?;
            inboxes.insert(Rng::new(seed))
        }
    };
    Ok(format!("{prefix}.{}", rng.token()))
}

/// The last token of a new inbox, 22 base62 characters (as unique as a
/// NUID): a service instance's id.
#[cfg(feature = "service")]
pub(crate) fn unique_token() -> Result<String, Error> {
    let mut inbox = create_inbox(None)?;
    Ok(inbox.split_off("_INBOX.".len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inboxes_are_unique_under_their_prefix() {
        let a = create_inbox(None).unwrap();
        let b = create_inbox(Some("")).unwrap();
        assert!(a.starts_with("_INBOX.") && b.starts_with("_INBOX."), "{a} {b}");
        assert_eq!(a.len(), "_INBOX.".len() + 22);
        assert_ne!(a, b);
        let c = create_inbox(Some("my.replies")).unwrap();
        assert!(c.starts_with("my.replies.") && c.len() == "my.replies.".len() + 22, "{c}");
    }

    #[test]
    fn wildcards_and_bad_subjects_are_refused() {
        for bad in ["a.*", ">", "a.>.b", "a b", "a..b"] {
            assert!(matches!(create_inbox(Some(bad)), Err(Error::InvalidSubject { .. })), "{bad}");
        }
    }
}
