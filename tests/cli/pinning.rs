//! `[run] cpus`: a pinned run records the CPUs its workers ran on (the executor's own reading of
//! each worker's CPU, not the list asked) and what pinned them, and its report says so; CPUs rigel
//! may not run on stop the run before it makes a folder.

use super::builder::rigel;
use std::path::Path;

fn spec(dir: &Path, cpus: &str) -> std::path::PathBuf {
    let path = dir.join("pinned.toml");
    std::fs::write(
        &path,
        format!(
            "[[target]]\npath = \"{}\"\nsize = \"8MiB\"\n\n[run]\nduration = \"1s\"\n\
             workers = 4\ncpus = \"{cpus}\"\n\n[class.small]\nsize = \"4KiB\"\n\n\
             [matrix]\nshape = \"point\"\nsmall = \"4\"\n",
            dir.join("data.bin").display()
        ),
    )
    .expect("spec written");
    path
}

/// The affinity lists of `pid`'s threads seen while it runs (`Cpus_allowed_list` of each
/// `/proc/PID/task/*/status`): the kernel's own word on what pinned the workers.
fn affinities_while_running(child: &mut std::process::Child) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    let tasks = format!("/proc/{}/task", child.id());
    while child.try_wait().expect("waits").is_none() {
        for task in std::fs::read_dir(&tasks).into_iter().flatten().flatten() {
            let status = std::fs::read_to_string(task.path().join("status")).unwrap_or_default();
            if let Some(line) = status.lines().find(|l| l.starts_with("Cpus_allowed_list:")) {
                let list = line
                    .trim_start_matches("Cpus_allowed_list:")
                    .trim()
                    .to_owned();
                if !seen.contains(&list) {
                    seen.push(list);
                }
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    seen
}

#[test]
#[serial_test::parallel]
fn a_pinned_run_records_the_cpus_its_workers_ran_on() {
    let tmp = tempfile::tempdir_in("/dev/shm").expect("tmp on tmpfs");
    let out = tmp.path().join("run");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_rigel"))
        .arg("run")
        .arg(spec(tmp.path(), "1"))
        .arg("--out")
        .arg(&out)
        .env("NO_COLOR", "1")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("rigel starts");
    let affinities = affinities_while_running(&mut child);
    let output = child.wait_with_output().expect("rigel ends");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    // The workers' threads were pinned to CPU 1 alone (the process itself may run anywhere).
    assert!(
        affinities.iter().any(|a| a == "1"),
        "no thread of rigel was pinned to CPU 1: {affinities:?}"
    );
    let text = std::fs::read_to_string(out.join("results.json")).expect("results.json");
    let doc: serde_json::Value = serde_json::from_str(&text).expect("json");
    let placement = &doc["points"][0]["placement"];
    assert_eq!(placement["pinned_by"], "cpus = \"1\"", "{placement}");
    assert_eq!(
        placement["worker_cpus"],
        serde_json::json!([1, 1, 1, 1]),
        "all four workers ran on CPU 1: {placement}"
    );
    assert!(
        stdout.contains("placement: workers on CPUs 1 (cpus = \"1\")"),
        "{stdout}"
    );
    let report = std::fs::read_to_string(out.join("report.md")).expect("report.md");
    assert!(
        report.contains("- **Placement:** workers on CPUs 1 (cpus = \"1\")"),
        "{report}"
    );
}

#[test]
#[serial_test::parallel]
fn cpus_rigel_may_not_run_on_stop_the_run_before_it_starts() {
    let tmp = tempfile::tempdir_in("/dev/shm").expect("tmp on tmpfs");
    let out = tmp.path().join("run");
    let r = rigel()
        .arg("run")
        .arg(spec(tmp.path(), "8000"))
        .arg("--out")
        .arg(&out)
        .run();
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    r.stderr_has("cpus = \"8000\": CPU 8000 is not one rigel may run on here (allowed: ");
    assert!(!out.exists(), "no run folder for a run that cannot start");
}
