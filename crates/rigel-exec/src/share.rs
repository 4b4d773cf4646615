//! Splitting a data point's load among worker threads: each class's outstanding I/Os (random) or
//! streams (sequential) are dealt out in turn, so workers carry loads that differ by at most one
//! unit and every worker is busy. A bursting class (`burst`) goes whole to one worker: its bursts
//! are then the class's, counted and paused in one place. Pure, tested without storage.

use rigel_expr::Access;
use rigel_plan::DataPoint;

/// What one worker runs of one class.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClassShare {
    /// Index of the class in `DataPoint::classes`.
    pub class: usize,
    /// Random I/Os this worker keeps in flight (random classes).
    pub random: u32,
    /// Global indices of this worker's streams, out of the class's `load` (sequential classes).
    pub streams: Vec<u32>,
    /// I/Os in flight per stream.
    pub per_stream: u32,
}

impl ClassShare {
    /// I/Os this worker keeps in flight for the class.
    pub fn in_flight(&self) -> u32 {
        self.random + self.streams.len() as u32 * self.per_stream
    }
}

/// The shares of each worker (only workers with something to do; at most `workers` of them).
pub fn split(point: &DataPoint, workers: u32) -> Vec<Vec<ClassShare>> {
    let units: u32 = point
        .active()
        .map(|c| match c.access {
            Access::Random => c.outstanding,
            Access::Sequential => c.load,
        })
        .sum();
    let n = workers.max(1).min(units) as usize;
    let mut shares: Vec<Vec<ClassShare>> = vec![Vec::new(); n];
    if n == 0 {
        return shares;
    }
    let mut next = 0usize;
    for (idx, c) in point.classes.iter().enumerate() {
        if c.outstanding == 0 {
            continue;
        }
        let mut mine: Vec<ClassShare> = (0..n)
            .map(|_| ClassShare {
                class: idx,
                random: 0,
                streams: Vec::new(),
                per_stream: c.per_stream.max(1),
            })
            .collect();
        let whole = c.pattern.burst.is_some();
        match c.access {
            Access::Random if whole => {
                mine[next].random = c.outstanding;
                next = (next + 1) % n;
            }
            Access::Sequential if whole => {
                mine[next].streams.extend(0..c.load);
                next = (next + 1) % n;
            }
            Access::Random => {
                for _ in 0..c.outstanding {
                    mine[next].random += 1;
                    next = (next + 1) % n;
                }
            }
            Access::Sequential => {
                for s in 0..c.load {
                    mine[next].streams.push(s);
                    next = (next + 1) % n;
                }
            }
        }
        for (w, share) in mine.into_iter().enumerate() {
            if share.in_flight() > 0 {
                shares[w].push(share);
            }
        }
    }
    // A bursting class whole on one worker can leave another with nothing.
    shares.retain(|s| !s.is_empty());
    shares
}

#[cfg(test)]
mod tests {
    use super::*;
    use rigel_expr::Mix;
    use rigel_plan::ClassLoad;

    fn class(name: &str, access: Access, load: u32, per_stream: u32) -> ClassLoad {
        let per_stream = if access == Access::Random {
            1
        } else {
            per_stream
        };
        ClassLoad {
            class: name.into(),
            size: 8192,
            access,
            mix: Mix::READ,
            load,
            per_stream,
            outstanding: load * per_stream,
            rate: None,
            arrival: Default::default(),
            pattern: Default::default(),
            engine: Default::default(),
        }
    }

    fn point(classes: Vec<ClassLoad>) -> DataPoint {
        DataPoint {
            id: 1,
            sweep: vec![],
            classes,
        }
    }

    #[test]
    #[serial_test::parallel]
    fn a_bursting_class_goes_whole_to_one_worker() {
        let mut bursting = class("ckpt", Access::Random, 8, 1);
        bursting.pattern.burst = Some(rigel_plan::Burst {
            ios: 64,
            idle_ns: 10_000_000,
        });
        let s = split(&point(vec![bursting.clone()]), 4);
        assert_eq!(s.len(), 1, "{s:?}");
        assert_eq!(s[0][0].in_flight(), 8);
        // Beside a steady class, the next worker in the deal takes the burst.
        let s = split(
            &point(vec![class("small", Access::Random, 3, 1), bursting]),
            2,
        );
        let ckpt: Vec<u32> = s
            .iter()
            .map(|w| {
                w.iter()
                    .filter(|c| c.class == 1)
                    .map(ClassShare::in_flight)
                    .sum()
            })
            .collect();
        assert_eq!(ckpt, vec![0, 8]);
    }

    #[test]
    #[serial_test::parallel]
    fn random_load_is_dealt_evenly() {
        let p = point(vec![class("small", Access::Random, 5, 1)]);
        let s = split(&p, 2);
        assert_eq!(s.len(), 2);
        assert_eq!(s[0][0].in_flight(), 3);
        assert_eq!(s[1][0].in_flight(), 2);
    }

    #[test]
    #[serial_test::parallel]
    fn streams_stay_whole_and_classes_continue_the_deal() {
        let p = point(vec![
            class("small", Access::Random, 1, 1),
            class("large", Access::Sequential, 3, 4),
        ]);
        let s = split(&p, 2);
        assert_eq!(s[0].len(), 2);
        assert_eq!(s[0][0].random, 1);
        assert_eq!(s[0][1].streams, vec![1]);
        assert_eq!(s[1][0].streams, vec![0, 2]);
        let total: u32 = s.iter().flatten().map(ClassShare::in_flight).sum();
        assert_eq!(total, 1 + 12);
    }

    #[test]
    #[serial_test::parallel]
    fn never_more_workers_than_units_and_idle_classes_skipped() {
        let p = point(vec![
            class("small", Access::Random, 0, 1),
            class("large", Access::Sequential, 1, 4),
        ]);
        let s = split(&p, 8);
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].len(), 1);
        assert_eq!(s[0][0].class, 1);
        assert_eq!(s[0][0].in_flight(), 4);
        assert!(split(&point(vec![class("small", Access::Random, 0, 1)]), 4).is_empty());
    }
}
