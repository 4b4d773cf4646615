//! How a rigel run maps onto ORION's file names: the files' prefix (one set per `[sweep]`
//! combination) and ORION's command line. Which classes play ORION's roles is the results model's
//! (`rigel_results::view::roles`).

use crate::context::shell_join;
use rigel_plan::SweepBinding;
use rigel_results::ResultsDoc;

/// ORION's command line: what followed `orion` when rigel ran as ORION, else rigel's whole command.
pub fn orion_commandline(command: &[String]) -> String {
    match command.iter().position(|a| a == "orion") {
        Some(i) if i <= 1 => shell_join(&command[i + 1..]),
        _ => shell_join(command),
    }
}

/// `<testname>_<yyyymmdd>_<hhmm>` from the run's start (in its own offset); a sweep adds its values
/// to the test name (`t-small.size-4KiB_20250101_1200`) so each matrix gets its own files.
pub fn prefix(doc: &ResultsDoc, testname: &str, sweep: &[SweepBinding]) -> String {
    let stamp = chrono::DateTime::parse_from_rfc3339(doc.started())
        .map(|t| t.format("%Y%m%d_%H%M").to_string())
        .unwrap_or_else(|_| chrono::Local::now().format("%Y%m%d_%H%M").to_string());
    let mut name = testname.to_string();
    for b in sweep {
        let slug: String = format!("{}-{}", b.key, b.value)
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                    c
                } else {
                    '-'
                }
            })
            .collect();
        name.push('-');
        name.push_str(&slug);
    }
    format!("{name}_{stamp}")
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orion_commandline_is_what_followed_orion() {
        let cmd = ["rigel", "orion", "-run", "simple"].map(String::from);
        assert_eq!(orion_commandline(&cmd), "-run simple");
        let cmd = ["rigel", "run", "specs/orion/simple.toml"].map(String::from);
        assert_eq!(orion_commandline(&cmd), "rigel run specs/orion/simple.toml");
    }
}
