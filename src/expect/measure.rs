//! Reading one figure out of a point's results, and writing figures for people: the measuring side
//! shared by requirements and comparisons.

use crate::expr::{Direction, LatencyStat, Stat};
use crate::plan::ClassLoad;
use crate::stats::{ClassResult, DirStats, PointResult, PointStatus};
use crate::units;

/// The figures of one class and direction at a point, when that direction did any I/O.
pub fn dir_stats(c: &ClassResult, direction: Direction) -> Option<&DirStats> {
    let d = match direction {
        Direction::Total => Some(&c.total),
        Direction::Read => c.read.as_ref(),
        Direction::Write => c.write.as_ref(),
    };
    d.filter(|d| d.ios > 0)
}

/// A figure in its natural unit: IOPS, MiB/s, or nanoseconds for latencies.
pub fn stat_value(d: &DirStats, stat: Stat) -> f64 {
    let l = &d.latency;
    match stat {
        Stat::Iops => d.iops,
        Stat::Mbps => d.mbps,
        Stat::Latency(s) => match s {
            LatencyStat::Min => l.min_ns as f64,
            LatencyStat::Mean => l.mean_ns,
            LatencyStat::Stdev => l.stdev_ns,
            LatencyStat::P50 => l.p50_ns as f64,
            LatencyStat::P90 => l.p90_ns as f64,
            LatencyStat::P99 => l.p99_ns as f64,
            LatencyStat::P99_9 => l.p99_9_ns as f64,
            LatencyStat::P99_99 => l.p99_99_ns as f64,
            LatencyStat::Max => l.max_ns as f64,
        },
    }
}

/// The figure of `class` at a point that finished without error and ran the class in `direction`.
pub fn point_value(p: &PointResult, class: &str, direction: Direction, stat: Stat) -> Option<f64> {
    if !matches!(p.status, PointStatus::Ok) {
        return None;
    }
    let c = p.class(class)?;
    dir_stats(c, direction).map(|d| stat_value(d, stat))
}

/// The planned parameters of a class at a point.
pub fn class_load<'a>(p: &'a PointResult, class: &str) -> Option<&'a ClassLoad> {
    p.point.classes.iter().find(|c| c.class == class)
}

/// `41,235 IOPS`, `512.3 MiB/s`, `420 µs`: a figure with its unit (`crate::units`).
pub fn format_stat(stat: Stat, value: f64) -> String {
    match stat {
        Stat::Iops => units::iops(value),
        Stat::Mbps => units::mibps(value),
        Stat::Latency(_) => units::latency(value),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_read_with_their_units() {
        assert_eq!(format_stat(Stat::Iops, 41234.6), "41,235 IOPS");
        assert_eq!(format_stat(Stat::Mbps, 512.34), "512.3 MiB/s");
        let p99 = Stat::Latency(LatencyStat::P99);
        assert_eq!(format_stat(p99, 420_000.0), "420 µs");
    }
}
