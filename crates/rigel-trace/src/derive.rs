//! The spec that reproduces a trace's statistics: one rate class per kind of access found, every
//! derived number followed by a comment naming the trace statistic it came from.

use crate::TraceError;
use crate::format::Trace;
use crate::spec_doc::{self, Expected, SpecDoc, one_line};
use crate::stats::{ClassStats, TraceStats};
use rigel_expr::{Size, units};
use rigel_plan::MAX_OUTSTANDING;

/// Spec features the derivation may use beyond what every rigel reads.
#[derive(Clone, Copy, Debug)]
pub struct Features {
    /// `size = "8KiB:60%, 64KiB:40%"` on a random class; without it the class takes its most
    /// common size.
    pub size_mix: bool,
    /// `durability = "fdatasync:N"` on a rate class (every derived class has a rate); without it
    /// a class with flushes gets `dsync`.
    pub fdatasync: bool,
}

impl Features {
    /// What this build of rigel's spec language has.
    pub const AVAILABLE: Features = Features {
        size_mix: true,
        fdatasync: true,
    };
}

/// A size in fewer than this share of a class's requests is left out of its mix.
const MIN_MIX_SHARE: f64 = 0.01;

/// At most this many sizes in a mix (the spec's limit).
const MAX_SIZES: usize = 64;
/// A gap CV below this is even pacing (`uniform`), above [`BURSTY_CV`] bursty.
pub const UNIFORM_CV: f64 = 0.5;
pub const BURSTY_CV: f64 = 1.5;

/// The spec's text for `trace` with statistics `stats`: built as a document (see [`SpecDoc`]), so
/// nothing in the trace's header can add a key or a table; comments hold one line each.
pub fn spec(trace: &Trace, stats: &TraceStats, features: Features) -> String {
    let h = &trace.header;
    let mut s = SpecDoc::default();
    let secs = stats.span_ns as f64 / 1e9;
    s.comment(&format!(
        "Derived by `rigel derive` from a trace of {} ({}{}), host {}, kernel {}, started {}.",
        h.device,
        h.model.as_deref().unwrap_or("model unknown"),
        h.size
            .map(|b| format!(", {}", units::size(b as f64)))
            .unwrap_or_default(),
        or_unknown(&h.host),
        or_unknown(&h.kernel),
        or_unknown(&h.start),
    ));
    s.comment(&format!(
        "{} requests over {} (source {}, clock {}); {} flushes, {} discards (a trim share of \
         the mix), {} empty discards or other requests (not reproduced); {} events dropped{}.",
        units::thousands(h.records as f64),
        units::seconds(secs),
        h.source,
        h.clock,
        stats.flushes,
        stats.discards,
        stats.other,
        h.dropped,
        if h.dropped > 0 {
            ": THE TRACE HAS HOLES, every figure below undercounts"
        } else {
            ""
        },
    ));
    s.blank();
    let writes = stats.classes.iter().any(|c| c.writes > 0);
    s.table(&["spec"]);
    s.set("name", spec_name(&h.device), None);
    s.set(
        "description",
        format!(
            "Derived from a {} trace of {}",
            units::seconds(secs),
            one_line(&h.device)
        ),
        None,
    );
    s.table(&["vars"]);
    s.comment("Run it on a scratch device or file, never on the one traced: --set target=/dev/…");
    s.set("target", default_target(&h.device), None);
    s.target();
    s.set("path", TARGET_VAR, None);
    if writes {
        s.set(
            "destructive",
            true,
            Some("the trace writes; rigel writes only with --allow-destructive too"),
        );
    }
    let duration_ms = (stats.span_ns / 1_000_000).max(10);
    s.table(&["run"]);
    s.set(
        "duration",
        format!("{duration_ms}ms"),
        Some("the trace's span, first to last issue"),
    );
    for c in &stats.classes {
        class(&mut s, c, trace, features);
    }
    s.table(&["matrix"]);
    s.set("shape", "point", None);
    for c in &stats.classes {
        let (load, why) = if !trace.records.iter().any(|r| r.complete_ns.is_some()) {
            (
                1,
                "the trace has no completions (a fio iolog): the depth is unknown".to_owned(),
            )
        } else if c.max_in_flight > MAX_OUTSTANDING {
            (
                MAX_OUTSTANDING,
                format!(
                    "the trace had {} in flight, above rigel's limit per class",
                    c.max_in_flight
                ),
            )
        } else {
            (
                c.max_in_flight.max(1),
                "outstanding cap: the most requests of the class in flight at once".to_owned(),
            )
        };
        s.set(c.name, load.to_string(), Some(&why));
    }
    s.finish()
}

/// [`spec`], loaded back and compiled: it must plan the one target `${target}` (the traced
/// device's path until the user sets another), destructive exactly when the trace writes.
pub fn checked_spec(
    trace: &Trace,
    stats: &TraceStats,
    features: Features,
) -> Result<String, TraceError> {
    let text = spec(trace, stats, features);
    let expected = Expected {
        path: default_target(&trace.header.device),
        destructive: stats.classes.iter().any(|c| c.writes > 0),
    };
    spec_doc::check("derived", &text, &[expected])?;
    Ok(text)
}

/// The derived spec's one target: a variable the user sets.
pub const TARGET_VAR: &str = "${target}";

/// The `target` variable's default: the traced device's path (its first word), one line.
pub fn default_target(device: &str) -> String {
    one_line(device.split(' ').next().unwrap_or_default())
}

fn or_unknown(s: &str) -> &str {
    if s.is_empty() { "unknown" } else { s }
}

/// `derived-sdb` from `/dev/sdb`: one path component of safe characters.
fn spec_name(device: &str) -> String {
    let base = device
        .split(' ')
        .next()
        .unwrap_or_default()
        .rsplit('/')
        .next()
        .unwrap_or_default();
    let clean: String = base
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    format!("derived-{}", clean.trim_matches('-'))
}

fn class(s: &mut SpecDoc, c: &ClassStats, trace: &Trace, f: Features) {
    let n = c.count();
    s.blank();
    s.comment(&format!(
        "{} of the {} data requests{}.",
        units::thousands(n as f64),
        c.name,
        if c.folded > 0 {
            format!(
                " ({} requests of the other access kind folded in: under 5% of the trace)",
                units::thousands(c.folded as f64)
            )
        } else {
            String::new()
        }
    ));
    s.table(&["class", c.name]);
    sizes(s, c, f);
    let access = if c.sequential { "sequential" } else { "random" };
    s.set(
        "access",
        access,
        Some("a request continuing where a recent one of its direction ended is sequential"),
    );
    let read_pct = (c.reads as f64 * 100.0 / n.max(1) as f64).round() as u64;
    let mix = match read_pct {
        // The trace's discards: their share of the class's requests (`10% trim`).
        _ if c.trims > 0 => crate::spec_doc::trim_mix(c.reads, c.writes, c.trims),
        100 => "read".to_owned(),
        0 => "write".to_owned(),
        p => format!("{p}% read"),
    };
    let trims = if c.trims > 0 {
        format!(", {} discards", c.trims)
    } else {
        String::new()
    };
    s.set(
        "mix",
        mix,
        Some(&format!(
            "{} reads, {} writes{trims} ({:.2}% reads)",
            c.reads,
            c.writes,
            c.reads as f64 * 100.0 / (n + c.trims).max(1) as f64
        )),
    );
    if c.sequential {
        s.set(
            "per_stream",
            1_i64,
            Some("the outstanding cap below counts requests, one stream each"),
        );
    }
    region(s, c, trace);
    if let Some(fit) = &c.skew {
        let unit = units::size(f64::from(c.unit));
        let observed = fit.hottest.map(|x| format!("{:.1}%", x * 100.0)).join("/");
        let theory = [0.01, 0.10, 0.20]
            .map(|x| {
                format!(
                    "{:.1}%",
                    fit.distribution.hottest_share(x, fit.blocks) * 100.0
                )
            })
            .join("/");
        let why = match fit.theta {
            None => format!(
                "too few hits to fit a skew: {} of {} blocks of {unit} hit, {} of them 10+ times, \
                 hits' dispersion (variance / mean) {:.2}",
                fit.blocks_hit, fit.blocks, fit.ranks, fit.dispersion
            ),
            Some(_) if fit.distribution.is_uniform() => format!(
                "block-hit curve over {} blocks of {unit} ({} hit): the hits' dispersion \
                 (variance / mean) is {:.3}, as uniform random hits give (1)",
                fit.blocks, fit.blocks_hit, fit.dispersion
            ),
            Some(t) => format!(
                "block-hit curve over {} blocks of {unit} ({} hit, {} ranks hit 10+ times compared): zipf θ {t:.3} \
                 fits with an RMS error of {:.2} points of share, uniform with {:.2}; dispersion {:.1}",
                fit.blocks,
                fit.blocks_hit,
                fit.ranks,
                fit.zipf_rms_points.unwrap_or(fit.rms_points),
                fit.uniform_rms_points,
                fit.dispersion
            ),
        };
        s.set("distribution", fit.distribution.to_string(), None);
        s.comment(&format!(
            "^ {why}; the hottest 1%/10%/20% of blocks took {observed} of the I/Os ({theory} in theory)"
        ));
    }
    durability(s, c, f);
    arrival(s, c);
}

fn sizes(s: &mut SpecDoc, c: &ClassStats, f: Features) {
    let n = c.count().max(1);
    let mut by_count: Vec<(u32, u64)> = c.sizes.iter().map(|(&k, &v)| (k, v)).collect();
    by_count.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let seen: Vec<String> = by_count
        .iter()
        .take(8)
        .map(|(size, k)| {
            format!(
                "{} {:.2}%",
                Size(u64::from(*size)),
                *k as f64 * 100.0 / n as f64
            )
        })
        .collect();
    let more = if by_count.len() > 8 {
        format!(" and {} more sizes", by_count.len() - 8)
    } else {
        String::new()
    };
    let dominant = by_count.first().map_or(512, |b| b.0);
    if by_count.len() == 1 {
        s.set(
            "size",
            Size(u64::from(dominant)).to_string(),
            Some("every request was this size"),
        );
        return;
    }
    // Sizes of under 1% of the requests (a probe's read, a stream's odd first request) are left
    // out of a mix: they would be noise in the spec, and the comment still names them.
    let kept: Vec<(u32, u64)> = by_count
        .iter()
        .copied()
        .filter(|b| b.1 as f64 >= MIN_MIX_SHARE * n as f64)
        .collect();
    let left_out: u64 = n.saturating_sub(kept.iter().map(|b| b.1).sum::<u64>());
    if f.size_mix && !c.sequential && kept.len() == 1 {
        s.set(
            "size",
            Size(u64::from(kept[0].0)).to_string(),
            Some(&format!(
                "{left_out} requests of {} other sizes (each under 1%) left out; sizes seen by count: {}{more}",
                by_count.len() - 1,
                seen.join(", ")
            )),
        );
    } else if f.size_mix && !c.sequential && kept.len() > 1 {
        s.set("size", size_mix(&kept), None);
        s.comment(&format!(
            "^ shares of the requests by count: {}{more}; {left_out} requests of sizes under 1% each left out",
            seen.join(", ")
        ));
    } else {
        s.set(
            "size",
            Size(u64::from(dominant)).to_string(),
            Some(&format!(
                "the most common size; sizes seen by count: {}{more}",
                seen.join(", ")
            )),
        );
        s.comment(&format!(
            "(a size mix would reproduce them all: this rigel's spec language takes one size per class{})",
            if c.sequential {
                ", and mixes only on random classes"
            } else {
                ""
            }
        ));
    }
}

/// `8KiB:60%, 64KiB:33.33%, …`: shares in hundredths of a percent adding up to exactly 100%
/// (largest remainders), at most 64 sizes, sizes rounding to no share left out.
pub fn size_mix(by_count: &[(u32, u64)]) -> String {
    let kept = &by_count[..by_count.len().min(MAX_SIZES)];
    let total: u64 = kept.iter().map(|b| b.1).sum();
    let exact: Vec<f64> = kept
        .iter()
        .map(|b| b.1 as f64 * 10_000.0 / total as f64)
        .collect();
    let mut bp: Vec<u64> = exact.iter().map(|e| e.floor() as u64).collect();
    let mut order: Vec<usize> = (0..kept.len()).collect();
    order.sort_by(|&a, &b| (exact[b] - exact[b].floor()).total_cmp(&(exact[a] - exact[a].floor())));
    let short = 10_000 - bp.iter().sum::<u64>();
    for &i in order.iter().take(short as usize) {
        bp[i] += 1;
    }
    kept.iter()
        .zip(&bp)
        .filter(|(_, b)| **b > 0)
        .map(|((size, _), b)| {
            let pct = if b % 100 == 0 {
                format!("{}", b / 100)
            } else {
                format!("{}.{:02}", b / 100, b % 100)
            };
            format!("{}:{pct}%", Size(u64::from(*size)))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn region(s: &mut SpecDoc, c: &ClassStats, trace: &Trace) {
    // Ends on a power of two at least 1 MiB and the largest size: a multiple of every
    // power-of-two size, and a round number to read.
    let largest = u64::from(c.sizes.keys().last().copied().unwrap_or(512))
        .next_power_of_two()
        .max(1 << 20);
    let start = c.region.0 / largest * largest;
    let mut end = c.region.1.div_ceil(largest) * largest;
    let device = trace.header.size;
    if let Some(d) = device {
        end = end.min(d.max(c.region.1));
    }
    let whole = device.is_some_and(|d| start < d / 100 && end > d / 100 * 99);
    if whole {
        s.comment(&format!(
            "region: the whole device (requests from {} to {} of {})",
            Size(c.region.0),
            Size(c.region.1),
            Size(device.unwrap_or(0))
        ));
    } else {
        s.set(
            "region",
            format!("{}..{}", Size(start), Size(end)),
            Some(&format!(
                "lowest offset to highest end seen, aligned to {}{}",
                Size(largest),
                device
                    .map(|d| format!(" (of {} traced)", Size(d)))
                    .unwrap_or_default()
            )),
        );
    }
}

fn durability(s: &mut SpecDoc, c: &ClassStats, f: Features) {
    if c.writes == 0 {
        return;
    }
    let w = c.writes as f64;
    let flushes = c.flushes + c.preflush_writes;
    let per_write = flushes as f64 / w;
    let fua = c.fua_writes as f64 / w;
    let what = format!(
        "{} writes: {:.1}% with FUA, {} flushes ({} flush requests, {} preflushed writes) = {:.4} flushes per write",
        c.writes,
        fua * 100.0,
        flushes,
        c.flushes,
        c.preflush_writes,
        per_write
    );
    let (value, why) = if fua >= 0.9 || per_write >= 0.9 {
        ("dsync".to_owned(), "every write durable")
    } else if flushes == 0 {
        ("none".to_owned(), "no flush, no FUA")
    } else if f.fdatasync {
        let n = (1.0 / per_write).round().max(1.0) as u64;
        (format!("fdatasync:{n}"), "one flush per group of writes")
    } else {
        (
            "dsync".to_owned(),
            "a flush per write: this rigel's spec language has no group commit (fdatasync:N), \
             so each write is made durable, more flushes than the trace's",
        )
    };
    s.set("durability", value, Some(&format!("{what}: {why}")));
}

fn arrival(s: &mut SpecDoc, c: &ClassStats) {
    let Some(rate) = c.rate() else {
        s.comment("no rate: the trace has no times (fio iolog v2) or fewer than 2 requests; the class runs closed loop");
        return;
    };
    let iops = rate.round().max(1.0) as u64;
    let w = c.steady_issues();
    s.set(
        "rate",
        format!("{iops} iops"),
        Some(&format!(
            "{} requests over {:.3} s, first to last issue of the steady part: the middle 99%, lulls at its edges left out ({rate:.1}/s)",
            w.len(),
            w.last().unwrap_or(&0).saturating_sub(*w.first().unwrap_or(&0)) as f64 / 1e9
        )),
    );
    let cv = c.gap_cv().unwrap_or(0.0);
    let (arrival, why) = if cv < UNIFORM_CV {
        ("uniform", format!("below {UNIFORM_CV}: evenly paced"))
    } else if cv <= BURSTY_CV {
        (
            "poisson",
            format!("{UNIFORM_CV} to {BURSTY_CV}: random arrivals (1 for poisson)"),
        )
    } else {
        (
            "poisson",
            format!(
                "above {BURSTY_CV}: BURSTY, more than poisson; this rigel has no burst arrival, so \
                 poisson's is the nearest (the bursts are not reproduced)"
            ),
        )
    };
    s.set(
        "arrival",
        arrival,
        Some(&format!(
            "the gaps between those issues have a CV (stdev / mean) of {cv:.3}, {why}"
        )),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_mix_shares_add_up_to_exactly_100() {
        assert_eq!(
            size_mix(&[(8192, 600), (65536, 300), (1 << 20, 100)]),
            "8KiB:60%, 64KiB:30%, 1MiB:10%"
        );
        assert_eq!(
            size_mix(&[(4096, 1), (8192, 1), (16384, 1)]),
            "4KiB:33.34%, 8KiB:33.33%, 16KiB:33.33%"
        );
        assert_eq!(size_mix(&[(4096, 1_000_000), (512, 1)]), "4KiB:100%");
    }

    #[test]
    fn spec_names_are_one_path_component() {
        assert_eq!(spec_name("/dev/nvme0n1"), "derived-nvme0n1");
        assert_eq!(spec_name("x.txt (blkparse 8,0)"), "derived-x-txt");
    }
}

#[cfg(test)]
#[path = "derive_tests.rs"]
mod derive_tests;
