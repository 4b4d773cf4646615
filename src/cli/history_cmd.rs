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
            let plural = |n: usize, one: &str, many: &str| {
                format!("{n} {}", if n == 1 { one } else { many })
            };
            eprintln!(
                "rigel history: {} of {}",
                plural(h.runs, "run", "runs"),
                plural(h.specs, "spec", "specs")
            );
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
