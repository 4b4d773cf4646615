//! A measured window on the wall clock: what fleet hosts compare to find how far their points
//! overlapped.

use serde::{Deserialize, Serialize};

/// Start and end of a measured window, nanoseconds since the Unix epoch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WallWindow {
    pub start_ns: u64,
    pub end_ns: u64,
}
