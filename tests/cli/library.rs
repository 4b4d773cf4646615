//! Shared spec libraries: `RIGEL_PATH` folders and the built-in specs, addressed by name on the
//! command line and in `extends`; `rigel specs`; a spec read from standard input.

use super::builder::{repo, rigel};
use super::scenario::Scenario;
use std::path::Path;

/// Two team libraries: `libA/team/base` (a partial base with a small test file) and
/// `libB/team/spec`, which extends it by name across the libraries.
fn libraries(root: &Path) -> String {
    let a = root.join("libA/team");
    let b = root.join("libB/team");
    std::fs::create_dir_all(&a).unwrap();
    std::fs::create_dir_all(&b).unwrap();
    std::fs::write(
        a.join("base.toml"),
        format!(
            "[spec]\ndescription = \"team base\"\npartial = true\n\n[[target]]\npath = \"{}/data.bin\"\nsize = \"16MiB\"\n\n[run]\nduration = \"1s\"\n",
            root.display()
        ),
    )
    .unwrap();
    std::fs::write(
        b.join("spec.toml"),
        "[spec]\ndescription = \"team spec\"\nextends = \"team/base\"\n\n[class.small]\nsize = \"4KiB\"\n\n[matrix]\nsmall = \"1\"\n",
    )
    .unwrap();
    format!(
        "{}:{}",
        root.join("libA").display(),
        root.join("libB").display()
    )
}

#[test]
#[serial_test::parallel]
fn a_named_spec_runs_across_libraries_and_its_folder_names_every_file() {
    let tmp = Scenario::new();
    let path = libraries(tmp.path());
    let out_dir = tmp.path().join("run");
    rigel()
        .env("RIGEL_PATH", &path)
        .args(["run", "team/spec", "--out"])
        .arg(&out_dir)
        .run()
        .code(0);
    let spec = std::fs::read_to_string(out_dir.join("spec.toml")).unwrap();
    for file in ["libB/team/spec.toml", "libA/team/base.toml"] {
        assert!(spec.contains(file), "spec.toml names {file}:\n{spec}");
    }
}

#[test]
#[serial_test::parallel]
fn specs_lists_both_libraries_and_the_builtins_and_shows_one() {
    let tmp = tempfile::tempdir().unwrap();
    let path = libraries(tmp.path());
    let out = rigel().env("RIGEL_PATH", &path).arg("specs").run().code(0);
    for want in [
        "team/base",
        "team base",
        "libA/team/base.toml",
        "team/spec",
        "libB/team/spec.toml",
        "orion/simple",
        "builtin:orion/simple",
    ] {
        assert!(out.stdout.contains(want), "{want} listed:\n{}", out.stdout);
    }
    let shown = rigel().args(["specs", "orion/simple"]).run().code(0);
    assert_eq!(
        shown.stdout.trim_end(),
        // Read through the repository's `specs` link, the path README names.
        std::fs::read_to_string(repo().join("specs/orion/simple.toml"))
            .expect("the shipped spec")
            .trim_end()
    );
}

#[test]
#[serial_test::parallel]
fn a_builtin_spec_is_planned_by_name_with_set() {
    let out = rigel()
        .args(["plan", "orion/simple", "--set", "lun=/dev/sdq", "--json"])
        .run()
        .code(0);
    out.stdout_has("/dev/sdq");
}

#[test]
#[serial_test::parallel]
fn a_missing_name_lists_the_places_searched() {
    let tmp = tempfile::tempdir().unwrap();
    let path = libraries(tmp.path());
    let out = rigel()
        .env("RIGEL_PATH", &path)
        .args(["plan", "team/nosuch"])
        .run()
        .code(2);
    out.stderr_has("no spec named `team/nosuch`");
    for searched in [
        "libA/team/nosuch.toml",
        "libB/team/nosuch.toml",
        "the built-in specs",
    ] {
        assert!(out.stderr.contains(searched), "{searched}:\n{}", out.stderr);
    }
}

#[test]
#[serial_test::parallel]
fn a_spec_is_read_from_standard_input() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("lun.lun"), "/dev/sdq\n").unwrap();
    let spec = rigel()
        .cwd(tmp.path())
        .args(["orion", "-run", "simple", "-testname", "lun", "--to-spec"])
        .run()
        .code(0);
    let out = rigel().args(["plan", "-"]).stdin(spec.stdout).run().code(0);
    out.stdout_has("/dev/sdq");
    let checked = rigel()
        .args(["check", "-"])
        .stdin("[spec]\nname = 1\n")
        .run()
        .code(2);
    checked.stderr_has("<stdin>:2:");
}
