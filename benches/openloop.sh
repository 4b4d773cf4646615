#!/usr/bin/env bash
# The open-loop scheduler's own cost: 4 KiB buffered random reads of a page-cache-resident file
# (no device in the way), requested at 100,000 IOPS with at most 8 outstanding, against the closed
# loop at queue depth 1 on the same file. Prints achieved / requested and CPU time per I/O of both
# (the run's results: cpu.user_s + cpu.system_s over the I/Os of the measured window).
#
#   benches/openloop.sh                 # 10 s per point, 3 rounds, pinned to CPU 1
#   RATE=200000 ROUNDS=5 benches/openloop.sh
#
# Pass: achieved >= 99.5% of requested, and CPU per I/O within 15% of the closed loop's.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${RIGEL:-target/release/rigel}
RATE=${RATE:-100000}
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-10s}
CPU=${CPU:-1}
[ -x "$BIN" ] || cargo build --release
dir=$(mktemp -d /dev/shm/rigel-openloop.XXXXXX)
trap 'rm -rf "$dir"' EXIT

spec() { # name, class extra, load
    cat > "$dir/$1.toml" <<SPEC
[spec]
name = "$1"
[[target]]
path = "$dir/data.bin"
size = "256MiB"
[run]
duration = "$DURATION"
warmup = "1s"
direct = false
[class.small]
size = "4KiB"
$2
[matrix]
shape = "point"
small = "$3"
SPEC
}
spec closed "" 1
spec open "rate = \"$RATE iops\"" 8

for round in $(seq "$ROUNDS"); do
    for kind in closed open; do
        taskset -c "$CPU" "$BIN" run "$dir/$kind.toml" --out "$dir/$kind-$round" > "$dir/$kind-$round.log" 2>&1 || { cat "$dir/$kind-$round.log"; exit 1; }
    done
done

python3 - "$dir" "$ROUNDS" "$RATE" <<'PY'
import json, statistics, sys
d, rounds, rate = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
def point(kind, r):
    doc = json.load(open(f"{d}/{kind}-{r}/results.json"))
    p = doc["points"][0]
    c = p["classes"][0]
    cpu = p["cpu"]["user_s"] + p["cpu"]["system_s"]
    return c["total"]["iops"], cpu / max(c["total"]["ios"], 1) * 1e9, c.get("pace")
rows = {k: [point(k, r) for r in range(1, rounds + 1)] for k in ("closed", "open")}
closed_iops = statistics.median(x[0] for x in rows["closed"])
closed_ns = statistics.median(x[1] for x in rows["closed"])
open_iops = statistics.median(x[0] for x in rows["open"])
open_ns = statistics.median(x[1] for x in rows["open"])
share = open_iops / rate
ratio = open_ns / closed_ns
print("| loop | IOPS (median) | CPU per I/O (median) |")
print("|---|---:|---:|")
print(f"| closed, QD 1 | {closed_iops:,.0f} | {closed_ns:,.0f} ns |")
print(f"| open, {rate:,.0f} IOPS requested, cap 8 | {open_iops:,.0f} ({share:.2%} of requested) | {open_ns:,.0f} ns ({ratio:.2f}x closed) |")
ok = share >= 0.995 and ratio <= 1.15
print("PASS" if ok else "FAIL", "(achieved >= 99.5% of requested; CPU per I/O within 15% of the closed loop)")
sys.exit(0 if ok else 1)
PY
