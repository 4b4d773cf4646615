//! What a target is: a block device or a regular file.

/// A block device or a regular file (a test file rigel may create).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TargetKind {
    Block,
    File,
}

impl TargetKind {
    /// As `TargetInfo.kind` names it.
    pub fn name(self) -> &'static str {
        match self {
            TargetKind::Block => "block",
            TargetKind::File => "file",
        }
    }
}
