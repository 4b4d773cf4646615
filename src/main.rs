//! The `rigel` binary: everything lives in the library; `cli` alone prints and picks exit codes.

fn main() {
    std::process::exit(rigel::cli::main());
}
