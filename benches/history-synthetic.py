#!/usr/bin/env python3
"""Makes N synthetic run folders for timing `rigel history` (a fixture generator, not a test).

Each folder is a copy of a real run folder's results.json, run.json and plan.json (rigel reads
nothing else), renamed into one of SPECS specs, with its start time moved on a day per run, its
host one of four, and every figure scaled by a small drift, so that every comparison has work to do.

    python3 benches/history-synthetic.py --from RUN_FOLDER --out /tmp/hist500 --runs 500 --specs 10
    time rigel history /tmp/hist500
"""
import argparse
import datetime
import json
import os
import random
import shutil


def scale(node, f):
    """Scales the IOPS, MB/s and latency figures of a results document in place."""
    if isinstance(node, dict):
        for k, v in node.items():
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                if k in ("iops", "mbps"):
                    node[k] = v * f
                elif k.endswith("_ns") and k != "min_ns":
                    node[k] = type(v)(v / f)
            else:
                scale(v, f)
    elif isinstance(node, list):
        for v in node:
            scale(v, f)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--from", dest="src", required=True, help="a finished run folder")
    ap.add_argument("--out", required=True)
    ap.add_argument("--runs", type=int, default=500)
    ap.add_argument("--specs", type=int, default=10)
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    with open(os.path.join(a.src, "results.json")) as f:
        results = json.load(f)
    with open(os.path.join(a.src, "run.json")) as f:
        run = json.load(f)
    with open(os.path.join(a.src, "plan.json")) as f:
        plan = json.load(f)
    if os.path.exists(a.out):
        shutil.rmtree(a.out)
    start = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
    for i in range(a.runs):
        spec = f"spec-{i % a.specs:02d}"
        when = (start + datetime.timedelta(days=i // a.specs, minutes=i % a.specs)).isoformat()
        host = f"db-{i % 4:02d}"
        doc = json.loads(json.dumps(results))
        scale(doc["points"], rng.uniform(0.9, 1.1))
        doc["plan"]["name"] = spec
        doc["started"] = when
        doc["host"]["hostname"] = host
        hdr = dict(run, started=when, host=dict(run["host"], hostname=host))
        if "provenance" in hdr:
            hdr["provenance"] = json.loads(json.dumps(hdr["provenance"]))
            hdr["provenance"]["spec"]["name"] = spec
            doc["provenance"] = hdr["provenance"]
        dest = os.path.join(a.out, spec, f"run-{i:04d}")
        os.makedirs(dest)
        for name, body in (("results.json", doc), ("run.json", hdr), ("plan.json", dict(plan, name=spec))):
            with open(os.path.join(dest, name), "w") as f:
                json.dump(body, f)


if __name__ == "__main__":
    main()
