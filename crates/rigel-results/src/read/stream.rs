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
/// once per attempt). The run folder's rules for the file (rigel-record's `points`): the last line
/// without its newline (torn by a crash) and blank lines are skipped; a whole line that is not a
/// point's result is damage, an error of kind `InvalidData` naming its line, which ends the pass
/// as an error reading `file` does.
pub fn heads(file: impl Read) -> impl Iterator<Item = std::io::Result<LineHead>> {
    let mut reader = BufReader::with_capacity(256 * 1024, file);
    let mut line = Vec::new();
    let mut offset = 0u64;
    let mut line_no = 0usize;
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
            line_no += 1;
            if !line.ends_with(b"\n") || line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            return Some(match serde_json::from_slice::<Head>(&line) {
                Ok(h) => Ok(LineHead {
                    id: h.point.id,
                    ok: matches!(h.status, PointStatus::Ok),
                    window: h.window,
                    offset: at,
                    len: n,
                }),
                Err(e) => Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!("line {line_no}: {e}"),
                )),
            });
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
    /// A trimming class's discards (absent otherwise and in results before rigel had trims).
    #[serde(borrow, default)]
    pub trim: Option<LightDir<'a>>,
    pub intervals: Vec<LightInterval>,
    #[serde(default)]
    pub pace: Option<PaceResult>,
    /// First touch's sampled reads (absent in results before rigel kept them).
    #[serde(default)]
    pub touch: Option<crate::TouchResult>,
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
    fn heads_place_every_complete_line_skip_a_torn_one_and_refuse_a_foreign_one() {
        let (a, b, c) = (line(1, false), line(2, true), line(1, false));
        let torn = &line(3, false)[..60];
        let text = format!("{a}\n{b}{c}{torn}");
        let found: Vec<LineHead> = heads(text.as_bytes())
            .collect::<Result<_, _>>()
            .expect("reads");
        let places: Vec<(u32, bool, u64, usize)> = found
            .iter()
            .map(|h| (h.id, h.ok, h.offset, h.len))
            .collect();
        let skip = a.len() + "\n".len();
        assert_eq!(
            places,
            [
                (1, true, 0, a.len()),
                (2, false, skip as u64, b.len()),
                (1, true, (skip + b.len()) as u64, c.len()),
            ]
        );
        // A whole line that is not a point is damage, as the run folder's reader says.
        let damaged = format!("{a}not a point\n{b}");
        let err = heads(damaged.as_bytes())
            .collect::<Result<Vec<_>, _>>()
            .expect_err("a foreign line");
        assert_eq!(err.kind(), std::io::ErrorKind::InvalidData);
        assert!(err.to_string().starts_with("line 2: "), "{err}");
        // Each place holds its line, which reads as a light point.
        let at = found[1].offset as usize;
        let p: LightPoint = serde_json::from_str(&text[at..at + found[1].len]).expect("a point");
        assert_eq!(p.point.id, 2);
        assert!(!p.classes.is_empty());
    }
}
