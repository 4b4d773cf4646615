#!/usr/bin/env bash
# `rigel fio JOB` against `fio JOB`, the same job file, in each rw mode rigel fio translates
# (read, write, randread, randwrite, rw, randrw) at QD 1 and 32, 4 KiB O_DIRECT io_uring, on a
# loop device (`--direct-io=on`) over a tmpfs file filled with random data. Each round runs fio,
# rigel, fio again back to back (the A/A control: fio again / fio is the protocol's own noise),
# rounds rotate nothing else; both tools pinned to the same CPU. Prints a Markdown table of the
# medians over rounds and appends every run to RAW (default /tmp/fio_modes.jsonl).
#
#   bash benches/fio_modes.sh [--rounds 3] [--duration 3] [--cpu 1] [--rigel PATH] [--modes "read write"]
#
# Root only (loop devices). The tmpfs file is 1 GiB of /dev/shm, removed at the end.

set -euo pipefail
. "$(dirname "$0")/lib.sh"

rounds=3
duration=3
cpu=1
modes="read write randread randwrite rw randrw"
qds="1 32"
raw=/tmp/fio_modes.jsonl
bench_args "rounds duration cpu rigel modes qds raw" "$@"
bench_need fio losetup taskset python3
[ "$(id -u)" = 0 ] || bench_die "needs root (a loop device)"
bench_rigel

bench_tmpdir work /dev/shm/rigel-fio-modes.XXXXXX
img="$work/dev.img"
# Random data: reads of never-written extents would touch no storage.
head -c $((1 << 30)) /dev/urandom >"$img"
bench_loop dev "$img"

# run_fio JOB OUT.json; run_rigel JOB DIR
run_fio() {
    taskset -c "$cpu" fio --output-format=json --output="$2" --filename="$dev" "$1" >/dev/null
}
run_rigel() {
    taskset -c "$cpu" "$rigel" fio "$1" --set "filename=$dev" --allow-destructive --out "$2" -q \
        >/dev/null
}

for rw in $modes; do
    for qd in $qds; do
        job="$work/$rw-$qd.fio"
        printf '[global]\nioengine=io_uring\ndirect=1\nruntime=%s\nramp_time=1\ntime_based\nbs=4k\nnorandommap\nrandrepeat=0\n\n[j]\nrw=%s\niodepth=%s\n' \
            "$duration" "$rw" "$qd" >"$job"
        for ((r = 1; r <= rounds; r++)); do
            run_fio "$job" "$work/fio-a.json"
            rm -rf "$work/rigel"
            run_rigel "$job" "$work/rigel"
            run_fio "$job" "$work/fio-b.json"
            python3 - "$rw" "$qd" "$r" "$work" "$raw" <<'EOF'
import json, sys
rw, qd, r, work, raw = sys.argv[1:6]
def fio(p):
    j = json.load(open(p))["jobs"][0]
    return j["read"]["iops"] + j["write"]["iops"]
doc = json.load(open(f"{work}/rigel/results.json"))
rigel = doc["points"][0]["classes"][0]["total"]["iops"]
row = {"rw": rw, "qd": int(qd), "round": int(r), "fio": fio(f"{work}/fio-a.json"),
       "rigel": rigel, "fio_again": fio(f"{work}/fio-b.json")}
open(raw, "a").write(json.dumps(row) + "\n")
EOF
        done
    done
done

python3 - "$raw" "$rounds" "$modes" "$qds" <<'EOF'
import json, statistics, sys
raw, rounds, modes, qds = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), sys.argv[4].split()
rows = [json.loads(l) for l in open(raw)]
print("| rw | QD | fio IOPS | rigel IOPS | fio again IOPS | rigel / fio (min–max) | fio again / fio (A/A) | rigel / √(fio · fio again) |")
print("|---|---|---|---|---|---|---|---|")
for rw in modes:
    for qd in map(int, qds):
        rs = [x for x in rows if x["rw"] == rw and x["qd"] == qd][-rounds:]
        if not rs:
            continue
        med = lambda k: statistics.median(x[k] for x in rs)
        ratio = [x["rigel"] / x["fio"] for x in rs]
        aa = [x["fio_again"] / x["fio"] for x in rs]
        geo = [x["rigel"] / (x["fio"] * x["fio_again"]) ** 0.5 for x in rs]
        print(f"| {rw} | {qd} | {med('fio'):.0f} | {med('rigel'):.0f} | {med('fio_again'):.0f} | "
              f"{statistics.median(ratio):.3f} ({min(ratio):.2f}–{max(ratio):.2f}) | "
              f"{statistics.median(aa):.3f} | {statistics.median(geo):.3f} |")
EOF
