"""Per-round ratios of two tools' figures, and how a list of them is shown: one rule for every
table of compare.py (the main one, the bars, the control)."""

import statistics


def ratios(pairs, key, other="fio", tool="rigel"):
    """tool / other for figure `key`, one per round."""
    return [p[tool][key] / p[other][key] for p in pairs]


def per_core(pairs, other, tool="rigel"):
    """tool's IOPS per busy core over other's, one per round."""
    return [(p[tool]["iops"] / p[tool]["cores"]) / (p[other]["iops"] / p[other]["cores"])
            for p in pairs]


def show(values):
    """Median of the per-round ratios, and their spread (min–max) over several rounds."""
    m = statistics.median(values)
    return f"{m:.3f}" if len(values) < 2 else f"{m:.3f} ({min(values):.2f}–{max(values):.2f})"
