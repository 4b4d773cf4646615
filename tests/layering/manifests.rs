//! The crates' manifests: which stage each crate is, and which stages it depends on.

/// The stage order from the root manifest's `[workspace.metadata.rigel] stages`, and the test
/// support crates from its `support`.
pub fn stages(root_manifest: &str) -> Layers {
    let doc: toml::Table = root_manifest.parse().expect("the root Cargo.toml");
    let list = |key: &str| -> Vec<String> {
        doc.get("workspace")
            .and_then(|w| w.get("metadata"))
            .and_then(|m| m.get("rigel"))
            .and_then(|r| r.get(key))
            .and_then(|s| s.as_array())
            .unwrap_or_else(|| {
                panic!("[workspace.metadata.rigel] {key} = [...] in the root Cargo.toml")
            })
            .iter()
            .map(|s| s.as_str().expect("a crate name").to_owned())
            .collect()
    };
    Layers {
        stages: list("stages"),
        support: list("support"),
    }
}

pub struct Layers {
    pub stages: Vec<String>,
    /// Test helpers: no stage may take them but as a dev-dependency, and they take no stage.
    pub support: Vec<String>,
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
    pub inherits_lints: bool,
}

impl Manifest {
    pub fn parse(name: &str, text: &str) -> Manifest {
        let doc: toml::Table = text
            .parse()
            .unwrap_or_else(|e| panic!("{name}/Cargo.toml: {e}"));
        let mut deps = Vec::new();
        for section in ["dependencies", "dev-dependencies", "build-dependencies"] {
            if let Some(table) = doc.get(section).and_then(|t| t.as_table()) {
                for (dep, spec) in table {
                    // `package = "…"` renames: the crate depended on is the package.
                    let real = spec.get("package").and_then(|p| p.as_str()).unwrap_or(dep);
                    deps.push((section.to_owned(), real.to_owned()));
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
            inherits_lints,
        }
    }

    /// What breaks the walls: a crate in no stage, a dependency on its own or a later stage (a
    /// dev-dependency too: a test that imports a later stage builds a second copy of this crate),
    /// clap outside the binary, lints not inherited from the workspace.
    pub fn problems(&self, layers: &Layers) -> Vec<String> {
        let stages = &layers.stages;
        let mut out = Vec::new();
        for (section, dep) in &self.deps {
            if layers.support.contains(dep) && section != "dev-dependencies" {
                out.push(format!(
                    "{}: [{section}] {dep} is a test helper: a dev-dependency only",
                    self.name
                ));
            }
        }
        if layers.support.contains(&self.name) {
            out.extend(
                self.deps
                    .iter()
                    .filter(|(_, d)| stages.contains(d))
                    .map(|(s, d)| {
                        format!(
                            "{}: [{s}] {d}: a test helper depends on no stage",
                            self.name
                        )
                    }),
            );
            return out;
        }
        let Some(own) = stages.iter().position(|s| *s == self.name) else {
            return vec![format!(
                "{}: a crate in no stage; add it to [workspace.metadata.rigel] stages",
                self.name
            )];
        };
        for (section, dep) in &self.deps {
            if let Some(at) = stages.iter().position(|s| s == dep)
                && at >= own
            {
                out.push(format!(
                    "{}: [{section}] {dep} is a later stage ({} comes before {dep}); data flows {}",
                    self.name,
                    self.name,
                    stages.join(" → ")
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
}

#[cfg(test)]
mod planted {
    use super::*;

    fn stages() -> Layers {
        Layers {
            stages: ["rigel-expr", "rigel-plan", "rigel-report", "rigel"]
                .map(String::from)
                .to_vec(),
            support: vec!["rigel-testkit".into()],
        }
    }

    #[test]
    fn a_backward_dependency_is_found() {
        let m = Manifest::parse(
            "rigel-plan",
            "[dependencies]\nrigel-expr.workspace = true\n\n[dev-dependencies]\nrigel-report = { path = \"../rigel-report\" }\n\n[lints]\nworkspace = true\n",
        );
        let p = m.problems(&stages());
        assert_eq!(p.len(), 1, "{p:?}");
        assert!(p[0].contains("[dev-dependencies] rigel-report is a later stage"));
    }

    #[test]
    fn a_renamed_dependency_on_itself_is_a_cycle() {
        let m = Manifest::parse(
            "rigel-plan",
            "[dependencies]\nplan2 = { package = \"rigel-plan\", path = \".\" }\nclap = \"4\"\n[lints]\nworkspace = true\n",
        );
        let p = m.problems(&stages());
        assert_eq!(p.len(), 2, "{p:?}");
    }

    #[test]
    fn the_binary_may_use_clap_and_every_stage() {
        let m = Manifest::parse(
            "rigel",
            "[dependencies]\nclap = \"4\"\nrigel-report.workspace = true\n[lints]\nworkspace = true\n",
        );
        assert!(m.problems(&stages()).is_empty());
        let unknown = Manifest::parse("rigel-new", "");
        assert!(unknown.problems(&stages())[0].contains("in no stage"));
    }

    #[test]
    fn a_test_helper_is_a_dev_dependency_only_and_takes_no_stage() {
        let m = Manifest::parse(
            "rigel-plan",
            "[dependencies]\nrigel-testkit.workspace = true\n[lints]\nworkspace = true\n",
        );
        assert!(m.problems(&stages())[0].contains("a dev-dependency only"));
        let kit = Manifest::parse(
            "rigel-testkit",
            "[dependencies]\nrigel-plan.workspace = true\n[lints]\nworkspace = true\n",
        );
        assert!(kit.problems(&stages())[0].contains("depends on no stage"));
    }
}
