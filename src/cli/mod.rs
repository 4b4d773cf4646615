//! The command line: the only layer that knows clap, prints, shows progress, or picks exit codes.

mod args;
mod capture;
mod check;
mod compare;
pub mod exit;
mod fio;
mod fleet;
mod generate;
mod history_cmd;
mod integrity;
mod man;
mod orion;
mod plan_cmd;
mod plan_table;
mod progress;
mod replay;
mod report_cmd;
mod run;
mod specs;
mod specs_cmd;
mod specs_guide;
mod style;
mod summary;
mod verify_cmd;

use args::{Cli, Command};
use clap::Parser;
use style::outln;

/// Runs the command line and returns the process exit code.
pub fn main() -> i32 {
    // ORION's options take one dash (`-run simple`): its command line is parsed by hand.
    // clap knows `orion` too, for `rigel --help`, completions and man pages.
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args.get(1).is_some_and(|a| a == "orion") {
        return orion::main(&args[2..], false, args::ColorChoice::Auto);
    }
    // fio's options take `--option=value` forms clap does not know: parsed by hand too.
    if args.get(1).is_some_and(|a| a == "fio") {
        return fio::main(&args[2..]);
    }
    if args.len() == 3 && args[1] == "help" && args[2] == "orion" {
        return orion::main(&["-help".into()], false, args::ColorChoice::Auto);
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            if let Some(hint) = subcommand_hint(&e) {
                eprintln!("\n  tip: {hint}");
            }
            return if e.use_stderr() {
                exit::BAD_SPEC
            } else {
                exit::OK
            };
        }
    };
    style::init(cli.quiet, cli.color);
    match cli.command {
        Command::Check(a) => check::run(&a),
        Command::Plan(a) => plan_cmd::run(&a),
        Command::Run(a) => match fleet::folder(&a) {
            Some(dir) => fleet::run(&a, &dir),
            None => run::run(&a),
        },
        Command::Report(a) => report_cmd::run(&a),
        Command::Compare(a) => compare::run(&a),
        Command::History(a) => history_cmd::run(&a),
        Command::Specs(a) => specs_cmd::run(&a),
        Command::Schema => {
            outln!("{}", rigel_spec::json_schema::text().trim_end());
            exit::OK
        }
        Command::Generate(a) => generate::run(&a),
        Command::Orion(a) => orion::main(&a.args, cli.quiet, cli.color),
        Command::Fio(a) => fio::main(&a.args),
        Command::Merge(a) => fleet::merge(&a),
        Command::Capture(a) => capture::capture(&a),
        Command::Derive(a) => capture::derive(&a),
        Command::Replay(a) => replay::run(&a),
        Command::Verify(a) => verify_cmd::run(&a),
    }
}

/// "Did you mean" for a mistyped subcommand (`rigel rnu`), when clap offers none itself.
fn subcommand_hint(e: &clap::Error) -> Option<String> {
    use clap::error::{ContextKind, ContextValue};
    if e.get(ContextKind::SuggestedSubcommand).is_some() {
        return None;
    }
    let Some(ContextValue::String(typed)) = e.get(ContextKind::InvalidSubcommand) else {
        return None;
    };
    let cmd = <Cli as clap::CommandFactory>::command();
    rigel_expr::suggest::did_you_mean(typed, cmd.get_subcommands().map(|c| c.get_name()))
}
