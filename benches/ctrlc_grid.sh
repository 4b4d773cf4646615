#!/bin/bash
# Ctrl-C on the 5,000-level grid of tests/cli/bounds.rs: seconds from SIGINT to results.json and to exit
# (benches/README.md, "Bounds"). Usage: benches/ctrlc_grid.sh RIGEL
R=$1; D=$(mktemp -d /dev/shm/ctrlc.XXXX)
cat > $D/grid.toml <<T
[spec]
name = "grid"

[[target]]
path = "$D/data.bin"
size = "16MiB"

[run]
duration = "10ms"

[class.small]
size = "4KiB"

[class.large]
size = "64KiB"

[matrix]
shape = "basic"
small = "1..5000"
large = "1..5000"
T
$R run $D/grid.toml --out $D/run -q > $D/log 2>&1 &
pid=$!
while [ "$(wc -l 2>/dev/null < $D/run/results.jsonl || echo 0)" -lt 20 ]; do sleep 0.02; done
t0=$(date +%s.%N); kill -INT $pid
while [ ! -e $D/run/results.json ]; do sleep 0.005; done; t1=$(date +%s.%N)
wait $pid; rc=$?; t2=$(date +%s.%N)
echo "exit $rc; results.json $(echo "$t1 - $t0" | bc) s, exit $(echo "$t2 - $t0" | bc) s after SIGINT"
rm -rf $D
