//! Named specs: `acme/oltp-base` is looked up in the folders of `RIGEL_PATH` (in order), then among
//! the specs built into the binary (`specs/`), so teams share specs by name across repositories.
//! The shipped specs live in this crate's `specs/` (so it builds from its own folder); the
//! repository's `specs` is a link to it, the path README and the examples name.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

/// The environment variable listing spec folders, `:`-separated, searched in order.
pub const ENV: &str = "RIGEL_PATH";

/// The built-in default: what `rigel run` runs without a spec.
pub const QUICK: &str = include_str!("../specs/quick.toml");

/// The specs shipped in this crate's `specs/`, embedded: name (path under `specs/` without `.toml`) and text.
/// A test checks this list against the folder, so a new spec cannot be left out.
pub const BUILTIN: &[(&str, &str)] = &[
    ("backup-stream", include_str!("../specs/backup-stream.toml")),
    ("base", include_str!("../specs/base.toml")),
    ("bs-qd-sweep", include_str!("../specs/bs-qd-sweep.toml")),
    ("dss-scan", include_str!("../specs/dss-scan.toml")),
    (
        "latency-search",
        include_str!("../specs/latency-search.toml"),
    ),
    ("log-writer", include_str!("../specs/log-writer.toml")),
    ("oltp-70-30", include_str!("../specs/oltp-70-30.toml")),
    ("oltp-skewed", include_str!("../specs/oltp-skewed.toml")),
    ("oracle/oltp", include_str!("../specs/oracle/oltp.toml")),
    ("orion/dss", include_str!("../specs/orion/dss.toml")),
    ("orion/normal", include_str!("../specs/orion/normal.toml")),
    ("orion/oltp", include_str!("../specs/orion/oltp.toml")),
    ("orion/simple", include_str!("../specs/orion/simple.toml")),
    ("postgres-wal", include_str!("../specs/postgres-wal.toml")),
    (
        "preconditioned-steady",
        include_str!("../specs/preconditioned-steady.toml"),
    ),
    ("quick", QUICK),
    ("sla-rate", include_str!("../specs/sla-rate.toml")),
];

/// The text of a built-in spec.
pub fn builtin(name: &str) -> Option<&'static str> {
    BUILTIN.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

/// Where a spec's text comes from.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Origin {
    File(PathBuf),
    /// A built-in spec, by name.
    Builtin(&'static str),
}

impl Origin {
    /// As diagnostics and the resolved spec name it.
    pub fn display(&self) -> String {
        match self {
            Origin::File(p) => p.display().to_string(),
            Origin::Builtin(n) => format!("builtin:{n}"),
        }
    }
}

/// `acme/oltp-base` is a name; `base.toml`, `./x`, `/abs/x` and anything with `..` are paths.
pub fn is_name(s: &str) -> bool {
    !s.is_empty()
        && !s.ends_with(".toml")
        && !s.starts_with('/')
        && !s.starts_with('~')
        && s.split('/')
            .all(|part| !part.is_empty() && part != "." && part != "..")
}

/// A name that was found nowhere, with every place looked at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotFound {
    pub name: String,
    pub searched: Vec<String>,
}

impl NotFound {
    pub fn message(&self) -> String {
        format!("no spec named `{}`", self.name)
    }
    pub fn hint(&self) -> String {
        format!(
            "searched: {}; `rigel specs` lists the specs found",
            self.searched.join(", ")
        )
    }
}

/// One spec `rigel specs` lists.
#[derive(Clone, Debug)]
pub struct Entry {
    pub name: String,
    pub origin: Origin,
    /// An earlier folder (or a folder over the built-ins) has a spec of the same name.
    pub shadowed: bool,
}

impl Entry {
    /// The spec's text, read as any spec is (a regular file of bounded size).
    pub fn text(&self) -> Result<String, String> {
        match &self.origin {
            Origin::File(p) => super::source::read_spec_file(p),
            Origin::Builtin(n) => Ok(builtin(n).unwrap_or_default().to_owned()),
        }
    }

    /// Its own `[spec] description` (not inherited), or empty.
    pub fn description(&self) -> String {
        let table: Option<toml::Table> = self.text().ok().and_then(|t| toml::from_str(&t).ok());
        table
            .as_ref()
            .and_then(|t| t.get("spec"))
            .and_then(|s| s.get("description"))
            .and_then(|d| d.as_str())
            .unwrap_or_default()
            .to_owned()
    }
}

/// The folders of `RIGEL_PATH`, then the built-in specs.
#[derive(Clone, Debug, Default)]
pub struct Library {
    pub dirs: Vec<PathBuf>,
}

impl Library {
    pub fn from_env() -> Library {
        let dirs = std::env::var_os(ENV)
            .map(|v| {
                std::env::split_paths(&v)
                    .filter(|p| !p.as_os_str().is_empty())
                    .collect()
            })
            .unwrap_or_default();
        Library { dirs }
    }

    /// The first `DIR/NAME.toml` of `RIGEL_PATH`, else the built-in spec of that name.
    pub fn find(&self, name: &str) -> Result<Origin, NotFound> {
        let mut searched = Vec::new();
        if is_name(name) {
            for dir in &self.dirs {
                let path = dir.join(format!("{name}.toml"));
                if path.is_file() {
                    return Ok(Origin::File(path));
                }
                searched.push(path.display().to_string());
            }
            if let Some((n, _)) = BUILTIN.iter().find(|(n, _)| *n == name) {
                return Ok(Origin::Builtin(n));
            }
        }
        if self.dirs.is_empty() {
            searched.push(format!("{ENV} (not set)"));
        }
        searched.push("the built-in specs".to_owned());
        Err(NotFound {
            name: name.to_owned(),
            searched,
        })
    }

    /// Every spec found, folder by folder, then the built-ins; a name found earlier shadows later ones.
    pub fn list(&self) -> Vec<Entry> {
        let mut seen = std::collections::HashSet::new();
        let mut out = Vec::new();
        for dir in &self.dirs {
            let mut found = BTreeMap::new();
            collect(dir, dir, 0, &mut found);
            for (name, path) in found {
                let shadowed = !seen.insert(name.clone());
                out.push(Entry {
                    name,
                    origin: Origin::File(path),
                    shadowed,
                });
            }
        }
        for (name, _) in BUILTIN {
            let shadowed = !seen.insert((*name).to_owned());
            out.push(Entry {
                name: (*name).to_owned(),
                origin: Origin::Builtin(name),
                shadowed,
            });
        }
        out
    }
}

/// `*.toml` files under `dir` (a few levels deep: names are short), by name.
fn collect(root: &Path, dir: &Path, depth: usize, out: &mut BTreeMap<String, PathBuf>) {
    const MAX_DEPTH: usize = 4;
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() && depth < MAX_DEPTH {
            collect(root, &path, depth + 1, out);
        } else if kind.is_file() && path.extension().is_some_and(|e| e == "toml") {
            let Ok(rel) = path
                .with_extension("")
                .strip_prefix(root)
                .map(Path::to_path_buf)
            else {
                continue;
            };
            let name: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            out.insert(name.join("/"), path);
        }
    }
}

/// A relative `extends` written in a built-in spec: the built-in it names (`base.toml` from
/// `orion/simple` is `orion/base`).
pub fn builtin_relative(from: &str, rel: &str) -> Option<&'static str> {
    let dir = Path::new(from).parent().unwrap_or(Path::new(""));
    let mut parts: Vec<String> = Vec::new();
    for c in dir.join(rel.strip_suffix(".toml")?).components() {
        match c {
            Component::Normal(p) => parts.push(p.to_string_lossy().into_owned()),
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::CurDir => {}
            _ => return None,
        }
    }
    let name = parts.join("/");
    BUILTIN.iter().find(|(n, _)| *n == name).map(|(n, _)| *n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_file_in_specs_is_built_in() {
        let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/specs"));
        let mut found = BTreeMap::new();
        collect(root, root, 0, &mut found);
        let names: Vec<&str> = found.keys().map(String::as_str).collect();
        let builtins: Vec<&str> = BUILTIN.iter().map(|(n, _)| *n).collect();
        assert_eq!(names, builtins, "specs/ and BUILTIN differ");
        for (name, path) in &found {
            let text = std::fs::read_to_string(path).unwrap();
            assert_eq!(builtin(name), Some(text.as_str()), "{name}");
        }
    }

    #[test]
    fn names_and_paths() {
        assert!(is_name("orion/simple"));
        assert!(is_name("acme/oltp-base"));
        assert!(!is_name("base.toml"));
        assert!(!is_name("./x"));
        assert!(!is_name("../x"));
        assert!(!is_name("a/../b"));
        assert!(!is_name("/etc/x"));
        assert!(!is_name(""));
    }

    #[test]
    fn rigel_path_comes_before_the_builtins_and_a_miss_lists_the_places() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("orion")).unwrap();
        std::fs::write(dir.path().join("orion/simple.toml"), "").unwrap();
        let lib = Library {
            dirs: vec![dir.path().to_path_buf()],
        };
        assert_eq!(
            lib.find("orion/simple").unwrap(),
            Origin::File(dir.path().join("orion/simple.toml"))
        );
        assert_eq!(lib.find("orion/dss").unwrap(), Origin::Builtin("orion/dss"));
        let miss = lib.find("acme/nosuch").unwrap_err();
        assert_eq!(
            miss.searched,
            [
                dir.path().join("acme/nosuch.toml").display().to_string(),
                "the built-in specs".to_owned()
            ]
        );
        let listed = lib.list();
        let simple: Vec<bool> = listed
            .iter()
            .filter(|e| e.name == "orion/simple")
            .map(|e| e.shadowed)
            .collect();
        assert_eq!(simple, [false, true]);
    }

    #[test]
    fn relative_extends_inside_the_builtins() {
        assert_eq!(builtin_relative("oltp-70-30", "base.toml"), Some("base"));
        assert_eq!(
            builtin_relative("orion/simple", "../base.toml"),
            Some("base")
        );
        assert_eq!(builtin_relative("orion/simple", "base.toml"), None);
        assert_eq!(builtin_relative("quick", "../../etc/passwd.toml"), None);
    }
}
