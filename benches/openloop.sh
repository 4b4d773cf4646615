#!/usr/bin/env bash
# The open-loop scheduler's own cost: 4 KiB buffered random reads of a page-cache-resident file
# (no device in the way), requested at 100,000 IOPS with at most 8 outstanding, against the closed
# loop at queue depth 1 on the same file. Prints achieved / requested and CPU time per I/O of both
# (the run's results: cpu.user_s + cpu.system_s over the I/Os of the measured window, io_uring's
# io-wq workers included: tmpfs reads are served there), each round's ratio (the two loops run
# alternately, so a change of the machine's load hits both), their spread, and the load average
# before and after (`uptime`).
#
#   benches/openloop.sh                 # 10 s per point, 5 alternated rounds, pinned to CPU 1
#   RATE=200000 ROUNDS=3 DURATION=3s benches/openloop.sh
#
# Pass: achieved >= 99.5% of requested, and CPU per I/O within 15% of the closed loop's.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${RIGEL:-target/release/rigel}
RATE=${RATE:-100000}
ROUNDS=${ROUNDS:-5}
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

# Context switches and io_uring_enter calls per I/O (whole run, warmup included), when perf is
# installed: counts a loaded machine changes far less than CPU time.
if command -v perf > /dev/null && perf stat -e context-switches -o /dev/null true 2> /dev/null; then
    PERF=(perf stat -x, -e context-switches,syscalls:sys_enter_io_uring_enter)
else
    PERF=(env --)
fi
echo "load before: $(uptime | sed 's/.*load average: //')"
for round in $(seq "$ROUNDS"); do
    for kind in closed open; do
        "${PERF[@]}" -o "$dir/$kind-$round.perf" taskset -c "$CPU" "$BIN" run "$dir/$kind.toml" --out "$dir/$kind-$round" > "$dir/$kind-$round.log" 2>&1 || { cat "$dir/$kind-$round.log"; exit 1; }
    done
done

echo "load after: $(uptime | sed 's/.*load average: //')"

python3 - "$dir" "$ROUNDS" "$RATE" <<'PY'
import json, statistics, sys
d, rounds, rate = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
def point(kind, r):
    doc = json.load(open(f"{d}/{kind}-{r}/results.json"))
    p = doc["points"][0]
    c = p["classes"][0]
    cpu = p["cpu"]["user_s"] + p["cpu"]["system_s"]
    counts = {}
    try:
        for line in open(f"{d}/{kind}-{r}.perf"):
            f = line.strip().split(",")
            if len(f) > 2 and f[0].isdigit():
                counts[f[2].split(":")[-1]] = int(f[0])
    except FileNotFoundError:
        pass
    # perf counts the whole run: its I/Os are estimated as the window's rate over warmup (1 s) and
    # window.
    run_ios = c["total"]["iops"] * (p["elapsed_s"] + 1.0)
    per_io = {k: v / max(run_ios, 1) for k, v in counts.items()}
    return c["total"]["iops"], cpu / max(c["total"]["ios"], 1) * 1e9, per_io
rows = {k: [point(k, r) for r in range(1, rounds + 1)] for k in ("closed", "open")}
print("| round | closed IOPS | closed CPU/I/O | open IOPS (of requested) | open CPU/I/O | open / closed | switches/I/O closed, open | enters/I/O closed, open |")
print("|---:|---:|---:|---:|---:|---:|---:|---:|")
fmt = lambda x, k: f"{x[2][k]:.2f}" if k in x[2] else "-"
ratios = []
for r, (c, o) in enumerate(zip(rows["closed"], rows["open"]), 1):
    ratios.append(o[1] / c[1])
    print(f"| {r} | {c[0]:,.0f} | {c[1]:,.0f} ns | {o[0]:,.0f} ({o[0] / rate:.2%}) | {o[1]:,.0f} ns | {ratios[-1]:.2f}x | {fmt(c, 'context-switches')}, {fmt(o, 'context-switches')} | {fmt(c, 'sys_enter_io_uring_enter')}, {fmt(o, 'sys_enter_io_uring_enter')} |")
print()
closed_iops = statistics.median(x[0] for x in rows["closed"])
closed_ns = statistics.median(x[1] for x in rows["closed"])
open_iops = statistics.median(x[0] for x in rows["open"])
open_ns = statistics.median(x[1] for x in rows["open"])
share = open_iops / rate
ratio = statistics.median(ratios)
print("| loop | IOPS (median) | CPU per I/O (median) |")
print("|---|---:|---:|")
print(f"| closed, QD 1 | {closed_iops:,.0f} | {closed_ns:,.0f} ns |")
print(f"| open, {rate:,.0f} IOPS requested, cap 8 | {open_iops:,.0f} ({share:.2%} of requested) | {open_ns:,.0f} ns ({ratio:.2f}x closed, rounds {min(ratios):.2f}x to {max(ratios):.2f}x) |")
ok = share >= 0.995 and ratio <= 1.15
print("PASS" if ok else "FAIL", "(achieved >= 99.5% of requested; CPU per I/O within 15% of the closed loop, median of the rounds' ratios)")
sys.exit(0 if ok else 1)
PY
