//! Requirement keys of `[expect]`: a metric and an optional point selector, such as `small.iops`,
//! `small.read.latency.p99 @ small=1`, `large.mbps @ all` or `errors`. Parsed by the grammar, then
//! interpreted here without knowing the spec's classes; [`check_key`] checks the class names and
//! [`check_unit`] the comparison's unit once the spec is known.

mod check;
mod parse;
#[cfg(test)]
mod tests;

pub use check::{ClassFacts, check_key, check_unit};
pub use parse::parse_requirement_key;

use super::{Access, Mix};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::ops::Range;

#[derive(Clone, Debug, PartialEq)]
pub struct RequirementKey {
    pub metric: Metric,
    pub selector: Selector,
}

/// A name written in a key, with its byte range in the key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Named {
    pub name: String,
    pub span: Range<usize>,
}

/// What a requirement measures.
#[derive(Clone, Debug, PartialEq)]
pub enum Metric {
    /// The number of selected points that failed with an I/O error.
    Errors,
    /// A figure of one class: `small.iops`, `small.write.latency.p99`.
    Class {
        class: Named,
        direction: Direction,
        stat: Stat,
    },
}

/// Which I/Os of a class: all of them (the default), or only its reads or writes; or its commits
/// (`durability = "fdatasync:N"`: a group of writes and its flush, `iops` then commits per second).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    Total,
    Read,
    Write,
    Commit,
}

/// One figure of a class and direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Stat {
    Iops,
    /// MiB/s.
    Mbps,
    /// Latency: for an open-loop class the response time (from each I/O's scheduled send time),
    /// for a closed-loop class submission to completion.
    Latency(LatencyStat),
    /// Service latency, submission to completion (the same as `Latency` in a closed loop).
    Service(LatencyStat),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum LatencyStat {
    #[serde(rename = "min")]
    Min,
    #[serde(rename = "mean")]
    Mean,
    #[serde(rename = "stdev")]
    Stdev,
    #[serde(rename = "p50")]
    P50,
    #[serde(rename = "p90")]
    P90,
    #[serde(rename = "p99")]
    P99,
    #[serde(rename = "p99.9")]
    P99_9,
    #[serde(rename = "p99.99")]
    P99_99,
    #[serde(rename = "max")]
    Max,
}

impl LatencyStat {
    pub const ALL: [LatencyStat; 9] = [
        LatencyStat::Min,
        LatencyStat::Mean,
        LatencyStat::Stdev,
        LatencyStat::P50,
        LatencyStat::P90,
        LatencyStat::P99,
        LatencyStat::P99_9,
        LatencyStat::P99_99,
        LatencyStat::Max,
    ];
    pub fn name(self) -> &'static str {
        match self {
            LatencyStat::Min => "min",
            LatencyStat::Mean => "mean",
            LatencyStat::Stdev => "stdev",
            LatencyStat::P50 => "p50",
            LatencyStat::P90 => "p90",
            LatencyStat::P99 => "p99",
            LatencyStat::P99_9 => "p99.9",
            LatencyStat::P99_99 => "p99.99",
            LatencyStat::Max => "max",
        }
    }
    pub fn from_name(s: &str) -> Option<LatencyStat> {
        LatencyStat::ALL.into_iter().find(|l| l.name() == s)
    }
}

impl Stat {
    /// Whether a larger value is better (throughput) or worse (latency).
    pub fn higher_is_better(self) -> bool {
        !matches!(self, Stat::Latency(_) | Stat::Service(_))
    }
    /// `iops`, `mbps`, `latency.p99`: as written in keys.
    pub fn name(self) -> String {
        match self {
            Stat::Iops => "iops".into(),
            Stat::Mbps => "mbps".into(),
            Stat::Latency(l) => format!("latency.{}", l.name()),
            Stat::Service(l) => format!("service.{}", l.name()),
        }
    }
    /// `iops`, `mbps`, `latency.p99`, or a latency statistic alone (`p99`, `mean`).
    pub fn from_name(s: &str) -> Option<Stat> {
        match s {
            "iops" => Some(Stat::Iops),
            "mbps" => Some(Stat::Mbps),
            _ if s.starts_with("service.") => {
                LatencyStat::from_name(&s["service.".len()..]).map(Stat::Service)
            }
            _ => LatencyStat::from_name(s.strip_prefix("latency.").unwrap_or(s)).map(Stat::Latency),
        }
    }
}

impl Direction {
    pub fn name(self) -> &'static str {
        match self {
            Direction::Total => "total",
            Direction::Read => "read",
            Direction::Write => "write",
            Direction::Commit => "commit",
        }
    }
}

/// Which points a requirement looks at, and how.
#[derive(Clone, Debug, PartialEq)]
pub struct Selector {
    pub pick: Pick,
    /// Only points matching every filter (none: every point where the class runs).
    pub filters: Vec<Filter>,
}

/// How the selected points are judged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Pick {
    /// The point with the best value (highest IOPS or MB/s, lowest latency) must pass.
    Best,
    /// Every selected point must pass.
    Every,
}

/// `small=1`, `small.size=8KiB`: a condition on a point's loads or class parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct Filter {
    pub class: Named,
    pub condition: Condition,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Condition {
    /// The class's matrix level (outstanding I/Os, or streams for sequential classes).
    Load(u32),
    Size(u64),
    Access(Access),
    Mix(Mix),
    PerStream(u32),
}

impl fmt::Display for Metric {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Metric::Errors => f.write_str("errors"),
            Metric::Class {
                class,
                direction,
                stat,
            } => {
                f.write_str(&class.name)?;
                if *direction != Direction::Total {
                    write!(f, ".{}", direction.name())?;
                }
                write!(f, ".{}", stat.name())
            }
        }
    }
}

impl RequirementKey {
    /// The class, direction and statistic of a class's figure (none for `errors`).
    pub fn class_figure(&self) -> Option<(&str, Direction, Stat)> {
        match &self.metric {
            Metric::Class {
                class,
                direction,
                stat,
            } => Some((&class.name, *direction, *stat)),
            Metric::Errors => None,
        }
    }

    /// The size a `@ CLASS.size=8KiB` filter names on the judged class: its figure is then that
    /// size's own where the size is one of a mix.
    pub fn size_filter(&self) -> Option<u64> {
        let Metric::Class { class, .. } = &self.metric else {
            return None;
        };
        self.selector
            .filters
            .iter()
            .find_map(|f| match f.condition {
                Condition::Size(b) if f.class.name == class.name => Some(b),
                _ => None,
            })
    }
}

impl Condition {
    /// The parameter's name in a selector (`load` is written as the bare class name).
    pub fn describe(&self, class: &str) -> String {
        match self {
            Condition::Load(n) => format!("{class}={n}"),
            Condition::Size(b) => format!("{class}.size={}", super::Size(*b)),
            Condition::Access(a) => format!(
                "{class}.access={}",
                match a {
                    Access::Random => "random",
                    Access::Sequential => "sequential",
                }
            ),
            Condition::Mix(m) => format!("{class}.mix={m}"),
            Condition::PerStream(n) => format!("{class}.per_stream={n}"),
        }
    }
}
