//! How a rigel run maps onto ORION's vocabulary: which classes play ORION's "small" and "large",
//! one ORION matrix per `[sweep]` combination, the files' prefix and ORION's command line.

use super::context::shell_join;
use crate::expr::Access;
use crate::plan::{IoClass, SweepBinding};
use crate::stats::{PointResult, ResultsDoc};
use std::collections::BTreeMap;

/// A lone unnamed class at least this large (or sequential) is ORION's "large" class.
const LARGE_IO_FROM: u64 = 128 * 1024;

/// Maps classes to ORION's two roles: a class named `small` or `large` takes that role; a free
/// "small" role goes to the smallest random class left, a free "large" role to the largest class left.
/// A lone unnamed class is "large" when sequential or at least 128 KiB, else "small".
pub fn roles(classes: &[IoClass]) -> BTreeMap<String, String> {
    let mut roles = BTreeMap::new();
    for c in classes {
        let name = c.name.to_ascii_lowercase();
        if (name == "small" || name == "large") && !roles.values().any(|r| *r == name) {
            roles.insert(c.name.clone(), name);
        }
    }
    let has = |roles: &BTreeMap<String, String>, r: &str| roles.values().any(|v| v == r);
    let rest = |roles: &BTreeMap<String, String>| -> Vec<&IoClass> {
        classes
            .iter()
            .filter(|c| !roles.contains_key(&c.name))
            .collect()
    };
    if !has(&roles, "small") && !has(&roles, "large") && rest(&roles).len() == 1 {
        let c = rest(&roles)[0];
        let role = if c.access == Access::Sequential || c.size >= LARGE_IO_FROM {
            "large"
        } else {
            "small"
        };
        roles.insert(c.name.clone(), role.to_string());
        return roles;
    }
    if !has(&roles, "small") {
        let pick = rest(&roles)
            .into_iter()
            .filter(|c| c.access == Access::Random)
            .min_by_key(|c| c.size)
            .map(|c| c.name.clone());
        if let Some(name) = pick {
            roles.insert(name, "small".to_string());
        }
    }
    if !has(&roles, "large") {
        let pick = rest(&roles)
            .into_iter()
            .max_by_key(|c| c.size)
            .map(|c| c.name.clone());
        if let Some(name) = pick {
            roles.insert(name, "large".to_string());
        }
    }
    roles
}

/// Points sharing the same `[sweep]` values, in run order: ORION's files hold one matrix each.
pub fn sweep_groups(doc: &ResultsDoc) -> Vec<(Vec<SweepBinding>, Vec<&PointResult>)> {
    let mut groups: Vec<(Vec<SweepBinding>, Vec<&PointResult>)> = Vec::new();
    for p in &doc.points {
        match groups.iter_mut().find(|(s, _)| *s == p.point.sweep) {
            Some((_, pts)) => pts.push(p),
            None => groups.push((p.point.sweep.clone(), vec![p])),
        }
    }
    if groups.is_empty() {
        groups.push((Vec::new(), Vec::new()));
    }
    groups
}

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
    let stamp = chrono::DateTime::parse_from_rfc3339(&doc.started)
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
    use crate::expr::Mix;

    fn class(name: &str, size: u64, access: Access) -> IoClass {
        IoClass {
            name: name.into(),
            size,
            access,
            mix: Mix::READ,
            per_stream: 1,
        }
    }

    fn role_of(classes: &[IoClass]) -> Vec<(String, String)> {
        roles(classes).into_iter().collect()
    }

    #[test]
    fn classes_named_small_and_large_take_their_roles() {
        let c = [
            class("large", 8192, Access::Random),
            class("small", 1 << 20, Access::Sequential),
        ];
        assert_eq!(
            role_of(&c),
            [
                ("large".into(), "large".into()),
                ("small".into(), "small".into())
            ]
        );
    }

    #[test]
    fn unnamed_classes_map_by_size_and_access() {
        let c = [
            class("scan", 1 << 20, Access::Sequential),
            class("oltp", 8192, Access::Random),
            class("log", 512, Access::Sequential),
        ];
        assert_eq!(
            role_of(&c),
            [
                ("oltp".into(), "small".into()),
                ("scan".into(), "large".into())
            ]
        );
        assert_eq!(
            role_of(&[class("r", 4096, Access::Random)]),
            [("r".into(), "small".into())]
        );
        assert_eq!(
            role_of(&[class("s", 4096, Access::Sequential)]),
            [("s".into(), "large".into())]
        );
        assert_eq!(
            role_of(&[
                class("small", 4096, Access::Random),
                class("x", 65536, Access::Random)
            ]),
            [
                ("small".into(), "small".into()),
                ("x".into(), "large".into())
            ]
        );
    }

    #[test]
    fn orion_commandline_is_what_followed_orion() {
        let cmd = ["rigel", "orion", "-run", "simple"].map(String::from);
        assert_eq!(orion_commandline(&cmd), "-run simple");
        let cmd = ["rigel", "run", "specs/orion/simple.toml"].map(String::from);
        assert_eq!(orion_commandline(&cmd), "rigel run specs/orion/simple.toml");
    }
}
