#!/usr/bin/env bash
# What the journal (`journal = true`, issue 30) costs: IOPS and IOPS per core of verified 4 KiB
# random writes with the journal and without, the two alternated round by round (A/A control: the
# spread between rounds of one setting), pinned to one CPU, the run folder (so journal.map) on
# the root disk. Two targets:
#   tmpfs   a 1 GiB file on /dev/shm (O_DIRECT): the target costs the root disk nothing, so the
#           root disk's written sectors are the journal's write-back alone;
#   rootfs  a 1 GiB O_DIRECT file under $RIGEL_BENCH_DIR (default /work/rigel-bench) on the root
#           disk itself: the journal's write-back competes with the target's writes.
# The root disk's written bytes come from its own counters (/sys/block/DEV/stat), not from rigel.
#
#   benches/journal.sh [--rounds N] [--duration SECONDS] [--qd N] [--cpu N] [--rigel PATH]
#
# Needs python3 and taskset.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(dirname "$here")"
work="${RIGEL_BENCH_DIR:-/work/rigel-bench}"
rounds=3
duration=5
qd=8
cpu=1
rigel=""
while [ $# -gt 0 ]; do
    case "$1" in
        --rounds) rounds="$2"; shift 2 ;;
        --duration) duration="$2"; shift 2 ;;
        --qd) qd="$2"; shift 2 ;;
        --cpu) cpu="$2"; shift 2 ;;
        --rigel) rigel="$2"; shift 2 ;;
        *) echo "journal.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
if [ -z "$rigel" ]; then
    (cd "$repo" && cargo build --release --quiet --bin rigel)
    rigel="${CARGO_TARGET_DIR:-$repo/target}/release/rigel"
fi
mkdir -p "$work"
shm="$(mktemp -d /dev/shm/rigel-journal.XXXXXX)"
out="$(mktemp -d "$work/runs.XXXXXX")"
trap 'rm -rf "$out" "$shm"' EXIT
# The root disk: the block device holding $work (its whole disk's counters).
dev="$(findmnt -no SOURCE -T "$work" | sed 's|/dev/||')"
disk="$(basename "$(readlink -f "/sys/class/block/$dev/..")")"
[ -e "/sys/block/$disk/stat" ] || disk="$dev"
written() { echo $(( $(awk '{print $7}' "/sys/block/$disk/stat") * 512 )); }

spec() {
    local where="$1" journal="$2" path="$out/$1-$2.toml" file
    if [ "$where" = tmpfs ]; then file="$shm/journal-1g.img"; else file="$work/journal-1g.img"; fi
    {
        printf '[[target]]\npath = "%s"\nsize = "1GiB"\n\n' "$file"
        printf '[run]\nduration = "%ss"\nwarmup = "500ms"\nverify = true\njournal = %s\n\n' "$duration" "$journal"
        printf '[class.io]\nsize = "4KiB"\nmix = "write"\n\n[matrix]\nio = "%s"\n' "$qd"
    } >"$path"
    echo "$path"
}

figure() {
    python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1] + "/results.json"))
p = d["points"][-1]
c = p["classes"][0]
cores = (p["cpu"]["user_s"] + p["cpu"]["system_s"]) / p["elapsed_s"]
print(f'{c["total"]["iops"]:.0f} {c["total"]["iops"] / cores:.0f} {c["total"]["latency"]["p99_ns"] / 1000:.1f}')
PY
}

printf 'round  target  journal  IOPS      IOPS/core  p99 µs   root disk written  journal.map\n'
for r in $(seq 1 "$rounds"); do
    for where in tmpfs rootfs; do
        if [ $((r % 2)) -eq 1 ]; then order="false true"; else order="true false"; fi
        for j in $order; do
            dir="$out/run-$r-$where-$j"
            before="$(written)"
            taskset -c "$cpu" "$rigel" run "$(spec "$where" "$j")" --out "$dir" --quiet >/dev/null 2>&1 \
                || [ -s "$dir/results.json" ] \
                || { echo "journal.sh: rigel failed ($where, journal $j)" >&2; exit 1; }
            after="$(written)"
            read -r iops per_core p99 < <(figure "$dir")
            size="$(stat -c %s "$dir/journal.map" 2>/dev/null || echo 0)"
            printf '%-6s %-7s %-8s %-9s %-10s %-8s %-18s %s\n' "$r" "$where" "$j" "$iops" "$per_core" "$p99" \
                "$(( (after - before) / 1048576 )) MiB" "$(( size / 1024 )) KiB"
        done
    done
done
rm -f "$work/journal-1g.img"
