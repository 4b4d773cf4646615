#!/usr/bin/env bash
# Little's law, rigel beside fio (issue 28): 4 KiB random O_DIRECT reads at QD 1, 4, 16, 32, 64
# on a loop device over tmpfs and on a file on the root disk's filesystem (a file under
# /var/tmp, never the raw device). For each point it prints rigel's IOPS, the depth it held
# (results.json `depth_held`) over the QD, its IOPS × mean latency over the QD, the device's own
# mean depth (`devices[]`: time in queue / span), and fio's IOPS and IOPS × clat mean / iodepth,
# the two tools alternated point by point, both pinned to the same CPU.
#
#   benches/littles_law.sh [--duration SECONDS] [--cpu N] [--rigel PATH]
#
# Root (the loop device). Needs fio, taskset, python3; about 300 MiB of tmpfs and a 1 GiB file in
# /var/tmp/rigel-bench (RIGEL_BENCH_DIR), filled with random data once and kept.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(dirname "$here")"
work="${RIGEL_BENCH_DIR:-/var/tmp/rigel-bench}"
shm="/dev/shm/rigel-littles-$$"
duration=3
cpu=1
rigel=""
while [ $# -gt 0 ]; do
    case "$1" in
        --duration) duration="$2"; shift 2 ;;
        --cpu) cpu="$2"; shift 2 ;;
        --rigel) rigel="$2"; shift 2 ;;
        *) echo "littles_law.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
for tool in fio taskset python3 losetup; do
    command -v "$tool" >/dev/null || { echo "littles_law.sh: $tool is missing" >&2; exit 2; }
done
if [ -z "$rigel" ]; then
    (cd "$repo" && cargo build --release --quiet --bin rigel)
    rigel="${CARGO_TARGET_DIR:-$repo/target}/release/rigel"
fi

loopdev=""
cleanup() {
    [ -n "$loopdev" ] && losetup -d "$loopdev" 2>/dev/null || true
    rm -rf "$shm"
}
trap cleanup EXIT INT TERM
mkdir -p "$work" "$shm"

disk="$work/littles-1g.img"
if [ ! -f "$disk" ] || [ "$(stat -c %s "$disk")" -ne 1073741824 ]; then
    echo "preparing $disk (1 GiB of random data)" >&2
    head -c 1073741824 /dev/urandom > "$disk.tmp" && mv "$disk.tmp" "$disk"
fi
head -c $((256 * 1048576)) /dev/urandom > "$shm/loop.img"
loopdev="$(losetup -f --show --direct-io=on "$shm/loop.img")"

run_rigel() { # target qd out
    local spec="$shm/l.toml"
    cat > "$spec" <<SPEC
[spec]
name = "littles"
[[target]]
path = "$1"
[run]
duration = "${duration}s"
warmup = "500ms"
workers = 1
seed = $RANDOM
[class.small]
size = "4KiB"
access = "random"
mix = "read"
[matrix]
shape = "point"
small = "$2"
SPEC
    rm -rf "$3"
    taskset -c "$cpu" "$rigel" run "$spec" --out "$3" >/dev/null
}

run_fio() { # target qd out.json
    taskset -c "$cpu" fio --name=l --filename="$1" --ioengine=io_uring --fixedbufs=1 \
        --registerfiles=1 --direct=1 --rw=randread --bs=4k --iodepth="$2" --randrepeat=0 \
        --invalidate=0 --ramp_time=0.5 --runtime="$duration" --time_based=1 --size=256m \
        --output-format=json --output="$3" >/dev/null
}

echo "| target | QD | rigel IOPS | held / QD | IOPS×mean / QD | IOPS×mean / held | device depth | fio IOPS | fio IOPS×clat / QD |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
for target in "$loopdev" "$disk"; do
    name="loop device over tmpfs"
    [ "$target" = "$disk" ] && name="file on the root disk"
    for qd in 1 4 16 32 64; do
        run_rigel "$target" "$qd" "$shm/r"
        run_fio "$target" "$qd" "$shm/f.json"
        python3 - "$shm/r/results.json" "$shm/f.json" "$qd" "$name" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
f = json.load(open(sys.argv[2]))
qd = float(sys.argv[3])
p = r["points"][0]
c = p["classes"][0]
iops = c["total"]["iops"]
little = iops * c["total"]["latency"]["mean_ns"] / 1e9
held = c["depth_held"]
dev = p.get("devices") or []
depth = sum(d["in_flight_ms"] / d["span_ms"] for d in dev) if dev else None
job = f["jobs"][0]["read"]
fio = job["iops"] * job["clat_ns"]["mean"] / 1e9 / qd
print(f"| {sys.argv[4]} | {int(qd)} | {iops:,.0f} | {held / qd:.3f} | {little / qd:.3f} | "
      f"{little / held:.4f} | {'—' if depth is None else f'{depth:.2f}'} | {job['iops']:,.0f} | {fio:.3f} |")
PY
    done
done
echo
echo "device depth: the kernel's time in queue over the window for the device under the target"
echo "(the loop device; for the file, the root disk, whose other users count too)."
echo "Host load during the run: $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min)"
