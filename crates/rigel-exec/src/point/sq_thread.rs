//! The CPU of io_uring's kernel submission threads (`sqpoll = true`): one per worker's ring,
//! named `iou-sqp-TID` after the worker that set the ring up, and a thread of this process, so
//! getrusage already counts it in the point's CPU; this says how much of it was theirs. Each is
//! read at the window's start by the coordinator and at the loop's end by its worker (the thread
//! ends with the ring, as the worker closes it, possibly before the coordinator looks again).

use std::fs;
use std::path::Path;

/// The process's submission threads now: each one's name and CPU seconds so far.
pub(crate) fn all() -> Vec<(String, f64)> {
    let Ok(tasks) = fs::read_dir("/proc/self/task") else {
        return Vec::new();
    };
    tasks
        .flatten()
        .filter_map(|task| {
            let dir = task.path();
            let name = fs::read_to_string(dir.join("comm")).ok()?;
            let name = name.trim();
            name.starts_with("iou-sqp-")
                .then(|| Some((name.to_owned(), cpu_s(&dir)?)))
                .flatten()
        })
        .collect()
}

/// The calling worker's submission thread: its name and CPU seconds so far.
pub(crate) fn of_this_worker() -> Option<(String, f64)> {
    let name = format!("iou-sqp-{}", rustix::thread::gettid().as_raw_nonzero());
    all().into_iter().find(|(n, _)| *n == name)
}

/// The submission threads' CPU seconds over the window: each worker's end reading less the
/// window's start reading of the same thread (a thread unseen at the start counts from zero).
pub(crate) fn window_s(start: &[(String, f64)], ends: &[Option<(String, f64)>]) -> Option<f64> {
    let mut total = None;
    for (name, end) in ends.iter().flatten() {
        let from = start
            .iter()
            .find(|(n, _)| n == name)
            .map_or(0.0, |(_, s)| *s);
        *total.get_or_insert(0.0) += (end - from).max(0.0);
    }
    total
}

/// A thread's CPU seconds: schedstat's first field (ns on a CPU, exact), else stat's utime and
/// stime (ticks).
fn cpu_s(dir: &Path) -> Option<f64> {
    fs::read_to_string(dir.join("schedstat"))
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .map(|ns| ns as f64 / 1e9)
        .or_else(|| ticks_s(&fs::read_to_string(dir.join("stat")).ok()?))
}

/// The unit of /proc's tick counts (USER_HZ, 100 on every architecture Linux exports to user
/// space, whatever the kernel's own HZ).
const USER_HZ: f64 = 100.0;

/// utime + stime of a `/proc/…/stat` line, in seconds (the fields after the parenthesised
/// name, which may itself hold spaces).
fn ticks_s(stat: &str) -> Option<f64> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // After the name: state is field 3 of the line, utime 14 and stime 15.
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) as f64 / USER_HZ)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[serial_test::parallel]
    fn stat_times_are_read_past_a_name_with_spaces() {
        let line = "42 (iou sqp 1) S 1 2 3 4 5 6 7 8 9 10 250 50 0 0 20 0 1 0";
        assert_eq!(ticks_s(line), Some(3.0));
        assert_eq!(ticks_s("42 (x) S 1"), None);
    }

    #[test]
    #[serial_test::parallel]
    fn the_window_counts_each_thread_from_its_start_reading() {
        let start = vec![("iou-sqp-7".to_owned(), 1.5), ("iou-sqp-9".to_owned(), 4.0)];
        let ends = vec![
            Some(("iou-sqp-7".to_owned(), 2.0)),
            None,
            Some(("iou-sqp-8".to_owned(), 0.25)),
        ];
        assert_eq!(window_s(&start, &ends), Some(0.75));
        assert_eq!(window_s(&start, &[None]), None);
    }
}
