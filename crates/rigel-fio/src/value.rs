//! A translated value and where it came from (the `--to-spec` comment), the spec's forms of sizes
//! and durations, and a job's settings read as fio reads them (`kb_base`, fio's numbers).

use crate::error::FioError;
use crate::jobfile::Setting;
use crate::jobs::{Job, bad_value};
use crate::units::{self, KbBase};

/// A spec value and the fio settings it was made from (`rw=randread (job.fio:4)`).
#[derive(Clone, Debug)]
pub struct Value {
    pub text: String,
    pub from: String,
}

pub(crate) fn from(settings: &[&Setting]) -> String {
    settings
        .iter()
        .map(|s| match &s.value {
            Some(v) => format!("{}={v} ({})", s.name, s.at),
            None => format!("{} ({})", s.name, s.at),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

pub(crate) fn value(text: impl Into<String>, settings: &[&Setting]) -> Value {
    Value {
        text: text.into(),
        from: from(settings),
    }
}

pub(crate) fn default(text: impl Into<String>, why: &str) -> Value {
    Value {
        text: text.into(),
        from: format!("fio's default: {why}"),
    }
}

/// A size as the spec writes it: the largest binary unit that divides it.
pub fn size_text(bytes: u64) -> String {
    for (unit, name) in [(1u64 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")] {
        if bytes >= unit && bytes % unit == 0 {
            return format!("{}{name}", bytes / unit);
        }
    }
    format!("{bytes}B")
}

/// A duration as the spec writes it, from nanoseconds.
pub fn duration_text(ns: u64) -> String {
    for (unit, name) in [(1_000_000_000u64, "s"), (1_000_000, "ms"), (1_000, "us")] {
        if ns >= unit && ns % unit == 0 {
            return format!("{}{name}", ns / unit);
        }
    }
    format!("{ns}ns")
}

pub(crate) struct Ctx<'a> {
    pub(crate) job: &'a Job,
    pub(crate) base: KbBase,
}

impl Ctx<'_> {
    pub(crate) fn get(&self, name: &str) -> Option<&Setting> {
        self.job.get(name)
    }
    pub(crate) fn text<'s>(&self, s: &'s Setting) -> &'s str {
        s.value.as_deref().unwrap_or("")
    }
    pub(crate) fn int(&self, name: &str) -> Result<Option<(u64, &Setting)>, FioError> {
        match self.get(name) {
            None => Ok(None),
            Some(s) => units::integer(self.text(s))
                .map(|v| Some((v, s)))
                .map_err(|why| bad_value(s, &why)),
        }
    }
    pub(crate) fn size(&self, s: &Setting, text: &str) -> Result<u64, FioError> {
        units::size(text, self.base).map_err(|why| bad_value(s, &why))
    }
}
