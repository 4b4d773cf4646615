//! What differs between two runs' resolved specs, key by key (`run.duration: 10s → 30s`), leaving
//! out `[expect]`: requirements change what passes, not what was measured.

use std::collections::BTreeMap;

fn flatten(prefix: &str, v: &toml::Value, out: &mut BTreeMap<String, String>) {
    match v {
        toml::Value::Table(t) => {
            for (k, v) in t {
                let key = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                flatten(&key, v, out);
            }
        }
        toml::Value::Array(a) if a.iter().any(|x| x.is_table()) => {
            for (i, v) in a.iter().enumerate() {
                flatten(&format!("{prefix}.{i}"), v, out);
            }
        }
        other => {
            out.insert(prefix.to_string(), other.to_string());
        }
    }
}

fn keys(spec: &str) -> Option<BTreeMap<String, String>> {
    let mut t: toml::Table = toml::from_str(spec).ok()?;
    t.remove("expect");
    let mut out = BTreeMap::new();
    flatten("", &toml::Value::Table(t), &mut out);
    Some(out)
}

/// `key: BASE → NEW` for every key that differs (absent shown as `-`); none when only `[expect]`
/// differs. Specs that do not parse are compared as text.
pub fn spec_diff(base: &str, new: &str) -> Vec<String> {
    let (Some(b), Some(n)) = (keys(base), keys(new)) else {
        return if base == new {
            Vec::new()
        } else {
            vec!["the spec texts differ".into()]
        };
    };
    let mut all: Vec<&String> = b.keys().chain(n.keys()).collect();
    all.sort();
    all.dedup();
    all.into_iter()
        .filter(|k| b.get(*k) != n.get(*k))
        .map(|k| {
            let show =
                |m: &BTreeMap<String, String>| m.get(k).cloned().unwrap_or_else(|| "-".into());
            format!("{k}: {} → {}", show(&b), show(&n))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expect_only_changes_are_no_difference() {
        let a = "[run]\nduration = \"10s\"\n[expect]\n\"small.iops\" = \">= 1\"\n";
        let b = "[run]\nduration = \"10s\"\n[expect]\n\"small.iops\" = \">= 9\"\n";
        assert!(spec_diff(a, b).is_empty());
        let c = "[run]\nduration = \"30s\"\n[[target]]\npath = \"x\"\n";
        assert_eq!(
            spec_diff(a, c),
            [
                "run.duration: \"10s\" → \"30s\"",
                "target.0.path: - → \"x\""
            ]
        );
    }
}
