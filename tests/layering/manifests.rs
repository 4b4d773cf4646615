//! The crates' manifests against the crate graph written once in the root Cargo.toml's
//! `[workspace.metadata.rigel.edges.*]`: which workspace crates each crate may depend on, and why.

/// The allowed edges (crate → dependency → why) and the test support crates, from the root manifest.
pub fn graph(root_manifest: &str) -> Graph {
    let doc: toml::Table = root_manifest.parse().expect("the root Cargo.toml");
    let rigel = doc
        .get("workspace")
        .and_then(|w| w.get("metadata"))
        .and_then(|m| m.get("rigel"))
        .unwrap_or_else(|| panic!("[workspace.metadata.rigel] in the root Cargo.toml"));
    let support = rigel
        .get("support")
        .and_then(|s| s.as_array())
        .unwrap_or_else(|| {
            panic!("[workspace.metadata.rigel] support = [...] in the root Cargo.toml")
        })
        .iter()
        .map(|s| s.as_str().expect("a crate name").to_owned())
        .collect();
    let edges = rigel
        .get("edges")
        .and_then(|e| e.as_table())
        .unwrap_or_else(|| panic!("[workspace.metadata.rigel.edges.*] in the root Cargo.toml"))
        .iter()
        .map(|(krate, deps)| {
            let deps = deps
                .as_table()
                .unwrap_or_else(|| panic!("[workspace.metadata.rigel.edges.{krate}]: a table"))
                .iter()
                .map(|(dep, why)| {
                    let why = why.as_str().unwrap_or_default();
                    assert!(
                        !why.trim().is_empty(),
                        "[workspace.metadata.rigel.edges.{krate}] {dep}: say why, as a string"
                    );
                    (dep.clone(), why.to_owned())
                })
                .collect();
            (krate.clone(), deps)
        })
        .collect();
    Graph { edges, support }
}

pub struct Graph {
    /// crate → (workspace crate it may depend on → why).
    pub edges: super::modules::Graph,
    /// Test helpers: no crate may take them but as a dev-dependency, and they take no crate.
    pub support: Vec<String>,
}

impl Graph {
    fn is_workspace_crate(&self, name: &str) -> bool {
        self.edges.contains_key(name) || self.support.iter().any(|s| s == name)
    }
}

/// The lint names set in `[workspace.lints.*]`.
pub fn workspace_lints(root_manifest: &str) -> Vec<String> {
    let doc: toml::Table = root_manifest.parse().expect("the root Cargo.toml");
    let Some(lints) = doc
        .get("workspace")
        .and_then(|w| w.get("lints"))
        .and_then(|l| l.as_table())
    else {
        return Vec::new();
    };
    lints
        .values()
        .filter_map(|tool| tool.as_table())
        .flat_map(|t| t.keys().cloned())
        .collect()
}

pub struct Manifest {
    pub name: String,
    /// (section, dependency name) for every dependency, dev- and build-dependencies included.
    pub deps: Vec<(String, String)>,
    /// (section, name as the manifest's key writes it): what code calls the crate (`-` read `_`).
    pub keys: Vec<(String, String)>,
    pub inherits_lints: bool,
}

impl Manifest {
    pub fn parse(name: &str, text: &str) -> Manifest {
        let doc: toml::Table = text
            .parse()
            .unwrap_or_else(|e| panic!("{name}/Cargo.toml: {e}"));
        let mut deps = Vec::new();
        let mut keys = Vec::new();
        for section in ["dependencies", "dev-dependencies", "build-dependencies"] {
            if let Some(table) = doc.get(section).and_then(|t| t.as_table()) {
                for (dep, spec) in table {
                    // `package = "…"` renames: the crate depended on is the package.
                    let real = spec.get("package").and_then(|p| p.as_str()).unwrap_or(dep);
                    deps.push((section.to_owned(), real.to_owned()));
                    keys.push((section.to_owned(), dep.clone()));
                }
            }
        }
        let inherits_lints = doc
            .get("lints")
            .and_then(|l| l.get("workspace"))
            .and_then(|w| w.as_bool())
            == Some(true);
        Manifest {
            name: name.to_owned(),
            deps,
            keys,
            inherits_lints,
        }
    }

    /// What breaks the walls: a crate missing from the graph, a dependency (dev-dependencies too:
    /// a test that imports a later crate builds a second copy of this one) on a workspace crate
    /// the graph does not list for it, clap outside the binary, lints not inherited.
    pub fn problems(&self, graph: &Graph) -> Vec<String> {
        let mut out = Vec::new();
        for (section, dep) in &self.deps {
            if graph.support.contains(dep) && section != "dev-dependencies" {
                out.push(format!(
                    "{}: [{section}] {dep} is a test helper: a dev-dependency only",
                    self.name
                ));
            }
        }
        if graph.support.contains(&self.name) {
            out.extend(
                self.deps
                    .iter()
                    .filter(|(_, d)| graph.is_workspace_crate(d))
                    .map(|(s, d)| {
                        format!(
                            "{}: [{s}] {d}: a test helper depends on no workspace crate",
                            self.name
                        )
                    }),
            );
            return out;
        }
        let Some(allowed) = graph.edges.get(&self.name) else {
            return vec![format!(
                "{}: a crate missing from the graph; add [workspace.metadata.rigel.edges.{}] to \
                 the root Cargo.toml with the crates it may depend on",
                self.name, self.name
            )];
        };
        for (section, dep) in &self.deps {
            let listed = allowed.contains_key(dep) || graph.support.contains(dep);
            if graph.is_workspace_crate(dep) && !listed {
                out.push(format!(
                    "{}: [{section}] {dep} is not an allowed edge; if it should be, add `{dep} = \
                     \"why\"` to [workspace.metadata.rigel.edges.{}] (the graph must stay a DAG)",
                    self.name, self.name
                ));
            }
            if dep.starts_with("clap") && self.name != "rigel" {
                out.push(format!(
                    "{}: [{section}] {dep}: the command line is parsed only in the rigel binary",
                    self.name
                ));
            }
        }
        if !self.inherits_lints {
            out.push(format!(
                "{}: no `[lints] workspace = true` (the unsafe lints hold for every crate)",
                self.name
            ));
        }
        out
    }

    /// Edges the graph lists for this crate that its manifest does not declare: stale, they
    /// would let the dependency back unseen.
    pub fn stale_edges(&self, graph: &Graph) -> Vec<String> {
        let Some(allowed) = graph.edges.get(&self.name) else {
            return Vec::new();
        };
        allowed
            .keys()
            .filter(|dep| !self.deps.iter().any(|(_, d)| d == *dep))
            .map(|dep| {
                format!(
                    "[workspace.metadata.rigel.edges.{}] {dep}: {} does not depend on {dep}; \
                     remove the edge",
                    self.name, self.name
                )
            })
            .collect()
    }
}

#[cfg(test)]
mod planted {
    use super::*;

    fn sample() -> Graph {
        graph(
            "[workspace.metadata.rigel]\nsupport = [\"rigel-testkit\"]\n\
             [workspace.metadata.rigel.edges.rigel-expr]\n\
             [workspace.metadata.rigel.edges.rigel-plan]\nrigel-expr = \"values\"\n\
             [workspace.metadata.rigel.edges.rigel-report]\nrigel-plan = \"the plan\"\n\
             [workspace.metadata.rigel.edges.rigel]\nrigel-report = \"reports\"\n",
        )
    }

    #[test]
    fn an_unlisted_dependency_is_found_dev_too() {
        let m = Manifest::parse(
            "rigel-plan",
            "[dependencies]\nrigel-expr.workspace = true\n\n[dev-dependencies]\nrigel-report = { path = \"../rigel-report\" }\n\n[lints]\nworkspace = true\n",
        );
        let p = m.problems(&sample());
        assert_eq!(p.len(), 1, "{p:?}");
        assert!(p[0].contains("[dev-dependencies] rigel-report is not an allowed edge"));
    }

    #[test]
    fn a_renamed_dependency_on_itself_is_unlisted() {
        let m = Manifest::parse(
            "rigel-plan",
            "[dependencies]\nplan2 = { package = \"rigel-plan\", path = \".\" }\nclap = \"4\"\n[lints]\nworkspace = true\n",
        );
        let p = m.problems(&sample());
        assert_eq!(p.len(), 2, "{p:?}");
    }

    #[test]
    fn the_binary_may_use_clap_and_its_edges() {
        let m = Manifest::parse(
            "rigel",
            "[dependencies]\nclap = \"4\"\nrigel-report.workspace = true\n[lints]\nworkspace = true\n",
        );
        assert!(m.problems(&sample()).is_empty());
        assert!(m.stale_edges(&sample()).is_empty());
        let unknown = Manifest::parse("rigel-new", "");
        assert!(unknown.problems(&sample())[0].contains("missing from the graph"));
    }

    #[test]
    fn an_edge_no_manifest_declares_is_stale() {
        let m = Manifest::parse("rigel-report", "[lints]\nworkspace = true\n");
        let stale = m.stale_edges(&sample());
        assert_eq!(stale.len(), 1, "{stale:?}");
        assert!(stale[0].contains("rigel-report does not depend on rigel-plan"));
    }

    #[test]
    fn a_test_helper_is_a_dev_dependency_only_and_takes_no_workspace_crate() {
        let m = Manifest::parse(
            "rigel-plan",
            "[dependencies]\nrigel-testkit.workspace = true\n[lints]\nworkspace = true\n",
        );
        assert!(m.problems(&sample())[0].contains("a dev-dependency only"));
        let kit = Manifest::parse(
            "rigel-testkit",
            "[dependencies]\nrigel-plan.workspace = true\n[lints]\nworkspace = true\n",
        );
        assert!(kit.problems(&sample())[0].contains("depends on no workspace crate"));
    }
}
