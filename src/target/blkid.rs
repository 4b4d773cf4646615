//! Asking util-linux's `blkid -p` (low-level probing, no cache) what a target holds: it knows far
//! more signatures than rigel's own table. Used when the program is there; `RIGEL_BLKID=off`
//! hides it (and `RIGEL_BLKID=/path/to/blkid` picks one), so the table alone can be tested.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// blkid reads a few blocks; a device that does not answer within this is not waited for.
const DEADLINE: Duration = Duration::from_secs(10);

/// The blkid to run: `RIGEL_BLKID` when set (`off` for none), else `blkid` on PATH or in the sbin
/// directories (not on a normal user's PATH).
pub fn program() -> Option<PathBuf> {
    match std::env::var_os("RIGEL_BLKID") {
        Some(v) if v == "off" || v.is_empty() => return None,
        Some(v) => return Some(PathBuf::from(v)),
        None => {}
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/sbin", "/sbin"].map(PathBuf::from))
        .map(|dir| dir.join("blkid"))
        .find(|p| p.is_file())
}

/// What `blkid -p -o export` reports for `path` (its TYPE and PTTYPE), None when it reports
/// nothing; Err when blkid could not say (the caller falls back to the built-in table).
pub fn probe(program: &Path, path: &Path) -> Result<Option<String>, String> {
    let mut child = Command::new(program)
        .args(["-p", "-o", "export"])
        .arg(path)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("{}: {e}", program.display()))?;
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if start.elapsed() > DEADLINE => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("blkid did not answer within {DEADLINE:?}"));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => return Err(format!("blkid: {e}")),
        }
    };
    let mut out = String::new();
    if let Some(mut stdout) = child.stdout.take() {
        let _ = stdout.read_to_string(&mut out);
    }
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
    fn a_clean_file_is_clean_and_a_signature_is_reported() {
        let Some(blkid) = program() else {
            eprintln!("skipped: blkid is not installed");
            return;
        };
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
}
