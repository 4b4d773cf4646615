//! What a person watches during a run: on a terminal, a bar with the point, its loads, live IOPS
//! and MiB/s and the ETA of the whole run; otherwise one plain line per finished point.

use super::outln;
use super::plan_table::human_ms;
use crate::exec::LiveCounters;
use crate::expr::Size;
use crate::plan::{DataPoint, RunPlan};
use crate::stats::{PointResult, PointStatus};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::path::Path;
use std::time::Instant;

pub struct Progress {
    bar: Option<ProgressBar>,
    total: usize,
    index: usize,
    label: String,
    per_point_ms: u64,
    point_start: Instant,
    last: (Instant, u64, u64),
}

fn terminal() -> bool {
    super::style::live_bar()
}

impl Progress {
    /// A byte bar while a test file is created and filled.
    pub fn fill(path: &Path, total: u64) -> Progress {
        if !super::style::quiet() {
            eprintln!(
                "creating {} ({}) and filling it with random data",
                path.display(),
                Size(total)
            );
        }
        let bar = terminal().then(|| {
            let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template(
                    "  {bar:40} {bytes}/{total_bytes} {bytes_per_sec} ETA {eta}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            bar
        });
        Progress::with_bar(bar, 0, 0)
    }

    pub fn fill_to(&mut self, done: u64) {
        if let Some(bar) = &self.bar {
            bar.set_position(done);
        }
    }

    /// The run's display for `todo` points.
    pub fn run(plan: &RunPlan, todo: usize) -> Progress {
        let bar = terminal().then(|| {
            let bar =
                ProgressBar::with_draw_target(Some(todo as u64), ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template("{bar:24} {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            bar
        });
        Progress::with_bar(bar, todo, plan.run.duration_ms + plan.run.warmup_ms)
    }

    fn with_bar(bar: Option<ProgressBar>, total: usize, per_point_ms: u64) -> Progress {
        let now = Instant::now();
        Progress {
            bar,
            total,
            index: 0,
            label: String::new(),
            per_point_ms,
            point_start: now,
            last: (now, 0, 0),
        }
    }

    pub fn start_point(&mut self, index: usize, point: &DataPoint) {
        self.index = index;
        // The bar fills with finished points; the text names the one running now.
        self.label = format!("point {}/{}  {}", index + 1, self.total, point.label());
        self.point_start = Instant::now();
        self.last = (self.point_start, 0, 0);
        if let Some(bar) = &self.bar {
            bar.set_position(index as u64);
            bar.set_message(format!("{}  starting  ETA {}", self.label, self.eta()));
        }
    }

    /// Refreshes the live rates from the executor's counters.
    pub fn tick(&mut self, live: &LiveCounters) {
        let Some(bar) = &self.bar else { return };
        let (ios, bytes) = live.total();
        let now = Instant::now();
        let dt = now.duration_since(self.last.0).as_secs_f64();
        if dt < 0.5 {
            return;
        }
        let iops = (ios - self.last.1.min(ios)) as f64 / dt;
        let mibps = (bytes - self.last.2.min(bytes)) as f64 / dt / (1 << 20) as f64;
        self.last = (now, ios, bytes);
        bar.set_message(format!(
            "{}  {iops:.0} IOPS  {mibps:.1} MiB/s  ETA {}",
            self.label,
            self.eta()
        ));
    }

    fn eta(&self) -> String {
        let in_point = self.point_start.elapsed().as_millis() as u64;
        let left = (self.total - self.index - 1) as u64 * self.per_point_ms
            + self.per_point_ms.saturating_sub(in_point);
        human_ms(left / 1000 * 1000)
    }

    /// Prints a line without tearing the bar (a note not with `--quiet`).
    pub fn say(&self, line: &str) {
        if super::style::quiet() && line.starts_with("note: ") {
            return;
        }
        match &self.bar {
            Some(bar) => bar.suspend(|| eprintln!("{line}")),
            None => eprintln!("{line}"),
        }
    }

    /// One line per finished point, on stdout (not with `--quiet`, unless the point failed).
    pub fn finish_point(&self, r: &PointResult) {
        if super::style::quiet() && !matches!(r.status, PointStatus::Failed { .. }) {
            return;
        }
        let line = point_line(r, self.index + 1, self.total);
        match &self.bar {
            Some(bar) => bar.suspend(|| outln!("{line}")),
            None => outln!("{line}"),
        }
    }

    pub fn finish(self) {
        self.clear();
    }

    pub fn clear(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

fn point_line(r: &PointResult, i: usize, n: usize) -> String {
    let mut parts = vec![format!(
        "[{i}/{n}] point {} ({})",
        r.point.id,
        r.point.label()
    )];
    for c in &r.classes {
        let l = &c.total.latency;
        parts.push(format!(
            "{}: {:.0} IOPS {:.2} MiB/s mean {} p99 {}",
            c.class,
            c.total.iops,
            c.total.mbps,
            human_ns(l.mean_ns),
            human_ns(l.p99_ns as f64)
        ));
    }
    if let PointStatus::Failed { error } = &r.status {
        parts.push(format!(
            "FAILED: {} at offset {}: {} (errno {})",
            error.target, error.offset, error.message, error.errno
        ));
    }
    parts.join("  ")
}

/// `85us`, `1.25ms`, `2.1s`.
pub fn human_ns(ns: f64) -> String {
    if ns < 1_000.0 {
        format!("{ns:.0}ns")
    } else if ns < 1_000_000.0 {
        format!("{:.0}us", ns / 1e3)
    } else if ns < 1e9 {
        format!("{:.2}ms", ns / 1e6)
    } else {
        format!("{:.2}s", ns / 1e9)
    }
}
