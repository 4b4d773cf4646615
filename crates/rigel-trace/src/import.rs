//! Traces people already have: blkparse's text (`blkparse -i sda -o sda.txt`; its binary
//! per-CPU files are read by blkparse itself first) and fio's iolog, versions 2 and 3
//! (`write_iolog`). The format is told from the first line.

use crate::format::{Header, Op, Trace, flag};
use crate::pair::Pairer;
use crate::{TraceError, rwbs, tracefs::parse_seconds};
use rigel_fs::limits::IMPORT_BYTES;
use std::io::Read as _;
use std::path::Path;

/// Imports `text` read from `path` (named in errors and in the header).
/// The text of the file `path` to import: a regular file (no link, no FIFO), at most
/// [`IMPORT_BYTES`], UTF-8 (the line of the first byte that is not is named).
pub fn read_text(path: &Path) -> Result<String, TraceError> {
    let io = |source| TraceError::Io {
        action: "read",
        path: path.to_path_buf(),
        source,
    };
    let mut bytes = Vec::new();
    rigel_fs::open_no_follow(path)?
        .take(IMPORT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > IMPORT_BYTES {
        return Err(TraceError::Usage(format!(
            "{}: larger than {} bytes, the most rigel imports",
            path.display(),
            IMPORT_BYTES
        )));
    }
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let bytes = e.as_bytes();
        TraceError::Import {
            path: path.to_path_buf(),
            line: bytes[..at].iter().filter(|b| **b == b'\n').count() + 1,
            message: format!(
                "byte {} of the line is not UTF-8 text",
                at - bytes[..at]
                    .iter()
                    .rposition(|b| *b == b'\n')
                    .map_or(0, |n| n + 1)
                    + 1
            ),
        }
    })
}

pub fn import(path: &Path, text: &str) -> Result<Trace, TraceError> {
    let first = text.lines().next().unwrap_or_default().trim();
    let (host, _) = crate::device::host_and_kernel();
    let mut trace = match first {
        "fio version 2 iolog" => iolog(path, text, 2)?,
        "fio version 3 iolog" => iolog(path, text, 3)?,
        _ => blkparse(path, text)?,
    };
    trace.header.records = trace.records.len() as u64;
    trace.header.complete = true;
    if trace.header.host.is_empty() {
        trace.header.host = host;
    }
    trace
        .check_span()
        .map_err(|e| TraceError::Usage(format!("{}: {e}", path.display())))?;
    Ok(trace)
}

fn err(path: &Path, line: usize, message: impl Into<String>) -> TraceError {
    TraceError::Import {
        path: path.to_path_buf(),
        line,
        message: message.into(),
    }
}

/// blkparse's default output: `8,0  3  1  0.000000000  4162  D  WS 1234 + 8 [fio]`. `D` lines
/// (issued to the driver) are the requests, `C` lines their completions; the other actions
/// (queued, merged, plugged…) and the summary are skipped. One device per file.
fn blkparse(path: &Path, text: &str) -> Result<Trace, TraceError> {
    let mut pairer = Pairer::default();
    let mut device: Option<String> = None;
    let (mut first, mut last) = (None::<u64>, 0u64);
    for (i, line) in text.lines().enumerate() {
        let w: Vec<&str> = line.split_whitespace().collect();
        if w.len() < 7 || !w[0].contains(',') || w[1].parse::<u32>().is_err() {
            continue;
        }
        let action = w[5];
        if action != "D" && action != "C" {
            continue;
        }
        let t = parse_seconds(w[3])
            .ok_or_else(|| err(path, i + 1, format!("{:?} is not a time in seconds", w[3])))?;
        match &device {
            Some(d) if d != w[0] => {
                return Err(err(
                    path,
                    i + 1,
                    format!(
                        "a second device ({} after {d}): import one device's trace (blkparse -i DEV)",
                        w[0]
                    ),
                ));
            }
            Some(_) => {}
            None => device = Some(w[0].to_owned()),
        }
        let (op, flags) = rwbs::parse(w[6])
            .ok_or_else(|| err(path, i + 1, format!("{:?} is not an RWBS field", w[6])))?;
        // `1234 + 8`, or nothing for a flush.
        let (sector, sectors) = match (w.get(7), w.get(8), w.get(9)) {
            (Some(s), Some(&"+"), Some(n)) => (
                s.parse::<u64>()
                    .map_err(|_| err(path, i + 1, format!("{s:?} is not a sector")))?,
                n.parse::<u32>()
                    .map_err(|_| err(path, i + 1, format!("{n:?} is not a sector count")))?,
            ),
            _ => (0, 0),
        };
        first.get_or_insert(t);
        last = last.max(t);
        if action == "D" {
            pairer.issue(t, sector, sectors, op, flags);
        } else {
            pairer.complete(t, sector, sectors, op == Op::Flush);
        }
    }
    let Some(device) = device else {
        return Err(err(
            path,
            1,
            "no issued (D) request found: expected blkparse's text output \
             (`blkparse -i DEV -o FILE`) or a fio iolog (`fio version 2 iolog`)",
        ));
    };
    let (records, incomplete, reissued) = pairer.finish();
    Ok(Trace {
        header: Header {
            reissued,
            device: format!("{} (blkparse {device})", path.display()),
            source: "blkparse".into(),
            clock: "blktrace, 1ns".into(),
            incomplete,
            duration_ns: last - first.unwrap_or(last),
            ..Header::default()
        },
        records,
    })
}

/// fio's iolog: `FILE ACTION [OFFSET LENGTH]` (version 2, no times; `wait` lines carry a delay
/// in µs) or `MSEC FILE ACTION [OFFSET LENGTH]` (version 3, times in ms). Actions: read, write,
/// sync and datasync (a flush), trim (a discard); add, open and close are skipped.
fn iolog(path: &Path, text: &str, version: u8) -> Result<Trace, TraceError> {
    let mut pairer = Pairer::starting_at(0);
    let mut file: Option<String> = None;
    let mut clock_ns: u64 = 0;
    let mut timed = version == 3;
    for (i, line) in text.lines().enumerate().skip(1) {
        let w: Vec<&str> = line.split_whitespace().collect();
        if w.is_empty() {
            continue;
        }
        let w = if version == 3 {
            let ms: u64 = w[0]
                .parse()
                .map_err(|_| err(path, i + 1, format!("{:?} is not a time in ms", w[0])))?;
            clock_ns = ms * 1_000_000;
            &w[1..]
        } else {
            &w[..]
        };
        let (Some(name), Some(action)) = (w.first(), w.get(1)) else {
            return Err(err(path, i + 1, "expected FILE ACTION"));
        };
        let number = |k: usize, what: &str| -> Result<u64, TraceError> {
            w.get(k)
                .and_then(|s| s.parse().ok())
                .ok_or_else(|| err(path, i + 1, format!("expected {what} after {action:?}")))
        };
        let op = match *action {
            "add" | "open" | "close" => continue,
            "wait" if version == 2 => {
                clock_ns += number(2, "a delay in µs")? * 1000;
                timed = true;
                continue;
            }
            "read" => Op::Read,
            "write" => Op::Write,
            "sync" | "datasync" => Op::Flush,
            "trim" => Op::Discard,
            other => {
                return Err(err(
                    path,
                    i + 1,
                    format!("unknown action {other:?} (read, write, sync, datasync, trim, wait)"),
                ));
            }
        };
        file.get_or_insert_with(|| (*name).to_owned());
        let (offset, len) = if op == Op::Flush {
            (0, 0)
        } else {
            (number(2, "an offset")?, number(3, "a length")?)
        };
        if offset % 512 != 0 || len % 512 != 0 || len > u64::from(u32::MAX) {
            return Err(err(
                path,
                i + 1,
                format!("offset {offset} and length {len} must be whole 512-byte sectors"),
            ));
        }
        let flags = if op == Op::Flush { 0 } else { flag::SYNC };
        pairer.issue(clock_ns, offset / 512, (len / 512) as u32, op, flags);
    }
    let (records, _, _) = pairer.finish();
    let duration_ns = records.last().map_or(0, |r| r.issue_ns);
    Ok(Trace {
        header: Header {
            device: format!(
                "{} (fio iolog of {})",
                path.display(),
                file.unwrap_or_default()
            ),
            source: "fio-iolog".into(),
            clock: if timed {
                format!("fio iolog v{version}, 1ms")
            } else {
                "none (fio iolog v2 has no times)".into()
            },
            duration_ns,
            ..Header::default()
        },
        records,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An import with a byte that is not UTF-8 names its line (and a FIFO is refused at once).
    #[test]
    fn bad_utf8_names_its_line() {
        let path = std::env::temp_dir().join(format!("rigel-import-{}.txt", std::process::id()));
        std::fs::write(&path, b"fio version 2 iolog\n/x add\n/x wr\xffite 0 4096\n")
            .expect("written");
        let err = read_text(&path).expect_err("not UTF-8");
        let _ = std::fs::remove_file(&path);
        assert!(matches!(err, TraceError::Import { line: 3, .. }), "{err}");
    }

    #[test]
    fn blkparse_text_imports_issues_and_completions() {
        let text = "  8,0    3        1     0.000000000  4162  Q  WS 1234 + 8 [fio]\n\
                    \x20 8,0    3        2     0.000001000  4162  D  WS 1234 + 8 [fio]\n\
                    \x20 8,0    3        3     0.000002000  4162  D  FWFS 0 + 0 [fio]\n\
                    \x20 8,0    1        4     0.000101500     0  C  WS 1234 + 8 [0]\n\
                    \x20 8,0    1        5     0.000201500     0  C  FWFS 0 + 0 [0]\n\
                    CPU1 (sda):\n Reads Queued: 0, 0KiB\n";
        let t = import(Path::new("sda.txt"), text).expect("imports");
        assert_eq!(t.records.len(), 2);
        let r = t.records[0];
        assert_eq!((r.offset, r.size, r.op), (1234 * 512, 4096, Op::Write));
        assert_eq!((r.issue_ns, r.complete_ns), (0, Some(100_500)));
        assert!(t.records[1].has(flag::PREFLUSH) && t.records[1].has(flag::FUA));
        assert_eq!(t.header.source, "blkparse");
        let two = format!("{text}  8,16 0 9 0.5 1 D R 0 + 8 [x]\n");
        let e = import(Path::new("sda.txt"), &two).expect_err("two devices");
        assert!(
            e.to_string().starts_with("sda.txt:8: a second device"),
            "{e}"
        );
        let e = import(Path::new("x.txt"), "hello\n").expect_err("not a trace");
        assert!(e.to_string().contains("blkparse"), "{e}");
    }

    #[test]
    fn fio_iologs_import_with_and_without_times() {
        let v2 = "fio version 2 iolog\n/dev/sdb add\n/dev/sdb open\n/dev/sdb write 0 4096\n\
                  /dev/sdb wait 250\n/dev/sdb read 8192 8192\n/dev/sdb datasync 0 0\n\
                  /dev/sdb trim 4096 4096\n/dev/sdb close\n";
        let t = import(Path::new("a.log"), v2).expect("v2");
        let ops: Vec<Op> = t.records.iter().map(|r| r.op).collect();
        assert_eq!(ops, [Op::Write, Op::Read, Op::Flush, Op::Discard]);
        assert_eq!(t.records[1].issue_ns, 250_000);
        assert_eq!(t.records[1].size, 8192);
        let v3 = "fio version 3 iolog\n0 /dev/sdb add\n0 /dev/sdb open\n3 /dev/sdb read 0 4096\n\
                  7 /dev/sdb write 4096 4096\n";
        let t = import(Path::new("b.log"), v3).expect("v3");
        assert_eq!(t.records[1].issue_ns, 7_000_000);
        assert!(t.header.clock.contains("v3"));
        let e = import(
            Path::new("c.log"),
            "fio version 3 iolog\nx /dev/sdb read 0 1\n",
        )
        .expect_err("bad time");
        assert!(e.to_string().starts_with("c.log:2:"), "{e}");
        let e = import(
            Path::new("c.log"),
            "fio version 2 iolog\n/dev/sdb read 1 4096\n",
        )
        .expect_err("unaligned");
        assert!(e.to_string().contains("512-byte"), "{e}");
    }
}
