//! `rigel compare BASE NEW`: two runs (or two sets of repeated runs) side by side, regressions
//! flagged; exit 3 when any, 4 with `--fail-inconclusive` when some line is too noisy to judge.

use super::args::{CompareArgs, CompareFormat};
use super::exit;
use rigel_expr::{LatencyStat, Stat};
use rigel_judge::compare::{self, CompareOptions};
use rigel_results::ResultsDoc;
use std::path::Path;

pub fn run(a: &CompareArgs) -> i32 {
    let stats = match stats(&a.metrics) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("rigel compare: {e}");
            return exit::BAD_SPEC;
        }
    };
    let (base, new) = match (side(&a.base, &a.more_base), side(&a.new, &a.more_new)) {
        (Ok(b), Ok(n)) => (b, n),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("rigel compare: {e}");
            return exit::RUNTIME;
        }
    };
    let mut opts = CompareOptions {
        stats,
        drift_floor_percent: a.drift_floor,
        ..CompareOptions::default()
    };
    for (metric, percent) in &a.threshold {
        match metric {
            None => opts.threshold_percent = *percent,
            Some(name) => match Stat::from_name(name) {
                Some(stat) => opts.thresholds.push((stat.name(), *percent)),
                None => {
                    eprintln!("rigel compare: unknown metric `{name}` in --threshold");
                    return exit::BAD_SPEC;
                }
            },
        }
    }
    let mut c = compare::compare_runs(&base, &new, &opts);
    c.base.path = a.base.display().to_string();
    c.new.path = a.new.display().to_string();
    if let Some(path) = &a.chart {
        if let Err(e) = std::fs::write(path, rigel_report::compare_overlay(&base[0], &new[0])) {
            eprintln!("rigel compare: cannot write `{}`: {e}", path.display());
            return exit::RUNTIME;
        }
    }
    let out = match a.format {
        CompareFormat::Text => compare::text(&c),
        CompareFormat::Markdown => match &a.chart {
            Some(path) => format!(
                "{}\n![BASE and NEW overlaid]({})\n",
                compare::markdown(&c),
                path.display()
            ),
            None => compare::markdown(&c),
        },
        CompareFormat::Html => {
            compare::html(&c, Some(&rigel_report::compare_overlay(&base[0], &new[0])))
        }
        CompareFormat::Json => match serde_json::to_string_pretty(&c) {
            Ok(s) => s + "\n",
            Err(e) => {
                eprintln!("rigel compare: {e}");
                return exit::RUNTIME;
            }
        },
    };
    // A closed pipe (`| head`) is not an error worth a panic.
    let _ = std::io::Write::write_all(&mut std::io::stdout(), out.as_bytes());
    if a.format != CompareFormat::Text {
        c.warnings.iter().for_each(|w| eprintln!("warning: {w}"));
    }
    // Two runs with nothing in common: a mistaken pair, not a pass.
    if c.nothing_in_common {
        eprintln!("rigel compare: BASE and NEW have nothing in common: nothing was compared");
        return exit::BAD_SPEC;
    }
    if c.regressions > 0 || c.answer_regressions > 0 {
        exit::REQUIREMENTS
    } else if a.fail_inconclusive && (c.inconclusive > 0 || c.answer_inconclusive > 0) {
        exit::INCONCLUSIVE
    } else {
        exit::OK
    }
}

/// One side's runs: `first` (a run, a results.json, or a folder of repeats) and `more`.
fn side(first: &Path, more: &[std::path::PathBuf]) -> Result<Vec<ResultsDoc>, String> {
    let mut docs = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for path in std::iter::once(first).chain(more.iter().map(|p| p.as_path())) {
        // One run given twice is not two runs: it would narrow the noise band to nothing.
        let id = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        if !seen.insert(id) {
            return Err(format!(
                "`{}` is given twice on one side: each run counts once (repeats are separate runs)",
                path.display()
            ));
        }
        let repeats = rigel_runner::repeats(path);
        if repeats.is_empty() || path.join(rigel_record::RUN_FILE).exists() {
            docs.push(load(path)?);
        } else {
            for r in &repeats {
                docs.push(load(r)?);
            }
        }
    }
    Ok(docs)
}

/// A run folder (finished or not), or a `results.json` file.
fn load(path: &Path) -> Result<ResultsDoc, String> {
    if std::fs::symlink_metadata(path).is_err() {
        return Err(format!(
            "`{}` does not exist (expected a run folder or a results.json file)",
            path.display()
        ));
    }
    let doc = if path.is_file() {
        rigel_record::load_results_file(path)
    } else {
        rigel_record::load(path).map(|run| run.doc)
    };
    doc.map_err(|e| e.to_string())
}

fn stats(names: &[String]) -> Result<Vec<Stat>, String> {
    if names.iter().any(|n| n == "all") {
        let mut all = vec![Stat::Iops, Stat::Mbps];
        all.extend(LatencyStat::ALL.map(Stat::Latency));
        return Ok(all);
    }
    names
        .iter()
        .map(|n| {
            Stat::from_name(n.trim()).ok_or_else(|| {
                format!(
                    "unknown metric `{n}` in --metrics: use iops, mbps, min, mean, stdev, p50, p90, p99, p99.9, p99.99, max, service.STAT (service.p99) or all"
                )
            })
        })
        .collect()
}
