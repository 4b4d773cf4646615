//! Where rigel-exec's `unsafe` may be: only under `src/engines/` (the engines, their buffer arena
//! and `sys`, the OS calls that need it), so the policy, the coordinator and `verify` are safe
//! code and every `unsafe` block of the workspace is in one folder to audit. Read as tokens (the
//! compiler's lexer, `proc_macro2`): an `unsafe` in code or a macro body counts, one in a comment
//! or a string does not.

use proc_macro2::{TokenStream, TokenTree};
use std::path::Path;

/// The one folder of rigel-exec's `src/` whose files may hold `unsafe`.
pub const UNSAFE_HOME: &str = "engines";

/// Files outside [`UNSAFE_HOME`] that still hold `unsafe`, each with why (empty it, don't grow
/// it): (path under rigel-exec's `src/`, reason).
pub const ALLOWED: &[(&str, &str)] = &[];

/// The lines of `text` (Rust source) where the token `unsafe` appears.
pub fn unsafe_lines(text: &str) -> Vec<usize> {
    let tokens: TokenStream = text.parse().unwrap_or_else(|e| panic!("{e:?}"));
    let mut lines = Vec::new();
    walk(tokens, &mut lines);
    lines
}

fn walk(tokens: TokenStream, lines: &mut Vec<usize>) {
    for tree in tokens {
        match tree {
            TokenTree::Group(g) => walk(g.stream(), lines),
            TokenTree::Ident(i) if i == "unsafe" => lines.push(i.span().start().line),
            _ => {}
        }
    }
}

/// Every `.rs` file below `dir` that is not under `dir/UNSAFE_HOME`, with its path from `dir`.
pub fn outside_home(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let path = entry.expect("a directory entry").path();
            let rel = path
                .strip_prefix(dir)
                .expect("below src")
                .to_string_lossy()
                .into_owned();
            if path.is_dir() {
                if rel != UNSAFE_HOME {
                    stack.push(path);
                }
            } else if rel.ends_with(".rs") {
                let text = std::fs::read_to_string(&path)
                    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                out.push((rel, text));
            }
        }
    }
    out.sort();
    out
}

#[cfg(test)]
mod planted {
    use super::unsafe_lines;

    #[test]
    fn code_and_macro_bodies_count_comments_and_strings_do_not() {
        let text = "// unsafe in a comment\n\
                    /// unsafe in a doc comment\n\
                    fn a() { let s = \"unsafe\"; }\n\
                    fn b() { unsafe { c() } }\n\
                    m! { unsafe impl X for Y {} }\n\
                    fn unsafe_named() {}\n";
        assert_eq!(unsafe_lines(text), vec![4, 5]);
    }
}
