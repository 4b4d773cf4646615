//! Capturing a device's requests through a tracefs instance of rigel's own.
//!
//! Why tracefs and not perf events: an instance has its own ring buffer, clock and event filters,
//! so rigel neither disturbs nor is disturbed by other tracers (perf, another capture, a test's
//! trace); the kernel filters by device before anything is written (`dev == N`); the whole
//! interface is files, read with no `unsafe` and no mmap ring to decode; and the drops are
//! counted per CPU in `per_cpu/cpuN/stats`. The cost is the kernel formatting each event as
//! text in `trace_pipe` (a few µs of system time per event, which the capture measures and
//! states) and a timestamp resolution of 1 µs. blktrace's ioctl (`BLKTRACESETUP`) is refused on
//! some hosts (EPERM here), where these tracepoints still work.

use crate::device::{BlockDevice, host_and_kernel};
use crate::format::{Cost, Header, Op, Trace};
use crate::pair::Pairer;
use crate::{TraceError, rwbs};
use rustix::time::{ClockId, clock_gettime};
use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

const TRACEFS: &str = "/sys/kernel/tracing";
const EVENTS: [&str; 2] = ["block_rq_issue", "block_rq_complete"];

/// How to capture.
#[derive(Clone, Debug)]
pub struct CaptureOptions {
    pub duration: Duration,
    /// The kernel's buffer per CPU, KiB: events beyond it (when rigel reads too slowly) are lost
    /// and counted.
    pub buffer_kib: u64,
}

/// The instances of captures whose rigel is gone (killed with SIGKILL, say: no drop ran), left
/// tracing with their buffers allocated: each is stopped and removed; their names are returned
/// so the caller can say so.
pub fn remove_stale_instances() -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(Path::new(TRACEFS).join("instances")) else {
        return Vec::new();
    };
    let mut removed = Vec::new();
    for e in entries.filter_map(Result::ok) {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(pid) = name
            .strip_prefix(INSTANCE_PREFIX)
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        if Path::new("/proc").join(pid.to_string()).exists() {
            continue;
        }
        drop(Instance { dir: e.path() });
        if !e.path().exists() {
            removed.push(name);
        }
    }
    removed
}

/// An instance's name: this prefix and the capturing rigel's pid.
const INSTANCE_PREFIX: &str = "rigel-capture-";

/// Why tracefs cannot be used, from what looking at its `instances` folder said: a user who may
/// not look (tracefs is root's alone) is told so, not that tracefs is missing.
fn unusable(error: Option<std::io::ErrorKind>) -> String {
    match error {
        Some(std::io::ErrorKind::PermissionDenied) => format!(
            "capturing needs root: {TRACEFS} is root's alone, and this user may not read it (run \
             rigel capture as root, with sudo for one)"
        ),
        _ => format!(
            "tracefs is not mounted at {TRACEFS} (mount it: mount -t tracefs nodev {TRACEFS})"
        ),
    }
}

/// A tracefs instance, removed on drop.
struct Instance {
    dir: PathBuf,
}

impl Instance {
    fn create() -> Result<Instance, TraceError> {
        let root = Path::new(TRACEFS);
        match std::fs::metadata(root.join("instances")) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => return Err(TraceError::Usage(unusable(None))),
            Err(e) => return Err(TraceError::Usage(unusable(Some(e.kind())))),
        }
        let dir = root
            .join("instances")
            .join(format!("{INSTANCE_PREFIX}{}", std::process::id()));
        std::fs::create_dir(&dir).map_err(|e| TraceError::Io {
            action: "create the tracefs instance (capturing needs root)",
            path: dir.clone(),
            source: e,
        })?;
        Ok(Instance { dir })
    }

    fn write(&self, rel: &str, value: &str) -> Result<(), TraceError> {
        let path = self.dir.join(rel);
        std::fs::write(&path, value).map_err(|e| TraceError::Io {
            action: "configure the trace",
            path,
            source: e,
        })
    }

    /// Events lost on every CPU: `overrun` (overwritten) and `dropped events` (buffer full).
    fn lost(&self) -> u64 {
        let Ok(cpus) = std::fs::read_dir(self.dir.join("per_cpu")) else {
            return 0;
        };
        cpus.filter_map(Result::ok)
            .filter_map(|cpu| std::fs::read_to_string(cpu.path().join("stats")).ok())
            .flat_map(|stats| {
                stats
                    .lines()
                    .filter(|l| l.starts_with("overrun:") || l.starts_with("dropped events:"))
                    .filter_map(|l| l.split(':').nth(1)?.trim().parse::<u64>().ok())
                    .collect::<Vec<_>>()
            })
            .sum()
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        let _ = std::fs::write(self.dir.join("tracing_on"), "0");
        for e in EVENTS {
            let _ = std::fs::write(self.dir.join(format!("events/block/{e}/enable")), "0");
        }
        let _ = std::fs::remove_dir(&self.dir);
    }
}

/// Records every request `dev` is sent for `opts.duration` (or until `stop` is set).
pub fn capture(
    dev: &BlockDevice,
    opts: &CaptureOptions,
    stop: &AtomicBool,
) -> Result<Trace, TraceError> {
    let inst = Instance::create()?;
    inst.write("tracing_on", "0")?;
    inst.write("buffer_size_kb", &opts.buffer_kib.to_string())?;
    inst.write("trace_clock", "mono")?;
    // A full buffer drops new events (counted) rather than overwriting unread ones.
    inst.write("options/overwrite", "0")?;
    for e in EVENTS {
        inst.write(
            &format!("events/block/{e}/filter"),
            &format!("dev == {}", dev.kernel_dev()),
        )?;
        inst.write(&format!("events/block/{e}/enable"), "1")?;
    }
    let pipe_path = inst.dir.join("trace_pipe");
    let mut pipe = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc_nonblock())
        .open(&pipe_path)
        .map_err(|e| TraceError::Io {
            action: "open",
            path: pipe_path.clone(),
            source: e,
        })?;
    let (host, kernel) = host_and_kernel();
    let cpu0 = clock_gettime(ClockId::ProcessCPUTime);
    let mono0 = clock_gettime(ClockId::Monotonic);
    let start = chrono::Utc::now();
    let origin = ns(mono0);
    inst.write("tracing_on", "1")?;
    let began = Instant::now();
    let mut reader = Reader::new(origin);
    let mut buf = vec![0u8; 1 << 20];
    let mut stopping = false;
    loop {
        match pipe.read(&mut buf) {
            Ok(0) => {}
            Ok(n) => {
                reader.feed(&buf[..n]);
                continue;
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                return Err(TraceError::Io {
                    action: "read",
                    path: pipe_path,
                    source: e,
                });
            }
        }
        // The pipe is empty: stop when asked (after this last drain), else wait a little.
        if stopping {
            break;
        }
        if began.elapsed() >= opts.duration || stop.load(Ordering::Relaxed) {
            inst.write("tracing_on", "0")?;
            stopping = true;
            continue;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let elapsed = began.elapsed();
    let dropped = inst.lost() + reader.lost;
    let cpu = ns(clock_gettime(ClockId::ProcessCPUTime)).saturating_sub(ns(cpu0)) as f64 / 1e9;
    let events = reader.events;
    let (records, incomplete, reissued) = reader.pairer.finish();
    let header = Header {
        device: dev.path.display().to_string(),
        model: dev.model.clone(),
        size: dev.size,
        host,
        kernel,
        start: start.to_rfc3339_opts(chrono::SecondsFormat::Micros, true),
        source: "tracefs".into(),
        clock: "mono, 1us".into(),
        records: records.len() as u64,
        dropped,
        incomplete,
        reissued,
        duration_ns: elapsed.as_nanos() as u64,
        complete: true,
        cost: Some(Cost {
            cpu_seconds: cpu,
            cpu_share: cpu / elapsed.as_secs_f64().max(1e-9),
            events,
            buffer_kib: opts.buffer_kib,
        }),
    };
    Ok(Trace { header, records })
}

fn ns(t: rustix::time::Timespec) -> u64 {
    (t.tv_sec as u64) * 1_000_000_000 + t.tv_nsec as u64
}

/// `O_NONBLOCK`: an empty `trace_pipe` returns `EAGAIN` instead of blocking, so the capture
/// notices its end without a second thread.
fn libc_nonblock() -> i32 {
    rustix::fs::OFlags::NONBLOCK.bits() as i32
}

/// `trace_pipe`'s text turned into records.
struct Reader {
    pairer: Pairer,
    partial: Vec<u8>,
    events: u64,
    /// `CPU:N [LOST M EVENTS]` lines.
    lost: u64,
}

impl Reader {
    fn new(origin: u64) -> Reader {
        Reader {
            pairer: Pairer::starting_at(origin),
            partial: Vec::new(),
            events: 0,
            lost: 0,
        }
    }

    fn feed(&mut self, bytes: &[u8]) {
        self.partial.extend_from_slice(bytes);
        let Some(last) = self.partial.iter().rposition(|&b| b == b'\n') else {
            return;
        };
        let whole: Vec<u8> = self.partial.drain(..=last).collect();
        for line in String::from_utf8_lossy(&whole).lines() {
            self.line(line);
        }
    }

    fn line(&mut self, line: &str) {
        if let Some(n) = lost_events(line) {
            self.lost += n;
            return;
        }
        match parse_line(line) {
            Some(Event::Issue {
                t,
                sector,
                sectors,
                rwbs,
            }) => {
                if let Some((op, flags)) = rwbs::parse(rwbs) {
                    self.events += 1;
                    self.pairer.issue(t, sector, sectors, op, flags);
                }
            }
            Some(Event::Complete {
                t,
                sector,
                sectors,
                rwbs,
            }) => {
                self.events += 1;
                let flush = rwbs::parse(rwbs).is_some_and(|(op, _)| op == Op::Flush);
                self.pairer.complete(t, sector, sectors, flush);
            }
            None => {}
        }
    }
}

#[derive(Debug, PartialEq)]
enum Event<'a> {
    Issue {
        t: u64,
        sector: u64,
        sectors: u32,
        rwbs: &'a str,
    },
    Complete {
        t: u64,
        sector: u64,
        sectors: u32,
        rwbs: &'a str,
    },
}

/// `CPU:1 [LOST 42 EVENTS]`.
fn lost_events(line: &str) -> Option<u64> {
    let rest = line.trim().strip_prefix("CPU:")?;
    let n = rest.split("[LOST ").nth(1)?.split_whitespace().next()?;
    n.parse().ok()
}

/// A `trace_pipe` line of either event:
/// `fio-812 [001] ..... 2041.117201: block_rq_issue: 7,3 WS 4096 () 2048 + 8 none,0,0 [fio]`
/// `<idle>-0 [001] d.h1. 2041.117290: block_rq_complete: 7,3 WS () 2048 + 8 none,0,0 [0]`
///
/// The task name (`fio`) is text any process sets to what it likes (`prctl(PR_SET_NAME)`), up to
/// [`COMM_MAX`] bytes, so nothing is searched for in it: the kernel's fixed fields that follow it
/// (`-PID [CPU] FLAGS SECONDS: block_rq_EVENT: `) are read strictly from the first `-` after which
/// they all parse (a `-` inside the name is followed by the rest of the name, which does not).
fn parse_line(line: &str) -> Option<Event<'_>> {
    let (t, name, args) = line
        .char_indices()
        .take_while(|(i, _)| *i <= COMM_MAX + COMM_PAD)
        .filter(|(_, c)| *c == '-')
        .find_map(|(i, _)| fixed_fields(&line[i + 1..]))?;
    let mut words = args.split_whitespace();
    let _dev = words.next()?;
    let rwbs = words.next()?;
    let issue = match name {
        "issue" => {
            let _bytes = words.next()?;
            true
        }
        "complete" => false,
        _ => return None,
    };
    // The command: "()" for file-system requests, "(12 00 …)" for passthrough ones.
    let mut word = words.next()?;
    while !word.ends_with(')') {
        word = words.next()?;
    }
    let sector = words.next()?.parse().ok()?;
    let _plus = words.next()?;
    let sectors = words.next()?.parse().ok()?;
    Some(if issue {
        Event::Issue {
            t,
            sector,
            sectors,
            rwbs,
        }
    } else {
        Event::Complete {
            t,
            sector,
            sectors,
            rwbs,
        }
    })
}

/// The longest task name (`TASK_COMM_LEN` less its NUL), and the padding the kernel puts before
/// a shorter one (`%16s`), in bytes.
const COMM_MAX: usize = 15;
const COMM_PAD: usize = 16;

/// After the `-` that ends the task name: `PID [CPU] FLAGS SECONDS: block_rq_EVENT: ARGS`, each
/// field as the kernel writes it; the time, the event's name and its arguments.
fn fixed_fields(s: &str) -> Option<(u64, &str, &str)> {
    let digits = |w: &str| !w.is_empty() && w.bytes().all(|b| b.is_ascii_digit());
    let pid_end = s.find(|c: char| !c.is_ascii_digit())?;
    if pid_end == 0 || !s[pid_end..].starts_with(' ') {
        return None;
    }
    let rest = s[pid_end..].trim_start_matches(' ');
    let cpu = rest.strip_prefix('[')?;
    let (cpu, rest) = cpu.split_once("] ")?;
    if !digits(cpu) {
        return None;
    }
    let rest = rest.trim_start_matches(' ');
    let (flags, rest) = rest.split_once(' ')?;
    if flags.is_empty() || flags.len() > 8 {
        return None;
    }
    let rest = rest.trim_start_matches(' ');
    let (seconds, rest) = rest.split_once(": block_rq_")?;
    if seconds.contains(' ') {
        return None;
    }
    let t = parse_seconds(seconds)?;
    let (name, args) = rest.split_once(": ")?;
    Some((t, name, args))
}

/// `2041.117201` (seconds, up to 9 decimals) as whole nanoseconds, exactly.
pub(crate) fn parse_seconds(s: &str) -> Option<u64> {
    let (whole, frac) = s.split_once('.').unwrap_or((s, ""));
    if frac.len() > 9 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let whole: u64 = whole.parse().ok()?;
    let frac_ns: u64 = if frac.is_empty() {
        0
    } else {
        frac.parse::<u64>().ok()? * 10u64.pow(9 - frac.len() as u32)
    };
    whole.checked_mul(1_000_000_000)?.checked_add(frac_ns)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_user_refused_tracefs_is_told_it_needs_root_not_that_tracefs_is_missing() {
        let denied = super::unusable(Some(std::io::ErrorKind::PermissionDenied));
        assert!(denied.starts_with("capturing needs root"), "{denied}");
        assert!(!denied.contains("not mounted"), "{denied}");
        let missing = super::unusable(Some(std::io::ErrorKind::NotFound));
        assert!(missing.starts_with("tracefs is not mounted"), "{missing}");
    }

    use super::*;

    #[test]
    fn trace_pipe_lines_parse() {
        let l = "  fio-812   [001] ..... 2041.117201: block_rq_issue: 7,3 WS 4096 () 2048 + 8 none,0,0 [fio]";
        assert_eq!(
            parse_line(l),
            Some(Event::Issue {
                t: 2_041_117_201_000,
                sector: 2048,
                sectors: 8,
                rwbs: "WS"
            })
        );
        let c =
            "<idle>-0 [001] d.h1. 2041.117290: block_rq_complete: 7,3 WS () 2048 + 8 none,0,0 [0]";
        assert_eq!(
            parse_line(c),
            Some(Event::Complete {
                t: 2_041_117_290_000,
                sector: 2048,
                sectors: 8,
                rwbs: "WS"
            })
        );
        let pt =
            "x-1 [000] ..... 1.5: block_rq_issue: 8,0 N 0 (12 00 00 00 24 00) 0 + 0 none,0,0 [sg]";
        assert!(matches!(
            parse_line(pt),
            Some(Event::Issue { sector: 0, .. })
        ));
        assert_eq!(parse_line("# tracer: nop"), None);
        assert_eq!(lost_events("CPU:1 [LOST 42 EVENTS]"), Some(42));
        assert_eq!(parse_seconds("1.000000001"), Some(1_000_000_001));
        assert_eq!(parse_seconds("12"), Some(12_000_000_000));
        assert_eq!(parse_seconds("1.x"), None);
    }

    /// Task names any process can give itself (15 bytes at most), shaped like the fields after
    /// them: the request is still read from the kernel's fields.
    #[test]
    fn a_task_name_cannot_hide_or_forge_a_request() {
        for comm in [
            "x: block_rq_iss",
            ": block_rq_",
            "a-1 [0] . 1.0",
            "-9 [1] d 7.5: b",
            "  -",
            "<...>",
        ] {
            assert!(comm.len() <= COMM_MAX);
            let line = format!(
                "{comm:>16}-4242    [002] ..... 2041.117201: block_rq_issue: 7,3 R 4096 () 2048 + 8 none,0,0 [{comm}]"
            );
            assert_eq!(
                parse_line(&line),
                Some(Event::Issue {
                    t: 2_041_117_201_000,
                    sector: 2048,
                    sectors: 8,
                    rwbs: "R"
                }),
                "{line}"
            );
        }
    }

    /// A capture's instance whose rigel is gone (SIGKILL) is stopped and removed by the next.
    #[test]
    fn a_dead_captures_instance_is_removed() {
        let instances = Path::new(TRACEFS).join("instances");
        if !instances.is_dir() {
            eprintln!("skipped: no tracefs at {TRACEFS}");
            return;
        }
        let mut child = std::process::Command::new("true")
            .spawn()
            .expect("true runs");
        let pid = child.id();
        child.wait().expect("true ends");
        let stale = instances.join(format!("{INSTANCE_PREFIX}{pid}"));
        std::fs::create_dir(&stale).expect("a tracefs instance made");
        std::fs::write(stale.join("tracing_on"), "1").expect("tracing on");
        let removed = remove_stale_instances();
        let exists = stale.exists();
        if exists {
            let _ = std::fs::remove_dir(&stale);
        }
        assert!(!exists, "{} left behind", stale.display());
        assert!(
            removed.contains(&format!("{INSTANCE_PREFIX}{pid}")),
            "{removed:?}"
        );
    }

    #[test]
    fn lines_split_across_reads_are_joined() {
        let mut r = Reader::new(2_000_000_000_000);
        let text = "a-1 [000] ..... 2000.000010: block_rq_issue: 7,3 R 4096 () 8 + 8 none,0,0 [a]\n\
                    b-0 [000] ..... 2000.000050: block_rq_complete: 7,3 R () 8 + 8 none,0,0 [0]\nCPU:0 [LOST 3 EVENTS]\n\
                    k-46 [001] ..... 2000.000060: block_rq_issue: 7,3 FF 0 () 0 + 0 none,0,0 [k]\n\
                    s-24 [001] ..s.. 2000.000070: block_rq_complete: 7,3 FF () 18446744073709551615 + 0 none,0,0 [0]\n\
                    s-24 [001] d.s1. 2000.000071: block_rq_complete: 7,3 WS () 0 + 0 be,0,4 [0]\n";
        let (a, b) = text.as_bytes().split_at(37);
        r.feed(a);
        r.feed(b);
        assert_eq!((r.events, r.lost, r.pairer.orphans), (5, 3, 1));
        let (records, incomplete, _) = r.pairer.finish();
        assert_eq!(incomplete, 0);
        // A flush completes with sector −1: it still joins its issue.
        assert_eq!(
            (records[1].op, records[1].complete_ns),
            (Op::Flush, Some(70_000))
        );
        assert_eq!(records[0].issue_ns, 10_000);
        assert_eq!(records[0].complete_ns, Some(50_000));
    }
}
