//! The results reader: `results.jsonl` (points line by line, a torn tail told apart from damage)
//! and `results.json` (the whole document), on any bytes. An error is fine; a panic is not.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rigel_record as record;
use rigel_results::ResultsDoc;

fuzz_target!(|bytes: &[u8]| {
    if let Ok(lines) = record::parse_lines(bytes) {
        assert!(lines.valid_len as usize <= bytes.len());
        if let Some(t) = lines.torn {
            assert_eq!(t.offset, lines.valid_len);
            assert_eq!((t.offset + t.bytes) as usize, bytes.len());
        }
        let n = lines.points.len();
        assert!(record::latest(lines.points).len() <= n);
    }
    if let Ok(doc) = serde_json::from_slice::<ResultsDoc>(bytes) {
        let _ = serde_json::to_string(&doc);
    }
});
