//! What the object procedures' tests share: a procedure's steps and items
//! drained as text (each test module says how it writes one), the fake
//! clock's instants and a purge's answer.

use bytes::Bytes;

use crate::core::procedure::{Procedure, Reply, Step, Yield};
use crate::core::time::Instant;

/// The fake clock at `ms`.
pub(super) fn at(ms: u64) -> Instant {
    Instant::from_millis(ms)
}

/// The steps `procedure` asks for, each as `text` writes it.
pub(super) fn steps<P: Procedure>(procedure: &mut P, text: impl Fn(Step) -> String) -> Vec<String> {
    std::iter::from_fn(|| procedure.poll_step()).map(text).collect()
}

/// The items `procedure` hands out at `now` until it waits or ends, each as
/// `text` writes it, then `failed: <error>` or `done`.
pub(super) fn items<P: Procedure>(procedure: &mut P, now: Instant, text: impl Fn(P::Item) -> String) -> Vec<String> {
    let mut out = vec![];
    loop {
        match procedure.poll_item(now) {
            Yield::Wait => return out,
            Yield::Item(item) => out.push(text(item)),
            Yield::Failed(e) => {
                out.push(format!("failed: {e}"));
                return out;
            }
            Yield::Done => {
                out.push("done".into());
                return out;
            }
        }
    }
}

/// The purge API's answer: `n` messages purged.
pub(super) fn purged(n: u64) -> Reply {
    Reply::Answer(Ok(Bytes::from(format!(r#"{{"success":true,"purged":{n}}}"#))))
}
