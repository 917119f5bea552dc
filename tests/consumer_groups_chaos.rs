//! The consumer-group chaos run (`examples/consumer_group_chaos.rs`, also
//! `scripts/chaos.sh consumer-groups rust`): members of an elastic group as
//! separate processes go 3 → 5 → 2 while 20,000 messages flow, one pinned
//! instance is killed and another stalled; nothing may be lost and every
//! key's messages must be processed in publish order.
#![cfg(not(target_arch = "wasm32"))]

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

#[test]
fn members_change_die_and_stall_without_loss_or_disorder() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut build = Command::new(cargo);
    build.args(["build", "--quiet", "--example", "consumer_group_chaos"]);
    if !cfg!(debug_assertions) {
        build.arg("--release");
    }
    let status = build.current_dir(env!("CARGO_MANIFEST_DIR")).status().expect("run cargo build");
    assert!(status.success(), "building the consumer_group_chaos example failed");
    // Tests run from target/<profile>/deps; examples sit in target/<profile>/examples.
    let exe = std::env::current_exe().unwrap();
    let driver = exe.parent().unwrap().parent().unwrap().join("examples").join("consumer_group_chaos");
    let mut child = Command::new(driver)
        .args(["--messages", "20000"])
        .stdout(Stdio::piped())
        .spawn()
        .expect("start consumer_group_chaos");
    let mut last = String::new();
    for line in BufReader::new(child.stdout.take().unwrap()).lines().map_while(Result::ok) {
        println!("{line}");
        last = line;
    }
    let passed = child.wait().expect("wait for consumer_group_chaos").success();
    let figure = |name: &str| -> u64 {
        let words = last.strip_prefix("consumer-groups: ").unwrap_or_else(|| panic!("no final line, last: {last:?}"));
        let value = words.split(", ").find_map(|w| w.strip_prefix(name)?.strip_prefix(' '));
        value.and_then(|v| v.parse().ok()).unwrap_or_else(|| panic!("no {name} in {last:?}"))
    };
    assert_eq!((figure("published"), figure("processed")), (20_000, 20_000), "{last}");
    assert_eq!((figure("lost"), figure("out_of_order")), (0, 0), "{last}");
    assert!(passed, "the driver found a problem: {last}");
}
