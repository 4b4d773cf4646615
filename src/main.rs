//! The `rigel` binary: every stage lives in its own crate (`crates/`); `cli` only parses, prints
//! and picks exit codes.
//!
//! Data flows one way, and Cargo keeps it so: `rigel-expr` → `rigel-spec` → `rigel-plan` →
//! `rigel-results` → `rigel-target` → `rigel-exec` → `rigel-judge` (expect, compare) →
//! `rigel-record` → `rigel-report` → `rigel-runner` → `rigel-fleet` / `rigel-orion` → this binary.

#![forbid(unsafe_code)]

mod cli;

fn main() {
    // A child rigel renders one user template under a memory limit (see report::isolate).
    if let Some(code) = rigel_report::serve_template_child() {
        std::process::exit(code);
    }
    rigel_report::isolate_user_templates();
    std::process::exit(cli::main());
}
