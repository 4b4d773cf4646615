//! Module cycles inside one crate, read with `syn`: which module's code names which other module.
//!
//! A file's module path comes from its place under `src/` (`lib.rs`/`main.rs` is the root,
//! `a.rs` and `a/mod.rs` are `a`, `a/b.rs` is `a::b`). Every path in its code (`use` trees expanded,
//! types, expressions, patterns; not macro bodies, which syn keeps as tokens) that starts with
//! `crate::`, `super::` or `self::`, or names a child module, is resolved to the deepest module it
//! reaches, through one level of `pub use` re-exports. `pub use` itself is a facade, not a use, and
//! makes no edge. Edges are then drawn between siblings: inside the folder module `m`, between its
//! children, with `m`'s own file as the node `(self)`. Test code (`#[cfg(test)]` modules, and files
//! named `tests.rs`, `*_tests.rs`, `proptests.rs` or under a `tests/` folder) may use any module of
//! its crate and makes no edge.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};
use syn::visit::Visit;

/// Cycles that stay for now, each with why: (crate, module whose children form it, reason).
pub const ALLOWED: &[(&str, &str, &str)] = &[];

pub struct SourceFile {
    pub path: PathBuf,
    pub module: Vec<String>,
    pub text: String,
}

pub fn source_files(src: &Path) -> Vec<SourceFile> {
    let mut out = Vec::new();
    walk(src, src, &mut out);
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

fn walk(src: &Path, dir: &Path, out: &mut Vec<SourceFile>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        if path.is_dir() {
            walk(src, &path, out);
            continue;
        }
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let rel = path.strip_prefix(src).expect("under src");
        let mut module: Vec<String> = rel
            .with_extension("")
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect();
        if matches!(
            module.last().map(String::as_str),
            Some("mod" | "lib" | "main")
        ) {
            module.pop();
        }
        if is_test_file(rel) {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("a source file");
        out.push(SourceFile { path, module, text });
    }
}

fn is_test_file(rel: &Path) -> bool {
    let stem = rel.file_stem().map(|s| s.to_string_lossy().into_owned());
    matches!(stem.as_deref(), Some("tests" | "proptests"))
        || stem.is_some_and(|s| s.ends_with("_tests"))
        || rel.iter().any(|part| part == "tests")
}

/// Modules of one folder that import each other in a cycle (a strongly connected set), with the
/// place of every edge between them.
pub struct Cycle {
    pub module: String,
    pub edges: Vec<(String, String, String)>,
}

impl fmt::Display for Cycle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = if self.module.is_empty() {
            "the crate root".to_owned()
        } else {
            format!("`{}`", self.module)
        };
        write!(f, "in {at}:")?;
        for (from, to, place) in &self.edges {
            write!(f, "\n    {from} → {to} ({place})")?;
        }
        Ok(())
    }
}

pub type Graph = BTreeMap<String, BTreeMap<String, String>>;

pub fn cycles(files: &[SourceFile]) -> Vec<Cycle> {
    let modules: BTreeSet<Vec<String>> = files.iter().map(|f| f.module.clone()).collect();
    let parsed: Vec<(&SourceFile, syn::File)> = files
        .iter()
        .map(|f| {
            let ast =
                syn::parse_file(&f.text).unwrap_or_else(|e| panic!("{}: {e}", f.path.display()));
            (f, ast)
        })
        .collect();
    let mut names = Names::default();
    for (f, ast) in &parsed {
        let mut r = Refs::new(&f.module, &modules);
        r.visit_file(ast);
        names.reexports.insert(f.module.clone(), r.reexports);
        names.defined.insert(f.module.clone(), item_names(ast));
    }
    let mut graphs: BTreeMap<Vec<String>, Graph> = BTreeMap::new();
    for (f, ast) in &parsed {
        let mut r = Refs::new(&f.module, &modules);
        r.visit_file(ast);
        for (abs, line) in r.uses {
            if let Some(target) = resolve(&abs, &modules, &names) {
                add_edge(
                    &mut graphs,
                    &f.module,
                    &target,
                    format!("{}:{line}", short(&f.path)),
                );
            }
        }
    }
    let mut out = Vec::new();
    for (module, graph) in graphs {
        for set in strongly_connected(&graph) {
            let edges = set
                .iter()
                .flat_map(|a| {
                    graph[a]
                        .iter()
                        .filter(|(b, _)| set.contains(*b))
                        .map(move |(b, place)| (a.clone(), b.clone(), place.clone()))
                })
                .collect();
            out.push(Cycle {
                module: module.join("::"),
                edges,
            });
        }
    }
    out
}

/// The sets of two or more nodes that reach each other (Tarjan's algorithm).
pub fn strongly_connected(graph: &Graph) -> Vec<BTreeSet<String>> {
    struct State<'g> {
        graph: &'g Graph,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on_stack: BTreeSet<&'g str>,
        out: Vec<BTreeSet<String>>,
    }
    fn visit<'g>(s: &mut State<'g>, n: &'g str) {
        let i = s.index.len();
        s.index.insert(n, i);
        s.low.insert(n, i);
        s.stack.push(n);
        s.on_stack.insert(n);
        for next in s.graph.get(n).into_iter().flat_map(|e| e.keys()) {
            let next = next.as_str();
            if !s.index.contains_key(next) {
                visit(s, next);
                let l = s.low[next].min(s.low[n]);
                s.low.insert(n, l);
            } else if s.on_stack.contains(next) {
                let l = s.index[next].min(s.low[n]);
                s.low.insert(n, l);
            }
        }
        if s.low[n] == s.index[n] {
            let mut set = BTreeSet::new();
            while let Some(m) = s.stack.pop() {
                s.on_stack.remove(m);
                set.insert(m.to_owned());
                if m == n {
                    break;
                }
            }
            if set.len() > 1 {
                s.out.push(set);
            }
        }
    }
    let mut s = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for n in graph.keys() {
        if !s.index.contains_key(n.as_str()) {
            visit(&mut s, n);
        }
    }
    s.out
}

fn short(path: &Path) -> String {
    let s = path.to_string_lossy();
    match s.find("/src/") {
        Some(i) => s[i + 1..].to_owned(),
        None => s.into_owned(),
    }
}

/// What each module's own file defines (its top-level item names) and re-exports (`pub use`).
#[derive(Default)]
struct Names {
    defined: BTreeMap<Vec<String>, BTreeSet<String>>,
    reexports: BTreeMap<Vec<String>, Vec<(String, Vec<String>)>>,
}

/// The deepest module `abs` reaches, following a `pub use` of that module (by name, or a glob
/// whose module defines the name) when the name is not defined there.
fn resolve(abs: &[String], modules: &BTreeSet<Vec<String>>, names: &Names) -> Option<Vec<String>> {
    let deepest = |path: &[String]| {
        let mut d = 0;
        while d < path.len() && modules.contains(&path[..=d].to_vec()) {
            d += 1;
        }
        path[..d].to_vec()
    };
    let module = deepest(abs);
    let Some(name) = abs.get(module.len()) else {
        return Some(module);
    };
    if names.defined.get(&module).is_some_and(|d| d.contains(name)) {
        return Some(module);
    }
    let list = names.reexports.get(&module).map_or(&[][..], Vec::as_slice);
    let by_name = list.iter().find(|(n, _)| n == name).map(|(_, to)| to);
    let by_glob = || {
        list.iter()
            .filter(|(n, _)| n == "*")
            .map(|(_, to)| to)
            .find(|to| {
                names.defined.get(*to).is_some_and(|d| d.contains(name))
                    || names
                        .reexports
                        .get(*to)
                        .is_some_and(|r| r.iter().any(|(n, _)| n == name))
            })
    };
    match by_name.or_else(by_glob) {
        Some(to) if to.is_empty() => None,
        Some(to) => {
            let target = deepest(to);
            Some(if target.is_empty() { module } else { target })
        }
        None => Some(module),
    }
}

fn item_names(ast: &syn::File) -> BTreeSet<String> {
    ast.items
        .iter()
        .filter_map(|item| match item {
            syn::Item::Const(i) => Some(i.ident.to_string()),
            syn::Item::Enum(i) => Some(i.ident.to_string()),
            syn::Item::Fn(i) => Some(i.sig.ident.to_string()),
            syn::Item::Macro(i) => i.ident.as_ref().map(ToString::to_string),
            syn::Item::Static(i) => Some(i.ident.to_string()),
            syn::Item::Struct(i) => Some(i.ident.to_string()),
            syn::Item::Trait(i) => Some(i.ident.to_string()),
            syn::Item::Type(i) => Some(i.ident.to_string()),
            syn::Item::Union(i) => Some(i.ident.to_string()),
            _ => None,
        })
        .collect()
}

fn add_edge(
    graphs: &mut BTreeMap<Vec<String>, Graph>,
    from: &[String],
    to: &[String],
    place: String,
) {
    let common = from.iter().zip(to).take_while(|(a, b)| a == b).count();
    if common == from.len() && common == to.len() {
        return;
    }
    let node = |m: &[String]| match m.get(common) {
        Some(child) => child.clone(),
        None => "(self)".to_owned(),
    };
    let graph = graphs.entry(from[..common].to_vec()).or_default();
    graph
        .entry(node(from))
        .or_default()
        .entry(node(to))
        .or_insert(place);
}

/// The paths one file names, resolved to absolute module paths, and its `pub use` re-exports.
struct Refs<'a> {
    scope: Vec<String>,
    modules: &'a BTreeSet<Vec<String>>,
    uses: Vec<(Vec<String>, usize)>,
    reexports: Vec<(String, Vec<String>)>,
}

impl<'a> Refs<'a> {
    fn new(module: &[String], modules: &'a BTreeSet<Vec<String>>) -> Self {
        Refs {
            scope: module.to_vec(),
            modules,
            uses: Vec::new(),
            reexports: Vec::new(),
        }
    }

    /// `segments` as written in the current scope → an absolute path in this crate, or None for
    /// another crate's path, std's, or a local name.
    fn absolute(&self, segments: &[String]) -> Option<Vec<String>> {
        let first = segments.first()?;
        let mut base = self.scope.clone();
        let mut rest = segments;
        match first.as_str() {
            "crate" => {
                base.clear();
                rest = &segments[1..];
            }
            "self" => rest = &segments[1..],
            "super" => {
                while rest.first().is_some_and(|s| s == "super") {
                    base.pop()?;
                    rest = &rest[1..];
                }
            }
            name => {
                let mut child = base.clone();
                child.push(name.to_owned());
                if !self.modules.contains(&child) {
                    return None;
                }
            }
        }
        base.extend(rest.iter().cloned());
        Some(base)
    }

    fn record(&mut self, segments: &[String], line: usize) {
        if let Some(abs) = self.absolute(segments) {
            self.uses.push((abs, line));
        }
    }
}

fn use_paths(tree: &syn::UseTree, prefix: &mut Vec<String>, out: &mut Vec<(Vec<String>, String)>) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            use_paths(&p.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(n) => {
            let name = n.ident.to_string();
            let mut path = prefix.clone();
            if name != "self" {
                path.push(name.clone());
            }
            let alias = if name == "self" {
                prefix.last().cloned().unwrap_or_default()
            } else {
                name
            };
            out.push((path, alias));
        }
        syn::UseTree::Rename(r) => {
            let mut path = prefix.clone();
            if r.ident != "self" {
                path.push(r.ident.to_string());
            }
            out.push((path, r.rename.to_string()));
        }
        syn::UseTree::Glob(_) => out.push((prefix.clone(), "*".to_owned())),
        syn::UseTree::Group(g) => {
            for t in &g.items {
                use_paths(t, prefix, out);
            }
        }
    }
}

impl<'ast> Visit<'ast> for Refs<'_> {
    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        let mut paths = Vec::new();
        use_paths(&item.tree, &mut Vec::new(), &mut paths);
        let line = item.use_token.span.start().line;
        let public = !matches!(item.vis, syn::Visibility::Inherited);
        for (path, alias) in paths {
            if public {
                // Another crate's item re-exported: an empty path, which resolves to no module.
                let abs = self.absolute(&path).unwrap_or_default();
                self.reexports.push((alias, abs));
            } else {
                self.record(&path, line);
            }
        }
    }

    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        let test_only = item.attrs.iter().any(|a| {
            a.path().is_ident("cfg") && a.parse_args::<syn::Ident>().is_ok_and(|i| i == "test")
        });
        if item.content.is_some() && !test_only {
            self.scope.push(item.ident.to_string());
            syn::visit::visit_item_mod(self, item);
            self.scope.pop();
        }
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        if segments.len() > 1 {
            let line = path
                .segments
                .first()
                .map_or(0, |s| s.ident.span().start().line);
            self.record(&segments, line);
        }
        syn::visit::visit_path(self, path);
    }
}

#[cfg(test)]
mod planted {
    use super::*;

    fn file(module: &str, text: &str) -> SourceFile {
        let module: Vec<String> = module
            .split("::")
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect();
        SourceFile {
            path: PathBuf::from(format!("src/{}.rs", module.join("/"))),
            module,
            text: text.to_owned(),
        }
    }

    #[test]
    fn a_grouped_import_after_a_string_holding_slashes_closes_a_cycle() {
        let files = [
            file("", "mod plan; mod report;"),
            file(
                "plan",
                "const URL: &str = \"http://x/*\";\nuse crate::{\n    report::{Format, Dialect},\n    plan::RunPlan,\n};",
            ),
            file(
                "report",
                "pub struct Format; fn f(_: crate::plan::RunPlan) {}",
            ),
        ];
        let found = cycles(&files);
        assert_eq!(found.len(), 1);
        assert!(found[0].to_string().contains("plan"), "{}", found[0]);
    }

    #[test]
    fn a_parent_and_its_child_using_each_other_is_a_cycle() {
        let files = [
            file(
                "runner",
                "mod finish; fn run() { finish::finish(); } pub fn is_failed() {}",
            ),
            file("runner::finish", "pub fn finish() { super::is_failed(); }"),
        ];
        let found = cycles(&files);
        assert_eq!(found.len(), 1, "one cycle");
        assert_eq!(found[0].module, "runner");
    }

    #[test]
    fn a_facade_reexport_is_not_a_use_and_resolves_to_its_module() {
        let files = [
            file("", "mod a; mod b; pub use a::Thing;"),
            file("a", "pub struct Thing; fn f(_: crate::b::Other) {}"),
            file("b", "pub struct Other; fn g(_: super::Thing) {}"),
        ];
        let found = cycles(&files);
        assert_eq!(found.len(), 1, "b uses a through the root's re-export");
        let one_way = [
            file("", "mod a; mod b; pub use a::Thing;"),
            file("a", "pub struct Thing;"),
            file(
                "b",
                "fn g(_: super::Thing) {} #[cfg(test)] mod tests { use super::*; }",
            ),
        ];
        assert!(cycles(&one_way).is_empty());
    }
}
