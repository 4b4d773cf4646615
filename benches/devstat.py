"""The depth a block device actually held while a tool ran: the kernel's own count, from the
device's `stat` file, so it is the same rule for every tool.

Why: two tools asked for the same queue depth can keep different numbers of I/Os at the device
(fio reaps only when its queue is full, docs/executor.md, "fio holds completed I/Os"), and a device serves a
deeper queue faster. The disk rows' IOPS ratio only compares the tools' timing when both kept the
depth they were asked for; this shows whether they did.
"""

import os
import stat
import statistics

from ratios import ratios, show

# Steal (cores) below which a run counts as quiet: fio's one system call per I/O is slowed by the
# host's steal far more than a batching tool (docs/executor.md, "fio under the host's steal").
QUIET = 0.15


def stat_path(path):
    """The sysfs `stat` file of the block device holding `path` (a block device itself, or the
    device of the filesystem a file lives on), or None where there is none (tmpfs)."""
    st = os.stat(path)
    dev = st.st_rdev if stat.S_ISBLK(st.st_mode) else st.st_dev
    p = f"/sys/dev/block/{os.major(dev)}:{os.minor(dev)}/stat"
    return p if os.path.exists(p) else None


def sample(path):
    """(reads completed, weighted milliseconds in flight) from a block `stat` file
    (Documentation/block/stat.rst: fields 1 and 11)."""
    if path is None:
        return None
    with open(path) as f:
        fields = [int(x) for x in f.read().split()]
    return fields[0], fields[10]


def mean_depth(before, after, seconds):
    """The mean number of I/Os in flight at the device between two samples: the weighted time in
    flight (ms) over the wall time (ms). Little's law on the kernel's own books."""
    if before is None or after is None or seconds <= 0:
        return None
    return (after[1] - before[1]) / (seconds * 1000.0)


def print_table(rows):
    """The depth each tool kept at the device, per workload row that has a block device: medians
    over the rounds, and the per-round rigel/fio ratios of depth beside those of IOPS, so a reader
    sees whether an IOPS gap comes with a depth gap (then the tools did not load the device alike)."""
    # Page-cache rows read a file on a block device but never reach it.
    rows = [(w, pairs) for w, pairs in rows
            if not w.get("cached") and pairs[0]["rigel"].get("depth") is not None]
    if not rows:
        return
    tools = [t for t in ("rigel", "fio", "t/io_uring") if any(t in p for _, ps in rows for p in ps)]
    print()
    print("| depth at the device (block stat, mean in flight) | asked | "
          + " | ".join(tools) + " | rigel / fio depth | rigel / fio IOPS | host steal, cores: "
          + " / ".join(tools) + f" | rigel / fio IOPS, mean, rounds fio saw < {QUIET} core |")
    print("|" + "---|" * (len(tools) + 6))
    for w, pairs in rows:
        cells = []
        for t in tools:
            got = [p[t]["depth"] for p in pairs if t in p and p[t].get("depth") is not None]
            cells.append(f"{statistics.median(got):.1f}" if got else "—")
        depth = [p["rigel"]["depth"] / p["fio"]["depth"] for p in pairs if p["fio"]["depth"]]
        iops = ratios(pairs, "iops")
        # Steal slows a tool in proportion to its system calls per I/O (docs/executor.md, "fio under the host's steal"):
        # a depth gap that comes with steal is the host's doing, not the device's.
        steal = " / ".join(
            f"{statistics.median(p[t]['steal'] for p in pairs if t in p):.2f}"
            if any(t in p for p in pairs) else "—" for t in tools)
        quiet = [p for p in pairs if p["fio"]["steal"] < QUIET]
        calm = (f"{show(ratios(quiet, 'iops'))}, {show(ratios(quiet, 'mean_ns'))} "
                f"({len(quiet)} of {len(pairs)})" if quiet else f"— (0 of {len(pairs)})")
        print(f"| {w['name']} | {w['qd']} | " + " | ".join(cells)
              + f" | {show(depth) if depth else '—'} | {show(iops)} | {steal} | {calm} |")
