//! The `rigel` binary: everything lives in the library; `cli` alone prints and picks exit codes.

fn main() {
    // A child rigel renders one user template under a memory limit (see report::isolate).
    if let Some(code) = rigel::report::serve_template_child() {
        std::process::exit(code);
    }
    rigel::report::isolate_user_templates();
    std::process::exit(rigel::cli::main());
}
