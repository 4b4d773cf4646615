//! A library spec's text as a copy that loads wherever it is saved (`rigel specs NAME > my.toml`):
//! a relative `extends` is rewritten to what it names from the spec's own place, the built-in's
//! name (`../base.toml` from `oracle/oltp` is `base`) or a file's absolute path.

use super::library::{Entry, Origin, builtin_relative};

impl Entry {
    /// [`Entry::text`] with each relative `extends = "…"` rewritten to a name or a path that does
    /// not depend on where the copy lives; the rest byte for byte.
    pub fn standalone_text(&self) -> Result<String, String> {
        let text = self.text()?;
        let mut out = String::with_capacity(text.len());
        for line in text.split_inclusive('\n') {
            out.push_str(
                &self
                    .rewrite_extends(line)
                    .unwrap_or_else(|| line.to_owned()),
            );
        }
        Ok(out)
    }

    /// `line` with its `extends = "REL"` made absolute, or None when it is no such line (or
    /// already names a library spec).
    fn rewrite_extends(&self, line: &str) -> Option<String> {
        let rest = line.trim_start().strip_prefix("extends")?.trim_start();
        let rest = rest.strip_prefix('=')?.trim_start().strip_prefix('"')?;
        let (rel, tail) = rest.split_once('"')?;
        if super::library::is_name(rel) {
            return None;
        }
        let absolute = match &self.origin {
            Origin::Builtin(from) => builtin_relative(from, rel)?.to_owned(),
            Origin::File(path) => {
                let joined = path.parent()?.join(rel);
                let full = joined.canonicalize().unwrap_or(joined);
                full.to_str()?.replace('\\', "\\\\").replace('"', "\\\"")
            }
        };
        let indent = &line[..line.len() - line.trim_start().len()];
        Some(format!("{indent}extends = \"{absolute}\"{tail}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_builtins_relative_parent_becomes_its_name() {
        let entry = Entry {
            name: "oracle/oltp".into(),
            origin: Origin::Builtin("oracle/oltp"),
            shadowed: false,
        };
        let text = entry.standalone_text().unwrap();
        assert!(text.contains("\nextends = \"base\"\n"), "{text}");
        assert!(!text.contains("../base.toml\"\n"), "{text}");
        let plain = Entry {
            name: "orion/simple".into(),
            origin: Origin::Builtin("orion/simple"),
            shadowed: false,
        };
        assert_eq!(plain.standalone_text(), plain.text());
    }
}
