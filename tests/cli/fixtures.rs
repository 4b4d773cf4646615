//! Regenerates the report fixtures from short real runs of the specs in `tests/fixtures/specs/`:
//! `RIGEL_WRITE_FIXTURES=1 cargo test --test cli fixtures` writes
//! `tests/fixtures/results-real-<spec>.json`, which the report snapshot test renders.

use super::builder::{repo, rigel};

#[test]
fn write_real_run_fixtures() {
    if std::env::var_os("RIGEL_WRITE_FIXTURES").is_none() {
        eprintln!("skipped: set RIGEL_WRITE_FIXTURES=1 to rerun the fixture specs");
        return;
    }
    let specs = repo().join("tests/fixtures/specs");
    let mut names: Vec<_> = std::fs::read_dir(&specs)
        .expect("tests/fixtures/specs")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    names.sort();
    for spec in names {
        let tmp = tempfile::tempdir_in("/dev/shm").expect("a tmpfs temp dir");
        let out = tmp.path().join("run");
        rigel()
            .arg("run")
            .arg(&spec)
            .arg("--set")
            .arg(format!("dir={}", tmp.path().display()))
            .arg("--out")
            .arg(&out)
            .run();
        let stem = spec
            .file_stem()
            .expect("a name")
            .to_string_lossy()
            .into_owned();
        let text = std::fs::read_to_string(out.join("results.json")).expect("results.json");
        let dest = repo().join(format!("tests/fixtures/results-real-{stem}.json"));
        std::fs::write(&dest, text).expect("fixture written");
    }
}
