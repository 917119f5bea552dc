# Sourced by scripts/build-pkg.sh and scripts/feature-size.sh, so that what is
# measured is built exactly as the package is.

# wasm_build FEATURES: cargo builds the wasm with cargo features FEATURES
# (release-wasm profile: opt-level z, lto, panic abort; inline threshold 30)
# and sets $wasm to it.
wasm_build() {
    local registry
    # Panic locations name the source files of dependencies: drop the machine's
    # registry path from them (smaller, and no local paths in the package).
    for registry in "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/; do
        case " ${RUSTFLAGS:-} " in *" --remap-path-prefix=$registry= "*) ;; *) export RUSTFLAGS="${RUSTFLAGS:-} --remap-path-prefix=$registry=" ;; esac
    done
    # A little more inlining than opt-level z's (LLVM's is 5 there: 15 adds only
    # 0.3 KB gzip): calls of small functions (std's Option, Vec, VecDeque and
    # RefCell helpers, which z does not inline, #[inline] or not) are much of
    # the wasm's time per delivered message. 30: about 10 % less client CPU
    # per message in a drain (bench/js/scripted_drain.mjs) for 5.3 KB gzip;
    # 25: about 8 % for 2.9 KB; 50: 9.4 KB; opt-level s: 23.7 KB.
    case " ${RUSTFLAGS:-} " in *" -Cllvm-args=-inline-threshold="*) ;; *) export RUSTFLAGS="${RUSTFLAGS:-} -Cllvm-args=-inline-threshold=30" ;; esac
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
