//! Reading one figure out of a point's results, and writing figures for people: the measuring side
//! shared by requirements and comparisons.

use crate::expr::{Direction, LatencyStat, Stat};
use crate::plan::ClassLoad;
use crate::stats::{ClassResult, DirStats, PointResult};

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
    if !p.counts() {
        return None;
    }
    let c = p.class(class)?;
    dir_stats(c, direction).map(|d| stat_value(d, stat))
}

/// The planned parameters of a class at a point.
pub fn class_load<'a>(p: &'a PointResult, class: &str) -> Option<&'a ClassLoad> {
    p.point.classes.iter().find(|c| c.class == class)
}

/// `41235 IOPS`, `512.3 MiB/s`, `420us`: a figure with its unit, to about four significant digits.
pub fn format_stat(stat: Stat, value: f64) -> String {
    match stat {
        Stat::Iops => format!("{} IOPS", format_number(value)),
        Stat::Mbps => format!("{} MiB/s", format_number(value)),
        Stat::Latency(_) => format_ns(value),
    }
}

/// Whole numbers from 1000 up, decimals below (to about four significant digits).
pub fn format_number(v: f64) -> String {
    let a = v.abs();
    if a >= 1000.0 || a == a.trunc() {
        format!("{v:.0}")
    } else if a >= 100.0 {
        format!("{v:.1}")
    } else if a >= 10.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}

/// A latency in the unit that suits it: `850ns`, `12.3us`, `1.25ms`, `2.00s`.
pub fn format_ns(ns: f64) -> String {
    let a = ns.abs();
    if a < 1e3 {
        format!("{ns:.0}ns")
    } else if a < 1e4 {
        format!("{:.2}us", ns / 1e3)
    } else if a < 1e6 {
        format!("{:.1}us", ns / 1e3)
    } else if a < 1e9 {
        format!("{:.2}ms", ns / 1e6)
    } else {
        format!("{:.2}s", ns / 1e9)
    }
}

/// `+3.1%`, `-22.4%`, `0.0%`.
pub fn format_percent(p: f64) -> String {
    if p.abs() < 0.05 {
        "0.0%".to_owned()
    } else {
        format!("{p:+.1}%")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_read_with_their_units() {
        assert_eq!(format_stat(Stat::Iops, 41234.6), "41235 IOPS");
        assert_eq!(format_stat(Stat::Iops, 12.25), "12.25 IOPS");
        assert_eq!(format_stat(Stat::Mbps, 512.34), "512.3 MiB/s");
        assert_eq!(format_stat(Stat::Mbps, 2048.0), "2048 MiB/s");
        let p99 = Stat::Latency(LatencyStat::P99);
        assert_eq!(format_stat(p99, 850.0), "850ns");
        assert_eq!(format_stat(p99, 4_250.0), "4.25us");
        assert_eq!(format_stat(p99, 420_000.0), "420.0us");
        assert_eq!(format_stat(p99, 1_250_000.0), "1.25ms");
        assert_eq!(format_stat(p99, 2e9), "2.00s");
        assert_eq!(format_percent(3.12), "+3.1%");
        assert_eq!(format_percent(-22.44), "-22.4%");
        assert_eq!(format_percent(0.01), "0.0%");
    }
}
