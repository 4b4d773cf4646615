//! The journal's header (`journal.map`, which may be copied from another run or forged): any
//! bytes decode to an error or a header that encodes back to the same fields. An error is fine;
//! a panic is not.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rigel_exec::verify::journal::JournalHeader;

fuzz_target!(|bytes: &[u8]| {
    if let Ok(h) = JournalHeader::decode(bytes) {
        let again = JournalHeader::decode(&h.encode()).expect("an encoded header decodes");
        assert_eq!(again, h);
    }
});
