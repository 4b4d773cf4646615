//! The exporters: one table maps each built-in format to the function that renders its files (as
//! bytes: text and the PDF alike), and the views a template needs (the results model, ORION's
//! matrices, charts, verdicts) are computed only when an exporter asks for them, once.
//! `--format json` asks for none of them: it writes the document itself.

use super::chart::{chart_notes, charts, more_charts};
use super::context::{self, Context, LazyDoc, Views};
use super::format::{ROWS_CSV, rows_csv};
use super::orion::{self, OrionSettings};
use super::rows::{self, Shared};
use super::template::{TABLE_ROWS, builtin_environment, render_one, render_user};
use super::{Dialect, Format, ReportError, ReportOptions};
use minijinja::{Environment, Value};
use rigel_results::ResultsDoc;
use rigel_results::stats::{ValidityConfig, volume_findings, warnings};
use rigel_results::view::ResultsView;
use std::cell::OnceCell;
use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;

/// Rendered outputs: (file name relative to the output folder, content).
pub type Files = Vec<(PathBuf, Vec<u8>)>;

/// A text output as a file.
fn text(name: impl Into<PathBuf>, content: String) -> (PathBuf, Vec<u8>) {
    (name.into(), content.into_bytes())
}

/// A built-in format and the function that renders it.
struct Exporter {
    format: Format,
    render: fn(&Inputs) -> Result<Files, ReportError>,
}

/// Every built-in format, in one place: adding a format is adding a row.
const EXPORTERS: &[Exporter] = &[
    Exporter {
        format: Format::Orion,
        render: orion_files,
    },
    Exporter {
        format: Format::Markdown,
        render: markdown,
    },
    Exporter {
        format: Format::Html,
        render: html,
    },
    Exporter {
        format: Format::Json,
        render: json,
    },
    Exporter {
        format: Format::Junit,
        render: junit,
    },
    Exporter {
        format: Format::Hlog,
        render: hlog,
    },
    Exporter {
        format: Format::Pdf,
        render: pdf,
    },
    Exporter {
        format: Format::FioJson,
        render: fio_json,
    },
];

/// The views, computed once per render, for the exporters that use templates.
struct Prepared {
    shared: Arc<ResultsDoc>,
    doc_value: Value,
    views: Arc<Views>,
}

/// What the exporters render from: the document, the options, and the views made on first use.
struct Inputs<'a> {
    doc: &'a ResultsDoc,
    /// The same document shared, when the caller has it so (none: copied once for templates).
    shared: Option<Arc<ResultsDoc>>,
    opts: &'a ReportOptions,
    prepared: OnceCell<Prepared>,
    env: OnceCell<Environment<'static>>,
}

impl<'a> Inputs<'a> {
    fn prepared(&self) -> Result<&Prepared, ReportError> {
        if let Some(p) = self.prepared.get() {
            return Ok(p);
        }
        let shared = self
            .shared
            .clone()
            .unwrap_or_else(|| Arc::new(self.doc.clone()));
        let p = Prepared::new(self.doc, shared, self.opts)?;
        Ok(self.prepared.get_or_init(|| p))
    }

    fn env(&self) -> Result<&Environment<'static>, ReportError> {
        if let Some(e) = self.env.get() {
            return Ok(e);
        }
        let e = builtin_environment()?;
        Ok(self.env.get_or_init(|| e))
    }

    /// One built-in template rendered with the context of the first ORION matrix.
    fn page(
        &self,
        format: &str,
        template: &str,
        file: &str,
    ) -> Result<(PathBuf, Vec<u8>), ReportError> {
        let prep = self.prepared()?;
        let ctx = prep.context(format, 0);
        Ok(text(file, render_one(self.env()?, template, &ctx)?))
    }
}

impl Prepared {
    fn new(
        doc: &ResultsDoc,
        shared: Arc<ResultsDoc>,
        opts: &ReportOptions,
    ) -> Result<Self, ReportError> {
        let view = ResultsView::new(doc);
        let points = rows::point_views(&view);
        let classes = rows::class_views(&view, &points);
        let headline = rows::headline(&view);
        let mut charts = charts(&classes, &points);
        charts.extend(more_charts(&view, &classes, &points, &headline));
        let chart_notes = chart_notes(&points, &headline);
        let testname = opts
            .testname
            .clone()
            .unwrap_or_else(|| default_testname(doc));
        let version = opts
            .orion_version
            .clone()
            .unwrap_or_else(|| default_orion_version(opts.dialect));
        let settings = OrionSettings {
            dialect: opts.dialect,
            testname: &testname,
            version: &version,
        };
        let findings = volume_findings(&view, &ValidityConfig::default());
        let orion = view
            .groups()
            .iter()
            .map(|g| {
                let ids: HashSet<u32> = g.points.iter().map(|p| p.id()).collect();
                let views = points
                    .iter()
                    .filter(|p| ids.contains(&p.id))
                    .cloned()
                    .collect();
                orion::orion_view(&view, &settings, g, views, &findings)
            })
            .collect::<Result<Vec<_>, _>>()?;
        // Judged from the plan's `[expect]`; none when the spec states no requirements.
        let verdicts = rigel_judge::expect::evaluate(doc);
        let requirements = if verdicts.is_empty() {
            None
        } else {
            Some(serde_json::to_value(verdicts)?)
        };
        let fleet = super::fleet::fleet_view(doc, &headline);
        let warnings = warnings(&view, &opts.past_runs, &ValidityConfig::default());
        let handover = super::handover::handover(doc, &points, &warnings);
        super::chart::mark_answer_charts(&mut charts, &handover.answers());
        let views = Views {
            run: context::run_view(&view),
            classes: classes.into_iter().map(Shared::new).collect(),
            points,
            headline,
            charts,
            chart_notes,
            orion,
            requirements,
            fleet,
            warnings,
            si_units: opts.si_units,
            handover,
        };
        Ok(Prepared {
            doc_value: LazyDoc::value(shared.clone()),
            shared,
            views: Arc::new(views),
        })
    }

    /// The context of one page: `orion` is the ORION matrix its `orion` names.
    fn context(&self, format: &str, orion: usize) -> Value {
        Context::value(
            self.views.clone(),
            self.shared.clone(),
            self.doc_value.clone(),
            format,
            orion,
        )
    }

    /// `rows.csv`, where the pages summarize their per-point tables: more finished points than a
    /// table shows (`template::summarize`).
    fn rows_file(&self) -> Option<(PathBuf, Vec<u8>)> {
        let points = &self.views.points;
        (points.len() > TABLE_ROWS).then(|| text(ROWS_CSV, rows_csv(points)))
    }

    fn chart_files(&self) -> impl Iterator<Item = (PathBuf, Vec<u8>)> + '_ {
        self.views
            .charts
            .iter()
            .map(|c| text(&c.file, c.svg.clone()))
    }
}

/// ORION's files: one set per `[sweep]` combination.
fn orion_files(i: &Inputs) -> Result<Files, ReportError> {
    let prep = i.prepared()?;
    let kinds = orion::kinds(i.opts.dialect);
    let mut out = Vec::new();
    for (n, view) in prep.views.orion.iter().enumerate() {
        let ctx = prep.context("orion", n);
        for kind in &kinds {
            let content = render_one(i.env()?, &format!("orion/{kind}"), &ctx)?;
            out.push(text(format!("{}_{kind}", view.prefix), content));
        }
    }
    Ok(out)
}

/// `report.md` and its charts beside it.
fn markdown(i: &Inputs) -> Result<Files, ReportError> {
    let mut out = vec![i.page("markdown", "markdown/report.md", "report.md")?];
    out.extend(i.prepared()?.chart_files());
    out.extend(i.prepared()?.rows_file());
    Ok(out)
}

fn html(i: &Inputs) -> Result<Files, ReportError> {
    let mut out = vec![i.page("html", "html/report.html", "report.html")?];
    out.extend(i.prepared()?.rows_file());
    Ok(out)
}

/// The results document itself: no view, no chart, no template.
fn json(i: &Inputs) -> Result<Files, ReportError> {
    let (name, content) = super::format::json(i.doc)?;
    Ok(vec![text(name, content)])
}

fn hlog(i: &Inputs) -> Result<Files, ReportError> {
    let logs = super::format::hlog::render(i.doc)?;
    Ok(logs
        .into_iter()
        .map(|(name, log)| text(name, log))
        .collect())
}

fn fio_json(i: &Inputs) -> Result<Files, ReportError> {
    let docs = super::format::fio_json::render(i.doc)?;
    Ok(docs
        .into_iter()
        .map(|(name, doc)| text(name, doc))
        .collect())
}

fn junit(i: &Inputs) -> Result<Files, ReportError> {
    let file = super::format::JUNIT_FILE;
    let xml = super::format::junit_text(i.doc, std::path::Path::new(file))?;
    Ok(vec![text(file, xml)])
}

/// A user's template file or folder, with the charts beside it.
fn user(i: &Inputs, path: &std::path::Path) -> Result<Files, ReportError> {
    let prep = i.prepared()?;
    let ctx = prep.context("user", 0);
    let mut out: Files = render_user(path, &ctx)?
        .into_iter()
        .map(|(name, content)| text(name, content))
        .collect();
    out.extend(prep.chart_files());
    Ok(out)
}

/// `report.pdf`: the Markdown report laid out on pages with its charts. A user's Markdown template
/// (`--template FILE.md`) is laid out instead of the built-in one.
fn pdf(i: &Inputs) -> Result<Files, ReportError> {
    let (doc, opts) = (i.doc, i.opts);
    let prep = i.prepared()?;
    let ctx = prep.context("pdf", 0);
    let user_md = opts.template.as_deref().filter(|p| {
        let name = p.to_string_lossy();
        p.is_file()
            && [".md", ".md.j2", ".md.jinja", ".md.jinja2"]
                .iter()
                .any(|s| name.ends_with(s))
    });
    let markdown = match user_md {
        Some(path) => render_user(path, &ctx)?
            .into_iter()
            .map(|(_, text)| text)
            .next()
            .unwrap_or_default(),
        None => render_one(i.env()?, "markdown/report.md", &ctx)?,
    };
    let charts: Vec<(String, String)> = prep
        .views
        .charts
        .iter()
        .map(|c| (c.file.clone(), c.svg.clone()))
        .collect();
    let title = format!("{}: storage calibration report", doc.plan().name);
    let creator = format!("rigel {}", env!("CARGO_PKG_VERSION"));
    let info = rigel_pdf::Info {
        title: &title,
        creator: &creator,
    };
    let bytes = rigel_pdf::document(&markdown, &charts, opts.paper, info)?;
    Ok(vec![(PathBuf::from("report.pdf"), bytes)])
}

/// Renders every requested output in memory: (file name relative to `out_dir`, content).
pub fn render_to_bytes(doc: &ResultsDoc, opts: &ReportOptions) -> Result<Files, ReportError> {
    render_inputs(Inputs {
        doc,
        shared: None,
        opts,
        prepared: OnceCell::new(),
        env: OnceCell::new(),
    })
}

/// The terminal's closing summary of a run: page 1's verdict and answers, each answer with its
/// load, latency and warnings, in the words of the handover's page 1, as plain lines.
pub fn closing_summary(
    doc: &ResultsDoc,
    past_runs: Vec<rigel_results::stats::PastRun>,
) -> Result<String, ReportError> {
    let mut opts = ReportOptions::new(PathBuf::new());
    opts.formats.clear();
    opts.past_runs = past_runs;
    let inputs = Inputs {
        doc,
        shared: None,
        opts: &opts,
        prepared: OnceCell::new(),
        env: OnceCell::new(),
    };
    let (_, bytes) = inputs.page("text", "text/closing.txt", "closing.txt")?;
    Ok(terminal_text(&String::from_utf8_lossy(&bytes)))
}

/// Markdown's marks (the closing summary's macros are page 1's) mean nothing on a terminal: the
/// text without them, as the closing summary prints it (a caller that looks for a warning's
/// message there looks for it so).
pub fn terminal_text(text: &str) -> String {
    text.replace("**", "").replace('`', "")
}

/// [`render_to_bytes`] of a shared document: templates read it without a copy (a fleet's).
pub fn render_shared_to_bytes(
    doc: &Arc<ResultsDoc>,
    opts: &ReportOptions,
) -> Result<Files, ReportError> {
    render_inputs(Inputs {
        doc,
        shared: Some(doc.clone()),
        opts,
        prepared: OnceCell::new(),
        env: OnceCell::new(),
    })
}

fn render_inputs(inputs: Inputs) -> Result<Files, ReportError> {
    let mut out = Vec::new();
    for format in &inputs.opts.formats {
        if let Some(e) = EXPORTERS.iter().find(|e| e.format == *format) {
            out.extend((e.render)(&inputs)?);
        }
    }
    if let Some(path) = &inputs.opts.template {
        out.extend(user(&inputs, path)?);
    }
    let mut seen = std::collections::HashSet::new();
    out.retain(|(p, _)| seen.insert(p.clone()));
    Ok(out)
}

/// ORION's `-testname`: as given when rigel ran as ORION (`orion` when not given), else the spec's
/// name made safe for a file name.
fn default_testname(doc: &ResultsDoc) -> String {
    if let Some(i) = doc
        .command()
        .iter()
        .position(|a| a == "orion")
        .filter(|&i| i <= 1)
    {
        let args = &doc.command()[i + 1..];
        return match args.iter().position(|a| a == "-testname") {
            Some(j) => args
                .get(j + 1)
                .cloned()
                .unwrap_or_else(|| "orion".to_string()),
            None => "orion".to_string(),
        };
    }
    let name: String = doc
        .plan()
        .name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '-'
            }
        })
        .collect();
    if name.is_empty() {
        "orion".to_string()
    } else {
        name
    }
}

/// ORION's release exactly as ORION prints it: scripts match this line. rigel's own version is in
/// `_trace.txt` and the other reports.
fn default_orion_version(dialect: Dialect) -> String {
    dialect.orion_release().to_string()
}
