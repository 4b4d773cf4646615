#!/usr/bin/env bash
# Runs every fuzz target for SECONDS (default 600) on its corpus, two at a time, at the lowest
# priority; logs go to fuzz/logs/TARGET.log. Usage: fuzz/run-all.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")"
secs="${1:-600}"
mkdir -p logs
cargo +nightly fuzz build -O
run() { nice -n 19 cargo +nightly fuzz run -O "$1" "corpus/$1" $(seeds "$1") -- -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 >"logs/$1.log" 2>&1; }
# Large seeds stay out of the kept corpus (a few MB at most): the results fixtures are read from tests/.
seeds() { [ "$1" = results ] && echo ../tests/fixtures; true; }
run expr & run spec & wait
run orion & run results & wait
run trace & run journal & wait
run import
