//! What a run may do and what it renders at its end, as the binary asks for it.

use super::schedule::{Barrier, Starts};
use rigel_target::Consent;
use std::sync::Arc;

/// What a run is allowed to do besides reading: the write consent, and `--clean`; when its points
/// start; and which reports it renders beside the built-in ones. The default: no consent to
/// write, the points at once, the built-in reports only (`rigel orion` and `rigel fio` set the
/// consent alone, `rigel replay` the trace too).
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub consent: Consent,
    /// Delete the test files rigel created once the run ends.
    pub clean: bool,
    /// On resume, keep the points recorded as failed instead of running them again.
    pub skip_failed: bool,
    /// A fleet's common schedule: the points to do start at set wall-clock times (none: at once).
    pub starts: Option<Starts>,
    /// A fleet's meeting after `[precondition]`: the points' schedule starts again from the T0 it
    /// returns, after every rank's fill (none: `starts` as agreed).
    pub barrier: Option<Arc<dyn Barrier>>,
    /// Formats rendered at the end of the run beside `Format::DEFAULT` (`rigel run --format pdf`).
    pub formats: Vec<rigel_report::Format>,
    /// The PDF's paper, when `formats` holds the PDF.
    pub paper: rigel_report::Paper,
    /// `rigel replay`: the trace the plan's one class sends instead of drawing its I/Os.
    pub replay: Option<std::sync::Arc<rigel_plan::replay::Replay>>,
}
