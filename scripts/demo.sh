#!/usr/bin/env bash
# Runs the main demo (4 workers sharing one durable consumer, acking after
# checkpoints; see examples/durable_workers.rs) against a local nats-server that this script starts (and
# stops). Installs nats-server first if this machine lacks it.
set -euo pipefail
cd "$(dirname "$0")/.."
NATSJET_SKIP_WASM=1 bash scripts/setup.sh
. scripts/env.sh
. scripts/server.sh
start_nats_server
echo "nats-server at $NATS_URL"
cargo run --release --example durable_workers -- "$NATS_URL" "${1:-4}" "${2:-50000}"
