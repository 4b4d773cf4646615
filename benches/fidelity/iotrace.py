#!/usr/bin/env python3
"""Where each large I/O's time goes, from a `perf script` of block and io_uring tracepoints
(docs/executor.md, "Causes found"):

    perf record -a -o perf.data -e block:block_bio_queue -e block:block_rq_complete \\
        -e io_uring:io_uring_complete -e io_uring:io_uring_submit_req -- sleep 3   # while a tool runs
    perf script -i perf.data -F comm,tid,time,event,trace > trace.txt
    python3 benches/fidelity/iotrace.py trace.txt 254,0 1048576

Per I/O of BYTES queued by rigel's worker or fio on device MAJ,MIN: bio queued -> its request
completes (block layer and device), -> its CQE is posted (completion delivery), -> the tool's next
submission (the tool's own turnaround); and, matched by io_uring request, submission -> CQE posted:
the kernel's whole I/O. A tool's own mean latency minus that is how long it holds a completed I/O
before it times it: slots it keeps that are not in the kernel.
"""
import re
import statistics as st
import sys


def main():
    path, dev, nbytes = sys.argv[1], sys.argv[2], int(sys.argv[3])
    sectors = nbytes // 512
    queued, q2c, c2cqe, cqe2sub, done, posted = {}, [], [], [], [], []
    submitted, whole = {}, []
    tool = lambda comm: comm.startswith("rigel-worker") or comm == "fio"
    with open(path) as f:
        for line in f:
            m = re.match(r"\s*(\S+)\s+(\d+)\s+([\d.]+):\s+(\S+):\s+(.*)", line)
            if not m:
                continue
            comm, _, t, ev, rest = m.groups()
            t = float(t)
            if ev == "block:block_bio_queue" and tool(comm) and rest.startswith(dev):
                s = re.search(r"(\d+) \+ (\d+)", rest)
                if int(s.group(2)) >= sectors:
                    queued[int(s.group(1))] = t
            elif ev == "block:block_rq_complete" and rest.startswith(dev):
                s = re.search(r"(\d+) \+ (\d+)", rest)
                if s and int(s.group(1)) in queued:
                    q2c.append(t - queued.pop(int(s.group(1))))
                    done.append(t)
            elif ev == "io_uring:io_uring_complete" and f"result {nbytes}," in rest:
                req = re.search(r"req (0x[0-9a-f]+)", rest).group(1)
                if req in submitted:
                    whole.append(t - submitted.pop(req))
                if done:
                    c2cqe.append(t - done.pop(0))
                    posted.append(t)
            elif ev == "io_uring:io_uring_submit_req" and tool(comm):
                submitted[re.search(r"req (0x[0-9a-f]+)", rest).group(1)] = t
                if posted:
                    cqe2sub.append(t - posted.pop(0))

    def show(x):
        if not x:
            return "-"
        return f"median {st.median(x) * 1e6:7.1f} µs, mean {st.mean(x) * 1e6:7.1f} (n={len(x)})"

    print("queued -> request complete:", show(q2c))
    print("complete -> CQE posted:    ", show(c2cqe))
    print("CQE -> next submission:    ", show(cqe2sub))
    print("submission -> CQE posted:  ", show(whole))


if __name__ == "__main__":
    main()
