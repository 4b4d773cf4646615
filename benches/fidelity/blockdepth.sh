#!/usr/bin/env bash
# How many of each tool's I/Os are in the block layer: rigel and fio alternated on a file of the
# root disk, 8 KiB random O_DIRECT reads at one queue depth, pinned to one CPU; around each run
# /sys/block/DEV/stat gives the reads completed and the milliseconds they spent in the block layer,
# so IOPS x ms per read is the mean number of the tool's reads there (Little's law), to set
# against the depth the tool keeps in flight (its own IOPS x mean latency).
#
#   benches/fidelity/blockdepth.sh RIGEL FILE [DEV] [QD] [PAIRS]
#   benches/fidelity/blockdepth.sh /var/tmp/rigel-bench/rigel /var/tmp/rigel-bench/disk.img vda 32 3
set -euo pipefail
source "$(dirname "$0")/spec.sh"
rigel="$1"; file="$2"; dev="${3:-vda}"; qd="${4:-32}"; pairs="${5:-3}"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
stat_reads() { awk '{print $1, $4}' "/sys/block/$dev/stat"; }   # reads completed, ms reading
report() { # tool "iops mean_us" "reads0 ms0" "reads1 ms1"
    echo "$2 $3 $4" | awk -v t="$1" -v qd="$qd" '{
        n = $5 - $3; ms = ($6 - $4) / n
        printf "%-5s %7.0f IOPS, mean %6.0f us (%.1f in flight) | %s: %d reads, %.3f ms each in the block layer: %.1f of %d there\n",
            t, $1, $2, $1 * $2 / 1e6, dev, n, ms, $1 * ms / 1000, qd }' dev="$dev"
}
for _ in $(seq "$pairs"); do
    read_spec "$file" "$qd" 4s > "$tmp/s.toml"
    rm -rf "$tmp/out"
    a="$(stat_reads)"
    taskset -c 1 "$rigel" run "$tmp/s.toml" --out "$tmp/out" >/dev/null 2>&1
    b="$(stat_reads)"
    report rigel "$(jq -r '.points[0].classes[0].total | "\(.iops) \(.latency.mean_ns / 1000)"' "$tmp/out/results.json")" "$a" "$b"
    a="$(stat_reads)"
    u="$(taskset -c 1 fio --name=b --filename="$file" --ioengine=io_uring --direct=1 --rw=randread \
        --bs=8192 --iodepth="$qd" --fixedbufs=1 --registerfiles=1 --randrepeat=0 --invalidate=0 \
        --time_based --runtime=4 --ramp_time=1 --output-format=json |
        jq -r '.jobs[0].read | "\(.iops) \(.lat_ns.mean / 1000)"')"
    b="$(stat_reads)"
    report fio "$u" "$a" "$b"
done
