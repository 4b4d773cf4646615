#!/usr/bin/env python3
"""rigel's executor and fio's io_uring engine side by side: the same workloads, the tools
alternated round after round with the same CPU pinning, medians of the paired ratios.

CPU is counted over the whole machine (/proc/stat: total minus idle, iowait and steal) while the
tool's measured window runs: io_uring's io-wq workers, the loop device's kworker and softirqs carry
much of the cost, and neither tool's own rusage sees them. Run by benches/run.sh, which builds rigel's
harness and prepares the targets; see benches/README.md.
"""

import argparse
import ctypes
import json
import mmap
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

import bars
import control
import devstat
from ratios import per_core, ratios, show


def read_stat():
    """(busy, steal) jiffies over all CPUs. Steal is time the host gave this VM's virtual CPUs to
    something else: not CPU either tool used, so not busy, but reported beside the figures because
    it slows whatever the tool does per system call (docs/executor.md, "fio under the host's steal")."""
    with open("/proc/stat") as f:
        # user nice system idle iowait irq softirq steal
        user, nice, system, _idle, _iowait, irq, softirq, steal = (
            int(x) for x in f.readline().split()[1:9])
    return user + nice + system + irq + softirq, steal


def tree_ticks(root):
    """utime + stime clock ticks of every thread (io_uring's io-wq workers included) of `root`
    and its descendants (fio runs its job in a child process)."""
    pids, total = [root], 0
    while pids:
        pid = pids.pop()
        try:
            for tid in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{tid}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                total += int(fields[11]) + int(fields[12])
                with open(f"/proc/{pid}/task/{tid}/children") as f:
                    pids.extend(int(c) for c in f.read().split())
        except (FileNotFoundError, ProcessLookupError):
            pass
    return total


def measured(cmd, warmup, duration, target, margin=0.2):
    """Runs cmd, sampling CPU (and the target's block device) inside its measured window. Returns
    (stdout, figures averaged over the sampled window: busy cores over the whole machine, cores
    used by the tool's own threads, cores the host stole, and the mean depth at the device, None
    on tmpfs)."""
    hz = os.sysconf("SC_CLK_TCK")
    dev = devstat.stat_path(target)
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(warmup + margin)
    b0, s0 = read_stat()
    p0 = tree_ticks(proc.pid)
    d0 = devstat.sample(dev)
    t0 = time.monotonic()
    time.sleep(duration - 2 * margin)
    b1, s1 = read_stat()
    p1 = tree_ticks(proc.pid)
    d1 = devstat.sample(dev)
    t1 = time.monotonic()
    out, err = proc.communicate()
    if proc.returncode != 0:
        sys.exit(f"{cmd} failed ({proc.returncode}): {err.strip()}")
    return out, {"cores": (b1 - b0) / hz / (t1 - t0), "own_cores": (p1 - p0) / hz / (t1 - t0),
                 "steal": (s1 - s0) / hz / (t1 - t0), "depth": devstat.mean_depth(d0, d1, t1 - t0)}


def pinned(args, cmd, cpus=None):
    """The same pinning (and, with --rt, the same real-time priority) for both tools."""
    prefix = ["taskset", "-c", cpus or args.cpu]
    if args.rt:
        prefix = ["chrt", "-f", "10"] + prefix
    return prefix + cmd


SPEC = """[spec]
name = "bench"
description = "one benchmark workload"

[[target]]
path = "{target}"

[run]
duration = "{duration_ms}ms"
warmup = "{warmup_ms}ms"
direct = {direct}
buffers = "{buffers}"
workers = {workers}
seed = {seed}

[class.io]
size = "{bs}B"
access = "{access}"
mix = "read"
{per_stream}
[matrix]
shape = "point"
io = "{load}"
"""


def run_rigel(args, w):
    """`rigel run` on a one-point spec; figures from the run folder's results.json."""
    with tempfile.TemporaryDirectory(prefix="rigel-bench-") as tmp:
        spec = os.path.join(tmp, "bench.toml")
        with open(spec, "w") as f:
            f.write(SPEC.format(
                target=w["target"], duration_ms=int(args.duration * 1000),
                warmup_ms=int(args.warmup * 1000), direct="true" if w["direct"] else "false",
                buffers="huge" if w.get("huge") else "pages",
                bs=w["bs"], access="sequential" if w["seq"] else "random",
                # Sequential: one stream carrying the whole queue depth, as fio's rw=read.
                per_stream=f"per_stream = {w['qd']}\n" if w["seq"] else "",
                load=1 if w["seq"] else w["qd"], workers=w.get("workers", 1),
                # A new seed each run, as fio's randrepeat=0: the same offsets run after run
                # would be served from whatever cache sits under the target.
                seed=random.getrandbits(31)))
        out = os.path.join(tmp, "run")
        cmd = pinned(args, [args.rigel, "run", spec, "--out", out], w.get("cpus"))
        _, used = measured(cmd, args.warmup, args.duration, w["target"])
        with open(os.path.join(out, "results.json")) as f:
            point = json.load(f)["points"][0]
    if point["status"]["state"] != "ok":
        sys.exit(f"rigel point failed: {point['status']}")
    t = point["classes"][0]["total"]
    return {"iops": t["iops"], "mean_ns": t["latency"]["mean_ns"], "p99_ns": t["latency"]["p99_ns"],
            **used}


def run_fio(args, w):
    cmd = pinned(args, ["fio", "--name=bench", f"--filename={w['target']}",
           "--ioengine=io_uring", f"--direct={1 if w['direct'] else 0}",
           f"--rw={'read' if w['seq'] else 'randread'}", f"--bs={w['bs']}",
           f"--iodepth={w['qd']}", "--fixedbufs=1", "--registerfiles=1",
           # Keep the page cache fio would otherwise drop before the job.
           "--randrepeat=0", "--invalidate=0",
           # fio's default random map (each block once per pass) costs fio CPU; --norandommap
           # draws offsets with replacement, as rigel does.
           *(["--norandommap"] if args.norandommap else []),
           # Huge-page rows: both tools' buffers in 2 MiB pages (rigel `buffers = "huge"`), so
           # every 1 MiB I/O is one physically contiguous segment whatever the allocator's state.
           *(["--iomem=mmaphuge"] if w.get("huge") else []),
           "--time_based", f"--runtime={args.duration}", f"--ramp_time={args.warmup}",
           "--lat_percentiles=1", "--output-format=json"])
    out, used = measured(cmd, args.warmup, args.duration, w["target"])
    job = json.loads(out[out.index("{"):])["jobs"][0]["read"]
    return {"iops": job["iops"], "mean_ns": job["lat_ns"]["mean"],
            "p99_ns": job["lat_ns"]["percentile"]["99.000000"], **used}


def run_tiouring(args, w):
    """fio's t/io_uring (no latency tracking): the reference for what io_uring does here. It prints
    `IOPS=…` once a second; the median of the steady seconds (first and last dropped) counts."""
    # -d is per thread: the queue depth is dealt out as rigel deals it to its workers.
    threads = w.get("workers", 1)
    qd = w["qd"] // threads
    batch = min(qd, 32)
    cmd = pinned(args, [args.tiouring, f"-b{w['bs']}", f"-d{qd}", f"-s{batch}", f"-c{batch}",
                        "-p0", "-B1", "-F1", f"-n{threads}", f"-O{1 if w['direct'] else 0}",
                        f"-R{0 if w['seq'] else 1}", f"-r{int(args.warmup + args.duration)}",
                        *[w["target"]] * threads], w.get("cpus"))
    out, used = measured(cmd, args.warmup, args.duration, w["target"])
    per_s = []
    for line in out.splitlines():
        if line.startswith("IOPS="):
            v = line.split("=", 1)[1].split(",", 1)[0]
            mult = {"K": 1e3, "M": 1e6}.get(v[-1], 1)
            per_s.append(float(v.rstrip("KM")) * mult)
    steady = per_s[1:-1] or per_s
    if not steady:
        sys.exit(f"t/io_uring printed no IOPS: {out}")
    iops = statistics.median(steady)
    # No latency tracking: Little's law gives the mean from the queue depth it keeps.
    return {"iops": iops, "mean_ns": w["qd"] / iops * 1e9, "p99_ns": float("nan"), **used}


def pin_in_page_cache(path):
    """Maps the file and mlocks the mapping for the rest of this process: its pages stay in the
    page cache (proactive reclaim such as DAMON would otherwise evict cold pages mid-run)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                          ctypes.c_int, ctypes.c_long]
    size = os.path.getsize(path)
    fd = os.open(path, os.O_RDONLY)
    addr = libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
    if addr in (None, ctypes.c_void_p(-1).value) or libc.mlock(ctypes.c_void_p(addr), ctypes.c_size_t(size)) != 0:
        print(f"warning: could not lock {path} in memory (errno {ctypes.get_errno()}); "
              "it is re-read before each run instead", file=sys.stderr)


def ensure_cached(path):
    """Re-reads the file into the page cache and checks every page is resident."""
    for _ in range(3):
        with open(path, "rb") as f:
            while f.read(1 << 20):
                pass
        out = subprocess.run(["fincore", "--bytes", "--noheadings", "--output", "RES,SIZE", path],
                             capture_output=True, text=True, check=True).stdout.split()
        if int(out[0]) >= int(out[1]):
            return
    sys.exit(f"{path}: only {out[0]} of {out[1]} bytes stay cached; not enough memory?")


def workloads(args):
    ws = []
    for target, label in ((args.loop, "loop/tmpfs"), (args.tmpfs, "tmpfs file")):
        if target:
            for qd in (1, 4, 32, 128):
                ws.append(dict(name=f"4K randread QD{qd} {label}", target=target, bs=4096, qd=qd,
                               seq=False, direct=True))
    # The root-disk rows carry the A/A control (control.py): fio run twice in each round.
    for qd in (1, 16, 32):
        ws.append(dict(name=f"8K randread QD{qd} root-disk file", target=args.disk, bs=8192,
                       qd=qd, seq=False, direct=True, control=True))
    ws.append(dict(name="1M randread QD4 root-disk file", target=args.disk, bs=1 << 20, qd=4,
                   seq=False, direct=True, control=True))
    ws.append(dict(name="1M seqread QD4 root-disk file", target=args.disk, bs=1 << 20, qd=4,
                   seq=True, direct=True, control=True))
    if args.huge:
        # The same two, both tools' buffers in huge pages: on a virtio disk without indirect
        # descriptors the physical layout of 4 KiB-page buffers decides how many 1 MiB requests
        # the device holds at once (docs/executor.md, "The buffer's pages"); t/io_uring has no such
        # option and is left out of these rows.
        for seq in (False, True):
            ws.append(dict(name=f"1M {'seq' if seq else 'rand'}read QD4 root-disk file, huge pages",
                           target=args.disk, bs=1 << 20, qd=4, seq=seq, direct=True, huge=True,
                           tiouring=False, control=True))
    if args.loop_disk:
        ws.append(dict(name="4K randread QD32 loop/root-disk file", target=args.loop_disk,
                       bs=4096, qd=32, seq=False, direct=True))
    for target, label in ((args.pcache, "64 MiB"), (args.pcache_big, "1 GiB")):
        if target:
            for qd in (1, 64):
                ws.append(dict(name=f"4K randread QD{qd} page cache {label} (buffered)",
                               target=target, bs=4096, qd=qd, seq=False, direct=False,
                               cached=True))
    if args.only:
        ws = [w for w in ws if any(o in w["name"] for o in args.only.split(","))]
    return ws


def estimate_row(args):
    """The plan's estimate against the real wall time of a 100-point spec of 100 ms points (a
    random read sweep on the tmpfs file), once per round."""
    rows = []
    for _ in range(args.rounds):
        with tempfile.TemporaryDirectory(prefix="rigel-bench-") as tmp:
            spec = os.path.join(tmp, "estimate.toml")
            with open(spec, "w") as f:
                f.write(ESTIMATE_SPEC.format(target=args.tmpfs))
            plan = json.loads(subprocess.run([args.rigel, "plan", spec, "--json"], check=True,
                                             capture_output=True, text=True).stdout)
            t0 = time.monotonic()
            subprocess.run(pinned(args, [args.rigel, "run", spec, "--out",
                                         os.path.join(tmp, "run")]),
                           check=True, capture_output=True)
            wall = time.monotonic() - t0
            with open(os.path.join(tmp, "run", "results.json")) as f:
                pts = json.load(f)["points"]
            starts = [p["window"]["start_ns"] for p in pts]
            gap_ms = ((starts[-1] - starts[0]) / (len(starts) - 1) / 1e6) - 100
            rows.append((plan["estimated_seconds"], wall, gap_ms))
    return rows


def scaling_rows(args):
    """Workers = 1 against workers = 2 on two CPUs (--cpus2), page-cache reads at QD 64 on the
    64 MiB file, rigel and t/io_uring (1 thread against 2) alternated round after round: the
    ratio of the two IOPS says how the executor scales, t/io_uring's what this machine allows."""
    base = dict(target=args.pcache, bs=4096, qd=64, seq=False, direct=False, cpus=args.cpus2)
    runs = [("rigel", 1), ("rigel", 2)]
    if args.tiouring:
        runs += [("t/io_uring", 1), ("t/io_uring", 2)]
    per = {r: [] for r in runs}
    for rnd in range(args.rounds):
        order = runs[rnd % len(runs):] + runs[:rnd % len(runs)]
        for tool, workers in order:
            ensure_cached(args.pcache)
            run = run_rigel if tool == "rigel" else run_tiouring
            r = run(args, dict(base, workers=workers))
            per[(tool, workers)].append((r["iops"], r["own_cores"] / r["iops"]))
        print(f"  scaling round {rnd + 1}: " + ", ".join(
            f"{t} x{n} {per[(t, n)][-1][0]:.0f} IOPS" for t, n in runs), file=sys.stderr)
    rows = []
    for tool in dict.fromkeys(t for t, _ in runs):
        one, two = per[(tool, 1)], per[(tool, 2)]
        rows.append((tool, statistics.median(a for a, _ in one), statistics.median(b for b, _ in two),
                     [b[0] / a[0] for a, b in zip(one, two)],
                     [b[1] / a[1] for a, b in zip(one, two)]))
    return rows


ESTIMATE_SPEC = """[spec]
name = "estimate"

[[target]]
path = "{target}"

[run]
duration = "100ms"
warmup = "0s"

[class.io]
size = "4KiB"
mix = "read"

[matrix]
shape = "row"
io = "1..=100"
"""


def fmt_us(ns):
    return f"{ns / 1000:.1f}"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rigel", required=True, help="the rigel binary")
    p.add_argument("--loop", help="loop device over a tmpfs file")
    p.add_argument("--tmpfs", help="file on tmpfs")
    p.add_argument("--loop-disk", help="read-only loop device (direct-io) over the root-disk file")
    p.add_argument("--huge", action="store_true",
                   help="add the 1 MiB rows with both tools' buffers in huge pages (fio "
                        "iomem=mmaphuge needs reserved hugetlb pages)")
    p.add_argument("--disk", required=True, help="file on the root disk")
    p.add_argument("--pcache", required=True, help="file read through the page cache (64 MiB)")
    p.add_argument("--pcache-big", help="a 1 GiB file read through the page cache")
    p.add_argument("--tiouring", help="fio's t/io_uring binary: a third column where given")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--duration", type=float, default=4.0)
    p.add_argument("--warmup", type=float, default=1.0)
    p.add_argument("--cpu", default="1")
    p.add_argument("--cpus2", default="0,1", help="the two CPUs of the scaling row")
    p.add_argument("--norandommap", action="store_true",
                   help="run fio with --norandommap (offsets drawn with replacement, as rigel)")
    p.add_argument("--rt", action="store_true",
                   help="run both tools SCHED_FIFO (chrt -f 10): steadier on a busy machine")
    p.add_argument("--only", help="comma-separated substrings of workload names")
    p.add_argument("--raw", help="append every run as a JSON line to this file")
    args = p.parse_args()

    rows = []
    for w in workloads(args):
        if w.get("cached"):
            pin_in_page_cache(w["target"])
    tools = ["rigel", "fio"] + (["t/io_uring"] if args.tiouring else [])
    run = {"rigel": run_rigel, "fio": run_fio, "t/io_uring": run_tiouring,
           control.AGAIN: run_fio}
    for w in workloads(args):
        pairs = []
        for rnd in range(args.rounds):
            # Alternated: each round starts with the next tool (the control rows: control.py).
            here = [t for t in tools if w.get("tiouring", True) or t != "t/io_uring"]
            if w.get("control"):
                # rigel between two fio runs (control.py); the printed order stays `here`.
                here.append(control.AGAIN)
                order = control.order(here, rnd)
            else:
                order = here[rnd % len(here):] + here[:rnd % len(here)]
            res = {}
            for tool in order:
                if w.get("cached"):
                    ensure_cached(w["target"])
                res[tool] = run[tool](args, w)
                res[tool]["cpu_per_io_us"] = res[tool]["cores"] / res[tool]["iops"] * 1e6
                res[tool]["own_cpu_per_io_us"] = res[tool]["own_cores"] / res[tool]["iops"] * 1e6
            pairs.append(res)
            if args.raw:
                with open(args.raw, "a") as f:
                    f.write(json.dumps({"workload": w["name"], "round": rnd, **res,
                                        "load": os.getloadavg()[0]}) + "\n")
            print(f"  {w['name']} round {rnd + 1}: "
                  + ", ".join(f"{t} {res[t]['iops']:.0f} IOPS" for t in here)
                  + " (host steal " + " / ".join(f"{res[t]['steal']:.2f}" for t in here)
                  + " cores)", file=sys.stderr)
        rows.append((w, pairs))

    def med(pairs, tool, key):
        return statistics.median(p[tool][key] for p in pairs)

    if rows:
        print(f"rounds: {args.rounds}, measured window {args.duration}s after {args.warmup}s warmup, "
              f"pinned to CPU {args.cpu}; medians; ratios are medians of per-round rigel/other ratios "
              "(min–max over the rounds in brackets); CPU is machine-wide (/proc/stat)")
        print()
        head = ("| workload | rigel IOPS | fio IOPS | IOPS ratio | rigel mean µs | fio mean µs"
                " | mean ratio | rigel p99 µs | fio p99 µs | p99 ratio | rigel CPU/IO µs | fio CPU/IO µs"
                " | CPU/IO ratio | IOPS/core ratio | own CPU/IO ratio |")
        cols = 15
        if args.tiouring:
            head += (" t/io_uring IOPS | t/io_uring CPU/IO µs | rigel / t/io_uring IOPS"
                     " | rigel / t/io_uring IOPS/core |")
            cols += 4
        print(head)
        print("|" + "---|" * cols)
        for w, pairs in rows:
            line = (f"| {w['name']} | {med(pairs, 'rigel', 'iops'):.0f} | {med(pairs, 'fio', 'iops'):.0f}"
                    f" | {show(ratios(pairs, 'iops'))}"
                    f" | {fmt_us(med(pairs, 'rigel', 'mean_ns'))} | {fmt_us(med(pairs, 'fio', 'mean_ns'))}"
                    f" | {show(ratios(pairs, 'mean_ns'))}"
                    f" | {fmt_us(med(pairs, 'rigel', 'p99_ns'))} | {fmt_us(med(pairs, 'fio', 'p99_ns'))}"
                    f" | {show(ratios(pairs, 'p99_ns'))}"
                    f" | {med(pairs, 'rigel', 'cpu_per_io_us'):.3f} | {med(pairs, 'fio', 'cpu_per_io_us'):.3f}"
                    f" | {show(ratios(pairs, 'cpu_per_io_us'))} | {show(per_core(pairs, 'fio'))}"
                    f" | {show(ratios(pairs, 'own_cpu_per_io_us'))} |")
            if args.tiouring and "t/io_uring" not in pairs[0]:
                line += " — | — | — | — |"
            elif args.tiouring:
                t = "t/io_uring"
                line += (f" {med(pairs, t, 'iops'):.0f} | {med(pairs, t, 'cpu_per_io_us'):.3f}"
                         f" | {show(ratios(pairs, 'iops', t))} | {show(per_core(pairs, t))} |")
            print(line)
        devstat.print_table(rows)
        control.print_table(rows)
    scaling, est = None, None
    if not args.only or "scaling" in args.only:
        print()
        print(f"| scaling: 4K randread QD64, 64 MiB page cache, CPUs {args.cpus2} | 1 worker IOPS"
              " | 2 workers IOPS | 2 workers / 1 | own CPU per I/O, 2 workers / 1 |")
        print("|---|---|---|---|---|")
        # The CPU per I/O says whether two workers cost more per I/O than one (contention); the
        # IOPS ratio also depends on the second CPU being free.
        scaling = scaling_rows(args)
        for tool, one, two, ratio, cost in scaling:
            print(f"| {tool} | {one:.0f} | {two:.0f} | {show(ratio)} | {show(cost)} |")
    if args.tmpfs and (not args.only or "estimate" in args.only):
        est = estimate_row(args)
        print()
        print("| plan estimate (100 points × 100 ms, tmpfs) | estimated s | real wall s"
              " | real / estimate | overhead per point, ms |")
        print("|---|---|---|---|---|")
        print(f"| median of {len(est)} | {statistics.median(e[0] for e in est)}"
              f" | {statistics.median(e[1] for e in est):.2f}"
              f" | {show([e[1] / e[0] for e in est])}"
              f" | {statistics.median(e[2] for e in est):.1f} |")
    bars.print_table(rows, scaling, est)


if __name__ == "__main__":
    main()
