//! Repeated runs of one spec (`rigel run --repeat N`): run `i` of N goes to `DIR/run-i`, each a
//! whole run folder of its own, so `rigel compare DIR OTHER` reads the repeats as one side and
//! `rigel report DIR/run-2` reads one of them.

use std::path::{Path, PathBuf};

/// The folder of repeat `i` (1-based) inside `dir`.
pub fn repeat_dir(dir: &Path, i: usize) -> PathBuf {
    dir.join(format!("run-{i}"))
}

/// The repeats inside `dir`, in their order (`run-1`, `run-2`, … `run-10`); none when `dir` holds
/// none (a run folder itself, or something else). Unreadable entries are skipped: a folder that
/// cannot be listed holds no repeats the caller could read either.
pub fn repeats(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<(usize, PathBuf)> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| {
            let name = e.file_name();
            let i = name.to_str()?.strip_prefix("run-")?.parse().ok()?;
            Some((i, e.path()))
        })
        .collect();
    found.sort();
    found.into_iter().map(|(_, p)| p).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeats_are_listed_in_numeric_order_and_nothing_else_counts() {
        let tmp = tempfile::tempdir().expect("temp dir");
        for i in [1, 2, 10] {
            std::fs::create_dir(repeat_dir(tmp.path(), i)).expect("made");
        }
        std::fs::create_dir(tmp.path().join("run-x")).expect("made");
        std::fs::write(tmp.path().join("run-3"), "a file").expect("written");
        let names: Vec<String> = repeats(tmp.path())
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["run-1", "run-2", "run-10"]);
        assert!(repeats(&tmp.path().join("missing")).is_empty());
    }
}
