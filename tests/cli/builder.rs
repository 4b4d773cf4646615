//! A small builder over the real `rigel` binary: arguments, working directory, environment, and an
//! output with the exit code, stdout and stderr.

use std::path::{Path, PathBuf};
use std::process::Command;

pub struct Rigel {
    cmd: Command,
}

pub struct Output {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Starts a `rigel` invocation from the repository root, without colors.
pub fn rigel() -> Rigel {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_rigel"));
    cmd.current_dir(repo())
        .env("NO_COLOR", "1")
        .env_remove("RUST_BACKTRACE");
    Rigel { cmd }
}

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

impl Rigel {
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        self.cmd.args(args);
        self
    }

    pub fn arg(mut self, arg: impl AsRef<std::ffi::OsStr>) -> Self {
        self.cmd.arg(arg);
        self
    }

    pub fn env(mut self, key: &str, value: &str) -> Self {
        self.cmd.env(key, value);
        self
    }

    pub fn cwd(mut self, dir: impl AsRef<Path>) -> Self {
        self.cmd.current_dir(dir);
        self
    }

    /// Starts the process with piped output, for tests that signal it mid-run.
    pub fn spawn(mut self) -> std::process::Child {
        self.cmd
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("the rigel binary starts")
    }

    pub fn run(mut self) -> Output {
        let out = self.cmd.output().expect("the rigel binary runs");
        Output {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }
}

impl Output {
    /// Asserts the exit code, showing both streams when it differs.
    #[track_caller]
    pub fn code(self, expected: i32) -> Self {
        assert_eq!(
            self.code, expected,
            "exit code\n--- stdout\n{}\n--- stderr\n{}",
            self.stdout, self.stderr
        );
        self
    }
}
