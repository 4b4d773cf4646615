//! Hostile or careless input through the real binary: targets that are not files or block devices,
//! signals while a test file is prepared, variable cycles and blow-ups, names that try to leave
//! `runs/`, and user templates that loop, grow or link out of their folder.

use super::builder::rigel;
use super::scenario::{Scenario, Spec};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A spec reading (or, with `mix = "write"`, writing) `target`, written into `dir`.
fn spec_on(dir: &Path, target: &str, size: Option<&str>, mix: &str) -> PathBuf {
    let keys: Vec<(&str, &str)> = size.map(|s| ("size", s)).into_iter().collect();
    let spec = Spec::named("h")
        .target(target, &keys)
        .set("run.duration", "200ms")
        .set("class.s.size", "8KiB")
        .set("class.s.mix", mix)
        .set("matrix.s", "1");
    let path = dir.join("h.toml");
    std::fs::write(&path, spec.text()).expect("spec written");
    path
}

/// Runs rigel with a deadline: the test fails (and the process is killed) when it hangs.
fn run_within(args: &[&std::ffi::OsStr], cwd: &Path, limit: Duration) -> (i32, String) {
    let mut child = rigel().args(args).cwd(cwd).spawn();
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            let out = child.wait_with_output().expect("output");
            let code = status.code().unwrap_or(-1);
            return (code, String::from_utf8_lossy(&out.stderr).into_owned());
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("rigel {args:?} still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
#[serial_test::parallel]
fn a_fifo_target_is_refused_at_once_by_type() {
    let tmp = Scenario::new();
    let fifo = tmp.path().join("fifo");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo (coreutils) failed");
    for mix in ["read", "write"] {
        let spec = spec_on(tmp.path(), &fifo.display().to_string(), None, mix);
        let (code, stderr) = run_within(
            &[
                "run".as_ref(),
                spec.as_os_str(),
                "--allow-destructive".as_ref(),
                "--out".as_ref(),
                tmp.path().join(format!("run-{mix}")).as_os_str(),
            ],
            tmp.path(),
            Duration::from_secs(5),
        );
        assert_eq!(code, 1, "{stderr}");
        assert!(stderr.contains("is a FIFO"), "{stderr}");
    }
}

#[test]
#[serial_test::parallel]
fn directories_character_devices_and_sockets_are_refused_by_type() {
    let tmp = Scenario::new();
    let socket = tmp.path().join("sock");
    let _listener = std::os::unix::net::UnixListener::bind(&socket).expect("a unix socket");
    let cases = [
        (tmp.path().display().to_string(), "is a directory"),
        ("/dev/null".to_owned(), "is a character device"),
        ("/dev/zero".to_owned(), "is a character device"),
        (socket.display().to_string(), "is a socket"),
    ];
    for (target, says) in cases {
        for mix in ["read", "write"] {
            let spec = spec_on(tmp.path(), &target, None, mix);
            let (code, stderr) = run_within(
                &[
                    "run".as_ref(),
                    spec.as_os_str(),
                    "--allow-destructive".as_ref(),
                    "--out".as_ref(),
                    tmp.path().join("run").as_os_str(),
                ],
                tmp.path(),
                Duration::from_secs(5),
            );
            assert_eq!(code, 1, "{target} ({mix}): {stderr}");
            assert!(stderr.contains(says), "{target} ({mix}): {stderr}");
        }
        // A declared size does not make rigel create a test file over it either.
        let spec = spec_on(tmp.path(), &target, Some("16MiB"), "read");
        let (code, stderr) = run_within(
            &[
                "run".as_ref(),
                spec.as_os_str(),
                "--out".as_ref(),
                tmp.path().join("run").as_os_str(),
            ],
            tmp.path(),
            Duration::from_secs(5),
        );
        assert_eq!(code, 1, "{target} (sized): {stderr}");
        assert!(stderr.contains(says), "{target} (sized): {stderr}");
    }
}

/// SIGTERM while a large test file is being created (preallocated, then filled) ends the run
/// within a second with the interrupted exit code.
#[test]
#[serial_test::serial]
fn sigterm_while_preparing_a_test_file_ends_the_run_within_a_second() {
    // tmpfs preallocates page by page: 4 GiB takes seconds there.
    let tmp = Scenario::new();
    let free = rustix::fs::statvfs(tmp.path()).expect("statvfs");
    let free = free.f_bavail * free.f_frsize;
    assert!(
        free >= 8 << 30,
        "{free} bytes free in /dev/shm: this test needs 8 GiB for its 4 GiB test file"
    );
    let data = tmp.path().join("big.bin");
    let spec = spec_on(
        tmp.path(),
        &data.display().to_string(),
        Some("4GiB"),
        "read",
    );
    let child = rigel()
        .arg("run")
        .arg(&spec)
        .arg("--out")
        .arg(tmp.path().join("run"))
        .spawn();
    std::thread::sleep(Duration::from_millis(500));
    let sent = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    assert!(sent.is_ok_and(|s| s.success()), "SIGTERM sent");
    let sent = Instant::now();
    let out = child.wait_with_output().expect("rigel ends");
    let took = sent.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(
        took < Duration::from_secs(1),
        "took {took:?} after SIGTERM: {stderr}"
    );
}

#[test]
#[serial_test::parallel]
fn a_variable_cycle_is_an_error_naming_the_chain_and_creates_nothing() {
    let tmp = Scenario::new();
    let spec = tmp.path().join("cycle.toml");
    let text = format!(
        "[spec]\nname = \"cycle\"\n\n[vars]\na = \"x${{b}}\"\nb = \"${{c}}\"\nc = \"${{a}}\"\n\n\
         [[target]]\npath = \"{}/f-${{a}}.bin\"\nsize = \"16MiB\"\n\n[run]\nduration = \"200ms\"\n\n\
         [class.s]\nsize = \"8KiB\"\n\n[matrix]\ns = \"1\"\n",
        tmp.path().display()
    );
    std::fs::write(&spec, text).expect("spec written");
    let out = rigel()
        .arg("run")
        .arg(&spec)
        .arg("--out")
        .arg(tmp.path().join("run"))
        .run()
        .code(2);
    assert!(
        out.stderr.contains("a → b → c → a") && out.stderr.contains("cycle.toml:5"),
        "{}",
        out.stderr
    );
    let names: Vec<String> = std::fs::read_dir(tmp.path())
        .expect("listed")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        !names.iter().any(|n| n.starts_with("f-")),
        "a test file was created: {names:?}"
    );
}

#[test]
#[serial_test::parallel]
fn a_variable_doubling_itself_is_bounded() {
    let tmp = Scenario::new();
    let spec = tmp.path().join("doubling.toml");
    let mut text = String::from("[spec]\nname = \"doubling\"\n\n[vars]\nv0 = \"xxxxxxxx\"\n");
    for i in 1..=40 {
        text.push_str(&format!("v{i} = \"${{v{}}}${{v{}}}\"\n", i - 1, i - 1));
    }
    text.push_str(
        "\n[[target]]\npath = \"${v40}\"\n\n[class.s]\nsize = \"8KiB\"\n\n[matrix]\ns = \"1\"\n",
    );
    std::fs::write(&spec, text).expect("spec written");
    let (code, stderr) = run_within(
        &["plan".as_ref(), spec.as_os_str()],
        tmp.path(),
        Duration::from_secs(20),
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("64 KiB") && stderr.contains("v"),
        "{stderr}"
    );
}

#[test]
#[serial_test::parallel]
fn a_spec_name_cannot_place_the_run_folder_outside_runs() {
    let tmp = Scenario::new();
    for name in ["../../escape", "a/b", "/abs", "..", "."] {
        let spec = tmp.path().join("name.toml");
        let text = format!(
            "[spec]\nname = \"{name}\"\n\n[[target]]\npath = \"{}/d.bin\"\nsize = \"16MiB\"\n\n\
             [run]\nduration = \"200ms\"\n\n[class.s]\nsize = \"8KiB\"\n\n[matrix]\ns = \"1\"\n",
            tmp.path().display()
        );
        std::fs::write(&spec, text).expect("spec written");
        let work = tmp.path().join("work");
        std::fs::create_dir_all(&work).expect("work dir");
        let out = rigel().arg("run").arg(&spec).cwd(&work).run().code(2);
        assert!(
            out.stderr.contains("name.toml:2") && out.stderr.contains("name"),
            "{name}: {}",
            out.stderr
        );
        let outside: Vec<_> = std::fs::read_dir(tmp.path())
            .expect("listed")
            .map(|e| e.expect("entry").file_name())
            .filter(|n| n.to_string_lossy().contains("escape"))
            .collect();
        assert!(outside.is_empty(), "{name}: {outside:?}");
    }
}

/// A finished run folder to render reports from.
fn a_run(tmp: &Path) -> PathBuf {
    let spec = spec_on(
        tmp,
        &tmp.join("d.bin").display().to_string(),
        Some("16MiB"),
        "read",
    );
    let dir = tmp.join("run");
    rigel()
        .arg("run")
        .arg(&spec)
        .arg("--out")
        .arg(&dir)
        .run()
        .code(0);
    dir
}

fn report_with(run: &Path, template: &Path, out: &Path) -> (i32, String) {
    run_within(
        &[
            "report".as_ref(),
            run.as_os_str(),
            "--template".as_ref(),
            template.as_os_str(),
            "--out".as_ref(),
            out.as_os_str(),
        ],
        run,
        Duration::from_secs(30),
    )
}

#[test]
#[serial_test::parallel]
fn user_templates_are_bounded_and_stay_in_their_folder() {
    let tmp = Scenario::new();
    let run = a_run(tmp.path());

    // A link to /etc/passwd inside a template folder never reaches a report.
    let linked = tmp.path().join("linked");
    std::fs::create_dir(&linked).expect("dir");
    std::fs::write(linked.join("a.txt.j2"), "{{ run.name }}\n").expect("template");
    std::os::unix::fs::symlink("/etc/passwd", linked.join("passwd.txt")).expect("link");
    let out = tmp.path().join("out-linked");
    let (code, stderr) = report_with(&run, &linked, &out);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("symbolic link"), "{stderr}");
    assert!(!out.join("passwd.txt").exists());

    // Included through a link: refused as well.
    let included = tmp.path().join("included");
    std::fs::create_dir(&included).expect("dir");
    std::fs::write(included.join("a.txt.j2"), "{% include \"_p\" %}\n").expect("template");
    std::os::unix::fs::symlink("/etc/passwd", included.join("_p")).expect("link");
    let out = tmp.path().join("out-included");
    let (code, stderr) = report_with(&run, &included, &out);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("symbolic link"), "{stderr}");
    let leaked = std::fs::read_to_string(out.join("a.txt")).unwrap_or_default();
    assert!(!leaked.contains("root:"), "{leaked}");

    // A loop without end runs out of fuel.
    let looping = tmp.path().join("loop.txt.j2");
    std::fs::write(
        &looping,
        "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}",
    )
    .expect("template");
    let (code, stderr) = report_with(&run, &looping, &tmp.path().join("out-loop"));
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("fuel"), "{stderr}");

    // Output beyond the size limit is an error, not gigabytes on disk.
    let big = tmp.path().join("big.txt.j2");
    std::fs::write(
        &big,
        "{% for i in range(2000) %}{{ \"x\" * 100000 }}{% endfor %}",
    )
    .expect("template");
    let (code, stderr) = report_with(&run, &big, &tmp.path().join("out-big"));
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("64 MiB"), "{stderr}");
}

/// A spec of `classes` classes each run alone at load 1 (or, with `detailed`, in every combination).
fn many_classes(dir: &Path, classes: usize, shape: &str) -> PathBuf {
    many_classes_with(dir, classes, shape, |_| "1")
}

/// A spec of `classes` classes of the given shape, each with the load sweep `load(i)`.
fn many_classes_with(
    dir: &Path,
    classes: usize,
    shape: &str,
    load: impl Fn(usize) -> &'static str,
) -> PathBuf {
    let mut spec = Spec::named("many")
        .target(dir.join("m.bin"), &[("size", "16MiB")])
        .set("run.duration", "20ms");
    for i in 0..classes {
        spec = spec.at(&["class", &format!("c{i}"), "size"], "8KiB");
    }
    spec = spec.set("matrix.shape", shape);
    for i in 0..classes {
        spec = spec.at(&["matrix", &format!("c{i}")], load(i));
    }
    let path = dir.join(format!("many-{classes}-{shape}.toml"));
    std::fs::write(&path, spec.text()).expect("spec written");
    path
}

/// Points list only the classes that run (beyond a few), so memory is linear in the classes:
/// 10,000 classes once took 8.2 GB, and plan within 512 MiB of address space now. Classes and
/// class entries stay bounded.
#[test]
#[serial_test::parallel]
fn class_count_and_plan_size_are_bounded() {
    let tmp = Scenario::new();
    let spec = many_classes(tmp.path(), 10_001, "basic");
    let (code, stderr) = run_within(
        &["plan".as_ref(), spec.as_os_str()],
        tmp.path(),
        Duration::from_secs(60),
    );
    assert_eq!(code, 2, "{stderr}");
    // Reported at the 10,001st class's name (each class takes 3 lines after the 6-line header).
    assert!(
        stderr.contains("more than 10000 classes") && stderr.contains(":30011:"),
        "{stderr}"
    );
    // 2^19 cells (each load, or idle) of 19 classes each: 5 million class entries that run.
    let spec = many_classes(tmp.path(), 19, "detailed");
    let (code, stderr) = run_within(
        &["plan".as_ref(), spec.as_os_str()],
        tmp.path(),
        Duration::from_secs(20),
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("class entries"), "{stderr}");
}

/// 10,000 classes plan under a 512 MiB address-space limit (RLIMIT_AS through the shell's
/// `ulimit -v`): the quadratic plan needed 8.2 GB, the sparse one needs about 40 MB of RSS.
#[test]
#[serial_test::parallel]
fn ten_thousand_classes_plan_in_linear_memory() {
    let tmp = Scenario::new();
    let spec = many_classes(tmp.path(), 10_000, "basic");
    let bin = env!("CARGO_BIN_EXE_rigel");
    let start = Instant::now();
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 524288 && exec \"$0\" plan \"$1\"")
        .arg(bin)
        .arg(&spec)
        .output()
        .expect("sh runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("points     10000"), "{stdout}");
    // One row per point naming the one class that runs there.
    assert!(stdout.contains("c9999: 1 × 8KiB random read"), "{stdout}");
    assert!(start.elapsed() < Duration::from_secs(60));
}

/// A run of more classes than points list idle: the executor, the ORION trace and the Markdown
/// tables read the absent classes as idle, and every row of a class's table has the same load
/// columns as its header.
#[test]
#[serial_test::parallel]
fn a_run_of_many_classes_reports_absent_classes_as_idle() {
    let tmp = Scenario::new();
    let spec = many_classes_with(
        tmp.path(),
        17,
        "detailed",
        |i| if i < 2 { "0,1" } else { "0" },
    );
    let out = tmp.path().join("run");
    rigel()
        .arg("run")
        .arg(&spec)
        .arg("--out")
        .arg(&out)
        .arg("-q")
        .run()
        .code(0);
    let md = std::fs::read_to_string(out.join("report.md")).expect("report.md");
    let c1 = md.split("### c1:").nth(1).expect("a c1 section");
    let rows: Vec<Vec<&str>> = c1
        .lines()
        .filter(|l| l.starts_with('|'))
        .map(|l| l.split('|').map(str::trim).take(3).collect())
        .collect();
    assert_eq!(rows[0], ["", "c0 load", "c1 load"], "{c1}");
    assert_eq!(rows[2], ["", "0", "1"], "{c1}");
    assert_eq!(rows[3], ["", "1", "1"], "{c1}");
    let trace = std::fs::read_dir(&out)
        .expect("run folder")
        .filter_map(Result::ok)
        .find(|e| e.file_name().to_string_lossy().ends_with("_trace.txt"))
        .expect("an ORION trace");
    let trace = std::fs::read_to_string(trace.path()).expect("trace");
    assert!(
        trace.contains("Point 2 @ Small=0 and Large=0 (c1=1): ok"),
        "{trace}"
    );
}

/// A string doubled 40 times (a few instructions, no output) would need a TiB: the template
/// renders in a child under an address-space limit, so the report fails with a clear error and
/// exit 1 instead of rigel aborting.
#[test]
#[serial_test::parallel]
fn a_template_doubling_a_string_fails_with_a_memory_error() {
    let tmp = Scenario::new();
    let run = a_run(tmp.path());
    let doubling = tmp.path().join("double.txt.j2");
    std::fs::write(
        &doubling,
        "{% set ns = namespace(s=\"x\") %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}\
         {% endfor %}{{ ns.s | length }}",
    )
    .expect("template");
    let (code, stderr) = report_with(&run, &doubling, &tmp.path().join("out-double"));
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("double.txt.j2") && stderr.contains("GiB of memory"),
        "{stderr}"
    );
    // A template within bounds still renders through the child, errors keep their line.
    let fine = tmp.path().join("fine.txt.j2");
    std::fs::write(&fine, "{{ run.name }}\n{{ nothing.here }}\n").expect("template");
    let (code, stderr) = report_with(&run, &fine, &tmp.path().join("out-fine"));
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("line 2"), "{stderr}");
    std::fs::write(&fine, "{{ run.name }}\n").expect("template");
    let (code, stderr) = report_with(&run, &fine, &tmp.path().join("out-fine"));
    assert_eq!(code, 0, "{stderr}");
    let text = std::fs::read_to_string(tmp.path().join("out-fine/fine.txt")).expect("rendered");
    assert_eq!(text.trim(), "h");
}
