//! Words made from what a user wrote: file-name words (class names, `[sweep]` bindings; the one
//! rule for ORION's file prefixes and the chart files, so no name holds `%`, spaces or doubled
//! dashes), a class's access and mix as reports spell them, and a command line shell-quoted.

use rigel_expr::{Access, Mix};

/// A name as a file-name word: `%` spelt `pct`, every other run of characters a file name
/// should not hold one `-` (`small.mix-70% read` → `small.mix-70pct-read`).
pub(crate) fn file_word(text: &str) -> String {
    let mut out = String::new();
    for c in text.replace('%', "pct").chars() {
        if c.is_ascii_alphanumeric() || c == '.' || c == '_' {
            out.push(c);
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_matches('-').to_string()
}

/// A mix as reports spell it: `70% read, 30% write`, `100% read`.
pub(crate) fn mix_text(mix: &Mix) -> String {
    match (mix.read_percent, mix.trim_percent) {
        (_, 100) => "100% trim".to_string(),
        (100, _) => "100% read".to_string(),
        (0, 0) => "100% write".to_string(),
        (r, 0) => format!("{r}% read, {}% write", 100 - r),
        // Trims: the spec's own words, every share named.
        _ => mix.to_string(),
    }
}

/// An access pattern as reports spell it: `random`, `sequential`.
pub(crate) fn access_text(access: Access) -> &'static str {
    match access {
        Access::Random => "random",
        Access::Sequential => "sequential",
    }
}

/// Joins a command line so that a shell would split it back the same way.
pub(crate) fn shell_join(args: &[String]) -> String {
    let quote = |a: &String| {
        let plain = !a.is_empty()
            && a.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%^".contains(c));
        if plain {
            a.clone()
        } else {
            format!("'{}'", a.replace('\'', r"'\''"))
        }
    };
    args.iter().map(quote).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sweep_values_make_plain_file_names() {
        assert_eq!(file_word("seq.mix-read"), "seq.mix-read");
        assert_eq!(file_word("small.mix-70% read"), "small.mix-70pct-read");
        assert_eq!(file_word("seq.mix-100% read"), "seq.mix-100pct-read");
        assert_eq!(file_word("small.size-4KiB"), "small.size-4KiB");
        assert_eq!(file_word("io.rate-20000 iops"), "io.rate-20000-iops");
        assert_eq!(file_word("redo_log"), "redo_log");
    }

    #[test]
    fn shell_join_quotes_what_a_shell_would_split() {
        let args = [
            "rigel",
            "run",
            "my spec.toml",
            "--set",
            "lun=/dev/sdb",
            "it's",
        ]
        .map(String::from);
        assert_eq!(
            shell_join(&args),
            r"rigel run 'my spec.toml' --set lun=/dev/sdb 'it'\''s'"
        );
    }

    #[test]
    fn mix_text_names_both_directions() {
        assert_eq!(mix_text(&Mix::reads_of(70)), "70% read, 30% write");
        assert_eq!(mix_text(&Mix::READ), "100% read");
        assert_eq!(mix_text(&Mix::reads_of(0)), "100% write");
        let trims = rigel_expr::parse_mix("70% read, 20% write, 10% trim").expect("a mix");
        assert_eq!(mix_text(&trims), "70% read, 20% write, 10% trim");
        assert_eq!(mix_text(&Mix::TRIM), "100% trim");
    }
}
