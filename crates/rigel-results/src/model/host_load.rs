//! What the host was doing while a point ran, beside rigel: its load, the CPU time stolen from it
//! and taken by other work, and its CPU frequency. `rigel compare` reads them to tell a host that
//! changed under two runs from storage that changed.

use serde::{Deserialize, Serialize};

/// The host over one point's measured window (each figure absent where the kernel did not give
/// it: a container without `/proc/stat`, a VM without `cpufreq` or `cpu MHz`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct HostLoad {
    /// `/proc/loadavg`'s one-minute load at the window's end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load_1m: Option<f64>,
    /// The CPUs `/proc/stat` counted (online), of whose time `steal` and `others` are shares.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpus: Option<u32>,
    /// The CPU time stolen by the hypervisor over the window, as a share of all the host's CPU
    /// time (0 to 1: 0.5 on 2 cores is one core's worth).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steal: Option<f64>,
    /// The host's busy CPU time that was not rigel's over the window (user, nice, system, irq and
    /// softirq time less rigel's own CPU), as a share of all its CPU time: other work, and the
    /// kernel threads serving rigel's I/O (a loop device's worker, io-wq outside the process).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub others: Option<f64>,
    /// The mean current frequency of the online CPUs at the window's end, MHz
    /// (`cpufreq/scaling_cur_freq`, else `/proc/cpuinfo`'s `cpu MHz`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_mhz: Option<f64>,
}

impl HostLoad {
    /// The share of the host's CPU that was not rigel's to take: other work and steal.
    pub fn contention(&self) -> Option<f64> {
        match (self.others, self.steal) {
            (None, None) => None,
            (o, s) => Some(o.unwrap_or(0.0) + s.unwrap_or(0.0)),
        }
    }
}
