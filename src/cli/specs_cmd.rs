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
        let lines = wrap(&e.description(), 40);
        let shadowed = if e.shadowed {
            "  (shadowed by the one above)"
        } else {
            ""
        };
        let first = lines.first().map_or("", String::as_str);
        outln!(
            "{:width$}  {first:40}  {}{shadowed}",
            e.name,
            e.origin.display()
        );
        // The rest of the description under its first line, whole (never cut).
        for line in lines.iter().skip(1) {
            outln!("{:width$}  {line}", "");
        }
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
    // Standard output is a copy that loads where it is saved; the guide goes to the terminal.
    match entry.standalone_text() {
        Ok(text) => {
            eprintln!("# {}", entry.origin.display());
            for line in super::specs_guide::lines(name) {
                eprintln!("# {line}");
            }
            outln!("{}", text.trim_end());
            exit::OK
        }
        Err(e) => {
            eprintln!("rigel specs: cannot read `{}`: {e}", entry.origin.display());
            exit::RUNTIME
        }
    }
}

/// `text` in lines of at most `width` characters, broken at spaces (a longer word stands alone).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        match lines.last_mut() {
            Some(line) if line.chars().count() + 1 + word.chars().count() <= width => {
                line.push(' ');
                line.push_str(word);
            }
            _ => lines.push(word.to_owned()),
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    #[test]
    fn wrap_keeps_every_word() {
        let text = "Oracle OLTP: 8 KiB zipf 70/30 and 1 MiB scans on the data LUNs, dsync redo";
        let lines = super::wrap(text, 40);
        assert!(lines.iter().all(|l| l.chars().count() <= 40), "{lines:?}");
        assert_eq!(lines.join(" "), text);
    }
}
