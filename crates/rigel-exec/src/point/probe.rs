//! What a point's run tells beyond its results (`run_point_probed`): workers, batches, engines and
//! each class's depth held, for the tests and diagnostics.

use crate::RingMode;

/// How the executor ran a point, beyond the results: what tests and diagnostics look at.
#[derive(Clone, Debug)]
pub struct PointProbe {
    pub workers: usize,
    /// Per active class, in the point's order.
    pub classes: Vec<ClassProbe>,
    /// Completion batches (enter calls that returned) over all workers.
    pub batches: u64,
    /// Entries that submitted without waiting (tried while I/Os complete during submission).
    pub submit_only: u64,
    /// Of the batches, those whose completions were in the ring when a submit-only entry
    /// returned: I/Os that completed during their own submission (page-cache reads).
    pub inline_turns: u64,
    /// I/Os submitted again (short transfers, EINTR/EAGAIN) over all workers.
    pub requeued: u64,
    /// Every worker used registered buffers / registered files.
    pub fixed_buffers: bool,
    pub fixed_files: bool,
    pub ring_modes: Vec<RingMode>,
}

#[derive(Clone, Debug)]
pub struct ClassProbe {
    pub class: String,
    pub outstanding: u32,
    /// Time-averaged count of this class's I/Os submitted and not yet reaped, over the measured
    /// window: what the closed loop actually kept in flight.
    pub mean_in_flight: f64,
}
