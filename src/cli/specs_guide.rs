//! `rigel specs NAME`'s guide on standard error (standard output stays a spec that loads): the
//! command line that points the spec at one's LUNs, each target with the variable that names it
//! and what the classes do there, and the spec's other variables.

use rigel_spec::{LoadedSpec, SpecInput};
use std::path::Path;

/// The guide's lines for library spec `name`; none when it does not load.
pub fn lines(name: &str) -> Vec<String> {
    let input = SpecInput::Arg(Path::new(name));
    let Ok(checked) = rigel_plan::check(
        input,
        &[],
        super::specs::cores(),
        &rigel_spec::Builtins::single(),
    ) else {
        return Vec::new();
    };
    let loaded = &checked.loaded;
    let spec = &loaded.spec;
    let mut out = Vec::new();
    let vars: Vec<Option<String>> = (0..spec.targets.len())
        .map(|i| loaded.target_var(i))
        .collect();
    let writes = spec.classes.iter().any(|c| c.mix.value.writes())
        || spec.precondition.as_ref().is_some_and(|p| !p.read.value);
    if !spec.targets.is_empty() {
        let sets: Vec<String> = vars
            .iter()
            .enumerate()
            .map(|(i, v)| match v {
                Some(v) => format!("--set {v}=PATH"),
                None => format!("--set target.{i}.path=PATH"),
            })
            .collect();
        let consent = if writes { " --allow-destructive" } else { "" };
        out.push("Point it at your LUNs, one --set each (--allow-destructive covers the paths named there):".into());
        out.push(format!("  rigel run {name} {}{consent}", sets.join(" ")));
        out.push("Its targets:".into());
    }
    for (i, t) in spec.targets.iter().enumerate() {
        let var = vars[i]
            .as_deref()
            .map_or_else(|| format!("target.{i}.path"), str::to_owned);
        let size = t.size.as_ref().map_or_else(
            || " (must exist)".to_owned(),
            |s| {
                format!(
                    " ({} test file rigel creates if absent; of a device, the first {} are used)",
                    s.value, s.value
                )
            },
        );
        out.push(format!(
            "  {var:8} target {}: {}; default {}{size}",
            t.name_or(i),
            uses(loaded, i),
            t.path.value
        ));
    }
    let others = other_vars(loaded, &vars);
    if !others.is_empty() {
        out.push(format!(
            "Its other variables (--set NAME=VALUE): {}",
            others.join(", ")
        ));
    }
    out
}

/// What the classes do on target `i`: `read and written by data, read by scan`.
fn uses(loaded: &LoadedSpec, i: usize) -> String {
    let name = loaded.spec.targets[i].name_or(i);
    let on: Vec<String> = loaded
        .spec
        .classes
        .iter()
        .filter(|c| {
            c.targets
                .as_ref()
                .is_none_or(|ts| ts.iter().any(|t| t.value == name))
        })
        .map(|c| {
            let mix = c.mix.value;
            let what = match (mix.reads(), mix.writes()) {
                (true, true) => "read and written",
                (false, true) => "written",
                _ => "read",
            };
            format!("{what} by {}", c.name.value)
        })
        .collect();
    if on.is_empty() {
        "used by no class".into()
    } else {
        on.join(", ")
    }
}

/// The variables some value uses that no target's path is: `disks = targets`.
fn other_vars(loaded: &LoadedSpec, target_vars: &[Option<String>]) -> Vec<String> {
    loaded
        .used_vars
        .iter()
        .filter(|(k, _)| !target_vars.iter().any(|v| v.as_deref() == Some(k.as_str())))
        .map(|(k, v)| format!("{k} = {v}"))
        .collect()
}
