//! What the host rules share: one side's host over a point, how much slower the worse side was,
//! and the scheduler slice a woken thread may wait.

use rigel_results::HostLoad;
use rigel_results::view::PointRead;

/// A scheduler slice: how long a woken thread may wait for a CPU held by another task (EEVDF's
/// base slice is 0.75 ms × (1 + log2 CPUs), 3 ms from 8 CPUs; CFS's latency target was 6 ms on
/// few CPUs). A tail latency that grew by a few ms on a busier host may be that wait.
pub const SLICE_NS: f64 = 3e6;

/// One side's host over a point (runs' means).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Side {
    /// rigel's CPU per I/O, µs.
    pub(super) cpu_us: f64,
    /// rigel's cores busy.
    pub(super) cores: f64,
    pub(super) load: Option<f64>,
    pub(super) per_cpu_load: Option<f64>,
    pub(super) contention: Option<f64>,
    pub(super) steal: Option<f64>,
    pub(super) mhz: Option<f64>,
}

impl Side {
    pub(super) fn of(s: &[PointRead]) -> Side {
        let mean = |v: Vec<f64>| (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64);
        let host = |f: fn(&HostLoad) -> Option<f64>| {
            mean(
                s.iter()
                    .filter_map(|p| p.result.host.as_ref().and_then(f))
                    .collect(),
            )
        };
        Side {
            cpu_us: mean(s.iter().map(|p| p.cpu_per_io_us()).collect()).unwrap_or(0.0),
            cores: mean(
                s.iter()
                    .map(|p| {
                        let cpu = &p.result.cpu;
                        (cpu.user_s + cpu.system_s) / p.result.elapsed_s.max(1e-9)
                    })
                    .collect(),
            )
            .unwrap_or(0.0),
            load: host(|h| h.load_1m),
            per_cpu_load: host(|h| Some(h.load_1m? / f64::from(h.cpus?.max(1)))),
            contention: host(HostLoad::contention),
            steal: host(|h| h.steal),
            mhz: host(|h| h.cpu_mhz),
        }
    }
}

/// How much slower the worse side's host was, and what it adds to a latency.
pub(super) struct Slower {
    pub(super) ratio: f64,
    pub(super) slice_ns: f64,
    pub(super) why: Vec<String>,
}
