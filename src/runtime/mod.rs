//! The runtimes under the driver and the transports: the [`Runtime`] trait
//! (how the driver spawns its task, sleeps and reads the clock), tokio
//! natively, `spawn_local` and JS timers in wasm with the JS end-of-task
//! scheduler and the wasm's allocator, and the bounded
//! queue from the driver to each reader.

#[cfg(all(feature = "wasm-runtime", target_arch = "wasm32"))]
mod alloc_wasm;
#[cfg(all(feature = "wasm-runtime", target_arch = "wasm32"))]
pub(crate) mod js_task;
#[cfg(has_runtime)]
pub(crate) mod queue;
#[cfg(all(feature = "native", not(target_arch = "wasm32")))]
mod rt_tokio;
#[cfg(all(feature = "wasm-runtime", target_arch = "wasm32"))]
mod rt_wasm;

#[cfg(all(feature = "native", not(target_arch = "wasm32")))]
pub use rt_tokio::TokioRuntime;
#[cfg(all(feature = "wasm-runtime", target_arch = "wasm32"))]
pub use rt_wasm::WasmRuntime;

/// The runtime of this target.
#[cfg(all(feature = "native", not(target_arch = "wasm32")))]
pub type DefaultRuntime = TokioRuntime;
/// The runtime of this target.
#[cfg(all(feature = "wasm-runtime", target_arch = "wasm32"))]
pub type DefaultRuntime = WasmRuntime;

use std::future::Future;
use std::pin::Pin;
use std::time::{Duration, SystemTime};

use crate::core::time::Instant;

/// `Send` natively, nothing in wasm (JS values are `!Send`).
#[cfg(not(target_arch = "wasm32"))]
pub trait MaybeSend: Send {}
#[cfg(not(target_arch = "wasm32"))]
impl<T: Send + ?Sized> MaybeSend for T {}
/// `Send` natively, nothing in wasm (JS values are `!Send`).
#[cfg(target_arch = "wasm32")]
pub trait MaybeSend {}
#[cfg(target_arch = "wasm32")]
impl<T: ?Sized> MaybeSend for T {}

/// A boxed future that is `Send` where the runtime needs it.
#[cfg(not(target_arch = "wasm32"))]
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;
/// A boxed future that is `Send` where the runtime needs it (not in wasm).
#[cfg(target_arch = "wasm32")]
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T>>>;

/// Spawning, sleeping and the monotonic clock. Implementations are zero-sized.
pub trait Runtime: 'static {
    /// Runs `future` to completion in the background.
    fn spawn(future: impl Future<Output = ()> + MaybeSend + 'static);
    /// A future that completes after `duration`.
    fn sleep(duration: Duration) -> BoxFuture<()>;
    /// Monotonic time since a process-wide origin.
    fn now() -> Instant;
    /// The wall clock, for comparing with the server's timestamps (a KV
    /// delete marker's age): `SystemTime::now()` panics in wasm.
    fn wall_clock() -> SystemTime;
}
