#!/usr/bin/env bash
# How long each tool holds a completed I/O before it times it: rigel and fio alternated on a file
# of the root disk, 8 KiB random O_DIRECT reads at one queue depth, pinned to one CPU. One second
# in the middle of each run is traced (io_uring and block tracepoints, `perf record -a`);
# iotrace.py matches every io_uring request's submission to its CQE being posted (the kernel's
# whole I/O). The tool's own mean latency minus that is the time a completed I/O waits in the
# tool before it is timed and replaced; IOPS x kernel time is how many of the tool's I/Os are in
# the kernel (Little's law), to set against the depth the tool keeps.
#
#   benches/fidelity/held.sh RIGEL FILE [QD] [PAIRS]
#   benches/fidelity/held.sh /var/tmp/rigel-bench/rigel /var/tmp/rigel-bench/disk.img 32 2
set -euo pipefail
source "$(dirname "$0")/spec.sh"
rigel="$1"; file="$2"; qd="${3:-32}"; pairs="${4:-2}"
here="$(cd "$(dirname "$0")" && pwd)"
dev="$(stat -c '%d' "$file" | awk '{printf "%d,%d", int($1/256), $1%256}')"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
events=(-e io_uring:io_uring_submit_req -e io_uring:io_uring_complete
        -e block:block_bio_queue -e block:block_rq_complete)
trace() { # label: one second of tracepoints, 3 s into the run
    sleep 3
    perf record -q -m 16M -a "${events[@]}" -o "$tmp/perf.data" -- sleep 1 2>/dev/null
}
report() { # tool "iops mean_us"
    perf script -i "$tmp/perf.data" -F comm,tid,time,event,trace > "$tmp/trace.txt" 2>/dev/null
    kernel="$(python3 "$here/iotrace.py" "$tmp/trace.txt" "$dev" 8192 |
        sed -n 's/^submission -> CQE posted: *median *[0-9.]* µs, mean *\([0-9.]*\).*/\1/p')"
    echo "$2 $kernel" | awk -v t="$1" -v qd="$qd" '{
        printf "%-5s %7.0f IOPS, mean %6.0f us (%.1f in flight) | kernel: submission -> CQE %6.1f us, %.1f of %d there | held in the tool %6.1f us\n",
            t, $1, $2, $1 * $2 / 1e6, $3, $1 * $3 / 1e6, qd, $2 - $3 }'
}
for _ in $(seq "$pairs"); do
    read_spec "$file" "$qd" 6s > "$tmp/s.toml"
    rm -rf "$tmp/out"
    taskset -c 1 "$rigel" run "$tmp/s.toml" --out "$tmp/out" >/dev/null 2>&1 &
    trace; wait
    report rigel "$(jq -r '.points[0].classes[0].total | "\(.iops) \(.latency.mean_ns / 1000)"' "$tmp/out/results.json")"
    taskset -c 1 fio --name=b --filename="$file" --ioengine=io_uring --direct=1 --rw=randread \
        --bs=8192 --iodepth="$qd" --fixedbufs=1 --registerfiles=1 --randrepeat=0 --invalidate=0 \
        --time_based --runtime=6 --ramp_time=1 --output-format=json > "$tmp/fio.json" &
    trace; wait
    report fio "$(jq -r '.jobs[0].read | "\(.iops) \(.lat_ns.mean / 1000)"' "$tmp/fio.json")"
done
