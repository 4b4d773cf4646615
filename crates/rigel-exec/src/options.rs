//! The executor's choices that are not part of a plan: registered buffers and files, an I/O
//! budget, and the test-only faults.

/// Executor choices that are not part of a plan (diagnostics, tests, benchmarks).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExecOptions {
    /// Register the buffer arena with the ring (fixed-buffer reads and writes) when allowed.
    pub register_buffers: bool,
    /// Register the targets' descriptors with the ring when allowed.
    pub register_files: bool,
    /// End the point once this many I/Os (over all workers) were issued and completed, instead
    /// of at the window's end (a precondition pass of exact bytes; closed-loop classes only).
    pub ios: Option<u64>,
    /// Test-only fault: each worker panics at the end of this many turns of its loop.
    #[cfg(test)]
    pub(crate) panic_after_turns: Option<u64>,
    /// Test-only: the workers run on the fake engine (`engines::fake`), whatever their classes
    /// asked for.
    #[cfg(test)]
    pub(crate) fake_engine: bool,
}

impl Default for ExecOptions {
    fn default() -> Self {
        ExecOptions {
            register_buffers: true,
            register_files: true,
            ios: None,
            #[cfg(test)]
            panic_after_turns: None,
            #[cfg(test)]
            fake_engine: false,
        }
    }
}
