# Sourced by scripts/setup.sh and scripts/test.sh: puts the folders where pip
# and cargo install command-line tools on PATH (nats-server, wasm-bindgen).
natsjet_add_path() {
    local d
    for d in "$@"; do
        [[ -n "$d" && -d "$d" ]] || continue
        case ":$PATH:" in *":$d:"*) ;; *) PATH="$PATH:$d" ;; esac
    done
    export PATH
}
natsjet_tool_paths() {
    natsjet_add_path "$HOME/.cargo/bin"
    # shellcheck disable=SC2046
    natsjet_add_path $(python3 -c 'import site, sysconfig; print(sysconfig.get_path("scripts")); print(site.getuserbase() + "/bin")' 2>/dev/null || true)
}
natsjet_tool_paths
