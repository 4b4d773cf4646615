#!/bin/sh
# Reporting a run folder of N finished points (issue 33: 100,000 points in under a minute within
# 2 GB): makes the folders with many_points.py (one load, and every point its own load so that the
# charts have N points to draw), then times `rigel report` on each with /usr/bin/time -v.
#
#   benches/many_points.sh RIGEL [N] [WORK]     # N default 100000, WORK default /var/tmp/many-points
set -eu
rigel=$(realpath "$1")
n=${2:-100000}
work=${3:-/var/tmp/many-points}
here=$(dirname "$(realpath "$0")")
rm -rf "$work" && mkdir -p "$work"
python3 "$here/many_points.py" "$rigel" "$work/one-load" "$n" 1s >/dev/null
python3 "$here/many_points.py" "$rigel" "$work/n-loads" "$n" 1s "$n" >/dev/null
for dir in one-load n-loads; do
    /usr/bin/time -v "$rigel" report "$work/$dir" --out "$work/$dir-report" >/dev/null 2>"$work/$dir.time"
    printf '%s, %s points: ' "$dir" "$n"
    awk -F': ' '/Elapsed/ {w=$2} /User time/ {u=$2} /Maximum resident/ {m=$2} /Exit status/ {e=$2}
        END {printf "%s wall, %s s user, %.2f GB max RSS, exit %s\n", w, u, m / 1e6, e}' "$work/$dir.time"
done
