#!/usr/bin/env bash
# A fleet run through real Slurm on one machine: brings up munge, slurmctld and slurmd on localhost
# with a minimal slurm.conf, runs `srun -n 4 rigel run SPEC --fleet DIR` over 4 O_DIRECT files (one
# per rank through ${rank}), checks the merged result, and stops the daemons it started.
#   apt-get install -y slurm-wlm munge && tests/slurm-fleet.sh [path/to/rigel]
# Needs root (slurmd and munged run as root here). Exit 0 when the fleet merged with every point whole.
set -euo pipefail
cd "$(dirname "$0")/.."
rigel=$(realpath "${1:-target/debug/rigel}")
for tool in slurmctld slurmd srun munged; do
  command -v "$tool" >/dev/null || { echo "skipped: $tool is not installed (apt-get install slurm-wlm munge)"; exit 0; }
done
[ "$(id -u)" = 0 ] || { echo "skipped: needs root"; exit 0; }

work=$(mktemp -d /tmp/rigel-slurm.XXXXXX)
node=$(hostname -s)
cleanup() {
  for pidfile in "$work/slurmd.pid" "$work/slurmctld.pid" "$work/munged.pid"; do
    [ -s "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null || true
  done
  sleep 1
  rm -rf "$work"
}
trap cleanup EXIT

mkdir -p "$work/state" "$work/spool" "$work/munge" /run/munge
[ -s /etc/munge/munge.key ] || { dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none; chmod 400 /etc/munge/munge.key; }
munged --force --socket="$work/munge/munge.socket" --pid-file="$work/munged.pid" \
  --log-file="$work/munged.log" --seed-file="$work/munge/seed"

cat > "$work/slurm.conf" <<CONF
ClusterName=rigeltest
SlurmctldHost=$node(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$work/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/linear
ReturnToService=2
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=debug Nodes=$node Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
export SLURM_CONF="$work/slurm.conf"
slurmctld
slurmd -N "$node"
for _ in $(seq 60); do
  sinfo -h -o %T 2>/dev/null | grep -qE '^(idle|mixed|allocated)' && break
  sleep 1
done
sinfo
sinfo -h -o %T | grep -qE "^(idle|mixed|allocated)" || { tail -5 "$work/slurmd.log" "$work/slurmctld.log"; exit 1; }

cat > "$work/fleet.toml" <<SPEC
[spec]
name = "slurm-fleet"

[[target]]
path = "$work/target-\${rank}.bin"
size = "16MiB"

[run]
duration = "1s"
warmup = "0s"

[class.small]
size = "4KiB"
access = "random"
mix = "read"

[matrix]
shape = "row"
small = "1, 2, 4"
SPEC

srun -n 4 --overcommit --chdir "$work" "$rigel" run "$work/fleet.toml" --fleet "$work/fleet"
python3 - "$work/fleet/results.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["fleet"]["ranks"] == 4, doc["fleet"]
for p in doc["points"]:
    f = p["fleet"]
    total = p["classes"][0]["total"]
    iops = sum(r["classes"][0]["iops"] for r in f["per_rank"])
    ios = sum(r["classes"][0]["ios"] for r in f["per_rank"])
    assert abs(total["iops"] - iops) < 1e-6 * iops and total["ios"] == ios, p["point"]["id"]
    assert f["hosts"] == 4 and f["overlap_pct"] >= 95 and "partial" not in p, f
    print(f"point {p['point']['id']}: {total['iops']:.0f} IOPS from 4 ranks, windows overlap {f['overlap_pct']:.1f}%")
print("slurm fleet: ok")
PY
