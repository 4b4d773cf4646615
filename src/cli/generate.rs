//! `rigel generate completions SHELL` and `rigel generate man DIR`, from the clap definition itself
//! (so `orion` and every option are included), with rigel's own man sections (`man.rs`).

use super::args::{Cli, GenerateArgs};
use super::exit;
use clap::CommandFactory;

pub fn run(a: &GenerateArgs) -> i32 {
    let mut cmd = Cli::command();
    match a {
        GenerateArgs::Completions { shell } => {
            let mut script = Vec::new();
            clap_complete::generate(*shell, &mut cmd, "rigel", &mut script);
            // A closed pipe (`| head`) is not an error worth a panic.
            let _ = std::io::Write::write_all(&mut std::io::stdout(), &script);
            exit::OK
        }
        GenerateArgs::Man { dir } => {
            if let Err(e) = std::fs::create_dir_all(dir) {
                eprintln!("rigel generate man: cannot create {}: {e}", dir.display());
                return exit::RUNTIME;
            }
            match super::man::generate(cmd, dir, super::orion::HELP) {
                Ok(()) => {
                    eprintln!("man pages written to {}", dir.display());
                    exit::OK
                }
                Err(e) => {
                    eprintln!(
                        "rigel generate man: cannot write into {}: {e}",
                        dir.display()
                    );
                    exit::RUNTIME
                }
            }
        }
    }
}
