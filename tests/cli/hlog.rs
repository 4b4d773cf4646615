//! `rigel report DIR --format hlog`: HdrHistogram interval logs of a real run, read back with
//! hdrhistogram's own IntervalLogIterator; every I/O of the run is in them, second by second.

use super::builder::rigel;
use super::scenario::Scenario;
use base64::Engine;
use hdrhistogram::Histogram;
use hdrhistogram::serialization::Deserializer;
use hdrhistogram::serialization::interval_log::{IntervalLogIterator, LogEntry};
use serde_json::Value;

/// One interval of a log: tag, start (s), length (s), histogram.
type Logged = (String, f64, f64, Histogram<u64>);

/// Reads a log: whether it has a start time, and its intervals.
fn read_log(text: &str) -> (bool, Vec<Logged>) {
    let mut start = false;
    let mut out = Vec::new();
    for entry in IntervalLogIterator::new(text.as_bytes()) {
        match entry.expect("a valid interval log line") {
            LogEntry::StartTime(_) => start = true,
            LogEntry::BaseTime(_) => {}
            LogEntry::Interval(h) => {
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(h.encoded_histogram())
                    .expect("base64");
                let hist: Histogram<u64> = Deserializer::new()
                    .deserialize(&mut bytes.as_slice())
                    .expect("a V2 compressed histogram");
                let tag = h.tag().map(|t| t.as_str().to_owned()).unwrap_or_default();
                out.push((
                    tag,
                    h.start_timestamp().as_secs_f64(),
                    h.duration().as_secs_f64(),
                    hist,
                ));
            }
        }
    }
    (start, out)
}

#[test]
#[serial_test::parallel]
fn a_run_gives_one_interval_log_per_class_and_direction_holding_every_io() {
    let tmp = Scenario::new();
    let spec = tmp.path().join("t.toml");
    std::fs::write(
        &spec,
        format!(
            "[[target]]\npath = \"{}/data.bin\"\nsize = \"16MiB\"\n\n[run]\nduration = \"2s\"\n\n[class.oltp]\nsize = \"4KiB\"\nmix = \"70% read\"\n\n[matrix]\noltp = \"1, 2\"\n",
            tmp.path().display()
        ),
    )
    .unwrap();
    let run = tmp.path().join("run");
    rigel()
        .arg("run")
        .arg(&spec)
        .arg("--out")
        .arg(&run)
        .run()
        .code(0);
    let out = rigel()
        .arg("report")
        .arg(&run)
        .args(["--format", "hlog"])
        .run()
        .code(0);
    out.stdout_has("oltp-read.hlog");
    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("results.json")).unwrap()).unwrap();
    for dir in ["read", "write"] {
        let text = std::fs::read_to_string(run.join(format!("hlog/oltp-{dir}.hlog"))).unwrap();
        assert!(
            text.contains("\"StartTimestamp\",\"Interval_Length\""),
            "{text}"
        );
        let (start, intervals) = read_log(&text);
        assert!(start, "a StartTime line");
        // Two points of two seconds each, tagged with their point, in time order.
        let tags: Vec<&str> = intervals.iter().map(|i| i.0.as_str()).collect();
        assert_eq!(tags, ["p1", "p1", "p2", "p2"], "{text}");
        assert!(intervals.windows(2).all(|w| w[1].1 >= w[0].1 + 0.99));
        assert!(intervals.iter().all(|i| (i.2 - 1.0).abs() < 1e-6));
        for (i, point) in results["points"].as_array().unwrap().iter().enumerate() {
            let ios = point["classes"][0][dir]["ios"].as_u64().unwrap();
            let logged: u64 = intervals[2 * i..2 * i + 2]
                .iter()
                .map(|iv| iv.3.len())
                .sum();
            assert_eq!(logged, ios, "point {} {dir}: every I/O logged", i + 1);
            assert!(ios > 0);
        }
    }
}
