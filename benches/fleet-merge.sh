#!/usr/bin/env bash
# Times `rigel merge` on a synthetic fleet (default 1,000 ranks × 100 points) and on its first 100
# and 300 ranks (hard links to the same rank folders), and prints the wall time, user time and
# maximum resident set size from /usr/bin/time -v: the time should grow with ranks × points, the
# memory not with the ranks.
#   benches/fleet-merge.sh [RANKS] [POINTS]      (folders under ${RIGEL_BENCH_DIR:-/var/tmp/rigel-bench};
#   RIGEL_PROFILE=profiling for the release code with debug info, to `perf record -g` it)
set -euo pipefail
cd "$(dirname "$0")/.."
ranks=${1:-1000}
points=${2:-100}
base=${RIGEL_BENCH_DIR:-/var/tmp/rigel-bench}/fleet-$points
profile=${RIGEL_PROFILE:-release}
cargo build --profile "$profile" --quiet
full="$base-$ranks"
if [[ ! -f "$full/fleet/ranks.json" ]] || [[ "$(cat "$full/fleet/ranks.json")" != "$ranks" ]]; then
  rm -rf "$full"
  # The generator's speed does not matter: the dev profile spares optimising every dev-dependency.
  cargo bench --quiet --profile dev --bench fleet_merge -- "$full" "$ranks" "$points"
fi
echo "| ranks × points | wall | user | max RSS |"
echo "|---|---|---|---|"
for n in 100 300 "$ranks"; do
  ((n <= ranks)) || continue
  dir="$base-$n"
  if [[ "$n" != "$ranks" ]]; then
    rm -rf "$dir"
    mkdir -p "$dir/fleet"
    for ((r = 0; r < n; r++)); do
      cp -al "$full/$(printf rank-%04d "$r")" "$dir/"
    done
    echo "$n" >"$dir/fleet/ranks.json"
  fi
  /usr/bin/time -v "target/$profile/rigel" merge "$dir" >/dev/null 2>"$dir.time" || { cat "$dir.time"; exit 1; }
  field() { grep "$1" "$dir.time" | sed 's/.*: //'; }
  echo "| $n × $points | $(field 'Elapsed (wall') | $(field 'User time') s | $(( $(field 'Maximum resident') / 1024 )) MiB |"
done
echo "(load: $(uptime | sed 's/.*load average: //'))"
