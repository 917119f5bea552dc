# Sourced by the scripts: starts a throw-away nats-server on free 127.0.0.1
# ports (JetStream and a websocket listener on), exports NATS_URL and NATS_WS,
# and stops it and removes its files when the calling script exits.
start_nats_server() {
  NATS_DIR=$(mktemp -d)
  cat > "$NATS_DIR/server.conf" <<CONF
listen: "127.0.0.1:-1"
ports_file_dir: "$NATS_DIR"
jetstream { store_dir: "$NATS_DIR/js" }
websocket { listen: "127.0.0.1:-1", no_tls: true }
CONF
  nats-server -c "$NATS_DIR/server.conf" > "$NATS_DIR/server.log" 2>&1 &
  NATS_PID=$!
  trap 'kill "$NATS_PID" 2>/dev/null; wait "$NATS_PID" 2>/dev/null; rm -rf "$NATS_DIR"' EXIT
  local ports=""
  for _ in $(seq 100); do
    ports=$(ls "$NATS_DIR"/nats-server_*.ports 2>/dev/null || true)
    [ -n "$ports" ] && grep -q websocket "$ports" && break
    sleep 0.1
  done
  if [ -z "$ports" ]; then
    echo "nats-server did not start:" >&2
    tail -20 "$NATS_DIR/server.log" >&2
    return 1
  fi
  NATS_URL=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["nats"][0])' "$ports")
  NATS_WS=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["websocket"][0])' "$ports")
  export NATS_URL NATS_WS
}
