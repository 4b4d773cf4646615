#!/usr/bin/env bash
# rigel compare's false-flag rate and its power, on a loop device over tmpfs (O_DIRECT, the
# non-drifting reference), with the machine as loaded as it is:
#
# 1. Unchanged: PAIRS back-to-back pairs of the same spec (a 70/30 4 KiB random class at QD 1
#    and 8, with and without a 128 KiB sequential reader beside it: total, read and write lines,
#    two sizes), compared pair by pair. Prints, per point duration, the lines compared, those
#    flagged regressed (the false-flag rate), improved, inconclusive, and each pair's exit code.
# 2. A real 20% drop: PAIRS pairs of a 4 KiB random-read spec at QD 4; before each NEW run the
#    device's reads are throttled (cgroup v1 blkio.throttle.read_iops_device) to 80% of what its
#    BASE run measured. Prints whether the IOPS line was flagged regressed in each pair.
#
# Each point records its host (load, other work's and steal's share of the CPU): the tally prints
# their range and how many lines compare put down to the host (inconclusive, `host` named).
#
#   benches/noise.sh                       # 5 pairs at 1 s and at 5 s points
#   PAIRS=3 DURATIONS="1s" benches/noise.sh
#   FLOOR=5% benches/noise.sh              # another --drift-floor
#   KEEP=/dev/shm/noise benches/noise.sh   # keep each comparison's JSON and the runs there
#   JUDGE=/dev/shm/noise benches/noise.sh  # judge KEEP's runs again with this binary's compare
#                                          # (no device, no runs: the same runs, another rule)
#   HOLD=2000 benches/noise.sh             # hold the device at 2000 read and 2000 write IOPS
#                                          # (blkio throttle) in every run: a device with a fixed
#                                          # service rate, whose runs a loaded host cannot move
#
# Target: at most 1% of the unchanged lines flagged (regressed or improved) at both durations, and the drop
# flagged in every pair. Needs root (losetup, the blkio throttle).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${RIGEL:-target/release/rigel}
# The default binary is built from this tree (a no-op when it is fresh): a stale one would
# measure an older compare.
[ -n "${RIGEL:-}" ] || cargo build --release --quiet
PAIRS=${PAIRS:-5}
DURATIONS=${DURATIONS:-"1s 5s"}
FLOOR=${FLOOR:-}
KEEP=${KEEP:-}
HOLD=${HOLD:-0}
LIMITS=/sys/fs/cgroup/blkio/blkio.throttle.read_iops_device
WLIMITS=/sys/fs/cgroup/blkio/blkio.throttle.write_iops_device
[ -x "$BIN" ] || { echo "no rigel binary at $BIN" >&2; exit 1; }
JUDGE=${JUDGE:-}
if [ -n "$JUDGE" ]; then
    dir=$JUDGE
    dev="none (judging the runs kept in $JUDGE)"
else
dir=$(mktemp -d /dev/shm/rigel-noise.XXXXXX)
truncate -s 256M "$dir/backing"
dev=$(losetup -f --show --direct-io=on "$dir/backing")
numbers=$(cat "/sys/block/${dev#/dev/}/dev")
# udev probes a new device for a moment: rigel rightly refuses a device held open.
udevadm settle 2>/dev/null || sleep 1
hold() { # read IOPS, write IOPS (0: no limit)
    echo "$numbers $1" > "$LIMITS"
    echo "$numbers $2" > "$WLIMITS"
}
cleanup() {
    hold 0 0 2>/dev/null || true
    if [ -n "$KEEP" ]; then
        # The comparisons and the runs (compare them again with another rule), not the device.
        mkdir -p "$KEEP" && rm -f "$dir/backing" && cp -a "$dir"/. "$KEEP"/ 2>/dev/null || true
    fi
    losetup -d "$dev"
    rm -rf "$dir"
}
trap cleanup EXIT
fi
floor=()
[ -n "$FLOOR" ] && floor=(--drift-floor "$FLOOR")
echo "# $(date -u +%FT%TZ) $(uptime | sed 's/.*load/load/') device $dev floor ${FLOOR:-default} hold $HOLD"

spec() { # file, duration, classes and matrix
    printf '[spec]\nname = "noise"\n[[target]]\npath = "%s"\ndestructive = true\n[run]\nduration = "%s"\nwarmup = "300ms"\n%s\n' \
        "$dev" "$2" "$3" > "$1"
}
run() { # spec, out (a device another prober holds for a moment is tried again)
    for _ in 1 2 3 4 5; do
        "$BIN" run "$1" --allow-destructive --out "$2" > "$2.log" 2>&1 && return
        grep -q "in use" "$2.log" || break
        rm -rf "$2"
        sleep 1
    done
    cat "$2.log"
    exit 1
}
if [ -n "$JUDGE" ]; then
    hold() { :; }
    spec() { :; }
    run() { [ -f "$2/results.json" ] || { echo "no kept run at $2" >&2; exit 1; }; }
fi
compare() { # base, new -> json on stdout, exit code to $dir/code
    set +e
    "$BIN" compare "$1" "$2" --format json "${floor[@]}" 2>/dev/null
    echo $? > "$dir/code"
    set -e
}
tally() { # label, json files...
    python3 - "$@" <<'PY'
import json, sys
label, files = sys.argv[1], sys.argv[2:]
n = {"regressed": 0, "improved": 0, "inconclusive": 0, "within": 0}
worst, host, loads = [], 0, []
answers = [0, 0]
for f in files:
    c = json.load(open(f))
    for a in c.get("answers", []):
        answers[0] += 1
        if a["verdict"] in ("regressed", "improved"):
            answers[1] += 1
            worst.append(f'{a["verdict"]}: answer {a["answer"]} {a["change_text"]}')
    for p in c["points"]:
        for m in p["metrics"]:
            n[m["verdict"]] += 1
            host += bool(m.get("host"))
            if m["verdict"] in ("regressed", "improved"):
                worst.append(f'{m["verdict"]}: {p["label"]} {m["class"]} {m["direction"]} {m["stat"]} {m["change_text"]}')
# The hosts the runs saw (each point's record of its window).
for f in files:
    for side in ("a", "b"):
        try:
            d = json.load(open(f.replace(".json", f"-{side}/results.json")))
        except OSError:
            continue
        for p in d["points"]:
            h = p.get("host") or {}
            if "load_1m" in h:
                loads.append((h["load_1m"], h.get("others", 0) + h.get("steal", 0)))
lines = sum(n.values())
flagged = n["regressed"] + n["improved"]
print(f"{label}: {lines} lines, flagged {flagged} ({100 * flagged / max(lines, 1):.2f}%: regressed "
      f"{n['regressed']}, improved {n['improved']}), inconclusive {n['inconclusive']} (host named "
      f"in {host}), within {n['within']}; answers {answers[0]}, flagged {answers[1]}")
if loads:
    print(f"    host: load {min(l for l, _ in loads):.1f}-{max(l for l, _ in loads):.1f}, other work and "
          f"steal {100 * min(o for _, o in loads):.0f}-{100 * max(o for _, o in loads):.0f}% of the CPU")
for w in worst:
    print(f"    {w}")
share = (flagged + answers[1]) / max(lines + answers[0], 1)
print(f"{'PASS' if share <= 0.01 else 'FAIL'}: {label.split(',')[1].strip()}: {100 * share:.2f}% of the "
      f"unchanged lines and answers flagged (target at most 1%)")
PY
}

for d in $DURATIONS; do
    spec "$dir/same-$d.toml" "$d" '[class.small]
size = "4KiB"
mix = "70/30"
[class.large]
size = "128KiB"
access = "sequential"
[matrix]
small = "1, 8"
large = "0, 1"'
    codes=()
    files=()
    hold "$HOLD" "$HOLD"
    for i in $(seq 1 "$PAIRS"); do
        run "$dir/same-$d.toml" "$dir/same-$d-$i-a"
        run "$dir/same-$d.toml" "$dir/same-$d-$i-b"
        compare "$dir/same-$d-$i-a" "$dir/same-$d-$i-b" > "$dir/same-$d-$i.json"
        codes+=("$(cat "$dir/code")")
        files+=("$dir/same-$d-$i.json")
    done
    tally "unchanged, $d points, $PAIRS pairs (exit codes ${codes[*]})" "${files[@]}"

    spec "$dir/drop-$d.toml" "$d" '[class.rd]
size = "4KiB"
[matrix]
rd = "4"'
    flagged=0
    report=""
    for i in $(seq 1 "$PAIRS"); do
        hold "$HOLD" "$HOLD"
        run "$dir/drop-$d.toml" "$dir/drop-$d-$i-a"
        iops=$(python3 -c 'import json,sys; print(int(json.load(open(sys.argv[1]))["points"][0]["classes"][0]["total"]["iops"]))' "$dir/drop-$d-$i-a/results.json")
        hold $((iops * 8 / 10)) "$HOLD"
        run "$dir/drop-$d.toml" "$dir/drop-$d-$i-b"
        hold 0 0
        compare "$dir/drop-$d-$i-a" "$dir/drop-$d-$i-b" > "$dir/drop-$d-$i.json"
        line=$(python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))
# No line when a run counts no figure (a point that never reached its steady state on a
# starved host): not flagged, and the answer says why.
m = next((m for p in c["points"][:1] for m in p["metrics"] if m["stat"] == "iops"), None)
a = next((a for a in c.get("answers", []) if a["answer"].startswith("Max IOPS")), {})
print(m["verdict"], m["change_text"], "(host named)" if m.get("host") else "") if m else \
    print("no line:", a.get("note", "no point matched"))' "$dir/drop-$d-$i.json")
        [[ $line == regressed* ]] && flagged=$((flagged + 1))
        report+=" [$iops IOPS -> $line; exit $(cat "$dir/code")]"
    done
    echo "20% drop, $d points: flagged in $flagged of $PAIRS pairs:$report"
    [ "$flagged" = "$PAIRS" ] && verdict=PASS || verdict=FAIL
    echo "$verdict: $d points: the 20% drop flagged in $flagged of $PAIRS pairs (target: every pair)"
done
echo "# $(date -u +%FT%TZ) $(uptime | sed 's/.*load/load/')"
