//! A test of the pipeline's one-way data flow: no stage imports from a stage after it.

use std::path::Path;

/// The core stages in order. Each may use its own modules, the earlier stages', and the leaves:
/// `expr` (the value grammar) and `units` (the one formatting module). Anything else it names
/// (`report`, `runner`, `cli`, ...) comes later.
const STAGES: [&str; 6] = ["spec", "plan", "results", "target", "exec", "stats"];
const LEAVES: [&str; 2] = ["expr", "units"];

/// The crate modules a source tree names as `crate::<module>`.
fn imports(dir: &Path, found: &mut Vec<(String, String)>) {
    let entries = std::fs::read_dir(dir).expect("read the source folder");
    for entry in entries {
        let path = entry.expect("a folder entry").path();
        if path.is_dir() {
            imports(&path, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).expect("read a source file");
            for (at, _) in text.match_indices("crate::") {
                let name: String = text[at + 7..]
                    .chars()
                    .take_while(|c| c.is_ascii_lowercase() || *c == '_')
                    .collect();
                found.push((path.display().to_string(), name));
            }
        }
    }
}

#[test]
fn no_stage_imports_a_later_one() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut wrong = Vec::new();
    for (i, stage) in STAGES.iter().enumerate() {
        let mut found = Vec::new();
        imports(&src.join(stage), &mut found);
        assert!(!found.is_empty(), "{stage}: no imports read");
        for (file, name) in found {
            let allowed = STAGES[..=i].contains(&name.as_str()) || LEAVES.contains(&name.as_str());
            if !allowed {
                wrong.push(format!("{file}: crate::{name}"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports from a later stage:\n{}",
        wrong.join("\n")
    );
}
