//! Where a job does its I/O: fio's files (`filename`, `directory`, `nrfiles`, `filesize`) and the
//! part of them it uses (`size`, `offset`), as targets and the class's `region`.

use crate::error::FioError;
use crate::jobfile::Setting;
use crate::jobs::bad_value;
use crate::units::{self, Extent};
use crate::value::{Ctx, Value, size_text, value};

/// One file a job addresses, as fio names it.
#[derive(Clone, Debug, PartialEq)]
pub struct File {
    pub path: String,
    /// The size rigel creates it at when it does not exist.
    pub size: Option<u64>,
}

/// The files a job addresses and the part of them it uses (fio's size and offset).
pub(crate) fn placement(
    c: &Ctx,
    job_name: &str,
    numjobs: u64,
) -> Result<(Vec<File>, Option<Value>), FioError> {
    let nrfiles = match c.int("nrfiles")? {
        Some((0, s)) => return Err(bad_value(s, "nrfiles is at least 1")),
        Some((n, _)) => n,
        None => 1,
    };
    let size_s = c.get("size");
    let size = match size_s {
        Some(s) => Some((
            units::extent(c.text(s), c.base).map_err(|why| bad_value(s, &why))?,
            s,
        )),
        None => None,
    };
    let offset_s = c.get("offset");
    let offset = match offset_s {
        Some(s) => units::extent(c.text(s), c.base).map_err(|why| bad_value(s, &why))?,
        None => Extent::Bytes(0),
    };
    let filesize = match c.get("filesize") {
        Some(s) => Some(c.size(s, c.text(s))?),
        None => None,
    };
    let dir = c.get("directory").map(|s| c.text(s).to_owned());
    let in_dir = |name: &str| match &dir {
        Some(d) if !name.starts_with('/') => format!("{}/{name}", d.trim_end_matches('/')),
        _ => name.to_owned(),
    };
    let names: Vec<String> = match c.get("filename") {
        Some(s) => split_files(c.text(s)).iter().map(|n| in_dir(n)).collect(),
        // fio names a job's files JOB.JOBNUM.FILENUM, in `directory` or where it runs.
        None => (0..numjobs)
            .flat_map(|j| (0..nrfiles).map(move |f| (j, f)))
            .map(|(j, f)| in_dir(&format!("{job_name}.{j}.{f}")))
            .collect(),
    };
    let per_file = |total: u64| filesize.unwrap_or(total / nrfiles.max(1));
    let mut files = Vec::new();
    for path in names {
        let exists = std::fs::metadata(&path).is_ok();
        let size = match (exists, size, offset) {
            (true, _, _) => None,
            (false, Some((Extent::Bytes(b), _)), Extent::Bytes(o)) => Some(o + per_file(b)),
            (false, _, _) if filesize.is_some() => filesize,
            (false, _, _) => {
                let at = size_s.map_or(c.job.at.clone(), |s| s.at.clone());
                return Err(FioError::BadValue {
                    at,
                    option: "filename".to_owned(),
                    value: path,
                    why: "no such file: give size= in bytes (fio and rigel create a missing file at that size)".to_owned(),
                });
            }
        };
        files.push(File { path, size });
    }
    if files.is_empty() {
        return Err(FioError::Syntax {
            at: c.job.at.clone(),
            why: format!("job {job_name} names no file"),
        });
    }
    let any_existing = files.iter().any(|f| f.size.is_none());
    let start = match offset {
        Extent::Bytes(0) => None,
        Extent::Bytes(b) => Some(size_text(b)),
        Extent::Percent(p) => Some(format!("{p}%")),
    };
    let end = match (size, offset) {
        (Some((Extent::Bytes(b), _)), Extent::Bytes(o)) if any_existing || o > 0 => {
            Some(size_text(o + b))
        }
        (Some((Extent::Bytes(_), _)), _) => None,
        (Some((Extent::Percent(p), _)), Extent::Percent(o)) => {
            Some(format!("{}%", (p + o).min(100.0)))
        }
        (Some((Extent::Percent(p), _)), Extent::Bytes(0)) => Some(format!("{p}%")),
        (Some((s, st)), _) => {
            let _ = s;
            return Err(bad_value(
                st,
                "give size and offset both in bytes or both in percent",
            ));
        }
        (None, _) => None,
    };
    let mut from_settings: Vec<&Setting> = Vec::new();
    from_settings.extend(size_s);
    from_settings.extend(offset_s);
    let region = match (start, end) {
        (None, None) => None,
        (s, e) => Some(value(
            format!(
                "{}..{}",
                s.unwrap_or_else(|| "0".to_owned()),
                e.unwrap_or_else(|| "100%".to_owned())
            ),
            &from_settings,
        )),
    };
    Ok((files, region))
}

/// fio's `filename=a:b` is two files; `\:` is a colon inside a name.
fn split_files(text: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut chars = text.chars().peekable();
    while let Some(ch) = chars.next() {
        match ch {
            '\\' if chars.peek() == Some(&':') => {
                chars.next();
                out.last_mut().expect("one").push(':');
            }
            ':' => out.push(String::new()),
            ch => out.last_mut().expect("one").push(ch),
        }
    }
    out.into_iter()
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filenames_split_at_unescaped_colons() {
        assert_eq!(split_files("/dev/a:/dev/b"), vec!["/dev/a", "/dev/b"]);
        assert_eq!(split_files("a\\:b"), vec!["a:b"]);
    }
}
