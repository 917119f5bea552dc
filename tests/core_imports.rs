//! The layering guard: nothing under `src/core/` names a runtime, a host
//! binding or a layer above the core. The core reaches the rest of the crate
//! only through `crate::core::`, so a path to the driver, the client, the
//! runtimes, the transports, the API folders or the wasm bindings (or to the
//! crate root's re-exports of them) fails here, as does naming tokio,
//! wasm-bindgen, js-sys, web-sys or an executor. Comments are not code and
//! may name anything. Nor may a chain of `super::` climb out of the core:
//! from a module `n` levels below `core`, at most `n` of them. And every
//! test module of the core also runs on wasm32 (`scripts/test.sh`, stage
//! wasm-core), where `#[test]` is wasm-bindgen-test's.

use std::fs;
use std::path::{Path, PathBuf};

/// Crates and paths the sans-IO core must not name.
const FORBIDDEN: &[&str] = &[
    "tokio",
    "tokio_rustls",
    "tokio_tungstenite",
    "rustls",
    "wasm_bindgen",
    "wasm_bindgen_futures",
    "js_sys",
    "web_sys",
    "futures_executor",
    "executor",
    "spawn_local",
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap_or_else(|e| panic!("reading {}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            out.push(path);
        }
    }
}

/// The code of a line: what comes before a `//` comment (a `//` inside a
/// string cuts the line short, which can only hide, never invent, a name).
fn code(line: &str) -> &str {
    line.find("//").map_or(line, |at| &line[..at])
}

/// Identifiers of `code`, in order.
fn words(code: &str) -> impl Iterator<Item = &str> {
    code.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|w| !w.is_empty())
}

/// What is wrong with one line of core code, if anything.
fn violation(code: &str) -> Option<String> {
    if let Some(word) = words(code).find(|w| FORBIDDEN.contains(w)) {
        return Some(format!("names `{word}`"));
    }
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let after = &rest[at + "crate::".len()..];
        // `$crate::` is a macro's own crate, as good as `crate::`.
        if !after.starts_with("core::") {
            let path: String = after.chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':').collect();
            return Some(format!("reaches `crate::{path}` outside the core"));
        }
        rest = after;
    }
    None
}

/// The longest chain of `super` in `code` (`super::super::x` is 2).
fn super_chain(code: &str) -> usize {
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut longest = 0;
    for (at, _) in code.match_indices("super") {
        if code[..at].chars().next_back().is_some_and(is_ident) {
            continue;
        }
        let (mut chain, mut rest) = (0, &code[at..]);
        while let Some(after) = rest.strip_prefix("super").filter(|r| !r.starts_with(is_ident)) {
            chain += 1;
            match after.strip_prefix("::") {
                Some(next) => rest = next,
                None => break,
            }
        }
        longest = longest.max(chain);
    }
    longest
}

/// How far below `core` the module of `file` (under `root`, `src/core`) is:
/// `core/mod.rs` 0, `core/time.rs` and `core/conn/mod.rs` 1, and so on.
fn depth(root: &Path, file: &Path) -> usize {
    let relative = file.strip_prefix(root).unwrap();
    let parts = relative.components().count();
    if relative.file_name().is_some_and(|name| name == "mod.rs") { parts - 1 } else { parts }
}

/// The violations in the text of one core file `depth` levels below
/// `core`: a `super` chain may climb one more level for each inline module
/// (`mod tests { .. }`) it is in.
fn violations(text: &str, depth: usize) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    // The brace depth each open inline module started at, innermost last.
    let (mut braces, mut inline): (usize, Vec<usize>) = (0, Vec::new());
    for (n, line) in text.lines().enumerate() {
        let code = code(line);
        if let Some(what) = violation(code) {
            found.push((n + 1, what));
        }
        let allowed = depth + inline.len();
        let chain = super_chain(code);
        if chain > allowed {
            found.push((n + 1, format!("climbs {chain} levels with `super`, out of the core ({allowed} allowed)")));
        }
        let words: Vec<&str> = words(code).collect();
        if code.trim_end().ends_with('{') && words.windows(2).any(|w| w[0] == "mod") {
            inline.push(braces);
        }
        for c in code.chars() {
            match c {
                '{' => braces += 1,
                '}' => {
                    braces = braces.saturating_sub(1);
                    if inline.last() == Some(&braces) {
                        inline.pop();
                    }
                }
                _ => {}
            }
        }
    }
    found
}

#[test]
fn the_core_names_no_runtime_host_or_upper_layer() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/core");
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    files.sort();
    assert!(files.len() > 50, "src/core/ holds the sans-IO core; found {} files", files.len());
    let mut found = Vec::new();
    for file in &files {
        let text = fs::read_to_string(file).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (n, what) in violations(&text, depth(&root, file)) {
            found.push(format!("{}:{n}: {what}: {}", file.display(), lines[n - 1].trim()));
        }
    }
    assert!(found.is_empty(), "the sans-IO core must stay free of runtimes and upper layers:\n{}", found.join("\n"));
}

/// The line that makes `#[test]` wasm-bindgen-test's on wasm32; without it
/// a module's tests would silently run natively only.
const WASM_TEST: &str = "use wasm_bindgen_test::wasm_bindgen_test as test;";

#[test]
fn every_core_test_module_also_runs_on_wasm32() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/core");
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let missing: Vec<_> = files
        .iter()
        .filter(|file| {
            let text = fs::read_to_string(file).unwrap();
            text.contains("#[test]") && !text.contains(WASM_TEST)
        })
        .map(|file| file.display().to_string())
        .collect();
    assert!(
        missing.is_empty(),
        "these test modules need `#[cfg(target_arch = \"wasm32\")] {WASM_TEST}`:\n{}",
        missing.join("\n")
    );
}

#[test]
fn the_guard_catches_what_it_is_for() {
    for bad in [
        "use tokio::sync::Mutex;",
        "use wasm_bindgen::prelude::*;",
        "let a = js_sys::Array::new();",
        "use crate::driver::shared::Inner;",
        "use crate::client::Client;",
        "use crate::runtime::queue::Queue;",
        "use crate::transport::Transport;",
        "use crate::jetstream::Context;",
        "use crate::wasm::error::JsError;",
        "fn f() -> crate::Client { todo!() }",
        "futures::executor::block_on(f);",
    ] {
        assert!(violation(code(bad)).is_some(), "missed: {bad}");
    }
    for good in [
        "use crate::core::error::Error;",
        "use super::api::ConsumerInfo;",
        "/// Runs on tokio through the driver ([`crate::driver`]).",
        "let url = \"nats://localhost\"; // not tokio",
        "use futures_core::Stream;",
    ] {
        assert_eq!(violation(code(good)), None, "flagged: {good}");
    }
}

#[test]
fn the_guard_counts_super_from_where_the_code_is() {
    assert_eq!(super_chain("use super::super::super::driver::Inner;"), 3);
    assert_eq!(super_chain("pub(super) fn f(x: super::A) -> supersede::B"), 1);
    let root = Path::new("src/core");
    assert_eq!(depth(root, &root.join("mod.rs")), 0);
    assert_eq!(depth(root, &root.join("time.rs")), 1);
    assert_eq!(depth(root, &root.join("session/tests/mod.rs")), 2);
    // In core::time: one level up is the core; two are the crate's root.
    assert!(violations("use super::timer::Deadline;", 1).is_empty());
    assert_eq!(violations("use super::super::driver::Inner;", 1).len(), 1);
    // Its test module may climb one more, but no further.
    let tests = "mod tests {\n    use super::super::timer::Deadline;\n}\nuse super::super::client::Client;";
    assert_eq!(violations(tests, 1).iter().map(|(n, _)| *n).collect::<Vec<_>>(), [4]);
}
