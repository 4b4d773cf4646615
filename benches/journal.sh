#!/usr/bin/env bash
# What the journal (`journal = true`, issue 30) costs: IOPS and IOPS per core of verified 4 KiB
# random writes with the journal and without, and an A/A control (without again, `false2`), the
# three rotated round by round in one run, pinned to one CPU, the run folder (so journal.map) on
# the root disk. Two targets:
#   tmpfs   a 1 GiB file on /dev/shm (O_DIRECT): the target costs the root disk nothing, so the
#           root disk's written sectors are the journal's write-back alone;
#   rootfs  a 1 GiB O_DIRECT test file rigel creates under $RIGEL_BENCH_DIR (default
#           /work/tmp-bench) on the root disk itself (a file, never the device): the journal's
#           write-back competes with the target's writes.
# The root disk's written bytes come from its own counters (/sys/block/DEV/stat), not from rigel.
#
#   benches/journal.sh [--rounds N] [--duration SECONDS] [--qd N] [--cpu N] [--only tmpfs|rootfs]
#                      [--rigel PATH]
#
# The last lines give, per target, the median over the rounds of IOPS with/without the journal
# and of the A/A control's false2/false.
#
# Needs python3 and taskset.
set -euo pipefail

. "$(dirname "$0")/lib.sh"
work="${RIGEL_BENCH_DIR:-/work/tmp-bench}"
only="tmpfs rootfs"
rounds=3
duration=5
qd=8
cpu=1
rigel=""
bench_args "rounds duration qd cpu only rigel" "$@"
targets="$only"
bench_need python3 taskset
bench_rigel
mkdir -p "$work"
bench_tmpdir shm /dev/shm/rigel-journal.XXXXXX
bench_tmpdir out "$work/runs.XXXXXX"
# The root disk: the block device holding $work (its whole disk's counters).
dev="$(findmnt -no SOURCE -T "$work" | sed 's|/dev/||')"
disk="$(basename "$(readlink -f "/sys/class/block/$dev/..")")"
[ -e "/sys/block/$disk/stat" ] || disk="$dev"
written() { echo $(( $(awk '{print $7}' "/sys/block/$disk/stat") * 512 )); }

spec() {
    local where="$1" journal="${2%2}" path="$out/$1-$2.toml" file
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
table="$out/table"
for r in $(seq 1 "$rounds"); do
    for where in $targets; do
        case $((r % 3)) in
            1) order="false true false2" ;;
            2) order="true false2 false" ;;
            *) order="false2 false true" ;;
        esac
        for j in $order; do
            dir="$out/run-$r-$where-$j"
            before="$(written)"
            taskset -c "$cpu" "$rigel" run "$(spec "$where" "$j")" --out "$dir" --quiet >/dev/null 2>&1 \
                || [ -s "$dir/results.json" ] \
                || { echo "$bench: rigel failed ($where, journal $j)" >&2; exit 1; }
            after="$(written)"
            read -r iops per_core p99 < <(figure "$dir")
            size="$(stat -c %s "$dir/journal.map" 2>/dev/null || echo 0)"
            printf '%-6s %-7s %-8s %-9s %-10s %-8s %-18s %s\n' "$r" "$where" "$j" "$iops" "$per_core" "$p99" \
                "$(( (after - before) / 1048576 )) MiB" "$(( size / 1024 )) KiB"
            echo "$r $where $j $iops" >>"$table"
        done
    done
done
python3 - "$table" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
iops = {(r, w, j): float(x) for r, w, j, x in rows}
for where in sorted({w for _, w, _ in iops}):
    rounds = sorted({r for r, w, _ in iops if w == where}, key=int)
    on = [iops[(r, where, "true")] / iops[(r, where, "false")] for r in rounds]
    aa = [iops[(r, where, "false2")] / iops[(r, where, "false")] for r in rounds]
    print(f"{where}: IOPS journal/none median {statistics.median(on):.2f} "
          f"({' '.join(f'{x:.2f}' for x in on)}); A/A false2/false median "
          f"{statistics.median(aa):.2f} ({' '.join(f'{x:.2f}' for x in aa)})")
PY
rm -f "$work/journal-1g.img"
