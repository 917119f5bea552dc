#!/usr/bin/env bash
# The client's instructions per message in one durable drain of
# benches/consume.rs, counted by callgrind inside the drain alone (the
# stream's fill, connecting and the consumer's creation left out; the
# server runs outside valgrind). Unlike CPU time on a shared machine, the
# count moves by a fraction of a percent from run to run, so a change of a
# few percent shows; compare builds measured in one session.
#
#   scripts/callgrind-drain.sh [CLIENT:WORKERS:PER_PULL]   (default natsjet:1:500)
#
# Environment: BENCH_SCALE (default 0.1: 20,000 messages), CALLGRIND_RUNS
# (runs, each printed, default 3), CALLGRIND_KEEP=DIR keeps each profile there
# for callgrind_annotate.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/env.sh

only="${1:-natsjet:1:500}"
runs="${CALLGRIND_RUNS:-3}"
export BENCH_SCALE="${BENCH_SCALE:-0.1}"

# The bench's executable, built as cargo bench builds it.
exe="$(cargo bench --bench consume --no-run 2>&1 | sed -n 's/.*Executable .*(\(.*\)).*/\1/p' | tail -1)"
[[ -x "$exe" ]] || { echo "no bench executable found" >&2; exit 1; }

work="$(mktemp -d -t callgrind-drain.XXXXXX)"
trap 'rm -rf "$work"' EXIT
for run in $(seq 1 "$runs"); do
    out="${CALLGRIND_KEEP:-$work}/callgrind.$only.$run.out"
    CONSUME_ONLY="$only" BENCH_PASSES=1 valgrind --tool=callgrind --collect-atstart=no \
        --toggle-collect='*counted_drain*' --callgrind-out-file="$out" "$exe" --bench \
        >"$work/bench.log" 2>"$work/valgrind.log" || { cat "$work/valgrind.log" >&2; exit 1; }
    messages="$(sed -n 's/.*drained \([0-9]*\) messages.*/\1/p' "$work/bench.log")"
    ir="$(sed -n 's/^totals: *\([0-9]*\).*/\1/p' "$out")"
    echo "$only run $run: $ir Ir over $messages messages = $((ir / messages)) Ir per message"
done
