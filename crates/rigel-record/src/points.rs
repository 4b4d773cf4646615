//! Reading `results.jsonl`: one finished point per line, in the order they finished. A crash or a
//! full disk can leave a torn last line: one without its newline, since each point is appended by
//! one write that ends with it. A whole, newline-terminated line that does not parse is damage,
//! wherever it is (last or not), and an error: cutting it would drop a point rigel finished. A point retried by `--resume` appears once
//! per attempt; the latest line of a point is the one that counts.

use rigel_results::PointResult;
use std::collections::HashMap;
use std::io::BufRead;

/// The lines of a `results.jsonl` text.
#[derive(Debug, Default)]
pub struct PointLines {
    /// Every complete line's point, in file order (several per point id when retried).
    pub points: Vec<PointResult>,
    /// Bytes of whole, valid lines: where a torn tail begins.
    pub valid_len: u64,
    /// The torn tail after them, if any.
    pub torn: Option<Torn>,
}

/// A torn last line: where it starts and how long it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Torn {
    /// 1-based line number.
    pub line: usize,
    pub offset: u64,
    pub bytes: u64,
}

/// A line in the middle of the file that is not a point.
#[derive(Debug, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct BadLine {
    pub line: usize,
    pub message: String,
}

/// Parses the bytes of `results.jsonl`. Blank lines are skipped. The last line is torn when it has
/// no newline; any whole line that does not parse is an error.
pub fn parse_lines(bytes: &[u8]) -> Result<PointLines, BadLine> {
    read_lines(bytes).map_err(|e| match e {
        ReadError::Line(b) => b,
        // Reading a slice cannot fail.
        ReadError::Io(e) => BadLine {
            line: 0,
            message: e.to_string(),
        },
    })
}

/// Why [`read_lines`] stopped.
#[derive(Debug)]
pub enum ReadError {
    Io(std::io::Error),
    Line(BadLine),
}

/// A [`ReadError`] of the `results.jsonl` at `path`, as the folder's error.
pub(crate) fn read_error(path: &std::path::Path, e: ReadError) -> crate::RecordError {
    match e {
        ReadError::Io(e) => crate::error::io("read", path)(e),
        ReadError::Line(e) => crate::RecordError::Invalid {
            path: path.to_path_buf(),
            message: e.to_string(),
        },
    }
}

/// [`parse_lines`] over a reader, one line in memory at a time: a folder of 100,000 points is
/// about 1 GB of lines, which need not be held beside the points parsed from them.
pub fn read_lines(mut reader: impl BufRead) -> Result<PointLines, ReadError> {
    let mut out = PointLines::default();
    let mut offset = 0u64;
    let mut line_no = 0;
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = reader.read_until(b'\n', &mut line).map_err(ReadError::Io)?;
        if n == 0 {
            return Ok(out);
        }
        line_no += 1;
        let terminated = line.ends_with(b"\n");
        if !terminated {
            // Only the last line can lack its newline: a torn tail, whatever it holds.
            out.torn = Some(Torn {
                line: line_no,
                offset,
                bytes: n as u64,
            });
            return Ok(out);
        }
        match parse_line(&line[..n - 1]) {
            Ok(Some(point)) => out.points.push(point),
            Ok(None) => {}
            Err(message) => {
                return Err(ReadError::Line(BadLine {
                    line: line_no,
                    message,
                }));
            }
        }
        offset += n as u64;
        out.valid_len = offset;
    }
}

fn parse_line(line: &[u8]) -> Result<Option<PointResult>, String> {
    if line.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    let point: PointResult = serde_json::from_slice(line).map_err(|e| e.to_string())?;
    // A line that parses but holds figures that cannot be is damage too.
    rigel_results::check::point(&point).map_err(|e| e.to_string())?;
    Ok(Some(point))
}

/// The latest record of each point, in the order those records were written.
pub fn latest(points: Vec<PointResult>) -> Vec<PointResult> {
    let last: HashMap<u32, usize> = points
        .iter()
        .enumerate()
        .map(|(i, p)| (p.point.id, i))
        .collect();
    points
        .into_iter()
        .enumerate()
        .filter(|(i, p)| last.get(&p.point.id) == Some(i))
        .map(|(_, p)| p)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const POINT: &str = rigel_testkit::fixtures::BASIC;

    fn line(id: u32) -> String {
        let doc: serde_json::Value = serde_json::from_str(POINT).unwrap();
        let mut p = doc["points"][0].clone();
        p["point"]["id"] = id.into();
        format!("{}\n", serde_json::to_string(&p).unwrap())
    }

    #[test]
    fn a_torn_last_line_is_told_apart_from_damage_in_the_middle() {
        let whole = format!("{}{}", line(1), line(2));
        let fragment = &line(3)[..40];
        let text = format!("{whole}{fragment}");
        let parsed = parse_lines(text.as_bytes()).unwrap();
        assert_eq!(parsed.points.len(), 2);
        assert_eq!(parsed.valid_len, whole.len() as u64);
        assert_eq!(
            parsed.torn,
            Some(Torn {
                line: 3,
                offset: whole.len() as u64,
                bytes: 40
            })
        );
        // A whole line that does not parse, even the last, is damage, not a torn tail.
        let text = format!("{whole}{fragment}\n");
        assert_eq!(parse_lines(text.as_bytes()).unwrap_err().line, 3);
        // The same damage before a good line is an error naming the line.
        let text = format!("{}{fragment}\n{}", line(1), line(2));
        assert_eq!(parse_lines(text.as_bytes()).unwrap_err().line, 2);
    }

    #[test]
    fn the_latest_record_of_a_retried_point_counts() {
        let text = format!("{}{}{}", line(1), line(2), line(1));
        let parsed = parse_lines(text.as_bytes()).unwrap();
        let ids: Vec<u32> = latest(parsed.points).iter().map(|p| p.point.id).collect();
        assert_eq!(ids, vec![2, 1]);
    }
}
