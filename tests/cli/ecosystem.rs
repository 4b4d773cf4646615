//! rigel among other tools: shell completions and man pages generated from the command line's own
//! definition, `orion` known to help, did-you-mean, `--quiet` and `--color`.

use super::builder::rigel;
use super::scenario::Scenario;
use std::process::Command;

fn have(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
#[serial_test::parallel]
fn bash_completes_rigel_r_with_replay_report_and_run() {
    assert!(have("bash"), "bash is not installed");
    let tmp = tempfile::tempdir().unwrap();
    let script = tmp.path().join("rigel.bash");
    let out = rigel()
        .args(["generate", "completions", "bash"])
        .run()
        .code(0);
    std::fs::write(&script, out.stdout).unwrap();
    let drive = format!(
        "source '{}' && complete -p rigel && COMP_WORDS=(rigel r) && COMP_CWORD=1 && _rigel rigel r rigel && echo \"offered: ${{COMPREPLY[*]}}\"",
        script.display()
    );
    let bash = Command::new("bash").args(["-c", &drive]).output().unwrap();
    let stdout = String::from_utf8_lossy(&bash.stdout);
    assert!(
        bash.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&bash.stderr)
    );
    assert!(stdout.contains("-F _rigel rigel"), "{stdout}");
    let offered = stdout
        .lines()
        .find_map(|l| l.strip_prefix("offered: "))
        .unwrap();
    let mut words: Vec<&str> = offered.split_whitespace().collect();
    words.sort_unstable();
    assert_eq!(words, ["replay", "report", "run"], "{stdout}");
}

#[test]
#[serial_test::parallel]
fn every_shell_gets_completions_that_know_orion() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = rigel()
            .args(["generate", "completions", shell])
            .run()
            .code(0);
        assert!(out.stdout.contains("orion"), "{shell}");
    }
}

#[test]
#[ignore = "needs man (man-db)"]
#[serial_test::parallel]
fn man_renders_the_generated_pages() {
    let tmp = tempfile::tempdir().unwrap();
    rigel()
        .args(["generate", "man"])
        .arg(tmp.path())
        .run()
        .code(0);
    for page in [
        "rigel.1",
        "rigel-run.1",
        "rigel-orion.1",
        "rigel-generate-completions.1",
    ] {
        assert!(tmp.path().join(page).is_file(), "{page} written");
    }
    assert!(
        have("man"),
        "`man` is not installed (apt-get install man-db)"
    );
    let man = Command::new("man")
        .args(["-P", "cat", "-l"])
        .arg(tmp.path().join("rigel.1"))
        .env("MANWIDTH", "100")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&man.stdout);
    assert!(
        man.status.success(),
        "{}",
        String::from_utf8_lossy(&man.stderr)
    );
    assert!(text.contains("NAME") && text.contains("rigel"), "{text}");
    assert!(text.contains("orion"), "the page lists orion:\n{text}");
    let render = |page: &str| {
        let out = Command::new("man")
            .args(["-P", "cat", "-l"])
            .arg(tmp.path().join(page))
            .env("MANWIDTH", "100")
            .output()
            .unwrap();
        assert!(out.status.success(), "{page}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    for page in ["rigel.1", "rigel-run.1", "rigel-orion.1", "rigel-report.1"] {
        let text = render(page);
        for section in [
            "EXIT STATUS",
            "ENVIRONMENT",
            "EXAMPLES",
            "RIGEL_PATH",
            "NO_COLOR",
        ] {
            assert!(text.contains(section), "{page} has {section}:\n{text}");
        }
        assert!(text.contains("130"), "{page}: the interrupted exit code");
    }
    // ORION's own options on ORION's page, as `rigel orion -help` lists them.
    let orion = render("rigel-orion.1");
    for option in [
        "ORION OPTIONS",
        "-run LEVEL",
        "-cache_size MIB",
        "-num_streamIO N",
        "-matrix M",
        "-simulate concat|raid0",
        "--allow-destructive",
    ] {
        assert!(
            orion.contains(option),
            "rigel-orion.1 lists {option}:\n{orion}"
        );
    }
}

#[test]
#[serial_test::parallel]
fn help_knows_orion_every_way() {
    let top = rigel().arg("--help").run().code(0);
    top.stdout_has("  orion ");
    let a = rigel().args(["help", "orion"]).run().code(0);
    let b = rigel().args(["orion", "--help"]).run().code(0);
    a.stdout_has("ORION");
    assert_eq!(a.stdout, b.stdout);
}

#[test]
#[serial_test::parallel]
fn a_mistyped_command_gets_a_suggestion() {
    let out = rigel().arg("rnu").run().code(2);
    out.stderr_has("did you mean `run`?");
}

#[test]
#[serial_test::parallel]
fn report_help_lists_its_formats() {
    let out = rigel().args(["report", "--help"]).run().code(0);
    out.stdout_has("[possible values: orion, markdown, html, json");
}

#[test]
#[serial_test::parallel]
fn color_follows_the_flag_and_the_environment() {
    let broken = || {
        rigel()
            .env_remove("NO_COLOR")
            .args(["check", "tests/broken/access-typo.toml"])
    };
    let colored = |o: &super::Output| o.stderr.contains('\u{1b}');
    assert!(!colored(&broken().run()), "auto, not a terminal: no color");
    assert!(colored(&broken().arg("--color=always").run()));
    assert!(colored(&broken().env("CLICOLOR_FORCE", "1").run()));
    let no = broken()
        .env("CLICOLOR_FORCE", "1")
        .env("NO_COLOR", "1")
        .run();
    assert!(!colored(&no), "NO_COLOR wins over CLICOLOR_FORCE");
    assert!(!colored(
        &broken()
            .env("CLICOLOR_FORCE", "1")
            .arg("--color=never")
            .run()
    ));
}

#[test]
#[serial_test::parallel]
fn quiet_prints_only_the_result() {
    let tmp = Scenario::new();
    let spec = tmp.path().join("q.toml");
    std::fs::write(
        &spec,
        format!(
            "[[target]]\npath = \"{}/q.bin\"\nsize = \"16MiB\"\n[run]\nduration = \"1s\"\n[class.s]\nsize = \"4KiB\"\n[matrix]\ns = \"1, 2\"\n",
            tmp.path().display()
        ),
    )
    .unwrap();
    let out = rigel()
        .args(["-q", "run"])
        .arg(&spec)
        .arg("--out")
        .arg(tmp.path().join("run"))
        .run()
        .code(0);
    let lines: Vec<&str> = out.stdout.lines().filter(|l| !l.is_empty()).collect();
    assert_eq!(lines.len(), 1, "{}", out.stdout);
    assert!(lines[0].starts_with("results: "), "{}", out.stdout);
    assert!(!out.stderr.contains("creating"), "{}", out.stderr);
}
