//! The one place that *reads* results. Every reader (the terminal's summary, ORION's files, the
//! Markdown and HTML context, JSON, `[expect]` and `rigel compare`) goes through these types, so a
//! figure means the same everywhere:
//!
//! - a class at a point is described by its **effective** parameters as it ran (the plan's
//!   `ClassLoad`, after `[sweep]`), never by the class as declared;
//! - each direction (`total`, `read`, `write`) has every figure, percentiles within [min, max];
//! - a point **counts** for a class and direction when it finished without error, the class ran
//!   there and completed I/O in that direction ([`ClassRead::counted`]); `best` and the headline
//!   pick among counted points only, the first one winning a tie ([`best`], [`Headline`]), and
//!   leave out an open-loop class that did not achieve its rate and a search trial that failed
//!   its target (their figures are what a device did while falling behind, not what it holds);
//! - ORION's roles (which class is "small", which "large") come from [`roles`];
//! - `[sweep]` combinations are [`Group`]s, in run order.
//!
//! Extending it: a new figure goes on [`ClassRead`] (or [`Figures`]), a new selection rule beside
//! [`best`]; readers then pick it up from here rather than re-reading `ResultsDoc`.

mod roles;

pub use roles::roles;

use crate::{
    ClassResult, CommitResult, DirStats, LatencyStats, PointResult, PointStatus, ResultsDoc,
};
use rigel_expr::{Access, Direction, LatencyStat, Stat};
use rigel_plan::{ClassLoad, SweepBinding};
use std::collections::BTreeMap;

/// A whole run, read: its points (finished ones, in run order) and ORION's roles.
pub struct ResultsView<'a> {
    pub doc: &'a ResultsDoc,
    pub points: Vec<PointRead<'a>>,
    /// Class name → `small` or `large`.
    pub roles: BTreeMap<String, String>,
}

/// One finished point, read.
pub struct PointRead<'a> {
    pub result: &'a PointResult,
    /// Finished without an I/O error.
    pub ok: bool,
    /// A `[search]` trial that failed its target: never a best point.
    pub failed_target: bool,
    /// Every planned class of the point (idle ones too), in class order.
    pub classes: Vec<ClassRead<'a>>,
}

/// One class at one point: its effective parameters and what it measured.
pub struct ClassRead<'a> {
    /// Size, access, mix, per-stream, load and outstanding as the point ran them.
    pub params: &'a ClassLoad,
    /// What it measured (none when the point recorded nothing for it).
    pub result: Option<&'a ClassResult>,
    /// The point finished without error.
    pub ok: bool,
}

/// One direction's figures, percentiles within [min, max].
#[derive(Clone, Debug, PartialEq)]
pub struct Figures {
    pub ios: u64,
    pub bytes: u64,
    pub iops: f64,
    /// MiB/s.
    pub mbps: f64,
    /// Response latency for an open-loop class (from each I/O's scheduled send time).
    pub latency: LatencyStats,
    /// Submission to completion: for a closed-loop class the same as `latency`.
    pub service: LatencyStats,
}

/// The counted point with the best value of a figure.
#[derive(Clone, Copy)]
pub struct Best<'v, 'a> {
    pub point: &'v PointRead<'a>,
    pub class: &'v ClassRead<'a>,
    pub value: f64,
}

/// ORION's three result lines: the large role's highest MB/s, the small role's highest IOPS and
/// its lowest mean latency (all on the total of both directions).
pub struct Headline<'v, 'a> {
    pub max_mbps: Option<Best<'v, 'a>>,
    pub max_iops: Option<Best<'v, 'a>>,
    pub min_latency: Option<Best<'v, 'a>>,
}

/// The points of one `[sweep]` combination (all points when the spec has no sweep).
pub struct Group<'v, 'a> {
    pub sweep: &'a [SweepBinding],
    pub points: Vec<&'v PointRead<'a>>,
}

impl<'a> ResultsView<'a> {
    pub fn new(doc: &'a ResultsDoc) -> ResultsView<'a> {
        ResultsView {
            doc,
            points: doc
                .points
                .iter()
                .map(|p| {
                    let mut read = PointRead::new(p);
                    read.failed_target = doc.search.as_ref().is_some_and(|s| {
                        s.trials
                            .iter()
                            .any(|t| t.point_id == p.point.id && !t.passed)
                    });
                    read
                })
                .collect(),
            roles: roles(&doc.plan.classes),
        }
    }

    /// The class playing ORION's `role` (`small` or `large`).
    pub fn role(&self, role: &str) -> Option<&str> {
        self.roles
            .iter()
            .find(|(_, r)| *r == role)
            .map(|(c, _)| c.as_str())
    }

    /// The points of each `[sweep]` combination, in run order; one empty group for a run without
    /// finished points (ORION's files are still written).
    pub fn groups(&self) -> Vec<Group<'_, 'a>> {
        let mut groups: Vec<Group> = Vec::new();
        for p in &self.points {
            let sweep = p.result.point.sweep.as_slice();
            match groups.iter_mut().find(|g| g.sweep == sweep) {
                Some(g) => g.points.push(p),
                None => groups.push(Group {
                    sweep,
                    points: vec![p],
                }),
            }
        }
        if groups.is_empty() {
            groups.push(Group {
                sweep: &[],
                points: Vec::new(),
            });
        }
        groups
    }

    /// A class's effective parameters in a `[sweep]` combination, from the plan (so a combination
    /// without finished points still says what it would have run).
    pub fn params_in(&self, sweep: &[SweepBinding], class: &str) -> Option<&'a ClassLoad> {
        let plan = &self.doc.plan;
        plan.points
            .iter()
            .filter(|p| p.sweep == sweep)
            .flat_map(|p| p.classes.iter())
            .find(|c| c.class == class)
    }

    /// ORION's headline over some points (a sweep combination, or every point).
    pub fn headline<'v>(&self, points: &[&'v PointRead<'a>]) -> Headline<'v, 'a> {
        let of = |role: &str, stat: Stat| {
            self.role(role)
                .and_then(|c| best(points.iter().copied(), c, Direction::Total, stat))
        };
        Headline {
            max_mbps: of("large", Stat::Mbps),
            max_iops: of("small", Stat::Iops),
            min_latency: of("small", Stat::Latency(LatencyStat::Mean)),
        }
    }

    /// Every finished point, as references (for [`ResultsView::headline`] over the whole run).
    pub fn all(&self) -> Vec<&PointRead<'a>> {
        self.points.iter().collect()
    }
}

/// The counted point with the best value of `stat` for `class` in `direction`: highest for IOPS
/// and MB/s, lowest for latencies; the first in run order wins a tie.
pub fn best<'v, 'a>(
    points: impl IntoIterator<Item = &'v PointRead<'a>>,
    class: &str,
    direction: Direction,
    stat: Stat,
) -> Option<Best<'v, 'a>> {
    best_at(points, class, direction, stat, None)
}

/// [`best`] over one size of the class's mix where `size` names one (`@ oltp.size=8KiB`): the
/// value is then that size's own figure ([`ClassRead::value_at`]).
pub fn best_at<'v, 'a>(
    points: impl IntoIterator<Item = &'v PointRead<'a>>,
    class: &str,
    direction: Direction,
    stat: Stat,
    size: Option<u64>,
) -> Option<Best<'v, 'a>> {
    let better = |a: f64, b: f64| {
        if stat.higher_is_better() {
            a > b
        } else {
            a < b
        }
    };
    let mut found: Option<Best> = None;
    for p in points.into_iter().filter(|p| p.eligible_for_best(class)) {
        let Some(c) = p.class(class) else { continue };
        let Some(value) = c.value_at(direction, stat, size) else {
            continue;
        };
        if found.is_none_or(|b| better(value, b.value)) {
            found = Some(Best {
                point: p,
                class: c,
                value,
            });
        }
    }
    found
}

impl<'a> PointRead<'a> {
    pub fn new(result: &'a PointResult) -> PointRead<'a> {
        // Counted: finished without error, and (in a fleet) with every host over overlapping windows.
        let ok = result.counts();
        PointRead {
            result,
            ok,
            failed_target: false,
            classes: result
                .point
                .classes
                .iter()
                .map(|params| ClassRead {
                    params,
                    result: result.class(&params.class),
                    ok,
                })
                .collect(),
        }
    }

    pub fn id(&self) -> u32 {
        self.result.point.id
    }

    /// Whether the point may be `class`'s best: not a search trial that failed its target, and
    /// the class achieved its rate where it had one.
    pub fn eligible_for_best(&self, class: &str) -> bool {
        let missed = self
            .class(class)
            .and_then(|c| c.result)
            .and_then(|r| r.pace.as_ref())
            .is_some_and(|p| !p.achieved);
        !self.failed_target && !missed
    }

    /// `small=4 large=0`, then the sweep values: how every output names a point.
    pub fn label(&self) -> String {
        self.result.point.label()
    }

    pub fn class(&self, name: &str) -> Option<&ClassRead<'a>> {
        self.classes.iter().find(|c| c.params.class == name)
    }

    /// The classes that ran here (outstanding I/Os above 0).
    pub fn running(&self) -> impl Iterator<Item = &ClassRead<'a>> {
        self.classes.iter().filter(|c| c.runs())
    }

    /// A class's load here (0 when idle or absent).
    pub fn load_of(&self, class: &str) -> u32 {
        self.class(class).map_or(0, |c| c.params.load)
    }

    /// rigel's CPU time (user + system) per I/O completed at the point, in µs, over every class:
    /// CPU is counted per process, not per class. 0 when nothing completed.
    pub fn cpu_per_io_us(&self) -> f64 {
        let ios: u64 = self.result.classes.iter().map(|c| c.total.ios).sum();
        if ios == 0 {
            return 0.0;
        }
        let cpu = &self.result.cpu;
        (cpu.user_s + cpu.system_s) * 1e6 / ios as f64
    }

    pub fn sweep(&self) -> &'a [SweepBinding] {
        &self.result.point.sweep
    }

    /// The I/O error that stopped the point: `message at offset N on TARGET (errno E)` (no errno
    /// for a data integrity failure).
    pub fn error(&self) -> Option<String> {
        match &self.result.status {
            PointStatus::Ok => self
                .result
                .partial
                .as_ref()
                .map(|why| format!("partial: {why}")),
            PointStatus::Failed { error } => Some(format!(
                "{} at offset {} on {}{}",
                error.message,
                error.offset,
                error.target,
                error.errno_text()
            )),
        }
    }
}

impl<'a> ClassRead<'a> {
    pub fn name(&self) -> &'a str {
        &self.params.class
    }

    /// The class ran at this point.
    pub fn runs(&self) -> bool {
        self.params.outstanding > 0
    }

    /// Both reads and writes (a mix strictly between 0% and 100% read).
    pub fn mixed(&self) -> bool {
        (1..100).contains(&self.params.mix.read_percent)
    }

    pub fn sequential(&self) -> bool {
        self.params.access == Access::Sequential
    }

    /// The directions a report shows for this class: both and each for a mix, else its one.
    pub fn directions(&self) -> &'static [Direction] {
        let mix = self.params.mix;
        if mix.trims() {
            // The total holds the trims too: always shown, beside the reads and writes there
            // are (the trims' own line is `ClassResult::trim`).
            return match (mix.reads(), mix.writes()) {
                (true, true) => &[Direction::Total, Direction::Read, Direction::Write],
                (true, false) => &[Direction::Total, Direction::Read],
                (false, true) => &[Direction::Total, Direction::Write],
                (false, false) => &[Direction::Total],
            };
        }
        match mix.read_percent {
            100 => &[Direction::Read],
            0 => &[Direction::Write],
            _ => &[Direction::Total, Direction::Read, Direction::Write],
        }
    }

    /// A direction's raw figures, whether or not it did I/O; a class that only reads (or only
    /// writes) has its total as that direction.
    pub fn stats(&self, direction: Direction) -> Option<&'a DirStats> {
        let c = self.result?;
        let (pct, trims) = (self.params.mix.read_percent, self.params.mix.trims());
        match direction {
            Direction::Total => Some(&c.total),
            // The total is one direction's only when the class does nothing else (no trims).
            Direction::Read => c
                .read
                .as_ref()
                .or((pct == 100 && !trims).then_some(&c.total)),
            Direction::Write => c
                .write
                .as_ref()
                .or((pct == 0 && !trims).then_some(&c.total)),
            Direction::Commit => None,
        }
    }

    /// A direction's figures (none when the class never does that direction); the commits'
    /// (`durability = "fdatasync:N"`) as `Direction::Commit`.
    pub fn figures(&self, direction: Direction) -> Option<Figures> {
        if direction == Direction::Commit {
            return self.result?.commit.as_ref().map(Figures::of_commits);
        }
        self.stats(direction).map(Figures::of)
    }

    /// One size of the class's mix at this point: its own figures in `direction` (None when the
    /// class has no mix with that size here, or no I/O of it in that direction).
    pub fn size_figures(&self, size: u64, direction: Direction) -> Option<Figures> {
        self.size_stats(size, direction).map(Figures::of)
    }

    /// One size of the class's mix at this point: its raw figures in `direction`, histogram
    /// included ([`ClassRead::size_figures`]).
    pub fn size_stats(&self, size: u64, direction: Direction) -> Option<&'a DirStats> {
        let row = self.result?.sizes.iter().find(|s| s.size == size)?;
        match direction {
            Direction::Total => row.total.as_ref(),
            Direction::Read => row.read.as_ref(),
            Direction::Write => row.write.as_ref(),
            Direction::Commit => None,
        }
    }

    /// The sizes of the class's mix at this point with I/O in the window, most I/Os first.
    pub fn mix_sizes(&self) -> Vec<u64> {
        let mut rows: Vec<(u64, u64)> = self
            .result
            .map(|c| {
                c.sizes
                    .iter()
                    .filter(|s| s.ios > 0)
                    .map(|s| (s.size, s.ios))
                    .collect()
            })
            .unwrap_or_default();
        rows.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        rows.into_iter().map(|(size, _)| size).collect()
    }

    /// The figures when this point counts for the class in `direction`: the point finished
    /// without error, the class ran, and it completed I/O in that direction.
    pub fn counted(&self, direction: Direction) -> Option<Figures> {
        self.counted_at(direction, None)
    }

    /// [`ClassRead::counted`], of one size of the class's mix where `size` names one that the
    /// class's mix has here (else the class's figures: a class of one size is its own row).
    pub fn counted_at(&self, direction: Direction, size: Option<u64>) -> Option<Figures> {
        if !self.ok || !self.runs() {
            return None;
        }
        let in_mix = |b: u64| {
            direction != Direction::Commit
                && self
                    .params
                    .pattern
                    .sizes
                    .as_ref()
                    .is_some_and(|m| m.items().iter().any(|s| s.size == b))
        };
        match size.filter(|&b| in_mix(b)) {
            Some(b) => self.size_figures(b, direction),
            None => self.figures(direction),
        }
        .filter(|f| f.ios > 0)
    }

    /// One figure at a counted point.
    pub fn value(&self, direction: Direction, stat: Stat) -> Option<f64> {
        self.value_at(direction, stat, None)
    }

    /// One figure at a counted point, of one size of the class's mix ([`ClassRead::counted_at`]).
    pub fn value_at(&self, direction: Direction, stat: Stat, size: Option<u64>) -> Option<f64> {
        self.counted_at(direction, size).map(|f| f.value(stat))
    }
}

impl Figures {
    pub fn of(d: &DirStats) -> Figures {
        Figures {
            ios: d.ios,
            bytes: d.bytes,
            iops: d.iops,
            mbps: d.mbps,
            latency: d.latency.clone().within_extremes(),
            // Closed loop: submission to completion is the latency itself.
            service: d
                .service
                .as_ref()
                .map_or_else(|| d.latency.clone(), |s| s.latency.clone())
                .within_extremes(),
        }
    }

    /// A class's commits as figures: commits and commits per second, no bytes, the commit
    /// latency (from the send time) and its service view (the same in a closed loop).
    pub fn of_commits(c: &CommitResult) -> Figures {
        Figures {
            ios: c.commits,
            bytes: 0,
            iops: c.per_s,
            mbps: 0.0,
            latency: c.latency.clone().within_extremes(),
            service: c
                .service
                .as_ref()
                .unwrap_or(&c.latency)
                .clone()
                .within_extremes(),
        }
    }

    /// A figure in its natural unit: IOPS, MiB/s, or nanoseconds for latencies.
    pub fn value(&self, stat: Stat) -> f64 {
        let (l, s) = match stat {
            Stat::Iops => return self.iops,
            Stat::Mbps => return self.mbps,
            Stat::Latency(s) => (&self.latency, s),
            Stat::Service(s) => (&self.service, s),
        };
        match s {
            LatencyStat::Min => l.min_ns as f64,
            LatencyStat::Mean => l.mean_ns,
            LatencyStat::Stdev => l.stdev_ns,
            LatencyStat::P50 => l.p50_ns as f64,
            LatencyStat::P90 => l.p90_ns as f64,
            LatencyStat::P99 => l.p99_ns as f64,
            LatencyStat::P99_9 => l.p99_9_ns as f64,
            LatencyStat::P99_99 => l.p99_99_ns as f64,
            LatencyStat::Max => l.max_ns as f64,
        }
    }
}

#[cfg(test)]
mod tests;
