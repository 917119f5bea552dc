//! The tokio runtime: `tokio::spawn`, `tokio::time::sleep`, and a monotonic
//! clock measured from the first time anyone asked for it.

use std::sync::OnceLock;
use std::time::{Duration, SystemTime};

use super::{BoxFuture, MaybeSend, Runtime};
use crate::core::time::Instant;

/// Runs the driver on the ambient tokio runtime (spawning outside one panics,
/// as `tokio::spawn` does).
#[derive(Debug, Clone, Copy, Default)]
pub struct TokioRuntime;

impl Runtime for TokioRuntime {
    fn spawn(future: impl Future<Output = ()> + MaybeSend + 'static) {
        tokio::spawn(future);
    }

    fn sleep(duration: Duration) -> BoxFuture<()> {
        Box::pin(tokio::time::sleep(duration))
    }

    fn now() -> Instant {
        static ORIGIN: OnceLock<std::time::Instant> = OnceLock::new();
        Instant::from_offset(ORIGIN.get_or_init(std::time::Instant::now).elapsed())
    }

    fn wall_clock() -> SystemTime {
        SystemTime::now()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn sleeps_spawns_and_the_clock_moves_forward() {
        let start = TokioRuntime::now();
        TokioRuntime::sleep(Duration::from_millis(20)).await;
        assert!(TokioRuntime::now().saturating_duration_since(start) >= Duration::from_millis(20));

        let (tx, rx) = futures_channel::oneshot::channel();
        TokioRuntime::spawn(async move {
            tx.send(7).unwrap();
        });
        assert_eq!(rx.await, Ok(7));
    }
}
