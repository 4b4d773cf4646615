//! "Did you mean": the one rule for offering a known word in place of a misspelt one (a spec's
//! key, a class, a requirement's metric, an ORION option, a template variable, a subcommand).
//!
//! The metric is Damerau–Levenshtein's edit distance, normalised by the longer word's length and
//! ignoring case: a transposition (`rnu` for `run`) counts as one edit, which Jaro–Winkler's
//! matching window misses on short words.

/// How alike two words must be (1 is equal) to be offered: half the letters right.
const ALIKE: f64 = 0.5;

/// The candidate nearest to `word`, when one is near enough to be a likely typo; the first of
/// equally near ones.
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let word = word.to_lowercase();
    let mut best: Option<(f64, &'a str)> = None;
    for c in candidates {
        let score = strsim::normalized_damerau_levenshtein(&word, &c.to_lowercase());
        if score >= ALIKE && best.is_none_or(|(b, _)| score > b) {
            best = Some((score, c));
        }
    }
    best.map(|(_, c)| c)
}

/// The hint naming the nearest candidate: ``did you mean `name`?``.
pub fn did_you_mean<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<String> {
    did_you_mean_spelt("", word, candidates)
}

/// [`did_you_mean`] for a word written after `prefix`, as an option after its dashes (`-size`).
pub fn did_you_mean_spelt<'a>(
    prefix: &str,
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<String> {
    closest(word, candidates).map(|c| format!("did you mean `{prefix}{c}`?"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typos_find_their_word_and_strangers_find_none() {
        let words = ["run", "report", "plan", "check"];
        assert_eq!(closest("rnu", words), Some("run"));
        assert_eq!(closest("reprot", words), Some("report"));
        assert_eq!(closest("PLAN", words), Some("plan"));
        assert_eq!(closest("zzzz", words), None);
        assert_eq!(closest("anything", []), None);
    }

    #[test]
    fn hints_name_the_word_as_written() {
        assert_eq!(
            did_you_mean("targts", ["targets", "cores"]).as_deref(),
            Some("did you mean `targets`?")
        );
        assert_eq!(
            did_you_mean_spelt("-", "sise_small", ["size_small", "size_large"]).as_deref(),
            Some("did you mean `-size_small`?")
        );
    }

    #[test]
    fn the_first_of_equally_near_words_wins() {
        assert_eq!(closest("cat", ["bat", "hat"]), Some("bat"));
    }
}
