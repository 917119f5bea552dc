#!/usr/bin/env bash
# Chaos tests: workers of one shared durable consumer killed with SIGKILL at
# random moments and between their database commit and their acks, their
# count changed on every restart, nats-server restarted on its store under
# load; then a check that every message's effect was applied exactly once.
#
#   bash scripts/chaos.sh exactly-once rust [ARGS]   # examples/exactly_once/crash.rs
#   bash scripts/chaos.sh exactly-once node [ARGS]   # bindings/test/chaos/exactly_once.mjs
#   bash scripts/chaos.sh consumer-groups rust [--messages N]   # examples/consumer_group_chaos.rs:
#       an elastic group's members (processes) go 3 -> 5 -> 2 while messages
#       flow, the pinned instance of a member with a standby is SIGKILLed;
#       no loss and per-key order, one line of figures
#   bash scripts/chaos.sh consumer-groups node   # bindings/test/chaos/consumer_groups.mjs:
#       the same with Node member processes (NATSJET_CG_MESSAGES sizes it)
#
# ARGS go to the test (rust: --messages N --kills K --window-kills W
# --publish-seconds S --stalls N; defaults 100,000 messages and 10 kills).
# NATSJET_NO_RESTORE=1 runs the workers without restoring their ledgers: the
# test then passes only if it finds duplicates (it proves it can fail).
# NATSJET_SEED=<seed printed by a run> repeats that run's random choices.
# Installs what this machine lacks first (nats-server; for node also the
# wasm toolchain and npm packages) and, for node, builds the npm package.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
    echo "usage: $0 exactly-once rust|node [ARGS] | consumer-groups rust|node [ARGS]" >&2
    exit 2
}
[[ $# -ge 2 ]] || usage
chaos="$1 $2"
shift 2
case "$chaos" in
    "exactly-once rust" | "exactly-once node" | "consumer-groups rust" | "consumer-groups node") ;;
    *)
        echo "unknown chaos test: $chaos" >&2
        usage
        ;;
esac

case "$chaos" in
    *rust) NATSJET_SKIP_WASM=1 bash scripts/setup.sh ;;
    *node) bash scripts/setup.sh ;;
esac
. scripts/env.sh

case "$chaos" in
    "exactly-once rust")
        # The dev profile the test suite builds already: only the two examples compile.
        cargo build --example exactly_once --example exactly_once_crash
        "${CARGO_TARGET_DIR:-target}/debug/examples/exactly_once_crash" "$@"
        ;;
    "consumer-groups rust")
        cargo build --example consumer_group_chaos
        "${CARGO_TARGET_DIR:-target}/debug/examples/consumer_group_chaos" "$@"
        ;;
    "exactly-once node")
        bash scripts/build-pkg.sh
        node bindings/test/chaos/exactly_once.mjs "$@"
        ;;
    "consumer-groups node")
        bash scripts/build-pkg.sh
        node bindings/test/chaos/consumer_groups.mjs "$@"
        ;;
esac
