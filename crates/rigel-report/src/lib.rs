//! Reports: the results document rendered through minijinja templates, as ORION's files, a Markdown
//! handover with SVG charts, a self-contained HTML page, JSON, or a user's own templates. The built-in
//! templates are embedded from this crate's `templates/`; docs/report-context.md documents what
//! templates see.
//!
//! Six rooms: `rows/` (the views of the points, rows and classes, one file each), `context/` (what
//! templates see, converted on demand), `chart/` (every SVG chart, on one plot primitive), `orion/`
//! (ORION's files), `template/` (the minijinja environment, user templates and their isolation)
//! and `format/` (JSON, JUnit, hlog). The PDF is laid out by the `rigel-pdf` crate. Here: the
//! formats and options, the exporters (`export`) and the files they write (`render`).

#![forbid(unsafe_code)]

mod chart;
mod context;
mod error;
mod export;
mod fleet;
mod format;
mod handover;
mod history;
mod names;
mod orion;
mod placement;
mod render;
mod rows;
mod template;
#[cfg(test)]
mod tests;

pub use chart::compare_overlay;
pub use error::ReportError;
pub use export::{closing_summary, render_to_bytes, terminal_text};
pub use format::{JUNIT_FILE, fio_json, write_junit};
pub use history::{History, history};
pub use orion::printf::{Arg as PrintfArg, PrintfError, sprintf};
pub use render::{render, render_shared};
pub use rigel_pdf::Paper;
/// ORION's file layouts, [`ReportOptions::dialect`]: the type is ORION's vocabulary, in rigel-plan.
pub use rigel_plan::Dialect;
pub use template::{isolate_user_templates, serve_template_child};

use std::path::PathBuf;

/// A built-in report format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// ORION's files: `<prefix>_summary.txt`, `_iops.csv`, `_mbps.csv`, `_lat.csv`, `_trace.txt`,
    /// and `_hist.txt` in the 12c dialect.
    Orion,
    /// `report.md` and its charts (`chart-*.svg`) beside it.
    Markdown,
    /// `report.html`: one self-contained page, charts inline.
    Html,
    /// `report.json`: the results document itself, with the verdicts.
    Json,
    /// `junit.xml`: the `[expect]` verdicts as JUnit XML, one test case per requirement.
    Junit,
    /// `hlog/<class>-<read|write>.hlog`: HdrHistogram interval logs of the per-second histograms.
    Hlog,
    /// `report.pdf`: the Markdown report laid out on A4 or Letter pages, fonts embedded, charts
    /// as vectors; made by rigel itself (no browser).
    Pdf,
    /// `fio.json` (every point) and `fio/point-N.json` (one each): fio 3.x's
    /// `--output-format=json` document, one job per class and point (docs/fio.md).
    FioJson,
}

impl Format {
    /// Every format `--format` takes: the reports, the verdicts as JUnit, and the interval logs
    /// (only from results that kept per-interval histograms).
    pub const CHOICES: [Format; 8] = [
        Format::Orion,
        Format::Markdown,
        Format::Html,
        Format::Json,
        Format::Junit,
        Format::Hlog,
        Format::Pdf,
        Format::FioJson,
    ];
    pub const ALL: [Format; 5] = [
        Format::Orion,
        Format::Markdown,
        Format::Html,
        Format::Json,
        Format::Junit,
    ];
    /// What `rigel run` renders into its run folder.
    pub const DEFAULT: [Format; 3] = [Format::Orion, Format::Markdown, Format::Html];

    pub fn name(self) -> &'static str {
        match self {
            Format::Orion => "orion",
            Format::Markdown => "markdown",
            Format::Html => "html",
            Format::Json => "json",
            Format::Junit => "junit",
            Format::Hlog => "hlog",
            Format::Pdf => "pdf",
            Format::FioJson => "fio-json",
        }
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "orion" => Ok(Format::Orion),
            "markdown" | "md" => Ok(Format::Markdown),
            "html" => Ok(Format::Html),
            "json" => Ok(Format::Json),
            "junit" => Ok(Format::Junit),
            "hlog" => Ok(Format::Hlog),
            "pdf" => Ok(Format::Pdf),
            "fio-json" => Ok(Format::FioJson),
            _ => Err(format!(
                "unknown report format {s:?}; expected orion, markdown, html, json, junit, hlog, pdf or fio-json"
            )),
        }
    }
}

/// What to render, and where.
#[derive(Clone, Debug)]
pub struct ReportOptions {
    /// Built-in formats to render (may be empty when only a user template is wanted).
    pub formats: Vec<Format>,
    /// A user's template file, or a folder of them, rendered with the same context.
    pub template: Option<PathBuf>,
    pub dialect: Dialect,
    /// ORION's test name (`-testname`): the files' prefix. Default: the spec's name.
    pub testname: Option<String>,
    /// The text after `ORION VERSION ` in the summary. Default: the dialect's release alone,
    /// `19.3.0.0.0`, as ORION prints it (rigel's version is in `_trace.txt`).
    pub orion_version: Option<String>,
    /// Where the files go (created when missing).
    pub out_dir: PathBuf,
    /// Earlier runs beside this one (`record::past_runs`), for the seed-reuse warning.
    pub past_runs: Vec<rigel_results::stats::PastRun>,
    /// Decimal MB/s (10^6 B/s) beside MiB/s in the per-class tables (`--units si`).
    pub si_units: bool,
    /// Never replace a file (ORION's working directory, which other runs share): every file is
    /// made new, numbered `.2`, `.3`, … where a name is taken.
    pub exclusive: bool,
    /// The PDF's paper (`--format pdf`).
    pub paper: Paper,
}

impl ReportOptions {
    /// The default set of formats, 12c dialect, into `out_dir`.
    pub fn new(out_dir: impl Into<PathBuf>) -> Self {
        ReportOptions {
            formats: Format::DEFAULT.to_vec(),
            template: None,
            dialect: Dialect::default(),
            testname: None,
            orion_version: None,
            out_dir: out_dir.into(),
            past_runs: Vec::new(),
            si_units: false,
            exclusive: false,
            paper: Paper::default(),
        }
    }
}
