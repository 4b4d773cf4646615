#!/usr/bin/env python3
"""A run folder of N finished points, for measuring report and resume at scale (issue 33: 100,000
points in under a minute within 2 GB). Not a test: it makes the input, /usr/bin/time measures.

    benches/many_points.py RIGEL DIR [N] [DURATION] [LEVELS]

A real run of one point (DURATION, default 1s, on a tmpfs file beside DIR) gives the plan and the
line; the plan is then N copies of that point (ids 1..N) and results.jsonl the line once per point,
as a run of N points interrupted before its results.json leaves them. With LEVELS (default 1) the
points cycle through that many loads (1..LEVELS), so that the charts against load have as many
points to draw (LEVELS = N: every point its own load). Time then:

    /usr/bin/time -v RIGEL report DIR --out DIR-report
    /usr/bin/time -v RIGEL run --resume DIR
"""
import json
import os
import subprocess
import sys

rigel, out = sys.argv[1], os.path.abspath(sys.argv[2])
n = int(sys.argv[3]) if len(sys.argv) > 3 else 100_000
duration = sys.argv[4] if len(sys.argv) > 4 else "1s"
levels = int(sys.argv[5]) if len(sys.argv) > 5 else 1
seed = out + "-seed"
spec = out + "-spec.toml"
with open(spec, "w") as f:
    f.write(f"""[spec]
name = "many"

[[target]]
path = "{out}-target.bin"
size = "16MiB"

[run]
duration = "{duration}"
warmup = "0s"

[class.small]
size = "8KiB"

[matrix]
shape = "row"
small = "1"
""")
subprocess.run([rigel, "run", spec, "--out", seed, "-q"], check=True)
os.makedirs(out)
for name in ("spec.toml", "run.json"):
    with open(os.path.join(seed, name), "rb") as src, open(os.path.join(out, name), "wb") as dst:
        dst.write(src.read())
with open(os.path.join(seed, "plan.json")) as f:
    plan = json.load(f)
point = plan["points"][0]


def load_of(i):
    return (i - 1) % levels + 1


def at_load(classes, load):
    return [dict(c, load=load, outstanding=load * c.get("per_stream", 1)) for c in classes]


plan["points"] = [dict(point, id=i, classes=at_load(point["classes"], load_of(i))) for i in range(1, n + 1)]
with open(os.path.join(out, "plan.json"), "w") as f:
    json.dump(plan, f)
with open(os.path.join(seed, "results.jsonl")) as f:
    line = json.loads(f.readline())
with open(os.path.join(out, "results.jsonl"), "w") as f:
    classes = line["point"]["classes"]
    for i in range(1, n + 1):
        line["point"]["id"] = i
        line["point"]["classes"] = at_load(classes, load_of(i))
        f.write(json.dumps(line, separators=(",", ":")) + "\n")
print(f"{out}: {n} points, results.jsonl {os.path.getsize(os.path.join(out, 'results.jsonl')):,} bytes")
