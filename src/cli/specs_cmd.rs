//! `rigel specs [NAME]`: the specs found by name (the folders of `RIGEL_PATH`, then the built-in
//! ones), or one spec's TOML.

use super::args::SpecsArgs;
use super::exit;
use super::style::outln;
use rigel_spec::library::{ENV, Library};

pub fn run(a: &SpecsArgs) -> i32 {
    let library = Library::from_env();
    match &a.name {
        Some(name) => show(&library, name),
        None => list(&library),
    }
}

fn list(library: &Library) -> i32 {
    let entries = library.list();
    let width = entries.iter().map(|e| e.name.len()).max().unwrap_or(0);
    outln!("{:width$}  {:40}  FILE", "NAME", "DESCRIPTION");
    for e in &entries {
        let mut description = e.description();
        if description.chars().count() > 40 {
            description = description.chars().take(39).collect::<String>() + "…";
        }
        let shadowed = if e.shadowed {
            "  (shadowed by the one above)"
        } else {
            ""
        };
        outln!(
            "{:width$}  {description:40}  {}{shadowed}",
            e.name,
            e.origin.display()
        );
    }
    if library.dirs.is_empty() {
        super::style::note(format!(
            "{ENV} is not set: only the built-in specs are listed"
        ));
    }
    exit::OK
}

fn show(library: &Library, name: &str) -> i32 {
    let origin = match library.find(name) {
        Ok(o) => o,
        Err(miss) => {
            eprintln!("rigel specs: {}\n  help: {}", miss.message(), miss.hint());
            return exit::BAD_SPEC;
        }
    };
    let entry = rigel_spec::library::Entry {
        name: name.to_owned(),
        origin,
        shadowed: false,
    };
    match entry.text() {
        Ok(text) => {
            eprintln!("# {}", entry.origin.display());
            outln!("{}", text.trim_end());
            exit::OK
        }
        Err(e) => {
            eprintln!("rigel specs: cannot read `{}`: {e}", entry.origin.display());
            exit::RUNTIME
        }
    }
}
