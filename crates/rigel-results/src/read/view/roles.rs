//! ORION's two roles, "small" and "large": which of a run's classes plays each. Every reader that
//! speaks ORION's vocabulary (ORION's files, the terminal's headline, the reports' headline) asks here.

use rigel_expr::Access;
use rigel_plan::IoClass;
use std::collections::BTreeMap;

/// A lone unnamed class at least this large (or sequential) is ORION's "large" class.
const LARGE_IO_FROM: u64 = 128 * 1024;

/// Maps classes to ORION's two roles: a class named `small` or `large` takes that role; a free
/// "small" role goes to the smallest random class left, a free "large" role to the largest class left
/// (by the size most of its I/Os take, a size mix's most common one; the last written of equals).
/// A lone unnamed class is "large" when sequential or its most common size is at least 128 KiB,
/// else "small": `8KiB:95%, 1MiB:5%` is an 8 KiB class, whatever its mean or largest size.
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
        let role =
            if c.access == Access::Sequential || c.pattern.common_size(c.size) >= LARGE_IO_FROM {
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
            .min_by_key(|c| c.pattern.common_size(c.size))
            .map(|c| c.name.clone());
        if let Some(name) = pick {
            roles.insert(name, "small".to_string());
        }
    }
    if !has(&roles, "large") {
        let pick = rest(&roles)
            .into_iter()
            .max_by_key(|c| c.pattern.common_size(c.size))
            .map(|c| c.name.clone());
        if let Some(name) = pick {
            roles.insert(name, "large".to_string());
        }
    }
    roles
}

#[cfg(test)]
mod tests {
    use super::*;
    use rigel_expr::Mix;

    fn class(name: &str, size: u64, access: Access) -> IoClass {
        IoClass {
            name: name.into(),
            size,
            access,
            mix: Mix::READ,
            per_stream: 1,
            rate: None,
            arrival: Default::default(),
            pattern: Default::default(),
            engine: Default::default(),
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
    fn a_size_mix_counts_by_its_most_common_size() {
        // oracle/oltp: a 1 MiB scan beside redo writes of 512 B to 1 MiB (largest 1 MiB, most
        // common 512 B): the scan is ORION's large class, not the redo.
        let mut redo = class("redo", 1 << 20, Access::Sequential);
        redo.pattern.sizes = Some(rigel_expr::parse_size_mix("512B:60%, 1MiB:40%").unwrap());
        let c = [
            class("data", 8192, Access::Random),
            class("scan", 1 << 20, Access::Random),
            redo,
        ];
        assert_eq!(
            role_of(&c),
            [
                ("data".into(), "small".into()),
                ("scan".into(), "large".into())
            ]
        );
    }

    #[test]
    fn a_lone_size_mix_class_is_its_most_common_size() {
        // oltp-skewed: 95% of the I/Os are 8 KiB; its largest (1 MiB) made it ORION's "large"
        // class, so the headline had 1 MiB MB/s and no IOPS.
        let mut data = class("data", 1 << 20, Access::Random);
        data.pattern.sizes = Some(rigel_expr::parse_size_mix("8KiB:95%, 1MiB:5%").unwrap());
        assert_eq!(role_of(&[data]), [("data".into(), "small".into())]);
        let mut big = class("big", 1 << 20, Access::Random);
        big.pattern.sizes = Some(rigel_expr::parse_size_mix("8KiB:5%, 1MiB:95%").unwrap());
        assert_eq!(role_of(&[big]), [("big".into(), "large".into())]);
    }
}
