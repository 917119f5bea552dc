#!/usr/bin/env bash
# Soak (by hand, not in CI): acked publishing and 4 shared-durable workers
# through a fault proxy that cuts every connection every 30 s, for 10
# minutes; a line of throughput, reconnects and resident memory every 30 s,
# then the loss line. tests/soak.rs holds it.
#
#   scripts/soak.sh                 debug build (shares the test build)
#   scripts/soak.sh --release       optimized, for figures closer to production
#   NATSJET_SOAK_SECS=150 NATSJET_SOAK_INTERVAL_SECS=30 scripts/soak.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/env.sh
export CARGO_INCREMENTAL=0
exec cargo test "$@" --test soak -- --ignored --nocapture
