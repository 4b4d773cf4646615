#!/usr/bin/env bash
# What a capture costs the I/O it watches (issue 32): IOPS of a rigel run of 4 KiB random reads on
# a loop device over a tmpfs file, with `rigel capture` of that device running beside it and
# without, alternated round by round (the order rotates too). Each round has two runs without a
# capture (an A/A control: their ratio is what the host's noise alone does to one run) and one
# with. Prints per round the IOPS of each, the A/A ratio, the ratio with/without (against the mean
# of the two without), the capture's own CPU time (its trace header's cost) and the events it
# dropped.
#
#   benches/capture.sh [--rounds N] [--duration SECONDS] [--qd N] [--rigel PATH]
#
# Needs root (loop devices, tracefs), losetup and python3. The loop device is detached at exit.
set -euo pipefail

. "$(dirname "$0")/lib.sh"
rounds=5
duration=3
qd=16
rigel=""
bench_args "rounds duration qd rigel" "$@"
bench_need python3 losetup
bench_rigel
bench_tmpdir out /dev/shm/rigel-capture-bench.XXXXXX
truncate -s 256M "$out/backing.img"
bench_loop dev "$out/backing.img"
spec="$out/spec.toml"
printf '[[target]]\npath = "%s"\n\n[run]\nduration = "%ss"\nwarmup = "500ms"\n\n[class.io]\nsize = "4KiB"\nmix = "read"\n\n[matrix]\nio = "%s"\n' \
    "$dev" "$duration" "$qd" >"$spec"

iops() {
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1]+"/results.json")); print(round(d["points"][0]["classes"][0]["total"]["iops"]))' "$1"
}

run() {
    local dir="$1"
    "$rigel" run "$spec" --out "$dir" --quiet >/dev/null 2>&1 || [ -s "$dir/results.json" ]
    iops "$dir"
}

printf 'round  IOPS off A  IOPS off B  IOPS on    A/A     on/off  capture CPU s  CPU share  events     dropped\n'
for r in $(seq 1 "$rounds"); do
    case $((r % 3)) in
        1) order="offa on offb" ;;
        2) order="on offb offa" ;;
        *) order="offb offa on" ;;
    esac
    for mode in $order; do
        if [ "$mode" = offa ]; then
            offa="$(run "$out/offa-$r")"
        elif [ "$mode" = offb ]; then
            offb="$(run "$out/offb-$r")"
        else
            "$rigel" capture "$dev" --duration 10m --out "$out/cap-$r" --quiet >/dev/null 2>&1 &
            cpid=$!
            # Recording once the instance's completion event is enabled and tracing is on.
            inst="/sys/kernel/tracing/instances/rigel-capture-$cpid"
            for _ in $(seq 1 200); do
                [ "$(cat "$inst/tracing_on" 2>/dev/null)" = 1 ] \
                    && [ "$(cat "$inst/events/block/block_rq_complete/enable" 2>/dev/null)" = 1 ] && break
                sleep 0.05
            done
            on="$(run "$out/on-$r")"
            kill -INT "$cpid"
            wait "$cpid"
            cost="$(head -c 4096 "$out/cap-$r/trace.rtr" | tail -n +2 | python3 -c '
import json, sys
h = json.loads(sys.stdin.read())
c = h["cost"]
print("%.3f %.1f%% %d %d" % (c["cpu_seconds"], c["cpu_share"] * 100, c["events"], h["dropped"]))')"
        fi
    done
    read -r cpu share events dropped <<<"$cost"
    python3 -c 'import sys; a,b,on=map(float,sys.argv[1:4]); print(f"{sys.argv[4]:<6} {a:>10,.0f}  {b:>10,.0f}  {on:>9,.0f}  {b/a:6.3f}  {on/((a+b)/2):6.3f}  {sys.argv[5]:>13}  {sys.argv[6]:>9}  {int(sys.argv[7]):>9,}  {sys.argv[8]:>7}")' \
        "$offa" "$offb" "$on" "$r" "$cpu" "$share" "$events" "$dropped"
done
