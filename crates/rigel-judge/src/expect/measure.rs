//! Writing a requirement's figure for people, in its unit. Reading figures is the results model's
//! (`rigel_results::view`).

use rigel_expr::Stat;
use rigel_expr::units;

/// `41,235 IOPS`, `512.3 MiB/s`, `420 µs`: a figure with its unit (`rigel_expr::units`).
pub fn format_stat(stat: Stat, value: f64) -> String {
    match stat {
        Stat::Iops => units::iops(value),
        Stat::Mbps => units::mibps(value),
        Stat::Latency(_) | Stat::Service(_) => units::latency(value),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rigel_expr::LatencyStat;

    #[test]
    fn figures_read_with_their_units() {
        assert_eq!(format_stat(Stat::Iops, 41234.6), "41,235 IOPS");
        assert_eq!(format_stat(Stat::Mbps, 512.34), "512.3 MiB/s");
        let p99 = Stat::Latency(LatencyStat::P99);
        assert_eq!(format_stat(p99, 420_000.0), "420 µs");
    }
}
