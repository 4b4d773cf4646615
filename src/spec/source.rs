//! The texts a spec was read from (files and `--set` arguments), so every value can say where it came
//! from and diagnostics can underline it.

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Index of a source in a [`Sources`] list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SourceId(pub usize);

/// Where a value was written: a source and a byte range in it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Loc {
    pub source: SourceId,
    pub span: Range<usize>,
}

impl Loc {
    pub fn new(source: SourceId, span: Range<usize>) -> Loc {
        Loc { source, span }
    }
    /// A sub-range of this location (offsets relative to its start), clamped inside it.
    pub fn sub(&self, range: Range<usize>) -> Loc {
        let len = self.span.len();
        let start = self.span.start + range.start.min(len);
        let end = (self.span.start + range.end.min(len)).max(start);
        Loc::new(self.source, start..end)
    }
}

#[derive(Clone, Debug)]
pub struct Source {
    /// The name shown in diagnostics (the path as the user gave it, or `--set`).
    pub name: String,
    /// The file's path on disk (None for command-line text).
    pub path: Option<PathBuf>,
    pub text: Arc<String>,
}

/// Every text read while loading one spec.
#[derive(Clone, Debug, Default)]
pub struct Sources {
    list: Vec<Source>,
}

impl Sources {
    pub fn add(&mut self, name: String, path: Option<&Path>, text: String) -> SourceId {
        self.list.push(Source {
            name,
            path: path.map(Path::to_path_buf),
            text: Arc::new(text),
        });
        SourceId(self.list.len() - 1)
    }

    pub fn get(&self, id: SourceId) -> &Source {
        &self.list[id.0]
    }

    /// 1-based line and column of a byte offset, as editors count them (columns in characters).
    pub fn line_col(&self, loc: &Loc) -> (usize, usize) {
        let text = &self.get(loc.source).text;
        let at = loc.span.start.min(text.len());
        let before = &text[..floor_char_boundary(text, at)];
        let line = before.matches('\n').count() + 1;
        let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        (line, col)
    }
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}
