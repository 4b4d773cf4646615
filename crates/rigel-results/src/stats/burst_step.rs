//! Burst buckets: a point whose per-second throughput steps down and stays down while its
//! latency steps up, at a constant load. Cloud volumes run at a burst rate on credit (gp2's 3,000
//! IOPS for about 30 minutes, Azure's credit-based bursting) and then at their baseline: a figure
//! measured before the step is the burst's, not what the volume holds.
//!
//! The change point is the split of the point's full seconds with the largest Welch's t between
//! the two sides (at least two seconds each) among those that count: the later side runs at most
//! [`MAX_AFTER`] of the earlier, no later second reaches back to the middle of the two (sustained),
//! the mean latency rises by [`MIN_LATENCY_RISE`] and t is at least [`MIN_T`].

use super::seconds::full_seconds;
use crate::Interval;
use crate::view::ResultsView;
use rigel_expr::units;
use serde::Serialize;

/// The rate after the step, as a share of the rate before, at most.
pub const MAX_AFTER: f64 = 0.75;
/// Mean latency after over before, at least.
pub const MIN_LATENCY_RISE: f64 = 1.2;
/// Welch's t of the step, at least (far beyond chance: p < 10⁻⁶ for a normal noise).
pub const MIN_T: f64 = 5.0;
/// Seconds on each side of the step, at least.
const MIN_SIDE: usize = 2;

/// A sustained step down in a point's per-second throughput: a burst bucket that ran out.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BurstStep {
    pub point: u32,
    pub class: String,
    /// Seconds into the measured window when the last second at the burst rate ended.
    pub at_s: f64,
    /// IOPS before and after.
    pub before: f64,
    pub after: f64,
    /// Mean latency (ns) before and after.
    pub latency_before_ns: f64,
    pub latency_after_ns: f64,
    /// Welch's t of the split: the step's confidence.
    pub t: f64,
    /// I/Os served above the sustained rate before the step: the bucket's credit, about.
    pub credit: f64,
    /// The step fell between points (or in a point too short to show it alone): `point` is the
    /// first point at the sustained rate and `at_s` counts from the start of the class's first
    /// point. See `burst_across.rs`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub across: bool,
    /// The points run before the step, whatever their class: their figures were taken while the
    /// bucket held credit (burst figures), and a headline taken at one says so.
    pub on_credit: Vec<u32>,
}

/// The step a class's seconds show, if any.
pub fn step(intervals: &[Interval]) -> Option<(usize, f64, f64, f64, f64, f64)> {
    let secs: Vec<&Interval> = full_seconds(intervals).collect();
    split(&secs)
}

/// The I/Os served above the sustained rate before a step `at_s` seconds in, from `before` IOPS
/// down to `after`: about the bucket's credit that ran out.
pub(super) fn credit(before: f64, after: f64, at_s: f64) -> f64 {
    (before - after) * at_s
}

/// The step in a run of full seconds (one point's, or consecutive points' end to end): the
/// index of the first second after it, the IOPS and mean latency before and after, and its t.
pub(super) fn split(secs: &[&Interval]) -> Option<(usize, f64, f64, f64, f64, f64)> {
    let n = secs.len();
    if n < 2 * MIN_SIDE {
        return None;
    }
    let x: Vec<f64> = secs.iter().map(|i| i.iops).collect();
    let sums = Sums::new(&x);
    // The latest second at or above a level, from each second on: a step is sustained when no
    // later second reaches back to the middle.
    let mut later_max = vec![f64::NEG_INFINITY; n + 1];
    for k in (0..n).rev() {
        later_max[k] = later_max[k + 1].max(x[k]);
    }
    // I/Os and their latency sums before each second: each side's mean latency in constant time.
    let (mut ios, mut ns) = (vec![0.0; n + 1], vec![0.0; n + 1]);
    for (k, i) in secs.iter().enumerate() {
        ios[k + 1] = ios[k] + i.ios as f64;
        ns[k + 1] = ns[k] + i.mean_ns * i.ios as f64;
    }
    let w = |lo: usize, hi: usize| {
        let n_ios = ios[hi] - ios[lo];
        if n_ios > 0.0 {
            (ns[hi] - ns[lo]) / n_ios
        } else {
            0.0
        }
    };
    // The splits by their t, highest first; the first that is a step is. (The highest alone may
    // put a second half at the burst rate, half after, on the later side, which then is not
    // sustained, though the split one second on is.)
    let mut splits: Vec<(usize, f64)> = (MIN_SIDE..=n - MIN_SIDE)
        .map(|k| (k, welch_t(sums.side(0, k), sums.side(k, n))))
        .filter(|(_, t)| *t >= MIN_T)
        .collect();
    splits.sort_by(|a, b| b.1.total_cmp(&a.1));
    splits.into_iter().find_map(|(k, t)| {
        let (before, after) = (sums.side(0, k).1, sums.side(k, n).1);
        let (w1, w2) = (w(0, k), w(k, n));
        (before > 0.0
            && after <= MAX_AFTER * before
            && later_max[k] < (before + after) / 2.0
            && w1 > 0.0
            && w2 >= MIN_LATENCY_RISE * w1)
            .then(|| (k, median(&x[..k]), median(&x[k..]), w1, w2, t))
    })
}

/// The rate a side held: its median second, so the second the credit ran out in (half at the
/// burst rate) does not lift the sustained figure.
fn median(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => 0.0,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// Prefix sums of the values and their squares: each split's two sides in constant time, so a
/// sweep's thousands of seconds end to end cost a pass, not a pass per split.
struct Sums {
    s1: Vec<f64>,
    s2: Vec<f64>,
}

impl Sums {
    fn new(x: &[f64]) -> Sums {
        let (mut s1, mut s2) = (vec![0.0], vec![0.0]);
        for v in x {
            s1.push(s1[s1.len() - 1] + v);
            s2.push(s2[s2.len() - 1] + v * v);
        }
        Sums { s1, s2 }
    }

    /// Count, mean and sample variance of `x[lo..hi]`.
    fn side(&self, lo: usize, hi: usize) -> (f64, f64, f64) {
        let n = (hi - lo) as f64;
        let m = (self.s1[hi] - self.s1[lo]) / n;
        let ss = (self.s2[hi] - self.s2[lo]) - n * m * m;
        (n, m, (ss / (n - 1.0).max(1.0)).max(0.0))
    }
}

/// Welch's t of side `a`'s mean above `b`'s (count, mean, variance); a floor on the variance (1%
/// of the mean, squared) so that two perfectly flat sides do not give an infinite t from a 1%
/// step.
fn welch_t(a: (f64, f64, f64), b: (f64, f64, f64)) -> f64 {
    let floor = |(_, m, v): (f64, f64, f64)| v.max((0.01 * m).powi(2));
    let se = (floor(a) / a.0 + floor(b) / b.0).sqrt();
    if se > 0.0 { (a.1 - b.1) / se } else { 0.0 }
}

/// The points run before `point` that count: a bucket is the volume's, so every class's figures
/// there were taken on credit.
pub(super) fn before_ok(view: &ResultsView, point: u32) -> Vec<u32> {
    let run = view.points.iter().take_while(|p| p.id() != point);
    run.filter(|p| p.ok).map(|p| p.id()).collect()
}

/// Every point's class that stepped down within the point: closed-loop classes of points that
/// finished.
pub(super) fn within_points(view: &ResultsView) -> Vec<BurstStep> {
    let mut out = Vec::new();
    for p in view.points.iter().filter(|p| p.ok) {
        for c in p.running().filter(|c| c.params.rate.is_none()) {
            let Some(r) = c.result else { continue };
            let Some((k, before, after, w1, w2, t)) = step(&r.intervals) else {
                continue;
            };
            let at_s = full_seconds(&r.intervals).nth(k - 1).map_or(0.0, |i| i.t_s);
            out.push(BurstStep {
                point: p.id(),
                class: c.name().to_owned(),
                at_s,
                before,
                after,
                latency_before_ns: w1,
                latency_after_ns: w2,
                t,
                credit: credit(before, after, at_s),
                across: false,
                on_credit: before_ok(view, p.id()),
            });
        }
    }
    out
}

impl BurstStep {
    /// "3,000 IOPS for 29 min 40 s, then 300: a burst bucket of about 5.3 M I/Os ran out".
    pub fn message(&self, label: &str) -> String {
        if self.across {
            return self.across_message(label);
        }
        format!(
            "point {} ({label}), {}: {} IOPS for {}, then {} (latency {} → {}; change-point t = {:.0}): \
             a burst bucket of about {} I/Os ran out; the sustained figure is {}, and figures taken \
             before the step are the burst's",
            self.point,
            self.class,
            units::thousands(self.before),
            units::duration(std::time::Duration::from_secs_f64(self.at_s.max(0.0))),
            units::thousands(self.after),
            units::latency(self.latency_before_ns),
            units::latency(self.latency_after_ns),
            self.t,
            units::thousands(self.credit),
            units::thousands(self.after),
        )
    }

    /// "500 IOPS for 3 s of the sweep, then 50 from point 4 (small=4) on".
    pub(super) fn across_message(&self, label: &str) -> String {
        let b = self;
        let (from, on) = if b.on_credit.contains(&b.point) {
            ("during", "")
        } else {
            ("from", " on")
        };
        format!(
            "{}: {} IOPS for {} of the sweep, then {} {from} point {} ({label}){on}, while the load \
             did not fall (latency {} → {}; change-point t = {:.0}): a burst bucket of about {} I/Os ran \
             out between points; the sustained figure is {}, and figures taken before the step are \
             the burst's",
            b.class,
            units::thousands(b.before),
            units::duration(std::time::Duration::from_secs_f64(b.at_s.max(0.0))),
            units::thousands(b.after),
            b.point,
            units::latency(b.latency_before_ns),
            units::latency(b.latency_after_ns),
            b.t,
            units::thousands(b.credit),
            units::thousands(b.after),
        )
    }

    /// Beside a figure taken on credit: what it is and what the volume holds.
    pub fn on_credit_message(&self) -> String {
        let n = self.on_credit.len();
        format!(
            "{} {} taken before a burst bucket ran out (at point {}, class {}): burst figures, \
             not what the volume holds; the sustained figure is {} IOPS",
            if n == 1 { "point" } else { "points" },
            super::warning::ranges(&self.on_credit),
            self.point,
            self.class,
            units::thousands(self.after),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(iops: &[f64], lat: &[f64]) -> Vec<Interval> {
        (1..)
            .zip(iops.iter().zip(lat))
            .map(|(t, (v, l))| Interval {
                t_s: f64::from(t),
                ios: *v as u64,
                iops: *v,
                mbps: 0.0,
                mean_ns: *l,
                p99_ns: 0,
                read_histogram: None,
                write_histogram: None,
            })
            .collect()
    }

    #[test]
    fn a_sustained_step_down_with_latency_up_is_found_at_its_second() {
        let iops = [3000.0, 2990.0, 3010.0, 3005.0, 300.0, 302.0, 298.0, 301.0];
        let lat = [1e6, 1e6, 1e6, 1e6, 1e7, 1e7, 1e7, 1e7];
        let (k, before, after, _, _, t) = step(&secs(&iops, &lat)).expect("a step");
        assert_eq!(k, 4);
        assert_eq!((before, after), (3002.5, 300.5));
        assert!(t > 50.0, "{t}");
    }

    #[test]
    fn a_second_half_on_credit_goes_before_the_step() {
        // The bucket ran dry in the 3rd second (a real run's seconds): the highest t puts that
        // second after the step, where it reaches back above the middle; the step is the split
        // one second on.
        let iops = [
            827.0, 827.0, 500.0, 45.0, 47.0, 47.0, 47.0, 47.0, 47.0, 47.0,
        ];
        let lat = [1.2e6, 1.2e6, 4e6, 85e6, 85e6, 85e6, 85e6, 85e6, 85e6, 85e6];
        let (k, _, after, _, _, _) = step(&secs(&iops, &lat)).expect("a step");
        assert_eq!(k, 3);
        assert_eq!(after, 47.0);
    }

    #[test]
    fn the_sustained_figure_leaves_out_the_second_the_credit_ran_out_in() {
        // A clean CI run's seconds: the 3rd second, half on credit, sits just under the middle
        // and goes after the step; the sustained rate is still the 47 the bucket refills.
        let iops = [
            845.0, 843.0, 459.0, 47.0, 47.0, 46.0, 47.0, 47.0, 47.0, 46.0,
        ];
        let lat = [4.7e6, 4.7e6, 8e6, 85e6, 85e6, 85e6, 85e6, 85e6, 85e6, 85e6];
        let (_, before, after, _, _, _) = step(&secs(&iops, &lat)).expect("a step");
        assert_eq!((before, after), (844.0, 47.0));
    }

    #[test]
    fn noise_a_dip_that_recovers_or_latency_that_did_not_rise_is_no_step() {
        let lat_up = [1e6, 1e6, 1e6, 1e6, 1e7, 1e7, 1e7, 1e7];
        let noisy = [
            3000.0, 2500.0, 3300.0, 2700.0, 3100.0, 2600.0, 2900.0, 3200.0,
        ];
        assert_eq!(step(&secs(&noisy, &lat_up)), None);
        let dip = [3000.0, 3000.0, 3000.0, 3000.0, 300.0, 300.0, 3000.0, 300.0];
        assert_eq!(step(&secs(&dip, &lat_up)), None);
        let flat_lat = [1e6; 8];
        let stepped = [3000.0, 3000.0, 3000.0, 3000.0, 300.0, 300.0, 300.0, 300.0];
        assert_eq!(step(&secs(&stepped, &flat_lat)), None);
        // Three seconds cannot show a sustained step.
        assert_eq!(step(&secs(&stepped[2..5], &lat_up[2..5])), None);
    }
}
