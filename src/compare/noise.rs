//! How much a figure moves by itself: the spread of the per-second intervals of both runs, as a band
//! (about 95%) on the change of the mean. A change inside the band is noise, whatever the threshold.

use crate::expr::{LatencyStat, Stat};
use crate::stats::{ClassResult, Interval, full_seconds};

/// The per-second series that stands for `stat` (p99 for every tail statistic).
fn per_second(stat: Stat) -> fn(&Interval) -> f64 {
    match stat {
        Stat::Iops => |i| i.iops,
        Stat::Mbps => |i| i.mbps,
        Stat::Latency(LatencyStat::Mean) => |i| i.mean_ns,
        _ => |i| i.p99_ns as f64,
    }
}

/// Mean, sample variance and count of a series.
fn moments(xs: &[f64]) -> Option<(f64, f64, f64)> {
    let n = xs.len() as f64;
    if xs.len() < 2 {
        return None;
    }
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    Some((mean, var, n))
}

/// ±percent of the base's mean: twice the standard error of the difference of the two means.
/// None when either run has fewer than two full seconds (no spread to speak of).
pub fn noise_percent(base: &ClassResult, new: &ClassResult, stat: Stat) -> Option<f64> {
    let f = per_second(stat);
    let series = |c: &ClassResult| full_seconds(&c.intervals).map(f).collect::<Vec<f64>>();
    let (mb, vb, nb) = moments(&series(base))?;
    let (_, vn, nn) = moments(&series(new))?;
    if mb <= 0.0 {
        return None;
    }
    Some(200.0 * (vb / nb + vn / nn).sqrt() / mb)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steady_series_have_a_narrow_band() {
        let iv = |t: f64, iops: f64| Interval {
            t_s: t,
            ios: iops as u64,
            iops,
            mbps: 0.0,
            mean_ns: 0.0,
            p99_ns: 0,
            read_histogram: None,
            write_histogram: None,
        };
        let mut c: ClassResult = serde_json::from_str(
            r#"{"class":"a","size":4096,"outstanding":1,"total":{"ios":0,"bytes":0,"iops":0,"mbps":0,"latency":{"min_ns":0,"mean_ns":0,"stdev_ns":0,"p50_ns":0,"p90_ns":0,"p99_ns":0,"p99_9_ns":0,"p99_99_ns":0,"max_ns":0},"histogram":""},"read":null,"write":null,"intervals":[]}"#,
        )
        .unwrap();
        c.intervals = (1..=10)
            .map(|t| iv(f64::from(t), if t % 2 == 0 { 1010.0 } else { 990.0 }))
            .collect();
        let n = noise_percent(&c, &c, Stat::Iops).unwrap();
        // sd ≈ 10.5 per run, 10 seconds each: 2·√(2·110/10)/1000 ≈ 0.94%.
        assert!((n - 0.94).abs() < 0.02, "{n}");
    }
}
