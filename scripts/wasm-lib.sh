# Sourced by scripts/build-pkg.sh and scripts/feature-size.sh, so that what is
# measured is built exactly as the package is.

# wasm_build FEATURES: cargo builds the wasm with cargo features FEATURES
# (release-wasm profile: opt-level z, lto, panic abort) and sets $wasm to it.
wasm_build() {
    local registry
    # Panic locations name the source files of dependencies: drop the machine's
    # registry path from them (smaller, and no local paths in the package).
    for registry in "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/; do
        case " ${RUSTFLAGS:-} " in *" --remap-path-prefix=$registry= "*) ;; *) export RUSTFLAGS="${RUSTFLAGS:-} --remap-path-prefix=$registry=" ;; esac
    done
    cargo build --target wasm32-unknown-unknown --no-default-features --features "$1" --profile release-wasm
    wasm="${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/release-wasm/natsjet.wasm"
}

# wasm_optimize FILE: binaryen's -Oz (npm's build) on what wasm-bindgen wrote.
# rustc has inlined already; binaryen's inlining of single-caller functions
# only makes the code less compressible (-Oz alone: 4.6 KB gzip larger than
# without wasm-opt; with -ocimfs=0: 5.5 KB smaller). The features are those
# rustc's wasm32 target emits by default.
wasm_optimize() {
    [[ -x node_modules/.bin/wasm-opt ]] || npm ci --no-audit --no-fund
    node_modules/.bin/wasm-opt -Oz --one-caller-inline-max-function-size=0 \
        --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
        --enable-mutable-globals --enable-reference-types --enable-multivalue "$1" -o "$1"
}
