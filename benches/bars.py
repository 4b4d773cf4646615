"""Issue 14's bars read off one run of compare.py: each bar, what this run measured (median of the
per-round ratios, min–max) and whether it is met, so a run answers "done?" without a hand-made
table. The co-run page-cache figures come from corun.py, which run.sh prints after this.

A disk row against fio is "met" when rigel / fio is within 5% in both IOPS and mean latency. Where
the A/A control ran (control.py) and fio was not within 5% of itself in the same rounds, the
verdict is "unresolved": the protocol cannot tell a 5% difference on that row that run.
"""

import statistics

from control import AGAIN
from ratios import per_core, ratios, show

# rigel / t/io_uring IOPS per core, at least (the page-cache rows, by queue depth).
PAGE_CACHE = {1: 0.85, 64: 0.95}
SCALING = 1.8
WITHIN = 0.05
ESTIMATE = 0.10
OVERHEAD_MS = 10.0


def near(values, within=WITHIN):
    return abs(statistics.median(values) - 1.0) <= within


def disk_verdict(pairs):
    """(IOPS ratios, mean ratios, verdict) of rigel against fio on a disk row."""
    iops, mean = ratios(pairs, "iops"), ratios(pairs, "mean_ns")
    if near(iops) and near(mean):
        return iops, mean, "yes"
    if AGAIN in pairs[0]:
        aa_iops, aa_mean = ratios(pairs, "iops", tool=AGAIN), ratios(pairs, "mean_ns", tool=AGAIN)
        if not (near(aa_iops) and near(aa_mean)):
            return iops, mean, (f"unresolved: fio against itself {statistics.median(aa_iops):.3f}"
                                f" / {statistics.median(aa_mean):.3f}")
    return iops, mean, "no"


def print_table(rows, scaling, estimate):
    """rows: compare.py's (workload, rounds); scaling: scaling_rows() or None; estimate:
    estimate_row() or None."""
    lines = []
    for w, pairs in rows:
        if w.get("cached") and "t/io_uring" in pairs[0]:
            bar = PAGE_CACHE.get(w["qd"])
            if bar is not None:
                got = per_core(pairs, "t/io_uring")
                ok = "yes" if statistics.median(got) >= bar else "no"
                lines.append((f"{w['name']}: rigel / t/io_uring IOPS per core ≥ {bar}", show(got),
                              ok))
        elif w.get("control"):
            iops, mean, ok = disk_verdict(pairs)
            lines.append((f"{w['name']}: rigel / fio IOPS and mean within 5%",
                          f"{show(iops)} / {show(mean)}", ok))
    for tool, _one, _two, ratio, _cost in scaling or []:
        if tool == "rigel":
            lines.append((f"workers = 2 over 1 ≥ {SCALING}×", show(ratio),
                          "yes" if statistics.median(ratio) >= SCALING else "no"))
        else:
            lines.append((f"(the machine's: {tool}, 2 threads over 1)", show(ratio), "—"))
    if estimate:
        real = [e[1] / e[0] for e in estimate]
        overhead = statistics.median(e[2] for e in estimate)
        lines.append(("plan estimate within 10% of the wall time", show(real),
                      "yes" if near(real, ESTIMATE) else "no"))
        lines.append((f"overhead per point ≤ {OVERHEAD_MS:.0f} ms", f"{overhead:.1f} ms",
                      "yes" if overhead <= OVERHEAD_MS else "no"))
    if not lines:
        return
    print()
    print("| issue 14's bar | this run: median (min–max) | met? |")
    print("|---|---|---|")
    for bar, got, ok in lines:
        print(f"| {bar} | {got} | {ok} |")
    if any(w.get("cached") for w, _ in rows):
        print()
        print("The page-cache bars with both tools at once on one CPU: corun.py's tables (run.sh"
              " prints them next, where t/io_uring is present).")
