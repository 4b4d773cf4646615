//! `rigel history DIR`: a static site over every run folder under DIR. One table of runs (spec,
//! revision, date, host, targets, headline figures, verdicts, warnings), a trend chart per spec,
//! links to each run's own report, and each run compared with the previous run of its spec through
//! `rigel_judge::compare` (its noise rules), one page per comparison.
//!
//! Each folder is read once (its `results.json`, or its points file for an unfinished run), its
//! row kept and the document dropped once the next run of its spec has been compared with it.

mod identity;
mod model;
mod page;
mod scan;

pub use model::{RunRow, Unread, Versus};

use crate::ReportError;
use crate::chart::trend::{TrendRun, trend};
use rigel_judge::compare::{self, CompareOptions};
use rigel_record::RunHead;
use rigel_results::ResultsDoc;
use rigel_results::stats::{ValidityConfig, warnings};
use rigel_results::view::ResultsView;
use std::path::{Path, PathBuf};

/// What `history` wrote and read.
pub struct History {
    pub files: Vec<PathBuf>,
    pub runs: usize,
    pub specs: usize,
    pub unread: Vec<Unread>,
}

/// Writes the history of every run folder under `root` into `out` (`index.html` with a trend chart
/// per spec inline, `history/compare-N.html`).
pub fn history(root: &Path, out: &Path) -> Result<History, ReportError> {
    let found = scan::run_folders(root)?;
    let mut unread = Vec::new();
    // Light first: each folder's spec and start (run.json, plan.json's name), to order them.
    let mut heads: Vec<RunHead> = Vec::new();
    for dir in found {
        match rigel_record::head(&dir) {
            Ok(h) => heads.push(h),
            Err(e) => unread.push(Unread {
                dir: rel(root, &dir),
                error: e.to_string(),
            }),
        }
    }
    heads.sort_by(|a, b| (&a.spec, &a.started, &a.dir).cmp(&(&b.spec, &b.started, &b.dir)));
    let groups: Vec<&[RunHead]> = heads.chunk_by(|a, b| a.spec == b.spec).collect();
    // The specs' groups are independent: read and compared on every core.
    let next = std::sync::atomic::AtomicUsize::new(0);
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(groups.len().max(1));
    let mut done: Vec<(usize, Group)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                s.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(g) = groups.get(i) else { break };
                        mine.push((i, group(root, g)));
                    }
                    mine
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    });
    done.sort_by_key(|(i, _)| *i);
    let mut rows: Vec<RunRow> = Vec::new();
    let mut compares: Vec<(String, String)> = Vec::new();
    for (_, g) in done {
        unread.extend(g.unread);
        for (mut row, page) in g.rows {
            if let (Some(v), Some(page)) = (row.versus.as_mut(), page) {
                v.link = format!("history/compare-{}.html", compares.len() + 1);
                compares.push((v.link.clone(), page));
            }
            rows.push(row);
        }
    }
    let mut charts = Vec::new();
    let mut specs = 0;
    let mut start = 0;
    while start < rows.len() {
        let spec = rows[start].spec.clone();
        let end = rows[start..]
            .iter()
            .position(|r| r.spec != spec)
            .map_or(rows.len(), |n| start + n);
        specs += 1;
        // One run is a dot, not a trend: its figures are in the table above.
        if end - start < 2 {
            start = end;
            continue;
        }
        let runs: Vec<TrendRun> = rows[start..end]
            .iter()
            .map(|r| TrendRun {
                label: format!("{} {}", r.date, r.revision),
                max_iops: r.max_iops,
                max_mbps: r.max_mbps,
                min_latency_ns: r.min_latency_ns,
            })
            .collect();
        charts.push(page::SpecChart {
            spec: spec.clone(),
            runs: end - start,
            svg: trend(&spec, &runs),
        });
        start = end;
    }
    let html = page::index(root, &rows, &charts, specs, &unread)?;
    let mut files = vec![(PathBuf::from("index.html"), html.into_bytes())];
    files.extend(
        compares
            .into_iter()
            .map(|(l, h)| (PathBuf::from(l), h.into_bytes())),
    );
    let written = page::write(out, files)?;
    Ok(History {
        files: written,
        runs: rows.len(),
        specs,
        unread,
    })
}

/// One spec's runs read, each with its comparison page against the one before.
#[derive(Default)]
struct Group {
    rows: Vec<(RunRow, Option<String>)>,
    unread: Vec<Unread>,
}

/// Reads one spec name's runs in order, comparing each with the previous finished run of the same
/// series (its identity: ORION's command line, or the name and the plan's shape); a run still in
/// progress is not compared, nor compared against.
fn group(root: &Path, heads: &[RunHead]) -> Group {
    let opts = CompareOptions::default();
    let mut out = Group::default();
    // The last finished run of each series read so far.
    let mut previous: Vec<(String, String, ResultsDoc)> = Vec::new();
    for h in heads {
        let dir = rel(root, &h.dir);
        let doc = match rigel_record::load(&h.dir) {
            Ok(run) => run.doc,
            Err(e) => {
                out.unread.push(Unread {
                    dir,
                    error: e.to_string(),
                });
                continue;
            }
        };
        let series = identity::identity(&doc);
        let mut row = row(&doc, &dir, &h.dir, &series);
        let mut page = None;
        let before = previous.iter().position(|(s, _, _)| *s == series);
        if doc.finished().is_empty() {
            row.not_compared = "in progress: not compared".to_owned();
        } else if let Some(i) = before {
            let (_, prev_dir, prev) = &previous[i];
            let mut c = compare::compare(prev, &doc, &opts);
            c.base.path = prev_dir.clone();
            c.new.path = dir.clone();
            row.versus = Some(Versus {
                previous: prev_dir.clone(),
                link: String::new(),
                regressions: c.regressions + c.answer_regressions,
                improvements: c.improvements,
                inconclusive: c.inconclusive + c.answer_inconclusive,
                lines: c.lines + c.answers.len(),
            });
            page = Some(compare::html(&c, None));
        }
        if !doc.finished().is_empty() {
            match before {
                Some(i) => previous[i] = (series, dir, doc),
                None => previous.push((series, dir, doc)),
            }
        }
        out.rows.push((row, page));
    }
    // Each series together, in run order: one trend chart per series.
    out.rows.sort_by(|a, b| a.0.spec.cmp(&b.0.spec));
    out
}

fn rel(root: &Path, dir: &Path) -> String {
    let r = dir.strip_prefix(root).unwrap_or(dir);
    let s = r.display().to_string();
    if s.is_empty() { ".".into() } else { s }
}

/// A run's row: headline from the results model's one rule, verdicts from `[expect]`, warnings
/// from `stats` (without the folder's neighbours: the history shows those itself).
fn row(doc: &ResultsDoc, dir: &str, path: &Path, spec: &str) -> RunRow {
    let view = ResultsView::new(doc);
    let h = view.headline(&view.all());
    let verdicts = rigel_judge::expect::evaluate(doc);
    let warned = warnings(&view, &[], &ValidityConfig::default());
    let prov = doc.provenance();
    let revision = match prov {
        Some(p) => match &p.spec.git {
            Some(g) => format!(
                "{}{}",
                g.commit.get(..7).unwrap_or(&g.commit),
                if g.clean { "" } else { "+dirty" }
            ),
            None => format!("sha256:{}", p.spec.sha256.get(..8).unwrap_or("")),
        },
        None => "-".into(),
    };
    let link = if path.join("report.html").is_file() {
        format!("{dir}/report.html")
    } else {
        format!("{dir}/results.json")
    };
    let date = chrono::DateTime::parse_from_rfc3339(doc.started())
        .map(|t| t.format("%Y-%m-%d %H:%M").to_string())
        .unwrap_or_else(|_| doc.started().to_owned());
    RunRow {
        dir: dir.to_owned(),
        link,
        spec: spec.to_owned(),
        revision,
        started: doc.started().to_owned(),
        date,
        host: doc.host().hostname.clone(),
        targets: doc
            .targets()
            .iter()
            .map(|t| {
                if t.model.is_empty() {
                    t.path.clone()
                } else {
                    format!("{} ({})", t.path, t.model)
                }
            })
            .collect::<Vec<_>>()
            .join(", "),
        target_paths: doc
            .targets()
            .iter()
            .map(|t| t.path.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        max_iops: h.max_iops.map(|b| b.value),
        max_mbps: h.max_mbps.map(|b| b.value),
        min_latency_ns: h.min_latency.map(|b| b.value),
        points: doc.points().len(),
        complete: !doc.finished().is_empty(),
        requirements: verdicts.len(),
        requirements_met: verdicts.iter().filter(|v| v.passed).count(),
        warnings: warned
            .iter()
            .map(|w| format!("{}: {}", w.kind, w.message))
            .collect(),
        versus: None,
        not_compared: String::new(),
    }
}
