//! fio's job-file syntax: `[section]` headers, `option=value` or bare `option` lines, whole-line
//! `;`/`#` comments, `include FILE`, `${ENV}` and fio's `$ncpus`/`$pagesize` keywords; and the same
//! settings from fio's command line (`--name=NAME` starts a job, options before it are global).
//! Job files are untrusted input: read through `rigel-fs` (no link, a regular file, a limit).

use crate::error::{FioError, Loc};
use std::path::{Path, PathBuf};

/// The most a job file (or an include) may hold.
pub const JOB_FILE_BYTES: u64 = 16 << 20;
/// `include` nesting, as deep as any real job tree and short of a loop's recursion.
const MAX_INCLUDE_DEPTH: usize = 8;

/// One `option=value` (value `None` for a bare `option`), where it was written.
#[derive(Clone, Debug, PartialEq)]
pub struct Setting {
    pub name: String,
    pub value: Option<String>,
    pub at: Loc,
}

/// A `[section]`: `global`, or a job.
#[derive(Clone, Debug, PartialEq)]
pub struct Section {
    pub name: String,
    pub at: Loc,
    pub settings: Vec<Setting>,
}

impl Section {
    pub fn is_global(&self) -> bool {
        self.name == "global"
    }
}

/// The values of fio's own keywords and the environment, for expansion.
pub struct Env<'a> {
    pub ncpus: u64,
    pub var: &'a dyn Fn(&str) -> Option<String>,
}

/// Reads the job file `path` and its includes.
pub fn read(path: &Path, env: &Env) -> Result<Vec<Section>, FioError> {
    let mut sections = Vec::new();
    read_into(path, env, 0, &mut sections)?;
    Ok(sections)
}

fn read_into(
    path: &Path,
    env: &Env,
    depth: usize,
    sections: &mut Vec<Section>,
) -> Result<(), FioError> {
    let text = rigel_fs::read_no_follow(path, JOB_FILE_BYTES).map_err(|source| FioError::Read {
        path: path.display().to_string(),
        source,
    })?;
    let file = path.display().to_string();
    for (i, raw) in text.lines().enumerate() {
        let at = Loc {
            file: file.clone(),
            line: i + 1,
        };
        let line = strip_comment(raw).trim();
        if line.is_empty() || line.starts_with(';') || line.starts_with('#') {
            continue;
        }
        if let Some(rest) = line.strip_prefix("include ") {
            if depth >= MAX_INCLUDE_DEPTH {
                return Err(FioError::Syntax {
                    at,
                    why: format!(
                        "includes nest more than {MAX_INCLUDE_DEPTH} deep (does a file include itself?)"
                    ),
                });
            }
            let name = expand(rest.trim(), env, &at, "include")?;
            let target = relative_to(path, &name);
            read_into(&target, env, depth + 1, sections)?;
            continue;
        }
        if let Some(name) = line.strip_prefix('[') {
            let Some(name) = name.strip_suffix(']') else {
                return Err(FioError::Syntax {
                    at,
                    why: format!("`{line}`: a section header is `[name]`"),
                });
            };
            sections.push(Section {
                name: name.trim().to_owned(),
                at,
                settings: Vec::new(),
            });
            continue;
        }
        let Some(section) = sections.last_mut() else {
            return Err(FioError::Syntax {
                at,
                why: format!(
                    "`{line}` comes before any section: options go under [global] or a job's [name]"
                ),
            });
        };
        section.settings.push(setting(line, env, at)?);
    }
    Ok(())
}

/// A line without its trailing comment: `;` or `#` after a blank (fio's own rule: a `#` inside a
/// value, as in a path, stays).
fn strip_comment(line: &str) -> &str {
    let mut prev_blank = true;
    for (i, ch) in line.char_indices() {
        if (ch == ';' || ch == '#') && prev_blank {
            return &line[..i];
        }
        prev_blank = ch.is_whitespace();
    }
    line
}

/// An include names a file relative to the including file's folder (fio 3.x), unless absolute.
fn relative_to(including: &Path, name: &str) -> PathBuf {
    let p = Path::new(name);
    match including.parent() {
        Some(dir) if p.is_relative() => dir.join(p),
        _ => p.to_path_buf(),
    }
}

/// `option=value`, `option = value` or a bare `option`; the value expanded.
fn setting(text: &str, env: &Env, at: Loc) -> Result<Setting, FioError> {
    let (name, value) = match text.split_once('=') {
        Some((n, v)) => (n.trim(), Some(v.trim())),
        None => (text.trim(), None),
    };
    let value = match value {
        Some(v) => Some(expand(v, env, &at, name)?),
        None => None,
    };
    Ok(Setting {
        name: name.to_owned(),
        value,
        at,
    })
}

/// `${VAR}` from the environment, `$ncpus` and `$pagesize`; `$mb_memory` and fio's arithmetic are
/// refused (their result depends on the host fio would have run on: write the number).
fn expand(value: &str, env: &Env, at: &Loc, option: &str) -> Result<String, FioError> {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(i) = rest.find('$') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        if let Some(inner) = after.strip_prefix('{') {
            let Some(end) = inner.find('}') else {
                return Err(bad(at, option, value, "`${` without its `}`"));
            };
            let var = &inner[..end];
            let Some(v) = (env.var)(var) else {
                return Err(bad(
                    at,
                    option,
                    value,
                    &format!(
                        "the environment variable {var} is not set: export it, or write the value"
                    ),
                ));
            };
            out.push_str(&v);
            rest = &inner[end + 1..];
            continue;
        }
        let word_len = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(after.len());
        let word = &after[..word_len];
        match word {
            "ncpus" => out.push_str(&env.ncpus.to_string()),
            "pagesize" => out.push_str("4096"),
            _ => {
                return Err(bad(
                    at,
                    option,
                    value,
                    &format!(
                        "`${word}` is not expanded by rigel (it knows ${{ENV}}, $ncpus and $pagesize): write the value"
                    ),
                ));
            }
        }
        rest = &after[word_len..];
    }
    out.push_str(rest);
    if out.starts_with('(') && out.ends_with(')') {
        return Err(bad(
            at,
            option,
            value,
            "fio's arithmetic is not evaluated by rigel: write the result",
        ));
    }
    Ok(out)
}

fn bad(at: &Loc, option: &str, value: &str, why: &str) -> FioError {
    FioError::BadValue {
        at: at.clone(),
        option: option.to_owned(),
        value: value.to_owned(),
        why: why.to_owned(),
    }
}

/// fio's own command-line options (`--name=r --rw=randread …`) as sections: those before the
/// first `--name` form a `global` section, each `--name` starts a job.
pub fn command_line(args: &[String], env: &Env) -> Result<Vec<Section>, FioError> {
    let mut sections = vec![Section {
        name: "global".to_owned(),
        at: Loc::command_line(),
        settings: Vec::new(),
    }];
    for a in args {
        let at = Loc::command_line();
        let Some(text) = a.strip_prefix("--") else {
            return Err(FioError::Syntax {
                at,
                why: format!("`{a}` is not an option: fio's options are `--option=value`"),
            });
        };
        let s = setting(text, env, at.clone())?;
        if s.name == "name" {
            let Some(name) = s.value.clone() else {
                return Err(FioError::Syntax {
                    at,
                    why: "--name needs a value: --name=JOB".to_owned(),
                });
            };
            sections.push(Section {
                name,
                at,
                settings: vec![s],
            });
        } else if let Some(last) = sections.last_mut() {
            last.settings.push(s);
        }
    }
    if sections.len() == 1 && sections[0].settings.is_empty() {
        sections.clear();
    }
    Ok(sections)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env() -> Env<'static> {
        Env {
            ncpus: 4,
            var: &|v| (v == "DEV").then(|| "/dev/loop9".to_owned()),
        }
    }

    #[test]
    fn sections_settings_and_expansion() {
        let dir = std::env::temp_dir().join(format!("rigel-fio-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        std::fs::write(dir.join("inc.fio"), "[inc]\nrw=read\n").expect("write");
        let job = dir.join("a.fio");
        std::fs::write(
            &job,
            "; comment\n[global]\nfilename=${DEV}\nnumjobs=$ncpus\t; per CPU\n\n[r]\ntime_based\ninclude inc.fio\n",
        )
        .expect("write");
        let s = read(&job, &env()).expect("parses");
        std::fs::remove_dir_all(&dir).expect("cleanup");
        assert_eq!(s.len(), 3);
        assert_eq!(s[0].settings[0].value.as_deref(), Some("/dev/loop9"));
        assert_eq!(s[0].settings[1].value.as_deref(), Some("4"));
        assert_eq!(s[1].settings[0].value, None);
        assert_eq!(s[1].settings[0].at.line, 7);
        assert_eq!(s[2].name, "inc");
        assert_eq!(s[2].settings[0].at.line, 2);
    }

    #[test]
    fn unset_variables_and_arithmetic_are_errors() {
        let at = Loc::command_line();
        assert!(expand("${NOPE}", &env(), &at, "filename").is_err());
        assert!(expand("$mb_memory", &env(), &at, "size").is_err());
        assert!(expand("(4*1024)", &env(), &at, "bs").is_err());
    }

    #[test]
    fn command_line_jobs() {
        let args: Vec<String> = [
            "--direct=1",
            "--name=a",
            "--rw=read",
            "--name=b",
            "--time_based",
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
        let s = command_line(&args, &env()).expect("parses");
        assert_eq!(s.len(), 3);
        assert!(s[0].is_global());
        assert_eq!(s[1].settings.len(), 2);
        assert_eq!(s[2].name, "b");
    }
}
