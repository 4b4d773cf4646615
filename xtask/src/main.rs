//! The project's chores, run as `cargo xtask <task>` (an alias in `.cargo/config.toml`): today the
//! report fixtures under `tests/fixtures/`, which tests read but never write.

mod fixtures;

use std::process::ExitCode;

const USAGE: &str = "usage: cargo xtask fixtures [model|real]
  fixtures model  rewrite tests/fixtures/results-<name>.json from the report tests' queueing model
  fixtures real   rewrite tests/fixtures/results-real-<spec>.json from short real runs of
                  tests/fixtures/specs/*.toml (a debug build of rigel, files on /dev/shm)
  fixtures        both";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let result = match args.as_slice() {
        ["fixtures"] => fixtures::model().and_then(|()| fixtures::real()),
        ["fixtures", "model"] => fixtures::model(),
        ["fixtures", "real"] => fixtures::real(),
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}
