//! The specs rigel generates (`derive`'s, `replay`'s) built as data: a `toml_edit` document whose
//! values are escaped by the TOML writer and whose comments hold one line each, so nothing read
//! from a trace (a device name, a host, a kernel string) can add a table or a key. What is built is
//! loaded back and compiled before anyone writes it, and its targets must be exactly the ones the
//! caller meant: a spec rigel writes is one `rigel check` accepts, or none is written.

use crate::TraceError;
use rigel_plan::RunPlan;
use toml_edit::{ArrayOfTables, DocumentMut, Item, Table, Value};

/// A generated spec, table by table, in the order written.
pub struct SpecDoc {
    doc: DocumentMut,
    /// Where keys go: a table's dotted path, or `[[target]]`'s last element.
    at: At,
    /// Comment lines waiting for the next key or table (a comment is decor on what follows it).
    pending: String,
    position: isize,
}

enum At {
    Root,
    Table(Vec<String>),
    Target,
}

/// The mix of a generated class whose requests include discards: each direction's share of
/// `reads + writes + trims` (a replay counts its flushes as writes), every direction present at
/// 1% or more, adding up to 100: `70% read, 20% write, 10% trim`.
pub fn trim_mix(reads: u64, writes: u64, trims: u64) -> String {
    let total = (reads + writes + trims).max(1) as f64;
    let pct = |n: u64| {
        if n == 0 {
            0
        } else {
            (n as f64 * 100.0 / total).round().clamp(1.0, 98.0) as u8
        }
    };
    let trim_percent = pct(trims).max(1);
    let room = 100 - trim_percent - u8::from(writes > 0);
    let read_percent = if writes == 0 {
        100 - trim_percent
    } else {
        pct(reads).min(room)
    };
    rigel_expr::Mix {
        read_percent,
        trim_percent,
    }
    .to_string()
}

/// `text` as one comment line's body: control characters (a newline above all) become spaces, so a
/// comment never ends early and what follows it is still comment.
pub fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

impl Default for SpecDoc {
    fn default() -> Self {
        SpecDoc {
            doc: DocumentMut::new(),
            at: At::Root,
            pending: String::new(),
            position: 0,
        }
    }
}

impl SpecDoc {
    /// A comment line (or several, split at newlines by the caller's intent: each is made one
    /// line) before whatever comes next.
    pub fn comment(&mut self, text: &str) {
        self.pending.push_str("# ");
        self.pending.push_str(&one_line(text));
        self.pending.push('\n');
    }

    /// An empty line before whatever comes next.
    pub fn blank(&mut self) {
        self.pending.push('\n');
    }

    /// Starts the table `path` (`["class", "rand"]` is `[class.rand]`, its parent left implicit).
    pub fn table(&mut self, path: &[&str]) {
        let mut t = Table::new();
        t.decor_mut().set_prefix(self.take_pending_with_gap());
        self.position += 1;
        t.set_position(Some(self.position));
        let (last, parents) = path.split_last().expect("a table has a name");
        let mut cur = self.doc.as_table_mut();
        for p in parents {
            let item = cur.entry(p).or_insert_with(|| {
                let mut parent = Table::new();
                parent.set_implicit(true);
                Item::Table(parent)
            });
            cur = item.as_table_mut().expect("a parent table");
        }
        cur.insert(last, Item::Table(t));
        self.at = At::Table(path.iter().map(|s| (*s).to_owned()).collect());
    }

    /// Starts a `[[target]]`.
    pub fn target(&mut self) {
        let mut t = Table::new();
        t.decor_mut().set_prefix(self.take_pending_with_gap());
        self.position += 1;
        t.set_position(Some(self.position));
        let item = self
            .doc
            .as_table_mut()
            .entry("target")
            .or_insert_with(|| Item::ArrayOfTables(ArrayOfTables::new()));
        item.as_array_of_tables_mut()
            .expect("target is an array of tables")
            .push(t);
        self.at = At::Target;
    }

    /// `key = value` in the current table, with `note` as its trailing comment.
    pub fn set(&mut self, key: &str, value: impl Into<Value>, note: Option<&str>) {
        let mut value: Value = value.into();
        if let Some(n) = note {
            value
                .decor_mut()
                .set_suffix(format!("   # {}", one_line(n)));
        }
        let prefix = std::mem::take(&mut self.pending);
        let table = self.current();
        table.insert(key, Item::Value(value));
        if let Some(mut k) = table.key_mut(key) {
            k.leaf_decor_mut().set_prefix(prefix);
        }
    }

    fn current(&mut self) -> &mut Table {
        match &self.at {
            At::Root => self.doc.as_table_mut(),
            At::Table(path) => {
                let mut cur = self.doc.as_table_mut();
                for p in path {
                    cur = cur[p.as_str()].as_table_mut().expect("a table");
                }
                cur
            }
            At::Target => self.doc["target"]
                .as_array_of_tables_mut()
                .and_then(|a| a.iter_mut().last())
                .expect("a target"),
        }
    }

    /// A table after the first starts after an empty line, then its comments.
    fn take_pending_with_gap(&mut self) -> String {
        let p = std::mem::take(&mut self.pending);
        if self.position == 0 || p.starts_with('\n') {
            p
        } else {
            format!("\n{p}")
        }
    }

    /// The document's text (comments still pending end it).
    pub fn finish(mut self) -> String {
        let pending = std::mem::take(&mut self.pending);
        self.doc.set_trailing(pending);
        self.doc.to_string()
    }
}

/// A target a generated spec must plan, and nothing else.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expected {
    pub path: String,
    pub destructive: bool,
}

/// Loads `text` back as `rigel check` would and compiles it; the spec must plan exactly the
/// targets `expected`. Anything else is rigel's own fault, reported as a refusal to write it.
pub fn check(name: &str, text: &str, expected: &[Expected]) -> Result<RunPlan, TraceError> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get() as u64);
    let refuse = |why: String| TraceError::Generated {
        name: name.to_owned(),
        why,
    };
    let loaded = rigel_spec::load(rigel_spec::SpecInput::Text { name, text }, &[], cores)
        .map_err(|d| refuse(d.render(false)))?;
    let plan = rigel_plan::compile(&loaded.spec, cores).map_err(|errors| {
        refuse(
            rigel_spec::Diagnostics {
                sources: loaded.sources.clone(),
                errors,
            }
            .render(false),
        )
    })?;
    let planned: Vec<Expected> = plan
        .targets
        .iter()
        .map(|t| Expected {
            path: t.path.clone(),
            destructive: t.destructive,
        })
        .collect();
    if planned != expected {
        return Err(refuse(format!(
            "it plans the targets {planned:?}, not {expected:?}"
        )));
    }
    Ok(plan)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_comment_or_value_with_a_newline_adds_no_table() {
        let hostile = "x\n[[target]]\npath = \"/tmp/evil\"\ndestructive = true";
        let mut d = SpecDoc::default();
        d.comment(hostile);
        d.table(&["spec"]);
        d.set("name", "t", Some(hostile));
        d.set("description", hostile, None);
        let text = d.finish();
        let parsed: toml_edit::DocumentMut = text.parse().expect("valid TOML");
        assert!(parsed.get("target").is_none(), "{text}");
        assert_eq!(parsed["spec"]["description"].as_str(), Some(hostile));
    }
}
