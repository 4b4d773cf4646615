//! File-name words made from what a user wrote (class names, `[sweep]` bindings): the one rule
//! for ORION's file prefixes and the chart files, so no name holds `%`, spaces or doubled dashes.

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
}
