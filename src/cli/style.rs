//! How the terminal output looks: `--quiet`, and `--color` with the conventions NO_COLOR,
//! CLICOLOR_FORCE and TERM=dumb (for miette's diagnostics and indicatif's bars alike).

use super::args::ColorChoice;
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};

/// `println!` that ignores a closed stdout (`rigel plan … | head` must not panic).
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}
pub(crate) use outln;

static QUIET: AtomicBool = AtomicBool::new(false);
static COLOR: AtomicBool = AtomicBool::new(false);
static DUMB: AtomicBool = AtomicBool::new(false);

/// Sets the style for the whole process, once the command line is parsed.
pub fn init(quiet: bool, choice: ColorChoice) {
    let env = |k: &str| std::env::var_os(k).map(|v| v.to_string_lossy().into_owned());
    let term = env("TERM");
    let color = decide(
        choice,
        std::io::stderr().is_terminal(),
        env("NO_COLOR"),
        env("CLICOLOR_FORCE"),
        term.as_deref(),
    );
    QUIET.store(quiet, Ordering::Relaxed);
    COLOR.store(color, Ordering::Relaxed);
    DUMB.store(term.as_deref() == Some("dumb"), Ordering::Relaxed);
    console::set_colors_enabled_stderr(color);
    console::set_colors_enabled(color && std::io::stdout().is_terminal());
}

/// `--quiet`: no progress display, no notes.
pub fn quiet() -> bool {
    QUIET.load(Ordering::Relaxed)
}

/// A `note:` line on stderr, unless `--quiet`.
pub fn note(text: impl std::fmt::Display) {
    if !quiet() {
        eprintln!("note: {text}");
    }
}

/// Colors on stderr.
pub fn color() -> bool {
    COLOR.load(Ordering::Relaxed)
}

/// A live progress bar on stderr: a terminal that can redraw a line, and not `--quiet`.
pub fn live_bar() -> bool {
    std::io::stderr().is_terminal() && !DUMB.load(Ordering::Relaxed) && !quiet()
}

/// The rule: `always`/`never` win; for `auto`, NO_COLOR (non-empty) turns colors off, then
/// CLICOLOR_FORCE (non-empty, not `0`) turns them on, then TERM=dumb turns them off, then a
/// terminal decides.
fn decide(
    choice: ColorChoice,
    terminal: bool,
    no_color: Option<String>,
    force: Option<String>,
    term: Option<&str>,
) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            if no_color.is_some_and(|v| !v.is_empty()) {
                false
            } else if force.is_some_and(|v| !v.is_empty() && v != "0") {
                true
            } else {
                term != Some("dumb") && terminal
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ColorChoice::*;

    #[test]
    fn the_conventions() {
        let s = |v: &str| Some(v.to_owned());
        assert!(decide(Auto, true, None, None, Some("xterm")));
        assert!(!decide(Auto, false, None, None, Some("xterm")));
        assert!(!decide(Auto, true, s("1"), None, None), "NO_COLOR");
        assert!(
            decide(Auto, true, s(""), None, None),
            "an empty NO_COLOR is unset"
        );
        assert!(decide(Auto, false, None, s("1"), None), "CLICOLOR_FORCE");
        assert!(!decide(Auto, false, None, s("0"), None));
        assert!(!decide(Auto, true, s("1"), s("1"), None), "NO_COLOR wins");
        assert!(!decide(Auto, true, None, None, Some("dumb")), "TERM=dumb");
        assert!(decide(Always, false, s("1"), None, Some("dumb")));
        assert!(!decide(Never, true, None, s("1"), None));
    }
}
