//! User templates render in a child rigel under an address-space limit. Fuel bounds the
//! instructions and the writer bounds the output, but `{% set s = s ~ s %}` in a loop doubles a
//! string with a handful of instructions and no output until the allocator fails, and Rust aborts
//! the whole process on a failed allocation. In a child, that abort is an error the report names.

use crate::ReportError;
use minijinja::Value;
use serde::{Deserialize, Serialize};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};

/// Set in the child's environment: the child renders what its stdin asks and answers on stdout.
const CHILD_ENV: &str = "RIGEL_TEMPLATE_CHILD";
/// The child's address space (RLIMIT_AS): the context, the template's values and its output
/// (at most `MAX_OUTPUT`) fit many times over.
pub const MAX_MEMORY: u64 = 2 << 30;

static ISOLATE: AtomicBool = AtomicBool::new(false);

/// Renders user templates in a child process from now on (the `rigel` binary asks for this; the
/// library's own tests render in process, where the current executable is a test harness).
pub fn isolate_user_templates() {
    ISOLATE.store(true, Ordering::Relaxed);
}

#[derive(Serialize, Deserialize)]
struct Request {
    path: PathBuf,
    ctx: serde_json::Value,
}

#[derive(Serialize, Deserialize)]
enum Answer {
    Rendered(Vec<(PathBuf, String)>),
    Template {
        name: String,
        line: Option<usize>,
        message: String,
    },
    Other(String),
}

/// A user's template file or folder rendered, in a child process when isolation is on.
pub(crate) fn render_user(path: &Path, ctx: &Value) -> Result<Vec<(PathBuf, String)>, ReportError> {
    if !ISOLATE.load(Ordering::Relaxed) {
        return super::user::render_user(path, ctx);
    }
    let failed = |message: String| ReportError::Template {
        name: path.display().to_string(),
        line: None,
        message,
    };
    let request = serde_json::to_vec(&Request {
        path: path.to_path_buf(),
        ctx: serde_json::to_value(ctx)?,
    })?;
    let exe = std::env::current_exe().map_err(|e| {
        failed(format!(
            "cannot find rigel's own executable to render it: {e}"
        ))
    })?;
    let mut child = Command::new(exe)
        .env(CHILD_ENV, "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| failed(format!("cannot start the template renderer: {e}")))?;
    // The child reads all of its request before it writes anything: no deadlock on the pipes.
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(&request)
            .map_err(|e| failed(format!("cannot hand the template to its renderer: {e}")))?;
    }
    let out = child
        .wait_with_output()
        .map_err(|e| failed(format!("the template renderer failed: {e}")))?;
    match serde_json::from_slice::<Answer>(&out.stdout) {
        Ok(Answer::Rendered(files)) if out.status.success() => Ok(files),
        Ok(Answer::Template {
            name,
            line,
            message,
        }) => Err(ReportError::Template {
            name,
            line,
            message,
        }),
        Ok(Answer::Other(message)) => Err(ReportError::Isolated(message)),
        _ => {
            let stderr = String::from_utf8_lossy(&out.stderr);
            Err(failed(if stderr.contains("memory allocation") {
                format!(
                    "it used more than {} GiB of memory, the limit for one user template: a \
                     string or list grown without bound (`{{% set s = s ~ s %}}` in a loop?)",
                    MAX_MEMORY >> 30
                )
            } else {
                format!(
                    "its renderer ended without an answer ({}): {}",
                    out.status,
                    stderr.trim()
                )
            }))
        }
    }
}

/// In the child (its environment says so): renders the request on stdin under the memory limit,
/// answers on stdout and returns the exit code; None in any other process.
pub fn serve_template_child() -> Option<i32> {
    std::env::var_os(CHILD_ENV)?;
    let limit = rustix::process::Rlimit {
        current: Some(MAX_MEMORY),
        maximum: Some(MAX_MEMORY),
    };
    let answer = match rustix::process::setrlimit(rustix::process::Resource::As, limit) {
        Err(e) => Answer::Other(format!("cannot limit the template renderer's memory: {e}")),
        Ok(()) => answer(),
    };
    let ok = matches!(answer, Answer::Rendered(_));
    let written = serde_json::to_writer(std::io::stdout().lock(), &answer);
    Some(if ok && written.is_ok() { 0 } else { 1 })
}

fn answer() -> Answer {
    let mut input = Vec::new();
    if let Err(e) = std::io::stdin().read_to_end(&mut input) {
        return Answer::Other(format!("cannot read the template request: {e}"));
    }
    let request: Request = match serde_json::from_slice(&input) {
        Ok(r) => r,
        Err(e) => return Answer::Other(format!("a malformed template request: {e}")),
    };
    let ctx = Value::from_serialize(&request.ctx);
    match super::user::render_user(&request.path, &ctx) {
        Ok(files) => Answer::Rendered(files),
        Err(ReportError::Template {
            name,
            line,
            message,
        }) => Answer::Template {
            name,
            line,
            message,
        },
        Err(e) => Answer::Other(e.to_string()),
    }
}
