use super::*;
use std::fs;

const MANAGED: Zones = Zones {
    model: ZoneModel::HostManaged,
    zone_size: 64 << 20,
    count: Some(16),
    max_open: Some(16),
    max_active: None,
};

use crate::open::checked_spec as checked;

fn refusals(text: &str, model: ZoneModel) -> Vec<SpecError> {
    let (spec, plan) = checked(text);
    refusals_with(&spec, &plan, |p| {
        (p == Path::new("/dev/zns")).then_some(Zones { model, ..MANAGED })
    })
}

const SPEC: &str = r#"
[spec]
name = "z"
[[target]]
name = "zns"
path = "/dev/zns"
destructive = true
[[target]]
name = "plain"
path = "/dev/plain"
destructive = true
[class.rw]
size = "4KiB"
access = "random"
mix = "70% read"
[class.reads]
size = "4KiB"
access = "random"
mix = "read"
[class.plainw]
size = "4KiB"
access = "random"
mix = "write"
targets = ["plain"]
[matrix]
shape = "point"
rw = "1"
reads = "1"
plainw = "1"
"#;

#[test]
fn random_writes_to_a_host_managed_target_are_refused_at_the_class_access() {
    let errors = refusals(SPEC, ZoneModel::HostManaged);
    assert_eq!(errors.len(), 1, "{errors:?}");
    let e = &errors[0];
    assert!(
        e.message
            .contains("class `rw` writes at random offsets to /dev/zns")
            && e.message
                .contains("host-managed, 16 zones of 64 MiB, at most 16 open")
            && e.message.contains("Zone Invalid Write"),
        "{}",
        e.message
    );
    assert_eq!(e.label, "random writes");
    let span = e.loc.as_ref().expect("a location").span.clone();
    let rw_access = SPEC.find("access = \"random\"").expect("rw's access");
    assert!(
        span.start >= rw_access && span.end <= rw_access + 17,
        "{span:?}"
    );
    assert!(
        e.hint
            .as_deref()
            .is_some_and(|h| h.contains("mix = \"read\""))
    );
}

#[test]
fn host_aware_and_unzoned_targets_take_any_write() {
    assert!(refusals(SPEC, ZoneModel::HostAware).is_empty());
    let (spec, plan) = checked(SPEC);
    assert!(refusals_with(&spec, &plan, |_| None).is_empty());
}

#[test]
fn sequential_streams_are_refused_too() {
    let text = SPEC.replacen("access = \"random\"", "access = \"sequential\"", 1);
    let errors = refusals(&text, ZoneModel::HostManaged);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].label, "sequential streams");
}

#[test]
fn sysfs_zones_are_read_from_the_disks_queue() {
    let root = tempfile::tempdir().unwrap();
    let r = root.path();
    let disk = r.join("devices/pci0/nvme/nvme0/nvme0n1");
    let plain = r.join("devices/pci0/nvme/nvme1/nvme1n1");
    fs::create_dir_all(disk.join("queue")).unwrap();
    fs::create_dir_all(plain.join("queue")).unwrap();
    fs::create_dir_all(r.join("dev/block")).unwrap();
    for (name, text) in [
        ("zoned", "host-managed\n"),
        ("chunk_sectors", "131072\n"),
        ("nr_zones", "16\n"),
        ("max_open_zones", "14\n"),
        ("max_active_zones", "0\n"),
    ] {
        fs::write(disk.join("queue").join(name), text).unwrap();
    }
    fs::write(plain.join("queue/zoned"), "none\n").unwrap();
    std::os::unix::fs::symlink(&disk, r.join("dev/block/259:0")).unwrap();
    std::os::unix::fs::symlink(&plain, r.join("dev/block/259:1")).unwrap();
    let sys = Sysfs::at(r);
    let z = sys.zones((259, 0)).expect("zoned");
    assert_eq!(
        z,
        Zones {
            max_open: Some(14),
            max_active: None,
            ..MANAGED
        }
    );
    assert_eq!(
        z.describe(),
        "host-managed, 16 zones of 64 MiB, at most 14 open and any number active"
    );
    assert_eq!(sys.zones((259, 1)), None);
    assert_eq!(sys.zones((259, 9)), None);
}

#[test]
fn zones_sequential_lets_writes_run_up_to_the_open_zone_limit() {
    let zoned = |load: u32| {
        SPEC.replace("[class.rw]", "[run]\nzones = \"sequential\"\n[class.rw]")
            .replace("rw = \"1\"", &format!("rw = \"{load}\""))
    };
    // 15 + the plain class's 1 writes in flight: at the limit of 16 open zones, nothing refused.
    assert!(refusals(&zoned(15), ZoneModel::HostManaged).is_empty());
    let text = zoned(16);
    let errors = refusals(&text, ZoneModel::HostManaged);
    assert_eq!(errors.len(), 1, "{errors:?}");
    let e = &errors[0];
    assert!(
        e.message.contains(
            "holds a zone open per writing I/O in flight, up to 17 in a point, but /dev/zns"
        ) && e.message.contains("holds at most 16"),
        "{}",
        e.message
    );
    let at = text.find("\"sequential\"").unwrap();
    assert!(e.loc.as_ref().is_some_and(|l| l.span.start == at), "{e:?}");
}
