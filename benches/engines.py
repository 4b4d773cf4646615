#!/usr/bin/env python3
"""IOPS per core of each of rigel's engines against its references, side by side in one run.

    python3 benches/engines.py [--rigel BIN] [--rounds 3] [--duration 3] [--cpu 1] [--only psync]

Rows: 4 KiB random reads at QD 1 and 32 of (a) a 256 MiB file on tmpfs (/dev/shm: the page
cache; opened O_DIRECT by every tool, which tmpfs serves from its pages, so libaio is measured
on it too) and (b) a loop device (--direct-io=on) over another tmpfs file, O_DIRECT.
Per engine, on the same rows:
  psync    rigel `engine = "psync"` (workers = QD: one thread per I/O)  vs fio ioengine=psync
           (numjobs = QD, thread)  and t/io_uring -S1 (preadv2, -n QD threads)
  libaio   rigel `engine = "libaio"`  vs fio ioengine=libaio  and t/io_uring -a1
  io_uring rigel `engine = "io_uring"`  vs fio ioengine=io_uring (fixedbufs, registerfiles)
           and t/io_uring (-B1 -F1)
Every tool is pinned to one CPU (taskset), runs warmup + duration seconds, and the rounds
alternate the tools. IOPS per core = IOPS / the cores the tool's own threads used inside its
measured window (/proc/PID/task/*/stat: rigel's, fio's or t/io_uring's threads; the loop
device's kworker and softirqs are not counted, the same for every tool). Prints a Markdown
table of medians over the rounds with the ratios (rigel / fio, rigel / t/io_uring).
Root only (loop device); needs fio, taskset and t/io_uring ($RIGEL_TIOURING, else
/work/shared/bench-tools/t-io_uring or ../shared/bench-tools/t-io_uring).
"""
import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import measured  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

SPEC = """[spec]
name = "engines"
description = "one engine benchmark row"

[[target]]
path = "{target}"

[run]
duration = "{duration_ms}ms"
warmup = "{warmup_ms}ms"
direct = true
workers = {workers}
seed = {seed}
engine = "{engine}"

[class.io]
size = "4096B"
access = "random"
mix = "read"

[matrix]
shape = "point"
io = "{qd}"
"""


def pinned(args, cmd):
    return ["taskset", "-c", args.cpu] + cmd


def release_rigel(args):
    """`--rigel`, else a release build of this checkout (built here)."""
    if not args.rigel:
        subprocess.run(["cargo", "build", "--release", "--quiet", "--bin", "rigel"], cwd=REPO,
                       check=True)
        target = os.environ.get("CARGO_TARGET_DIR", os.path.join(REPO, "target"))
        args.rigel = os.path.join(target, "release", "rigel")


def random_file(path, mib=256):
    """A file of random data (reads of never-written extents would touch no storage)."""
    with open(path, "wb") as f:
        for _ in range(mib):
            f.write(os.urandom(1 << 20))
    return path


def rigel_point(args, spec, target):
    """Runs `rigel run` on the spec text pinned to --cpu, CPU sampled inside its measured window:
    its one point (exits when it failed) and the cores its own threads used."""
    with tempfile.TemporaryDirectory(prefix="rigel-bench-") as tmp:
        path = os.path.join(tmp, "s.toml")
        with open(path, "w") as f:
            f.write(spec)
        out = os.path.join(tmp, "run")
        _, used = measured(pinned(args, [args.rigel, "run", path, "--out", out]),
                           args.warmup, args.duration, target)
        with open(os.path.join(out, "results.json")) as f:
            point = json.load(f)["points"][0]
    if point["status"]["state"] != "ok":
        sys.exit(f"rigel point failed: {point['status']}")
    return point, used["own_cores"]


def run_rigel(args, row):
    engine, qd = row["engine"], row["qd"]
    point, cores = rigel_point(args, SPEC.format(
        target=row["target"], duration_ms=int(args.duration * 1000),
        warmup_ms=int(args.warmup * 1000), engine=engine, qd=qd,
        # psync: one worker (one thread) per I/O, as fio's numjobs.
        workers=qd if engine == "psync" else 1, seed=random.getrandbits(31)), row["target"])
    ran = {e.get("name") for e in point.get("engines", [])}
    if ran and ran != {engine}:
        sys.exit(f"rigel ran {ran}, not {engine}")
    return point["classes"][0]["total"]["iops"], cores


def run_fio(args, row):
    engine, qd = row["engine"], row["qd"]
    if engine == "psync":
        depth = [f"--numjobs={qd}", "--thread", "--group_reporting"]
    else:
        depth = [f"--iodepth={qd}"]
        if engine == "io_uring":
            depth += ["--fixedbufs=1", "--registerfiles=1"]
    cmd = pinned(args, ["fio", "--name=bench", f"--filename={row['target']}",
                        f"--ioengine={engine}", "--direct=1", "--rw=randread", "--bs=4096",
                        *depth, "--randrepeat=0", "--invalidate=0", "--norandommap",
                        "--time_based", f"--runtime={args.duration}",
                        f"--ramp_time={args.warmup}", "--output-format=json"])
    out, used = measured(cmd, args.warmup, args.duration, row["target"])
    job = json.loads(out[out.index("{"):])["jobs"][0]["read"]
    return job["iops"], used["own_cores"]


def run_tiouring(args, row):
    engine, qd = row["engine"], row["qd"]
    if engine == "psync":
        # The sync path (preadv2), one I/O at a time per thread: QD threads.
        mode, threads, depth = ["-S1"], qd, 1
    else:
        mode, threads, depth = (["-a1"] if engine == "libaio" else ["-B1", "-F1"]), 1, qd
    batch = min(depth, 32)
    binary = args.tiouring_aio if engine == "libaio" else args.tiouring
    if not binary:
        return None
    cmd = pinned(args, [binary, "-b4096", f"-d{depth}", f"-s{batch}", f"-c{batch}",
                        "-p0", *mode, f"-n{threads}", "-O1",
                        f"-r{int(args.warmup + args.duration)}", *[row["target"]] * threads])
    out, used = measured(cmd, args.warmup, args.duration, row["target"])
    per_s = []
    for line in out.splitlines():
        if line.startswith("IOPS="):
            v = line.split("=", 1)[1].split(",", 1)[0]
            per_s.append(float(v.rstrip("KM")) * {"K": 1e3, "M": 1e6}.get(v[-1], 1))
    steady = per_s[1:-1] or per_s
    if not steady:
        sys.exit(f"t/io_uring printed no IOPS: {out}")
    return statistics.median(steady), used["own_cores"]


def setup(args, undo):
    shm = tempfile.mkdtemp(prefix="rigel-engines-", dir="/dev/shm")
    undo.append(lambda: subprocess.run(["rm", "-rf", shm]))
    targets = {}
    for name in ("pcache", "loopfile"):
        targets[name] = random_file(os.path.join(shm, f"{name}.img"))
    dev = subprocess.run(["losetup", "-f", "--show", "--direct-io=on", targets["loopfile"]],
                         capture_output=True, text=True, check=True).stdout.strip()
    undo.append(lambda: subprocess.run(["losetup", "-d", dev]))
    return [("page cache (tmpfs file)", targets["pcache"]), ("loop dev over tmpfs", dev)]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rigel", help="rigel binary (default: a release build of this checkout)")
    p.add_argument("--tiouring", default=os.environ.get("RIGEL_TIOURING"))
    p.add_argument("--tiouring-aio", default=os.environ.get("RIGEL_TIOURING_AIO"),
                   help="a t/io_uring built with libaio-dev (for -a1; default: --tiouring if "
                        "it has AIO)")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--duration", type=float, default=3.0)
    p.add_argument("--warmup", type=float, default=1.0)
    p.add_argument("--cpu", default="1")
    p.add_argument("--only", default="", help="comma-separated engines (psync,libaio,io_uring)")
    args = p.parse_args()
    if not args.tiouring:
        for c in ("/work/shared/bench-tools/t-io_uring",
                  os.path.join(REPO, "..", "shared", "bench-tools", "t-io_uring")):
            if os.path.exists(c):
                args.tiouring = c
                break
    if not args.tiouring:
        sys.exit("engines.py: no t/io_uring (--tiouring or $RIGEL_TIOURING)")
    if not args.tiouring_aio:
        with open(args.tiouring, "rb") as f:
            # A build without libaio says so when asked for -a1 (and has the sentence).
            if b"Legacy AIO not available" not in f.read():
                args.tiouring_aio = args.tiouring
        if not args.tiouring_aio:
            print("engines.py: this t/io_uring has no AIO (built without libaio-dev): the "
                  "libaio rows' t/io_uring column is left empty (--tiouring-aio)", file=sys.stderr)
    release_rigel(args)
    engines = [e for e in ("psync", "libaio", "io_uring")
               if not args.only or e in args.only.split(",")]
    undo = []
    try:
        rows = [dict(engine=e, qd=qd, target=t, label=f"{e} QD{qd} {label}")
                for label, t in setup(args, undo) for e in engines for qd in (1, 32)]
        tools = [("rigel", run_rigel), ("fio", run_fio), ("t/io_uring", run_tiouring)]
        got = {(r["label"], t): [] for r in rows for t, _ in tools}
        for k in range(args.rounds):
            for row in rows:
                # Alternated: round k starts with the k-th tool.
                for name, run in tools[k % 3:] + tools[:k % 3]:
                    r = run(args, row)
                    if r is None:
                        continue
                    iops, cores = r
                    got[(row["label"], name)].append((iops, iops / max(cores, 1e-9)))
                    print(f"round {k + 1} {row['label']} {name}: {iops:,.0f} IOPS, "
                          f"{iops / max(cores, 1e-9):,.0f} per core", file=sys.stderr)
        print("| row | rigel IOPS/core | fio | t/io_uring | rigel/fio | rigel/t/io_uring |")
        print("|---|---|---|---|---|---|")
        for row in rows:
            def med(t):
                v = got[(row["label"], t)]
                return f"{statistics.median(pc for _, pc in v):,.0f}" if v else "—"

            def ratio(t):
                pairs = list(zip(got[(row["label"], "rigel")], got[(row["label"], t)]))
                if not pairs:
                    return "—"
                rs = [r / f for (_, r), (_, f) in pairs]
                return f"{statistics.median(rs):.2f} ({min(rs):.2f}–{max(rs):.2f})"
            print(f"| {row['label']} | {med('rigel')} | {med('fio')} | {med('t/io_uring')} | "
                  f"{ratio('fio')} | {ratio('t/io_uring')} |")
    finally:
        for u in reversed(undo):
            u()


if __name__ == "__main__":
    main()
