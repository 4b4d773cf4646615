#!/usr/bin/env bash
# What `verify` costs (issue 30): IOPS per core of 4 KiB random writes and reads on a page-cache
# file (buffered, a 256 MiB file on /var/tmp held in the page cache), with `verify = true` against
# the same without, and an A/A control (the unverified run again, `false2`), the three rotated
# round by round in one run, pinned to one CPU. Reads are measured after
# a verified point that wrote the whole file, so every read is of a block written in the run and
# is checked. IOPS per core = IOPS / ((user + system CPU seconds) / window seconds), from
# results.json. The last lines give, per mode, the median over the rounds of on/off and of the
# A/A control's off2/off.
#
#   benches/verify.sh [--rounds N] [--duration SECONDS] [--qd N] [--cpu N] [--rigel PATH]
#
# Needs python3 and taskset; the file lives in /var/tmp/rigel-bench (RIGEL_BENCH_DIR).
set -euo pipefail

. "$(dirname "$0")/lib.sh"
work="${RIGEL_BENCH_DIR:-/var/tmp/rigel-bench}"
rounds=5
duration=3
qd=1
cpu=1
rigel=""
bench_args "rounds duration qd cpu rigel" "$@"
bench_need python3 taskset
bench_rigel
mkdir -p "$work"
bench_tmpdir out "${TMPDIR:-/tmp}/rigel-verify.XXXXXX"

# mode: write | read; verify: true | false
spec() {
    local mode="$1" verify="${2%2}" path="$out/$1-$2.toml"
    {
        printf '[[target]]\npath = "%s"\nsize = "256MiB"\n\n' "$work/verify-256m.img"
        printf '[run]\nduration = "%ss"\nwarmup = "500ms"\ndirect = false\nverify = %s\n\n' "$duration" "$verify"
        if [ "$mode" = read ]; then
            printf '[class.fill]\nsize = "1MiB"\naccess = "sequential"\nmix = "write"\nper_stream = 1\n\n'
            printf '[class.io]\nsize = "4KiB"\nmix = "read"\n\n'
            printf '[matrix]\nshape = "row"\nfill = "0, 1"\nio = "0, %s"\n' "$qd"
        else
            printf '[class.io]\nsize = "4KiB"\nmix = "write"\n\n[matrix]\nio = "%s"\n' "$qd"
        fi
    } >"$path"
    echo "$path"
}

figure() {
    # The `io` class alone: IOPS, IOPS per core, blocks checked and written.
    python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1] + "/results.json"))
# The point where `io` runs alone (reads: point 2, after point 1 wrote the whole file).
p = next(p for p in d["points"] if [c["class"] for c in p["classes"]] == ["io"])
c = p["classes"][0]
cores = (p["cpu"]["user_s"] + p["cpu"]["system_s"]) / p["elapsed_s"]
i = p.get("integrity") or {}
print(f'{c["total"]["iops"]:.0f} {c["total"]["iops"] / cores:.0f} {i.get("blocks_checked", 0)} {i.get("blocks_written", 0)}')
PY
}

printf 'round  mode   verify  IOPS      IOPS/core  blocks checked  blocks written\n'
table="$out/table"
for r in $(seq 1 "$rounds"); do
    for mode in write read; do
        # Rotate which goes first.
        case $((r % 3)) in
            1) order="false true false2" ;;
            2) order="true false2 false" ;;
            *) order="false2 false true" ;;
        esac
        for v in $order; do
            dir="$out/run-$r-$mode-$v"
            # The figures are in results.json; a report that failed to render does not change them.
            taskset -c "$cpu" "$rigel" run "$(spec "$mode" "$v")" --out "$dir" --quiet >/dev/null 2>&1 \
                || [ -s "$dir/results.json" ] \
                || { echo "$bench: rigel failed ($mode, verify $v)" >&2; exit 1; }
            read -r iops per_core checked written < <(figure "$dir")
            printf '%-6s %-6s %-7s %-9s %-10s %-15s %s\n' "$r" "$mode" "$v" "$iops" "$per_core" "$checked" "$written"
            echo "$r $mode $v $per_core" >>"$table"
        done
    done
done
python3 - "$table" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
per = {(r, m, v): float(c) for r, m, v, c in rows}
for mode in ("write", "read"):
    rounds = sorted({r for r, m, _ in per if m == mode}, key=int)
    on = [per[(r, mode, "true")] / per[(r, mode, "false")] for r in rounds]
    aa = [per[(r, mode, "false2")] / per[(r, mode, "false")] for r in rounds]
    print(f"{mode}: IOPS per core on/off median {statistics.median(on):.2f} "
          f"({' '.join(f'{x:.2f}' for x in on)}); A/A off2/off median {statistics.median(aa):.2f} "
          f"({' '.join(f'{x:.2f}' for x in aa)})")
PY
