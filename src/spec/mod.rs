//! TOML spec files → a typed, spanned model: `extends` and `[vars]` resolved, `--set` applied, every
//! error pointing at the text the user wrote.

mod diag;
mod expect;
mod load;
mod model;
mod read;
mod schema;
mod source;
mod suggest;
mod tree;
mod vars;
mod workload;

pub use diag::{Diagnostics, SpecError};
pub use load::Override;
pub use model::*;
pub use read::Reader;
pub use source::{Loc, SourceId, Sources};
pub use suggest::did_you_mean;

use std::path::Path;

/// A spec read and typed, with the texts it came from (for later compile diagnostics).
#[derive(Debug)]
pub struct LoadedSpec {
    pub spec: Spec,
    pub sources: Sources,
    /// The merged spec after `extends`, `--set` and `${var}`s, as TOML text (kept in run folders).
    pub resolved_toml: String,
}

/// Where a spec comes from.
pub enum SpecInput<'a> {
    File(&'a Path),
    /// Built-in text with a display name.
    Text {
        name: &'a str,
        text: &'a str,
    },
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
    let (loaded, default_name) = match input {
        SpecInput::File(path) => {
            let stem = path
                .file_stem()
                .map_or_else(|| "spec".to_owned(), |s| s.to_string_lossy().into_owned());
            (load::load_file(path, &mut sources), stem)
        }
        SpecInput::Text { name, text } => {
            (load::load_text(name, text, &mut sources), name.to_owned())
        }
    };
    let fail = |sources: Sources, errors| Diagnostics { sources, errors };
    let mut table = match loaded {
        Ok(t) => t,
        Err(errors) => return Err(fail(sources, errors)),
    };
    if let Err(errors) = load::apply_overrides(&mut table, overrides, &mut sources) {
        return Err(fail(sources, errors));
    }
    let errors = vars::substitute(&mut table, &sources, &builtins.pairs());
    if !errors.is_empty() {
        return Err(fail(sources, errors));
    }
    let root_loc = Loc::new(SourceId(0), 0..0);
    let mut reader = Reader::new(&sources);
    let spec = schema::read_spec(&mut reader, &table, &root_loc, &default_name, cores);
    let errors = std::mem::take(&mut reader.errors);
    if !errors.is_empty() {
        return Err(fail(sources, errors));
    }
    let resolved_toml = tree::to_toml(&table);
    Ok(LoadedSpec {
        spec,
        sources,
        resolved_toml,
    })
}

fn one_of_key(key_loc: &Loc, param: &str) -> SpecError {
    let params = ["size", "mix", "access", "per_stream"];
    SpecError::at(
        key_loc,
        format!("`{param}` cannot be swept"),
        format!("expected one of {}", params.join(", ")),
    )
    .hint_opt(
        did_you_mean(param, params.iter().copied())
            .or_else(|| Some(format!("sweepable parameters: {}", params.join(", ")))),
    )
}
