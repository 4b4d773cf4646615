#!/usr/bin/env python3
"""What the host's steal does to each tool's depth at the device, second by second.

    python3 benches/fidelity/steal.py --rigel BIN --file F [--tiouring T] [--fio-batched]
                                      [--qd 16] [--seconds 30] [--rounds 2]

This VM's virtual CPUs lose time to the host ("steal" in /proc/stat), by 0 to 0.8 of a core
and for tens of seconds at a time. A tool that enters the kernel once per I/O loses more to
that than one that submits a batch per entry: fio's io_uring engine submits each I/O in its own
io_uring_enter, and each is a notification of the virtio queue. This runs each tool alone for
`--seconds` (8 KiB random O_DIRECT reads at `--qd`, pinned to `--cpu`), tools alternated round
after round, and every half second samples the device's reads, the time they spent in the
block layer (Little's law: the mean depth at the device) and the steal over all CPUs. It prints
each tool's half-seconds split by steal: if fio's depth falls with steal while rigel's and
t/io_uring's do not, the QD 16/32 gap in benches/run.sh's table is the host's, through fio's
submission habit, not the device serving rigel differently (docs/executor.md, "fio under the host's steal").
"""
import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import devstat  # noqa: E402
from compare import SPEC, read_stat  # noqa: E402

# Steal, cores: a half-second below QUIET is quiet, from BUSY up busy.
QUIET, BUSY = devstat.QUIET, 0.3


def commands(args, tmp):
    spec = os.path.join(tmp, "s.toml")
    with open(spec, "w") as f:
        f.write(SPEC.format(target=args.file, duration_ms=(args.seconds + 2) * 1000, warmup_ms=0,
                            direct="true", buffers="pages", workers=1,
                            seed=random.getrandbits(31), bs=8192, access="random",
                            per_stream="", load=args.qd))
    batch = min(args.qd, 32)
    cmds = {
        # rigel refuses an --out that holds a run: the caller gives each run its own.
        "rigel": [args.rigel, "run", spec, "--out"],
        "fio": ["fio", "--name=steal", f"--filename={args.file}", "--ioengine=io_uring",
                "--direct=1", "--rw=randread", "--bs=8192", f"--iodepth={args.qd}",
                "--fixedbufs=1", "--registerfiles=1", "--randrepeat=0", "--invalidate=0",
                "--time_based", f"--runtime={args.seconds + 2}"],
    }
    if args.fio_batched:
        # The same fio, submitting a whole queue's worth per io_uring_enter: the A/B on the
        # submission habit alone.
        cmds["fio, batched"] = cmds["fio"] + [f"--iodepth_batch_submit={args.qd}",
                                              f"--iodepth_batch_complete_max={args.qd}"]
    if args.tiouring:
        cmds["t/io_uring"] = [args.tiouring, "-b8192", f"-d{args.qd}", f"-s{batch}",
                              f"-c{batch}", "-p0", "-B1", "-F1", "-n1", "-O1", "-R1",
                              f"-r{args.seconds + 2}", args.file]
    return cmds


def sample_run(cmd, args, dev):
    """Runs cmd pinned; returns [(reads per s, depth, steal cores)] per half second, the first
    second (start-up) left out."""
    hz = os.sysconf("SC_CLK_TCK")
    proc = subprocess.Popen(["taskset", "-c", args.cpu] + cmd, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    time.sleep(1.0)
    d0, (_, s0), t0 = devstat.sample(dev), read_stat(), time.monotonic()
    out = []
    for _ in range(args.seconds * 2):
        time.sleep(0.5)
        d1, (_, s1), t1 = devstat.sample(dev), read_stat(), time.monotonic()
        out.append(((d1[0] - d0[0]) / (t1 - t0), devstat.mean_depth(d0, d1, t1 - t0),
                    (s1 - s0) / hz / (t1 - t0)))
        d0, s0, t0 = d1, s1, t1
    proc.kill()
    _, err = proc.communicate()
    if proc.returncode not in (0, -9):
        sys.exit(f"{cmd} failed ({proc.returncode}): {err.strip()}")
    return out


def summary(samples, lo, hi):
    got = [s for s in samples if lo <= s[2] < hi]
    if not got:
        return "—"
    return (f"{statistics.median(s[0] for s in got) / 1000:.1f}K IOPS, depth "
            f"{statistics.median(s[1] for s in got):.1f} ({len(got)})")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rigel", required=True)
    p.add_argument("--file", required=True, help="a file on the disk under test")
    p.add_argument("--tiouring", help="fio's t/io_uring: a third tool where given")
    p.add_argument("--fio-batched", action="store_true",
                   help="add fio with iodepth_batch_submit = the queue depth")
    p.add_argument("--qd", type=int, default=16)
    p.add_argument("--seconds", type=int, default=30)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--cpu", default="1")
    args = p.parse_args()
    dev = devstat.stat_path(args.file)
    if dev is None:
        sys.exit(f"{args.file} is on no block device")
    per = {}
    with tempfile.TemporaryDirectory(prefix="rigel-steal-") as tmp:
        cmds = commands(args, tmp)
        tools = list(cmds)
        for rnd in range(args.rounds):
            for tool in tools[rnd % len(tools):] + tools[:rnd % len(tools)]:
                cmd = cmds[tool] + ([os.path.join(tmp, f"out{rnd}")] if tool == "rigel" else [])
                s = sample_run(cmd, args, dev)
                per.setdefault(tool, []).extend(s)
                print(f"  round {rnd + 1} {tool}: K IOPS " + " ".join(f"{x[0] / 1000:.0f}" for x in s)
                      + "\n      depth " + " ".join(f"{x[1]:.0f}" for x in s)
                      + "\n      steal " + " ".join(f"{x[2]:.1f}" for x in s), file=sys.stderr)
    print(f"8 KiB random reads, QD {args.qd}, {args.file}, CPU {args.cpu}: medians over the "
          f"half-seconds (how many in brackets) by the host's steal over all CPUs")
    print()
    print(f"| tool | steal < {QUIET} core | {QUIET}–{BUSY} | ≥ {BUSY} |")
    print("|---|---|---|---|")
    for tool, s in per.items():
        print(f"| {tool} | {summary(s, 0, QUIET)} | {summary(s, QUIET, BUSY)}"
              f" | {summary(s, BUSY, float('inf'))} |")


if __name__ == "__main__":
    main()
