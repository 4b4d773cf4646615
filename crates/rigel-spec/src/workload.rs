//! The workload tables of a spec: `[class.NAME]`, `[matrix]` and `[sweep]` (`[expect]` is in expect.rs).

use super::diag::SpecError;
use super::model::*;
use super::read::{Reader, one_of, size_of};
use super::source::Loc;
use super::tree::{Node, Table, Value};
use rigel_expr::{self as expr, Access, Arrival, Names};

use super::keys::{self, SWEEP_PARAMS};

pub(super) fn read_classes(r: &mut Reader, root: &Table, names: &Names) -> Vec<ClassSpec> {
    let Some(t) = r.table(root, "class") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (name, (key_loc, node)) in &t.entries {
        let Value::Table(c) = &node.value else {
            r.push(
                super::diag::SpecError::at(
                    &node.loc,
                    format!("`class.{name}` must be a table"),
                    "expected a [class.NAME] section",
                )
                .hint(format!("write [class.{name}] with size, access and mix")),
            );
            continue;
        };
        r.check_keys(c, &format!("[class.{name}]"), &keys::names(keys::CLASS));
        let sizes = c.get("size").and_then(|n| size_mix_of(r, n));
        let size = match c.get("size") {
            Some(_) if sizes.is_some() => sizes
                .as_ref()
                .map(|m| Sp::new(expr::Size(m.value.largest()), m.loc.clone())),
            Some(n) if is_mix(n) => None,
            Some(n) => size_of(r, n, "an I/O size"),
            None => {
                r.push(
                    super::diag::SpecError::at(
                        key_loc,
                        format!("class `{name}` has no `size`"),
                        "this class",
                    )
                    .hint("add size = \"8KiB\" (or another I/O size)"),
                );
                None
            }
        };
        let access = match c.get("access") {
            Some(n) => access_of(r, n),
            None => Some(Sp::new(Access::Random, key_loc.clone())),
        };
        let mix = match c.get("mix") {
            Some(n) => r.parsed(
                n,
                "a mix",
                "\"read\", \"write\" or \"70% read\"",
                None,
                expr::parse_mix,
            ),
            None => Some(Sp::new(expr::Mix::READ, key_loc.clone())),
        };
        let per_stream = c.get("per_stream").and_then(|n| {
            r.integer(n, "`per_stream`", names)
                .map(|v| Sp::new(v.min(u32::MAX as u64) as u32, n.loc.clone()))
        });
        let rate = c.get("rate").and_then(|n| rate_of(r, n));
        let verify = c.get("verify").and_then(|n| super::verify::verify_of(r, n));
        let arrival = match c.get("arrival") {
            Some(n) => arrival_of(r, n),
            None => Some(Sp::new(Arrival::Uniform, key_loc.clone())),
        };
        if let (Some(size), Some(access), Some(mix), Some(arrival)) = (size, access, mix, arrival) {
            out.push(ClassSpec {
                name: Sp::new(name.clone(), key_loc.clone()),
                size,
                access,
                mix,
                per_stream,
                rate,
                arrival,
                targets: c.get("targets").and_then(|n| names_of(r, n, "`targets`")),
                region: c
                    .get("region")
                    .and_then(|n| r.parsed(n, "a region", "\"0%..10%\"", None, expr::parse_region)),
                distribution: c.get("distribution").and_then(|n| {
                    let example = "\"zipf:1.2\"";
                    r.parsed(n, "a distribution", example, None, expr::parse_distribution)
                }),
                contiguous: c.get("hot_layout").and_then(|n| hot_layout_of(r, n)),
                durability: c.get("durability").and_then(|n| {
                    let example = "\"dsync\" or \"fdatasync:8\"";
                    r.parsed(n, "a durability", example, None, expr::parse_durability)
                }),
                sizes,
                compress: c
                    .get("compress")
                    .and_then(|n| r.parsed(n, "a ratio", "\"3:1\"", None, expr::parse_data_ratio)),
                dedupe: c
                    .get("dedupe")
                    .and_then(|n| r.parsed(n, "a ratio", "\"2:1\"", None, expr::parse_data_ratio)),
                verify,
                think: c.get("think").and_then(|n| super::pacing::think_of(r, n)),
                burst: c
                    .get("burst")
                    .and_then(|n| super::pacing::burst_of(r, n, names)),
                engine: c.get("engine").and_then(|n| super::read::engine_of(r, n)),
            });
        }
    }
    out
}

/// `hot_layout`: true for `contiguous`.
fn hot_layout_of(r: &mut Reader, n: &Node) -> Option<Sp<bool>> {
    let s = r.string(n, "`hot_layout`")?;
    match s.trim() {
        "scattered" => Some(Sp::new(false, n.loc.clone())),
        "contiguous" => Some(Sp::new(true, n.loc.clone())),
        other => {
            r.push(one_of(n, "hot_layout", other, keys::HOT_LAYOUTS));
            None
        }
    }
}

/// Whether a class's `size` is written as a mix (a list, a range or shares).
fn is_mix(n: &Node) -> bool {
    matches!(&n.value, Value::Str(s) if expr::is_size_mix(s))
}

/// A class's `size` written as a mix of more than one size (None: one size, or an error).
fn size_mix_of(r: &mut Reader, n: &Node) -> Option<Sp<expr::SizeMix>> {
    if !is_mix(n) {
        return None;
    }
    let example = "\"8KiB:60%, 64KiB:40%\"";
    r.parsed(n, "a size mix", example, None, expr::parse_size_mix)
}

/// A name or a list of names (`targets = ["redo1", "redo2"]`), each with where it was written.
fn names_of(r: &mut Reader, n: &Node, what: &str) -> Option<Vec<Sp<String>>> {
    match &n.value {
        Value::Array(items) => {
            let names: Vec<Sp<String>> = items
                .iter()
                .filter_map(|i| r.string(i, what).map(|s| Sp::new(s, i.loc.clone())))
                .collect();
            if names.is_empty() {
                r.push(
                    SpecError::at(&n.loc, format!("{what} is empty"), "no target named")
                        .hint("name at least one [[target]], or remove the key to use them all"),
                );
                return None;
            }
            (names.len() == items.len()).then_some(names)
        }
        _ => r.string(n, what).map(|s| vec![Sp::new(s, n.loc.clone())]),
    }
}

/// `rate = "20000 iops"`, `"400MiB/s"`, or a TOML integer of I/Os per second.
fn rate_of(r: &mut Reader, n: &Node) -> Option<Sp<expr::Rate>> {
    let text = match &n.value {
        Value::Int(i) => i.to_string(),
        _ => r.string(n, "`rate`")?,
    };
    r.expr(n, expr::parse_rate(&text))
        .map(|v| Sp::new(v, n.loc.clone()))
}

fn arrival_of(r: &mut Reader, n: &Node) -> Option<Sp<Arrival>> {
    let s = r.string(n, "`arrival`")?;
    match s.trim() {
        "uniform" => Some(Sp::new(Arrival::Uniform, n.loc.clone())),
        "poisson" => Some(Sp::new(Arrival::Poisson, n.loc.clone())),
        other => {
            r.push(one_of(n, "arrival", other, keys::ARRIVALS));
            None
        }
    }
}

pub fn access_of(r: &mut Reader, n: &Node) -> Option<Sp<Access>> {
    let s = r.string(n, "`access`")?;
    match s.trim() {
        "random" | "rand" => Some(Sp::new(Access::Random, n.loc.clone())),
        "sequential" | "seq" => Some(Sp::new(Access::Sequential, n.loc.clone())),
        other => {
            r.push(one_of(n, "access", other, &["random", "sequential"]));
            None
        }
    }
}

pub(super) fn read_matrix(
    r: &mut Reader,
    root: &Table,
    root_loc: &Loc,
    declared: &[String],
    names: &Names,
) -> MatrixSpec {
    let mut m = MatrixSpec {
        shape: Sp::new(MatrixShape::Basic, root_loc.clone()),
        loads: Vec::new(),
        loc: root_loc.clone(),
    };
    let Some(node) = root.get("matrix") else {
        return m;
    };
    m.loc = node.loc.clone();
    let Some(t) = r.table(root, "matrix") else {
        return m;
    };
    let class_names: Vec<&str> = declared.iter().map(String::as_str).collect();
    // A set, so that thousands of classes are looked up in linear time.
    let known: std::collections::HashSet<&str> = class_names.iter().copied().collect();
    for (key, (key_loc, n)) in &t.entries {
        if key == "shape" {
            if let Some(s) = r.string(n, "`shape`") {
                match serde_json::from_value::<MatrixShape>(serde_json::Value::String(s.clone())) {
                    Ok(shape) => m.shape = Sp::new(shape, n.loc.clone()),
                    Err(_) => r.push(one_of(n, "matrix shape", &s, keys::SHAPES)),
                }
            }
            continue;
        }
        if !known.contains(key.as_str()) {
            let mut allowed = vec!["shape"];
            allowed.extend(class_names.iter().copied());
            let hint = rigel_expr::suggest::did_you_mean(key, allowed.iter().copied())
                .unwrap_or_else(|| {
                    format!(
                        "[matrix] takes `shape` and one load sweep per class ({})",
                        class_names.join(", ")
                    )
                });
            r.push(
                super::diag::SpecError::at(
                    key_loc,
                    format!("`{key}` in [matrix] is not a class of this spec"),
                    "no [class] of this name",
                )
                .hint(hint),
            );
            continue;
        }
        let sweep = match &n.value {
            Value::Int(i) => r.expr(
                n,
                expr::parse_sweep(&i.to_string()).and_then(|s| s.eval(names)),
            ),
            Value::Str(s) => r.expr(n, expr::parse_sweep(s).and_then(|s| s.eval(names))),
            other => {
                r.push(super::diag::SpecError::at(
                    &n.loc,
                    format!("a load sweep must be a string, found {}", other.kind()),
                    "expected a sweep such as \"1..=32 x2\"",
                ));
                None
            }
        };
        if let Some(sweep) = sweep {
            m.loads.push((
                Sp::new(key.clone(), key_loc.clone()),
                Sp::new(sweep, n.loc.clone()),
            ));
        }
    }
    m
}

pub(super) fn read_sweep(
    r: &mut Reader,
    root: &Table,
    declared: &[String],
    names: &Names,
) -> Vec<SweepSpec> {
    let Some(t) = r.table(root, "sweep") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (key, (key_loc, n)) in &t.entries {
        let Some((class, param)) = key.split_once('.') else {
            r.push(super::diag::SpecError::at(key_loc, format!("`{key}` is not a CLASS.PARAMETER key"), "expected e.g. \"small.size\"")
                .hint("a sweep key names a class and one of its parameters: size, mix, access or per_stream"));
            continue;
        };
        if !declared.iter().any(|c| c == class) {
            let hint =
                rigel_expr::suggest::did_you_mean(class, declared.iter().map(String::as_str));
            r.push(
                super::diag::SpecError::at(
                    key_loc,
                    format!("`{class}` is not a class of this spec"),
                    "unknown class",
                )
                .hint_opt(hint),
            );
            continue;
        }
        if !SWEEP_PARAMS.contains(&param) {
            r.push(one_of_key(key_loc, param));
            continue;
        }
        let Some(text) = (match &n.value {
            Value::Int(i) => Some(i.to_string()),
            _ => r.string(n, "a sweep"),
        }) else {
            continue;
        };
        let values = match param {
            "size" => r
                .expr(n, expr::parse_size_list(&text))
                .map(SweepValues::Size),
            "mix" => r.expr(n, expr::parse_mix_list(&text)).map(SweepValues::Mix),
            "per_stream" => r
                .expr(n, expr::parse_sweep(&text).and_then(|s| s.eval(names)))
                .map(SweepValues::PerStream),
            "rate" => rate_list(r, n, &text, names).map(SweepValues::Rate),
            _ => access_list(r, n, &text).map(SweepValues::Access),
        };
        if let Some(values) = values {
            out.push(SweepSpec {
                class: Sp::new(class.to_owned(), key_loc.clone()),
                values: Sp::new(values, n.loc.clone()),
            });
        }
    }
    out
}

/// A rate sweep: a range of IOPS (`"5000..=50000 step 5000"`) or a list of rates with units.
fn rate_list(r: &mut Reader, n: &Node, text: &str, names: &Names) -> Option<Vec<expr::Rate>> {
    if text.contains("..") {
        let levels = r.expr(n, expr::parse_sweep(text).and_then(|s| s.eval(names)))?;
        return Some(levels.into_iter().map(expr::Rate::Iops).collect());
    }
    r.expr(n, expr::parse_rate_list(text))
}

fn access_list(r: &mut Reader, n: &Node, text: &str) -> Option<Vec<Access>> {
    let mut out = Vec::new();
    let mut at = 0;
    for part in text.split(',') {
        let word = part.trim();
        let start = at + (part.len() - part.trim_start().len());
        match word {
            "random" | "rand" => out.push(Access::Random),
            "sequential" | "seq" => out.push(Access::Sequential),
            _ => {
                let loc = r.loc_of(n, start..start + word.len());
                r.push(super::diag::SpecError::at(
                    &loc,
                    format!("unknown access `{word}`"),
                    "expected random or sequential",
                ));
                return None;
            }
        }
        at += part.len() + 1;
    }
    Some(out)
}

fn one_of_key(key_loc: &Loc, param: &str) -> SpecError {
    let params = keys::SWEEP_PARAMS;
    SpecError::at(
        key_loc,
        format!("`{param}` cannot be swept"),
        format!("expected one of {}", params.join(", ")),
    )
    .hint_opt(
        rigel_expr::suggest::did_you_mean(param, params.iter().copied())
            .or_else(|| Some(format!("sweepable parameters: {}", params.join(", ")))),
    )
}
