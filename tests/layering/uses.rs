//! What a crate's code uses, read from its tokens (comments are not tokens, strings and doc
//! comments are literals, so neither counts): the crates its paths start with, in code,
//! attributes (`#[derive(serde::Serialize)]`, `#[serial_test::serial]`) and macro bodies alike;
//! and the files it includes (`include_str!`, `include_bytes!`), which must lie in its own folder
//! so that the crate builds from it alone (`cargo package`).

use proc_macro2::{Spacing, TokenStream, TokenTree};
use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

/// Dependencies declared and named by no code, each with why: (crate, dependency, why).
pub const NAMED_ONLY: &[(&str, &str, &str)] = &[(
    "rigel-pdf",
    "subsetter",
    "pins krilla's font subsetter at 0.2.3 (see the root Cargo.toml): later ones bring a second \
     font stack into the binary",
)];

/// Crates whose includes still leave their folder, each with why: (crate, why).
pub const LEAVING_ALLOWED: &[(&str, &str)] = &[];

/// An `include_str!`/`include_bytes!` of one file: where it is written and the file it names
/// (`None` when its argument is not a literal path the test can follow).
pub struct Include {
    pub file: PathBuf,
    pub line: usize,
    pub target: Option<PathBuf>,
}

/// What the `.rs` files under `paths` (files or folders) use.
#[derive(Default)]
pub struct Uses {
    /// The first segment of every path (`serde` of `serde::Serialize`, `use toml;`).
    pub roots: BTreeSet<String>,
    pub includes: Vec<Include>,
}

impl Uses {
    pub fn of(paths: &[PathBuf], manifest_dir: &Path) -> Uses {
        let mut uses = Uses::default();
        for file in paths.iter().flat_map(|p| rs_files(p)) {
            let text = std::fs::read_to_string(&file)
                .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            let tokens: TokenStream = text
                .parse()
                .unwrap_or_else(|e| panic!("{}: {e:?}", file.display()));
            uses.walk(tokens, &file, manifest_dir);
        }
        uses
    }

    fn walk(&mut self, tokens: TokenStream, file: &Path, manifest_dir: &Path) {
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        for (i, tree) in trees.iter().enumerate() {
            match tree {
                TokenTree::Group(g) => self.walk(g.stream(), file, manifest_dir),
                TokenTree::Ident(ident) => {
                    let name = ident.to_string();
                    let next = trees.get(i + 1);
                    if path_sep(&trees, i + 1) && !after_path_sep(&trees, i) {
                        self.roots.insert(name.trim_start_matches("r#").to_owned());
                    } else if (name == "use" || name == "crate")
                        && let Some(TokenTree::Ident(dep)) = next
                    {
                        // `use toml;`, `extern crate libc;`
                        self.roots.insert(dep.to_string());
                    }
                    if (name == "include_str" || name == "include_bytes")
                        && matches!(next, Some(TokenTree::Punct(p)) if p.as_char() == '!')
                        && let Some(TokenTree::Group(args)) = trees.get(i + 2)
                    {
                        self.includes.push(Include {
                            file: file.to_owned(),
                            line: ident.span().start().line,
                            target: include_target(args.stream(), file, manifest_dir),
                        });
                    }
                }
                _ => {}
            }
        }
    }
}

/// Whether `trees[i..]` starts with `::`.
fn path_sep(trees: &[TokenTree], i: usize) -> bool {
    matches!(
        (trees.get(i), trees.get(i + 1)),
        (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b)))
            if a.as_char() == ':' && a.spacing() == Spacing::Joint && b.as_char() == ':'
    )
}

/// Whether the ident at `i` follows `a::` or `<T>::` (a later segment, not a path's first); after
/// a leading `::` (`::serde::Serialize`) it still starts a path.
fn after_path_sep(trees: &[TokenTree], i: usize) -> bool {
    i >= 3
        && path_sep(trees, i - 2)
        && match &trees[i - 3] {
            TokenTree::Ident(_) => true,
            TokenTree::Punct(p) => p.as_char() == '>',
            _ => false,
        }
}

/// The file an include's argument names: a string literal relative to the including file, or
/// `concat!(env!("CARGO_MANIFEST_DIR"), "…")` relative to the crate's folder.
fn include_target(args: TokenStream, file: &Path, manifest_dir: &Path) -> Option<PathBuf> {
    let trees: Vec<TokenTree> = args.into_iter().collect();
    match trees.as_slice() {
        [TokenTree::Literal(lit)] => {
            let rel = string_literal(&lit.to_string())?;
            Some(normal(&file.parent()?.join(rel)))
        }
        [
            TokenTree::Ident(concat),
            TokenTree::Punct(bang),
            TokenTree::Group(parts),
        ] if concat == "concat" && bang.as_char() == '!' => {
            let text = parts.stream().to_string();
            if !text.starts_with("env ! (\"CARGO_MANIFEST_DIR\")") {
                return None;
            }
            let mut path = manifest_dir.as_os_str().to_owned();
            for tree in parts.stream().into_iter().skip(3) {
                if let TokenTree::Literal(lit) = tree {
                    path.push(string_literal(&lit.to_string())?);
                }
            }
            Some(normal(Path::new(&path)))
        }
        _ => None,
    }
}

/// The text of a plain string literal (`"…"` without escapes), as written.
fn string_literal(lit: &str) -> Option<String> {
    let inner = lit.strip_prefix('"')?.strip_suffix('"')?;
    (!inner.contains('\\')).then(|| inner.to_owned())
}

/// `path` with `.` and `..` resolved by its text (no link followed: the compiler does the same).
pub fn normal(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// Every `.rs` file under `path` (a file or a folder), `target/` left out.
fn rs_files(path: &Path) -> Vec<PathBuf> {
    if path.is_file() {
        return vec![path.to_owned()];
    }
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(path) else {
        return out;
    };
    for entry in entries.filter_map(Result::ok) {
        let p = entry.path();
        if p.is_dir() && p.file_name().is_some_and(|n| n != "target") {
            out.extend(rs_files(&p));
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
    out.sort();
    out
}

/// The name code uses for the package `package` (its library's default name).
pub fn lib_name(package: &str) -> String {
    package.replace('-', "_")
}

#[cfg(test)]
mod planted {
    use super::*;

    fn scan(code: &str) -> Uses {
        let mut uses = Uses::default();
        let dir = Path::new("/w/crates/c");
        uses.walk(code.parse().unwrap(), &dir.join("src/a/b.rs"), dir);
        uses
    }

    #[test]
    fn paths_attributes_and_macro_bodies_name_crates_but_comments_and_strings_do_not() {
        let uses = scan(
            "use serde::{Serialize};\n#[derive(thiserror::Error)]\nstruct E;\n\
             // libc::close\n/// [`rustix::fs`]\nfn f() { println!(\"{}\", serde_json::to_string(&1)); \
             let _ = \"toml::x\"; a::fastrand::u8(); ::quanta::Clock::new(); }\nuse flate2;\n",
        );
        let roots: Vec<&str> = uses.roots.iter().map(String::as_str).collect();
        for used in ["serde", "thiserror", "serde_json", "quanta", "flate2", "a"] {
            assert!(roots.contains(&used), "{used} not in {roots:?}");
        }
        for not in ["libc", "rustix", "toml", "fastrand"] {
            assert!(!roots.contains(&not), "{not} in {roots:?}");
        }
    }

    #[test]
    fn includes_resolve_from_the_file_or_the_manifest() {
        let uses = scan(
            "const A: &str = include_str!(\"../../specs/x.toml\");\n\
             const B: &[u8] = include_bytes!(concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/../../t/y\"));\n\
             const C: &str = include_str!(some_macro!());\n",
        );
        let targets: Vec<Option<PathBuf>> =
            uses.includes.iter().map(|i| i.target.clone()).collect();
        assert_eq!(
            targets,
            [
                Some(PathBuf::from("/w/crates/c/specs/x.toml")),
                Some(PathBuf::from("/w/t/y")),
                None
            ]
        );
        assert_eq!(uses.includes[1].line, 2);
    }
}
