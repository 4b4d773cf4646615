//! `--format hlog`: one HdrHistogram interval log per class and direction
//! (`hlog/<class>-read.hlog`, `hlog/<class>-write.hlog`), the format HistogramLogAnalyzer and
//! hdrhistogram's own log readers read. Each second of every point is one interval histogram
//! (latencies in ns), tagged with its point (`p3`), timed from the run's start.

use super::ReportError;
use hdrhistogram::serialization::V2DeflateSerializer;
use hdrhistogram::serialization::interval_log::{IntervalLogWriterBuilder, Tag};
use rigel_results::{PointResult, ResultsDoc, decode_histogram};
use std::path::PathBuf;
use std::time::{Duration, SystemTime};

/// The column legend Java's HistogramLogWriter writes (and every reader skips).
const LEGEND: &str =
    "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"\n";

/// The logs, as (file name, text). An error when the results hold no per-interval histograms.
pub fn render(doc: &ResultsDoc) -> Result<Vec<(PathBuf, String)>, ReportError> {
    let start =
        epoch_seconds(doc.started()).ok_or_else(|| bad("the run", "no valid start time"))?;
    let mut classes: Vec<&str> = Vec::new();
    for p in doc.points() {
        for c in &p.classes {
            if !classes.contains(&c.class.as_str()) {
                classes.push(&c.class);
            }
        }
    }
    let mut out = Vec::new();
    for class in classes {
        for write in [false, true] {
            if let Some(text) = log(doc, start, class, write)? {
                let dir = if write { "write" } else { "read" };
                out.push((PathBuf::from(format!("hlog/{class}-{dir}.hlog")), text));
            }
        }
    }
    if out.is_empty() {
        return Err(bad(
            "the intervals",
            "these results hold no per-interval histograms (written before rigel kept them): \
             run the spec again",
        ));
    }
    Ok(out)
}

/// One class and direction's log, or None when no interval holds a histogram for it.
fn log(
    doc: &ResultsDoc,
    start: f64,
    class: &str,
    write: bool,
) -> Result<Option<String>, ReportError> {
    let what = format!("{class} {}", if write { "writes" } else { "reads" });
    let mut header = Vec::new();
    let mut serializer = V2DeflateSerializer::new();
    IntervalLogWriterBuilder::new()
        .add_comment(&format!(
            "rigel {}: {what}, one interval per second of each point (tag pID), latencies in ns",
            doc.rigel_version()
        ))
        .add_comment("[Histogram log format version 1.3]")
        .with_start_time(SystemTime::UNIX_EPOCH + Duration::from_secs_f64(start))
        .with_base_time(SystemTime::UNIX_EPOCH + Duration::from_secs_f64(start))
        .with_max_value_divisor(1e6)
        .begin_log_with(&mut header, &mut serializer)
        .map_err(|e| bad(&what, &e.to_string()))?;
    header.extend_from_slice(LEGEND.as_bytes());
    let mut body = Vec::new();
    let mut writer = IntervalLogWriterBuilder::new()
        .with_max_value_divisor(1e6)
        .begin_log_with(&mut body, &mut serializer)
        .map_err(|e| bad(&what, &e.to_string()))?;
    let mut any = false;
    for p in doc.points() {
        let Some(c) = p.classes.iter().find(|c| c.class == class) else {
            continue;
        };
        let offset = point_offset(p, start);
        let tag = format!("p{}", p.point.id);
        let mut from = 0.0;
        for iv in &c.intervals {
            let encoded = if write {
                &iv.write_histogram
            } else {
                &iv.read_histogram
            };
            let Some(encoded) = encoded else { continue };
            let hist = decode_histogram(encoded)
                .ok_or_else(|| bad(&what, &format!("point {}: undecodable", p.point.id)))?;
            writer
                .write_histogram(
                    &hist,
                    Duration::from_secs_f64(offset + from),
                    Duration::from_secs_f64((iv.t_s - from).max(0.0)),
                    Tag::new(&tag),
                )
                .map_err(|e| bad(&what, &format!("{e:?}")))?;
            from = iv.t_s;
            any = true;
        }
    }
    drop(writer);
    header.extend(body);
    Ok(any.then(|| String::from_utf8_lossy(&header).into_owned()))
}

/// Seconds from the run's start to the point's measured window (0 when its start is unreadable).
fn point_offset(p: &PointResult, run_start: f64) -> f64 {
    epoch_seconds(&p.started).map_or(0.0, |s| (s - run_start).max(0.0))
}

fn epoch_seconds(rfc3339: &str) -> Option<f64> {
    let t = chrono::DateTime::parse_from_rfc3339(rfc3339).ok()?;
    Some(t.timestamp_millis() as f64 / 1000.0)
}

fn bad(what: &str, reason: &str) -> ReportError {
    ReportError::Histogram {
        what: format!("{what} (interval log)"),
        reason: reason.to_owned(),
    }
}
