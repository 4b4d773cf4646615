//! Reads that never reached the device: a point's own device counters (`devices[]`) against the
//! reads rigel issued in the same window. A sparse file's holes, the page cache or a cache above
//! the device serve reads the device never sees, and the figures then describe memory, not
//! storage; more than was asked (readahead, another user of the device) is told too.
//!
//! Bytes are compared, not request counts: the block layer splits large I/Os and merges
//! adjacent ones, so a 1 MiB read may be two requests, but its bytes are its bytes. Rates are
//! compared, not totals: the device's readings bracket the window from the coordinating thread,
//! a little wider than rigel's own window.

use super::warning::Warning;
use crate::PointResult;
use rigel_expr::units;

/// Below this share of rigel's read bytes, the device did not serve the reads.
pub const LOW: f64 = 0.9;
/// Above it, the device read more than rigel asked.
pub const HIGH: f64 = 1.1;
/// Fewer reads than this in a window are too few to judge by (a device's own background reads
/// would dominate).
const MIN_READS: u64 = 100;

/// One warning per point whose devices read apart from rigel, or, for more than a few points,
/// one for them all with the counts summed (the figures a reader checks, not a span of ratios).
pub fn device_warnings<'a>(points: impl Iterator<Item = &'a PointResult>) -> Vec<Warning> {
    let found: Vec<(&PointResult, Warning)> = points
        .filter_map(|p| device_share(p).map(|w| (p, w)))
        .collect();
    if found.len() <= super::warning::LISTED {
        return found.into_iter().map(|(_, w)| w).collect();
    }
    let (mut dev_reads, mut dev_bytes, mut ios, mut bytes) = (0u64, 0u64, 0u64, 0u64);
    let mut names: Vec<&str> = Vec::new();
    for (p, _) in &found {
        for d in &p.devices {
            dev_reads += d.reads;
            dev_bytes += d.read_bytes;
            if !names.contains(&d.name.as_str()) {
                names.push(&d.name);
            }
        }
        let reads = p.classes.iter().filter_map(|c| c.read.as_ref());
        for r in reads {
            ios += r.ios;
            bytes += r.bytes;
        }
    }
    let ids: Vec<u32> = found.iter().map(|(p, _)| p.point.id).collect();
    let lo = found
        .iter()
        .map(|(_, w)| w.figure)
        .fold(f64::INFINITY, f64::min);
    let hi = found.iter().map(|(_, w)| w.figure).fold(0.0, f64::max);
    let why = if hi < LOW {
        "served from page cache, holes or a cache above the device"
    } else {
        "the device did not read what rigel read (page cache, holes, a cache above the device, \
         readahead or another user)"
    };
    let span = if units::share(lo) == units::share(hi) {
        units::share(lo)
    } else {
        format!("{} to {}", units::share(lo), units::share(hi))
    };
    vec![Warning {
        kind: "device",
        point: None,
        points: ids.clone(),
        class: None,
        figure: hi,
        message: format!(
            "{} points ({}): the device ({}) completed {} reads ({}) in their windows while rigel \
             issued {} reads ({}): {span} of rigel's read rate reached it; {why}",
            ids.len(),
            super::warning::ranges(&ids),
            names.join(", "),
            units::thousands(dev_reads as f64),
            units::size(dev_bytes as f64),
            units::thousands(ios as f64),
            units::size(bytes as f64),
        ),
        evidence: None,
        volume: false,
    }]
}

/// The warning for one point, when its devices read less than [`LOW`] or more than [`HIGH`] of
/// what rigel read. None without device figures (tmpfs, FUSE, a fleet's merged point).
pub fn device_share(p: &PointResult) -> Option<Warning> {
    if p.devices.is_empty() || p.elapsed_s <= 0.0 {
        return None;
    }
    let (ios, bytes) = p
        .classes
        .iter()
        .filter_map(|c| c.read.as_ref())
        .fold((0u64, 0u64), |(n, b), r| (n + r.ios, b + r.bytes));
    if ios < MIN_READS || bytes == 0 {
        return None;
    }
    let span_ms = p.devices.iter().map(|d| d.span_ms).fold(0.0, f64::max);
    if span_ms <= 0.0 {
        return None;
    }
    let dev_reads: u64 = p.devices.iter().map(|d| d.reads).sum();
    let dev_bytes: u64 = p.devices.iter().map(|d| d.read_bytes).sum();
    let dev_rate = dev_bytes as f64 * 1000.0 / span_ms;
    let rigel_rate = bytes as f64 / p.elapsed_s;
    let share = dev_rate / rigel_rate;
    if (LOW..=HIGH).contains(&share) {
        return None;
    }
    let names: Vec<&str> = p.devices.iter().map(|d| d.name.as_str()).collect();
    let why = if share < LOW {
        "served from page cache, holes or a cache above the device"
    } else {
        "readahead, a cache above the device filling itself, or another user of the device"
    };
    Some(Warning {
        kind: "device",
        point: Some(p.point.id),
        points: vec![p.point.id],
        class: None,
        figure: share,
        message: format!(
            "point {} ({}): the device ({}) completed {} reads ({}) in {} while rigel issued {} \
             reads ({}) in {}: {} of rigel's read rate reached it; {why}",
            p.point.id,
            p.point.label(),
            names.join(", "),
            units::thousands(dev_reads as f64),
            units::size(dev_bytes as f64),
            units::seconds(span_ms / 1000.0),
            units::thousands(ios as f64),
            units::size(bytes as f64),
            units::seconds(p.elapsed_s),
            units::share(share),
        ),
        evidence: None,
        volume: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ClassRecorder, CpuTime, DeviceWindow, PointStatus};
    use rigel_expr::{Access, Mix};
    use rigel_plan::{ClassLoad, DataPoint};

    /// 2 s of 1,000 8 KiB reads, and a device that served `dev_reads` of them over `span_ms`.
    fn point(dev_reads: u64, span_ms: f64) -> PointResult {
        let mut r = ClassRecorder::new(1);
        (0..1000).for_each(|_| r.record(false, 50_000, 8192, 0));
        let class = r.finish("small", 8192, 1, true, false, 2.0);
        let load = ClassLoad {
            class: "small".into(),
            size: 8192,
            access: Access::Random,
            mix: Mix::reads_of(100),
            load: 1,
            per_stream: 1,
            outstanding: 1,
            rate: None,
            arrival: Default::default(),
            pattern: Default::default(),
            engine: Default::default(),
        };
        PointResult {
            point: DataPoint {
                id: 3,
                sweep: Vec::new(),
                classes: vec![load],
            },
            status: PointStatus::Ok,
            started: String::new(),
            elapsed_s: 2.0,
            classes: vec![class],
            cpu: CpuTime::default(),
            window: None,
            partial: None,
            paused: None,
            fleet: None,
            steady: None,
            drain: None,
            devices: vec![DeviceWindow {
                name: "vdb".into(),
                reads: dev_reads,
                writes: 0,
                read_bytes: dev_reads * 8192,
                write_bytes: 0,
                busy_ms: 0,
                in_flight_ms: 0,
                span_ms,
            }],
            integrity: None,
            engines: Vec::new(),
            placement: None,
            host: None,
        }
    }

    #[test]
    fn a_device_that_saw_none_of_the_reads_is_named_with_both_counts() {
        let w = device_share(&point(0, 2000.0)).expect("a warning");
        assert_eq!(w.kind, "device");
        assert_eq!(w.figure, 0.0);
        assert!(
            w.message
                .contains("the device (vdb) completed 0 reads (0 B) in 2 s")
                && w.message
                    .contains("rigel issued 1,000 reads (7.8 MiB) in 2 s: 0%")
                && w.message
                    .contains("page cache, holes or a cache above the device"),
            "{}",
            w.message
        );
    }

    #[test]
    fn rates_are_compared_so_a_wider_device_window_is_no_shortfall() {
        // The device's readings bracket 2.1 s: 1,040 reads there is 99% of rigel's rate.
        assert_eq!(device_share(&point(1040, 2100.0)), None);
        assert_eq!(device_share(&point(950, 2000.0)), None);
        let low = device_share(&point(850, 2000.0)).expect("85% is short");
        assert!(low.message.contains("85%"), "{}", low.message);
        let high = device_share(&point(1300, 2000.0)).expect("130% is more");
        assert!(high.message.contains("readahead"), "{}", high.message);
    }

    #[test]
    fn many_points_are_told_once_with_the_counts_summed() {
        let pts: Vec<PointResult> = (1..=5)
            .map(|id| {
                let mut p = point(if id == 5 { 2 } else { 0 }, 2000.0);
                p.point.id = id;
                p
            })
            .collect();
        let w = device_warnings(pts.iter());
        assert_eq!(w.len(), 1, "{w:?}");
        assert_eq!(
            w[0].message,
            "5 points (1–5): the device (vdb) completed 2 reads (16 KiB) in their windows while \
             rigel issued 5,000 reads (39.1 MiB): 0% to 0.2% of rigel's read rate reached it; \
             served from page cache, holes or a cache above the device"
        );
        assert_eq!(device_warnings(pts[..3].iter()).len(), 3);
    }

    #[test]
    fn no_devices_or_too_few_reads_say_nothing() {
        let mut p = point(0, 2000.0);
        p.devices.clear();
        assert_eq!(device_share(&p), None);
    }
}
