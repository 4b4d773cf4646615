//! What the block devices under a point's targets did in its measured window, from the kernel's
//! own counters (the ones iostat and fio's "Disk stats" read): the load the device was given,
//! whatever the tool asked for.
//!
//! Why a calibration tool records it: a queue depth is asked of the tool, but the device serves
//! what reaches it. Requests split (a 1 MiB read over a 254-segment limit is two), merged, or held
//! in the tool or the scheduler all change what was measured; these figures show it beside the
//! tool's own, so a reader need not trust either alone.

use serde::{Deserialize, Serialize};

/// One block device's counters over a point's measured window (differences of
/// `/sys/dev/block/MAJ:MIN/stat`, Documentation/block/stat.rst). The device's other users count
/// too: on a shared disk these are the device's figures, not only the run's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DeviceWindow {
    /// The kernel's name for it (`vda`, `nvme0n1p2`, `loop3`).
    pub name: String,
    /// Requests completed: a request may carry several of the tool's I/Os (merged) or part of one
    /// (split).
    pub reads: u64,
    pub writes: u64,
    pub read_bytes: u64,
    pub write_bytes: u64,
    /// Milliseconds with at least one request in flight (`io_ticks`).
    pub busy_ms: u64,
    /// Milliseconds in flight summed over requests (`time_in_queue`).
    pub in_flight_ms: u64,
    /// The span the two readings cover, milliseconds (the measured window, to the coordinator's
    /// wake-up).
    pub span_ms: f64,
}

impl DeviceWindow {
    /// Requests completed per second.
    pub fn requests_per_s(&self) -> f64 {
        per_s(self.reads + self.writes, self.span_ms)
    }

    /// The mean number of requests in flight at the device (iostat's `aqu-sz`): Little's law on
    /// the kernel's books. Their request times are coarse (since Linux 6.9 a request's start may
    /// be its plug's cached clock), so at a steady depth of 1 this can read up to ~10% above 1.
    pub fn mean_depth(&self) -> f64 {
        if self.span_ms > 0.0 {
            self.in_flight_ms as f64 / self.span_ms
        } else {
            0.0
        }
    }

    /// The mean bytes per request (iostat's `rareq-sz`/`wareq-sz` together), none without requests.
    pub fn mean_request_bytes(&self) -> Option<f64> {
        let n = self.reads + self.writes;
        (n > 0).then(|| (self.read_bytes + self.write_bytes) as f64 / n as f64)
    }

    /// The share of the window with a request in flight, 0–1 (iostat's `%util`; for a device that
    /// serves requests in parallel it is not how loaded the device is).
    pub fn busy_share(&self) -> f64 {
        if self.span_ms > 0.0 {
            (self.busy_ms as f64 / self.span_ms).min(1.0)
        } else {
            0.0
        }
    }
}

fn per_s(n: u64, span_ms: f64) -> f64 {
    if span_ms > 0.0 {
        n as f64 * 1000.0 / span_ms
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn window(reads: u64, read_bytes: u64, in_flight_ms: u64, busy_ms: u64) -> DeviceWindow {
        DeviceWindow {
            name: "vda".into(),
            reads,
            writes: 0,
            read_bytes,
            write_bytes: 0,
            busy_ms,
            in_flight_ms,
            span_ms: 2000.0,
        }
    }

    #[test]
    fn derived_figures_follow_littles_law_and_the_byte_counts() {
        // 2 s, 96,000 reads of 8 KiB, 51,200 ms in flight: 48,000/s at a depth of 25.6.
        let w = window(96_000, 96_000 * 8192, 51_200, 2_000);
        assert_eq!(w.requests_per_s(), 48_000.0);
        assert_eq!(w.mean_depth(), 25.6);
        assert_eq!(w.mean_request_bytes(), Some(8192.0));
        assert_eq!(w.busy_share(), 1.0);
    }

    #[test]
    fn an_idle_or_empty_window_reads_zero_not_nan() {
        let idle = window(0, 0, 0, 0);
        assert_eq!(idle.mean_request_bytes(), None);
        assert_eq!(idle.mean_depth(), 0.0);
        let empty = DeviceWindow {
            span_ms: 0.0,
            ..window(5, 5 * 4096, 3, 3)
        };
        assert_eq!(empty.requests_per_s(), 0.0);
        assert_eq!(empty.busy_share(), 0.0);
    }
}
