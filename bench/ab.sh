#!/usr/bin/env bash
# Interleaved A/B of `bench/service-profile.ts` between two checkouts on one
# kept index (documents already in the window), each run sending new documents:
#
#   BASE=/work/wt/base NEW=. NEARDUP_ENGINE_URL=http://127.0.0.1:9200 \
#     NEARDUP_BENCH_INDEX=bench-window FIRST0=3000000 ROUNDS=3 bash bench/ab.sh
#
# Load the window first with one run of NEARDUP_BENCH_DOCS=200000 on the same
# index. Prints one line a run (docs/s, CPU ms a document, sidecar and engine).
set -euo pipefail
: "${BASE:?BASE=<checkout to compare against>}" "${NEARDUP_ENGINE_URL:?}" "${NEARDUP_BENCH_INDEX:?}"
NEW=${NEW:-.}
DOCS=${NEARDUP_BENCH_DOCS:-5000}
first=${FIRST0:-3000000}
for r in $(seq 1 "${ROUNDS:-3}"); do
  for tree in "$BASE" "$NEW"; do
    printf 'round %s %s (load %s): ' "$r" "$tree" "$(cut -d' ' -f1 /proc/loadavg)"
    (cd "$tree" && NEARDUP_BENCH_DOCS=$DOCS NEARDUP_BENCH_FIRST=$first npx tsx bench/service-profile.ts 2>&1 | tail -1)
    first=$((first + DOCS))
  done
done
