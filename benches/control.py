"""The A/A control of the root-disk rows: fio run a second time in each round, so the table shows
how far two runs of the *same* tool fall apart under this protocol (alternated windows of a few
seconds on a shared host whose disk and CPUs drift).

Why: a rigel / fio ratio of 1.07 says nothing until one knows what fio / fio gives in the same
rounds. When the second fio run is itself 7% off the first, the protocol cannot resolve a 5% bar,
whatever the tools do (benches/README.md, "Ninth pass").
"""

# The tool name of the second fio run (a column of compare.py's rounds).
AGAIN = "fio again"


def print_table(rows, show):
    """Per root-disk row: the median (min–max) over the rounds of fio again / fio, for IOPS and
    mean latency, beside rigel / fio of the same rounds; and the spread of each ratio (max − min),
    the width the protocol gives a ratio of two equal tools."""
    rows = [(w, pairs) for w, pairs in rows if AGAIN in pairs[0]]
    if not rows:
        return
    print()
    print("| A/A control: fio against itself, same rounds | fio again / fio IOPS | mean"
          " | rigel / fio IOPS | mean | spread (max − min) of IOPS ratio: fio / fio, rigel / fio |")
    print("|---|---|---|---|---|---|")
    for w, pairs in rows:
        def ratio(tool, key):
            return [p[tool][key] / p["fio"][key] for p in pairs]

        aa, ab = ratio(AGAIN, "iops"), ratio("rigel", "iops")
        print(f"| {w['name']} | {show(aa)} | {show(ratio(AGAIN, 'mean_ns'))} | {show(ab)}"
              f" | {show(ratio('rigel', 'mean_ns'))} | {max(aa) - min(aa):.2f}, "
              f"{max(ab) - min(ab):.2f} |")

