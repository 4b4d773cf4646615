//! How a rigel run maps onto ORION's file names: the files' prefix (one set per `[sweep]`
//! combination) and ORION's command line. Which classes play ORION's roles is the results model's
//! (`rigel_results::view::roles`).

use crate::names::file_word;
use crate::names::shell_join;
use rigel_plan::SweepBinding;
use rigel_results::ResultsDoc;

/// ORION's command line: what followed `orion` when rigel ran as ORION, else rigel's whole command.
/// rigel's own options (`--dialect 11.1`, `--color never`, `-q`) are left out: ORION never had them.
pub fn orion_commandline(command: &[String]) -> String {
    let Some(args) = orion_options(command) else {
        return shell_join(command);
    };
    let mut kept = Vec::new();
    let mut skip_value = false;
    for a in args {
        if std::mem::take(&mut skip_value) {
            continue;
        }
        if a.starts_with("--") {
            skip_value = a == "--dialect" || a == "--color";
            continue;
        }
        if a != "-q" {
            kept.push(a.clone());
        }
    }
    shell_join(&kept)
}

/// ORION's options as the run's recorded command gave them (what followed `orion`), or none when
/// rigel did not run as ORION.
fn orion_options(command: &[String]) -> Option<&[String]> {
    let i = command
        .iter()
        .position(|a| a == "orion")
        .filter(|&i| i <= 1)?;
    Some(&command[i + 1..])
}

/// The `Cache Size:` line's value: `-cache_size` as given (ORION's MB), else ORION's `Not Entered`.
/// ORION matches its option names without regard to case (`-Cache_Size` is accepted), so this does too.
pub fn cache_size(command: &[String]) -> String {
    orion_options(command)
        .and_then(|args| {
            let at = args
                .iter()
                .position(|a| a.eq_ignore_ascii_case("-cache_size"))?;
            args.get(at + 1)?.trim().parse::<u64>().ok()
        })
        .map_or_else(|| "Not Entered".to_string(), |mb| format!("{mb} MB"))
}

/// `<testname>_<yyyymmdd>_<hhmm>` from the run's start (in its own offset); a sweep adds its values
/// to the test name (`t-small.size-4KiB_20250101_1200`) so each matrix gets its own files.
pub fn prefix(doc: &ResultsDoc, testname: &str, sweep: &[SweepBinding]) -> String {
    let stamp = chrono::DateTime::parse_from_rfc3339(doc.started())
        .map(|t| t.format("%Y%m%d_%H%M").to_string())
        .unwrap_or_else(|_| chrono::Local::now().format("%Y%m%d_%H%M").to_string());
    let mut name = testname.to_string();
    for b in sweep {
        name.push('-');
        name.push_str(&file_word(&format!("{}-{}", b.key, b.value)));
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
        let cmd = [
            "rigel",
            "orion",
            "-q",
            "--color",
            "never",
            "-run",
            "simple",
            "--dialect",
            "11.1",
            "--plan",
            "--color=always",
            "-duration",
            "5",
        ]
        .map(String::from);
        assert_eq!(orion_commandline(&cmd), "-run simple -duration 5");
    }

    #[test]
    fn cache_size_is_the_one_given_else_not_entered() {
        let cmd = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let zero = cmd(&["rigel", "orion", "-run", "simple", "-cache_size", "0"]);
        assert_eq!(cache_size(&zero), "0 MB");
        let big = cmd(&["rigel", "orion", "-Cache_Size", "4096", "-run", "oltp"]);
        assert_eq!(cache_size(&big), "4096 MB");
        assert_eq!(
            cache_size(&cmd(&["rigel", "orion", "-run", "simple"])),
            "Not Entered"
        );
        // A spec run is not ORION's: nothing was entered, whatever its words.
        let run = cmd(&["rigel", "run", "x.toml", "--set", "-cache_size"]);
        assert_eq!(cache_size(&run), "Not Entered");
    }
}
