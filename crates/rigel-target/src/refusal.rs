//! Why a write to a target is refused, and how the user can proceed.

use super::kind::TargetKind;
use std::fmt;
use std::path::PathBuf;

/// A refused write: which target, why, and how to proceed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("refusing to write {}: {reason}", path.display())]
pub struct Refusal {
    pub path: PathBuf,
    pub reason: Reason,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reason {
    /// Consent is missing from the spec, the command line, or both.
    NoConsent {
        kind: TargetKind,
        /// The spec consents (`destructive = true`) or the command line names the path.
        spec: bool,
        command_line: bool,
    },
    /// The device, or one of its partitions (`device`), is mounted.
    Mounted {
        device: String,
        mountpoint: String,
    },
    /// dm, md or bcache devices are stacked on the device or a partition of it.
    Held {
        device: String,
        holders: Vec<String>,
    },
    Swap {
        device: String,
    },
    /// A loop device reads and writes this file.
    BacksLoop {
        loop_device: String,
    },
    /// The kernel refused the exclusive open: in use, possibly from another mount namespace.
    Busy,
    /// Its first (or last) blocks hold this signature (from rigel's table or `blkid -p`);
    /// `--force` overrides.
    Signature {
        found: String,
    },
    /// Its first or last blocks could not be read, so rigel cannot vouch that they hold no data.
    Unreadable {
        error: String,
    },
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reason::NoConsent {
                kind,
                spec,
                command_line,
            } => {
                let what = match kind {
                    TargetKind::Block => "it is a block device",
                    TargetKind::File => "rigel did not create this file",
                    TargetKind::Passthru => "it is an NVMe namespace",
                };
                let missing = match (spec, command_line) {
                    (false, false) => {
                        "name it on the command line (--set VAR=PATH) and pass --allow-destructive, \
                         or set `destructive = true` on this target in the spec and pass --allow-destructive"
                    }
                    (false, true) => "set `destructive = true` on this target in the spec as well",
                    _ => "pass --allow-destructive as well",
                };
                write!(
                    f,
                    "{what} and writing destroys its data; to proceed, {missing}"
                )
            }
            Reason::Mounted { device, mountpoint } => write!(
                f,
                "{device} is mounted on {mountpoint}; unmount it first (--force does not override this)"
            ),
            Reason::Held { device, holders } => write!(
                f,
                "{device} is in use by {} (device-mapper, md or bcache); stop that first \
                 (--force does not override this)",
                holders.join(", ")
            ),
            Reason::Swap { device } => write!(
                f,
                "{device} is an active swap area; swapoff it first (--force does not override this)"
            ),
            Reason::BacksLoop { loop_device } => write!(
                f,
                "it backs the loop device /dev/{loop_device}; detach it first (losetup -d) \
                 (--force does not override this)"
            ),
            Reason::Busy => write!(
                f,
                "the kernel reports it in use (mounted or held, perhaps in another namespace); \
                 free it first (--force does not override this)"
            ),
            Reason::Signature { found } => write!(
                f,
                "it holds {found}; if it really is scratch, wipe the signature (wipefs -a) or pass --force"
            ),
            Reason::Unreadable { error } => write!(
                f,
                "rigel could not read it to check for a filesystem signature ({error}); \
                 pass --force to write it anyway"
            ),
        }
    }
}
