#!/usr/bin/env python3
"""Physical contiguity of a running tool's I/O buffers (docs/executor.md, "The buffer's pages").

    python3 benches/fidelity/pagemap.py PID BYTES

For every fully populated anonymous read-write mapping of BYTES (up to BYTES + 64 KiB) in process
PID, prints its physically contiguous runs per MiB (from /proc/PID/pagemap; root only). For rigel
only the mappings advised MADV_NOHUGEPAGE or MADV_HUGEPAGE count (its buffer arenas; histograms
may have the same size). A direct I/O reaches the device as one segment per run: 256 runs per MiB
means every 4 KiB page lies apart from the previous one.
"""
import struct
import sys


def main():
    pid, size = int(sys.argv[1]), int(sys.argv[2])
    flags, cur = {}, None
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            head = line.split()[0]
            if line.startswith("VmFlags:"):
                flags[cur] = line.split()[1:]
            elif "-" in head and not head.endswith(":"):
                cur = head
    with open(f"/proc/{pid}/comm") as f:
        rigel = f.read().strip() != "fio"
    out = []
    with open(f"/proc/{pid}/maps") as maps, open(f"/proc/{pid}/pagemap", "rb") as pm:
        for line in maps:
            f = line.split()
            lo, hi = (int(x, 16) for x in f[0].split("-"))
            if not (size <= hi - lo <= size + (64 << 10)) or len(f) > 5 or "rw" not in f[1]:
                continue
            if rigel and not ({"nh", "hg"} & set(flags.get(f[0], []))):
                continue
            n = (hi - lo) // 4096
            pm.seek(lo // 4096 * 8)
            ents = struct.unpack(f"{n}Q", pm.read(n * 8))
            if not all(e >> 63 for e in ents[: size // 4096 - 16]):
                continue  # not (yet) faulted in
            pfns = [e & ((1 << 55) - 1) for e in ents]
            runs = 1 + sum(1 for a, b in zip(pfns, pfns[1:]) if b != a + 1)
            out.append(runs / ((hi - lo) / (1 << 20)))
    print("runs/MiB=" + ",".join(f"{x:.0f}" for x in out))


if __name__ == "__main__":
    main()
