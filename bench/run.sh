#!/usr/bin/env bash
# Entry of `npm run bench` (after `npm run build`): runs bench/bench.js, which writes
# bench/results/bench.{json,md,svg} and the generated part of bench/README.md.
#   BENCH_QUICK=1 npm run bench        # smoke mode, ~2 min, results in bench/work/quick-results
#   BENCH_SIZES=50,100 BENCH_REPEATS=5 npm run bench
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
if [ ! -f "$root/dist/scripts/stack.js" ] || [ ! -d "$root/node_modules/pulumi-storage-user/dist/provider" ]; then
  echo "bench: run 'npm run build' first (npm run bench does it)" >&2
  exit 1
fi
# The pinned CLI: built once from the Go module proxy, then cached outside the clone.
bash "$root/tools/pulumi-cli/build.sh" >/dev/null
exec node "$here/bench.js" "$@"
