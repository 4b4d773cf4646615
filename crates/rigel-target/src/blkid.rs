//! Asking util-linux what a target holds: `blkid -p` (low-level probing, no cache), or where blkid
//! is missing `wipefs -n --json` (the same libblkid probes, nothing written): they know far more
//! signatures than rigel's own table. `RIGEL_BLKID` / `RIGEL_WIPEFS` set to `off` hide a program
//! (so the fallback and the table alone can be tested), set to a path pick one.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// A probe reads a few blocks; a device that does not answer within this is not waited for.
const DEADLINE: Duration = Duration::from_secs(10);

/// The program rigel asks about signatures.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Prober {
    Blkid(PathBuf),
    Wipefs(PathBuf),
}

/// blkid where there is one, else wipefs, else None (rigel's table alone decides).
pub fn prober() -> Option<Prober> {
    find("RIGEL_BLKID", "blkid")
        .map(Prober::Blkid)
        .or_else(|| find("RIGEL_WIPEFS", "wipefs").map(Prober::Wipefs))
}

/// `var`'s path when set (`off` or empty: none), else `name` on PATH or in the sbin directories.
fn find(var: &str, name: &str) -> Option<PathBuf> {
    match std::env::var_os(var) {
        Some(v) if v == "off" || v.is_empty() => return None,
        Some(v) => return Some(PathBuf::from(v)),
        None => {}
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/sbin", "/sbin"].map(PathBuf::from))
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

impl Prober {
    /// What the program reports on `path`, None when it reports nothing; Err when it could not
    /// say (the caller falls back to the built-in table).
    pub fn probe(&self, path: &Path) -> Result<Option<String>, String> {
        match self {
            Prober::Blkid(program) => probe(program, path),
            Prober::Wipefs(program) => {
                let (status, out) = run(program, &["-n", "--json"], path)?;
                if !status.success() {
                    return Err(format!("wipefs exited with {status}"));
                }
                wipefs_found(&out)
            }
        }
    }
}

/// Runs `program ARGS path` with the deadline: its exit status and standard output.
fn run(program: &Path, args: &[&str], path: &Path) -> Result<(ExitStatus, String), String> {
    let name = program.display();
    let mut child = Command::new(program)
        .args(args)
        .arg(path)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("{name}: {e}"))?;
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if start.elapsed() > DEADLINE => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("{name} did not answer within {DEADLINE:?}"));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => return Err(format!("{name}: {e}")),
        }
    };
    let mut out = String::new();
    if let Some(mut stdout) = child.stdout.take() {
        let _ = stdout.read_to_string(&mut out);
    }
    Ok((status, out))
}

/// What `blkid -p -o export` reports for `path` (its TYPE and PTTYPE), None when it reports
/// nothing; Err when blkid could not say (the caller falls back to the built-in table).
pub fn probe(program: &Path, path: &Path) -> Result<Option<String>, String> {
    let (status, out) = run(program, &["-p", "-o", "export"], path)?;
    match status.code() {
        // blkid(8): 2 = nothing identified; 8 = ambivalent (several signatures).
        Some(2) => Ok(None),
        Some(8) => Ok(Some(
            "several signatures (blkid -p: ambivalent result)".into(),
        )),
        Some(0) => Ok(found(&out)),
        _ => Err(format!("blkid exited with {status}")),
    }
}

/// `TYPE=… PTTYPE=…` from blkid's export lines, None when neither is there.
fn found(export: &str) -> Option<String> {
    let keys: Vec<&str> = export
        .lines()
        .filter(|l| l.starts_with("TYPE=") || l.starts_with("PTTYPE="))
        .collect();
    (!keys.is_empty()).then(|| format!("a signature blkid -p reports ({})", keys.join(" ")))
}

/// `wipefs --json`'s output: `{"signatures": [{"offset": "0x20", "type": "oracleasm", …}]}`.
#[derive(serde::Deserialize)]
struct Wipefs {
    #[serde(default)]
    signatures: Vec<WipefsSignature>,
}

#[derive(serde::Deserialize)]
struct WipefsSignature {
    #[serde(default)]
    offset: Option<String>,
    #[serde(rename = "type", default)]
    kind: Option<String>,
}

/// Every signature wipefs lists (`TYPE=oracleasm at 0x20`), None when it lists none. An empty
/// output is no signature (older wipefs print nothing then).
fn wipefs_found(json: &str) -> Result<Option<String>, String> {
    if json.trim().is_empty() {
        return Ok(None);
    }
    let parsed: Wipefs = serde_json::from_str(json)
        .map_err(|e| format!("wipefs --json gave unreadable output: {e}"))?;
    let said: Vec<String> = parsed
        .signatures
        .iter()
        .map(|s| {
            format!(
                "TYPE={} at {}",
                s.kind.as_deref().unwrap_or("unknown"),
                s.offset.as_deref().unwrap_or("?")
            )
        })
        .collect();
    Ok((!said.is_empty()).then(|| format!("a signature wipefs -n reports ({})", said.join(", "))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn export_lines_name_type_and_pttype() {
        let out = "DEVNAME=/dev/loop0\nTYPE=oracleasm\nUSAGE=filesystem\n";
        assert_eq!(
            found(out).as_deref(),
            Some("a signature blkid -p reports (TYPE=oracleasm)")
        );
        assert_eq!(found("DEVNAME=/dev/loop0\nPTUUID=x\n"), None);
    }

    #[test]
    fn wipefs_json_lists_every_signature() {
        let out = r#"{"signatures": [{"device": "loop0", "offset": "0x20", "type": "oracleasm",
            "uuid": null, "label": "DATA0001"}, {"offset": "0x1fe", "type": "dos"}]}"#;
        assert_eq!(
            wipefs_found(out).unwrap().as_deref(),
            Some("a signature wipefs -n reports (TYPE=oracleasm at 0x20, TYPE=dos at 0x1fe)")
        );
        assert_eq!(wipefs_found("{\"signatures\": []}"), Ok(None));
        assert_eq!(wipefs_found(""), Ok(None));
        assert!(wipefs_found("{not json").is_err());
    }

    #[test]
    fn a_clean_file_is_clean_and_a_signature_is_reported() {
        let blkid = find("RIGEL_BLKID", "blkid").expect("blkid on PATH (util-linux)");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("img");
        std::fs::write(&path, vec![0u8; 1 << 20]).unwrap();
        assert_eq!(probe(&blkid, &path), Ok(None));
        let mut image = vec![0u8; 1 << 20];
        image[32..40].copy_from_slice(b"ORCLDISK");
        std::fs::write(&path, image).unwrap();
        let said = probe(&blkid, &path).unwrap().unwrap();
        assert!(said.contains("TYPE=oracleasm"), "{said}");
    }

    #[test]
    fn wipefs_reports_what_is_on_a_real_file() {
        let wipefs = find("RIGEL_WIPEFS", "wipefs").expect("wipefs on PATH (util-linux)");
        let wipefs = Prober::Wipefs(wipefs);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("img");
        std::fs::write(&path, vec![0u8; 1 << 20]).unwrap();
        assert_eq!(wipefs.probe(&path), Ok(None));
        let mut image = vec![0u8; 1 << 20];
        image[32..40].copy_from_slice(b"ORCLDISK");
        std::fs::write(&path, image).unwrap();
        let said = wipefs.probe(&path).unwrap().unwrap();
        assert!(said.contains("TYPE=oracleasm at 0x20"), "{said}");
        assert!(wipefs.probe(&dir.path().join("absent")).is_err());
    }
}
