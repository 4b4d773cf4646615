//! fio's job semantics before translation: each job inherits the `[global]` sections above it
//! (a later `[global]` changes only the jobs after it), its own settings win, `--set` overrides
//! win over both, and `stonewall` starts a new group that runs after the previous one ends. Every
//! setting is checked against the option table here, so an option rigel does not do is refused at
//! the line that wrote it, whether or not the job would have used it.

use crate::error::{FioError, Loc};
use crate::jobfile::{Section, Setting};
use crate::options::{self, Kind};

/// A job with its effective settings (inherited first, its own after: the last one wins).
#[derive(Clone, Debug)]
pub struct Job {
    pub name: String,
    pub at: Loc,
    /// The run group: jobs of one group run together; a group starts after the previous ends.
    pub group: usize,
    pub settings: Vec<Setting>,
}

impl Job {
    /// The setting that decides `name` (the canonical option name), if any.
    pub fn get(&self, name: &str) -> Option<&Setting> {
        self.settings.iter().rev().find(|s| s.name == name)
    }

    /// True when `name` is set to a true boolean (a bare `name` is true).
    pub fn flag(&self, name: &str) -> Result<bool, FioError> {
        match self.get(name) {
            None => Ok(false),
            Some(s) => crate::units::boolean(s.value.as_deref().unwrap_or("1"))
                .map_err(|why| bad_value(s, &why)),
        }
    }
}

/// `option=value: why` at the setting's line.
pub fn bad_value(s: &Setting, why: &str) -> FioError {
    FioError::BadValue {
        at: s.at.clone(),
        option: s.name.clone(),
        value: s.value.clone().unwrap_or_default(),
        why: why.to_owned(),
    }
}

/// Checks a setting's option against the table; returns it under its canonical name.
fn checked(s: &Setting) -> Result<Setting, FioError> {
    let name = options::canonical(&s.name);
    match options::kind(name) {
        Some(Kind::Translated | Kind::Ignored(_)) => Ok(Setting {
            name: name.to_owned(),
            ..s.clone()
        }),
        Some(Kind::Refused(hint)) => Err(FioError::Refused {
            at: s.at.clone(),
            option: s.name.clone(),
            hint: hint.to_owned(),
        }),
        None => Err(FioError::Unknown {
            at: s.at.clone(),
            option: s.name.clone(),
            hint: rigel_expr::suggest::did_you_mean(&s.name, options::all_names()).or_else(
                || {
                    Some(
                        "rigel translates only the options docs/fio.md lists: remove it, or run this job under fio"
                            .to_owned(),
                    )
                },
            ),
        }),
    }
}

/// The jobs of `sections` in order, `overrides` (`--set option=value`) applied to each.
pub fn resolve(sections: &[Section], overrides: &[Setting]) -> Result<Vec<Job>, FioError> {
    let overrides: Vec<Setting> = overrides.iter().map(checked).collect::<Result<_, _>>()?;
    let mut global: Vec<Setting> = Vec::new();
    let mut jobs: Vec<Job> = Vec::new();
    let mut group = 0;
    for section in sections {
        let own: Vec<Setting> = section
            .settings
            .iter()
            .map(checked)
            .collect::<Result<_, _>>()?;
        if section.is_global() {
            global.extend(own);
            continue;
        }
        let mut settings = global.clone();
        settings.extend(own);
        settings.extend(overrides.iter().cloned());
        let mut job = Job {
            name: section.name.clone(),
            at: section.at.clone(),
            group,
            settings,
        };
        if !jobs.is_empty() && job.flag("stonewall")? {
            group += 1;
            job.group = group;
        }
        jobs.push(job);
    }
    if jobs.is_empty() {
        return Err(FioError::NoJobs);
    }
    Ok(jobs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn section(name: &str, settings: &[(&str, &str)], line: usize) -> Section {
        let at = |l| Loc {
            file: "t.fio".into(),
            line: l,
        };
        Section {
            name: name.into(),
            at: at(line),
            settings: settings
                .iter()
                .enumerate()
                .map(|(i, (n, v))| Setting {
                    name: (*n).into(),
                    value: (!v.is_empty()).then(|| (*v).into()),
                    at: at(line + 1 + i),
                })
                .collect(),
        }
    }

    #[test]
    fn globals_inherit_in_order_and_stonewall_groups() {
        let s = vec![
            section("global", &[("bs", "4k")], 1),
            section("a", &[("rw", "read")], 3),
            section("global", &[("bs", "8k")], 5),
            section("b", &[("stonewall", ""), ("blocksize", "16k")], 7),
            section("c", &[], 10),
        ];
        let jobs = resolve(&s, &[]).expect("resolves");
        assert_eq!(
            jobs[0].get("bs").and_then(|s| s.value.as_deref()),
            Some("4k")
        );
        assert_eq!(
            jobs[1].get("bs").and_then(|s| s.value.as_deref()),
            Some("16k")
        );
        assert_eq!(
            jobs[2].get("bs").and_then(|s| s.value.as_deref()),
            Some("8k")
        );
        assert_eq!(
            jobs.iter().map(|j| j.group).collect::<Vec<_>>(),
            vec![0, 1, 1]
        );
    }

    #[test]
    fn refused_and_unknown_options_name_their_line() {
        let s = vec![section("a", &[("rw", "read"), ("startdelay", "5")], 3)];
        let e = resolve(&s, &[]).expect_err("refused").to_string();
        assert!(e.starts_with("t.fio:5: fio option `startdelay`"), "{e}");
        let s = vec![section("a", &[("iodpeth", "5")], 3)];
        let e = resolve(&s, &[]).expect_err("unknown").to_string();
        assert!(e.contains("t.fio:4") && e.contains("`iodepth`"), "{e}");
    }
}
