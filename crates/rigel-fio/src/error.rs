//! Why a fio job cannot run under rigel: each message names the file and line, the option, and
//! what to do instead.

use std::fmt;

/// Where a setting was written: a job file's line, or the command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loc {
    pub file: String,
    /// 1-based; 0 for the command line.
    pub line: usize,
}

impl Loc {
    pub fn command_line() -> Loc {
        Loc {
            file: "command line".to_owned(),
            line: 0,
        }
    }
}

impl fmt::Display for Loc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}", self.file)
        } else {
            write!(f, "{}:{}", self.file, self.line)
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum FioError {
    /// An option rigel does not do: `hint` says what to do instead.
    #[error("{at}: fio option `{option}` is not translated: {hint}")]
    Refused {
        at: Loc,
        option: String,
        hint: String,
    },

    #[error("{at}: fio option `{option}` is not one rigel knows{}", hint.as_ref().map_or(String::new(), |h| format!("; {h}")))]
    Unknown {
        at: Loc,
        option: String,
        hint: Option<String>,
    },

    /// A value fio would take that rigel cannot run, or one fio would refuse too.
    #[error("{at}: {option}={value}: {why}")]
    BadValue {
        at: Loc,
        option: String,
        value: String,
        why: String,
    },

    /// A job file's own syntax.
    #[error("{at}: {why}")]
    Syntax { at: Loc, why: String },

    /// Reading a job file (or an `include`) failed.
    #[error("{path}: cannot read the job file: {source}")]
    Read {
        path: String,
        #[source]
        source: rigel_fs::FsError,
    },

    #[error(
        "no job to run: give a job file, or --name=NAME with its options (`rigel fio --name=r --rw=randread --filename=/dev/sdb --runtime=30`)"
    )]
    NoJobs,

    /// What the translation made did not load back: rigel's own fault.
    #[error("the spec made from the jobs does not load: {0}")]
    Generated(String),
}
