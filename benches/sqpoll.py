#!/usr/bin/env python3
"""SQPOLL against fio's io_uring engine with `sqthread_poll=1`: IOPS per CPU, the kernel
submission thread's CPU counted for both, side by side in one run.

    python3 benches/sqpoll.py [--rigel BIN] [--rounds 3] [--duration 3] [--cpu 1] [--sq-cpu 0]

Rows: 4 KiB random reads at QD 1 and 32 of a 256 MiB file on tmpfs (/dev/shm), buffered: every
read is served from the page cache. rigel runs `sqpoll = true` (`sq_thread_cpu`, `sq_thread_idle
= "10ms"`, registered buffers and files, as always); fio `ioengine=io_uring sqthread_poll=1
sqthread_poll_cpu fixedbufs registerfiles` (fio keeps its own idle time; neither thread idles
while I/O flows). Each tool is
pinned to --cpu (taskset), its submission thread to --sq-cpu. IOPS per CPU = IOPS / the cores
the tool's threads used inside its measured window (/proc/PID/task/*/stat: since Linux 5.12 the
`iou-sqp-PID` thread is one of the process's own tasks, so its busy polling is counted; the
script checks that it is there). Rounds alternate the tools; the table holds the medians and the
ratio rigel / fio per round (median, min–max). Needs fio and taskset; root is not needed.
"""
import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import measured  # noqa: E402
from engines import pinned, random_file, release_rigel, rigel_point  # noqa: E402

SPEC = """[spec]
name = "sqpoll"
description = "one SQPOLL benchmark row"

[[target]]
path = "{target}"

[run]
duration = "{duration_ms}ms"
warmup = "{warmup_ms}ms"
direct = false
seed = {seed}
engine = "io_uring"
sqpoll = true
sq_thread_cpu = {sq_cpu}
sq_thread_idle = "10ms"

[class.io]
size = "4096B"
access = "random"
mix = "read"

[matrix]
shape = "point"
io = "{qd}"
"""


class SqThreadSeen:
    """Watches the tool's process tree for an `iou-sqp-*` task while it runs: the proof that
    the submission thread existed and sat among the tasks whose CPU is counted."""

    def __init__(self, name):
        self.name, self.seen, self.stop = name, False, False
        self.t = threading.Thread(target=self.watch, daemon=True)
        self.t.start()

    def watch(self):
        while not self.stop and not self.seen:
            for pid in os.listdir("/proc"):
                if not pid.isdigit():
                    continue
                try:
                    with open(f"/proc/{pid}/comm") as f:
                        if f.read().strip() != self.name:
                            continue
                    for tid in os.listdir(f"/proc/{pid}/task"):
                        with open(f"/proc/{pid}/task/{tid}/comm") as f:
                            if f.read().startswith("iou-sqp-"):
                                self.seen = True
                except OSError:
                    pass
            time.sleep(0.2)

    def done(self):
        self.stop = True
        self.t.join()
        return self.seen


def run_rigel(args, qd, target):
    seen = SqThreadSeen("rigel")
    point, cores = rigel_point(args, SPEC.format(
        target=target, duration_ms=int(args.duration * 1000), warmup_ms=int(args.warmup * 1000),
        qd=qd, sq_cpu=args.sq_cpu, seed=random.getrandbits(31)), target)
    if not seen.done():
        sys.exit("rigel: no iou-sqp thread seen among its tasks")
    if "sqpoll" not in point["engines"][0]["options"]:
        sys.exit(f"rigel ran without sqpoll: {point['engines']}")
    return point["classes"][0]["total"]["iops"], cores


def run_fio(args, qd, target):
    cmd = pinned(args, ["fio", "--name=bench", f"--filename={target}", "--ioengine=io_uring",
                        "--sqthread_poll=1", f"--sqthread_poll_cpu={args.sq_cpu}",
                        "--fixedbufs=1", "--registerfiles=1", "--direct=0", "--rw=randread",
                        "--bs=4096", f"--iodepth={qd}", "--randrepeat=0", "--invalidate=0",
                        "--norandommap", "--time_based", f"--runtime={args.duration}",
                        f"--ramp_time={args.warmup}", "--output-format=json"])
    seen = SqThreadSeen("fio")
    out, used = measured(cmd, args.warmup, args.duration, target)
    if not seen.done():
        sys.exit("fio: no iou-sqp thread seen among its tasks")
    job = json.loads(out[out.index("{"):])["jobs"][0]["read"]
    return job["iops"], used["own_cores"]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rigel", help="rigel binary (default: a release build of this checkout)")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--duration", type=float, default=3.0)
    p.add_argument("--warmup", type=float, default=1.0)
    p.add_argument("--cpu", default="1", help="the CPU each tool's own threads run on")
    p.add_argument("--sq-cpu", default="0", help="the CPU each submission thread polls on")
    args = p.parse_args()
    release_rigel(args)
    shm = tempfile.mkdtemp(prefix="rigel-sqpoll-", dir="/dev/shm")
    try:
        target = random_file(os.path.join(shm, "pcache.img"))
        tools = [("rigel", run_rigel), ("fio", run_fio)]
        rows = (1, 32)
        got = {(qd, t): [] for qd in rows for t, _ in tools}
        for k in range(args.rounds):
            for qd in rows:
                for name, run in tools[k % 2:] + tools[:k % 2]:
                    iops, cores = run(args, qd, target)
                    got[(qd, name)].append((iops, iops / max(cores, 1e-9), cores))
                    print(f"round {k + 1} QD{qd} {name}: {iops:,.0f} IOPS on {cores:.2f} "
                          f"cores, {iops / max(cores, 1e-9):,.0f} per core", file=sys.stderr)
        print("| 4 KiB random reads, page cache, SQPOLL | rigel IOPS | rigel cores | "
              "rigel IOPS/core | fio IOPS | fio cores | fio IOPS/core | rigel/fio per core |")
        print("|---|---|---|---|---|---|---|---|")
        for qd in rows:
            r, f = got[(qd, "rigel")], got[(qd, "fio")]

            def med(v, i, fmt):
                return format(statistics.median(x[i] for x in v), fmt)
            ratios = [a[1] / b[1] for a, b in zip(r, f)]
            print(f"| QD {qd} | {med(r, 0, ',.0f')} | {med(r, 2, '.2f')} | {med(r, 1, ',.0f')} | "
                  f"{med(f, 0, ',.0f')} | {med(f, 2, '.2f')} | {med(f, 1, ',.0f')} | "
                  f"{statistics.median(ratios):.2f} ({min(ratios):.2f}–{max(ratios):.2f}) |")
    finally:
        subprocess.run(["rm", "-rf", shm])


if __name__ == "__main__":
    main()
