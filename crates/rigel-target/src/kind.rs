//! What a target is: a block device, a regular file, or an NVMe namespace's generic character
//! device (passthrough).

/// A block device, a regular file (a test file rigel may create), or an NVMe namespace driven by
/// passthrough commands (`/dev/ngXnY`, see `passthru`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TargetKind {
    Block,
    File,
    Passthru,
}

impl TargetKind {
    /// As `TargetInfo.kind` names it.
    pub fn name(self) -> &'static str {
        match self {
            TargetKind::Block => "block",
            TargetKind::File => "file",
            TargetKind::Passthru => "nvme-passthru",
        }
    }
}
