//! The value language: sizes, durations, counts, sweeps, read/write mixes and requirement comparisons
//! written inside spec strings, parsed by the pest grammar in `grammar/values.pest`. Pure: no I/O.
//!
//! # Reference
//!
//! | kind | forms | notes |
//! |---|---|---|
//! | size | `512`, `4096B`, `8KiB`, `8k`/`8K`, `1MiB`, `1m`/`1M`, `1.5GiB`, `2g`, `1TiB`, `1 MiB` | `k m g t p` = KiB MiB GiB TiB PiB (as ORION, fio); `8kB`, `1MB` are errors (1000 or 1024?); a fraction must give whole bytes |
//! | duration | `100ns`, `250us`/`250µs`, `500ms`, `60s`, `2m`, `1h`, `1m30s`, `1.5s` | a unit is required; parts go from the largest unit to the smallest |
//! | count | `4`, `1_000`, `5 * targets`, `(cores + 1) / 2` | `+ - * /`, `/` rounds down; names `targets`, `cores`; the result must be ≥ 0 |
//! | sweep | `1, 2, 4..=64 x2, 100`, `1..32 step 4`, `orion(5 * targets)` | items of any kind; `..=` inclusive, `..` exclusive; `step N` (N ≥ 1) or `xN` (N ≥ 2); levels sorted, distinct; at most [`MAX_LEVELS`] |
//! | size list | `4KiB, 8KiB`, `4KiB..=1MiB x2`, `4KiB..=64KiB step 4KiB` | in the order written; a size range needs a step |
//! | mix | `read`, `write`, `70% read`, `30% write`, `70/30` | `70/30` = 70% reads, 30% writes; percentages are whole, 0 to 100 |
//! | requirement key | `small.iops`, `large.mbps @ all`, `small.read.latency.p99 @ small=1`, `errors` | `CLASS[.read\|.write].METRIC [@ SELECTOR]`; see [`parse_requirement_key`] and docs/spec.md's Requirements section |
//! | comparison | `>= 40000`, `> 1_000`, `<= 500us`, `< 2ms`, `<= 1MiB`, `>= 200MiB/s`, `>= 1.5GiB/s`, `== 0` | `>= > <= < ==`; no unit or `IOPS` = a number, a time unit = latency, a size unit = bytes, `…/s` = a rate; `MB/s` is an error (rigel's MB/s are MiB/s); single letters (`2m`, `40k`) are errors here |
//! | region | `0%..10%`, `0..64GiB`, `1GiB..50%` | a class's part of its volume, end excluded; each end a size or a share (up to four decimals) |
//! | distribution | `uniform`, `zipf:1.2`, `pareto:0.2`, `normal:10%`, `hot:90%/10%, 8%/20%` | a class's skew, fio's meanings; hot bands in order from the region's start, DiskSpd's `-rdpct` |
//! | size mix | `8KiB:60%, 64KiB:30%, 1MiB:10%`, `4KiB..=64KiB x2`, `8KiB, 1MiB` | a class's sizes; shares of the I/Os by count (fio's `bssplit`), adding up to 100%, to a hundredth of a percent; without shares every size is equally likely |
//! | durability | `none`, `dsync`, `fdatasync:8`, `fsync:1` | a class's durable writes: RWF_DSYNC on each write, or a flush after every N writes |
//! | data ratio | `3:1`, `2.5:1`, `2` | a class's `compress` or `dedupe`, 1:1 to 100:1, to a hundredth |
//! | cpus | `0-3`, `0,2,4-7`, `node:0` | `[run] cpus`: the kernel's cpulist format, or a NUMA node's CPUs |
//! | rate | `20000 iops`, `20000`, `400MiB/s`, `1.5GiB/s`; a list `5000 iops, 10000 iops` | a class's open-loop rate; exact; `MB/s` is an error |
//!
//! `orion(M)` is ORION's level rule: step `s = max(1, M / 20)`, levels `1..=s`, then `2s, 3s, …`
//! up to `M`, and `M` itself (see [`orion_levels`]).
//!
//! Every error is an [`ExprError`] whose span is a byte range in the parsed string.

#![forbid(unsafe_code)]

/// The one module that formats units (sizes, rates, latencies) for every later stage.
pub mod suggest;
pub mod units;

mod comparison;
mod count;
mod cpus;
mod data_ratio;
mod distribution;
mod durability;
mod duration;
mod grammar;
mod mix;
mod number;
mod quantity;
mod rate;
mod region;
mod requirement;
mod size;
mod size_list;
mod size_mix;
mod sweep;
mod value;

#[cfg(test)]
mod proptests;

pub use comparison::parse_comparison;
pub use count::{CountExpr, parse_count};
pub use cpus::{CpuSet, MAX_CPU, consecutive_runs, format_cpu_list, parse_cpu_list, parse_cpus};
pub use data_ratio::{MAX_DATA_RATIO, parse_data_ratio};
pub use distribution::{Band, Distribution, MAX_BANDS, harmonic, parse_distribution};
pub use durability::{Durability, MAX_SYNC_EVERY, parse_durability};
pub use duration::{format_duration, parse_duration};
pub use mix::{parse_mix, parse_mix_list};
pub use rate::{Arrival, MAX_RATE_IOPS, Rate, parse_rate, parse_rate_list};
pub use region::{Region, RegionBound, parse_region};
pub use requirement::*;
pub use size::parse_size;
pub use size_list::parse_size_list;
pub use size_mix::{MAX_MIX_SIZES, SHARE_SCALE, SizeMix, SizeShare, is_size_mix, parse_size_mix};
pub use sweep::{MAX_LEVELS, Sweep, orion_level_count, orion_levels, parse_sweep};
pub use value::*;
