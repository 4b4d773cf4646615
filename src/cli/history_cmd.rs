//! `rigel history DIR`: the static history site over every run folder under DIR.

use super::args::HistoryArgs;
use super::exit;
use super::style::outln;

pub fn run(a: &HistoryArgs) -> i32 {
    match rigel_report::history(&a.dir, &a.dir) {
        Ok(h) => {
            for u in &h.unread {
                eprintln!("rigel history: {} not read: {}", u.dir, u.error);
            }
            eprintln!("rigel history: {} runs of {} specs", h.runs, h.specs);
            h.files
                .iter()
                .take(1)
                .for_each(|f| outln!("{}", f.display()));
            exit::OK
        }
        Err(e) => {
            eprintln!("rigel history: {e}");
            exit::RUNTIME
        }
    }
}
