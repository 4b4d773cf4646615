#!/usr/bin/env bash
# rigel's NVMe guest: runs a shell script inside a throwaway Linux guest (qemu in software
# emulation, about 10 s to boot) whose emulated NVMe controller gives /dev/nvme0n1 (block),
# /dev/ng0n1 (the passthrough character device), poll queues and discard, and with --zoned a
# host-managed zoned (ZNS) namespace of 64 MiB zones. It proves that NVMe-only paths work (polled
# I/O, passthrough, trim, zones); the emulator's speed says nothing about a device's.
#
#   tests/nvme-vm/run.sh [--zoned] [--poll-queues N] [--size 1G] [--bin FILE]... [--file FILE]... SCRIPT
#
# Every --bin FILE (and the shared libraries it links) goes to the guest's /bin; every --file FILE
# to /files/NAME. SCRIPT runs as root under busybox's sh with /proc, /sys, /dev and a tmpfs /tmp;
# what it prints comes back on stdout, then `== guest: job exit N` (N: its exit status), and the
# guest powers off. This script exits 0 when the guest ran (the job's status is in that line: the
# caller judges it) and 2 when a tool is missing. The namespace's (sparse) image and the initrd go in
# $TMPDIR (default /tmp): set TMPDIR=/dev/shm to keep them off the disk.
# Needs root and Debian's qemu-system-x86, linux-image-amd64, busybox-static and cpio (.ci/run
# installs them). KVM is not used: nested KVM hangs on CI hosts, and emulation is enough here.
set -euo pipefail
zoned=0; pollq=1; size=1G; bins=(); files=()
while [ $# -gt 1 ]; do
  case $1 in
    --zoned) zoned=1; shift;;
    --poll-queues) pollq=$2; shift 2;;
    --size) size=$2; shift 2;;
    --bin) bins+=("$2"); shift 2;;
    --file) files+=("$2"); shift 2;;
    *) echo "nvme-vm: unknown option $1" >&2; exit 2;;
  esac
done
script=${1:?usage: run.sh [--zoned] [--poll-queues N] [--size 1G] [--bin FILE]... [--file FILE]... SCRIPT}
[ -r "$script" ] || { echo "nvme-vm: cannot read the script $script" >&2; exit 2; }
# The newest installed kernel: the NVMe modules below must be its own.
kernel=$(ls /boot/vmlinuz-* 2>/dev/null | sort -V | tail -n 1 || true)
[ -n "$kernel" ] || { echo "nvme-vm: no /boot/vmlinuz-* (apt-get install linux-image-amd64)" >&2; exit 2; }
kver=${kernel#/boot/vmlinuz-}
for tool in qemu-system-x86_64:qemu-system-x86 cpio:cpio; do
  command -v "${tool%%:*}" >/dev/null || { echo "nvme-vm: no ${tool%%:*} (apt-get install ${tool##*:})" >&2; exit 2; }
done
[ -x /bin/busybox ] && ! ldd /bin/busybox >/dev/null 2>&1 ||
  { echo "nvme-vm: no static /bin/busybox (apt-get install busybox-static)" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/rigel-nvme-vm.XXXXXX"); trap 'rm -rf "$work"' EXIT
root=$work/root; mkdir -p "$root"/{bin,proc,sys,dev,tmp,mods,files}
cp /bin/busybox "$root/bin/"
ln -s busybox "$root/bin/sh"
copy_with_libs() {
  cp "$1" "$root/bin/"
  for l in $(ldd "$1" 2>/dev/null | awk '/=>/ {print $3} /ld-linux/ {print $1}'); do
    mkdir -p "$root$(dirname "$l")"; cp -L "$l" "$root$l"
  done
}
for b in "${bins[@]}"; do copy_with_libs "$b"; done
for f in "${files[@]}"; do cp "$f" "$root/files/"; done
# The NVMe driver and what it needs, in load order (Debian builds them as modules; a module built
# into the kernel has no file and is skipped).
mods="crypto/crct10dif_common lib/crc64 lib/crc-t10dif lib/crc64-rocksoft block/t10-pi drivers/nvme/common/nvme-common drivers/nvme/host/nvme-core drivers/nvme/host/nvme"
for m in $mods; do
  f=/lib/modules/$kver/kernel/$m.ko
  if [ -f "$f" ]; then cp "$f" "$root/mods/"; elif [ -f "$f.xz" ]; then xz -dc "$f.xz" > "$root/mods/$(basename "$m").ko"; fi
done
cp "$script" "$root/job.sh"
cat > "$root/init" <<INIT
#!/bin/sh
/bin/busybox --install -s /bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev; mount -t tmpfs tmp /tmp
for m in $(for m in $mods; do basename "$m"; done | tr '\n' ' '); do
  [ -f /mods/\$m.ko ] || continue
  if [ \$m = nvme ]; then insmod /mods/\$m.ko poll_queues=$pollq; else insmod /mods/\$m.ko; fi
done
i=0; while [ ! -e /dev/nvme0n1 ] && [ \$i -lt 100 ]; do sleep 0.1; i=\$((i+1)); done
echo "== guest: \$(uname -r), \$(ls /dev/nvme0n1 /dev/ng0n1 2>&1 | tr '\n' ' ')"
cd /tmp; sh /job.sh; echo "== guest: job exit \$?"
sync; poweroff -f
INIT
chmod +x "$root/init"
(cd "$root" && find . | cpio -o -H newc 2>/dev/null | gzip -1) > "$work/initrd.gz"
truncate -s "$size" "$work/ns.img"
if [ "$zoned" = 1 ]; then
  dev=(-device nvme,id=nvme0,serial=rigelzns
       -device "nvme-ns,drive=ns0,bus=nvme0,nsid=1,zoned=true,zoned.zone_size=64M,zoned.max_open=16,zoned.max_active=16")
else
  dev=(-device nvme,serial=rigelnvme,drive=ns0)
fi
# The console's carriage returns and escapes go; only what follows the first guest line is the job's.
timeout 600 qemu-system-x86_64 -accel tcg -cpu max -m 2048 -smp 2 -nographic -no-reboot \
  -kernel "$kernel" -initrd "$work/initrd.gz" -append "console=ttyS0 quiet nokaslr panic=-1" \
  -drive "file=$work/ns.img,if=none,id=ns0,format=raw,discard=unmap" "${dev[@]}" 2>&1 |
  tr -d '\r' | sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g; s/\x1bc//g' | sed -n '/== guest:/,$p'
