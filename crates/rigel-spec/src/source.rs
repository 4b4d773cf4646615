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

    /// The source `id`, if there is one.
    pub fn try_get(&self, id: SourceId) -> Option<&Source> {
        self.list.get(id.0)
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

/// The largest spec file rigel reads: far above any real spec, far below what hurts.
pub const MAX_SPEC_BYTES: u64 = 16 << 20;

/// Reads a spec file: only a regular file of at most [`MAX_SPEC_BYTES`]. A FIFO, a device or a
/// directory is refused by type before anything could block on it or read without end.
pub fn read_spec_file(path: &Path) -> Result<String, String> {
    use std::os::unix::fs::OpenOptionsExt as _;
    let refuse = |meta: &std::fs::Metadata| -> Result<(), String> {
        let kind = file_kind(meta);
        if kind != "a regular file" {
            return Err(format!("it is {kind}, not a regular file"));
        }
        if meta.len() > MAX_SPEC_BYTES {
            return Err(format!(
                "it holds {} bytes, more than a spec may ({} MiB)",
                meta.len(),
                MAX_SPEC_BYTES >> 20
            ));
        }
        Ok(())
    };
    // stat first (never blocks), then open without blocking and check the opened file again: the
    // path may have been swapped in between.
    refuse(&std::fs::metadata(path).map_err(|e| e.to_string())?)?;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| e.to_string())?;
    refuse(&file.metadata().map_err(|e| e.to_string())?)?;
    read_bounded(file)
}

/// Reads at most [`MAX_SPEC_BYTES`] of spec text (standard input, or an opened file).
pub fn read_bounded(from: impl std::io::Read) -> Result<String, String> {
    use std::io::Read as _;
    let mut bytes = Vec::new();
    from.take(MAX_SPEC_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    if bytes.len() as u64 > MAX_SPEC_BYTES {
        return Err(format!(
            "more than {} MiB of text: not a spec",
            MAX_SPEC_BYTES >> 20
        ));
    }
    String::from_utf8(bytes).map_err(|_| "it is not UTF-8 text".to_owned())
}

fn file_kind(meta: &std::fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt as _;
    let t = meta.file_type();
    if t.is_file() {
        "a regular file"
    } else if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    }
}
