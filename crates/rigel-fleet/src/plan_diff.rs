//! Whether two ranks run the same plan, and if not, the first difference in words. Target paths
//! may differ (each host reads its own LUNs through `${rank}` or `${host}`); nothing else may.

use rigel_plan::RunPlan;
use serde_json::Value;

/// The plan as compared across ranks: JSON with the target paths left out.
pub fn comparable(plan: &RunPlan) -> Value {
    let mut v = serde_json::to_value(plan).unwrap_or(Value::Null);
    if let Some(Value::Array(targets)) = v.get_mut("targets") {
        for t in targets {
            if let Some(obj) = t.as_object_mut() {
                obj.remove("path");
            }
        }
    }
    v
}

/// The first place where `mine` differs from `theirs` (`run.duration_ms: 300 here, 400 on rank
/// 0`), or `None` when they are the same.
pub fn first_difference(mine: &Value, theirs: &Value) -> Option<String> {
    diff(mine, theirs, &mut Vec::new())
}

fn diff(a: &Value, b: &Value, path: &mut Vec<String>) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, va) in x {
                path.push(k.clone());
                let found = match y.get(k) {
                    Some(vb) => diff(va, vb, path),
                    None => Some(say(path, &short(va), "absent")),
                };
                path.pop();
                if found.is_some() {
                    return found;
                }
            }
            y.keys().find(|k| !x.contains_key(*k)).map(|k| {
                say(
                    &[path.clone(), vec![k.clone()]].concat(),
                    "absent",
                    &short(&y[k]),
                )
            })
        }
        (Value::Array(x), Value::Array(y)) => {
            for (i, (va, vb)) in x.iter().zip(y).enumerate() {
                path.push(i.to_string());
                let found = diff(va, vb, path);
                path.pop();
                if found.is_some() {
                    return found;
                }
            }
            (x.len() != y.len()).then(|| {
                say(
                    path,
                    &format!("{} entries", x.len()),
                    &format!("{} entries", y.len()),
                )
            })
        }
        _ => (a != b).then(|| say(path, &short(a), &short(b))),
    }
}

fn say(path: &[String], here: &str, there: &str) -> String {
    format!("{}: {here} here, {there} on rank 0", path.join("."))
}

fn short(v: &Value) -> String {
    let text = v.to_string();
    if text.chars().count() > 60 {
        format!("{}…", text.chars().take(60).collect::<String>())
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_the_first_differing_key() {
        let a = json!({"run": {"duration_ms": 300, "seed": 1}, "points": [{"id": 1}]});
        let b = json!({"run": {"duration_ms": 400, "seed": 1}, "points": [{"id": 1}]});
        assert_eq!(
            first_difference(&a, &b).as_deref(),
            Some("run.duration_ms: 300 here, 400 on rank 0")
        );
        assert_eq!(first_difference(&a, &a), None);
        let c = json!({"run": {"duration_ms": 300, "seed": 1}, "points": [{"id": 1}, {"id": 2}]});
        assert_eq!(
            first_difference(&a, &c).as_deref(),
            Some("points: 1 entries here, 2 entries on rank 0")
        );
    }
}
