//! Every limit on what a spec may ask for, in one table. The compiler checks each against the spec
//! text (a spanned error with a hint: `rigel check` exits 2); the executor and the target code read
//! the same constants and rules instead of their own, so what `rigel check` passes can run.
//!
//! docs/spec.md's "Limits" table lists these; keep the two together.

use super::model::{DataPoint, Layout, RunSettings, VolumeLayout};
use rigel_expr::{Access, Size, format_duration as fd};
use rigel_spec::{Loc, SpecError};
use std::time::Duration;

/// Direct I/O moves whole sectors: I/O sizes, target sizes and stripes are multiples of this.
pub const SECTOR: u64 = 512;
/// The largest I/O (ORION's `-size_large` goes to 1 GiB too); io_uring carries at most 4 GiB - 1.
pub const MAX_IO_SIZE: u64 = 1 << 30;
/// Classes one spec may declare (ORION has two; a real workload a handful; generated specs that
/// run each of many classes alone, thousands).
pub const MAX_CLASSES: usize = 10_000;
/// Outstanding I/Os one class may keep in flight at one point (and per-stream depth).
pub const MAX_OUTSTANDING: u64 = 65_536;
/// I/Os one worker keeps in flight over all classes: with its timer request, as many as the
/// largest completion queue the kernel makes (2 × 32,768 entries) holds. More load needs more
/// workers.
pub const MAX_WORKER_IN_FLIGHT: u64 = u16::MAX as u64;
/// Every in-flight I/O has its own page-aligned buffer; this many bytes is the alignment.
pub const BUFFER_ALIGN: u64 = 4096;
/// Buffer memory of one point (in-flight I/Os × their size): beyond this the arenas would not
/// fit in a test machine's memory.
pub const MAX_BUFFER_BYTES: u64 = 16 << 30;
/// Latency histograms one class holds on one worker for a whole window (read and write, and the
/// open second's two): four HDR histograms of 3 digits over 1 ns to an hour, 33,792 u64 counts
/// each. `rigel-results`' recorder tests check these sizes against its histograms.
pub const HISTOGRAM_CLASS_BYTES: u64 = 4 * 270_336;
/// An open-loop class's further four (service, queued and lag latencies).
pub const HISTOGRAM_PACED_BYTES: u64 = 4 * 270_336;
/// Per measured second of the window, per class and worker: a read and a write histogram of 2
/// digits (4,608 counts each) and ten 100 ms ticks of counts and sums per direction.
pub const HISTOGRAM_SECOND_BYTES: u64 = 2 * 36_864 + 2 * 10 * 16;
/// Histogram memory of one point (classes × the workers that run them × (window + seconds)),
/// with the copy each class's workers are merged into: 10,000 classes at one 1 s point would need
/// 23 GB (the executor was OOM-killed at 21.5 GB).
pub const MAX_HISTOGRAM_BYTES: u64 = 4 << 30;
/// Data points in one plan: more is almost certainly a typo in a sweep.
pub const MAX_POINTS: u64 = 1_000_000;
/// Load levels one class's sweep may have (the value parser stops there, before allocating).
pub const MAX_LEVELS: u64 = rigel_expr::MAX_LEVELS;
/// Targets in one volume (ORION's `-num_disks` goes to 1000 too).
pub const MAX_TARGETS: u64 = 1000;
/// A declared target size (rigel creates and fills the file): 1 PiB.
pub const MAX_TARGET_SIZE: u64 = 1 << 50;
/// The raid0 stripe depth.
pub const MAX_STRIPE: u64 = 1 << 30;
/// Durations are kept in whole milliseconds (the plan's `duration_ms`, `warmup_ms`).
pub const DURATION_STEP: Duration = Duration::from_millis(1);
/// The shortest measured window per point (short points are for tests and smoke runs; a
/// measurement worth keeping lasts seconds).
pub const MIN_DURATION: Duration = Duration::from_millis(10);
/// The longest measured window, and the longest warm-up, per point: a day (as ORION).
pub const MAX_DURATION: Duration = Duration::from_secs(86_400);
/// What a point costs beyond its warm-up and measured window (threads, rings, buffers, the
/// start, the drain, the durable record): measured on tmpfs by `tests/cli/overhead.rs` and
/// `benches/run.sh`, and counted in the plan's estimate.
pub const POINT_OVERHEAD: Duration = Duration::from_millis(5);
/// The whole plan's estimated time (points × (warm-up + duration)).
pub const MAX_RUN_TIME: Duration = Duration::from_secs(30 * 86_400);
/// Worker threads, each with its own ring.
pub const MAX_WORKERS: u64 = 256;
/// The `psync` engine's I/O threads on one worker: one per I/O it keeps in flight (threads are
/// not free, and hundreds blocked in the kernel measure the scheduler more than the storage).
/// The plan refuses more (`engine_rule::psync_threads`); the engine checks it again for a class
/// that `auto` turned into psync where the run runs.
pub const MAX_PSYNC_THREADS: u64 = 256;
/// The block a verified class stamps and checks (`verify`, `unit`): a multiple of the sector
/// from 512 bytes to 1 MiB, and it divides every verified class's I/O size.
pub const MIN_VERIFY_UNIT: u64 = SECTOR;
pub const MAX_VERIFY_UNIT: u64 = 1 << 20;
/// The generation map of a verified run (2 bytes per block of the verified volume): beyond this
/// the map would not fit in a test machine's memory; verify a declared part of the volume.
pub const MAX_VERIFY_MAP_BYTES: u64 = 4 << 30;
/// The PRNG seed: plan.json and results.json keep it as a JSON number, exact up to 2^53 - 1.
pub const MAX_SEED: u64 = (1 << 53) - 1;

/// A value outside its limit: the message, the label under the value, and a hint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Breach {
    pub message: String,
    pub label: &'static str,
    pub hint: String,
}

impl Breach {
    /// The breach as a diagnostic at the value that breaks the limit.
    pub fn at(self, loc: &Loc) -> SpecError {
        let hint = (!self.hint.is_empty()).then_some(self.hint);
        SpecError::at(loc, self.message, self.label).hint_opt(hint)
    }
}

impl std::fmt::Display for Breach {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

fn breach(message: String, label: &'static str, hint: impl Into<String>) -> Result<(), Breach> {
    Err(Breach {
        message,
        label,
        hint: hint.into(),
    })
}

/// An I/O size: whole sectors, at most [`MAX_IO_SIZE`], and fitting a raid0 stripe.
pub fn io_size(size: u64, volume: VolumeLayout) -> Result<(), Breach> {
    if size == 0 || size % SECTOR != 0 {
        return breach(
            format!(
                "an I/O size must be a positive multiple of {SECTOR} bytes, found {}",
                Size(size)
            ),
            "not a multiple of 512",
            "direct I/O moves whole sectors: use 512B, 4KiB, 8KiB, 1MiB…",
        );
    }
    if size > MAX_IO_SIZE {
        return breach(
            format!(
                "an I/O of {} is larger than rigel issues ({})",
                Size(size),
                Size(MAX_IO_SIZE)
            ),
            "too large",
            "large-I/O tests use 1MiB to 64MiB; each in-flight I/O needs a buffer this size",
        );
    }
    if volume.layout == Layout::Raid0 && (volume.stripe < size || volume.stripe % size != 0) {
        return breach(
            format!(
                "an I/O of {} does not fit the raid0 stripe of {}",
                Size(size),
                Size(volume.stripe)
            ),
            "larger than, or not dividing, the stripe",
            "make [volume] stripe a multiple of every class size, e.g. stripe = \"1MiB\"",
        );
    }
    Ok(())
}

/// A declared target size: whole sectors, at most [`MAX_TARGET_SIZE`].
pub fn target_size(size: u64) -> Result<(), Breach> {
    if size == 0 || size % SECTOR != 0 {
        return breach(
            format!(
                "a target size must be a positive multiple of {SECTOR} bytes, found {}",
                Size(size)
            ),
            "not a multiple of 512",
            "use a size such as \"1GiB\"",
        );
    }
    if size > MAX_TARGET_SIZE {
        return breach(
            format!(
                "a declared target size of {} is more than rigel creates ({})",
                Size(size),
                Size(MAX_TARGET_SIZE)
            ),
            "too large",
            "a test file needs to be a few times larger than the caches in front of the device",
        );
    }
    Ok(())
}

/// The raid0 stripe: whole sectors, at most [`MAX_STRIPE`].
pub fn stripe(stripe: u64) -> Result<(), Breach> {
    if stripe == 0 || stripe % SECTOR != 0 || stripe > MAX_STRIPE {
        return breach(
            format!(
                "a stripe must be a positive multiple of {SECTOR} bytes up to {}, found {}",
                Size(MAX_STRIPE),
                Size(stripe)
            ),
            "out of range",
            "ORION's default stripe is 1MiB",
        );
    }
    Ok(())
}

/// The bytes of a target the volume can use: `size` trimmed to whole `unit`s (None when not even
/// one fits). `unit` is [`volume_unit`]'s.
pub fn usable(size: u64, unit: u64) -> Option<u64> {
    Some(size / unit * unit).filter(|&u| u > 0)
}

/// The unit every target's usable size is a multiple of: the least common multiple of every I/O
/// size and (raid0) the stripe, so that every aligned I/O fits whole.
pub fn volume_unit(sizes: impl IntoIterator<Item = u64>, stripe: Option<u64>) -> u64 {
    sizes
        .into_iter()
        .chain(stripe)
        .fold(1u64, |acc, s| lcm(acc, s).unwrap_or(u64::MAX))
}

/// A volume unit as messages spell it: [`volume_unit`] saturates at `u64::MAX` when the least
/// common multiple overflows, which no size spells truthfully (`18446744073709551615B`).
pub fn unit_text(unit: u64) -> String {
    if unit == u64::MAX {
        "unit above 16EiB (the least common multiple of the I/O sizes and the stripe)".into()
    } else {
        rigel_expr::Size(unit).to_string()
    }
}

fn lcm(a: u64, b: u64) -> Option<u64> {
    if a == 0 || b == 0 {
        return Some(a.max(b));
    }
    let (mut x, mut y) = (a, b);
    while y != 0 {
        (x, y) = (y, x % y);
    }
    (a / x).checked_mul(b)
}

/// Which duration a value is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timing {
    Duration,
    Warmup,
}

/// A point's measured duration ([`MIN_DURATION`]..=[`MAX_DURATION`]) or warm-up (0..=
/// [`MAX_DURATION`]), in whole milliseconds.
pub fn timing(d: Duration, which: Timing) -> Result<(), Breach> {
    let (what, min, hint) = match which {
        Timing::Duration => (
            "a data point's duration",
            MIN_DURATION,
            "ORION's default is 60s; short smoke tests use 1s to 5s",
        ),
        Timing::Warmup => (
            "a warm-up",
            Duration::ZERO,
            "a warm-up of seconds to minutes fills the caches; \"0s\" for none",
        ),
    };
    if d.subsec_nanos() % DURATION_STEP.subsec_nanos() != 0 {
        return breach(
            format!("{what} is kept in whole milliseconds, found {}", fd(d)),
            "finer than a millisecond",
            "write it in ms or s, e.g. \"500ms\"",
        );
    }
    if d < min || d > MAX_DURATION {
        return breach(
            format!(
                "{what} must be from {} to {} (a day), found {}",
                fd(min),
                fd(MAX_DURATION),
                fd(d)
            ),
            "out of range",
            hint,
        );
    }
    Ok(())
}

/// Worker threads: 1..=[`MAX_WORKERS`].
pub fn workers(n: u64) -> Result<(), Breach> {
    count(
        n,
        "workers",
        MAX_WORKERS,
        "one worker (one ring, one thread) drives a device well; use \"cores\" for many devices",
    )
}

/// Outstanding I/Os per sequential stream: 1..=[`MAX_OUTSTANDING`].
pub fn per_stream(n: u64) -> Result<(), Breach> {
    count(
        n,
        "`per_stream`",
        MAX_OUTSTANDING,
        "ORION's default is 4 outstanding I/Os per stream",
    )
}

/// A load level (outstanding I/Os, or streams): at most [`MAX_OUTSTANDING`].
pub fn load(level: u64) -> Result<(), Breach> {
    if level > MAX_OUTSTANDING {
        return breach(
            format!("a load of {level} is more than rigel keeps in flight ({MAX_OUTSTANDING})"),
            "too high",
            "loads are outstanding I/Os (or streams): real devices saturate long before this",
        );
    }
    Ok(())
}

fn count(n: u64, what: &str, max: u64, hint: &str) -> Result<(), Breach> {
    if n == 0 || n > max {
        return breach(
            format!("{what} must be between 1 and {max}, found {n}"),
            "out of range",
            hint,
        );
    }
    Ok(())
}

/// The run's seed, at most [`MAX_SEED`].
pub fn seed(seed: u64) -> Result<(), Breach> {
    if seed > MAX_SEED {
        return breach(
            format!("a seed must be at most {MAX_SEED} (2^53 - 1, exact in JSON), found {seed}"),
            "too large",
            "any smaller number gives as good a sequence",
        );
    }
    Ok(())
}

/// The plan's size: at most [`MAX_POINTS`] points and [`MAX_RUN_TIME`] of estimated time.
pub fn plan_size(points: u64, per_point: Duration) -> Result<(), Breach> {
    if points > MAX_POINTS {
        return breach(
            format!(
                "this spec expands to {points} data points, more than rigel runs in one plan ({MAX_POINTS})"
            ),
            "the matrix and sweeps multiply to this",
            "narrow a sweep (a geometric `x2` range instead of `step 1`) or split the spec",
        );
    }
    let total = per_point.saturating_mul(points as u32);
    if total > MAX_RUN_TIME {
        return breach(
            format!(
                "this plan would run for {} days ({points} points of {}), more than rigel \
                 plans in one run ({} days)",
                total.as_secs() / 86_400,
                fd(per_point),
                MAX_RUN_TIME.as_secs() / 86_400
            ),
            "the points and durations multiply to this",
            "shorten [run] duration or warmup, or split the spec into several runs",
        );
    }
    Ok(())
}

/// The most trial points one `[search]` may run.
pub const MAX_SEARCH_TRIALS: u64 = 64;

/// A search's bounds: `low` below `high`, a load at least 1 (a rate's bounds are rates, checked
/// by [`rate`] at the trial points).
pub fn search_bounds(low: f64, high: f64, load: bool) -> Result<(), Breach> {
    if load && low < 1.0 {
        return breach(
            format!("a searched load must be at least 1, found {low}"),
            "low",
            "a load of 0 leaves the class idle",
        );
    }
    if low >= high {
        return breach(
            format!("a search needs `low` below `high`, found {low} and {high}"),
            "not above `low`",
            "the search bisects between them",
        );
    }
    Ok(())
}

/// A search's trial cap: at least the two bounds, at most [`MAX_SEARCH_TRIALS`].
pub fn search_trials(n: u64) -> Result<(), Breach> {
    if !(2..=MAX_SEARCH_TRIALS).contains(&n) {
        return breach(
            format!("`max_trials` must be between 2 and {MAX_SEARCH_TRIALS}, found {n}"),
            "out of range",
            "each halving of the bracket is one trial: 12 narrow 1..100000 to under 50",
        );
    }
    Ok(())
}

/// A class's rate at a point, in I/Os per second: at least 1 (a byte rate below one I/O per
/// second leaves the class idle for whole seconds) and at most [`rigel_expr::MAX_RATE_IOPS`].
pub fn rate(class: &str, iops: f64) -> Result<(), Breach> {
    if iops < 1.0 {
        return breach(
            format!("class `{class}`: its rate is {iops:.3} I/Os per second, less than one"),
            "rate",
            "raise the rate, or use smaller I/Os with a byte rate",
        );
    }
    if iops > rigel_expr::MAX_RATE_IOPS as f64 {
        return breach(
            format!(
                "class `{class}`: a rate of {iops:.0} I/Os per second is more than rigel paces ({})",
                rigel_expr::MAX_RATE_IOPS
            ),
            "rate",
            "lower the rate",
        );
    }
    Ok(())
}

/// What one point asks of the executor: each class's I/O size and in-flight count, each worker's
/// in-flight count ([`MAX_WORKER_IN_FLIGHT`], with the load dealt out over the workers in turn as
/// the executor does), the buffer memory, and the run's durations.
pub fn point(p: &DataPoint, run: &RunSettings) -> Result<(), Breach> {
    timing(Duration::from_millis(run.duration_ms), Timing::Duration)?;
    timing(Duration::from_millis(run.warmup_ms), Timing::Warmup)?;
    workers(u64::from(run.workers))?;
    let mut units = 0u64;
    let mut buffers = 0u64;
    for c in p.active() {
        let unit = |s: u64| s.div_ceil(BUFFER_ALIGN).saturating_mul(BUFFER_ALIGN);
        if c.size == 0 || c.size % SECTOR != 0 || c.size > MAX_IO_SIZE {
            return breach(
                format!(
                    "class `{}`: an I/O of {} bytes is not a multiple of {SECTOR} up to {MAX_IO_SIZE}",
                    c.class, c.size
                ),
                "I/O size",
                "",
            );
        }
        if let Some(iops) = c.rate_iops() {
            rate(&c.class, iops)?;
        }
        if u64::from(c.outstanding) > MAX_OUTSTANDING {
            return breach(
                format!(
                    "class `{}` would keep {} I/Os in flight ({} × {} per stream), more than rigel allows ({MAX_OUTSTANDING})",
                    c.class, c.outstanding, c.load, c.per_stream
                ),
                "the loads here",
                "lower the load or per_stream",
            );
        }
        units += u64::from(dealt(c.access, c.load, c.outstanding));
        buffers = buffers.saturating_add(u64::from(c.outstanding).saturating_mul(unit(c.size)));
    }
    let workers = u64::from(run.workers).clamp(1, units.max(1));
    histograms(p, run, workers)?;
    let per_worker = worker_in_flight(p, run, |_| true);
    if per_worker > MAX_WORKER_IN_FLIGHT {
        return breach(
            format!(
                "point {} would put up to {per_worker} I/Os in flight on one worker, more than a ring \
                 carries ({MAX_WORKER_IN_FLIGHT})",
                short_label(p)
            ),
            "the loads here",
            format!(
                "add workers ([run] workers = {}), or lower the loads",
                per_worker.div_ceil(MAX_WORKER_IN_FLIGHT) * workers
            ),
        );
    }
    if buffers > MAX_BUFFER_BYTES {
        return breach(
            format!(
                "point {} would need {} of I/O buffers (in-flight I/Os × their size), more than rigel \
                 allocates ({})",
                short_label(p),
                Size(buffers),
                Size(MAX_BUFFER_BYTES)
            ),
            "the loads and sizes here",
            "lower the loads of the large classes, or their I/O size",
        );
    }
    Ok(())
}

/// The latency histograms a point holds while it runs: each class on each worker it is dealt to,
/// its window-wide histograms and one pair per measured second, and the merged copy.
fn histograms(p: &DataPoint, run: &RunSettings, workers: u64) -> Result<(), Breach> {
    let seconds = run.duration_ms.div_ceil(1000).max(1);
    let mut bytes = 0u64;
    let mut classes = 0u64;
    for c in p.active() {
        let on = u64::from(dealt(c.access, c.load, c.outstanding)).clamp(1, workers);
        let paced = if c.rate_iops().is_some() {
            HISTOGRAM_PACED_BYTES
        } else {
            0
        };
        let one = HISTOGRAM_CLASS_BYTES + paced + seconds.saturating_mul(HISTOGRAM_SECOND_BYTES);
        bytes = bytes.saturating_add((on + 1).saturating_mul(one));
        classes += 1;
    }
    if bytes > MAX_HISTOGRAM_BYTES {
        return breach(
            format!(
                "point {} would hold {} of latency histograms ({classes} classes running at once \
                 for {}), more than rigel allows ({})",
                short_label(p),
                rigel_expr::units::size(bytes as f64),
                fd(Duration::from_millis(run.duration_ms)),
                rigel_expr::units::size(MAX_HISTOGRAM_BYTES as f64)
            ),
            "the classes here",
            "each class running at a point holds about 1 MiB of histograms per worker, and 72 KiB \
             per measured second: run fewer classes at once, or shorter points",
        );
    }
    Ok(())
}

/// A point's label, cut short: a point of thousands of classes would make a message of a megabyte.
fn short_label(p: &DataPoint) -> String {
    let label = p.label();
    match label.char_indices().nth(80) {
        Some((at, _)) => format!("{} (…)", &label[..at]),
        None => label,
    }
}

/// The most I/Os one worker holds in flight for the point's active classes that `pick` keeps:
/// each class's units dealt out over the workers in turn (as the executor does), a stream's
/// `per_stream` I/Os each. The workers are `run.workers`, fewer when the point has fewer units.
pub fn worker_in_flight(
    p: &DataPoint,
    run: &RunSettings,
    pick: impl Fn(&super::model::ClassLoad) -> bool,
) -> u64 {
    let units: u64 = p
        .active()
        .map(|c| u64::from(dealt(c.access, c.load, c.outstanding)))
        .sum();
    let workers = u64::from(run.workers).clamp(1, units.max(1));
    p.active()
        .filter(|c| pick(c))
        .map(|c| {
            let depth = if c.access == Access::Sequential {
                u64::from(c.per_stream)
            } else {
                1
            };
            u64::from(dealt(c.access, c.load, c.outstanding)).div_ceil(workers) * depth
        })
        .sum()
}

/// The units the executor deals out to workers: outstanding I/Os (random) or streams (sequential).
fn dealt(access: Access, load: u32, outstanding: u32) -> u32 {
    match access {
        Access::Random => outstanding,
        Access::Sequential => load,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lcm_of_io_sizes() {
        assert_eq!(lcm(8192, 1 << 20), Some(1 << 20));
        assert_eq!(lcm(8192, 12288), Some(24576));
        assert_eq!(lcm(1, 4096), Some(4096));
        assert_eq!(lcm(u64::MAX, u64::MAX - 1), None);
    }

    #[test]
    fn the_unit_is_the_least_common_multiple_and_trims_targets() {
        assert_eq!(volume_unit([4096, 8192], Some(1 << 20)), 1 << 20);
        assert_eq!(volume_unit([1536, 1 << 20], None), 3 << 20);
        // Sizes whose least common multiple overflows: no target holds one, said without the
        // saturated number.
        let primes = [1_000_003u64, 1_000_033, 1_000_037].map(|p| 512 * p);
        let unit = volume_unit(primes, None);
        assert_eq!(unit, u64::MAX);
        assert!(!unit_text(unit).contains("18446744073709551615"));
        assert_eq!(unit_text(4096), "4KiB");
        assert_eq!(usable(5 << 20, 2 << 20), Some(4 << 20));
        assert_eq!(usable(1 << 20, 2 << 20), None);
    }

    #[test]
    fn durations_are_whole_milliseconds_within_a_day() {
        assert!(timing(Duration::from_micros(500), Timing::Duration).is_err());
        assert!(timing(Duration::from_micros(1500), Timing::Warmup).is_err());
        assert!(timing(Duration::from_millis(10), Timing::Duration).is_ok());
        assert!(timing(Duration::from_millis(9), Timing::Duration).is_err());
        assert!(timing(Duration::ZERO, Timing::Warmup).is_ok());
        assert!(timing(Duration::ZERO, Timing::Duration).is_err());
        assert!(timing(Duration::from_secs(86_401), Timing::Warmup).is_err());
    }

    #[test]
    fn io_sizes_are_sectors_up_to_a_gib() {
        let concat = VolumeLayout {
            layout: Layout::Concat,
            stripe: 1 << 20,
        };
        assert!(io_size(512, concat).is_ok());
        assert!(io_size(MAX_IO_SIZE, concat).is_ok());
        assert!(io_size(MAX_IO_SIZE + 512, concat).is_err());
        assert!(io_size(1000, concat).is_err());
    }
}
