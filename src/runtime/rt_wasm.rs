//! The wasm runtime: `spawn_local` on the JS event loop, `setTimeout` for
//! sleeps and `performance.now()` for the clock. Only globals that browsers,
//! workers and Node all have are used; `std::time` would panic here.

use std::cell::{Cell, RefCell};
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};
use std::time::{Duration, SystemTime};

use wasm_bindgen::prelude::*;

use super::{BoxFuture, MaybeSend, Runtime};
use crate::core::time::Instant;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_name = setTimeout)]
    fn set_timeout(handler: &js_sys::Function, millis: i32) -> JsValue;
    #[wasm_bindgen(js_name = clearTimeout)]
    fn clear_timeout(handle: &JsValue);

    type Performance;
    #[wasm_bindgen(method)]
    fn now(this: &Performance) -> f64;

    /// `globalThis.performance`, looked up once; absent in exotic hosts.
    #[wasm_bindgen(thread_local_v2, js_name = performance)]
    static PERFORMANCE: Option<Performance>;
}

thread_local! {
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
        // Not `from_secs_f64`: its panic path and float formatting cost the wasm; `as` saturates.
        Instant::from_offset(Duration::from_nanos((ms * 1e6) as u64))
    }

    fn wall_clock() -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_millis(js_sys::Date::now() as u64)
    }
}

/// A `setTimeout` as a future. Dropping it early clears the timer, so
/// abandoned sleeps neither pile up nor keep Node's event loop alive. Not a
/// `JsFuture` of a promise: that one frees its callbacks only when the
/// promise settles, so every cleared timer (each answered request's
/// timeout) would leak them.
struct Sleep {
    handle: JsValue,
    state: Rc<SleepState>,
    /// The timer's callback; dropped (and freed in JS) with the sleep.
    _fire: Closure<dyn FnMut()>,
}

#[derive(Default)]
struct SleepState {
    fired: Cell<bool>,
    waker: RefCell<Option<Waker>>,
}

impl Sleep {
    fn new(duration: Duration) -> Self {
        // Whole milliseconds, rounded up: never fire before the deadline.
        // Timers longer than i32::MAX ms fire at once in JS; clamp instead.
        // In u64 (a u128 division would link compiler-builtins' for it).
        let millis = duration
            .as_secs()
            .saturating_mul(1000)
            .saturating_add(u64::from(duration.subsec_nanos().div_ceil(1_000_000)));
        let millis = millis.min(i32::MAX as u64) as i32;
        let state = Rc::new(SleepState::default());
        let fired = state.clone();
        let fire = Closure::<dyn FnMut()>::new(move || {
            fired.fired.set(true);
            if let Some(waker) = fired.waker.borrow_mut().take() {
                waker.wake();
            }
        });
        let handle = set_timeout(fire.as_ref().unchecked_ref(), millis);
        Sleep { handle, state, _fire: fire }
    }
}

impl Future for Sleep {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.state.fired.get() {
            return Poll::Ready(());
        }
        let mut waker = self.state.waker.borrow_mut();
        match &*waker {
            Some(w) if w.will_wake(cx.waker()) => {}
            _ => *waker = Some(cx.waker().clone()),
        }
        Poll::Pending
    }
}

impl Drop for Sleep {
    fn drop(&mut self) {
        if !self.state.fired.get() {
            clear_timeout(&self.handle);
        }
    }
}
