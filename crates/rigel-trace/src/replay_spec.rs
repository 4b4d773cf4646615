//! The spec `rigel replay` runs: one open-loop class on one worker, its size the trace's largest
//! request, its rate the trace's mean, and the one target the user named. Built as data
//! ([`SpecDoc`]) and loaded back before it runs, so a trace's header (its device name, above all)
//! stays a comment and can add no target.

use crate::TraceError;
use crate::format::Trace;
use crate::replay::ReplayOptions;
use crate::spec_doc::{self, Expected, SpecDoc};
use rigel_plan::replay::Replay;
use std::path::Path;

/// After the last send, the window waits this long for the last completions.
pub const TAIL_MS: u64 = 50;
/// The outstanding cap: twice the most the traced device had in flight, within these bounds, so
/// a send never waits for a slot unless the target is much slower than the traced device.
const CAP: (u32, u32) = (16, 1024);
/// The slots' buffers together stay under this.
const ARENA_BYTES: u64 = 256 << 20;

/// What the user named on the command line.
pub struct ReplayTarget<'a> {
    /// The trace folder (or file) replayed.
    pub source: &'a Path,
    pub target: &'a Path,
    /// `--size`, for a file rigel creates.
    pub size: Option<&'a str>,
    pub allow_destructive: bool,
}

/// The replay's spec text, checked: it loads, compiles and plans exactly `to.target`.
pub fn replay_spec(
    to: &ReplayTarget<'_>,
    trace: &Trace,
    r: &Replay,
    opts: ReplayOptions,
) -> Result<String, TraceError> {
    let data = r.reads + r.writes;
    let mix = match (r.reads, r.writes) {
        // Discards sent: the class trims (its consent is a write's).
        _ if r.trims > 0 => crate::spec_doc::trim_mix(r.reads, r.writes + r.flushes, r.trims),
        (_, 0) if r.flushes == 0 => "read".to_owned(),
        (0, _) => "write".to_owned(),
        (_, 0) => "99% read".to_owned(),
        (reads, _) => {
            let p = (reads as f64 * 100.0 / data as f64)
                .round()
                .clamp(1.0, 99.0);
            format!("{p}% read")
        }
    };
    let span_s = (r.span_ns as f64 / 1e9).max(1e-3);
    let rate = (r.requests.len() as f64 / span_s).round().max(1.0);
    let cap = (r.max_in_flight.saturating_mul(2))
        .clamp(CAP.0, CAP.1)
        .min((ARENA_BYTES / u64::from(r.largest.max(4096))).max(1) as u32);
    let duration_ms = (r.span_ns / 1_000_000 + 1).max(10) + TAIL_MS;
    let destructive = r.writes + r.flushes + r.trims > 0 && to.allow_destructive;
    let target = to.target.display().to_string();
    let mut s = SpecDoc::default();
    s.comment(&format!(
        "rigel replay of {} ({}, {} requests)",
        to.source.display(),
        trace.header.device,
        trace.records.len()
    ));
    s.comment(&format!(
        "speed {}x, offsets {:?}, target {} bytes; skipped: {} empty discards, {} others",
        opts.speed, opts.fit, opts.target_bytes, r.discards, r.others
    ));
    s.table(&["spec"]);
    s.set("name", "replay", None);
    s.set(
        "description",
        format!(
            "replay of {}: {} reads, {} writes ({} with RWF_DSYNC), {} flushes",
            to.source.display(),
            r.reads,
            r.writes,
            r.dsync,
            r.flushes
        ),
        None,
    );
    s.target();
    s.set("path", target.clone(), None);
    if let Some(size) = to.size {
        s.set("size", size, None);
    }
    if destructive {
        s.set("destructive", true, None);
    }
    s.table(&["run"]);
    s.set("duration", format!("{duration_ms}ms"), None);
    s.set("warmup", "0s", None);
    s.set("workers", 1_i64, None);
    s.comment("Sized for the trace's largest request; each replayed request keeps its own size.");
    s.table(&["class", "replay"]);
    s.set("size", r.largest.max(512).to_string(), None);
    s.set("mix", mix, None);
    s.comment("The trace's mean rate: the send times themselves are the trace's.");
    s.set("rate", format!("{rate} iops"), None);
    s.table(&["matrix"]);
    s.set("shape", "point", None);
    s.comment(&format!(
        "The outstanding cap: twice the most the traced device had in flight ({}).",
        r.max_in_flight
    ));
    s.set("replay", cap.to_string(), None);
    let text = s.finish();
    spec_doc::check(
        "replay",
        &text,
        &[Expected {
            path: target,
            destructive,
        }],
    )?;
    Ok(text)
}
