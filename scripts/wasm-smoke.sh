#!/usr/bin/env bash
# The wasm build, loaded in Node.js, against real nats-servers:
#   wasm_smoke, wasm_transport   the websocket listener (ws://)
#   wasm_node_socket             nats:// through the node:net/node:tls shim
#                                (bindings/node/socket.mjs), plus a server that
#                                requires TLS and client certificates, which
#                                the tests restart with $NATS_TLS_RESTART.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
. scripts/server.sh
start_nats_server
# server.sh's EXIT trap stops the first server; ours stops the TLS one too.
eval "set -- $(trap -p EXIT)"
stop_first_server=${3:-}

TLS_DIR="$NATS_DIR/tls"
mkdir -p "$TLS_DIR"

# A throw-away CA, a server certificate for 127.0.0.1/localhost and a client one.
make_certs() {
  local d=$1 ec=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
  openssl req -x509 "${ec[@]}" -days 1 -subj /CN=natsjet-test-ca -keyout "$d/ca-key.pem" -out "$d/ca.pem" \
    -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign 2>/dev/null
  local who usage san
  for who in server client; do
    usage=serverAuth san="subjectAltName=IP:127.0.0.1,DNS:localhost"
    [ "$who" = client ] && usage=clientAuth san="subjectAltName=DNS:natsjet-client"
    openssl req "${ec[@]}" -subj "/CN=natsjet-$who" -keyout "$d/$who-key.pem" -out "$d/$who.csr" 2>/dev/null
    openssl x509 -req -in "$d/$who.csr" -CA "$d/ca.pem" -CAkey "$d/ca-key.pem" -CAcreateserial -days 1 \
      -extfile <(printf '%s\nextendedKeyUsage=%s\n' "$san" "$usage") -out "$d/$who.pem" 2>/dev/null
  done
}
make_certs "$TLS_DIR"

cat > "$TLS_DIR/server.conf" <<CONF
listen: "127.0.0.1:-1"
ports_file_dir: "$TLS_DIR"
tls { cert_file: "$TLS_DIR/server.pem", key_file: "$TLS_DIR/server-key.pem", ca_file: "$TLS_DIR/ca.pem", verify: true, timeout: 5 }
CONF

# The TLS server runs under a supervisor that starts it again on the same
# port whenever it exits, so the tests restart it by killing it (restart.sh)
# and every nats-server stays this script's descendant.
supervise_tls_server() {
  local port_args=()
  while [ ! -e "$TLS_DIR/stopping" ]; do
    nats-server -c "$TLS_DIR/server.conf" "${port_args[@]}" >> "$TLS_DIR/server.log" 2>&1 < /dev/null &
    echo $! > "$TLS_DIR/pid"
    wait $! || true
    # The first start failed (wait.sh reports it), or stop: nothing to restart.
    [ -f "$TLS_DIR/port" ] || break
    port_args=(-p "$(cat "$TLS_DIR/port")")
    sleep 0.05
  done
}
stop_tls_server() {
  touch "$TLS_DIR/stopping"
  while kill -0 "$TLS_SUPERVISOR" 2>/dev/null; do
    kill "$(cat "$TLS_DIR/pid")" 2>/dev/null || true
    sleep 0.05
  done
}
# wait.sh [OLD_PID]: waits until a server other than OLD_PID wrote its ports file.
cat > "$TLS_DIR/wait.sh" <<'SH'
#!/usr/bin/env bash
dir=$(dirname "$0")
for _ in $(seq 100); do
  pid=$(cat "$dir/pid" 2>/dev/null || true)
  [ -n "$pid" ] && [ "$pid" != "${1:-}" ] && [ -f "$dir/nats-server_$pid.ports" ] && exit 0
  sleep 0.1
done
echo "TLS nats-server did not start:" >&2
tail -20 "$dir/server.log" >&2
exit 1
SH
cat > "$TLS_DIR/restart.sh" <<'SH'
#!/usr/bin/env bash
set -e
dir=$(dirname "$0")
pid=$(cat "$dir/pid")
kill "$pid"
"$dir/wait.sh" "$pid"
SH
chmod +x "$TLS_DIR/wait.sh" "$TLS_DIR/restart.sh"
supervise_tls_server &
TLS_SUPERVISOR=$!
trap 'stop_tls_server; eval "$stop_first_server"' EXIT

"$TLS_DIR/wait.sh"
tls_ports="$TLS_DIR/nats-server_$(cat "$TLS_DIR/pid").ports"
NATS_TLS_URL=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["nats"][0])' "$tls_ports")
# The tests name tls://, but the server's INFO is what asks for the upgrade.
NATS_TLS_URL="nats://${NATS_TLS_URL#*://}"
echo "${NATS_TLS_URL##*:}" > "$TLS_DIR/port"
NATS_TLS_RESTART="$TLS_DIR/restart.sh"
NATS_TLS_CA=$(cat "$TLS_DIR/ca.pem")
NATS_TLS_CERT=$(cat "$TLS_DIR/client.pem")
NATS_TLS_KEY=$(cat "$TLS_DIR/client-key.pem")
export NATS_TLS_URL NATS_TLS_RESTART NATS_TLS_CA NATS_TLS_CERT NATS_TLS_KEY

echo "wasm smoke test against $NATS_WS, $NATS_URL and $NATS_TLS_URL (TLS)"
# Node 20 has WebSocket only behind a flag; newer Node ignores it.
node_args=""
node --experimental-websocket -e 0 2>/dev/null && node_args="--experimental-websocket"
NODE_ARGS="$node_args" \
  cargo test --target wasm32-unknown-unknown --no-default-features --features wasm,nkeys \
  --test wasm_smoke --test wasm_transport --test wasm_node_socket
