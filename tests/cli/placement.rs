//! Placement on real loop devices: a class on its own targets moves no byte on the others, and a
//! class's region is the only part of the device it touches, as the kernel's own counters and
//! its trace of issued requests show.

use super::scenario::Scenario;
use super::scenario::run_spec as run;
use rigel_testkit::{BlockTrace, LoopDevice};
use serde_json::Value;

fn num(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"))
}

/// The window's counters of device `name` in a point.
fn device<'a>(point: &'a Value, name: &str) -> &'a Value {
    point["devices"]
        .as_array()
        .expect("devices recorded")
        .iter()
        .find(|d| d["name"] == name)
        .unwrap_or_else(|| panic!("no device {name} in {}", point["devices"]))
}

/// `targets = ["b"]`: reads and writes on b only; device a serves nothing in the window and is
/// never written in the whole run (its /sys/block stat), while the volume holds both.
#[test]
#[serial_test::parallel]
fn a_class_on_target_b_moves_no_byte_on_a() {
    let (a, b) = (LoopDevice::new(32 << 20), LoopDevice::new(32 << 20));
    let tmp = Scenario::new();
    let written_before = a.sectors_written();
    let spec = format!(
        "[[target]]\nname = \"a\"\npath = \"{}\"\ndestructive = true\n\n\
         [[target]]\nname = \"b\"\npath = \"{}\"\ndestructive = true\n\n\
         [run]\nduration = \"1s\"\n\n\
         [class.onb]\nsize = \"4KiB\"\nmix = \"50% read\"\ntargets = [\"b\"]\n\n\
         [matrix]\nshape = \"point\"\nonb = \"4\"\n",
        a.dev(),
        b.dev()
    );
    let doc = run(tmp.path(), &spec);
    let point = &doc["points"][0];
    let ios = num(&point["classes"][0]["total"]["ios"]);
    assert!(ios > 100, "the class ran: {ios} I/Os");
    let on_a = device(point, a.name());
    let on_b = device(point, b.name());
    for key in ["reads", "writes", "read_bytes", "write_bytes"] {
        assert_eq!(num(&on_a[key]), 0, "device a served {key}: {on_a}");
        assert!(num(&on_b[key]) > 0, "device b served no {key}: {on_b}");
    }
    assert_eq!(
        a.sectors_written(),
        written_before,
        "device a was written during the run"
    );
}

/// Two classes, each confined to its region (`0%..10%` random, `50%..60%` sequential): every
/// request the kernel issued to the device for them lies inside its class's region. The only
/// other requests are the write guard's buffered probes (blkid and rigel reading signatures
/// through the page cache, flagged readahead `RA`); rigel's own I/O is O_DIRECT and never is.
#[test]
#[serial_test::parallel]
fn a_region_issues_no_io_outside_it() {
    let dev = LoopDevice::new(64 << 20);
    let tmp = Scenario::new();
    let numbers = dev.numbers().expect("the device's numbers");
    let trace = BlockTrace::start(&numbers, 16 << 10);
    let spec = format!(
        "[[target]]\npath = \"{}\"\ndestructive = true\n\n[run]\nduration = \"1s\"\n\n\
         [class.hot]\nsize = \"4KiB\"\nmix = \"50% read\"\nregion = \"0%..10%\"\nrate = \"2000 iops\"\n\n\
         [class.scan]\nsize = \"64KiB\"\naccess = \"sequential\"\nmix = \"write\"\n\
         region = \"50%..60%\"\nrate = \"1000 iops\"\n\n\
         [matrix]\nshape = \"point\"\nhot = \"4\"\nscan = \"1\"\n",
        dev.dev()
    );
    let doc = run(tmp.path(), &spec);
    let requests = trace.stop();
    let size = 64u64 << 20;
    let hot = 0..size / 10;
    let scan = size / 2..size * 6 / 10;
    let (mut in_hot, mut in_scan) = (0u64, 0u64);
    for r in &requests {
        let (a, b) = r.bytes();
        if a >= hot.start && b <= hot.end {
            in_hot += 1;
        } else if a >= scan.start && b <= scan.end {
            in_scan += 1;
            assert!(r.is_write(), "the scan class only writes: {r:?}");
        } else {
            assert_eq!(r.rwbs, "RA", "a request outside both regions: {r:?}");
        }
    }
    let point = &doc["points"][0];
    let ios = |c: usize| num(&point["classes"][c]["total"]["ios"]);
    // Every I/O of the window reached the device inside its region (the warmup's too, and no
    // merging of random 4 KiB I/Os).
    assert!(
        in_hot >= ios(0),
        "{in_hot} requests in hot's region, {} I/Os",
        ios(0)
    );
    assert!(
        in_scan > 0 && ios(1) > 0,
        "{in_scan} requests in scan's region"
    );
    // The sequential stream walks its region and wraps: it covers all of it.
    let scan_blocks: std::collections::BTreeSet<u64> = requests
        .iter()
        .filter(|r| r.is_write())
        .map(|r| r.bytes().0 / (64 << 10))
        .collect();
    assert!(scan_blocks.len() as u64 >= (scan.end - scan.start) / (64 << 10) - 1);
}
