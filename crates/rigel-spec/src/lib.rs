//! TOML spec files → a typed, spanned model: `extends` and `[vars]` resolved, `--set` applied, every
//! error pointing at the text the user wrote.

#![forbid(unsafe_code)]

mod answers;
mod conditioning;
mod copy;
mod diag;
mod drain;
mod engine;
mod expect;
pub mod json_schema;
pub mod keys;
pub mod library;
mod load;
#[cfg(test)]
mod load_tests;
mod model;
mod pacing;
mod read;
mod schema;
mod search;
mod set_vars;
mod source;
mod tree;
mod vars;
mod verify;
mod workload;

pub use diag::{DiagnosticRecord, Diagnostics, SpecError};
pub use engine::Engine;
pub use library::Origin;
pub use load::Override;
pub use model::*;
pub use read::Reader;
pub use source::{Loc, SourceId, Sources};

use std::path::Path;

/// A spec read and typed, with the texts it came from (for later compile diagnostics).
#[derive(Debug)]
pub struct LoadedSpec {
    pub spec: Spec,
    pub sources: Sources,
    /// The merged spec after `extends`, `--set` and `${var}`s, as TOML text (kept in run folders),
    /// opening with comments that name every file it came from.
    pub resolved_toml: String,
    /// `[vars]` that some value uses, with their values as written (a parent's `lun` that the
    /// spec's own targets replaced is not among them).
    pub used_vars: Vec<(String, String)>,
}

impl LoadedSpec {
    /// The variable target `i`'s path is written as (`path = "${data1}"`): what `--set data1=PATH`
    /// points at a LUN; None for a path written out or built of more than one variable.
    pub fn target_var(&self, i: usize) -> Option<String> {
        let loc = &self.spec.targets.get(i)?.path.loc;
        let text = self
            .sources
            .try_get(loc.source)?
            .text
            .get(loc.span.clone())?;
        set_vars::whole_var(text.trim_matches(['"', '\''])).map(str::to_owned)
    }
}

/// Where a spec comes from.
pub enum SpecInput<'a> {
    File(&'a Path),
    /// Text with a display name (generated, or the built-in default).
    Text {
        name: &'a str,
        text: &'a str,
    },
    /// As named on the command line: `-` (standard input), a file, or a library name such as
    /// `orion/simple` (`RIGEL_PATH`, then the built-in specs).
    Arg(&'a Path),
}

/// The names every spec may use without declaring them: a fleet run's `${rank}` (0-based),
/// `${ranks}` and `${host}`; one host's run is rank 0 of 1.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Builtins {
    pub rank: u32,
    pub ranks: u32,
    pub host: String,
}

impl Builtins {
    /// Rank 0 of 1 on this host.
    pub fn single() -> Builtins {
        Builtins {
            rank: 0,
            ranks: 1,
            host: hostname(),
        }
    }

    fn pairs(&self) -> [(&'static str, String); 3] {
        [
            ("rank", self.rank.to_string()),
            ("ranks", self.ranks.to_string()),
            ("host", self.host.clone()),
        ]
    }
}

/// This machine's host name (the kernel's nodename).
pub fn hostname() -> String {
    rustix::system::uname()
        .nodename()
        .to_string_lossy()
        .into_owned()
}

/// Reads, merges, overrides and types a spec. Every mistake found is returned at once.
pub fn load(
    input: SpecInput<'_>,
    overrides: &[Override],
    cores: u64,
) -> Result<LoadedSpec, Diagnostics> {
    load_as(input, overrides, cores, &Builtins::single())
}

/// [`load`], as the fleet rank `builtins` names.
pub fn load_as(
    input: SpecInput<'_>,
    overrides: &[Override],
    cores: u64,
    builtins: &Builtins,
) -> Result<LoadedSpec, Diagnostics> {
    let mut sources = Sources::default();
    let library = library::Library::from_env();
    let (loaded, default_name, origins) = {
        let mut loader = load::Loader::new(&mut sources, library.clone());
        let (loaded, default_name) = match input {
            SpecInput::File(path) => (loader.origin(&Origin::File(path.into())), stem(path)),
            SpecInput::Text { name, text } => (loader.text(name, text), name.to_owned()),
            SpecInput::Arg(arg) => match from_arg(arg, &library) {
                Ok(Arg::Stdin(text)) => (loader.text("<stdin>", &text), "stdin".to_owned()),
                Ok(Arg::Origin(origin)) => {
                    let name = match &origin {
                        Origin::File(p) => stem(p),
                        Origin::Builtin(n) => stem(Path::new(n)),
                    };
                    (loader.origin(&origin), name)
                }
                Err(e) => (Err(vec![e]), String::new()),
            },
        };
        (loaded, default_name, loader.origins)
    };
    let fail = |sources: Sources, errors| Diagnostics { sources, errors };
    let mut table = match loaded {
        Ok(t) => t,
        Err(errors) => return Err(fail(sources, errors)),
    };
    if let Err(errors) = load::apply_overrides(&mut table, overrides, &mut sources) {
        return Err(fail(sources, errors));
    }
    let used_vars = set_vars::used_vars(&table);
    let unused = set_vars::unused_set_vars(&table, overrides, &mut sources);
    if !unused.is_empty() {
        return Err(fail(sources, unused));
    }
    let named = set_vars::named_on_command_line(&table, overrides, &sources);
    let errors = vars::substitute(&mut table, &sources, &builtins.pairs());
    if !errors.is_empty() {
        return Err(fail(sources, errors));
    }
    let root_loc = Loc::new(SourceId(0), 0..0);
    let mut reader = Reader::new(&sources);
    let mut spec = schema::read_spec(&mut reader, &table, &root_loc, &default_name, cores);
    for (target, named) in spec.targets.iter_mut().zip(named) {
        target.named_on_command_line = named;
    }
    let errors = std::mem::take(&mut reader.errors);
    if !errors.is_empty() {
        return Err(fail(sources, errors));
    }
    let resolved_toml = provenance(&origins, overrides) + &tree::to_toml(&table);
    Ok(LoadedSpec {
        spec,
        sources,
        resolved_toml,
        used_vars,
    })
}

fn stem(path: &Path) -> String {
    path.file_stem()
        .map_or_else(|| "spec".to_owned(), |s| s.to_string_lossy().into_owned())
}

enum Arg {
    Stdin(String),
    Origin(Origin),
}

/// A spec named on the command line: `-`, an existing path, or else a library name.
fn from_arg(arg: &Path, library: &library::Library) -> Result<Arg, SpecError> {
    if arg == Path::new("-") {
        return source::read_bounded(std::io::stdin().lock())
            .map(Arg::Stdin)
            .map_err(|e| SpecError::whole(format!("cannot read a spec from standard input: {e}")));
    }
    let text = arg.to_string_lossy();
    if std::fs::symlink_metadata(arg).is_ok() || !library::is_name(&text) {
        return Ok(Arg::Origin(Origin::File(arg.to_path_buf())));
    }
    library.find(&text).map(Arg::Origin).map_err(|miss| {
        SpecError::whole(format!("{} (and no file `{text}` here)", miss.message()))
            .hint(miss.hint())
    })
}

/// The comment that opens a resolved spec: every file it came from, and the `--set`s.
fn provenance(origins: &[String], overrides: &[Override]) -> String {
    let mut out =
        String::from("# The resolved spec: extends, ${vars} and --set applied. It came from:\n");
    for o in origins {
        out.push_str(&format!("#   {o}\n"));
    }
    for o in overrides {
        out.push_str(&format!("#   --set {}={}\n", o.key, o.value));
    }
    out
}
