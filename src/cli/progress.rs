//! What a person watches during a run: on a terminal, a bar with the point, its loads, live IOPS
//! and MiB/s and the ETA of the whole run; otherwise one plain line per finished point.

use super::plan_table::human_ms;
use super::style::outln;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rigel_exec::LiveCounters;
use rigel_expr::Size;
use rigel_expr::units;
use rigel_plan::{DataPoint, RunPlan};
use rigel_results::{PointResult, PointStatus};
use rigel_runner::{Message, Observer};
use std::path::{Path, PathBuf};
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
        Progress::bytes(total)
    }

    /// A byte bar while `[precondition]` writes the volume (reads it through, `read`).
    pub fn precondition(total: u64, read: bool) -> Progress {
        if !super::style::quiet() {
            let what = if read { "reading" } else { "writing" };
            eprintln!("preconditioning: {what} {} over the volume", Size(total));
        }
        Progress::bytes(total)
    }

    fn bytes(total: u64) -> Progress {
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

/// The terminal's watcher of a run: a byte bar while test files fill, then the run's bar (or plain
/// lines when stderr is not a terminal).
#[derive(Default)]
pub struct Watcher {
    fill: Option<Progress>,
    run: Option<Progress>,
}

impl Watcher {
    fn say(&self, line: &str) {
        match &self.run {
            Some(p) => p.say(line),
            None => eprintln!("{line}"),
        }
    }
}

impl Observer for Watcher {
    fn fill_started(&mut self, path: &Path, total: u64) {
        self.fill = Some(Progress::fill(path, total));
    }

    fn precondition_started(&mut self, total: u64, read: bool) {
        self.fill = Some(Progress::precondition(total, read));
    }

    fn fill_progress(&mut self, done: u64) {
        if let Some(p) = &mut self.fill {
            p.fill_to(done);
        }
    }

    fn fill_finished(&mut self) {
        if let Some(p) = self.fill.take() {
            p.finish();
        }
    }

    fn run_started(&mut self, plan: &RunPlan, todo: usize) {
        self.run = Some(Progress::run(plan, todo));
    }

    fn point_started(&mut self, index: usize, point: &DataPoint) {
        if let Some(p) = &mut self.run {
            p.start_point(index, point);
        }
    }

    fn tick(&mut self, live: &LiveCounters) {
        if let Some(p) = &mut self.run {
            p.tick(live);
        }
    }

    fn point_finished(&mut self, result: &PointResult) {
        if let Some(p) = &self.run {
            p.finish_point(result);
        }
    }

    fn run_finished(&mut self) {
        if let Some(p) = self.run.take() {
            p.clear();
        }
    }

    fn message(&mut self, m: Message) {
        match m {
            Message::Note(n) => self.say(&format!("note: {n}")),
            Message::Warning(w) => self.say(&format!("warning: {w}")),
            Message::Error(e) => self.say(&format!("rigel: {e}")),
            Message::Removed(p) => self.say(&format!("removed test file {}", p.display())),
            Message::Reports(files) => self.say(&format!("reports: {}", file_names(&files))),
        }
    }
}

fn file_names(files: &[PathBuf]) -> String {
    let names: Vec<String> = files
        .iter()
        .filter_map(|f| f.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .collect();
    names.join(", ")
}

fn point_line(r: &PointResult, i: usize, n: usize) -> String {
    let mut parts = vec![format!(
        "[{i}/{n}] point {} ({})",
        r.point.id,
        r.point.label()
    )];
    for c in &r.classes {
        let l = &c.total.latency;
        if let (Some(p), Some(s)) = (&c.pace, &c.total.service) {
            // Open loop: requested against achieved, response beside service latency.
            parts.push(format!(
                "{}: {} of {} requested{} {} response p99 {} service p99 {}",
                c.class,
                units::iops(p.achieved_iops),
                units::iops(p.requested_iops),
                if p.achieved {
                    String::new()
                } else {
                    format!(
                        " (rate not achieved, backlog {}, {} of {} sent late)",
                        p.backlog, p.late, p.scheduled
                    )
                },
                units::mibps(c.total.mbps),
                units::latency(l.p99_ns as f64),
                units::latency(s.latency.p99_ns as f64)
            ));
            continue;
        }
        parts.push(format!(
            "{}: {} {} mean {} p99 {}",
            c.class,
            units::iops(c.total.iops),
            units::mibps(c.total.mbps),
            units::latency(l.mean_ns),
            units::latency(l.p99_ns as f64)
        ));
    }
    if let PointStatus::Failed { error } = &r.status {
        parts.push(format!(
            "FAILED: {} at offset {}: {}{}",
            error.target,
            error.offset,
            error.message,
            error.errno_text()
        ));
    }
    parts.join("  ")
}
