//! ORION's `<testname>.lun`: the LUNs to test, one device or file path per line, in the current
//! directory. Reading it touches no storage; opening the LUNs is the target layer's job, and its
//! errors are traced back here to the line that named the LUN. This crate does not depend on the
//! target layer: its caller says which path an error names and which [`LunFault`] it is.

use super::OrionError;
use std::path::{Path, PathBuf};

/// One LUN and the line of the `.lun` file that names it (1-based).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lun {
    pub path: String,
    pub line: usize,
}

/// The `.lun` file as read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LunFile {
    /// As ORION names it: `<testname>.lun`, relative to the directory it was read in.
    pub name: String,
    pub luns: Vec<Lun>,
}

impl LunFile {
    /// Reads `<testname>.lun` in `dir`. Blank lines are skipped and each line is trimmed; ORION has
    /// no comment syntax, so every other line is a path. Two lines naming one device or file under
    /// different spellings (a symlink, `/dev/disk/by-id/...`) are refused: run as two LUNs they
    /// would double the load on one device while the report claims two.
    pub fn read(dir: &Path, testname: &str) -> Result<LunFile, OrionError> {
        let name = format!("{testname}.lun");
        let path = dir.join(&name);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(match testname.strip_suffix(".lun") {
                    Some(stem) => OrionError::LunDoubleSuffix {
                        path: PathBuf::from(&name),
                        stem: stem.to_owned(),
                    },
                    None => OrionError::LunMissing {
                        path: PathBuf::from(&name),
                    },
                });
            }
            Err(source) => {
                return Err(OrionError::LunRead {
                    path: PathBuf::from(&name),
                    source,
                });
            }
        };
        let file = LunFile::parse(&name, &text)?;
        file.refuse_aliases(dir)?;
        Ok(file)
    }

    /// Refuses two LUNs that resolve to one block device (same device number) or one file (same
    /// filesystem and inode). A LUN that cannot be looked up is left to the target layer, which
    /// says why with the line.
    fn refuse_aliases(&self, dir: &Path) -> Result<(), OrionError> {
        use std::os::unix::fs::{FileTypeExt, MetadataExt};
        let mut seen: Vec<((u64, u64), &Lun)> = Vec::new();
        for lun in &self.luns {
            let Ok(meta) = std::fs::metadata(dir.join(&lun.path)) else {
                continue;
            };
            let identity = if meta.file_type().is_block_device() {
                (u64::MAX, meta.rdev())
            } else {
                (meta.dev(), meta.ino())
            };
            if let Some((_, first)) = seen.iter().find(|(id, _)| *id == identity) {
                return Err(OrionError::LunAlias {
                    path: self.name.clone().into(),
                    line: lun.line,
                    lun: lun.path.clone(),
                    first: first.line,
                    other: first.path.clone(),
                });
            }
            seen.push((identity, lun));
        }
        Ok(())
    }

    /// Parses the text of a `.lun` file named `name`, as ORION reads it: a UTF-8 byte-order mark
    /// (Windows editors write one) is not part of the first path, and CRLF ends a line like LF.
    pub fn parse(name: &str, text: &str) -> Result<LunFile, OrionError> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut luns: Vec<Lun> = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let path = line.trim();
            if path.is_empty() {
                continue;
            }
            if let Some(first) = luns.iter().find(|l| l.path == path) {
                return Err(OrionError::LunRepeated {
                    path: name.into(),
                    line: i + 1,
                    first: first.line,
                    lun: path.into(),
                });
            }
            luns.push(Lun {
                path: path.into(),
                line: i + 1,
            });
        }
        if luns.is_empty() {
            return Err(OrionError::LunEmpty { path: name.into() });
        }
        Ok(LunFile {
            name: name.into(),
            luns,
        })
    }

    /// The LUN a target error is about, when it names one (`path`, the path the error names).
    pub fn lun_of(&self, path: Option<&Path>) -> Option<&Lun> {
        let path = path?;
        self.luns.iter().find(|l| Path::new(&l.path) == path)
    }

    /// A target error as an ORION user needs it: the `.lun` file and line first, and the target
    /// layer's spec-centric advice (declare a size to create a file) replaced by ORION's terms.
    /// `path` is the path the error names, `fault` what it says of it, `message` its own text.
    pub fn explain(&self, path: Option<&Path>, fault: LunFault, message: &str) -> String {
        let Some(lun) = self.lun_of(path) else {
            return message.to_owned();
        };
        let at = format!("{} line {}", self.name, lun.line);
        if Path::new(&lun.path).is_dir() {
            return format!(
                "{at}: {}: is a directory; ORION tests block devices or pre-created files",
                lun.path
            );
        }
        match fault {
            LunFault::Missing => format!(
                "{at}: {}: no such device or file; ORION tests existing block devices or pre-created files (create the file, e.g. `fallocate -l 1G {}`, or fix the path)",
                lun.path, lun.path
            ),
            LunFault::TooSmall { size, need } => format!(
                "{at}: {}: too small for the I/O size: it holds {size} bytes, and rigel needs at least {need} (the largest I/O size, or the raid0 stripe); use a larger LUN or smaller I/Os (-size_large)",
                lun.path
            ),
            LunFault::Other => format!("{at}: {message}"),
        }
    }
}

/// What a target error says of a LUN, as far as ORION words it its own way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LunFault {
    /// No such device or file.
    Missing,
    /// The LUN holds `size` bytes; rigel needs at least `need` (the largest I/O, or the stripe).
    TooSmall { size: u64, need: u64 },
    /// Anything else: the target layer's own message follows the `.lun` line.
    Other,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blank_lines_are_skipped_and_lines_trimmed() {
        let f = LunFile::parse("t.lun", "/dev/a\n\n  /dev/b \r\n\n").expect("parses");
        assert_eq!(
            f.luns,
            [
                Lun {
                    path: "/dev/a".into(),
                    line: 1
                },
                Lun {
                    path: "/dev/b".into(),
                    line: 3
                }
            ]
        );
    }

    #[test]
    fn a_byte_order_mark_and_crlf_are_not_part_of_a_path() {
        let f = LunFile::parse("t.lun", "\u{feff}/dev/a\r\n/dev/b\r\n").expect("parses");
        let paths: Vec<&str> = f.luns.iter().map(|l| l.path.as_str()).collect();
        assert_eq!(paths, ["/dev/a", "/dev/b"]);
    }

    #[test]
    fn an_empty_file_and_a_repeated_lun_are_errors() {
        let e = LunFile::parse("t.lun", "\n \n").expect_err("empty");
        assert!(e.to_string().contains("t.lun lists no LUNs"), "{e}");
        let e = LunFile::parse("t.lun", "/dev/a\n/dev/b\n/dev/a\n").expect_err("repeated");
        assert!(
            e.to_string()
                .contains("t.lun line 3: /dev/a is already listed on line 1"),
            "{e}"
        );
    }

    #[test]
    fn target_errors_name_the_line() {
        let f = LunFile::parse("t.lun", "/dev/a\n\n/x/b\n").expect("parses");
        let fault = LunFault::TooSmall {
            size: 4096,
            need: 1 << 20,
        };
        let msg = f.explain(Some(Path::new("/x/b")), fault, "target layer's text");
        assert!(msg.starts_with("t.lun line 3: /x/b: too small"), "{msg}");
        let msg = f.explain(Some(Path::new("/dev/a")), LunFault::Missing, "no such");
        assert!(msg.starts_with("t.lun line 1: /dev/a: no such device or file"));
        let msg = f.explain(Some(Path::new("/dev/a")), LunFault::Other, "it failed");
        assert_eq!(msg, "t.lun line 1: it failed");
        assert_eq!(
            f.explain(None, LunFault::Other, "the plan has no targets"),
            "the plan has no targets"
        );
    }
}
