//! `rigel verify DIR`: reads a run's volume back against its journal and says whether every
//! write the storage acknowledged is there (exit 0), or which were lost, misdirected or torn
//! against a promise the storage made (exit 6).

use super::args::VerifyArgs;
use super::exit;
use super::integrity::first;
use super::style::outln;
use rigel_results::JournalCheck;
use std::sync::atomic::AtomicBool;

pub fn run(a: &VerifyArgs) -> i32 {
    let stop = AtomicBool::new(false);
    let c = match rigel_runner::verify_dir(&a.dir, &a.targets, &stop) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("rigel verify: {e}");
            return exit::RUNTIME;
        }
    };
    print(&c);
    if c.broken.corrupted() > 0 {
        exit::INTEGRITY
    } else {
        exit::OK
    }
}

fn print(c: &JournalCheck) {
    if c.unit == 0 {
        outln!(
            "the run stopped before its journal began: no write was journaled, so none can be lost"
        );
        return;
    }
    let read = c.acknowledged + c.in_flight_new + c.in_flight_old + c.newer;
    outln!(
        "{} blocks of {} journaled: {} hold the acknowledged write; {} had a write in flight ({} new, {} old); {} newer than the journal",
        read + c.broken.corrupted() + c.unpromised.corrupted(),
        rigel_expr::Size(c.unit),
        c.acknowledged,
        c.in_flight_new + c.in_flight_old,
        c.in_flight_new,
        c.in_flight_old,
        c.newer
    );
    let grouped;
    let promise = if c.durable {
        "every write was promised durable (durability = \"dsync\")"
    } else if c.blocks_promised > 0 {
        grouped = format!(
            "{} blocks were promised durable by a completed flush (durability = \"fdatasync:N\" \
             or \"fsync:N\"), each up to the generation its last flush covered; writes after \
             it were not",
            c.blocks_promised
        );
        grouped.as_str()
    } else {
        "no write was promised durable (no durability)"
    };
    if c.unpromised.corrupted() > 0 {
        eprintln!(
            "{} acknowledged writes not found ({}): {promise}, so a power loss or a device reset \
             may drop them from a volatile cache; no promise was broken",
            c.unpromised.corrupted(),
            c.unpromised.counts.summary()
        );
        first(&c.unpromised, "verify.json");
    }
    if c.broken.corrupted() > 0 {
        eprintln!(
            "DATA INTEGRITY FAILURE: {} blocks break the storage's promise ({}); {promise}",
            c.broken.corrupted(),
            c.broken.counts.summary()
        );
        first(&c.broken, "verify.json");
    } else {
        outln!("no broken promise: {promise}, and every block holds what that allows");
    }
}
