//! Spec diagnostics: what was wrong, where (file, line, column, underlined), what was expected and
//! a hint. Rendered through miette; several are collected and reported together.

use super::source::{Loc, Sources};
use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, NamedSource};
use std::fmt;

/// One mistake in a spec.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecError {
    pub message: String,
    /// None for errors about a file as a whole (it cannot be read).
    pub loc: Option<Loc>,
    /// The text under the underline: what was expected there.
    pub label: String,
    pub hint: Option<String>,
}

impl SpecError {
    pub fn at(loc: &Loc, message: impl Into<String>, label: impl Into<String>) -> SpecError {
        SpecError {
            message: message.into(),
            loc: Some(loc.clone()),
            label: label.into(),
            hint: None,
        }
    }
    pub fn whole(message: impl Into<String>) -> SpecError {
        SpecError {
            message: message.into(),
            loc: None,
            label: String::new(),
            hint: None,
        }
    }
    pub fn hint(mut self, hint: impl Into<String>) -> SpecError {
        self.hint = Some(hint.into());
        self
    }
    pub fn hint_opt(mut self, hint: Option<String>) -> SpecError {
        self.hint = hint;
        self
    }
}

/// All the mistakes found in one spec, with the texts they point into.
#[derive(Clone, Debug)]
pub struct Diagnostics {
    pub sources: Sources,
    pub errors: Vec<SpecError>,
}

impl Diagnostics {
    /// Renders every error as miette does: a header, the source line with the span underlined, the
    /// label, and the hint. `color` is for terminals; snapshots and pipes get plain text.
    pub fn render(&self, color: bool) -> String {
        let theme = if color {
            GraphicalTheme::unicode()
        } else {
            GraphicalTheme::unicode_nocolor()
        };
        let handler = GraphicalReportHandler::new_themed(theme).with_width(100);
        let mut out = String::new();
        for e in &self.errors {
            let report = Rendered::new(&self.sources, e);
            if handler.render_report(&mut out, &report).is_err() {
                out.push_str(&format!("error: {}\n", e.message));
            }
        }
        out
    }

    /// `file:line:col: message` lines, for tools and tests that want one line per error.
    pub fn short(&self) -> String {
        let mut out = String::new();
        for e in &self.errors {
            match &e.loc {
                Some(loc) => {
                    let (line, col) = self.sources.line_col(loc);
                    let name = &self.sources.get(loc.source).name;
                    out.push_str(&format!("{name}:{line}:{col}: {}\n", e.message));
                }
                None => out.push_str(&format!("{}\n", e.message)),
            }
        }
        out
    }
}

/// One diagnostic as editors and CI read it (`rigel check --format json`): 1-based line and column
/// (in characters) of the start and end of the underlined text; none for a file as a whole.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct DiagnosticRecord {
    pub file: String,
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub end_line: Option<usize>,
    pub end_column: Option<usize>,
    pub message: String,
    /// What the underline says (what was expected there).
    pub label: String,
    pub hint: Option<String>,
    /// Always `error` today: every diagnostic stops the spec.
    pub severity: &'static str,
}

impl Diagnostics {
    /// Every error as a record; `file` names errors about the spec as a whole.
    pub fn records(&self, file: &str) -> Vec<DiagnosticRecord> {
        self.errors
            .iter()
            .map(|e| {
                let (name, start, end) = match &e.loc {
                    Some(loc) => {
                        let end = Loc::new(loc.source, loc.span.end..loc.span.end);
                        (
                            self.sources.get(loc.source).name.clone(),
                            Some(self.sources.line_col(loc)),
                            Some(self.sources.line_col(&end)),
                        )
                    }
                    None => (file.to_owned(), None, None),
                };
                DiagnosticRecord {
                    file: name,
                    line: start.map(|p| p.0),
                    column: start.map(|p| p.1),
                    end_line: end.map(|p| p.0),
                    end_column: end.map(|p| p.1),
                    message: e.message.clone(),
                    label: e.label.clone(),
                    hint: e.hint.clone(),
                    severity: "error",
                }
            })
            .collect()
    }
}

/// Whether a diagnostic may quote lines of `src`: rigel's own formats only (a `.toml` spec, or
/// text from the command line or the built-in library), never another file given as a spec, nor
/// a file reached through a symlink (a `.toml` name planted over a token: the file's own name is
/// not the user's to vouch for).
fn shows_excerpt(src: &super::source::Source) -> bool {
    src.path.as_ref().is_none_or(|p| {
        p.extension().is_some_and(|e| e == "toml")
            && std::fs::symlink_metadata(p).is_ok_and(|m| !m.file_type().is_symlink())
    })
}

/// Adapter from a [`SpecError`] to miette's diagnostic trait.
#[derive(Debug)]
struct Rendered {
    message: String,
    /// `file:line:col`; none for an error about a file as a whole (no stray line above it).
    code: Option<String>,
    hint: Option<String>,
    source: Option<NamedSource<String>>,
    label: Option<LabeledSpan>,
}

impl Rendered {
    fn new(sources: &Sources, e: &SpecError) -> Rendered {
        let (source, label, code) = match &e.loc {
            Some(loc) => {
                let src = sources.get(loc.source);
                let (line, col) = sources.line_col(loc);
                let code = Some(format!("{}:{line}:{col}", src.name));
                if !shows_excerpt(src) {
                    // Not a spec file (a JSON file holding a token, /etc/shadow given by mistake):
                    // the place and the message, never its content.
                    (None, None, code)
                } else {
                    let named = NamedSource::new(src.name.clone(), src.text.as_str().to_owned());
                    let label =
                        LabeledSpan::new(Some(e.label.clone()), loc.span.start, loc.span.len());
                    (Some(named), Some(label), code)
                }
            }
            None => (None, None, None),
        };
        Rendered {
            message: e.message.clone(),
            code,
            hint: e.hint.clone(),
            source,
            label,
        }
    }
}

impl fmt::Display for Rendered {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Rendered {}

impl miette::Diagnostic for Rendered {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.code
            .as_ref()
            .map(|c| Box::new(c) as Box<dyn fmt::Display>)
    }
    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.hint
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }
    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        self.source.as_ref().map(|s| s as &dyn miette::SourceCode)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        self.label
            .clone()
            .map(|l| Box::new(std::iter::once(l)) as Box<dyn Iterator<Item = LabeledSpan>>)
    }
}
