//! A class's skew (`distribution`): how often each block of its region is chosen, as fio's
//! `random_distribution` means it (zipf, pareto, normal) or DiskSpd's `-rdpct` hot bands; and the
//! share of I/Os the theory puts on the hottest blocks, which results set beside what was achieved.
//!
//! Every distribution draws a *rank* in `0..n` (rank 0 the hottest block); the executor maps ranks
//! onto blocks with a keyed bijection (or in order: `hot_layout = "contiguous"`).

use super::value::ExprError;
use serde::{Deserialize, Serialize};
use std::fmt;

/// At most this many hot bands.
pub const MAX_BANDS: usize = 16;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum Distribution {
    /// Every block equally likely.
    #[default]
    Uniform,
    /// `zipf:θ`: rank `k` (1-based) drawn with probability ∝ `1 / k^θ` (fio's `zipf:θ`).
    Zipf(f64),
    /// `pareto:h`: rank `⌊(n−1) · u^(ln h / ln(1−h))⌋` for `u` uniform in [0, 1) (fio's
    /// `pareto:h`): `h` = 0.2 puts 80% of the I/Os on the hottest 20% of blocks.
    Pareto(f64),
    /// `normal:σ%`: a Gaussian centred on the region's middle, standard deviation σ% of the
    /// region, draws outside it drawn again (fio's `normal:σ%`); ranks count outwards from the middle.
    Normal(f64),
    /// `hot:90%/10%, 8%/20%`: bands in order from the region's start, each taking a share of the
    /// I/Os over a share of the region (uniform inside a band); what the bands leave of the I/Os
    /// goes uniformly to the rest of the region (DiskSpd's `-rdpct90/10:8/20`).
    Hot(Vec<Band>),
}

/// One hot band: `io` of the I/Os over `blocks` of the region (fractions of 1).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Band {
    pub io: f64,
    pub blocks: f64,
}

// Parsed values are finite: equality is total.
impl Eq for Distribution {}

impl Distribution {
    pub fn is_uniform(&self) -> bool {
        *self == Distribution::Uniform
    }

    /// The hot bands with the remainder as a last band, when something remains: cumulative
    /// (I/O share, block share) at each band's end.
    pub fn bands(&self) -> Vec<Band> {
        let Distribution::Hot(bands) = self else {
            return vec![Band {
                io: 1.0,
                blocks: 1.0,
            }];
        };
        let mut out = bands.clone();
        let (io, blocks) = sums(bands);
        if io < 1.0 - 1e-12 && blocks < 1.0 - 1e-12 {
            out.push(Band {
                io: 1.0 - io,
                blocks: 1.0 - blocks,
            });
        }
        out
    }

    /// The share of I/Os the theory puts on the hottest `⌊share × n⌋` of `n` blocks.
    pub fn hottest_share(&self, share: f64, n: u64) -> f64 {
        let k = ((share * n as f64).floor() as u64).min(n);
        if k == 0 || n == 0 {
            return 0.0;
        }
        match self {
            Distribution::Uniform => k as f64 / n as f64,
            Distribution::Zipf(theta) => harmonic(k, *theta) / harmonic(n, *theta),
            Distribution::Pareto(h) => {
                if n == 1 {
                    return 1.0;
                }
                // P(rank < k) = P(u^p < k/(n−1)) = (k/(n−1))^(1/p).
                let p = h.ln() / (1.0 - h).ln();
                (k as f64 / (n - 1) as f64).min(1.0).powf(1.0 / p)
            }
            Distribution::Normal(sigma) => {
                // The central k blocks, of the Gaussian truncated to the region.
                let s = sigma * n as f64 * std::f64::consts::SQRT_2;
                erf(k as f64 / 2.0 / s) / erf(n as f64 / 2.0 / s)
            }
            Distribution::Hot(_) => {
                // Bands sorted hottest first (by I/O density), uniform inside each.
                let mut bands = self.bands();
                bands.sort_by(|a, b| (b.io / b.blocks).total_cmp(&(a.io / a.blocks)));
                let mut left = k as f64 / n as f64;
                let mut share_io = 0.0;
                for b in bands {
                    let take = left.min(b.blocks);
                    share_io += b.io * take / b.blocks;
                    left -= take;
                    if left <= 0.0 {
                        break;
                    }
                }
                share_io.min(1.0)
            }
        }
    }
}

fn sums(bands: &[Band]) -> (f64, f64) {
    bands
        .iter()
        .fold((0.0, 0.0), |(i, b), band| (i + band.io, b + band.blocks))
}

/// The generalized harmonic number `Σ_{i=1..m} i^−s`: summed up to 10⁴ terms, the rest by
/// Euler–Maclaurin (error below 1e−12 for the θ a spec may give).
pub fn harmonic(m: u64, s: f64) -> f64 {
    const DIRECT: u64 = 10_000;
    let direct = m.min(DIRECT);
    let mut sum: f64 = (1..=direct).map(|i| (i as f64).powf(-s)).sum();
    if m > DIRECT {
        let (a, b) = (DIRECT as f64, m as f64);
        let integral = if (s - 1.0).abs() < 1e-12 {
            b.ln() - a.ln()
        } else {
            (b.powf(1.0 - s) - a.powf(1.0 - s)) / (1.0 - s)
        };
        // Σ_{a<i≤b} f(i) = ∫_a^b f + (f(b) − f(a))/2 + (f'(b) − f'(a))/12, f'(x) = −s x^(−s−1).
        sum += integral + (b.powf(-s) - a.powf(-s)) / 2.0
            - s * (b.powf(-s - 1.0) - a.powf(-s - 1.0)) / 12.0;
    }
    sum
}

/// The error function (W. J. Cody's rational approximations via `erfc`, |error| < 1.2e−7).
fn erf(x: f64) -> f64 {
    // Numerical Recipes' erfc with a Chebyshev fit: relative error below 1.2e−7 everywhere.
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let erfc = t * poly.exp();
    if x >= 0.0 { 1.0 - erfc } else { erfc - 1.0 }
}

impl fmt::Display for Distribution {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Distribution::Uniform => write!(f, "uniform"),
            Distribution::Zipf(t) => write!(f, "zipf:{t}"),
            Distribution::Pareto(h) => write!(f, "pareto:{h}"),
            Distribution::Normal(s) => write!(f, "normal:{}%", percent(*s)),
            Distribution::Hot(bands) => {
                let parts: Vec<String> = bands
                    .iter()
                    .map(|b| format!("{}%/{}%", percent(b.io), percent(b.blocks)))
                    .collect();
                write!(f, "hot:{}", parts.join(", "))
            }
        }
    }
}

/// A fraction as a percentage without float noise (`0.1` → `10`).
fn percent(v: f64) -> f64 {
    (v * 100.0 * 1e9).round() / 1e9
}

impl From<Distribution> for String {
    fn from(d: Distribution) -> String {
        d.to_string()
    }
}

impl TryFrom<String> for Distribution {
    type Error = String;
    fn try_from(s: String) -> Result<Distribution, String> {
        parse_distribution(&s).map_err(|e| e.message)
    }
}

const FORMS: &str =
    "write \"uniform\", \"zipf:1.2\", \"pareto:0.2\", \"normal:10%\" or \"hot:90%/10%, 8%/20%\"";

/// Parses a `distribution` value.
pub fn parse_distribution(s: &str) -> Result<Distribution, ExprError> {
    let text = s.trim();
    let lead = s.len() - s.trim_start().len();
    if text == "uniform" {
        return Ok(Distribution::Uniform);
    }
    let Some((kind, arg)) = text.split_once(':') else {
        let hint =
            super::suggest::did_you_mean(text, ["uniform", "zipf", "pareto", "normal", "hot"])
                .unwrap_or_else(|| FORMS.to_owned());
        return Err(ExprError::new(
            lead..lead + text.len(),
            format!("unknown distribution `{text}`"),
        )
        .with_hint(hint));
    };
    let at = lead + kind.len() + 1;
    let arg_span = at..at + arg.len();
    let number = |a: &str, what: &str| -> Result<f64, ExprError> {
        a.trim()
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| {
                ExprError::new(arg_span.clone(), format!("`{}` is not {what}", a.trim()))
                    .with_hint(FORMS)
            })
    };
    let out_of_range =
        |msg: &str| ExprError::new(arg_span.clone(), msg.to_owned()).with_hint(FORMS);
    match kind.trim() {
        "zipf" => {
            let theta = number(arg, "a zipf exponent θ")?;
            if !(theta > 0.0 && theta <= 100.0) {
                return Err(out_of_range(
                    "zipf's θ must be above 0 (θ = 0 is uniform) and at most 100",
                ));
            }
            Ok(Distribution::Zipf(theta))
        }
        "pareto" => {
            let h = number(arg, "a pareto h")?;
            if !(h > 0.0 && h < 1.0) {
                return Err(out_of_range(
                    "pareto's h is between 0 and 1, both excluded (0.2: 80% of the I/Os on 20% of the blocks)",
                ));
            }
            Ok(Distribution::Pareto(h))
        }
        "normal" => {
            let sigma = number(arg.trim().trim_end_matches('%'), "a deviation in percent")?;
            if !(sigma > 0.0 && sigma <= 100.0) {
                return Err(out_of_range(
                    "normal's deviation is a share of the region, above 0% and at most 100%",
                ));
            }
            Ok(Distribution::Normal(sigma / 100.0))
        }
        "hot" => parse_bands(arg, at).map(Distribution::Hot),
        other => {
            let hint = super::suggest::did_you_mean(other, ["zipf", "pareto", "normal", "hot"])
                .unwrap_or_else(|| FORMS.to_owned());
            Err(ExprError::new(
                lead..lead + kind.len(),
                format!("unknown distribution `{other}`"),
            )
            .with_hint(hint))
        }
    }
}

/// `90%/10%, 8%/20%` starting at byte `at` of the value.
fn parse_bands(arg: &str, at: usize) -> Result<Vec<Band>, ExprError> {
    let mut bands = Vec::new();
    let mut pos = at;
    for part in arg.split(',') {
        let span = pos..pos + part.len();
        pos += part.len() + 1;
        let bad = |m: &str| {
            ExprError::new(span.clone(), m.to_owned())
                .with_hint("each band is IO%/REGION%: \"90%/10%\" sends 90% of the I/Os to the first 10% of the region")
        };
        let (io, blocks) = part
            .split_once('/')
            .ok_or_else(|| bad("a band is IO%/REGION%"))?;
        let share = |t: &str| -> Option<f64> {
            let v: f64 = t.trim().strip_suffix('%')?.trim().parse().ok()?;
            (v > 0.0 && v <= 100.0).then_some(v / 100.0)
        };
        let (Some(io), Some(blocks)) = (share(io), share(blocks)) else {
            return Err(bad(
                "a band's shares are percentages above 0% and at most 100%",
            ));
        };
        bands.push(Band { io, blocks });
        let (io_sum, block_sum) = sums(&bands);
        if io_sum > 1.0 + 1e-9 || block_sum > 1.0 + 1e-9 {
            return Err(bad(
                "the bands add up to more than 100% (of the I/Os or of the region)",
            ));
        }
        if bands.len() > MAX_BANDS {
            return Err(bad(&format!("at most {MAX_BANDS} bands")));
        }
    }
    let (io_sum, block_sum) = sums(&bands);
    if io_sum < 1.0 - 1e-9 && block_sum > 1.0 - 1e-9 {
        return Err(ExprError::new(at..at + arg.len(), format!(
            "the bands cover the whole region but only {}% of the I/Os",
            percent(io_sum)
        ))
        .with_hint("the I/Os the bands leave go to the rest of the region: leave some of it, or make the I/O shares add to 100%"));
    }
    Ok(bands)
}

#[cfg(test)]
#[path = "distribution_tests.rs"]
mod tests;
