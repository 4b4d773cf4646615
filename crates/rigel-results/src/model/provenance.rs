//! Where a run came from, for a document someone signs: the spec (its name, its file's sha256, and
//! the git commit it was taken from) and who ran it. Recorded when the run starts; absent in
//! documents written before rigel kept it, and where rigel could not learn it.

use serde::{Deserialize, Serialize};

/// The run's provenance (`results.json`'s `provenance`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Provenance {
    pub spec: SpecOrigin,
    /// The user name of the effective user id that ran rigel (`uid 1000` where it has no name).
    pub user: String,
    /// The user who ran rigel through `sudo` (`SUDO_USER`), when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sudo_user: Option<String>,
    /// Who measured, as they name themselves for the sign-off (`--by NAME`, or `RIGEL_BY`): the
    /// person who signs "Measured by", which the unix user (often root) does not tell.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measured_by: Option<String>,
}

/// The spec a run compiled.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SpecOrigin {
    /// The spec's `name` (the plan's).
    pub name: String,
    /// The spec as named on the command line: a file, `-`, a library name (`orion/simple`), or
    /// what made it (`rigel orion`'s options, the built-in `quick`).
    pub source: String,
    /// The file's absolute path (none for standard input, a built-in spec or generated text).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// sha256 of the spec's text as read (the file's bytes), lowercase hex: what `sha256sum` of the
    /// file prints.
    pub sha256: String,
    /// sha256 of the resolved spec (`spec_toml`: `extends`, variables and `--set` applied).
    pub resolved_sha256: String,
    /// The git repository the spec file lives in, where it does and `git` answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git: Option<GitOrigin>,
}

/// The spec file's place in a git repository.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GitOrigin {
    /// The commit checked out (`HEAD`), full hex.
    pub commit: String,
    /// No tracked file differed from that commit (untracked files do not count).
    pub clean: bool,
    /// The spec file's path in the repository, empty when git does not track it (the commit then
    /// does not hold the spec).
    pub path: String,
}
