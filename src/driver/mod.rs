//! The async driver and the runtimes it runs on.

mod runtime;
pub use runtime::*;

#[cfg(has_runtime)]
pub(crate) mod queue;
#[cfg(has_runtime)]
pub(crate) mod shared;
#[cfg(has_runtime)]
pub(crate) mod task;

#[cfg(all(feature = "native", not(target_arch = "wasm32")))]
mod rt_tokio;
#[cfg(all(feature = "native", not(target_arch = "wasm32")))]
pub use rt_tokio::TokioRuntime;

#[cfg(all(feature = "wasm", target_arch = "wasm32"))]
mod rt_wasm;
#[cfg(all(feature = "wasm", target_arch = "wasm32"))]
pub use rt_wasm::WasmRuntime;

/// The runtime of this target.
#[cfg(all(feature = "native", not(target_arch = "wasm32")))]
pub type DefaultRuntime = TokioRuntime;
/// The runtime of this target.
#[cfg(all(feature = "wasm", target_arch = "wasm32"))]
pub type DefaultRuntime = WasmRuntime;
