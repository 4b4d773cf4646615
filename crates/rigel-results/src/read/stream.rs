//! The streaming reader of `results.jsonl`, for fleets and runs too large to hold whole: [`heads`]
//! goes over the file once keeping each complete line's place and its point's id, status and
//! window; [`LightPoint`] is what a fleet's merge reads of one line: the figures it sums, with the
//! histograms borrowed from the line as base64 text. Everything else (the planned point, the
//! per-second histograms, the start time) is skipped unparsed, so a 20 KB line costs a scan, not
//! a tree of owned strings.

use crate::{CpuTime, LatencyStats, PaceResult, PointStatus, WallWindow};
use serde::Deserialize;
use std::borrow::Cow;
use std::io::{BufRead, BufReader, Read};

/// One complete line's place in the file and what it says of its point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LineHead {
    pub id: u32,
    /// The point finished without an I/O error.
    pub ok: bool,
    pub window: Option<WallWindow>,
    /// Where the line starts, and its length with its newline.
    pub offset: u64,
    pub len: usize,
}

/// What [`heads`] parses of a line.
#[derive(Deserialize)]
struct Head {
    point: LightId,
    status: PointStatus,
    #[serde(default)]
    window: Option<WallWindow>,
}

/// The heads of every complete line of `results.jsonl`, in file order (a retried point appears
/// once per attempt). A line without its newline (torn by a crash) or that is not a point's
/// result is skipped; only an error reading `file` ends the pass early.
pub fn heads(file: impl Read) -> impl Iterator<Item = std::io::Result<LineHead>> {
    let mut reader = BufReader::with_capacity(256 * 1024, file);
    let mut line = Vec::new();
    let mut offset = 0u64;
    std::iter::from_fn(move || {
        loop {
            line.clear();
            let n = match reader.read_until(b'\n', &mut line) {
                Ok(0) => return None,
                Ok(n) => n,
                Err(e) => return Some(Err(e)),
            };
            let at = offset;
            offset += n as u64;
            if !line.ends_with(b"\n") {
                continue;
            }
            if let Ok(h) = serde_json::from_slice::<Head>(&line) {
                return Some(Ok(LineHead {
                    id: h.point.id,
                    ok: matches!(h.status, PointStatus::Ok),
                    window: h.window,
                    offset: at,
                    len: n,
                }));
            }
        }
    })
}

/// One point's line, as summed across hosts.
#[derive(Debug, Deserialize)]
pub struct LightPoint<'a> {
    pub point: LightId,
    pub status: PointStatus,
    pub elapsed_s: f64,
    #[serde(borrow)]
    pub classes: Vec<LightClass<'a>>,
    pub cpu: CpuTime,
    #[serde(default)]
    pub window: Option<WallWindow>,
    /// Time in the window this host's rigel did not run: its window is then no common one.
    #[serde(default)]
    pub paused: Option<crate::Paused>,
}

/// The planned point's id (the rest of it is the plan's, the same on every host).
#[derive(Debug, Deserialize)]
pub struct LightId {
    pub id: u32,
}

/// One class's figures ([`crate::ClassResult`] without the per-second histograms).
#[derive(Debug, Deserialize)]
pub struct LightClass<'a> {
    #[serde(borrow)]
    pub class: Cow<'a, str>,
    pub size: u64,
    pub outstanding: u32,
    #[serde(borrow)]
    pub total: LightDir<'a>,
    #[serde(borrow)]
    pub read: Option<LightDir<'a>>,
    #[serde(borrow)]
    pub write: Option<LightDir<'a>>,
    pub intervals: Vec<LightInterval>,
    #[serde(default)]
    pub pace: Option<PaceResult>,
}

#[derive(Debug, Deserialize)]
pub struct LightDir<'a> {
    pub ios: u64,
    pub bytes: u64,
    pub iops: f64,
    pub mbps: f64,
    pub latency: LatencyStats,
    #[serde(borrow)]
    pub histogram: Cow<'a, str>,
    #[serde(default, borrow)]
    pub service: Option<LightService<'a>>,
}

#[derive(Debug, Deserialize)]
pub struct LightService<'a> {
    pub latency: LatencyStats,
    #[serde(borrow)]
    pub histogram: Cow<'a, str>,
}

#[derive(Debug, Deserialize)]
pub struct LightInterval {
    pub t_s: f64,
    pub ios: u64,
    pub iops: f64,
    pub mbps: f64,
    pub mean_ns: f64,
    pub p99_ns: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = rigel_testkit::fixtures::BASIC;

    fn line(id: u32, failed: bool) -> String {
        let doc: serde_json::Value = serde_json::from_str(DOC).expect("fixture");
        let mut p = doc["points"][0].clone();
        p["point"]["id"] = id.into();
        if failed {
            p["status"] = serde_json::json!({"state": "failed", "error":
                {"target": "/dev/x", "offset": 0, "errno": 5, "message": "EIO"}});
        }
        format!("{}\n", serde_json::to_string(&p).expect("json"))
    }

    #[test]
    fn heads_place_every_complete_line_and_skip_torn_or_foreign_ones() {
        let (a, b, c) = (line(1, false), line(2, true), line(1, false));
        let torn = &line(3, false)[..60];
        let text = format!("{a}not a point\n{b}{c}{torn}");
        let heads: Vec<LineHead> = heads(text.as_bytes())
            .collect::<Result<_, _>>()
            .expect("reads");
        let places: Vec<(u32, bool, u64, usize)> = heads
            .iter()
            .map(|h| (h.id, h.ok, h.offset, h.len))
            .collect();
        let skip = a.len() + "not a point\n".len();
        assert_eq!(
            places,
            [
                (1, true, 0, a.len()),
                (2, false, skip as u64, b.len()),
                (1, true, (skip + b.len()) as u64, c.len()),
            ]
        );
        // Each place holds its line, which reads as a light point.
        let at = heads[1].offset as usize;
        let p: LightPoint = serde_json::from_str(&text[at..at + heads[1].len]).expect("a point");
        assert_eq!(p.point.id, 2);
        assert!(!p.classes.is_empty());
    }
}
