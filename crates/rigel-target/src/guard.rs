//! The destructive-write guard. Reading is always allowed. Writing to a block device, or to a file
//! rigel did not create, needs the spec's consent (or the path named on the command line) and the
//! command line's `--allow-destructive`; even then a device in
//! use (mounted, partitions mounted, held by dm/md, swap, backing a loop device) is refused, and
//! one that holds a filesystem or partition-table signature needs `--force`.

use super::TargetError;
use super::in_use::System;
use super::kind::TargetKind;
use super::probe::{OpenMode, Probe, open_target, read_head};
use super::refusal::{Reason, Refusal};
use super::{blkid, signature};
use rigel_plan::PlannedTarget;
use std::os::unix::fs::FileExt;
use std::path::Path;

/// What the command line allows, besides the spec's own `destructive` flag.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Consent {
    /// `--allow-destructive`.
    pub allow_destructive: bool,
    /// `--force`: write even over a filesystem or partition-table signature.
    pub force: bool,
}

/// Decides whether `target` may be written. `probe` is the open target's; `created_by_rigel` says
/// whether rigel made (and filled) the file. A target no point writes always passes.
pub fn check_writable(
    target: &PlannedTarget,
    probe: &Probe,
    created_by_rigel: bool,
    consent: Consent,
) -> Result<(), Box<Refusal>> {
    if !target.written || (probe.kind == TargetKind::File && created_by_rigel) {
        return Ok(());
    }
    let path = Path::new(&target.path);
    let refuse = |reason| {
        Err(Box::new(Refusal {
            path: path.into(),
            reason,
        }))
    };
    // A path the user named on the command line is consented to by the same command line's
    // --allow-destructive: the spec wrote no device, the user did.
    let spec = target.destructive || target.named_on_command_line;
    if !(spec && consent.allow_destructive) {
        return refuse(Reason::NoConsent {
            kind: probe.kind,
            spec,
            command_line: consent.allow_destructive,
        });
    }
    // A passthrough target's data is its namespace block device's: that device is judged.
    let block = match probe.kind {
        TargetKind::Passthru => super::passthru::namespace_at(path).map(|ns| ns.block),
        _ => None,
    };
    let data = block.as_deref().unwrap_or(path);
    let system = System::read();
    if let Some(reason) = system.in_use(data, probe) {
        return refuse(reason);
    }
    if !consent.force {
        match signature_of(data, probe) {
            Ok(Some(found)) => return refuse(Reason::Signature { found }),
            Ok(None) => {}
            Err(e) => {
                return refuse(Reason::Unreadable {
                    error: e.to_string(),
                });
            }
        }
    }
    Ok(())
}

/// A signature at the start or the end of the target: what `blkid -p` (or, without blkid,
/// `wipefs -n`) reports where it is installed, then rigel's own table (which also knows layouts libblkid does not).
fn signature_of(path: &Path, probe: &Probe) -> Result<Option<String>, TargetError> {
    if let Some(prober) = blkid::prober() {
        match prober.probe(path) {
            Ok(Some(found)) => return Ok(Some(found)),
            Ok(None) => {}
            // The table below still decides; a broken blkid is no reason to refuse.
            Err(e) => eprintln!(
                "warning: {}: {e}; using rigel's own signature table",
                path.display()
            ),
        }
    }
    let head = read_head(path, signature::HEAD_LEN)?;
    if let Some(found) = signature::detect(&head) {
        return Ok(Some(found.to_owned()));
    }
    let tail_len = (signature::TAIL_LEN as u64).min(probe.size);
    let start = probe.size - tail_len;
    let file = open_target(path, OpenMode::default())?;
    let mut tail = vec![0u8; tail_len as usize];
    file.read_exact_at(&mut tail, start)
        .map_err(TargetError::io_at(path, "read the last blocks", start))?;
    Ok(signature::detect_tail(&tail, probe.size, probe.logical_block_size).map(str::to_owned))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn planned(path: &Path, destructive: bool, written: bool) -> PlannedTarget {
        PlannedTarget {
            name: String::new(),
            path: path.display().to_string(),
            size: None,
            destructive,
            named_on_command_line: false,
            written,
        }
    }

    fn file_probe(path: &Path) -> Probe {
        let file = fs::File::open(path).unwrap();
        super::super::probe::probe(path, &file).unwrap()
    }

    const BOTH: Consent = Consent {
        allow_destructive: true,
        force: false,
    };

    #[test]
    fn a_foreign_file_needs_both_consents() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("theirs.bin");
        fs::write(&path, vec![0u8; 1 << 16]).unwrap();
        let probe = file_probe(&path);
        // Reading is always allowed.
        check_writable(
            &planned(&path, false, false),
            &probe,
            false,
            Consent::default(),
        )
        .unwrap();
        for (spec, cli) in [(false, false), (true, false), (false, true)] {
            let consent = Consent {
                allow_destructive: cli,
                force: false,
            };
            let err =
                check_writable(&planned(&path, spec, true), &probe, false, consent).unwrap_err();
            assert!(matches!(err.reason, Reason::NoConsent { .. }));
            let text = err.to_string();
            assert!(
                text.contains("theirs.bin") && text.contains("did not create"),
                "{text}"
            );
        }
        check_writable(&planned(&path, true, true), &probe, false, BOTH).unwrap();
        // rigel's own file needs no consent.
        check_writable(
            &planned(&path, false, true),
            &probe,
            true,
            Consent::default(),
        )
        .unwrap();
    }

    #[test]
    fn a_file_holding_a_filesystem_needs_force() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("disk.img");
        let mut image = vec![0u8; 1 << 20];
        image[1080..1082].copy_from_slice(&[0x53, 0xef]);
        fs::write(&path, image).unwrap();
        let probe = file_probe(&path);
        let err = check_writable(&planned(&path, true, true), &probe, false, BOTH).unwrap_err();
        // rigel's table says "ext2/ext3/ext4"; blkid, where installed, "TYPE=ext2".
        assert!(
            matches!(&err.reason, Reason::Signature { found } if found.contains("ext")),
            "{err}"
        );
        assert!(err.to_string().contains("--force"));
        let forced = Consent {
            force: true,
            ..BOTH
        };
        check_writable(&planned(&path, true, true), &probe, false, forced).unwrap();
    }

    #[test]
    fn refusals_say_how_to_proceed() {
        let r = Refusal {
            path: "/dev/sdz".into(),
            reason: Reason::Mounted {
                device: "sdz1".into(),
                mountpoint: "/data".into(),
            },
        };
        assert_eq!(
            r.to_string(),
            "refusing to write /dev/sdz: sdz1 is mounted on /data; unmount it first \
             (--force does not override this)"
        );
        let r = Reason::NoConsent {
            kind: TargetKind::Block,
            spec: true,
            command_line: false,
        };
        assert!(r.to_string().contains("block device"));
        assert!(r.to_string().ends_with("pass --allow-destructive as well"));
    }
}
