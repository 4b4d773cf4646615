//! The run's provenance, captured when it starts: the spec's sha256, the git commit its file was
//! taken from (asked of `git` with a timeout; a missing or slow `git` leaves it out, never stops
//! the run) and who ran rigel.

use rigel_results::{GitOrigin, Provenance, SpecOrigin};
use sha2::{Digest, Sha256};
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long one `git` command may take before rigel gives up on it (a repository on a hung
/// network filesystem must not hold up the run).
const GIT_TIMEOUT: Duration = Duration::from_secs(3);

/// The spec as the run read it.
pub struct SpecRead<'a> {
    /// The spec's `name`.
    pub name: &'a str,
    /// As named on the command line, or what made it.
    pub source: &'a str,
    /// The file it was read from, if any.
    pub path: Option<&'a Path>,
    /// Its text as read.
    pub text: &'a str,
    /// The resolved spec the run folder keeps.
    pub resolved: &'a str,
}

/// The provenance of a run of `spec`, by the user running this process.
pub fn provenance(spec: &SpecRead) -> Provenance {
    let path = spec
        .path
        .map(|p| std::path::absolute(p).unwrap_or(p.to_path_buf()));
    Provenance {
        spec: SpecOrigin {
            name: spec.name.to_owned(),
            source: spec.source.to_owned(),
            path: path.as_ref().map(|p| p.display().to_string()),
            sha256: sha256_hex(spec.text.as_bytes()),
            resolved_sha256: sha256_hex(spec.resolved.as_bytes()),
            git: path.as_deref().and_then(git_origin),
        },
        user: user_name(),
        sudo_user: std::env::var("SUDO_USER").ok().filter(|u| !u.is_empty()),
        measured_by: std::env::var("RIGEL_BY")
            .ok()
            .map(|b| b.trim().to_owned())
            .filter(|b| !b.is_empty()),
    }
}

/// Lowercase hex sha256, as `sha256sum` prints it.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The commit checked out in the repository holding `file`, whether its tracked files are clean,
/// and the file's path in it; none outside a repository or without a working `git`.
fn git_origin(file: &Path) -> Option<GitOrigin> {
    let dir = file.parent()?;
    let commit = git(dir, &["rev-parse", "--verify", "HEAD"])?;
    let status = git(dir, &["status", "--porcelain", "--untracked-files=no"])?;
    let name = file.file_name()?.to_str()?;
    let tracked = git(dir, &["ls-files", "--full-name", "--", name]).unwrap_or_default();
    Some(GitOrigin {
        commit: commit.trim().to_owned(),
        clean: status.trim().is_empty(),
        path: tracked.lines().next().unwrap_or("").to_owned(),
    })
}

/// `git -C dir ARGS`'s standard output when it succeeds within [`GIT_TIMEOUT`]. It only reads:
/// no optional locks (its index refresh is not written back), any owner's repository.
fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let mut child = Command::new("git")
        .arg("-c")
        .arg("safe.directory=*")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    // Read on a thread: a long listing must not fill the pipe and stall git past the deadline.
    let mut out = child.stdout.take()?;
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        out.read_to_string(&mut text).map(|_| text)
    });
    let deadline = Instant::now() + GIT_TIMEOUT;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    };
    let text = reader.join().ok()?.ok()?;
    status.success().then_some(text)
}

/// The effective user's name from the password database (`uid N` where it has none).
fn user_name() -> String {
    let uid = rustix::process::geteuid().as_raw();
    std::fs::read_to_string("/etc/passwd")
        .ok()
        .and_then(|p| passwd_name(&p, uid))
        .unwrap_or_else(|| format!("uid {uid}"))
}

fn passwd_name(passwd: &str, uid: u32) -> Option<String> {
    passwd.lines().find_map(|l| {
        let mut f = l.split(':');
        let name = f.next()?;
        let id: u32 = f.nth(1)?.parse().ok()?;
        (id == uid).then(|| name.to_owned())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_is_what_sha256sum_prints() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn passwd_names_the_uid() {
        let p = "root:x:0:0:root:/root:/bin/bash\nalice:x:1000:1000::/home/alice:/bin/sh\n";
        assert_eq!(passwd_name(p, 1000).as_deref(), Some("alice"));
        assert_eq!(passwd_name(p, 0).as_deref(), Some("root"));
        assert_eq!(passwd_name(p, 7), None);
    }

    #[test]
    fn a_spec_in_a_repository_records_its_commit_and_whether_the_tree_is_clean() {
        let dir = tempfile::tempdir().unwrap();
        let run = |args: &[&str]| {
            let ok = Command::new("git")
                .arg("-C")
                .arg(dir.path())
                .args(args)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .expect("needs git")
                .success();
            assert!(ok, "git {args:?}");
        };
        run(&["init", "-q"]);
        let spec = dir.path().join("oltp.toml");
        std::fs::write(&spec, "[spec]\nname = \"oltp\"\n").unwrap();
        run(&["add", "oltp.toml"]);
        run(&[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@e",
            "commit",
            "-qm",
            "spec",
        ]);
        fn read<'a>(spec: &'a Path, text: &'a str) -> SpecRead<'a> {
            SpecRead {
                name: "oltp",
                source: "oltp.toml",
                path: Some(spec),
                text,
                resolved: text,
            }
        }
        let text = std::fs::read_to_string(&spec).unwrap();
        let p = provenance(&read(&spec, &text));
        let git = p.spec.git.clone().expect("a repository");
        assert_eq!(git.commit.len(), 40);
        assert!(git.clean);
        assert_eq!(git.path, "oltp.toml");
        assert_eq!(p.spec.sha256, sha256_hex(text.as_bytes()));
        std::fs::write(&spec, "[spec]\nname = \"oltp2\"\n").unwrap();
        let dirty = provenance(&read(&spec, &text))
            .spec
            .git
            .expect("a repository");
        assert!(!dirty.clean);
        assert_eq!(dirty.commit, git.commit);
        // Outside a repository: no git facts, the digests still.
        let bare = tempfile::tempdir().unwrap();
        let lone = bare.path().join("x.toml");
        std::fs::write(&lone, "x").unwrap();
        let p = provenance(&SpecRead {
            path: Some(&lone),
            ..read(&spec, "x")
        });
        assert_eq!(p.spec.git, None);
        assert_eq!(p.spec.sha256, sha256_hex(b"x"));
    }
}
