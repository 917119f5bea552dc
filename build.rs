//! `cfg(has_runtime)`: this build has a transport and a runtime (tokio
//! natively with `native`, the browser/Node in wasm with `wasm`), so the
//! async client exists. The sans-IO core builds without it.
fn main() {
    cfg_aliases::cfg_aliases! {
        has_runtime: { any(all(feature = "native", not(target_arch = "wasm32")), all(feature = "wasm-runtime", target_arch = "wasm32")) },
    }
}
