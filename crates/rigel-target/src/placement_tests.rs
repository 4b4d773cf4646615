//! Placement on a fake sysfs: a host of two NUMA nodes (CPUs 0-3 and 4-7, siblings 0/4, 1/5, …)
//! whose NVMe disk hangs off node 1 with two hardware queues.

use super::*;
use rigel_expr::CpuSet;
use std::fs;
use std::os::unix::fs::symlink;

/// The fake tree; `disk_node` is what the disk's `device/numa_node` reads (None: no file).
fn fake_host(disk_node: Option<&str>) -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    let r = root.path();
    let disk = r.join("devices/pci0/nvme/nvme0/nvme0n1");
    for d in [
        disk.join("mq/0"),
        disk.join("mq/1"),
        disk.join("device"),
        r.join("dev/block"),
    ] {
        fs::create_dir_all(d).unwrap();
    }
    fs::write(disk.join("mq/0/cpu_list"), "0-3\n").unwrap();
    fs::write(disk.join("mq/1/cpu_list"), "4-7\n").unwrap();
    if let Some(n) = disk_node {
        fs::write(disk.join("device/numa_node"), format!("{n}\n")).unwrap();
    }
    symlink(&disk, r.join("dev/block/259:0")).unwrap();
    for (node, cpus) in [(0, "0-3"), (1, "4-7")] {
        let dir = r.join(format!("devices/system/node/node{node}"));
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("cpulist"), format!("{cpus}\n")).unwrap();
    }
    for cpu in 0..8 {
        let dir = r.join(format!("devices/system/cpu/cpu{cpu}"));
        fs::create_dir_all(dir.join("topology")).unwrap();
        fs::create_dir_all(dir.join("cpufreq")).unwrap();
        let core = cpu % 4;
        let siblings = format!("{core},{}\n", core + 4);
        fs::write(dir.join("topology/thread_siblings_list"), siblings).unwrap();
        let governor = if cpu < 6 { "performance" } else { "powersave" };
        fs::write(
            dir.join("cpufreq/scaling_governor"),
            format!("{governor}\n"),
        )
        .unwrap();
    }
    root
}

fn host(sysfs: &Sysfs) -> Host<'_> {
    Host {
        sysfs,
        allowed: (0..8).collect(),
    }
}

const NVME: (u32, u32) = (259, 0);

#[test]
fn by_default_workers_go_on_the_devices_node_with_its_queues_recorded() {
    let root = fake_host(Some("1"));
    let sysfs = Sysfs::at(root.path());
    let placed = place(None, &[NVME], &host(&sysfs)).unwrap();
    assert_eq!(placed.cpus, Some(vec![4, 5, 6, 7]));
    let p = placed.record(None);
    assert_eq!(p.pinned_by.as_deref(), Some("the device's node 1"));
    assert_eq!(
        p.device_queues,
        vec![DeviceQueues {
            device: "nvme0n1".into(),
            queues: vec!["0-3".into(), "4-7".into()],
        }]
    );
    assert_eq!(p.governor.as_deref(), Some("performance, powersave"));
    assert!(p.notes.is_empty(), "{:?}", p.notes);
}

#[test]
fn workers_on_another_node_than_the_device_are_noted() {
    let root = fake_host(Some("1"));
    let sysfs = Sysfs::at(root.path());
    let placed = place(Some(&CpuSet::Node(0)), &[NVME], &host(&sysfs)).unwrap();
    assert_eq!(placed.cpus, Some(vec![0, 1, 2, 3]));
    let exec = Placement {
        worker_cpus: vec![0, 1],
        ..Placement::default()
    };
    let p = placed.record(Some(exec));
    assert_eq!(p.worker_cpus, vec![0, 1], "the executor's record is kept");
    assert_eq!(p.pinned_by.as_deref(), Some("cpus = \"node:0\""));
    assert_eq!(p.governor.as_deref(), Some("performance"));
    assert_eq!(p.smt_shared, Some(false));
    assert_eq!(p.notes.len(), 1, "{:?}", p.notes);
    assert!(
        p.notes[0].starts_with("workers on node 0, the device nvme0n1 on node 1"),
        "{:?}",
        p.notes
    );
    // Workers on the device's node: nothing to say.
    let on_node = Placement {
        worker_cpus: vec![4, 5],
        ..Placement::default()
    };
    assert!(placed.record(Some(on_node)).notes.is_empty());
}

#[test]
fn smt_siblings_shared_by_two_workers_are_recorded() {
    let root = fake_host(Some("1"));
    let sysfs = Sysfs::at(root.path());
    let asked = CpuSet::List(vec![1, 5]);
    let placed = place(Some(&asked), &[NVME], &host(&sysfs)).unwrap();
    let exec = Placement {
        worker_cpus: vec![1, 5],
        ..Placement::default()
    };
    let p = placed.record(Some(exec));
    assert_eq!(p.pinned_by.as_deref(), Some("cpus = \"1,5\""));
    assert_eq!(p.smt_shared, Some(true));
    assert_eq!(p.notes.len(), 1, "CPU 1 is on node 0: {:?}", p.notes);
}

#[test]
fn a_device_without_a_node_or_a_host_of_one_node_leaves_workers_unpinned() {
    for node in [None, Some("-1")] {
        let root = fake_host(node);
        let sysfs = Sysfs::at(root.path());
        let placed = place(None, &[NVME], &host(&sysfs)).unwrap();
        assert_eq!(placed.cpus, None, "numa_node {node:?}");
        assert_eq!(placed.record(None).pinned_by, None);
    }
    let root = fake_host(Some("0"));
    fs::remove_dir_all(root.path().join("devices/system/node/node1")).unwrap();
    let sysfs = Sysfs::at(root.path());
    assert_eq!(place(None, &[NVME], &host(&sysfs)).unwrap().cpus, None);
}

#[test]
fn cpus_outside_the_affinity_or_a_missing_node_are_errors() {
    let root = fake_host(Some("1"));
    let sysfs = Sysfs::at(root.path());
    let narrow = Host {
        sysfs: &sysfs,
        allowed: vec![0, 1],
    };
    let e = place(Some(&CpuSet::List(vec![1, 2])), &[NVME], &narrow).unwrap_err();
    assert_eq!(
        e.to_string(),
        "cpus = \"1-2\": CPU 2 is not one rigel may run on here (allowed: 0-1); pick CPUs from \
         that list"
    );
    let e = place(Some(&CpuSet::Node(3)), &[NVME], &narrow).unwrap_err();
    assert!(
        e.to_string().contains("no NUMA node 3 (nodes: 0, 1)"),
        "{e}"
    );
    let e = place(Some(&CpuSet::Node(1)), &[NVME], &narrow).unwrap_err();
    assert!(e.to_string().contains("none of node 1's CPUs (4-7)"), "{e}");
}
