//! The best points, as the results model finds them (its one rule): a class's best IOPS, MB/s and
//! lowest mean latency, and ORION's headline over every finished point.

use super::load::{LoadSweep, LoadView, loads_of, sweep_of};
use rigel_expr::{Direction, LatencyStat, Stat};
use rigel_results::view::{self, PointRead, ResultsView};
use serde::Serialize;

/// The best point of some measure.
#[derive(Clone, Debug, Serialize)]
pub struct Best {
    pub class: String,
    pub value: f64,
    pub point: u32,
    pub label: String,
    pub loads: Vec<LoadView>,
    pub sweep: Vec<LoadSweep>,
}

/// ORION's headline: the large role's highest MB/s, the small role's highest IOPS and lowest mean
/// latency, over every finished point (the terminal and ORION's summary say the same).
#[derive(Clone, Debug, Serialize)]
pub struct Headline {
    pub max_iops: Option<Best>,
    pub max_mbps: Option<Best>,
    pub min_latency: Option<Best>,
}

pub(super) fn best_view(b: view::Best) -> Best {
    Best {
        class: b.class.name().to_string(),
        value: b.value,
        point: b.point.id(),
        label: b.point.label(),
        loads: loads_of(b.point),
        sweep: sweep_of(b.point),
    }
}

pub(super) type Bests = (Option<Best>, Option<Best>, Option<Best>);

/// The class's best IOPS, best MB/s and lowest mean latency among these points.
pub(super) fn bests<'v, 'a: 'v>(points: &[&'v PointRead<'a>], class: &str) -> Bests {
    let of =
        |stat| view::best(points.iter().copied(), class, Direction::Total, stat).map(best_view);
    (
        of(Stat::Iops),
        of(Stat::Mbps),
        of(Stat::Latency(LatencyStat::Mean)),
    )
}

pub fn headline(view: &ResultsView) -> Headline {
    let h = view.headline(&view.all());
    Headline {
        max_iops: h.max_iops.map(best_view),
        max_mbps: h.max_mbps.map(best_view),
        min_latency: h.min_latency.map(best_view),
    }
}
