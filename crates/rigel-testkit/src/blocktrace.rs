//! The requests the block layer issued to one device, from the kernel's `block:block_rq_issue`
//! tracepoint in a tracefs instance of the test's own (other tracers and tests are not disturbed):
//! what reached the device, not what the tool says it sent. Mounts tracefs where it is not
//! mounted; panics, saying why, where tracing is unavailable.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

const TRACEFS: &str = "/sys/kernel/tracing";

/// One request as issued to the device.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    /// The kernel's RWBS flags: `R` read, `W` write, `F` a flush before (`FW`, `FF` alone),
    /// `F` after the direction for FUA (`WFS`), `S` sync.
    pub rwbs: String,
    pub sector: u64,
    pub sectors: u32,
    /// When it was issued: the trace's clock (`local`, monotonic), in microseconds.
    pub at_us: u64,
}

impl Request {
    /// A flush request with no data (`FF`, or `F` with no sectors).
    pub fn is_flush(&self) -> bool {
        self.rwbs.starts_with('F') && self.sectors == 0
    }

    /// A write (with or without flushes around it).
    pub fn is_write(&self) -> bool {
        self.rwbs.contains('W')
    }

    /// A write with forced unit access: `F` after the `W`.
    pub fn is_fua(&self) -> bool {
        self.rwbs
            .find('W')
            .is_some_and(|w| self.rwbs[w + 1..].contains('F'))
    }

    /// The byte range `[start, end)` on the device.
    pub fn bytes(&self) -> (u64, u64) {
        (
            self.sector * 512,
            (self.sector + u64::from(self.sectors)) * 512,
        )
    }
}

/// A running trace of one device's issued requests; the instance is removed on drop.
pub struct BlockTrace {
    dir: PathBuf,
}

impl BlockTrace {
    /// Starts tracing the device numbered `numbers` (`"7:3"`, `LoopDevice::numbers`), with a
    /// buffer of `buffer_kib` per CPU (events beyond it are lost, which `stop` reports).
    pub fn start(numbers: &str, buffer_kib: u32) -> BlockTrace {
        let root = Path::new(TRACEFS);
        if !root.join("instances").is_dir() {
            let out = std::process::Command::new("mount")
                .args(["-t", "tracefs", "nodev", TRACEFS])
                .output()
                .unwrap_or_else(|e| panic!("cannot run mount for tracefs: {e}"));
            assert!(
                root.join("instances").is_dir(),
                "tracefs is not available at {TRACEFS} (mount said: {})",
                String::from_utf8_lossy(&out.stderr).trim()
            );
        }
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let dir = root.join("instances").join(format!(
            "rigel-test-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir(&dir)
            .unwrap_or_else(|e| panic!("cannot make the trace instance {}: {e}", dir.display()));
        let trace = BlockTrace { dir };
        let (major, minor) = numbers
            .split_once(':')
            .and_then(|(a, b)| Some((a.parse::<u32>().ok()?, b.parse::<u32>().ok()?)))
            .unwrap_or_else(|| panic!("device numbers {numbers:?} are not MAJOR:MINOR"));
        let event = trace.dir.join("events/block/block_rq_issue");
        trace.write(&trace.dir.join("buffer_size_kb"), &buffer_kib.to_string());
        trace.write(
            &event.join("filter"),
            &format!("dev == {}", (major << 20) | minor),
        );
        trace.write(&event.join("enable"), "1");
        trace
    }

    fn write(&self, path: &Path, value: &str) {
        std::fs::write(path, value)
            .unwrap_or_else(|e| panic!("cannot write {value:?} to {}: {e}", path.display()));
    }

    /// Stops tracing and returns the requests issued, in order. Panics when the buffer overflowed
    /// (a trace with holes proves nothing).
    pub fn stop(self) -> Vec<Request> {
        self.write(&self.dir.join("tracing_on"), "0");
        let text = std::fs::read_to_string(self.dir.join("trace"))
            .unwrap_or_else(|e| panic!("cannot read the trace: {e}"));
        let cpus = std::fs::read_dir(self.dir.join("per_cpu")).map_or(0, |d| d.count());
        for cpu in 0..cpus {
            let stats = std::fs::read_to_string(self.dir.join(format!("per_cpu/cpu{cpu}/stats")))
                .unwrap_or_default();
            let lost: u64 = stats
                .lines()
                .filter(|l| l.starts_with("overrun:") || l.starts_with("dropped events:"))
                .filter_map(|l| l.split(':').nth(1)?.trim().parse::<u64>().ok())
                .sum();
            assert_eq!(lost, 0, "the trace lost events on cpu {cpu}: {stats}");
        }
        text.lines().filter_map(parse).collect()
    }
}

impl Drop for BlockTrace {
    fn drop(&mut self) {
        let _ = std::fs::write(self.dir.join("tracing_on"), "0");
        let _ = std::fs::remove_dir(&self.dir);
    }
}

/// `… block_rq_issue: 7,0 WS 4096 () 2048 + 8 none,0,0 [rigel-worker-0]`
fn parse(line: &str) -> Option<Request> {
    let (head, rest) = line.split_once("block_rq_issue: ")?;
    // The timestamp is the last word before the event's name: `2041.117123:`.
    let at_s: f64 = head
        .split_whitespace()
        .last()?
        .trim_end_matches(':')
        .parse()
        .ok()?;
    let mut words = rest.split_whitespace();
    let _dev = words.next()?;
    let rwbs = words.next()?.to_owned();
    let _bytes = words.next()?;
    // The command is "()" for file-system requests; skip to the sector.
    let mut word = words.next()?;
    while word.starts_with('(') && !word.ends_with(')') {
        word = words.next()?;
    }
    let sector = words.next()?.parse().ok()?;
    let _plus = words.next()?;
    let sectors = words.next()?.parse().ok()?;
    Some(Request {
        rwbs,
        sector,
        sectors,
        at_us: (at_s * 1e6).round() as u64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn issue_lines_parse() {
        let line = "  rigel-worker-0-812 [001] ..... 2041.117: block_rq_issue: 7,3 WFS 4096 () 2048 + 8 none,0,0 [rigel-worker-0]";
        let r = parse(line).expect("parses");
        assert_eq!(
            r,
            Request {
                rwbs: "WFS".into(),
                sector: 2048,
                sectors: 8,
                at_us: 2_041_117_000,
            }
        );
        assert!(r.is_fua() && r.is_write() && !r.is_flush());
        let flush = parse("kworker/1:1H-77 [001] ..... 1.0: block_rq_issue: 7,3 FF 0 () 0 + 0 none,0,0 [kworker/1:1H]")
            .expect("parses");
        assert!(flush.is_flush() && !flush.is_write());
        assert_eq!(parse("# tracer: nop"), None);
    }
}
