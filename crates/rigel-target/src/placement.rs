//! Where a run's workers go and what serves its devices: the CPU list handed to the executor
//! (`[run] cpus`, else the device's NUMA node on a host of several nodes), and the host facts
//! recorded with every point (each device's hardware queues and the CPUs serving them, the
//! frequency governor, shared SMT siblings, workers on another node than the device).

use super::sysfs::{Sysfs, read_trimmed};
use rigel_expr::{CpuSet, format_cpu_list, parse_cpu_list};
use rigel_results::{DeviceQueues, Placement};
use std::collections::BTreeSet;
use std::path::Path;

/// `cpus` names CPUs this process may not run on, or a node the host lacks.
#[derive(Debug, thiserror::Error)]
pub enum PlacementError {
    #[error(
        "cpus = \"{asked}\": CPU {cpu} is not one rigel may run on here (allowed: {allowed}); \
         pick CPUs from that list"
    )]
    NotAllowed {
        asked: String,
        cpu: u32,
        allowed: String,
    },
    #[error(
        "cpus = \"{asked}\": this host has no NUMA node {node} (nodes: {nodes}); pick one of \
         them, or list CPUs (\"0-3\")"
    )]
    NoNode {
        asked: String,
        node: u32,
        nodes: String,
    },
    #[error(
        "cpus = \"{asked}\": none of node {node}'s CPUs ({cpus}) is one rigel may run on here \
         (allowed: {allowed})"
    )]
    NodeNotAllowed {
        asked: String,
        node: u32,
        cpus: String,
        allowed: String,
    },
}

/// The run's placement: the CPUs handed to the executor and the facts recorded per point.
#[derive(Clone, Debug, Default)]
pub struct Placed {
    /// The CPUs the workers are pinned to, round-robin (None: unpinned).
    pub cpus: Option<Vec<u32>>,
    pinned_by: Option<String>,
    device_queues: Vec<DeviceQueues>,
    /// The devices' NUMA nodes by name (devices without one are absent).
    device_nodes: Vec<(String, u32)>,
    /// Each node's CPUs.
    nodes: Vec<(u32, Vec<u32>)>,
    /// The CPUs this process may run on (its affinity): what unpinned workers may use.
    allowed: Vec<u32>,
    notes: Vec<String>,
    sysfs: Sysfs,
}

/// What a placement reads: sysfs (a fake tree in tests) and the CPUs the process may run on.
pub struct Host<'a> {
    pub sysfs: &'a Sysfs,
    pub allowed: Vec<u32>,
}

impl Host<'_> {
    /// This host: /sys and this process's affinity (`Cpus_allowed_list` in /proc/self/status).
    pub fn this(sysfs: &Sysfs) -> Host<'_> {
        let allowed = std::fs::read_to_string("/proc/self/status")
            .ok()
            .and_then(|s| {
                let line = s.lines().find(|l| l.starts_with("Cpus_allowed_list:"))?;
                parse_cpu_list(line.trim_start_matches("Cpus_allowed_list:")).ok()
            })
            .unwrap_or_default();
        Host { sysfs, allowed }
    }
}

/// Resolves where the workers of a run on the devices `devs` (major:minor, in target order) go:
/// `asked` (`[run] cpus`), else the devices' NUMA node where they share one and the host has
/// several; and reads the facts recorded with every point.
pub fn place(
    asked: Option<&CpuSet>,
    devs: &[(u32, u32)],
    host: &Host,
) -> Result<Placed, PlacementError> {
    let sysfs = host.sysfs;
    let nodes = nodes(sysfs.root());
    let mut placed = Placed {
        nodes: nodes.clone(),
        allowed: host.allowed.clone(),
        sysfs: sysfs.clone(),
        ..Placed::default()
    };
    let mut seen = BTreeSet::new();
    for &dev in devs {
        let (Some(disk), Some(name)) = (sysfs.disk_dir(dev), sysfs.name(dev)) else {
            continue;
        };
        let name = disk
            .file_name()
            .map_or(name, |n| n.to_string_lossy().into_owned());
        if !seen.insert(name.clone()) {
            continue;
        }
        let queues = queues(&disk);
        if !queues.is_empty() {
            placed.device_queues.push(DeviceQueues {
                device: name.clone(),
                queues,
            });
        }
        // `-1` (or no file): the device is not attached to a node.
        if let Some(node) =
            read_trimmed(&disk.join("device/numa_node")).and_then(|s| s.parse().ok())
        {
            placed.device_nodes.push((name, node));
        }
    }
    let allowed_text = format_cpu_list(&host.allowed);
    match asked {
        Some(CpuSet::List(cpus)) => {
            let asked_text = format_cpu_list(cpus);
            if let Some(&cpu) = cpus.iter().find(|c| !host.allowed.contains(c)) {
                return Err(PlacementError::NotAllowed {
                    asked: asked_text,
                    cpu,
                    allowed: allowed_text,
                });
            }
            placed.cpus = Some(cpus.clone());
            placed.pinned_by = Some(format!("cpus = \"{asked_text}\""));
        }
        Some(CpuSet::Node(node)) => {
            let Some((_, cpus)) = nodes.iter().find(|(n, _)| n == node) else {
                return Err(PlacementError::NoNode {
                    asked: format!("node:{node}"),
                    node: *node,
                    nodes: node_names(&nodes),
                });
            };
            let usable: Vec<u32> = cpus
                .iter()
                .copied()
                .filter(|c| host.allowed.contains(c))
                .collect();
            if usable.is_empty() {
                return Err(PlacementError::NodeNotAllowed {
                    asked: format!("node:{node}"),
                    node: *node,
                    cpus: format_cpu_list(cpus),
                    allowed: allowed_text,
                });
            }
            placed.cpus = Some(usable);
            placed.pinned_by = Some(format!("cpus = \"node:{node}\""));
        }
        None => placed.by_device_node(),
    }
    Ok(placed)
}

impl Placed {
    /// The default: the devices' node's CPUs (those the process may use), where the host has
    /// several nodes and every device with a node is on the same one. On a host of one node
    /// pinning would change nothing but the scheduler's freedom, so the workers stay unpinned.
    fn by_device_node(&mut self) {
        if self.nodes.len() < 2 {
            return;
        }
        let device_nodes: BTreeSet<u32> = self.device_nodes.iter().map(|(_, n)| *n).collect();
        let mut it = device_nodes.iter();
        let (Some(&node), None) = (it.next(), it.next()) else {
            if device_nodes.len() > 1 {
                self.notes.push(format!(
                    "the devices are on nodes {}: workers not pinned",
                    device_nodes
                        .iter()
                        .map(u32::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            return;
        };
        let cpus: Vec<u32> = self
            .nodes
            .iter()
            .find(|(n, _)| *n == node)
            .map(|(_, cpus)| {
                cpus.iter()
                    .copied()
                    .filter(|c| self.allowed.contains(c))
                    .collect()
            })
            .unwrap_or_default();
        if cpus.is_empty() {
            self.notes.push(format!(
                "rigel may run on no CPU of the device's node {node}: workers not pinned"
            ));
            return;
        }
        self.cpus = Some(cpus);
        self.pinned_by = Some(format!("the device's node {node}"));
    }

    /// A point's placement: what the executor recorded (`worker_cpus`) with the host facts added.
    pub fn record(&self, from_exec: Option<Placement>) -> Placement {
        let mut p = from_exec.unwrap_or_default();
        p.pinned_by = self.pinned_by.clone();
        p.device_queues = self.device_queues.clone();
        // The workers' CPUs where known, else those they may run on.
        let cpus: Vec<u32> = if p.worker_cpus.is_empty() {
            self.cpus.clone().unwrap_or_else(|| self.allowed.clone())
        } else {
            p.worker_cpus.clone()
        };
        p.governor = self.governor(&cpus);
        p.smt_shared = (!p.worker_cpus.is_empty()).then(|| self.smt_shared(&p.worker_cpus));
        p.notes = self.notes.clone();
        p.notes.extend(self.node_mismatch(&p.worker_cpus));
        p
    }

    /// The governors of `cpus`, each once (`performance`; `performance, powersave` when mixed).
    fn governor(&self, cpus: &[u32]) -> Option<String> {
        let mut seen: Vec<String> = Vec::new();
        for cpu in cpus {
            let path = self.sysfs.root().join(format!(
                "devices/system/cpu/cpu{cpu}/cpufreq/scaling_governor"
            ));
            if let Some(g) = read_trimmed(&path)
                && !seen.contains(&g)
            {
                seen.push(g);
            }
        }
        (!seen.is_empty()).then(|| seen.join(", "))
    }

    /// Whether two workers ran on distinct CPUs that are SMT siblings of one core.
    fn smt_shared(&self, workers: &[u32]) -> bool {
        let distinct: BTreeSet<u32> = workers.iter().copied().collect();
        distinct.iter().any(|cpu| {
            let path = self.sysfs.root().join(format!(
                "devices/system/cpu/cpu{cpu}/topology/thread_siblings_list"
            ));
            read_trimmed(&path)
                .and_then(|s| parse_cpu_list(&s).ok())
                .is_some_and(|sib| sib.iter().any(|s| s != cpu && distinct.contains(s)))
        })
    }

    /// `workers on node 0, the device loop0 on node 1` when a worker ran off its device's node.
    fn node_mismatch(&self, workers: &[u32]) -> Vec<String> {
        let node_of = |cpu: &u32| {
            self.nodes
                .iter()
                .find(|(_, c)| c.contains(cpu))
                .map(|(n, _)| *n)
        };
        let worker_nodes: BTreeSet<u32> = workers.iter().filter_map(node_of).collect();
        if worker_nodes.is_empty() {
            return Vec::new();
        }
        let list = |s: &BTreeSet<u32>| s.iter().map(u32::to_string).collect::<Vec<_>>().join(", ");
        self.device_nodes
            .iter()
            .filter(|(_, node)| worker_nodes.iter().any(|w| w != node))
            .map(|(dev, node)| {
                let on = if worker_nodes.len() == 1 {
                    "node"
                } else {
                    "nodes"
                };
                format!(
                    "workers on {on} {}, the device {dev} on node {node}: each I/O crosses the \
                     interconnect",
                    list(&worker_nodes)
                )
            })
            .collect()
    }
}

/// The host's NUMA nodes and their CPUs (`/sys/devices/system/node/nodeN/cpulist`), by number.
fn nodes(root: &Path) -> Vec<(u32, Vec<u32>)> {
    let Ok(entries) = std::fs::read_dir(root.join("devices/system/node")) else {
        return Vec::new();
    };
    let mut nodes: Vec<(u32, Vec<u32>)> = entries
        .flatten()
        .filter_map(|e| {
            let n: u32 = e.file_name().to_str()?.strip_prefix("node")?.parse().ok()?;
            let cpus =
                read_trimmed(&e.path().join("cpulist")).and_then(|s| parse_cpu_list(&s).ok());
            Some((n, cpus.unwrap_or_default()))
        })
        .collect();
    nodes.sort();
    nodes
}

fn node_names(nodes: &[(u32, Vec<u32>)]) -> String {
    if nodes.is_empty() {
        return "none in sysfs".into();
    }
    nodes
        .iter()
        .map(|(n, _)| n.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// A blk-mq device's hardware queues, each as the CPU list serving it (`mq/N/cpu_list`), in
/// queue order.
fn queues(disk: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(disk.join("mq")) else {
        return Vec::new();
    };
    let mut queues: Vec<(u32, String)> = entries
        .flatten()
        .filter_map(|e| {
            let n: u32 = e.file_name().to_str()?.parse().ok()?;
            Some((n, read_trimmed(&e.path().join("cpu_list"))?))
        })
        .collect();
    queues.sort();
    queues.into_iter().map(|(_, l)| l).collect()
}

#[cfg(test)]
#[path = "placement_tests.rs"]
mod tests;
