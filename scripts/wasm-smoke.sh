#!/usr/bin/env bash
# The wasm build, loaded in Node.js, against a real nats-server's websocket
# listener: connect, subscribe, publish, receive, request.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
. scripts/server.sh
start_nats_server
echo "wasm smoke test against $NATS_WS"
# Node 20 has WebSocket only behind a flag; newer Node ignores it.
node_args=""
node --experimental-websocket -e 0 2>/dev/null && node_args="--experimental-websocket"
NODE_ARGS="$node_args" \
  cargo test --target wasm32-unknown-unknown --no-default-features --features wasm --test wasm_smoke
