//! A point's steady-state rounds as the results keep them (stats/steady.rs judges them).

use serde::{Deserialize, Serialize};

/// What a point's rounds showed, kept with the point in the results.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SteadyRecord {
    /// The figure judged, as the spec names it (`small.iops`).
    pub metric: String,
    /// Its value in each round, in order (a round with no value, e.g. a failed one, is NaN → null).
    pub rounds: Vec<Option<f64>>,
    /// The last `window` rounds were within both bands.
    pub reached: bool,
    /// The window's length (`run.steady.rounds`).
    pub window: u32,
    /// The last window's data excursion and line excursion, in % of its mean.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub excursion: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slope: Option<f64>,
    /// Time spent in rounds, seconds (the measured run not included).
    pub seconds: f64,
    /// For people: `steady after 7 rounds` / `not steady in 30m (12 rounds)`.
    pub summary: String,
    /// The rounds' figures in their unit, in order (`41,200 IOPS`; `-` for a round without one).
    pub figures: Vec<String>,
}
