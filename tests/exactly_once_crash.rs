//! The exactly-once crash test (`examples/exactly_once/crash.rs`, also run by
//! `scripts/chaos.sh exactly-once rust`), twice: with the ledgers restored,
//! 100,000 messages and 10 kills must leave no duplicate and nothing lost;
//! without the restore, duplicates must appear, or the test could not fail.
//! Both run the example binaries against a real nats-server of their own.
#![cfg(not(target_arch = "wasm32"))]

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::OnceLock;

/// The crash driver, built once per test run with the worker example next to
/// it (a no-op when up to date: `cargo test --tests --examples` builds
/// examples as tests, not as the binaries the driver starts).
fn crash_binary() -> &'static PathBuf {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let mut build = Command::new(cargo);
        build.args(["build", "--quiet", "--example", "exactly_once", "--example", "exactly_once_crash"]);
        if !cfg!(debug_assertions) {
            build.arg("--release");
        }
        let status = build.current_dir(env!("CARGO_MANIFEST_DIR")).status().expect("run cargo build");
        assert!(status.success(), "building the exactly_once examples failed");
        // tests run from target/<profile>/deps; examples sit in target/<profile>/examples.
        let exe = std::env::current_exe().unwrap();
        exe.parent().unwrap().parent().unwrap().join("examples").join("exactly_once_crash")
    })
}

/// The figures of the driver's last line.
#[derive(Debug)]
struct Figures {
    passed: bool,
    published: u64,
    duplicates: u64,
    lost: u64,
    kills: u64,
    line: String,
}

/// Runs the driver with `args`, echoing its output under `label`.
fn crash_test(label: &str, args: &[&str], restore: bool) -> Figures {
    let mut command = Command::new(crash_binary());
    command.args(args).stdout(Stdio::piped());
    if restore {
        command.env_remove("NATSJET_NO_RESTORE");
    } else {
        command.env("NATSJET_NO_RESTORE", "1");
    }
    let mut child = command.spawn().expect("start exactly_once_crash");
    let mut last = String::new();
    for line in BufReader::new(child.stdout.take().unwrap()).lines().map_while(Result::ok) {
        println!("[{label}] {line}");
        last = line;
    }
    let status = child.wait().expect("wait for exactly_once_crash");
    let figure = |name: &str| {
        let words = last.strip_prefix("exactly-once: ").unwrap_or_else(|| panic!("no final line, last: {last:?}"));
        let value = words.split(", ").find_map(|w| w.strip_prefix(name)?.strip_prefix(' '));
        value.and_then(|v| v.parse().ok()).unwrap_or_else(|| panic!("no {name} in {last:?}"))
    };
    Figures {
        passed: status.success(),
        published: figure("published"),
        duplicates: figure("duplicates"),
        lost: figure("lost"),
        kills: figure("kills"),
        line: last.clone(),
    }
}

#[test]
fn restored_ledgers_apply_every_message_once_across_kills() {
    let figures = crash_test("restore", &["--messages", "100000", "--kills", "10", "--window-kills", "5"], true);
    assert_eq!((figures.duplicates, figures.lost), (0, 0), "{}", figures.line);
    assert!(figures.published >= 100_000 && figures.kills >= 10, "{}", figures.line);
    assert!(figures.passed, "the driver found a problem: {}", figures.line);
}

#[test]
fn without_restore_the_crash_test_finds_duplicates() {
    let args = ["--messages", "20000", "--kills", "3", "--window-kills", "3", "--publish-seconds", "4"];
    let figures = crash_test("no-restore", &args, false);
    assert!(figures.duplicates > 0, "no duplicate without restore: the test cannot fail: {}", figures.line);
    assert_eq!(figures.lost, 0, "{}", figures.line);
    assert!(figures.passed, "the driver found a problem: {}", figures.line);
}
