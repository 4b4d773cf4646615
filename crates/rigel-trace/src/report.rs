//! `derive.md`: the trace's statistics beside what the derived spec asks for, per class: the
//! size histogram, the block-hit curve, the gaps between issues and the depth over time.

use crate::derive::{BURSTY_CV, Features, UNIFORM_CV};
use crate::format::Trace;
use crate::stats::{ClassStats, TraceStats};
use rigel_expr::units;
use std::fmt::Write as _;

/// Hottest shares of the blocks on the hit curve's table.
const CURVE: [f64; 7] = [0.001, 0.01, 0.05, 0.10, 0.20, 0.50, 1.0];
/// Sizes listed one by one (the rest on one line).
const SIZE_ROWS: usize = 12;
/// Gap quantiles shown.
const QUANTILES: [f64; 5] = [0.10, 0.50, 0.90, 0.99, 0.999];
/// At most this many seconds in the depth table (the rest are summarised in steps).
const DEPTH_ROWS: usize = 30;

/// The report's Markdown.
pub fn report(trace: &Trace, stats: &TraceStats, f: Features) -> String {
    let h = &trace.header;
    let mut s = String::new();
    let _ = writeln!(s, "# Derived spec: the trace beside the spec\n");
    let _ = writeln!(s, "| | |\n|---|---|");
    let rows = [
        ("device", h.device.clone()),
        ("model", h.model.clone().unwrap_or_else(|| "unknown".into())),
        (
            "size",
            h.size.map_or("unknown".into(), |b| units::size(b as f64)),
        ),
        ("host, kernel", format!("{}, {}", h.host, h.kernel)),
        ("started", h.start.clone()),
        ("source, clock", format!("{}, {}", h.source, h.clock)),
        ("records", units::thousands(h.records as f64)),
        ("span", units::seconds(stats.span_ns as f64 / 1e9)),
        (
            "events dropped",
            if h.dropped == 0 {
                "0".into()
            } else {
                format!(
                    "**{}: the trace has holes; every figure undercounts**",
                    h.dropped
                )
            },
        ),
        ("without completion", h.incomplete.to_string()),
        ("requeued (recorded once)", h.reissued.to_string()),
        (
            "flushes, discards, other",
            format!("{}, {}, {}", stats.flushes, stats.discards, stats.other),
        ),
    ];
    for (k, v) in rows {
        let _ = writeln!(s, "| {k} | {v} |");
    }
    if let Some(c) = &h.cost {
        let _ = writeln!(
            s,
            "| capture cost | {:.3} CPU s ({:.2}% of a CPU), {} events, a {} buffer per CPU |",
            c.cpu_seconds,
            c.cpu_share * 100.0,
            units::thousands(c.events as f64),
            units::size(c.buffer_kib as f64 * 1024.0)
        );
    }
    for c in &stats.classes {
        class(&mut s, c, f);
    }
    s
}

fn class(s: &mut String, c: &ClassStats, f: Features) {
    let n = c.count().max(1) as f64;
    let _ = writeln!(
        s,
        "\n## Class `{}`: {} requests, {:.2}% reads\n",
        c.name,
        units::thousands(c.count() as f64),
        c.reads as f64 * 100.0 / n
    );
    // Sizes: the spec's share is the mix's (or all on the most common size).
    let dominant = c
        .sizes
        .iter()
        .max_by_key(|(_, k)| **k)
        .map_or(0, |(s, _)| *s);
    let mixed = f.size_mix && !c.sequential;
    let _ = writeln!(
        s,
        "### Sizes\n\nThe {SIZE_ROWS} most common, by count.\n\n| size | requests | trace | spec |\n|---:|---:|---:|---:|"
    );
    let mut by_count: Vec<(u32, u64)> = c.sizes.iter().map(|(&k, &v)| (k, v)).collect();
    by_count.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let spec_share = |size: u32, k: u64| {
        if mixed {
            k as f64 / n
        } else {
            f64::from(u8::from(size == dominant))
        }
    };
    for &(size, k) in by_count.iter().take(SIZE_ROWS) {
        let _ = writeln!(
            s,
            "| {} | {} | {:.2}% | {:.2}% |",
            units::size(f64::from(size)),
            units::thousands(k as f64),
            k as f64 * 100.0 / n,
            spec_share(size, k) * 100.0
        );
    }
    let rest = &by_count[by_count.len().min(SIZE_ROWS)..];
    if !rest.is_empty() {
        let k: u64 = rest.iter().map(|r| r.1).sum();
        let spec: f64 = rest.iter().map(|&(size, k)| spec_share(size, k)).sum();
        let _ = writeln!(
            s,
            "| {} other sizes | {} | {:.2}% | {:.2}% |",
            rest.len(),
            units::thousands(k as f64),
            k as f64 * 100.0 / n,
            spec * 100.0
        );
    }
    if let Some(fit) = &c.skew {
        let _ = writeln!(
            s,
            "\n### Block-hit curve\n\nShare of the I/Os on the hottest blocks of {} (of {} blocks in the region, {} hit); \
             spec: `{}`{}. Where the trace has fewer hits than the region has blocks, its curve reaches \
             100% early (the unhit blocks are not in it); the spec column is the distribution's.\n\n\
             | hottest blocks | trace | spec |\n|---:|---:|---:|",
            units::size(f64::from(c.unit)),
            units::thousands(fit.blocks as f64),
            units::thousands(fit.blocks_hit as f64),
            fit.distribution,
            fit.theta.map_or(String::new(), |t| format!(
                " (θ fitted {t:.3}, RMS error {:.2} points; uniform {:.2})",
                fit.zipf_rms_points.unwrap_or(0.0),
                fit.uniform_rms_points
            )),
        );
        let observed = curve(c, fit.blocks);
        for (share, obs) in CURVE.iter().zip(observed) {
            let _ = writeln!(
                s,
                "| {}% | {:.1}% | {:.1}% |",
                share * 100.0,
                obs * 100.0,
                fit.distribution.hottest_share(*share, fit.blocks) * 100.0
            );
        }
    }
    gaps(s, c);
    depth(s, c);
}

/// The observed share of I/Os on the hottest `CURVE` shares of `blocks`.
fn curve(c: &ClassStats, blocks: u64) -> Vec<f64> {
    let mut hits = c.hits.clone();
    hits.sort_unstable_by(|a, b| b.cmp(a));
    let total: u64 = hits.iter().sum::<u64>().max(1);
    CURVE
        .iter()
        .map(|share| {
            let k = ((share * blocks as f64).floor() as usize).min(hits.len());
            hits[..k].iter().sum::<u64>() as f64 / total as f64
        })
        .collect()
}

fn gaps(s: &mut String, c: &ClassStats) {
    let (Some(rate), Some(cv)) = (c.rate(), c.gap_cv()) else {
        return;
    };
    let mut g = c.gaps();
    g.sort_unstable();
    let model = if cv < UNIFORM_CV {
        "uniform"
    } else if cv <= BURSTY_CV {
        "poisson"
    } else {
        "poisson (the trace is bursty: not reproduced)"
    };
    let _ = writeln!(
        s,
        "\n### Gaps between issues\n\n{} gaps (the steady issues: the middle 99%, lulls at its edges left out; times to 1 µs, so requests \
         sent together read 0), CV {cv:.3}; spec: `{model}` at {} IOPS (CV {}).\n\n\
         | quantile | trace | spec |\n|---:|---:|---:|",
        units::thousands(g.len() as f64),
        units::thousands(rate),
        if model == "uniform" { "0" } else { "1" }
    );
    for q in QUANTILES {
        let i = ((q * g.len() as f64).ceil() as usize).clamp(1, g.len()) - 1;
        let theory = if model == "uniform" {
            1e9 / rate
        } else {
            -(1.0 - q).ln() * 1e9 / rate
        };
        let _ = writeln!(
            s,
            "| p{} | {} | {} |",
            q * 100.0,
            units::latency(g[i] as f64),
            units::latency(theory)
        );
    }
}

/// How the depth table samples the seconds: every one, or ` (every 2nd second)`.
fn sampled(step: usize) -> String {
    if step > 1 {
        format!(" (every {} second)", units::ordinal(step as u64))
    } else {
        String::new()
    }
}

fn depth(s: &mut String, c: &ClassStats) {
    if c.depth.is_empty() {
        return;
    }
    let step = c.depth.len().div_ceil(DEPTH_ROWS).max(1);
    let _ = writeln!(
        s,
        "\n### Depth over time\n\nRequests in flight: the time-average and the peak of each second{}; \
         the spec caps the class at {} (the trace's peak).\n\n| second | average | peak |\n|---:|---:|---:|",
        sampled(step),
        c.max_in_flight.max(1)
    );
    for (i, (avg, peak)) in c.depth.iter().enumerate().step_by(step) {
        let _ = writeln!(s, "| {i} | {} | {peak} |", units::depth(*avg));
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_sampled_seconds_are_named_by_their_ordinal() {
        assert_eq!(super::sampled(1), "");
        assert_eq!(super::sampled(2), " (every 2nd second)");
        assert_eq!(super::sampled(3), " (every 3rd second)");
        assert_eq!(super::sampled(12), " (every 12th second)");
    }
}
