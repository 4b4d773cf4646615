//! The command line: the only layer that knows clap, prints, shows progress, or picks exit codes.

/// Runs the command line and returns the process exit code.
pub fn main() -> i32 {
    0
}
