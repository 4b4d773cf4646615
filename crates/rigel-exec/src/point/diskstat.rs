//! The block devices under a point's targets, their kernel counters read at the measured window's
//! edges by the coordinating thread (never by a worker: nothing is added to the I/O loop).

use crate::ExecTarget;
use rigel_results::DeviceWindow;
use rigel_target::{Sysfs, holding_device};
use rustix::fs::{FileType, fstat};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The distinct block devices holding a point's targets: a block device target itself, or the
/// device of the filesystem a file lives on. Targets on tmpfs, FUSE or another filesystem without
/// a block device of its own have none.
pub(crate) struct Devices(Vec<(String, PathBuf)>);

/// One reading of a device's `stat` file (Documentation/block/stat.rst).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Counters {
    reads: u64,
    read_sectors: u64,
    writes: u64,
    write_sectors: u64,
    busy_ms: u64,
    in_flight_ms: u64,
}

/// The kernel counts in 512-byte sectors whatever the device's block size.
const SECTOR: u64 = 512;

impl Devices {
    pub(crate) fn of(targets: &[ExecTarget<'_>]) -> Devices {
        let sysfs = Sysfs::default();
        let mut seen = Vec::new();
        let mut list = Vec::new();
        for t in targets {
            let Ok(st) = fstat(t.fd) else { continue };
            // The rule the target stage probed with (`Probe::dev`), applied to the open descriptor.
            let dev = holding_device(
                FileType::from_raw_mode(st.st_mode as _) == FileType::BlockDevice,
                st.st_rdev as _,
                st.st_dev as _,
            );
            if seen.contains(&dev) {
                continue;
            }
            seen.push(dev);
            if let Some(dir) = sysfs.device_dir(dev)
                && dir.join("stat").is_file()
            {
                let name = dir.file_name().map_or_else(
                    || format!("{}:{}", dev.0, dev.1),
                    |n| n.to_string_lossy().into_owned(),
                );
                list.push((name, dir.join("stat")));
            }
        }
        Devices(list)
    }

    /// Every device's counters now (none for one that cannot be read: it went away).
    pub(crate) fn read(&self) -> Vec<Option<Counters>> {
        self.0.iter().map(|(_, stat)| read_counters(stat)).collect()
    }

    /// The devices' figures between two readings `span` apart.
    pub(crate) fn window(
        &self,
        before: &[Option<Counters>],
        after: &[Option<Counters>],
        span: Duration,
    ) -> Vec<DeviceWindow> {
        self.0
            .iter()
            .zip(before.iter().zip(after))
            .filter_map(|((name, _), pair)| match pair {
                (Some(b), Some(a)) => Some(between(name, b, a, span)),
                _ => None,
            })
            .collect()
    }
}

fn read_counters(stat: &Path) -> Option<Counters> {
    parse(&std::fs::read_to_string(stat).ok()?)
}

fn parse(text: &str) -> Option<Counters> {
    let f: Vec<u64> = text
        .split_whitespace()
        .map(str::parse)
        .collect::<Result<_, _>>()
        .ok()?;
    // Fields 1–11 exist since Linux 2.6; discard and flush counts (12–17) are not needed.
    (f.len() >= 11).then(|| Counters {
        reads: f[0],
        read_sectors: f[2],
        writes: f[4],
        write_sectors: f[6],
        busy_ms: f[9],
        in_flight_ms: f[10],
    })
}

fn between(name: &str, b: &Counters, a: &Counters, span: Duration) -> DeviceWindow {
    // Saturating: a device detached and attached again between the readings restarts its counts.
    DeviceWindow {
        name: name.to_owned(),
        reads: a.reads.saturating_sub(b.reads),
        writes: a.writes.saturating_sub(b.writes),
        read_bytes: a.read_sectors.saturating_sub(b.read_sectors) * SECTOR,
        write_bytes: a.write_sectors.saturating_sub(b.write_sectors) * SECTOR,
        busy_ms: a.busy_ms.saturating_sub(b.busy_ms),
        in_flight_ms: a.in_flight_ms.saturating_sub(b.in_flight_ms),
        span_ms: span.as_secs_f64() * 1000.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[serial_test::parallel]
    fn a_stat_line_parses_into_its_fields() {
        // Linux 6.x: 17 fields (reads … time_in_queue, discards, flushes).
        let line = "56229050    58938 2990968618 34260629   386884   435628 164374680   746869        0  2762860 35076978   336331       31 122341304    66830    31860     2648\n";
        let c = parse(line).expect("17 fields");
        assert_eq!((c.reads, c.read_sectors), (56_229_050, 2_990_968_618));
        assert_eq!((c.writes, c.write_sectors), (386_884, 164_374_680));
        assert_eq!((c.busy_ms, c.in_flight_ms), (2_762_860, 35_076_978));
        assert_eq!(parse("1 2 3"), None);
        assert_eq!(parse("not numbers at all 1 2 3 4 5 6 7 8"), None);
    }

    #[test]
    #[serial_test::parallel]
    fn a_window_is_the_difference_in_bytes_of_512_byte_sectors() {
        let b = parse("10 0 80 0 0 0 0 0 0 100 1000").expect("11 fields");
        let a = parse("30 0 240 0 4 0 64 0 0 600 6000").expect("11 fields");
        let w = between("vda", &b, &a, Duration::from_millis(500));
        assert_eq!((w.reads, w.read_bytes), (20, 160 * 512));
        assert_eq!((w.writes, w.write_bytes), (4, 64 * 512));
        assert_eq!((w.busy_ms, w.in_flight_ms, w.span_ms), (500, 5000, 500.0));
        assert_eq!(w.mean_depth(), 10.0);
        // Counters that went back (a device attached again) read as nothing, not as 2^64.
        assert_eq!(between("vda", &a, &b, Duration::from_millis(500)).reads, 0);
    }
}
