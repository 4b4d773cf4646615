//! `rigel replay` sends every request of the trace or says how many it did not: a replay its
//! target cannot keep up with counts its unsent requests in the results and on stderr, and exits
//! 1 (issue 43: at `--speed 20` most reads were never sent, and it said "over 200,000 sends", exit
//! 0).

use super::builder::{Output, results, rigel};
use super::faults::faultfs::{self, Faults};
use super::scenario::Scenario;
use rigel_trace::format::Record;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A trace of `n` 4 KiB reads, one every `gap_ns`, saved into `dir` (the header an import's).
fn reads(tmp: &Scenario, dir: &Path, n: u64, gap_ns: u64) -> PathBuf {
    let cap = imported(
        tmp,
        "fio version 2 iolog\n/x add\n/x open\n/x read 0 4096\n/x close\n",
    );
    let mut trace = rigel_trace::folder::load(&cap).expect("the imported trace");
    trace.records = (0..n)
        .map(|i| Record {
            issue_ns: i * gap_ns,
            complete_ns: Some(i * gap_ns + 1_000),
            offset: (i % 256) * 4096,
            size: 4096,
            op: rigel_trace::Op::Read,
            flags: 0,
        })
        .collect();
    trace.header.records = n;
    trace.header.duration_ns = n * gap_ns;
    rigel_trace::folder::save(dir, &trace).expect("the trace saved");
    dir.to_path_buf()
}

/// The trace `rigel capture --import` makes of the fio iolog `iolog`, in `tmp/cap`.
pub(super) fn imported(tmp: &Scenario, iolog: &str) -> PathBuf {
    let log = tmp.path().join("job.iolog");
    std::fs::write(&log, iolog).expect("iolog written");
    let cap = tmp.path().join("cap");
    rigel()
        .args(["capture", "--import"])
        .arg(&log)
        .arg("--out")
        .arg(&cap)
        .run()
        .code(0);
    cap
}

/// The number after `before` in `text` (thousands separated by commas).
fn number_after(text: &str, before: &str) -> u64 {
    let at = text
        .find(before)
        .unwrap_or_else(|| panic!("{before:?} in {text}"))
        + before.len();
    let digits: String = text[at..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == ',')
        .filter(char::is_ascii_digit)
        .collect();
    digits
        .parse()
        .unwrap_or_else(|_| panic!("a number after {before:?} in {text}"))
}

/// `rigel replay TRACE` onto a new 1 MiB file, with `args`, into `out`.
fn replay(tmp: &Scenario, trace: &Path, args: &[&str], out: &Path) -> Output {
    rigel()
        .arg("replay")
        .arg(trace)
        .arg("--target")
        .arg(tmp.path().join("mine.dat"))
        .args(["--size", "1MiB"])
        .args(args)
        .arg("--out")
        .arg(out)
        .run()
}

#[test]
#[serial_test::parallel]
fn a_replay_its_target_cannot_keep_up_with_counts_what_it_never_sent_and_fails() {
    let tmp = Scenario::new();
    // 100,000 reads in 10 ms, at 20x: 200 million a second, which no target and no rigel sends.
    const N: u64 = 100_000;
    let trace = reads(&tmp, &tmp.path().join("fast"), N, 100);
    let out = tmp.path().join("r");
    let done = replay(&tmp, &trace, &["--speed", "20"], &out).code(1);
    done.stderr_has("requests were never sent");
    let unsent = number_after(&done.stderr, "rigel replay: ");
    let sent = number_after(&done.stderr, "sent ");
    assert!(unsent > 0 && unsent < N, "{}", done.stderr);
    assert_eq!(sent + unsent, N, "{}", done.stderr);
    let doc = results(&out);
    let pace = &doc["points"][0]["classes"][0]["pace"];
    assert_eq!(pace["unsent"].as_u64(), Some(unsent), "{pace}");
    assert_eq!(pace["achieved"].as_bool(), Some(false), "{pace}");
    // No I/O is counted that was not sent.
    let ios = doc["points"][0]["classes"][0]["total"]["ios"].as_u64();
    assert!(ios.is_some_and(|n| n <= sent), "{ios:?} I/Os, {sent} sent");
}

#[test]
#[serial_test::parallel]
fn a_replay_that_sends_every_request_says_so_and_succeeds() {
    let tmp = Scenario::new();
    // 200 reads in 200 ms.
    let trace = reads(&tmp, &tmp.path().join("slow"), 200, 1_000_000);
    let out = tmp.path().join("r");
    let done = replay(&tmp, &trace, &[], &out).code(0);
    done.stderr_has("sent 200 of 200 requests");
    let doc = results(&out);
    assert_eq!(
        doc["points"][0]["classes"][0]["pace"]["unsent"].as_u64(),
        Some(0)
    );
}

/// Every request a replay sent is counted, however late it completes: the window stays open for
/// the requests in flight at the trace's end until the last one completes (up to the I/O
/// timeout), and the point's elapsed time runs to it. Five reads 20 ms apart onto a file that
/// serves one read at a time, each in 100 ms: the trace's span and the replay's 50 ms tail end
/// before the first read completes.
#[test]
#[serial_test::parallel]
fn a_replays_requests_completing_after_the_traces_span_are_each_counted() {
    faultfs::require();
    let tmp = Scenario::new();
    let fs =
        faultfs::mounted(Faults::new(1 << 20).service_time(Duration::from_millis(100), Some(1)));
    let dev = fs.loop_device().expect("a loop device over the FUSE file");
    let trace = reads(&tmp, &tmp.join("slow"), 5, 20_000_000);
    let out = tmp.join("r");
    rigel()
        .arg("replay")
        .arg(&trace)
        .arg("--target")
        .arg(&dev.dev)
        .arg("--out")
        .arg(&out)
        .run()
        .code(0)
        .stderr_has("sent 5 of 5 requests");
    let doc = results(&out);
    let point = &doc["points"][0];
    let total = &point["classes"][0]["total"];
    assert_eq!(total["ios"].as_u64(), Some(5), "{point}");
    // The last read waited behind the four before it: the window held it, about 500 ms.
    let elapsed = point["elapsed_s"].as_f64().expect("elapsed_s");
    let max_ms = total["latency"]["max_ns"].as_f64().expect("max_ns") / 1e6;
    assert!(
        elapsed >= 0.4 && max_ms >= 300.0,
        "elapsed {elapsed} s, slowest read {max_ms} ms: {point}"
    );
}
