#!/usr/bin/env python3
"""rigel and fio on the same device at the same time: does the device serve both alike?

    python3 benches/fidelity/coshare.py --rigel BIN --file F [--rounds 5] [--duration 5]

Alternated runs (benches/run.sh) put each tool in a different few seconds of a shared host, and
this VM's disk drifts by up to a factor of two within minutes: five alternated rounds
cannot tell a 5% difference between the tools from the host's mood. Here both tools read the
same file at once, each keeping the same number of I/Os in flight. The device (and whatever the
host puts behind it) then serves one queue holding both tools' requests: whatever it does, it
does to both. If the way a tool issues its I/O (bursts, request sizes, segments) made the device
serve that tool's I/O more slowly, it shows here as a lower IOPS and a higher mean latency for that
tool in the same seconds; if both issue alike, the ratios are 1 whatever the drift.

Each round: fio starts, then rigel half a second later, both pinned to CPU 1 by default (the CPU
that takes this disk's interrupts, as benches/run.sh pins them; `--cpus 0,1` gives each its own
CPU, swapped every round: at QD 1 the tool on the interrupts' CPU then measures up to 1.7x the
other). rigel measures a window after 1 s of warmup; fio logs its IOPS and mean latency every
second (wall-clock stamps), and only fio's seconds inside rigel's window count, so both figures
cover the same time. The depth column is each tool's own count (IOPS x mean latency).

Not a fidelity test for two sequential streams: the disk's I/O scheduler (mq-deadline here)
dispatches in sector order and can starve one of two sequential readers for the length of a
batch, whichever it is (docs/executor.md, "Two sequential readers").
"""
import argparse
import glob
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from compare import SPEC  # noqa: E402

# (name, block size, queue depth per tool, sequential)
WORKLOADS = [
    ("8K randread QD1", 8192, 1, False),
    ("8K randread QD16", 8192, 16, False),
    ("8K randread QD32", 8192, 32, False),
    ("1M randread QD4", 1 << 20, 4, False),
    ("1M seqread QD4", 1 << 20, 4, True),
]


def fio_seconds(prefix, start_ms, end_ms):
    """(I/Os, summed latency ns, seconds) over fio's one-second log entries lying inside [start,
    end] (ms since the epoch)."""
    def entries(kind):
        path = glob.glob(f"{prefix}_{kind}.*.log")[0]
        with open(path) as f:
            # time (ms since the epoch: log_unix_epoch), value, direction, block size, ...
            return [(int(r[0]), float(r[1])) for r in (line.split(",") for line in f) if r[0].strip()]
    iops, lat = entries("iops"), entries("lat")
    ios = total_ns = seconds = 0
    for stamp, n in iops:
        # An entry stamped t covers the second before t; 50 ms of slack for the stamps' rounding.
        if stamp - 1000 < start_ms - 50 or stamp > end_ms + 50:
            continue
        # The latency log's entry for the same second: fio stamps its two logs apart, up to
        # some tens of milliseconds on a busy CPU.
        near = min(lat, key=lambda e: abs(e[0] - stamp), default=None)
        if near and abs(near[0] - stamp) < 200:
            ios += n
            total_ns += n * near[1]
            seconds += 1
    return ios, total_ns, seconds


def one_round(args, bs, qd, seq, rnd):
    cpus = (args.cpus[0], args.cpus[1]) if rnd % 2 == 0 else (args.cpus[1], args.cpus[0])
    with tempfile.TemporaryDirectory(prefix="rigel-coshare-") as tmp:
        spec = os.path.join(tmp, "s.toml")
        with open(spec, "w") as f:
            f.write(SPEC.format(target=args.file, duration_ms=args.duration * 1000, warmup_ms=1000,
                                direct="true", buffers="pages", workers=1,
                                seed=random.getrandbits(31), bs=f"{bs}",
                                access="sequential" if seq else "random",
                                per_stream=f"per_stream = {qd}\n" if seq else "",
                                load=1 if seq else qd))
        prefix = os.path.join(tmp, "fio")
        fio = subprocess.Popen(
            ["taskset", "-c", cpus[1], "fio", "--name=co", f"--filename={args.file}",
             "--ioengine=io_uring", "--direct=1", f"--rw={'read' if seq else 'randread'}",
             f"--bs={bs}", f"--iodepth={qd}", "--fixedbufs=1", "--registerfiles=1",
             # Sequential: fio reads the file's second half, rigel's stream starts at its
             # beginning, so the two streams never read the same blocks.
             *(["--offset=50%"] if seq else []),
             "--randrepeat=0", "--invalidate=0", "--time_based",
             f"--runtime={args.duration + 4}", f"--write_iops_log={prefix}",
             f"--write_lat_log={prefix}", "--log_avg_msec=1000", "--log_unix_epoch=1",
             "--output-format=json"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(0.5)  # fio's setup: its first logged second then covers I/O
        rigel = subprocess.run(
            ["taskset", "-c", cpus[0], args.rigel, "run", spec, "--out", os.path.join(tmp, "run")],
            capture_output=True, text=True)
        _, err = fio.communicate()
        if rigel.returncode != 0 or fio.returncode != 0:
            sys.exit(f"a tool failed: rigel {rigel.stderr.strip()} fio {err.strip()}")
        with open(os.path.join(tmp, "run", "results.json")) as f:
            point = json.load(f)["points"][0]
        window = point["window"]
        start_ms, end_ms = window["start_ns"] / 1e6, window["end_ns"] / 1e6
        fio_ios, fio_ns, seconds = fio_seconds(prefix, start_ms, end_ms)
        if fio_ios == 0:
            logs = {os.path.basename(g): open(g).read() for g in glob.glob(prefix + "_*.log")}
            sys.exit(f"fio logged no second inside rigel's window {start_ms}-{end_ms}: {logs}")
    total = point["classes"][0]["total"]
    r_iops, r_mean = total["iops"], total["latency"]["mean_ns"]
    f_iops, f_mean = fio_ios / seconds, fio_ns / fio_ios
    return {"rigel": (r_iops, r_mean), "fio": (f_iops, f_mean), "cpus": cpus}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rigel", required=True)
    p.add_argument("--file", required=True, help="a file on the device (read only, O_DIRECT)")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--duration", type=int, default=5, help="rigel's measured seconds")
    p.add_argument("--cpus", default="1,1",
                   help="rigel's and fio's CPUs (swapped every round when they differ); both on "
                        "CPU 1 by default, as benches/run.sh: the CPU taking the disk's interrupts")
    p.add_argument("--verbose", action="store_true", help="every round on stderr")
    p.add_argument("--only", help="comma-separated substrings of workload names")
    args = p.parse_args()
    args.cpus = args.cpus.split(",")
    print("| same device, same seconds | QD each | rigel IOPS | fio IOPS | rigel / fio IOPS "
          "| rigel / fio mean latency | own depth rigel, fio | rounds |")
    print("|---|---|---|---|---|---|---|---|")
    for name, bs, qd, seq in WORKLOADS:
        if args.only and not any(o in name for o in args.only.split(",")):
            continue
        rows = [one_round(args, bs, qd, seq, rnd) for rnd in range(args.rounds)]
        if args.verbose:
            for r in rows:
                print(f"  {name}: rigel on CPU {r['cpus'][0]} {r['rigel'][0]:.0f} IOPS "
                      f"{r['rigel'][1] / 1e3:.1f} µs, fio on CPU {r['cpus'][1]} "
                      f"{r['fio'][0]:.0f} IOPS {r['fio'][1] / 1e3:.1f} µs", file=sys.stderr)
        iops = [r["rigel"][0] / r["fio"][0] for r in rows]
        lat = [r["rigel"][1] / r["fio"][1] for r in rows]

        def show(v):
            return f"{statistics.median(v):.3f} ({min(v):.2f}–{max(v):.2f})"

        def depth(tool):
            return statistics.median(r[tool][0] * r[tool][1] / 1e9 for r in rows)
        print(f"| {name} | {qd} | {statistics.median(r['rigel'][0] for r in rows):.0f} "
              f"| {statistics.median(r['fio'][0] for r in rows):.0f} | {show(iops)} | {show(lat)} "
              f"| {depth('rigel'):.1f}, {depth('fio'):.1f} | {len(rows)} |", flush=True)


if __name__ == "__main__":
    main()
