//! Whether the warm-up was long enough: the run's first point, second by second. A cold page
//! cache, a device waking from idle or an array's cache filling makes the first seconds of the
//! first point differ from the rest; a warm-up shorter than that leaves them in the figures.

use super::seconds::{MIN_SECONDS, full_seconds};
use super::warning::Warning;
use crate::ResultsDoc;
use rigel_expr::units;

/// A second further than this share from the settled rate has not settled.
const OFF: f64 = 0.25;

/// The warning for the first point run, when its leading seconds ran more than [`OFF`] from the
/// rate of its second half (the settled rate). None for a point with fewer than
/// [`MIN_SECONDS`] full seconds: too few to tell a ramp from noise.
pub fn settle_warning(doc: &ResultsDoc) -> Option<Warning> {
    let p = doc.points().iter().find(|p| p.counts())?;
    let warmup_s = doc.plan().run.warmup_ms as f64 / 1000.0;
    p.classes.iter().find_map(|c| {
        let iops: Vec<f64> = full_seconds(&c.intervals).map(|i| i.iops).collect();
        if iops.len() < MIN_SECONDS {
            return None;
        }
        let mut late = iops[iops.len() / 2..].to_vec();
        late.sort_by(f64::total_cmp);
        let settled = late[late.len() / 2];
        if settled <= 0.0 {
            return None;
        }
        let off = |v: f64| (v / settled - 1.0).abs() > OFF;
        let k = iops.iter().take_while(|v| off(**v)).count();
        // Leading seconds only, and not most of the point: that is a point that never settled,
        // which the steadiness warning tells.
        if k == 0 || k > iops.len() / 2 {
            return None;
        }
        let early = iops[..k].iter().sum::<f64>() / k as f64;
        Some(Warning {
            kind: "settle",
            point: None,
            points: Vec::new(),
            class: Some(c.class.clone()),
            figure: k as f64,
            // Those seconds came after the warm-up: the first point needed the warm-up and them.
            message: format!(
                "point {} ({}), {}: its first {k} s ran at {} against {} after; the warm-up ({}) \
                 ended before the first point settled: set [run] warmup to at least {}",
                p.point.id,
                p.point.label(),
                c.class,
                units::iops(early),
                units::iops(settled),
                units::seconds(warmup_s),
                units::seconds(warmup_s + k as f64),
            ),
            evidence: None,
            volume: false,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = rigel_testkit::fixtures::QUICK_REAL_RUN;

    /// The fixture's real run with its first point's per-second IOPS replaced by `iops`.
    fn doc_with(iops: &[f64]) -> ResultsDoc {
        let mut doc: serde_json::Value = serde_json::from_str(DOC).expect("fixture");
        let secs: Vec<serde_json::Value> = (1..)
            .zip(iops)
            .map(|(t, v)| {
                serde_json::json!({"t_s": t, "ios": *v as u64, "iops": v,
                "mbps": 0.0, "mean_ns": 0.0, "p99_ns": 0})
            })
            .collect();
        doc["points"][0]["classes"][0]["intervals"] = secs.into();
        serde_json::from_value(doc).expect("a document")
    }

    #[test]
    fn a_slow_start_is_told_with_the_seconds_it_took() {
        let w = settle_warning(&doc_with(&[
            4000.0, 9000.0, 16000.0, 16200.0, 15900.0, 16100.0,
        ]))
        .expect("two cold seconds");
        assert_eq!(w.figure, 2.0);
        assert!(
            w.message
                .contains("its first 2 s ran at 6,500 IOPS against 16,100 IOPS after")
                && w.message.contains("warm-up (1 s) ended before")
                && w.message.contains("at least 3 s"),
            "{}",
            w.message
        );
    }

    #[test]
    fn noise_too_few_seconds_or_a_point_that_never_settles_are_not_a_slow_start() {
        let noisy = [15000.0, 17000.0, 16000.0, 14000.0, 16500.0];
        assert_eq!(settle_warning(&doc_with(&noisy)), None);
        // Three seconds cannot tell a ramp from chance.
        assert_eq!(settle_warning(&doc_with(&[4000.0, 16000.0, 16000.0])), None);
        let ramp = [1000.0, 2000.0, 4000.0, 8000.0, 16000.0, 16000.0];
        assert_eq!(settle_warning(&doc_with(&ramp)), None);
    }
}
