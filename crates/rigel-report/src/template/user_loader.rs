//! Bounds on a user's templates: they load only regular files inside their folder (a symbolic link
//! could bring /etc/passwd into a report), run on a budget of fuel (a loop without end stops), and
//! write at most `MAX_OUTPUT` bytes each.

use crate::ReportError;
use minijinja::{Environment, Error, ErrorKind, Value};
use std::io;
use std::path::{Component, Path};

/// Instructions a user template may run: far beyond any report (the built-in ones use well under
/// a million), reached in seconds by a loop without end.
pub const FUEL: u64 = 50_000_000;
/// Bytes one user template may write.
pub const MAX_OUTPUT: usize = 64 << 20;
/// Bytes of one template file.
const MAX_SOURCE: u64 = 1 << 20;

pub const SYMLINK_REFUSED: &str =
    "is a symbolic link; rigel renders and includes only regular files inside the template folder";

/// The loader: `name` relative to `root`, through plain directories to a regular file. Opened
/// with `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)`: no link anywhere below `root` is
/// followed, even one swapped in after a look (see `rigel_fs::read_beneath`).
pub fn load(root: &Path, name: &str) -> Result<Option<String>, Error> {
    let refuse = |what: String| Err(Error::new(ErrorKind::InvalidOperation, what));
    if Path::new(name)
        .components()
        .any(|part| !matches!(part, Component::Normal(_)))
    {
        return refuse(format!(
            "{name}: a template name stays inside its folder (no `..`)"
        ));
    }
    match rigel_fs::read_beneath(root, Path::new(name), MAX_SOURCE) {
        Ok(text) => Ok(Some(text)),
        Err(rigel_fs::FsError::Symlink { .. }) => {
            refuse(format!("{} {SYMLINK_REFUSED}", root.join(name).display()))
        }
        Err(rigel_fs::FsError::Io { source, .. }) if source.kind() == io::ErrorKind::NotFound => {
            Ok(None)
        }
        Err(e) => refuse(e.to_string()),
    }
}

/// A writer that refuses the byte after `MAX_OUTPUT`.
struct Bounded {
    out: Vec<u8>,
    full: bool,
}

impl io::Write for Bounded {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.out.len() + buf.len() > MAX_OUTPUT {
            self.full = true;
            return Err(io::Error::other("output limit"));
        }
        self.out.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Renders template `name` with the output limit; running out of fuel or space is an error
/// naming the template and the limit.
pub fn render_bounded(env: &Environment, name: &str, ctx: &Value) -> Result<String, ReportError> {
    let mut out = Bounded {
        out: Vec::new(),
        full: false,
    };
    let rendered = env
        .get_template(name)
        .and_then(|t| t.render_captured_to(ctx, &mut out).map(|_| ()));
    if out.full {
        return Err(ReportError::Template {
            name: name.to_owned(),
            line: None,
            message: format!(
                "its output passed {} MiB, the limit for one user template",
                MAX_OUTPUT >> 20
            ),
        });
    }
    match rendered {
        Err(e) if e.kind() == ErrorKind::OutOfFuel => Err(ReportError::Template {
            name: name.to_owned(),
            line: e.line(),
            message: format!(
                "it ran out of fuel ({FUEL} instructions, the limit for one user template): \
                 a loop without end, or far too much work"
            ),
        }),
        Err(e) => {
            Err(ReportError::template(&e, name).explained(super::undefined::explain(env, &e, ctx)))
        }
        Ok(_) => String::from_utf8(out.out).map_err(|_| ReportError::Template {
            name: name.to_owned(),
            line: None,
            message: "its output is not UTF-8".into(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_over(root: &Path) -> Environment<'static> {
        let mut env = Environment::new();
        let root = root.to_path_buf();
        env.set_loader(move |name| load(&root, name));
        env.set_fuel(Some(FUEL));
        env
    }

    #[test]
    fn links_and_parent_names_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "{% include \"_p\" %}").unwrap();
        std::os::unix::fs::symlink("/etc/passwd", dir.path().join("_p")).unwrap();
        let env = env_over(dir.path());
        let err = render_bounded(&env, "a.txt", &Value::UNDEFINED).unwrap_err();
        assert!(err.to_string().contains("symbolic link"), "{err}");
        assert!(load(dir.path(), "../x").is_err());
        assert_eq!(load(dir.path(), "absent").unwrap(), None);
    }

    #[test]
    fn fuel_and_output_are_bounded() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("loop"),
            "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("big"),
            "{% for i in range(1000) %}{{ \"x\" * 100000 }}{% endfor %}",
        )
        .unwrap();
        std::fs::write(dir.path().join("ok"), "{{ 1 + 1 }}").unwrap();
        let env = env_over(dir.path());
        let err = render_bounded(&env, "loop", &Value::UNDEFINED).unwrap_err();
        assert!(err.to_string().contains("fuel"), "{err}");
        let err = render_bounded(&env, "big", &Value::UNDEFINED).unwrap_err();
        assert!(err.to_string().contains("64 MiB"), "{err}");
        assert_eq!(render_bounded(&env, "ok", &Value::UNDEFINED).unwrap(), "2");
    }
}
