//! Rendering: builds the context once, renders the built-in formats and any user template, and
//! writes the files.

use super::charts::{Chart, charts};
use super::context::{self, ClassView, Headline, PointView, RigelInfo, RunView};
use super::env::{base_environment, builtin_environment};
use super::more_charts::more_charts;
use super::orion::{self, OrionSettings, OrionView};
use super::orion_map;
use super::{Dialect, Format, ReportError, ReportOptions};
use crate::plan::RunPlan;
use crate::stats::{HostInfo, ResultsDoc, TargetInfo, ValidityConfig, Warning, warnings};
use minijinja::{Environment, Value};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Everything a template sees (docs/report-context.md describes each field).
#[derive(Serialize)]
struct Context<'a> {
    rigel: RigelInfo,
    /// Which output is being rendered: `orion`, `markdown`, `html` or `user`.
    format: &'a str,
    doc: &'a ResultsDoc,
    plan: &'a RunPlan,
    run: &'a RunView,
    host: &'a HostInfo,
    targets: &'a [TargetInfo],
    classes: &'a [ClassView],
    points: &'a [PointView],
    headline: &'a Headline,
    charts: &'a [Chart],
    chart: BTreeMap<&'a str, &'a Chart>,
    orion: &'a OrionView,
    orion_matrices: &'a [OrionView],
    requirements: &'a Option<serde_json::Value>,
    /// Validity warnings (stats::warnings), each with the figure that triggered it.
    warnings: &'a [Warning],
    /// Decimal MB/s columns beside MiB/s (`--units si`).
    si_units: bool,
}

/// The views, computed once per render.
struct Prepared<'a> {
    doc: &'a ResultsDoc,
    run: RunView,
    points: Vec<PointView>,
    classes: Vec<ClassView>,
    headline: Headline,
    charts: Vec<Chart>,
    orion: Vec<OrionView>,
    requirements: Option<serde_json::Value>,
    warnings: Vec<Warning>,
    si_units: bool,
}

impl<'a> Prepared<'a> {
    fn new(doc: &'a ResultsDoc, opts: &ReportOptions) -> Result<Self, ReportError> {
        let roles = orion_map::roles(&doc.plan.classes);
        let points = context::point_views(doc);
        let classes = context::class_views(doc, &points, &roles);
        let headline = context::headline(&classes);
        let mut charts = charts(&classes, &points);
        charts.extend(more_charts(doc, &classes, &points, &headline));
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
        let orion = orion_map::sweep_groups(doc)
            .into_iter()
            .map(|(sweep, pts)| {
                let ids: Vec<u32> = pts.iter().map(|p| p.point.id).collect();
                let views = points
                    .iter()
                    .filter(|p| ids.contains(&p.id))
                    .cloned()
                    .collect();
                orion::orion_view(doc, &settings, (&sweep, &pts), views)
            })
            .collect::<Result<Vec<_>, _>>()?;
        // Judged from the plan's `[expect]`; none when the spec states no requirements.
        let verdicts = crate::expect::evaluate(doc);
        let requirements = if verdicts.is_empty() {
            None
        } else {
            Some(serde_json::to_value(verdicts)?)
        };
        Ok(Prepared {
            doc,
            run: context::run_view(doc),
            points,
            classes,
            headline,
            charts,
            orion,
            requirements,
            warnings: warnings(doc, &opts.past_runs, &ValidityConfig::default()),
            si_units: opts.si_units,
        })
    }

    fn context(&self, format: &'a str, orion: &'a OrionView) -> Value
    where
        Self: 'a,
    {
        Value::from_serialize(Context {
            rigel: RigelInfo {
                version: env!("CARGO_PKG_VERSION"),
            },
            format,
            doc: self.doc,
            plan: &self.doc.plan,
            run: &self.run,
            host: &self.doc.host,
            targets: &self.doc.targets,
            classes: &self.classes,
            points: &self.points,
            headline: &self.headline,
            charts: &self.charts,
            chart: self.charts.iter().map(|c| (c.name.as_str(), c)).collect(),
            orion,
            orion_matrices: &self.orion,
            requirements: &self.requirements,
            warnings: &self.warnings,
            si_units: self.si_units,
        })
    }
}

/// ORION's `-testname`: as given when rigel ran as ORION (`orion` when not given), else the spec's
/// name made safe for a file name.
fn default_testname(doc: &ResultsDoc) -> String {
    if let Some(i) = doc
        .command
        .iter()
        .position(|a| a == "orion")
        .filter(|&i| i <= 1)
    {
        let args = &doc.command[i + 1..];
        return match args.iter().position(|a| a == "-testname") {
            Some(j) => args
                .get(j + 1)
                .cloned()
                .unwrap_or_else(|| "orion".to_string()),
            None => "orion".to_string(),
        };
    }
    let name: String = doc
        .plan
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

fn default_orion_version(dialect: Dialect) -> String {
    format!(
        "{} (rigel {})",
        dialect.orion_release(),
        env!("CARGO_PKG_VERSION")
    )
}

fn render_one(env: &Environment, name: &str, ctx: &Value) -> Result<String, ReportError> {
    env.get_template(name)
        .and_then(|t| t.render(ctx))
        .map_err(|e| ReportError::template(&e, name))
}

/// Renders every requested output in memory: (file name relative to `out_dir`, content).
pub fn render_to_strings(
    doc: &ResultsDoc,
    opts: &ReportOptions,
) -> Result<Vec<(PathBuf, String)>, ReportError> {
    let prep = Prepared::new(doc, opts)?;
    let env = builtin_environment()?;
    let mut out: Vec<(PathBuf, String)> = Vec::new();
    let first = &prep.orion[0];
    for format in &opts.formats {
        match format {
            Format::Orion => {
                for view in &prep.orion {
                    let ctx = prep.context("orion", view);
                    let mut kinds = vec!["summary.txt", "iops.csv", "mbps.csv", "lat.csv"];
                    if opts.dialect == Dialect::V12 {
                        kinds.push("hist.txt");
                    }
                    kinds.push("trace.txt");
                    for kind in kinds {
                        let text = render_one(&env, &format!("orion/{kind}"), &ctx)?;
                        out.push((PathBuf::from(format!("{}_{kind}", view.prefix)), text));
                    }
                }
            }
            Format::Markdown => {
                let ctx = prep.context("markdown", first);
                out.push((
                    "report.md".into(),
                    render_one(&env, "markdown/report.md", &ctx)?,
                ));
                out.extend(
                    prep.charts
                        .iter()
                        .map(|c| (PathBuf::from(&c.file), c.svg.clone())),
                );
            }
            Format::Html => {
                let ctx = prep.context("html", first);
                out.push((
                    "report.html".into(),
                    render_one(&env, "html/report.html", &ctx)?,
                ));
            }
            Format::Json => {
                let mut text = serde_json::to_string_pretty(doc)?;
                text.push('\n');
                out.push(("report.json".into(), text));
            }
        }
    }
    if let Some(path) = &opts.template {
        let ctx = prep.context("user", first);
        out.extend(render_user(path, &ctx)?);
        out.extend(
            prep.charts
                .iter()
                .map(|c| (PathBuf::from(&c.file), c.svg.clone())),
        );
    }
    let mut seen = std::collections::HashSet::new();
    out.retain(|(p, _)| seen.insert(p.clone()));
    Ok(out)
}

/// Renders the requested outputs into `opts.out_dir` and returns the paths written.
pub fn render(doc: &ResultsDoc, opts: &ReportOptions) -> Result<Vec<PathBuf>, ReportError> {
    let files = render_to_strings(doc, opts)?;
    // Names come from templates and test names: keep every file inside the output folder.
    if let Some((rel, _)) = files.iter().find(|(rel, _)| {
        rel.components()
            .any(|c| !matches!(c, std::path::Component::Normal(_)))
    }) {
        return Err(ReportError::TemplatePath {
            path: rel.clone(),
            reason: "an output name must stay inside the output folder (no `..`, no absolute path)"
                .into(),
        });
    }
    let mut written = Vec::with_capacity(files.len());
    for (rel, text) in files {
        let path = opts.out_dir.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|source| ReportError::Write {
                path: parent.to_path_buf(),
                source,
            })?;
        }
        std::fs::write(&path, text).map_err(|source| ReportError::Write {
            path: path.clone(),
            source,
        })?;
        written.push(path);
    }
    Ok(written)
}

const TEMPLATE_SUFFIXES: [&str; 3] = [".j2", ".jinja2", ".jinja"];

/// A user's template file or folder. In a folder every file renders except those under a name
/// starting with `_` (partials and macros for `{% include %}` / `{% import %}`); the output keeps the
/// relative path, drops a `.j2`/`.jinja` suffix, and may itself use `{{ }}` (`{{ orion.prefix }}.txt`).
fn render_user(path: &Path, ctx: &Value) -> Result<Vec<(PathBuf, String)>, ReportError> {
    let meta = std::fs::metadata(path).map_err(|source| ReportError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let (root, names) = if meta.is_dir() {
        let mut names = Vec::new();
        collect_templates(path, path, &mut names)?;
        names.sort();
        (path.to_path_buf(), names)
    } else {
        let root = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        (root, vec![name])
    };
    if names.is_empty() {
        return Err(ReportError::TemplatePath {
            path: path.to_path_buf(),
            reason: "holds no template files".into(),
        });
    }
    let mut env = base_environment();
    env.set_loader(minijinja::path_loader(root));
    let mut out = Vec::new();
    for name in names {
        let text = render_one(&env, &name, ctx)?;
        let mut target = name.clone();
        for suffix in TEMPLATE_SUFFIXES {
            if let Some(stripped) = target.strip_suffix(suffix) {
                target = stripped.to_string();
                break;
            }
        }
        if target.contains("{{") {
            target = env
                .render_str(&target, ctx)
                .map_err(|e| ReportError::template(&e, &name))?;
        }
        out.push((PathBuf::from(target), text));
    }
    Ok(out)
}

fn collect_templates(root: &Path, dir: &Path, names: &mut Vec<String>) -> Result<(), ReportError> {
    let entries = std::fs::read_dir(dir).map_err(|source| ReportError::Read {
        path: dir.to_path_buf(),
        source,
    })?;
    for entry in entries {
        let entry = entry.map_err(|source| ReportError::Read {
            path: dir.to_path_buf(),
            source,
        })?;
        let path = entry.path();
        let file_name = entry.file_name().to_string_lossy().into_owned();
        if file_name.starts_with('_') || file_name.starts_with('.') {
            continue;
        }
        if path.is_dir() {
            collect_templates(root, &path, names)?;
        } else if let Ok(rel) = path.strip_prefix(root) {
            names.push(rel.to_string_lossy().replace('\\', "/"));
        }
    }
    Ok(())
}
