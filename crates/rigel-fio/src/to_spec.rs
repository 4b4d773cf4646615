//! The jobs' classes as one spec, built as data (`rigel_trace::spec_doc`): a target per distinct
//! file, a class per job, the run values every job agrees on, and a matrix that runs one group
//! (all jobs together, one point) or each job alone (a stonewall before each: one point per job).
//! Every value's trailing comment names the fio options it came from; the spec is loaded back and
//! compiled as `rigel check` would before anyone sees it.

use crate::class::Class;
use crate::error::{FioError, Loc};
use crate::value::Value;
use rigel_trace::spec_doc::{self, Expected, SpecDoc};

/// Most worker threads a spec may ask for.
const MAX_WORKERS: u64 = 256;

/// `classes` as a spec named `name`; `title` is the command line for the description.
pub fn build(name: &str, title: &str, classes: &[Class], at: &Loc) -> Result<String, FioError> {
    let mut d = SpecDoc::default();
    d.comment(&format!("rigel's equivalent of `fio {title}`."));
    d.comment(
        "Each value's comment names the fio options it came from (docs/fio.md has the rules).",
    );
    d.table(&["spec"]);
    d.set("name", name, None);
    d.set("description", format!("fio {title}"), None);

    // Targets: each distinct file once, in the order the jobs name them.
    let mut targets: Vec<(&str, Option<u64>, bool)> = Vec::new();
    for c in classes {
        for f in &c.files {
            match targets.iter_mut().find(|t| t.0 == f.path) {
                Some(t) => {
                    t.2 |= c.writes;
                    t.1 = t.1.max(f.size);
                }
                None => targets.push((&f.path, f.size, c.writes)),
            }
        }
    }
    let index = |path: &str| targets.iter().position(|t| t.0 == path).unwrap_or(0);
    for (i, (path, size, written)) in targets.iter().enumerate() {
        d.target();
        d.set("name", format!("f{i}"), None);
        d.set("path", *path, Some("filename / directory"));
        if let Some(s) = size {
            d.set(
                "size",
                crate::value::size_text(*s),
                Some("size: created at this size when missing, as fio does"),
            );
        }
        if *written {
            d.set(
                "destructive",
                true,
                Some("a job writes it (the command line must consent too)"),
            );
        }
    }

    // Run values: one per spec, so every job must agree.
    d.table(&["run"]);
    for key in ["duration", "warmup", "direct", "seed"] {
        if let Some(v) = agreed(classes, key)? {
            let value: toml_edit::Value = match v.text.as_str() {
                "true" => true.into(),
                "false" => false.into(),
                t if key == "seed" => t.parse::<i64>().map_or_else(|_| t.into(), Into::into),
                t => t.into(),
            };
            d.set(key, value, Some(&v.from));
        }
    }
    let groups = classes.iter().map(|c| c.group).max().unwrap_or(0) + 1;
    let workers = (0..groups)
        .map(|g| {
            classes
                .iter()
                .filter(|c| c.group == g)
                .map(|c| c.numjobs)
                .sum::<u64>()
        })
        .max()
        .unwrap_or(1)
        .clamp(1, MAX_WORKERS);
    d.set(
        "workers",
        workers as i64,
        Some("numjobs: fio's processes, summed over the jobs that run together"),
    );

    for c in classes {
        d.table(&["class", &c.name]);
        for (key, v) in &c.keys {
            d.set(key, v.text.as_str(), Some(&v.from));
        }
        if let Some(r) = &c.region {
            d.set("region", r.text.as_str(), Some(&r.from));
        }
        let mine: Vec<String> = c
            .files
            .iter()
            .map(|f| format!("f{}", index(&f.path)))
            .collect();
        if mine.len() != targets.len()
            || mine.iter().enumerate().any(|(i, t)| *t != format!("f{i}"))
        {
            let mut arr = toml_edit::Array::new();
            mine.iter().for_each(|t| arr.push(t.as_str()));
            d.set("targets", arr, Some("filename"));
        }
    }

    d.table(&["matrix"]);
    let shape = if groups == 1 {
        "point"
    } else if groups == classes.len() {
        "basic"
    } else {
        // A group of several jobs after a stonewall: no matrix shape runs that sequence.
        let together = classes
            .windows(2)
            .find(|w| w[0].group == w[1].group)
            .map_or(at.clone(), |w| w[1].at.clone());
        return Err(FioError::Syntax {
            at: together,
            why: "rigel runs a file's jobs either all together (no stonewall) or each alone (a stonewall before each job): split the file, or move the stonewalls".to_owned(),
        });
    };
    let why = if shape == "basic" {
        "stonewall: each job alone, one after another"
    } else {
        "no stonewall: the jobs run together"
    };
    d.set("shape", shape, Some(why));
    for c in classes {
        d.set(&c.name, c.load.text.as_str(), Some(&c.load.from));
    }
    let text = d.finish();
    let expected: Vec<Expected> = targets
        .iter()
        .map(|(p, _, w)| Expected {
            path: (*p).to_owned(),
            destructive: *w,
        })
        .collect();
    spec_doc::check(name, &text, &expected).map_err(|e| FioError::Generated(e.to_string()))?;
    Ok(text)
}

/// The one value of run-wide `key` all jobs give; jobs that leave it unset take the others'.
fn agreed(classes: &[Class], key: &str) -> Result<Option<Value>, FioError> {
    let mut found: Option<(&Value, &str)> = None;
    for c in classes {
        let Some((_, v)) = c.run.iter().find(|(k, _)| *k == key) else {
            continue;
        };
        match found {
            None => found = Some((v, &c.name)),
            Some((f, first)) if f.text != v.text => {
                return Err(FioError::Syntax {
                    at: c.at.clone(),
                    why: format!(
                        "rigel gives every job of a run one {key}: job {first} has {} ({}), this job {} ({})",
                        f.text, f.from, v.text, v.from
                    ),
                });
            }
            Some(_) => {}
        }
    }
    Ok(found.map(|(v, _)| v.clone()))
}
