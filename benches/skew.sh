#!/usr/bin/env bash
# Skewed offsets' cost: 4 KiB buffered random reads of a page-cache-resident tmpfs file at QD 1,
# one worker pinned to one CPU (IOPS per core), uniform against zipf:1.2 and pareto:0.2, rigel
# beside fio (io_uring, random_distribution=…, norandommap: offsets with replacement, as rigel
# draws them), alternated round by round so the host's drift hits every row alike.
#
#   benches/skew.sh [ROUNDS] [SECONDS] [CPU]      # defaults 3 rounds, 3 s, CPU 1
set -euo pipefail
rounds="${1:-3}" secs="${2:-3}" cpu="${3:-1}"
root="$(cd "$(dirname "$0")/.." && pwd)"
rigel="${RIGEL:-$root/target/release/rigel}"
work="$(mktemp -d /dev/shm/rigel-skew.XXXXXX)"
trap 'rm -rf "$work"' EXIT
file="$work/pcache.img"
head -c $((256 << 20)) /dev/urandom > "$file"

rigel_row() { # DISTRIBUTION -> "IOPS CPU%"
    cat > "$work/spec.toml" <<EOT
[[target]]
path = "$file"
[run]
duration = "${secs}s"
warmup = "1s"
direct = false
seed = $RANDOM
[class.r]
size = "4KiB"
distribution = "$1"
[matrix]
shape = "point"
r = "1"
EOT
    rm -rf "$work/out"
    taskset -c "$cpu" "$rigel" run "$work/spec.toml" --out "$work/out" >/dev/null 2>&1
    python3 "$root/benches/iops_cpu.py" "$work/out/results.json"
}

fio_row() { # DISTRIBUTION -> "IOPS CPU%"
    taskset -c "$cpu" fio --name=r --filename="$file" --ioengine=io_uring --fixedbufs=1 \
        --registerfiles=1 --rw=randread --bs=4k --iodepth=1 --direct=0 --invalidate=0 \
        --norandommap --randrepeat=0 --random_distribution="$1" --time_based \
        --ramp_time=1 --runtime="$secs" --output-format=json 2>/dev/null |
        python3 -c 'import json,sys; j=json.load(sys.stdin)["jobs"][0]; print("%.0f %.0f" % (j["read"]["iops"], j["usr_cpu"] + j["sys_cpu"]))'
}

declare -A iops cpuu
dists=(random zipf:1.2 pareto:0.2)
for ((r = 0; r < rounds; r++)); do
    for d in "${dists[@]}"; do
        rd="$d"; [[ $d == random ]] && rd=uniform
        read -r i c < <(rigel_row "$rd"); iops[rigel,$d]+=" $i"; cpuu[rigel,$d]+=" $c"
        read -r i c < <(fio_row "$d"); iops[fio,$d]+=" $i"; cpuu[fio,$d]+=" $c"
    done
done
median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "| distribution | rigel IOPS (CPU%) | fio IOPS (CPU%) | rigel / rigel uniform | fio / fio uniform |"
echo "|---|---|---|---|---|"
ru="$(median <<< "${iops[rigel,random]}")" fu="$(median <<< "${iops[fio,random]}")"
for d in "${dists[@]}"; do
    ri="$(median <<< "${iops[rigel,$d]}")" fi="$(median <<< "${iops[fio,$d]}")"
    rc="$(median <<< "${cpuu[rigel,$d]}")" fc="$(median <<< "${cpuu[fio,$d]}")"
    printf '| %s | %s (%s%%) | %s (%s%%) | %.2f | %.2f |\n' "$d" "$ri" "$rc" "$fi" "$fc" \
        "$(echo "$ri / $ru" | bc -l)" "$(echo "$fi / $fu" | bc -l)"
done
