#!/usr/bin/env bash
# Workloads as applications issue them, beside fio in the same run, rounds alternated so the host's
# drift hits every row alike.
#
# 1. IOPS per core on page-cache reads (a 256 MiB tmpfs file, buffered, QD 1, one worker pinned to
#    one CPU): uniform fixed 4 KiB against zipf:1.2 with a size mix (4KiB:60%, 8KiB:30%, 16KiB:10%),
#    rigel beside fio (random_distribution=zipf:1.2, bssplit=4k/60:8k/30:16k/10, norandommap).
#    Larger I/Os copy more bytes per read: compare each tool's ratio to its own uniform row.
#    Compressible data shapes writes only, so page-cache writes (the same file, buffered, QD 1) get
#    rows of their own: uniform 4 KiB of random data against zipf:1.2 + the size mix + compress 3:1
#    (fio: buffer_compress_percentage=67, buffer_compress_chunk=4k, refill_buffers).
# 2. Commit latency of `durability = "fdatasync:1"` on the root disk: 8 KiB O_DIRECT sequential
#    writes to a file rigel creates under /work/tmp-bench (never a raw device), QD 1, each followed
#    by an fdatasync, beside
#    fio's fdatasync=1 (write latency + sync latency) with its default engine, psync (pwrite then
#    fdatasync(2) at once, as a database's log writer does), and with io_uring (whose ~17 us of
#    its own between the write's completion and the sync's submission lets the device settle, and
#    shortens the sync it reports). Each tool runs twice per round (A/A): the spread of a tool
#    against itself is the noise floor the comparison is judged against.
#
#   benches/workload.sh [ROUNDS] [SECONDS] [CPU]      # defaults 3 rounds, 3 s, CPU 1
set -euo pipefail
rounds="${1:-3}" secs="${2:-3}" cpu="${3:-1}"
root="$(cd "$(dirname "$0")/.." && pwd)"
rigel="${RIGEL:-$root/target/release/rigel}"
work="$(mktemp -d /dev/shm/rigel-workload.XXXXXX)"
mkdir -p /work/tmp-bench
disk="$(mktemp -d /work/tmp-bench/rigel-workload.XXXXXX)"
trap 'rm -rf "$work" "$disk"' EXIT
file="$work/pcache.img"
head -c $((256 << 20)) /dev/urandom > "$file"
wal="$disk/wal.img"
# The block device under the test file: its own flush count checks each tool's commit rate.
blk="$(basename "$(df --output=source "$disk" | tail -1)")"
flushes() { awk '{print $16}' "/sys/block/$blk/stat" 2>/dev/null || echo 0; }

rigel_reads() { # DISTRIBUTION SIZE [MIX [DATA]] -> "IOPS CPU%"
    cat > "$work/spec.toml" <<EOT
[[target]]
path = "$file"
destructive = true
[run]
duration = "${secs}s"
warmup = "1s"
direct = false
seed = $RANDOM
[class.r]
size = "$2"
distribution = "$1"
mix = "${3:-read}"
${4:-}
[matrix]
shape = "point"
r = "1"
EOT
    rm -rf "$work/out"
    # The file is this script's: consent to rigel's writes to it.
    taskset -c "$cpu" "$rigel" run "$work/spec.toml" --allow-destructive --out "$work/out" >/dev/null 2>&1
    python3 "$root/benches/iops_cpu.py" "$work/out/results.json"
}

fio_reads() { # DISTRIBUTION BSSPLIT [RW [EXTRA...]] -> "IOPS CPU%"
    local dist="$1" split="$2" rw="${3:-randread}"
    shift 2; shift || true
    taskset -c "$cpu" fio --name=r --filename="$file" --ioengine=io_uring --fixedbufs=1 \
        --registerfiles=1 --rw="$rw" --bssplit="$split" --iodepth=1 --direct=0 --invalidate=0 \
        --norandommap --randrepeat=0 --random_distribution="$dist" --time_based \
        --ramp_time=1 --runtime="$secs" --output-format=json "$@" 2>/dev/null |
        python3 -c 'import json,sys; j=json.load(sys.stdin)["jobs"][0]; d=j["read"]["iops"]+j["write"]["iops"]; print("%.0f %.0f" % (d, j["usr_cpu"] + j["sys_cpu"]))'
}

rigel_commit() { # -> "commit_mean_us flush_mean_us write_mean_us commits/s device_flushes/s"
    cat > "$disk/spec.toml" <<EOT
[[target]]
path = "$wal"
size = "256MiB"
destructive = true
[run]
duration = "${secs}s"
warmup = "1s"
[class.wal]
size = "8KiB"
access = "sequential"
per_stream = 1
mix = "write"
durability = "fdatasync:1"
[matrix]
shape = "point"
wal = "1"
EOT
    rm -rf "$disk/out"
    # The file is rigel's (it creates it on the first call; fio writes it too): consent to
    # rigel's writes.
    local f0 t0 f1 t1
    f0=$(flushes); t0=$(date +%s.%N)
    "$rigel" run "$disk/spec.toml" --allow-destructive --out "$disk/out" >/dev/null 2>&1
    f1=$(flushes); t1=$(date +%s.%N)
    python3 - "$disk/out/results.json" "$((f1 - f0))" "$t0" "$t1" <<'EOT'
import json, sys
c = json.load(open(sys.argv[1]))["points"][0]["classes"][0]
m = c["commit"]
dev = int(sys.argv[2]) / (float(sys.argv[4]) - float(sys.argv[3]))
print(f'{m["latency"]["mean_ns"] / 1e3:.1f} {m["flush"]["mean_ns"] / 1e3:.1f} {c["write"]["latency"]["mean_ns"] / 1e3:.1f} {m["per_s"]:.0f} {dev:.0f}')
EOT
}

fio_commit() { # ENGINE -> "write+sync_mean_us sync_mean_us write_mean_us commits/s device_flushes/s"
    local f0 t0 f1 t1
    f0=$(flushes); t0=$(date +%s.%N)
    fio --name=wal --filename="$wal" --ioengine="$1" --rw=write --bs=8k --size=256m \
        --iodepth=1 --direct=1 --fdatasync=1 --time_based --ramp_time=1 --runtime="$secs" \
        --output-format=json > "$disk/fio.json" 2>/dev/null
    f1=$(flushes); t1=$(date +%s.%N)
    python3 - "$disk/fio.json" "$((f1 - f0))" "$t0" "$t1" <<'EOT'
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
w = j["write"]["lat_ns"]["mean"] / 1e3
s = j["sync"]["lat_ns"]["mean"] / 1e3
dev = int(sys.argv[2]) / (float(sys.argv[4]) - float(sys.argv[3]))
print("%.1f %.1f %.1f %.0f %.0f" % (w + s, s, w, j["write"]["iops"], dev))
EOT
}

median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
declare -A v
rigel_commit >/dev/null # rigel creates the file (256 MiB of random data) before the first round
for ((r = 0; r < rounds; r++)); do
    read -r i c < <(rigel_reads uniform 4KiB); v[ru]+=" $i"; v[ruc]+=" $c"
    read -r i c < <(fio_reads random 4k/100); v[fu]+=" $i"; v[fuc]+=" $c"
    read -r i c < <(rigel_reads zipf:1.2 "4KiB:60%, 8KiB:30%, 16KiB:10%"); v[rz]+=" $i"; v[rzc]+=" $c"
    read -r i c < <(fio_reads zipf:1.2 4k/60:8k/30:16k/10); v[fz]+=" $i"; v[fzc]+=" $c"
    read -r i c < <(rigel_reads uniform 4KiB write); v[rwu]+=" $i"; v[rwuc]+=" $c"
    read -r i c < <(fio_reads random 4k/100 randwrite); v[fwu]+=" $i"; v[fwuc]+=" $c"
    read -r i c < <(rigel_reads zipf:1.2 "4KiB:60%, 8KiB:30%, 16KiB:10%" write 'compress = "3:1"'); v[rwz]+=" $i"; v[rwzc]+=" $c"
    read -r i c < <(fio_reads zipf:1.2 4k/60:8k/30:16k/10 randwrite --buffer_compress_percentage=67 --buffer_compress_chunk=4k --refill_buffers); v[fwz]+=" $i"; v[fwzc]+=" $c"
    for k in a b; do
        read -r cm fl wr ps dv < <(rigel_commit); v[rc$k]+=" $cm"; v[rf$k]+=" $fl"; v[rw$k]+=" $wr"; v[rp$k]+=" $ps"; v[rd$k]+=" $dv"
        read -r cm fl wr ps dv < <(fio_commit psync); v[fc$k]+=" $cm"; v[ff$k]+=" $fl"; v[fw$k]+=" $wr"; v[fp$k]+=" $ps"; v[fd$k]+=" $dv"
        read -r cm fl wr ps dv < <(fio_commit io_uring); v[uc$k]+=" $cm"; v[uf$k]+=" $fl"; v[uw$k]+=" $wr"; v[up$k]+=" $ps"; v[ud$k]+=" $dv"
    done
done
m() { median <<< "${v[$1]}"; }
echo "| page-cache reads, QD 1, one CPU | rigel IOPS (CPU%) | fio IOPS (CPU%) |"
echo "|---|---|---|"
echo "| uniform, 4 KiB | $(m ru) ($(m ruc)%) | $(m fu) ($(m fuc)%) |"
echo "| zipf:1.2, 4KiB:60% 8KiB:30% 16KiB:10% | $(m rz) ($(m rzc)%) | $(m fz) ($(m fzc)%) |"
printf '| ratio | %.2f | %.2f |\n' "$(echo "$(m rz) / $(m ru)" | bc -l)" "$(echo "$(m fz) / $(m fu)" | bc -l)"
echo
echo "| page-cache writes, QD 1, one CPU | rigel IOPS (CPU%) | fio IOPS (CPU%) |"
echo "|---|---|---|"
echo "| uniform, 4 KiB, random data | $(m rwu) ($(m rwuc)%) | $(m fwu) ($(m fwuc)%) |"
echo "| zipf:1.2, 4KiB:60% 8KiB:30% 16KiB:10%, compress 3:1 | $(m rwz) ($(m rwzc)%) | $(m fwz) ($(m fwzc)%) |"
printf '| ratio | %.2f | %.2f |\n' "$(echo "$(m rwz) / $(m rwu)" | bc -l)" "$(echo "$(m fwz) / $(m fwu)" | bc -l)"
echo
echo "| 8 KiB O_DIRECT write + fdatasync, QD 1, root disk (mean µs) | commit (write + flush) | flush | write | commits/s (tool) | flushes/s ($blk, whole run) |"
echo "|---|---|---|---|---|---|"
for k in a b; do
    echo "| rigel fdatasync:1 ($k) | $(m rc$k) | $(m rf$k) | $(m rw$k) | $(m rp$k) | $(m rd$k) |"
    echo "| fio psync fdatasync=1 ($k) | $(m fc$k) | $(m ff$k) | $(m fw$k) | $(m fp$k) | $(m fd$k) |"
    echo "| fio io_uring fdatasync=1 ($k) | $(m uc$k) | $(m uf$k) | $(m uw$k) | $(m up$k) | $(m ud$k) |"
done
printf '| rigel / fio psync commit (a, b) | %.3f, %.3f | A/A: rigel a/b %.3f, fio a/b %.3f | | | |\n' \
    "$(echo "$(m rca) / $(m fca)" | bc -l)" "$(echo "$(m rcb) / $(m fcb)" | bc -l)" \
    "$(echo "$(m rca) / $(m rcb)" | bc -l)" "$(echo "$(m fca) / $(m fcb)" | bc -l)"
printf '| rigel / fio io_uring commit (a, b) | %.3f, %.3f | A/A: fio io_uring a/b %.3f | | | |\n' \
    "$(echo "$(m rca) / $(m uca)" | bc -l)" "$(echo "$(m rcb) / $(m ucb)" | bc -l)" \
    "$(echo "$(m uca) / $(m ucb)" | bc -l)"
