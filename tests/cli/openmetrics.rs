//! A strict reader of the OpenMetrics 1.0 text format, for the tests of `--metrics`: every rule of
//! the exposition that a scraper relies on is checked (metadata before samples, one block per
//! family, names and suffixes by type, label syntax and escapes, numbers, no repeated series, the
//! closing `# EOF`), and the samples come back as data.

use std::collections::{BTreeMap, HashSet};

/// One sample: its name, labels and value.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    pub name: String,
    pub labels: BTreeMap<String, String>,
    pub value: f64,
}

const TYPES: [&str; 8] = [
    "counter",
    "gauge",
    "info",
    "stateset",
    "histogram",
    "gaugehistogram",
    "summary",
    "unknown",
];

/// The sample-name suffixes each type allows.
fn suffixes(kind: &str) -> &'static [&'static str] {
    match kind {
        "counter" => &["_total", "_created"],
        "info" => &["_info"],
        "histogram" | "gaugehistogram" => {
            &["_bucket", "_count", "_sum", "_created", "_gcount", "_gsum"]
        }
        "summary" => &["", "_count", "_sum", "_created"],
        _ => &[""],
    }
}

fn is_name(s: &str, colons: bool) -> bool {
    let mut chars = s.chars();
    let first_ok = |c: char| c.is_ascii_alphabetic() || c == '_' || (colons && c == ':');
    chars.next().is_some_and(first_ok)
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || (colons && c == ':'))
}

/// Parses `text` strictly; an error names the line and the rule broken.
pub fn parse(text: &str) -> Result<Vec<Sample>, String> {
    let Some(body) = text.strip_suffix("# EOF\n") else {
        return Err("the exposition does not end with `# EOF` and a line feed".into());
    };
    let mut families: BTreeMap<String, String> = BTreeMap::new();
    let mut closed: HashSet<String> = HashSet::new();
    let mut current: Option<String> = None;
    let mut helped: HashSet<String> = HashSet::new();
    let mut series: HashSet<(String, Vec<(String, String)>)> = HashSet::new();
    let mut samples = Vec::new();
    for (i, line) in body.split_inclusive('\n').enumerate() {
        let n = i + 1;
        let line = line
            .strip_suffix('\n')
            .ok_or_else(|| format!("line {n}: no line feed"))?;
        if line.is_empty() {
            return Err(format!("line {n}: an empty line"));
        }
        if let Some(meta) = line.strip_prefix("# ") {
            let mut parts = meta.splitn(3, ' ');
            let (what, name, rest) = (
                parts.next().unwrap_or(""),
                parts.next().unwrap_or(""),
                parts.next(),
            );
            if !is_name(name, true) {
                return Err(format!("line {n}: `{name}` is not a metric name"));
            }
            if current.as_deref() != Some(name) {
                if closed.contains(name) || families.contains_key(name) {
                    return Err(format!("line {n}: family {name} appears twice"));
                }
                if let Some(c) = current.take() {
                    closed.insert(c);
                }
                current = Some(name.to_owned());
            }
            match (what, rest) {
                ("TYPE", Some(kind)) if TYPES.contains(&kind) => {
                    if families.insert(name.to_owned(), kind.to_owned()).is_some() {
                        return Err(format!("line {n}: a second # TYPE for {name}"));
                    }
                }
                ("HELP", Some(help)) => {
                    check_escapes(help, false).map_err(|e| format!("line {n}: help: {e}"))?;
                    if !helped.insert(name.to_owned()) {
                        return Err(format!("line {n}: a second # HELP for {name}"));
                    }
                }
                ("UNIT", Some(_)) => {}
                _ => return Err(format!("line {n}: `{line}` is no TYPE, HELP or UNIT line")),
            }
            continue;
        }
        if line.starts_with('#') {
            return Err(format!("line {n}: a comment that is no metadata: `{line}`"));
        }
        let sample = sample(line).map_err(|e| format!("line {n}: {e}"))?;
        let family = current
            .clone()
            .ok_or_else(|| format!("line {n}: a sample before any # TYPE"))?;
        let kind = families
            .get(&family)
            .ok_or_else(|| format!("line {n}: family {family} has no # TYPE"))?;
        let suffix = sample
            .name
            .strip_prefix(family.as_str())
            .ok_or_else(|| format!("line {n}: {} is not of family {family}", sample.name))?;
        if !suffixes(kind).contains(&suffix) {
            return Err(format!("line {n}: a {kind} has no sample {}", sample.name));
        }
        if kind == "counter" && suffix == "_total" && (sample.value.is_nan() || sample.value < 0.0)
        {
            return Err(format!("line {n}: a counter below 0"));
        }
        if kind == "info" && sample.value != 1.0 {
            return Err(format!(
                "line {n}: an info sample is 1, not {}",
                sample.value
            ));
        }
        let key: Vec<(String, String)> = sample
            .labels
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if !series.insert((sample.name.clone(), key)) {
            return Err(format!("line {n}: the series {line} appears twice"));
        }
        samples.push(sample);
    }
    Ok(samples)
}

/// `name{labels} value`, with no timestamp (rigel writes none).
fn sample(line: &str) -> Result<Sample, String> {
    let name_end = line
        .find(['{', ' '])
        .ok_or_else(|| format!("`{line}` has no value"))?;
    let name = &line[..name_end];
    if !is_name(name, true) {
        return Err(format!("`{name}` is not a metric name"));
    }
    let mut rest = &line[name_end..];
    let mut labels = BTreeMap::new();
    if let Some(after) = rest.strip_prefix('{') {
        let (parsed, tail) = label_set(after)?;
        labels = parsed;
        rest = tail;
    }
    let value = rest
        .strip_prefix(' ')
        .ok_or_else(|| format!("`{line}`: one space before the value"))?;
    if value.contains(' ') {
        return Err(format!("`{line}`: a timestamp or more than one value"));
    }
    let value = match value {
        "NaN" => f64::NAN,
        "+Inf" => f64::INFINITY,
        "-Inf" => f64::NEG_INFINITY,
        v => v
            .parse::<f64>()
            .ok()
            .filter(|_| !v.eq_ignore_ascii_case("inf") && !v.starts_with('+'))
            .ok_or_else(|| format!("`{v}` is not a number"))?,
    };
    Ok(Sample {
        name: name.to_owned(),
        labels,
        value,
    })
}

/// The labels after `{`, up to and past the closing `}`.
fn label_set(mut s: &str) -> Result<(BTreeMap<String, String>, &str), String> {
    let mut labels = BTreeMap::new();
    if let Some(tail) = s.strip_prefix('}') {
        return Ok((labels, tail));
    }
    loop {
        let eq = s.find('=').ok_or("a label without `=`")?;
        let key = &s[..eq];
        if !is_name(key, false) {
            return Err(format!("`{key}` is not a label name"));
        }
        let after = s[eq + 1..]
            .strip_prefix('"')
            .ok_or_else(|| format!("label {key}: its value is not quoted"))?;
        let mut end = None;
        let mut escaped = false;
        for (i, c) in after.char_indices() {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => {
                    end = Some(i);
                    break;
                }
                _ => {}
            }
        }
        let end = end.ok_or_else(|| format!("label {key}: its value is not closed"))?;
        let raw = &after[..end];
        check_escapes(raw, true).map_err(|e| format!("label {key}: {e}"))?;
        let value = raw
            .replace("\\n", "\n")
            .replace("\\\"", "\"")
            .replace("\\\\", "\\");
        if labels.insert(key.to_owned(), value).is_some() {
            return Err(format!("label {key} twice"));
        }
        s = &after[end + 1..];
        if let Some(tail) = s.strip_prefix('}') {
            return Ok((labels, tail));
        }
        s = s.strip_prefix(',').ok_or("labels are separated by `,`")?;
    }
}

/// Only `\\`, `\"` and `\n` are escapes; a raw line feed (or, in a label, a raw quote) is not allowed.
fn check_escapes(s: &str, label: bool) -> Result<(), String> {
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some('\\' | '"' | 'n') => {}
                other => return Err(format!("the escape \\{other:?} is not OpenMetrics'")),
            },
            '\n' => return Err("a raw line feed".into()),
            '"' if label => return Err("a raw double quote".into()),
            _ => {}
        }
    }
    Ok(())
}

#[test]
#[serial_test::parallel]
fn the_reader_refuses_what_the_format_forbids() {
    let good = "# TYPE a gauge\n# HELP a An a.\na{x=\"1\"} 2\n# TYPE b counter\nb_total 3\n# EOF\n";
    assert_eq!(parse(good).expect("valid").len(), 2);
    for (bad, why) in [
        ("# TYPE a gauge\na 1\n", "no # EOF"),
        ("a 1\n# EOF\n", "a sample before its TYPE"),
        (
            "# TYPE a gauge\na 1\n# TYPE b gauge\nb 1\n# TYPE a gauge\n# EOF\n",
            "a family twice",
        ),
        ("# TYPE b counter\nb 1\n# EOF\n", "a counter without _total"),
        (
            "# TYPE a gauge\na{x=\"1\",x=\"2\"} 1\n# EOF\n",
            "a label twice",
        ),
        (
            "# TYPE a gauge\na{x=\"1\"} 1\na{x=\"1\"} 2\n# EOF\n",
            "a series twice",
        ),
        ("# TYPE a gauge\na{x=\"a\\tb\"} 1\n# EOF\n", "a bad escape"),
        ("# TYPE a gauge\na 1 2 3\n# EOF\n", "too many fields"),
        ("# TYPE a gauge\na one\n# EOF\n", "not a number"),
        (
            "# TYPE a gauge\n# a comment\na 1\n# EOF\n",
            "a plain comment",
        ),
        ("# TYPE a gauge\n\na 1\n# EOF\n", "an empty line"),
        ("# TYPE i info\ni_info 2\n# EOF\n", "an info of 2"),
        ("# TYPE a gauge\na{1x=\"1\"} 1\n# EOF\n", "a bad label name"),
    ] {
        assert!(parse(bad).is_err(), "accepted {why}: {bad:?}");
    }
}
