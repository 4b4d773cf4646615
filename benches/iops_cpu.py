"""Prints the first point's first class's IOPS and the CPU rigel used over the window, in percent
of one core: "IOPS CPU%" (benches/skew.sh, benches/workload.sh)."""
import json
import sys

p = json.load(open(sys.argv[1]))["points"][0]
c = p["classes"][0]
cpu = p["cpu"]
used = (cpu.get("user_s", 0) + cpu.get("system_s", 0)) / p["elapsed_s"]
print(f'{c["total"]["iops"]:.0f} {100 * used:.0f}')
