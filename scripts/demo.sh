#!/usr/bin/env bash
# Runs the demo against a local nats-server that this script starts (and
# stops). Installs nats-server first if this machine lacks it.
set -euo pipefail
cd "$(dirname "$0")/.."
NATSJET_SKIP_WASM=1 bash scripts/setup.sh
. scripts/env.sh
. scripts/server.sh
start_nats_server
echo "nats-server at $NATS_URL"
cargo run --release --example demo -- "$NATS_URL"
