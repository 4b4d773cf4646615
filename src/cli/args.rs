//! The command line's shape (clap). Kept apart from what the commands do.

use crate::spec::Override;
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(
    name = "rigel",
    version,
    about = "Storage I/O calibration: declarative workload specs, an io_uring executor, ORION-compatible reports",
    long_about = "rigel measures what storage delivers: small random IOPS, large-I/O MB/s, and latency \
percentiles, at each load a spec asks for.\n\n\
A spec (TOML) names the targets (block devices or files), the I/O classes (size, random or \
sequential, read/write mix) and the load sweeps. `rigel plan` shows every data point and the \
estimated time before any I/O; `rigel run` measures them through io_uring and writes a run folder \
with ORION's files, a Markdown report and an HTML report.",
    after_help = "Examples:\n  \
rigel run                              # the built-in quick spec on a scratch file (safe)\n  \
rigel check specs/*.toml               # validate specs, exit 2 on any error\n  \
rigel plan specs/orion/simple.toml --set disks=4\n  \
rigel run my.toml --set lun=/dev/nvme1n1 --out runs/nvme1\n  \
rigel compare runs/before runs/after --format markdown   # regressions, exit 3 if any\n  \
rigel orion -run simple -testname mylun     # ORION's own command line\n\n\
Exit codes: 0 ok, 1 runtime failure, 2 bad spec or usage, 3 requirements not met or a regression\n(compare), 130 interrupted (finish with rigel run --resume DIR)."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Validate specs without running anything (exit 0 when all are valid, 2 otherwise)
    Check(CheckArgs),
    /// Show the data points a spec expands to, with the estimated time, before any I/O
    Plan(PlanArgs),
    /// Run a spec against real storage and write a run folder
    Run(RunArgs),
    /// Render a run folder's results again (ORION files, Markdown, HTML, JSON, or your template)
    Report(ReportArgs),
    /// Compare two runs point by point and flag regressions (exit 3 when something regressed)
    Compare(CompareArgs),
}

#[derive(Args, Debug)]
pub struct ReportArgs {
    /// The run folder (holding results.json, or plan.json and results.jsonl)
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// Formats to render: orion, markdown, html, json (repeatable; default: orion, markdown, html)
    #[arg(long = "format", value_name = "F")]
    pub formats: Vec<crate::report::Format>,
    /// Your own minijinja template, or a folder of them, rendered with the documented context
    #[arg(long, value_name = "FILE|DIR")]
    pub template: Option<PathBuf>,
    /// Where the reports go (default: the run folder)
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// ORION file layout: 12c (µs, histograms; default) or 11.1 (ms)
    #[arg(long, value_name = "D", default_value = "12c")]
    pub dialect: crate::report::Dialect,
    /// ORION's test name, the prefix of its files (default: the spec's name)
    #[arg(long, value_name = "NAME")]
    pub testname: Option<String>,
    /// `si` adds decimal MB/s (10^6 bytes per second) beside MiB/s in the per-class tables
    #[arg(long, value_name = "iec|si", default_value = "iec", value_parser = ["iec", "si"])]
    pub units: String,
}

#[derive(Args, Debug)]
pub struct SpecOptions {
    /// Override a variable (`disks=4`) or any dotted key (`run.duration=10s`, `class.small.size=4KiB`,
    /// `target.0.path=/dev/sdb`); repeatable
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<Override>,
}

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// Spec files to check
    #[arg(required = true, value_name = "SPEC")]
    pub specs: Vec<PathBuf>,
    #[command(flatten)]
    pub spec: SpecOptions,
}

#[derive(Args, Debug)]
pub struct PlanArgs {
    /// The spec file; without one, the built-in quick spec that `rigel run` runs by default
    #[arg(value_name = "SPEC")]
    pub spec_file: Option<PathBuf>,
    /// Print the plan as JSON (the document `plan.json` holds)
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub spec: SpecOptions,
}

#[derive(Args, Debug)]
pub struct RunArgs {
    /// The spec file; without one, the built-in quick spec runs on a scratch file in the current
    /// directory (safe, no root, under a minute)
    #[arg(value_name = "SPEC")]
    pub spec_file: Option<PathBuf>,
    /// The run folder (default: runs/<name>-<yyyymmdd-hhmmss>/)
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Finish an interrupted run: run only the points missing from DIR/results.jsonl
    #[arg(long, value_name = "DIR", conflicts_with_all = ["spec_file", "out"])]
    pub resume: Option<PathBuf>,
    /// Consent to writes on block devices and on files rigel did not create (the spec must consent
    /// too, with `destructive = true` on the target)
    #[arg(long)]
    pub allow_destructive: bool,
    /// With --allow-destructive: write even over a filesystem or partition-table signature
    #[arg(long, requires = "allow_destructive")]
    pub force: bool,
    /// Delete the test files rigel created once the run ends (they are kept for reuse otherwise)
    #[arg(long)]
    pub clean: bool,
    #[command(flatten)]
    pub spec: SpecOptions,
}

#[derive(Args, Debug)]
pub struct CompareArgs {
    /// The reference run: a run folder, or a results.json file
    #[arg(value_name = "BASE")]
    pub base: PathBuf,
    /// The run judged against it
    #[arg(value_name = "NEW")]
    pub new: PathBuf,
    /// A change worse than this, and beyond the noise of the per-second figures, is a regression
    /// (fewer IOPS or MB/s, more latency): `5%` for every metric, or per metric, repeated:
    /// `--threshold iops=5% --threshold p99=10%`
    #[arg(long, value_name = "[METRIC=]PERCENT", default_value = "5%", value_parser = parse_threshold)]
    pub threshold: Vec<(Option<String>, f64)>,
    /// Output: an aligned table, Markdown for a ticket or a pull request, or JSON
    #[arg(long, value_enum, default_value_t = CompareFormat::Text)]
    pub format: CompareFormat,
    /// Also write the overlay chart (both runs' IOPS vs load and latency vs IOPS) as SVG here;
    /// `--format markdown` then shows it
    #[arg(long, value_name = "FILE.svg")]
    pub chart: Option<PathBuf>,
    /// The figures compared, comma-separated: iops, mbps and latency statistics (min, mean, stdev,
    /// p50, p90, p99, p99.9, p99.99, max), or `all`
    #[arg(
        long,
        value_name = "LIST",
        value_delimiter = ',',
        default_value = "iops,mbps,mean,p99"
    )]
    pub metrics: Vec<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum CompareFormat {
    Text,
    Markdown,
    Json,
}

/// `5%`, `2.5%` or `5`: a non-negative percentage.
/// `5%` (every metric) or `p99=10%` (one metric).
fn parse_threshold(s: &str) -> Result<(Option<String>, f64), String> {
    match s.split_once('=') {
        Some((metric, p)) => Ok((Some(metric.trim().to_string()), parse_percent(p)?)),
        None => Ok((None, parse_percent(s)?)),
    }
}

fn parse_percent(s: &str) -> Result<f64, String> {
    let number = s.trim().trim_end_matches('%').trim();
    match number.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!(
            "expected a percentage such as 5% or 2.5%, found `{s}`"
        )),
    }
}
