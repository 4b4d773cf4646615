//! Why an ORION command line or its `.lun` file cannot run: each message says what ORION expects and
//! how to fix it.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum OrionError {
    #[error(
        "ORION needs -run: one of simple, normal, advanced, dss, oltp (e.g. `rigel orion -run simple`)"
    )]
    NoRun,

    #[error("unknown option `{option}`{}", hint_text(hint))]
    UnknownOption {
        option: String,
        hint: Option<String>,
    },

    #[error(
        "`{arg}` is not an option: ORION's options start with one dash and take their value after a space (-run simple)"
    )]
    NotAnOption { arg: String },

    #[error("{option} needs a value: {expected}")]
    MissingValue {
        option: String,
        expected: &'static str,
    },

    #[error("{option} {value}: expected {expected}")]
    BadValue {
        option: String,
        value: String,
        expected: String,
    },

    #[error("{option} is given twice; give it once")]
    Twice { option: String },

    /// An option that this run level or matrix does not use; `why` says which ones do.
    #[error("{option} {why}")]
    NotHere { option: String, why: String },

    /// A matrix or option that needs another option.
    #[error("{what} needs {needs}")]
    Needs { what: String, needs: String },

    #[error("{0}")]
    Invalid(String),

    #[error(
        "{path}: no such file; ORION reads the LUNs to test from <testname>.lun in the current directory, one device or file per line (create it, or pass -testname NAME to read NAME.lun)"
    )]
    LunMissing { path: PathBuf },

    #[error(
        "{path}: no such file; -testname takes the name without `.lun` (ORION would look for {path}): pass -testname {stem}"
    )]
    LunDoubleSuffix { path: PathBuf, stem: String },

    #[error("{path}: cannot read: {source}")]
    LunRead {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    #[error("{path} lists no LUNs; write one device or file per line (e.g. /dev/sdb)")]
    LunEmpty { path: PathBuf },

    #[error("{path} line {line}: {lun} is already listed on line {first}; list each LUN once")]
    LunRepeated {
        path: PathBuf,
        line: usize,
        first: usize,
        lun: String,
    },

    #[error(
        "{path} line {line}: {lun} is the same device or file as {other}, already listed on line {first}; list each LUN once, under one name"
    )]
    LunAlias {
        path: PathBuf,
        line: usize,
        lun: String,
        first: usize,
        other: String,
    },

    #[error(
        "-write {percent} would destroy the data on every LUN in {lun_file} ({luns}), and rigel does not write without consent: add --allow-destructive if that is intended (rigel still refuses a mounted LUN, or one holding a filesystem or partition table, unless --force is also given)"
    )]
    WriteNotAllowed {
        percent: u8,
        lun_file: String,
        luns: String,
    },
}

fn hint_text(hint: &Option<String>) -> String {
    hint.as_ref().map_or(String::new(), |h| format!("; {h}"))
}
