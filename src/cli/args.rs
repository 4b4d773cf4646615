//! The command line's shape (clap). Kept apart from what the commands do.

use clap::{Args, Parser, Subcommand};
use rigel_spec::Override;
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
Exit codes: 0 ok, 1 runtime failure, 2 bad spec or usage, 3 requirements not met or a regression\n(compare), 4 compare --fail-inconclusive: a line too noisy to judge, 5 a search found no answer,\n6 data integrity failure (verify), 130 interrupted (finish with rigel run --resume DIR)."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// Print only errors, warnings and results: no progress, no notes
    #[arg(short, long, global = true)]
    pub quiet: bool,
    /// Colors on stderr: auto (a terminal, unless NO_COLOR is set or TERM=dumb; CLICOLOR_FORCE
    /// forces them), always, never
    #[arg(long, value_name = "WHEN", value_enum, default_value_t = ColorChoice::Auto, global = true)]
    pub color: ColorChoice,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
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
    /// Write a static HTML history of every run folder under DIR: runs, trends, comparisons
    History(HistoryArgs),
    /// List the specs found by name (RIGEL_PATH, then the built-in ones), or show one as TOML
    Specs(SpecsArgs),
    /// Print the JSON Schema of specs (draft 2020-12), for editors and validators
    Schema,
    /// Generate shell completions or man pages
    #[command(subcommand)]
    Generate(GenerateArgs),
    /// ORION's own command line, unchanged: `rigel orion -run simple -testname NAME`
    /// (`rigel orion -help` lists its options)
    #[command(disable_help_flag = true)]
    Orion(OrionArgs),
    /// fio's job files and options, translated: `rigel fio job.fio [--to-spec]`
    /// (`rigel fio --help` lists rigel's options; docs/fio.md every fio option)
    #[command(disable_help_flag = true)]
    Fio(OrionArgs),
    /// Merge a fleet folder's rank folders into the fleet's results and reports (see docs/fleet.md)
    Merge(MergeArgs),
    /// Read a run's volume back against its journal (`journal = true`): every acknowledged write
    /// must be there, after the run, a crash or a power cut (exit 6 when a promise was broken)
    Verify(VerifyArgs),
    /// Record every request the kernel sends a block device (or import blkparse text or a fio
    /// iolog) into a trace folder
    Capture(CaptureArgs),
    /// Write the spec that reproduces a trace folder's statistics (DIR/spec.toml), and a report
    /// of the trace beside the spec (DIR/derive.md)
    Derive(DeriveArgs),
    /// Send a trace folder's requests to a target at their traced times (open loop, absolute send
    /// times), recording latency and lag into a run folder like `rigel run`
    Replay(ReplayArgs),
}

#[derive(Args, Debug)]
#[command(after_help = "Examples:\n  \
rigel capture /dev/nvme0n1 --duration 60s --out cap/   # as root: cap/trace.rtr\n  \
rigel capture --import sda.blkparse.txt --out cap/     # blkparse -i sda -o sda.blkparse.txt\n  \
rigel capture --import job.iolog --out cap/            # fio write_iolog (v2 or v3)\n  \
rigel capture /dev/sdb --duration 30s --out cap/ --to-spec && rigel check cap/spec.toml\n\n\
The trace file's format is in docs/capture.md (\"The trace file\"). Nothing of the data is read.")]
pub struct CaptureArgs {
    /// The block device to watch (`/dev/sdb`, a partition, a loop device); needs root
    #[arg(
        value_name = "DEVICE",
        required_unless_present = "import",
        conflicts_with = "import"
    )]
    pub device: Option<PathBuf>,
    /// How long to capture (`60s`, `5m`; a bare number is seconds); Ctrl-C ends it early and keeps
    /// what was captured
    #[arg(long, value_name = "D", default_value = "60s")]
    pub duration: String,
    /// The folder to write (new, or empty): DIR/trace.rtr
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// The kernel's trace buffer per CPU; a buffer that overflows loses events, and the capture
    /// says how many
    #[arg(long, value_name = "SIZE", default_value = "16MiB")]
    pub buffer: String,
    /// Import a trace instead of capturing: blkparse's text output, or a fio iolog (v2 or v3)
    #[arg(long, value_name = "FILE")]
    pub import: Option<PathBuf>,
    /// Derive the spec right after (as `rigel derive DIR`)
    #[arg(long)]
    pub to_spec: bool,
}

#[derive(Args, Debug)]
#[command(after_help = "Examples:\n  \
rigel replay cap/ --target /dev/loop7 --allow-destructive          # as traced\n  \
rigel replay cap/ --target test.dat --size 1GiB --speed 2x        # on a new file, twice as fast\n  \
rigel replay cap/ --target /dev/sdc --offsets scale --out runs/r1 # a device of another size\n\n\
Each request goes out at its traced time from the replay's start (divided by --speed), never \
later because an earlier one was late: a late send goes at once and its lateness is the lag. \
Flushes are sent as fdatasync, FUA writes with RWF_DSYNC; discards are skipped and counted. \
`rigel report DIR` renders the run folder like any other.")]
pub struct ReplayArgs {
    /// The trace folder (`rigel capture --out DIR`), or a trace file
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// The block device or file to send the requests to
    #[arg(long, value_name = "PATH")]
    pub target: PathBuf,
    /// Create the target file at this size when it does not exist (`10GiB`)
    #[arg(long, value_name = "SIZE")]
    pub size: Option<String>,
    /// Send times are the trace's divided by this: `2x` twice as fast, `0.5x` half
    #[arg(long, value_name = "N[x]", default_value = "1x")]
    pub speed: String,
    /// Offsets on a target of another size: `wrap` (modulo its size; a larger target takes them
    /// unchanged) or `scale` (in proportion to the traced device's size); always aligned
    #[arg(long, value_name = "wrap|scale", default_value = "wrap")]
    pub offsets: OffsetsArg,
    /// The run folder (default: runs/replay-<yyyymmdd-hhmmss>/)
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Consent to writes on a block device or a file rigel did not create (as `rigel run`)
    #[arg(long)]
    pub allow_destructive: bool,
    /// With --allow-destructive: write even over a filesystem or partition-table signature
    #[arg(long, requires = "allow_destructive")]
    pub force: bool,
}

/// How `rigel replay` fits offsets onto its target.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum OffsetsArg {
    Wrap,
    Scale,
}

#[derive(Args, Debug)]
pub struct DeriveArgs {
    /// The trace folder (`rigel capture --out DIR`), or a trace file
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
}

#[derive(Args, Debug)]
pub struct VerifyArgs {
    /// The run folder (holding journal.map)
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// Read this path instead of the plan's target, in the plan's order (repeat for each
    /// target): a device attached again under another name
    #[arg(long = "target", value_name = "PATH")]
    pub targets: Vec<PathBuf>,
}

#[derive(Subcommand, Debug)]
pub enum GenerateArgs {
    /// Completions for a shell, on stdout (`rigel generate completions bash > ~/.local/share/bash-completion/completions/rigel`)
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Man pages (rigel.1 and one per command) into DIR
    Man {
        #[arg(value_name = "DIR")]
        dir: PathBuf,
    },
}

#[derive(Args, Debug)]
pub struct OrionArgs {
    /// ORION's options, one dash each: -run simple|normal|oltp|dss|advanced, -testname NAME,
    /// -num_disks N, -size_small K, -size_large K, -write PERCENT, -duration S, …; and rigel's
    /// --engine NAME (auto, io_uring, libaio, psync; default auto)
    #[arg(
        value_name = "ORION_OPTION",
        trailing_var_arg = true,
        allow_hyphen_values = true
    )]
    pub args: Vec<std::ffi::OsString>,
}

#[derive(Args, Debug)]
pub struct SpecsArgs {
    /// A spec's name (`orion/simple`, `acme/oltp-base`): print its TOML
    #[arg(value_name = "NAME")]
    pub name: Option<String>,
}

#[derive(Args, Debug)]
pub struct MergeArgs {
    /// The fleet folder (holding rank-0000/, rank-0001/, …)
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
}

#[derive(Args, Debug)]
pub struct ReportArgs {
    /// The run folder (holding results.json, or plan.json and results.jsonl)
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// Formats to render (repeatable; default: orion, markdown, html)
    #[arg(long = "format", value_name = "F", value_enum)]
    pub formats: Vec<FormatArg>,
    /// Your own minijinja template, or a folder of them, rendered with the documented context
    #[arg(long, value_name = "FILE|DIR")]
    pub template: Option<PathBuf>,
    /// Where the reports go (default: the run folder)
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// ORION file layout: 12c (µs, histograms; default) or 11.1 (ms)
    #[arg(long, value_name = "D", default_value = "12c")]
    pub dialect: rigel_report::Dialect,
    /// ORION's test name, the prefix of its files (default: the spec's name)
    #[arg(long, value_name = "NAME")]
    pub testname: Option<String>,
    /// `si` adds decimal MB/s (10^6 bytes per second) beside MiB/s in the per-class tables
    #[arg(long, value_name = "iec|si", default_value = "iec", value_parser = ["iec", "si"])]
    pub units: String,
    /// The PDF's paper (`--format pdf`): a4 or letter
    #[arg(long, value_name = "a4|letter", default_value = "a4")]
    pub paper: rigel_report::Paper,
}

#[derive(Args, Debug)]
pub struct HistoryArgs {
    /// The folder holding the run folders (searched 6 levels deep); `index.html` and `history/`
    /// (each run compared with the previous run of its spec) are written into it
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
}

#[derive(Args, Debug, Default)]
pub struct SpecOptions {
    /// Override a variable (`disks=4`) or any dotted key (`run.duration=10s`, `class.small.size=4KiB`,
    /// `target.0.path=/dev/sdb`); repeatable
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<Override>,
    #[command(flatten)]
    pub engine: EngineOption,
}

#[derive(Args, Debug, Default, Clone, Copy)]
pub struct EngineOption {
    /// The I/O engine of every class, whatever the spec says: auto (io_uring, or where the kernel
    /// refuses it libaio for O_DIRECT, else psync), io_uring, libaio or psync
    #[arg(long = "engine", value_name = "NAME", value_parser = engine_parser())]
    pub engine: Option<rigel_spec::Engine>,
}

/// `--engine`'s names, listed in `--help` and completed by shells.
fn engine_parser() -> impl clap::builder::TypedValueParser<Value = rigel_spec::Engine> {
    use clap::builder::TypedValueParser;
    // A listed name always maps to its engine; `auto` stands for the impossible other case.
    clap::builder::PossibleValuesParser::new(rigel_spec::Engine::NAMES)
        .map(|s| rigel_spec::Engine::from_name(&s).unwrap_or_default())
}

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// Spec files to check
    #[arg(required = true, value_name = "SPEC")]
    pub specs: Vec<PathBuf>,
    /// text: the diagnostics drawn for people (stderr); json: one JSON array of diagnostics on
    /// stdout (file, line, column, message, label, hint, severity), for editors and CI
    #[arg(long, value_enum, default_value_t = CheckFormat::Text)]
    pub format: CheckFormat,
    #[command(flatten)]
    pub spec: SpecOptions,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum CheckFormat {
    Text,
    Json,
}

#[derive(Args, Debug)]
pub struct PlanArgs {
    /// The spec file; without one, the built-in quick spec that `rigel run` runs by default
    #[arg(value_name = "SPEC")]
    pub spec_file: Option<PathBuf>,
    /// Print the plan as JSON (the document `plan.json` holds)
    #[arg(long)]
    pub json: bool,
    /// Check the writes as `rigel run --allow-destructive` would (plan writes nothing)
    #[arg(long)]
    pub allow_destructive: bool,
    /// Check as `rigel run --allow-destructive --force` would
    #[arg(long, requires = "allow_destructive")]
    pub force: bool,
    #[command(flatten)]
    pub spec: SpecOptions,
}

#[derive(Args, Debug)]
pub struct RunArgs {
    /// The spec file; without one, the built-in quick spec runs on a scratch file in the current
    /// directory (safe, no root, under a minute)
    #[arg(value_name = "SPEC")]
    pub spec_file: Option<PathBuf>,
    /// The run folder (default: runs/<name>-<yyyymmdd-hhmmss>/, or .2, .3, … when taken)
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Finish an interrupted run with its own spec and plan: run the points missing from
    /// DIR/results.jsonl and those recorded as failed (no SPEC, --out or --set with it)
    #[arg(long, value_name = "DIR", conflicts_with_all = ["spec_file", "out", "set", "engine"])]
    pub resume: Option<PathBuf>,
    /// With --resume: keep the points recorded as failed instead of running them again
    #[arg(long, requires = "resume")]
    pub skip_failed: bool,
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
    /// Who measures, as the handover's sign-off names them ("Measured by"); default: the
    /// environment's RIGEL_BY, else "not given"
    #[arg(long, value_name = "NAME")]
    pub by: Option<String>,
    /// Also write the `[expect]` verdicts as JUnit XML to FILE, for CI test reporters
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Also render F into the run folder at the end of the run, beside the ORION files, report.md
    /// and report.html (repeatable): `--format pdf` writes report.pdf, the handover document. A
    /// fleet: `rigel report DIR --format pdf` after the merge
    #[arg(
        long = "format",
        value_name = "F",
        value_enum,
        conflicts_with = "fleet"
    )]
    pub formats: Vec<FormatArg>,
    /// The PDF's paper (`--format pdf`): a4 or letter
    #[arg(long, value_name = "a4|letter", default_value = "a4")]
    pub paper: rigel_report::Paper,
    /// Run the spec N times back to back, run i into DIR/run-i (DIR from --out or the default):
    /// `rigel compare` then reads DIR as one side and bands each figure by the runs' spread
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1000),
          conflicts_with_all = ["resume", "fleet"])]
    pub repeat: Option<u32>,
    /// Fleet mode: this process is one rank of a many-host run (rank from srun, mpirun, a
    /// Kubernetes Indexed Job, or --rank); its run folder is DIR/rank-NNNN, rank 0 merges into DIR
    #[arg(long, value_name = "DIR", conflicts_with = "out")]
    pub fleet: Option<PathBuf>,
    /// Fleet mode: this process's rank, 0-based (default: from the launcher's environment)
    #[arg(long, value_name = "I", requires = "ranks")]
    pub rank: Option<u32>,
    /// Fleet mode: how many ranks there are (default: from the launcher's environment)
    #[arg(long, value_name = "N")]
    pub ranks: Option<u32>,
    /// Fleet mode without a shared filesystem: the first point starts at TIME on every host
    /// (RFC 3339 or Unix seconds)
    #[arg(long, value_name = "TIME", value_parser = rigel_fleet::parse_start_at)]
    pub start_at: Option<std::time::SystemTime>,
    /// Fleet mode, rank 0: how long after the schedule's last point it waits for the other ranks
    /// to finish before it merges without them (a duration such as `2s` or `500ms`; default 10 s)
    #[arg(long, value_name = "DURATION", value_parser = parse_grace)]
    pub finish_grace: Option<std::time::Duration>,
    /// Serve live metrics (OpenMetrics text: each class's last second's IOPS, MiB/s and latency
    /// quantiles, the point, progress and ETA) at HOST:PORT for the run's life; a fleet rank
    /// serves on PORT + its rank
    #[arg(long, value_name = "HOST:PORT")]
    pub metrics: Option<String>,
    /// Append the same metrics to FILE once a second (a fleet rank: FILE.rank-NNNN)
    #[arg(long, value_name = "FILE")]
    pub metrics_push: Option<PathBuf>,
    #[command(flatten)]
    pub spec: SpecOptions,
}

#[derive(Args, Debug)]
pub struct CompareArgs {
    /// The reference run: a run folder, a results.json file, or a folder of repeated runs (what
    /// `rigel run --repeat N` writes)
    #[arg(value_name = "BASE")]
    pub base: PathBuf,
    /// The run judged against it (the same kinds)
    #[arg(value_name = "NEW")]
    pub new: PathBuf,
    /// Another run of BASE's side, repeated: several runs per side give the between-run variance
    /// the noise band then uses
    #[arg(long = "base", value_name = "DIR")]
    pub more_base: Vec<PathBuf>,
    /// Another run of NEW's side, repeated
    #[arg(long = "new", value_name = "DIR")]
    pub more_new: Vec<PathBuf>,
    /// A change worse than this, and beyond the noise band, is a regression (fewer IOPS or MB/s,
    /// more latency); beyond this but inside the band it is inconclusive: `5%` for every metric,
    /// or per metric, repeated: `--threshold iops=5% --threshold p99=10%`
    #[arg(long, value_name = "[METRIC=]PERCENT", default_value = "5%", value_parser = parse_threshold)]
    pub threshold: Vec<(Option<String>, f64)>,
    /// Output: an aligned table, Markdown for a ticket or a pull request, one HTML page with the
    /// overlay chart inline, or JSON
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
    /// The drift between back-to-back runs that one run's own spread cannot show, ± percent: it
    /// widens the band of a side with a single run (repeated runs measure the drift instead)
    #[arg(long, value_name = "PERCENT", default_value_t = rigel_judge::compare::DRIFT_FLOOR_PERCENT, value_parser = parse_percent)]
    pub drift_floor: f64,
    /// Exit 4 when no line regressed but some are inconclusive (too noisy to judge); without it
    /// they are reported and the exit is 0
    #[arg(long)]
    pub fail_inconclusive: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum CompareFormat {
    Text,
    Markdown,
    /// One HTML page with the overlay chart inline.
    Html,
    Json,
}

/// `report --format`'s values, listed in `--help` and completed by shells (the report names them).
/// A wrapper, because clap's trait cannot be implemented here for the report crate's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FormatArg(pub rigel_report::Format);

const FORMAT_ARGS: [FormatArg; rigel_report::Format::CHOICES.len()] = {
    let c = rigel_report::Format::CHOICES;
    [
        FormatArg(c[0]),
        FormatArg(c[1]),
        FormatArg(c[2]),
        FormatArg(c[3]),
        FormatArg(c[4]),
        FormatArg(c[5]),
        FormatArg(c[6]),
        FormatArg(c[7]),
    ]
};

impl clap::ValueEnum for FormatArg {
    fn value_variants<'a>() -> &'a [Self] {
        &FORMAT_ARGS
    }
    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        let value = clap::builder::PossibleValue::new(self.0.name());
        Some(match self.0 {
            rigel_report::Format::Markdown => value.alias("md"),
            _ => value,
        })
    }
}

/// `5%`, `2.5%` or `5`: a non-negative percentage.
/// `5%` (every metric) or `p99=10%` (one metric).
fn parse_threshold(s: &str) -> Result<(Option<String>, f64), String> {
    match s.split_once('=') {
        Some((metric, p)) => Ok((Some(metric.trim().to_string()), parse_percent(p)?)),
        None => Ok((None, parse_percent(s)?)),
    }
}

fn parse_grace(s: &str) -> Result<std::time::Duration, String> {
    rigel_expr::parse_duration(s).map_err(|e| e.to_string())
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
