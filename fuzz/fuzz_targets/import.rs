//! Imported traces: blkparse text and fio iologs (v2 and v3), line by line, on any text. A trace
//! that imports stays within the limits (it reads back after it is written). An error is fine; a
//! panic is not.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rigel_trace::{Trace, import};
use std::path::Path;

fuzz_target!(|bytes: &[u8]| {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    if let Ok(trace) = import::import(Path::new("fuzz.txt"), text) {
        let encoded = trace.encode().expect("an imported trace encodes");
        Trace::read(&mut encoded.as_slice()).expect("an imported trace reads back");
    }
});
