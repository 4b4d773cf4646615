"""The A/A control of the root-disk rows: fio run a second time in each round, so the table shows
how far two runs of the *same* tool fall apart under this protocol (alternated windows of a few
seconds on a shared host whose disk and CPUs drift).

Why: a rigel / fio ratio of 1.07 says nothing until one knows what fio / fio gives in the same
rounds. When the second fio run is itself 7% off the first, the protocol cannot resolve a 5% bar,
whatever the tools do (docs/executor.md, "fio against itself").

In these rows rigel runs between the two fio runs (fio, rigel, fio again), so rigel against the
geometric mean of both cancels a drift that is linear over the three windows, and fio again / fio
is the drift over exactly the span that brackets rigel.
"""
import math

from ratios import ratios, show

# The tool name of the second fio run (a column of compare.py's rounds).
AGAIN = "fio again"


def order(tools, rnd):
    """One round's run order: fio, rigel, fio again back to back; the other tools (t/io_uring)
    before them in even rounds and after them in odd ones."""
    rest = [t for t in tools if t not in ("rigel", "fio", AGAIN)]
    block = ["fio", "rigel", AGAIN]
    return rest + block if rnd % 2 == 0 else block + rest


def print_table(rows):
    """Per root-disk row: the median (min–max) over the rounds of fio again / fio, for IOPS and
    mean latency, beside rigel / fio of the same rounds; and the spread of each ratio (max − min),
    the width the protocol gives a ratio of two equal tools."""
    rows = [(w, pairs) for w, pairs in rows if AGAIN in pairs[0]]
    if not rows:
        return
    print()
    print("| A/A control: fio, rigel, fio again back to back | fio again / fio IOPS | mean"
          " | rigel / fio IOPS | mean | rigel / √(fio · fio again) IOPS | mean"
          " | spread (max − min) of IOPS ratio: fio / fio, rigel / fio, rigel / both |")
    print("|---|---|---|---|---|---|---|---|")
    for w, pairs in rows:
        def ratio(tool, key):
            return ratios(pairs, key, tool=tool)

        def bracketed(key):
            return [p["rigel"][key] / math.sqrt(p["fio"][key] * p[AGAIN][key]) for p in pairs]

        aa, ab, both = ratio(AGAIN, "iops"), ratio("rigel", "iops"), bracketed("iops")
        print(f"| {w['name']} | {show(aa)} | {show(ratio(AGAIN, 'mean_ns'))} | {show(ab)}"
              f" | {show(ratio('rigel', 'mean_ns'))} | {show(both)} | {show(bracketed('mean_ns'))}"
              f" | {spread(aa)}, {spread(ab)}, {spread(both)} |")


def spread(values):
    """max − min of a list of ratios."""
    return f"{max(values) - min(values):.2f}"
