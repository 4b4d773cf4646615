//! Issue 33's rule, kept by a scan of the sources: no file is written or opened for writing by a
//! path (`fs::write`, `File::create`, `OpenOptions`, `fs::rename`, `create_dir_all`, removals)
//! outside `rigel-fs`, the one place that writes beneath a folder's descriptor through no link.
//! Each remaining use is listed here with why it is safe.

use super::modules::SourceFile;

/// Calls that open, write, rename or remove by path, following links.
pub const PATTERNS: [&str; 7] = [
    "fs::write(",
    "File::create(",
    "OpenOptions::new(",
    "fs::rename(",
    "create_dir_all(",
    "fs::remove_file(",
    "fs::remove_dir(",
];

/// (crate, file under src/, pattern, why it is allowed).
pub const ALLOWED: &[(&str, &str, &str, &str)] = &[
    (
        "rigel-target",
        "probe.rs",
        "OpenOptions::new(",
        "opens the target the user named (a device or a file) for the executor; the write guard \
         judges the descriptor, and rigel's own files are opened again through their descriptor",
    ),
    (
        "rigel-target",
        "loopdev.rs",
        "OpenOptions::new(",
        "a test-only module (#[cfg(test)] in lib.rs) writing a loop device it attached",
    ),
    (
        "rigel-runner",
        "metrics/mod.rs",
        "OpenOptions::new(",
        "appends to the file the user named with --metrics-push (append-only, created if absent): \
         the path is the user's own choice, as a shell's `>>` would follow it",
    ),
    (
        "rigel-spec",
        "source.rs",
        "OpenOptions::new(",
        "reads a spec file (read-only, O_NONBLOCK, its type checked on the descriptor)",
    ),
    (
        "rigel-fleet",
        "lib.rs",
        "create_dir_all(",
        "makes the fleet folder the operator named; everything in it goes through rigel_fs",
    ),
    (
        "rigel-record",
        "lock.rs",
        "fs::remove_dir(",
        "rmdir of the run folder a run that never started made: fails unless empty, and on a \
         link (ENOTDIR)",
    ),
    (
        "rigel",
        "cli/generate.rs",
        "create_dir_all(",
        "`rigel generate man DIR`: the folder the user names for man pages, outside any run folder",
    ),
    (
        "rigel",
        "cli/compare.rs",
        "fs::write(",
        "`rigel compare --overlay FILE`: the file the user names, outside any run folder",
    ),
    (
        "rigel-trace",
        "tracefs.rs",
        "fs::write(",
        "configures rigel's own tracefs instance (/sys/kernel/tracing/instances/rigel-capture-PID): \
         kernel control files, never user data",
    ),
    (
        "rigel-trace",
        "tracefs.rs",
        "OpenOptions::new(",
        "opens the tracefs instance's trace_pipe read-only (O_NONBLOCK)",
    ),
    (
        "rigel-trace",
        "tracefs.rs",
        "fs::remove_dir(",
        "removes the tracefs instance the capture made (rmdir: tracefs tears the instance down)",
    ),
];

/// Issue 43's rule: the crates that read files someone else may have written (traces, imports,
/// run folders, journals, templates) read them only through `rigel-fs` (no link, no FIFO or
/// device, bounded by `rigel_fs::limits`), never by path with these.
pub const READ_PATTERNS: [&str; 3] = ["fs::read_to_string(", "fs::read(", "File::open("];
pub const READERS: [&str; 5] = [
    "rigel-trace",
    "rigel-record",
    "rigel-runner",
    "rigel-report",
    "rigel",
];

/// (crate, file under src/, pattern, why it is allowed) for [`READ_PATTERNS`].
pub const READS_ALLOWED: &[(&str, &str, &str, &str)] = &[
    (
        "rigel-trace",
        "tracefs.rs",
        "fs::read_to_string(",
        "the per-CPU `stats` of rigel's own tracefs instance: kernel files, not user data",
    ),
    (
        "rigel-trace",
        "device.rs",
        "fs::read_to_string(",
        "the traced device's sysfs attributes (model, size): kernel files, not user data",
    ),
    (
        "rigel",
        "cli/orion.rs",
        "fs::read_to_string(",
        "the ORION summary rigel itself has just written (its path is the one render returned)",
    ),
];

/// Uses of `patterns` in non-test code, as (file under src/, pattern, line).
pub fn uses_of(
    files: &[SourceFile],
    src: &std::path::Path,
    patterns: &[&'static str],
) -> Vec<(String, &'static str, usize)> {
    let mut out = Vec::new();
    for file in files {
        let rel = file
            .path
            .strip_prefix(src)
            .unwrap_or(&file.path)
            .to_string_lossy()
            .into_owned();
        // Inline test modules sit at the end of a file.
        let code = file
            .text
            .split("#[cfg(test)]\nmod tests")
            .next()
            .unwrap_or("");
        for (n, line) in code.lines().enumerate() {
            if line.trim_start().starts_with("//") {
                continue;
            }
            for &p in patterns {
                if line.contains(p) {
                    out.push((rel.clone(), p, n + 1));
                }
            }
        }
    }
    out
}

/// Uses of [`PATTERNS`] in non-test code, as (file under src/, pattern, line).
pub fn uses(files: &[SourceFile], src: &std::path::Path) -> Vec<(String, &'static str, usize)> {
    uses_of(files, src, &PATTERNS)
}
