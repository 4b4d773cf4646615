#!/usr/bin/env bash
# rigel vs fio's io_uring engine, side by side (see benches/README.md).
#
#   benches/run.sh [--rounds N] [--duration SECONDS] [--cpu N] [--only NAME,NAME]
#   benches/run.sh --rounds 1 --duration 2 --only "page cache 64,estimate"   # a quick sanity pass
#   benches/run.sh --only "page cache,scaling"   # the page-cache rows and workers 1 vs 2 (CPUs 0,1)
#
# Builds rigel (the `profiling` profile: release code with debug info, so `perf record` on the
# copy it runs shows symbols), prepares the targets (a tmpfs file, a loop device
# over a tmpfs file when root, a 4 GiB file of random data on the root disk's filesystem — a file,
# never the raw device —, 64 MiB and 1 GiB page-cache files), runs every workload with the tools
# alternated (rigel, fio, and t/io_uring where present), prints a Markdown table, then the
# page-cache rows once more with rigel and t/io_uring at the same time on the same CPU (corun.py,
# where t/io_uring is present), and cleans up.
# As root it also reads the root-disk file through a read-only loop device, and reserves 8
# hugetlb pages for fio's iomem=mmaphuge (the huge-page rows), given back at the end. Needs fio (Debian's
# package: apt-get install -y fio), fincore (util-linux), taskset and python3.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(dirname "$here")"
work="${RIGEL_BENCH_DIR:-/var/tmp/rigel-bench}"
shm="/dev/shm/rigel-bench-$$"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$repo/target}"

for tool in fio fincore taskset python3; do
    command -v "$tool" >/dev/null || { echo "run.sh: $tool is missing (apt-get install -y fio util-linux python3)" >&2; exit 2; }
done

(cd "$repo" && cargo build --profile profiling --quiet --bin rigel)
# A private copy: a shared target directory may be rebuilt by someone else during the run.
mkdir -p "$work"
cp "$CARGO_TARGET_DIR/profiling/rigel" "$work/rigel"
rigel="$work/rigel"

loopdev=""
loopdisk=""
hugepages_before=""
cleanup() {
    [ -n "$loopdev" ] && losetup -d "$loopdev" 2>/dev/null || true
    [ -n "$loopdisk" ] && losetup -d "$loopdisk" 2>/dev/null || true
    [ -n "$hugepages_before" ] && echo "$hugepages_before" > /proc/sys/vm/nr_hugepages || true
    rm -rf "$shm"
}
trap cleanup EXIT INT TERM

mkdir -p "$work" "$shm"
# Real data everywhere: reads of never-written extents would touch no storage.
fill() { # path MiB
    if [ ! -f "$1" ] || [ "$(stat -c %s "$1")" -ne $(($2 * 1048576)) ]; then
        echo "preparing $1 ($2 MiB)" >&2
        head -c $(($2 * 1048576)) /dev/urandom > "$1.tmp" && mv "$1.tmp" "$1"
    fi
}
# The value of option $1 (`--x V` or `--x=V`) among the script's arguments (after $2), else $2.
opt() {
    local name="$1" value="$2" prev="" a
    shift 2
    for a in "$@"; do
        case "$a" in "$name="*) value="${a#"$name="}" ;; esac
        [ "$prev" = "$name" ] && value="$a"
        prev="$a"
    done
    echo "$value"
}
only="$(opt --only "" "$@")"
# Whether one of the given rows is selected: every row without --only, else a row whose name
# contains one of its comma-separated names (as compare.py matches them).
selected() {
    [ -z "$only" ] && return 0
    local o row names
    IFS=, read -ra names <<< "$only"
    for o in "${names[@]}"; do
        for row in "$@"; do
            case "$row" in *"$o"*) return 0 ;; esac
        done
    done
    return 1
}
# The 4 GiB root-disk file only when a selected row reads it (`--only "page cache,scaling"` then
# writes nothing to the root disk).
needs_disk=0
if selected "8K randread QD1 root-disk file" "8K randread QD16 root-disk file" \
    "8K randread QD32 root-disk file" "1M randread QD4 root-disk file" "1M seqread QD4 root-disk file" \
    "4K randread QD32 loop/root-disk file"; then
    needs_disk=1
fi
fill "$shm/tmpfs.img" 1024
if [ "$needs_disk" -eq 1 ]; then fill "$work/disk.img" 4096; fi
fill "$work/pcache.img" 64
fill "$work/pcache-big.img" 1024
sync

# fio's t/io_uring, the third column where present (benches/README.md says where it comes from).
tio_args=()
for t in "${RIGEL_TIOURING:-}" "$repo/../shared/bench-tools/t-io_uring" /work/shared/bench-tools/t-io_uring; do
    if [ -n "$t" ] && [ -x "$t" ]; then
        tio_args=(--tiouring "$t")
        break
    fi
done
[ ${#tio_args[@]} -eq 0 ] && echo "t/io_uring not found (set RIGEL_TIOURING): two columns only" >&2

loop_args=()
if [ "$(id -u)" -eq 0 ]; then
    fill "$shm/loop-backing.img" 1024
    loopdev="$(losetup -f --show --direct-io=on "$shm/loop-backing.img")"
    loop_args=(--loop "$loopdev")
    # Read-only: the benchmark only reads, and the root disk's file must stay as it is. Only when
    # a selected row reads it: `--only "page cache"` has no disk.img to attach.
    if [ "$needs_disk" -eq 1 ]; then
        loopdisk="$(losetup -f --show --read-only --direct-io=on "$work/disk.img")"
        loop_args+=(--loop-disk "$loopdisk")
    fi
    # fio's iomem=mmaphuge takes hugetlb pages: 8 more (16 MiB) for the 1 MiB huge-page rows,
    # given back at the end.
    hugepages_before="$(cat /proc/sys/vm/nr_hugepages)"
    echo $((hugepages_before + 8)) > /proc/sys/vm/nr_hugepages
    if [ "$(awk '/HugePages_Free/ {print $2}' /proc/meminfo)" -ge 4 ]; then
        loop_args+=(--huge)
    else
        echo "no free hugetlb pages: skipping the huge-page rows" >&2
    fi
else
    echo "not root: skipping the loop-device and huge-page workloads" >&2
fi

echo "machine: $(nproc) CPUs, $(uname -r), load: $(cut -d' ' -f1-3 /proc/loadavg), fio $(fio --version)" >&2
python3 "$here/compare.py" --rigel "$rigel" "${loop_args[@]}" --tmpfs "$shm/tmpfs.img" \
    --disk "$work/disk.img" --pcache "$work/pcache.img" --pcache-big "$work/pcache-big.img" \
    "${tio_args[@]}" --raw "$work/raw.jsonl" "$@"

# The page-cache rows again with rigel and t/io_uring at the same time on the same CPU
# (corun.py): whatever the host does in those seconds it does to both, so these ratios resolve
# the 5% bars that the alternated rounds above, seconds apart on a drifting host, cannot.
if [ ${#tio_args[@]} -gt 0 ]; then
    rounds="$(opt --rounds 5 "$@")"
    duration="$(opt --duration 4 "$@")"
    duration="${duration%.*}"  # corun.py takes whole seconds, 2 at least
    for f in "pcache.img:64 MiB" "pcache-big.img:1 GiB"; do
        if selected "4K randread QD1 page cache ${f#*:} (buffered)" \
            "4K randread QD64 page cache ${f#*:} (buffered)"; then
            echo "co-run: ${f%%:*}" >&2
            echo
            python3 "$here/corun.py" --rigel "$rigel" "${tio_args[@]}" --file "$work/${f%%:*}" \
                --rounds "$rounds" --duration "$((duration > 2 ? duration : 2))" \
                --cpu "$(opt --cpu 1 "$@")"
        fi
    done
fi
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
