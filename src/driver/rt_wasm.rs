//! The wasm runtime: `spawn_local` on the JS event loop, `setTimeout` for
//! sleeps and `performance.now()` for the clock. Only globals that browsers,
//! workers and Node all have are used; `std::time` would panic here.

use std::cell::Cell;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use js_sys::Promise;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::{BoxFuture, MaybeSend, Runtime};
use crate::time::Instant;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_name = setTimeout)]
    fn set_timeout(handler: &js_sys::Function, millis: i32) -> JsValue;
    #[wasm_bindgen(js_name = clearTimeout)]
    fn clear_timeout(handle: &JsValue);

    type Performance;
    #[wasm_bindgen(method)]
    fn now(this: &Performance) -> f64;
}

thread_local! {
    /// `globalThis.performance`, looked up once; absent in exotic hosts.
    static PERFORMANCE: Option<Performance> =
        js_sys::Reflect::get(&js_sys::global(), &JsValue::from_str("performance"))
            .ok()
            .filter(JsValue::is_object)
            .map(JsCast::unchecked_into);
    /// The last reading, so the clock never runs backwards (`Date.now` can).
    static LAST_MS: Cell<f64> = const { Cell::new(0.0) };
}

/// Runs the driver on the JS event loop of the current thread.
#[derive(Debug, Clone, Copy, Default)]
pub struct WasmRuntime;

impl Runtime for WasmRuntime {
    fn spawn(future: impl Future<Output = ()> + MaybeSend + 'static) {
        wasm_bindgen_futures::spawn_local(future);
    }

    fn sleep(duration: Duration) -> BoxFuture<()> {
        Box::pin(Sleep::new(duration))
    }

    fn now() -> Instant {
        let ms = PERFORMANCE.with(|p| p.as_ref().map_or_else(js_sys::Date::now, Performance::now));
        let ms = LAST_MS.with(|last| {
            let ms = ms.max(last.get());
            last.set(ms);
            ms
        });
        Instant::from_offset(Duration::from_secs_f64(ms / 1000.0))
    }
}

/// A `setTimeout` as a future. Dropping it early clears the timer, so
/// abandoned sleeps neither pile up nor keep Node's event loop alive.
struct Sleep {
    handle: JsValue,
    fired: JsFuture,
    done: bool,
}

impl Sleep {
    fn new(duration: Duration) -> Self {
        // Whole milliseconds, rounded up: never fire before the deadline.
        // Timers longer than i32::MAX ms fire at once in JS; clamp instead.
        let millis = duration.as_nanos().div_ceil(1_000_000).min(i32::MAX as u128) as i32;
        let mut handle = JsValue::UNDEFINED;
        let promise = Promise::new(&mut |resolve, _reject| handle = set_timeout(&resolve, millis));
        Sleep { handle, fired: JsFuture::from(promise), done: false }
    }
}

impl Future for Sleep {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = &mut *self;
        if this.done {
            return Poll::Ready(());
        }
        // The promise only resolves (with `undefined`), never rejects.
        let _ = std::task::ready!(Pin::new(&mut this.fired).poll(cx));
        this.done = true;
        Poll::Ready(())
    }
}

impl Drop for Sleep {
    fn drop(&mut self) {
        if !self.done {
            clear_timeout(&self.handle);
        }
    }
}
