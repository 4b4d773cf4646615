//! The kernel's RWBS string (`blk_fill_rwbs`), as the block tracepoints and blkparse print it:
//! `F` first for a preflush, then the operation (`R`, `W`, `D` discard, `F` flush, `N` other),
//! then `F` for FUA, `A` readahead, `S` sync, `M` metadata (`E` after `D`: secure erase).

use crate::format::{Op, flag};

/// The operation and record flags of an RWBS string; `None` when it is not one.
pub fn parse(rwbs: &str) -> Option<(Op, u8)> {
    let b = rwbs.as_bytes();
    let is_op = |c: u8| matches!(c, b'R' | b'W' | b'D' | b'F' | b'N');
    let mut flags = 0u8;
    let mut i = 0;
    if b.len() > 1 && b[0] == b'F' && is_op(b[1]) {
        flags |= flag::PREFLUSH;
        i = 1;
    }
    let op = match b.get(i)? {
        b'R' => Op::Read,
        b'W' => Op::Write,
        b'D' => Op::Discard,
        b'F' => Op::Flush,
        b'N' => Op::Other,
        _ => return None,
    };
    let mut op = op;
    for &c in &b[i + 1..] {
        match c {
            b'F' => flags |= flag::FUA,
            b'A' => flags |= flag::READAHEAD,
            b'S' => flags |= flag::SYNC,
            b'M' => flags |= flag::META,
            b'E' if op == Op::Discard => op = Op::Other,
            _ => return None,
        }
    }
    // A preflush on a request without data is the flush itself (`FF`, `FN`).
    if flags & flag::PREFLUSH != 0 && matches!(op, Op::Flush | Op::Other) {
        flags &= !flag::PREFLUSH;
        op = Op::Flush;
    }
    Some((op, flags))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rwbs_strings_parse_as_the_kernel_writes_them() {
        assert_eq!(parse("R"), Some((Op::Read, 0)));
        assert_eq!(parse("RA"), Some((Op::Read, flag::READAHEAD)));
        assert_eq!(parse("WS"), Some((Op::Write, flag::SYNC)));
        assert_eq!(parse("WFS"), Some((Op::Write, flag::FUA | flag::SYNC)));
        assert_eq!(parse("FWS"), Some((Op::Write, flag::PREFLUSH | flag::SYNC)));
        assert_eq!(parse("FWFS"), Some((Op::Write, 7)));
        assert_eq!(parse("FF"), Some((Op::Flush, 0)));
        assert_eq!(parse("FN"), Some((Op::Flush, 0)));
        assert_eq!(parse("F"), Some((Op::Flush, 0)));
        assert_eq!(parse("D"), Some((Op::Discard, 0)));
        assert_eq!(parse("DE"), Some((Op::Other, 0)));
        assert_eq!(parse("RM"), Some((Op::Read, flag::META)));
        assert_eq!(parse(""), None);
        assert_eq!(parse("Q"), None);
        assert_eq!(parse("WX"), None);
    }
}
