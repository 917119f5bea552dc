//! The end of the current JS task, caught once per host: callbacks that
//! run when the task and its microtasks are done (`process.nextTick` in
//! Node, a `MessageChannel` message in browsers, else `setTimeout(0)`).
//! The wasm transports hold writes back until then.

use std::cell::RefCell;

use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_name = setTimeout)]
    fn set_timeout(handler: &js_sys::Function, millis: i32) -> JsValue;

    /// `globalThis.process`, in Node, Deno and Bun.
    #[wasm_bindgen(thread_local_v2, js_name = process)]
    static PROCESS: Option<js_sys::Object>;
}

/// How the end of the current task is caught on this host.
struct EndOfTask {
    schedule: Box<dyn Fn()>,
    /// It comes right after the task's microtasks, before any other task.
    is_microtask: bool,
}

thread_local! {
    /// Callbacks waiting for the end of the current task, run in order.
    static AFTER_TASK: RefCell<Vec<Box<dyn FnOnce()>>> = const { RefCell::new(Vec::new()) };
    /// Schedules `run_after_task`: `process.nextTick` (Node, Deno, Bun: after
    /// the microtasks of the current callback, before any I/O), or a
    /// `MessageChannel` message (browsers, workers: the next task, without
    /// timer clamping), or else `setTimeout(0)`.
    static END_OF_TASK: EndOfTask = end_of_task();
}

fn end_of_task() -> EndOfTask {
    let run = Closure::<dyn FnMut(JsValue)>::new(|_: JsValue| run_after_task()).into_js_value();
    let get = |target: &JsValue, key: &str| js_sys::Reflect::get(target, &key.into()).ok().filter(JsValue::is_object);
    // Node's own `process` (also Deno's and Bun's), not a bundler's browser
    // stand-in, whose `nextTick` may be a timer or a microtask.
    let process = PROCESS.with(|p| p.clone().map(JsValue::from)).filter(JsValue::is_object);
    let node = process
        .as_ref()
        .and_then(|p| get(p, "versions"))
        .is_some_and(|v| js_sys::Reflect::get(&v, &"node".into()).is_ok_and(|node| node.is_string()));
    let next_tick = process
        .filter(|_| node)
        .and_then(|process| js_sys::Reflect::get(&process, &"nextTick".into()).ok())
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
    if let Some(next_tick) = next_tick {
        return EndOfTask {
            schedule: Box::new(move || {
                let _ = next_tick.call1(&JsValue::UNDEFINED, &run);
            }),
            is_microtask: true,
        };
    }
    if let Ok(channel) = web_sys::MessageChannel::new() {
        channel.port1().set_onmessage(Some(run.unchecked_ref()));
        let port = channel.port2();
        return EndOfTask {
            schedule: Box::new(move || {
                let _ = port.post_message(&JsValue::NULL);
            }),
            is_microtask: false,
        };
    }
    let run: js_sys::Function = run.unchecked_into();
    EndOfTask {
        schedule: Box::new(move || {
            set_timeout(&run, 0);
        }),
        is_microtask: false,
    }
}

/// Whether the end of a task comes right after its microtasks (Node), not
/// in a later task (browsers).
pub(crate) fn end_of_task_is_microtask() -> bool {
    END_OF_TASK.with(|end| end.is_microtask)
}

/// Runs `f` once the current JS task and its microtasks are done.
pub(crate) fn after_task(f: impl FnOnce() + 'static) {
    let first = AFTER_TASK.with(|q| {
        let mut q = q.borrow_mut();
        q.push(Box::new(f));
        q.len() == 1
    });
    if first {
        END_OF_TASK.with(|end| (end.schedule)());
    }
}

fn run_after_task() {
    let callbacks = AFTER_TASK.with(|q| std::mem::take(&mut *q.borrow_mut()));
    for f in callbacks {
        f();
    }
}
