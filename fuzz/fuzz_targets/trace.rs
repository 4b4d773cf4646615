//! The trace file (`trace.rtr`, a colleague's or a customer's): any bytes read as a trace give an
//! error or a trace within the limits, and the spec derived from a trace that reads plans exactly
//! one target, `${target}`, whatever its header holds. An error is fine; a panic is not.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rigel_trace::{Trace, derive, stats};

fuzz_target!(|bytes: &[u8]| {
    let Ok(trace) = Trace::read(&mut &bytes[..]) else {
        return;
    };
    // Statistics cost time by the records: keep each run short.
    if trace.records.len() > 4096 || !trace.records.iter().any(|r| r.is_data()) {
        return;
    }
    let s = stats::measure(&trace);
    let text = derive::spec(&trace, &s, derive::Features::AVAILABLE);
    let doc: toml::Table = toml::from_str(&text).expect("a derived spec is TOML");
    let targets = doc["target"].as_array().expect("[[target]]");
    assert_eq!(targets.len(), 1, "{text}");
    assert_eq!(targets[0]["path"].as_str(), Some("${target}"), "{text}");
});
