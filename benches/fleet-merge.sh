#!/usr/bin/env bash
# Times `rigel merge` on a synthetic fleet (default 1,000 ranks × 100 points) and prints the wall
# time and the maximum resident set size from /usr/bin/time -v; a second, 100-rank fleet shows
# whether memory grows with the rank count.
#   benches/fleet-merge.sh [RANKS] [POINTS]      (folders under ${RIGEL_BENCH_DIR:-/var/tmp/rigel-bench})
set -euo pipefail
cd "$(dirname "$0")/.."
ranks=${1:-1000}
points=${2:-100}
base=${RIGEL_BENCH_DIR:-/var/tmp/rigel-bench}/fleet
cargo build --release --quiet
for n in 100 "$ranks"; do
  dir="$base-$n-$points"
  rm -rf "$dir"
  # The generator's speed does not matter: the dev profile spares optimising every dev-dependency.
  cargo bench --quiet --profile dev --bench fleet_merge -- "$dir" "$n" "$points"
  du -sh "$dir" | sed 's/^/size: /'
  /usr/bin/time -v target/release/rigel merge "$dir" >/dev/null 2>"$dir.time" || { cat "$dir.time"; exit 1; }
  echo "$n ranks × $points points: $(grep -E 'Elapsed \(wall' "$dir.time" | sed 's/.*: //') wall, \
max RSS $(grep 'Maximum resident' "$dir.time" | sed 's/.*: //') KiB"
done
