//! First touch: a class whose sampled first reads of a block were much slower than its re-reads,
//! over the run's counted points (the record spans the run, so the points' sampled reads add up):
//! the volume was still being initialized (restored from a snapshot, a thin LUN), and figures
//! taken on it are the initialization's.

use crate::codec::decode_histogram;
use crate::model::TouchReads;
use crate::view::ResultsView;
use hdrhistogram::Histogram;
use rigel_expr::units;
use serde::Serialize;

/// First reads' p50 above this many times the re-reads' is told.
pub const SLOWER: f64 = 3.0;
/// Sampled reads of each kind needed: a p50 of 30 reads is within about ±18% of the true median
/// at 95% (the order statistics' binomial band), far inside the 3× it is compared against; fewer
/// (a short run touches few watched blocks) say nothing.
pub const MIN_READS: u64 = 30;

/// A first-touch finding's figures: the class's sampled reads over the run, each kind's count
/// and p50, and the points that had first reads.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FirstTouch {
    pub class: String,
    pub points: Vec<u32>,
    pub first_reads: u64,
    pub retouch_reads: u64,
    pub first_p50_ns: f64,
    pub retouch_p50_ns: f64,
    /// The first reads' p50 over the re-reads'.
    pub slower: f64,
    /// The sentence, as the warning carrying this evidence says it.
    #[serde(skip)]
    pub message: String,
}

/// One kind's sampled reads summed over points: their histogram, count and latency sum.
#[derive(Default)]
struct Sum {
    hist: Option<Histogram<u64>>,
    reads: u64,
    sum_ns: f64,
}

impl Sum {
    fn add(&mut self, t: &TouchReads) {
        self.reads += t.reads;
        self.sum_ns += t.mean_ns * t.reads as f64;
        let Some(h) = t.histogram.as_deref().and_then(decode_histogram) else {
            return;
        };
        match &mut self.hist {
            // Every rigel histogram has the same bounds; one that does not fit is left out.
            Some(mine) => {
                let _ = mine.add(&h);
            }
            None => self.hist = Some(h),
        }
    }

    fn p50_ns(&self) -> f64 {
        self.hist
            .as_ref()
            .map_or(0.0, |h| h.value_at_quantile(0.5) as f64)
    }
}

/// Per class (in the spec's order): its first touch, when its first reads' p50 is above
/// [`SLOWER`] × its re-reads' with at least [`MIN_READS`] of each.
pub(super) fn first_touches(view: &ResultsView) -> Vec<FirstTouch> {
    let mut classes: Vec<(String, Sum, Sum, Vec<u32>)> = Vec::new();
    for read in view.points.iter().filter(|p| p.ok) {
        for c in read.running().filter_map(|c| c.result) {
            let Some(t) = &c.touch else { continue };
            let i = match classes.iter().position(|(n, ..)| *n == c.class) {
                Some(i) => i,
                None => {
                    classes.push((c.class.clone(), Sum::default(), Sum::default(), Vec::new()));
                    classes.len() - 1
                }
            };
            let (_, first, again, points) = &mut classes[i];
            first.add(&t.first);
            again.add(&t.retouch);
            if t.first.reads > 0 {
                points.push(read.id());
            }
        }
    }
    classes
        .into_iter()
        .filter_map(|(class, first, again, points)| {
            if first.reads < MIN_READS || again.reads < MIN_READS {
                return None;
            }
            let (f, a) = (first.p50_ns(), again.p50_ns());
            if a <= 0.0 || f <= SLOWER * a {
                return None;
            }
            let ratio = f / a;
            let times = if ratio < 10.0 {
                format!("{ratio:.1}")
            } else {
                format!("{ratio:.0}")
            };
            Some(FirstTouch {
                message: format!(
                    "{class}: first reads of a block were {times}× slower (p50 {} against {}, \
                     {} and {} sampled reads): the volume is still being initialized (a restore \
                     from a snapshot, a thin LUN); read it through once first (`[precondition]` \
                     read = true) or these figures are the initialization's",
                    units::latency(f),
                    units::latency(a),
                    units::thousands(first.reads as f64),
                    units::thousands(again.reads as f64),
                ),
                class,
                points,
                first_reads: first.reads,
                retouch_reads: again.reads,
                first_p50_ns: f,
                retouch_p50_ns: a,
                slower: ratio,
            })
        })
        .collect()
}
