#!/usr/bin/env python3
"""rigel and t/io_uring at the same time on one CPU: CPU per I/O compared under the same noise.

    python3 benches/corun.py --rigel BIN --tiouring T_IO_URING --file F [--qd 1,64] [--rounds 5]

Alternated runs (benches/run.sh) put each tool in a different few seconds of a shared host, and
this VM's speed drifts by ±15% from one second to the next: a per-round ratio then carries the
drift. Here both tools run at once, pinned to the same CPU, so whatever the host does, it does to
both. Each tool's CPU time over the common window is read from /proc (its threads, io-wq
included), and its I/Os from its own counters: rigel's results.json (its measured window lies
inside the common one) and t/io_uring's per-second IOPS lines over the same seconds. The figure
is IOPS per CPU-second of each, and their ratio: rigel's IOPS per core over t/io_uring's.
4 KiB buffered random reads of a file kept in the page cache, as benches/run.sh's page-cache rows.
"""
import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import SPEC, ensure_cached, pin_in_page_cache, tree_ticks  # noqa: E402


def one_round(args, qd):
    """Both tools at once; returns (rigel IOPS per core, t/io_uring IOPS per core, CPU shares)."""
    hz = os.sysconf("SC_CLK_TCK")
    batch = min(qd, 32)
    with tempfile.TemporaryDirectory(prefix="rigel-corun-") as tmp:
        spec = os.path.join(tmp, "s.toml")
        with open(spec, "w") as f:
            # compare.py's one-point spec: 4 KiB buffered random reads, one worker.
            f.write(SPEC.format(target=args.file, duration_ms=args.duration * 1000,
                                warmup_ms=1000, direct="false", buffers="pages", workers=1,
                                seed=random.getrandbits(31), bs=4096, access="random",
                                per_stream="", load=qd))
        # t/io_uring runs a second longer on each side of rigel (startup, 1 s warmup, window).
        tio = subprocess.Popen(
            ["taskset", "-c", args.cpu, args.tiouring, "-b4096", f"-d{qd}", f"-s{batch}",
             f"-c{batch}", "-p0", "-B1", "-F1", "-n1", "-O0", f"-r{args.duration + 3}", args.file],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(1.0)
        rigel = subprocess.Popen(["taskset", "-c", args.cpu, args.rigel, "run", spec, "--out",
                                  os.path.join(tmp, "run")],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        time.sleep(1.4)  # rigel's setup and warmup
        r0, t0, w0 = tree_ticks(rigel.pid), tree_ticks(tio.pid), time.monotonic()
        time.sleep(args.duration - 0.6)
        r1, t1, w1 = tree_ticks(rigel.pid), tree_ticks(tio.pid), time.monotonic()
        _, err = rigel.communicate()
        out, _ = tio.communicate()
        if rigel.returncode != 0:
            sys.exit(f"rigel failed: {err.strip()}")
        with open(os.path.join(tmp, "run", "results.json")) as f:
            rigel_iops = json.load(f)["points"][0]["classes"][0]["total"]["iops"]
    per_s = []
    for line in out.splitlines():
        if line.startswith("IOPS="):
            v = line.split("=", 1)[1].split(",", 1)[0]
            per_s.append(float(v.rstrip("KM")) * {"K": 1e3, "M": 1e6}.get(v[-1], 1))
    # Second k of t/io_uring's output covers [k-1, k) s after its start; rigel measured from
    # about 2.4 s to 2.4 + duration s.
    common = per_s[3:2 + args.duration]
    if not common:
        sys.exit(f"t/io_uring printed too few IOPS lines: {out}")
    tio_iops = statistics.median(common)
    secs = w1 - w0
    r_cores, t_cores = (r1 - r0) / hz / secs, (t1 - t0) / hz / secs
    return rigel_iops / r_cores, tio_iops / t_cores, (r_cores, t_cores)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rigel", required=True)
    p.add_argument("--tiouring", required=True)
    p.add_argument("--file", required=True, help="file read through the page cache")
    p.add_argument("--qd", default="1,64")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--duration", type=int, default=4, help="rigel's measured seconds")
    p.add_argument("--cpu", default="1")
    args = p.parse_args()
    pin_in_page_cache(args.file)
    print(f"| {os.path.basename(args.file)} | rounds | rigel IOPS/core | t/io_uring IOPS/core "
          "| ratio per round | median ratio | CPU shares (rigel, t/io_uring) |")
    print("|---|---|---|---|---|---|---|")
    for qd in (int(q) for q in args.qd.split(",")):
        rows = []
        for _ in range(args.rounds):
            ensure_cached(args.file)
            rows.append(one_round(args, qd))
        ratios = [r / t for r, t, _ in rows]
        shares = ", ".join(f"{s[0]:.2f}/{s[1]:.2f}" for _, _, s in rows)
        print(f"| QD {qd} | {len(rows)} | {statistics.median(r for r, _, _ in rows):,.0f} "
              f"| {statistics.median(t for _, t, _ in rows):,.0f} "
              f"| {' '.join(f'{x:.3f}' for x in ratios)} | {statistics.median(ratios):.3f} "
              f"| {shares} |", flush=True)


if __name__ == "__main__":
    main()
