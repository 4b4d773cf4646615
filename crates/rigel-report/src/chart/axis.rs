//! Chart axes: where a value sits on a linear, log₂, log₁₀ or "nines" scale, which ticks to draw and
//! how to label them so that every label on one axis uses the same unit ("5k", "10k", never "5000"
//! beside "10k").

/// How values map onto an axis. Bounds are in the scale's own space (exponents for logs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scale {
    Linear {
        lo: f64,
        hi: f64,
    },
    Log2 {
        lo: f64,
        hi: f64,
    },
    Log10 {
        lo: f64,
        hi: f64,
    },
    /// Percentiles as "nines": p ↦ −log₁₀(1 − p/100), so p90, p99, p99.9 are evenly spaced.
    Nines {
        lo: f64,
        hi: f64,
    },
}

impl Scale {
    fn space(&self, v: f64) -> f64 {
        match *self {
            Scale::Linear { .. } => v,
            // 0 and below sit at the axis' start (its slot for 0, when it has one).
            Scale::Log2 { lo, .. } if v <= 0.0 => lo,
            Scale::Log2 { .. } => v.log2(),
            Scale::Log10 { .. } => v.max(1e-12).log10(),
            Scale::Nines { .. } => nines(v),
        }
    }

    /// Where `v` sits between the axis' start (0) and end (1), clamped to the axis.
    pub fn fraction(&self, v: f64) -> f64 {
        let (lo, hi) = match *self {
            Scale::Linear { lo, hi }
            | Scale::Log2 { lo, hi }
            | Scale::Log10 { lo, hi }
            | Scale::Nines { lo, hi } => (lo, hi),
        };
        if hi <= lo {
            return 0.0;
        }
        ((self.space(v) - lo) / (hi - lo)).clamp(0.0, 1.0)
    }
}

/// −log₁₀(1 − p/100): 0 for p0, 1 for p90, 2 for p99, 5 for p99.999.
pub fn nines(percentile: f64) -> f64 {
    -(1.0 - percentile.min(99.999_999) / 100.0).log10()
}

/// An axis: its scale, tick positions and their labels.
#[derive(Clone, Debug, PartialEq)]
pub struct Axis {
    pub scale: Scale,
    pub ticks: Vec<f64>,
    pub labels: Vec<String>,
}

/// The kind of axis a chart asks for; the data picks the bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// From zero, nice steps; `integer` keeps steps whole (loads).
    Linear { integer: bool },
    /// Powers of two (geometric load levels).
    Log2,
    /// Decades, with 2 and 5 between them when the span is short (latency).
    Log10,
    /// p50 … p99.999.
    Nines,
    /// 1 to the largest value in whole steps: things counted in order (a spec's runs).
    Ordinal,
}

impl Kind {
    /// Log₂ when the values are geometric load levels, else linear integers.
    pub fn for_loads(values: &[f64]) -> Kind {
        if is_geometric(values) {
            Kind::Log2
        } else {
            Kind::Linear { integer: true }
        }
    }

    /// An axis covering `values` (empty or non-positive data give a small default axis).
    pub fn axis(self, values: &[f64]) -> Axis {
        let finite = || values.iter().copied().filter(|v| v.is_finite());
        let max = finite().fold(0.0, f64::max);
        let min_pos = finite().filter(|&v| v > 0.0).fold(f64::INFINITY, f64::min);
        match self {
            Kind::Linear { integer } => {
                let (t, end) = linear_ticks(max, if integer { 8.0 } else { 5.0 }, integer);
                axis(Scale::Linear { lo: 0.0, hi: end }, t)
            }
            Kind::Log2 if min_pos.is_finite() => {
                let lo = min_pos.log2().floor();
                let hi = max.log2().ceil().max(lo + 1.0);
                let mut t: Vec<f64> = (lo as i32..=hi as i32).map(|e| 2f64.powi(e)).collect();
                // A load of 0 (a class idle beside the one that varied) has no logarithm: it gets
                // the axis' first slot, one step left of the smallest power, so it is drawn.
                if finite().any(|v| v == 0.0) {
                    t.insert(0, 0.0);
                    return axis(Scale::Log2 { lo: lo - 1.0, hi }, t);
                }
                axis(Scale::Log2 { lo, hi }, t)
            }
            Kind::Log10 if min_pos.is_finite() => {
                let lo = min_pos.log10().floor();
                let hi = max.log10().ceil().max(lo + 1.0);
                let mut t = Vec::new();
                for d in lo as i32..=hi as i32 {
                    let base = 10f64.powi(d);
                    t.push(base);
                    if hi - lo <= 2.0 && f64::from(d) < hi {
                        t.extend([2.0 * base, 5.0 * base]);
                    }
                }
                axis(Scale::Log10 { lo, hi }, t)
            }
            Kind::Ordinal => {
                let hi = max.round().max(2.0);
                let step = (hi / 8.0).ceil().max(1.0);
                let t = (0..)
                    .map(|i| 1.0 + f64::from(i) * step)
                    .take_while(|&v| v <= hi)
                    .collect();
                axis(Scale::Linear { lo: 1.0, hi }, t)
            }
            Kind::Nines => {
                let top = finite().fold(99.0, f64::max);
                let hi = nines(top).ceil().max(2.0);
                let mut t = vec![50.0];
                let mut k = 1.0;
                while k <= hi + 1e-9 {
                    t.push(100.0 - 100.0 * 10f64.powf(-k));
                    k += 1.0;
                }
                let labels = t.iter().map(|&p| format!("p{}", trim(p, 5))).collect();
                Axis {
                    scale: Scale::Nines {
                        lo: nines(50.0),
                        hi,
                    },
                    ticks: t,
                    labels,
                }
            }
            // No positive value to take a log of: a plain axis says so better than a broken one.
            Kind::Log2 | Kind::Log10 => Kind::Linear { integer: false }.axis(values),
        }
    }
}

/// A "nice" step (1, 2, 2.5 or 5 × 10^k) giving about `target` intervals over `span`.
fn nice_step(span: f64, target: f64) -> f64 {
    if span <= 0.0 || !span.is_finite() {
        return 1.0;
    }
    let raw = span / target;
    let mag = 10f64.powf(raw.log10().floor());
    let frac = raw / mag;
    let nice = if frac <= 1.0 {
        1.0
    } else if frac <= 2.0 {
        2.0
    } else if frac <= 2.5 {
        2.5
    } else if frac <= 5.0 {
        5.0
    } else {
        10.0
    };
    nice * mag
}

/// Ticks from 0 to at least `max`, and the axis end (the last tick).
fn linear_ticks(max: f64, target: f64, integer: bool) -> (Vec<f64>, f64) {
    let mut step = nice_step(max, target);
    if integer {
        step = step.max(1.0).round();
    }
    let mut ticks = vec![0.0];
    let mut t = 0.0;
    while t < max - step * 1e-9 {
        t += step;
        ticks.push(t);
    }
    if ticks.len() < 2 {
        ticks.push(step);
    }
    let end = *ticks.last().unwrap_or(&1.0);
    (ticks, end)
}

fn axis(scale: Scale, ticks: Vec<f64>) -> Axis {
    let labels = match scale {
        // Each tick of a log axis is its own power: 10, 100, 1k, 10k.
        Scale::Log2 { .. } | Scale::Log10 { .. } => {
            ticks.iter().map(|&t| tick_labels(&[t]).remove(0)).collect()
        }
        _ => tick_labels(&ticks),
    };
    Axis {
        scale,
        ticks,
        labels,
    }
}

/// Geometric load levels: at least three distinct positive values, each the same whole multiple
/// (2 or more) of the one before. `1..=128 x2` is; ORION's `1, 2, 3, 4, 5, 10` is not.
pub fn is_geometric(values: &[f64]) -> bool {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| *x > 0.0).collect();
    v.sort_by(f64::total_cmp);
    v.dedup();
    if v.len() < 3 {
        return false;
    }
    let ratio = v[1] / v[0];
    ratio >= 1.99
        && v.windows(2)
            .all(|w| (w[1] / w[0] / ratio - 1.0).abs() < 0.01)
}

/// Labels for one axis' ticks in one unit: the suffix (k, M, G) is chosen from the largest tick, so
/// `0, 2.5k, 5k, 7.5k, 10k` rather than `0, 2500, 5000, 7500, 10k`.
pub fn tick_labels(ticks: &[f64]) -> Vec<String> {
    let top = ticks.iter().fold(0.0f64, |m, t| m.max(t.abs()));
    let (div, suffix) = if top >= 1e9 {
        (1e9, "G")
    } else if top >= 1e6 {
        (1e6, "M")
    } else if top >= 1e4 || (ticks.len() == 1 && top >= 1e3) {
        (1e3, "k")
    } else {
        (1.0, "")
    };
    ticks
        .iter()
        .map(|&t| {
            if t == 0.0 {
                "0".to_string()
            } else {
                format!("{}{suffix}", trim(t / div, 3))
            }
        })
        .collect()
}

/// `v` with at most `digits` decimals, trailing zeros removed.
fn trim(v: f64, digits: usize) -> String {
    let s = format!("{v:.digits$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_cover_the_maximum_with_nice_steps() {
        let (t, end) = linear_ticks(6210.0, 5.0, false);
        assert_eq!(t, vec![0.0, 2000.0, 4000.0, 6000.0, 8000.0]);
        assert_eq!(end, 8000.0);
        let (t, _) = linear_ticks(5.0, 5.0, true);
        assert_eq!(t, vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
        let (t, _) = linear_ticks(0.0, 5.0, true);
        assert_eq!(t, vec![0.0, 1.0]);
    }

    #[test]
    fn labels_share_one_unit() {
        assert_eq!(
            tick_labels(&[0.0, 2500.0, 5000.0, 7500.0, 10000.0]),
            ["0", "2.5k", "5k", "7.5k", "10k"]
        );
        assert_eq!(tick_labels(&[0.0, 500.0, 1000.0]), ["0", "500", "1000"]);
        assert_eq!(tick_labels(&[0.0, 1e6, 2e6]), ["0", "1M", "2M"]);
    }

    #[test]
    fn a_load_of_0_gets_the_first_slot_of_a_log2_axis() {
        let a = Kind::Log2.axis(&[0.0, 1.0, 2.0, 4.0, 8.0]);
        assert_eq!(a.ticks, [0.0, 1.0, 2.0, 4.0, 8.0]);
        assert_eq!(a.labels[0], "0");
        assert_eq!(a.scale.fraction(0.0), 0.0);
        assert_eq!(a.scale.fraction(1.0), 0.25);
        assert_eq!(a.scale.fraction(8.0), 1.0);
    }

    #[test]
    fn geometric_levels_get_a_log2_axis() {
        let x2: Vec<f64> = (0..8).map(|e| 2f64.powi(e)).collect();
        assert!(is_geometric(&x2));
        assert_eq!(Kind::for_loads(&x2), Kind::Log2);
        assert!(!is_geometric(&[1.0, 2.0, 3.0, 4.0, 5.0, 10.0]));
        assert!(!is_geometric(&[1.0, 2.0]));
        let a = Kind::Log2.axis(&x2);
        assert_eq!(a.labels, ["1", "2", "4", "8", "16", "32", "64", "128"]);
        assert!((a.scale.fraction(8.0) - 3.0 / 7.0).abs() < 1e-9);
    }

    #[test]
    fn nines_are_evenly_spaced() {
        let a = Kind::Nines.axis(&[50.0, 99.999]);
        assert_eq!(
            a.labels,
            ["p50", "p90", "p99", "p99.9", "p99.99", "p99.999"]
        );
        let f = |p| a.scale.fraction(p);
        assert!(((f(99.0) - f(90.0)) - (f(99.9) - f(99.0))).abs() < 1e-9);
        assert_eq!(f(50.0), 0.0);
    }

    #[test]
    fn log10_axes_cover_the_data() {
        let a = Kind::Log10.axis(&[39.0, 8200.0]);
        assert_eq!(a.ticks, [10.0, 100.0, 1000.0, 10000.0]);
        assert_eq!(a.labels, ["10", "100", "1k", "10k"]);
    }
}
