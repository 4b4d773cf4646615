//! ORION's command line for rigel (`rigel orion -run simple -testname x`): ORION's options and its
//! `.lun` file become an ordinary spec, which then runs through the same pipeline as `rigel run`.
//! No second engine: this module only translates; `cli::orion` runs and prints.

#![forbid(unsafe_code)]

mod error;
mod lun;
mod options;
mod parse;
#[cfg(test)]
mod proptests;
mod rules;
mod to_spec;

pub use error::OrionError;
pub use lun::{Lun, LunFault, LunFile};
pub use options::*;
pub use parse::{EXTENSIONS, ORION_OPTIONS, Parsed, orion_args, parse};
pub use to_spec::{
    UNSET_WARMUP_S, WARMUP_MIB_PER_S, estimate_minutes, matrix_loads, to_spec, warmup_seconds,
};

use std::path::Path;

/// An ORION invocation ready for the pipeline: its options, its LUNs and the spec they make.
#[derive(Clone, Debug)]
pub struct OrionJob {
    pub options: OrionOptions,
    pub luns: LunFile,
    pub spec_toml: String,
}

/// Reads `<testname>.lun` in `dir`, applies the rules that need the LUNs, and writes the spec.
/// `commandline` is ORION's command line as the user typed it.
pub fn prepare(
    options: OrionOptions,
    dir: &Path,
    commandline: &str,
) -> Result<OrionJob, OrionError> {
    let luns = LunFile::read(dir, options.testname())?;
    rules::check_luns(&options, luns.luns.len(), &luns.name)?;
    let spec_toml = to_spec(&options, &luns, commandline);
    Ok(OrionJob {
        options,
        luns,
        spec_toml,
    })
}

impl OrionJob {
    /// rigel's write guard in ORION's terms: `-write` needs `--allow-destructive` to run.
    pub fn check_write_consent(&self) -> Result<(), OrionError> {
        let percent = self.options.write_percent();
        if percent == 0 || self.options.ext.allow_destructive {
            return Ok(());
        }
        let paths: Vec<&str> = self.luns.luns.iter().map(|l| l.path.as_str()).collect();
        Err(OrionError::WriteNotAllowed {
            percent,
            lun_file: self.luns.name.clone(),
            luns: paths.join(", "),
        })
    }
}
