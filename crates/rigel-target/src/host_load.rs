//! What the host did while a point ran, read from the kernel at the window's edges only (no cost
//! per I/O): `/proc/stat`'s CPU time (steal, and busy time that was not rigel's), the load
//! average at the end, the CPU frequency.

use rigel_results::{CpuTime, HostLoad};
use std::fs;

/// `/proc/stat`'s clock ticks per second: USER_HZ, which the kernel fixes at 100 for this file
/// on every architecture Linux runs rigel on, whatever its internal HZ.
const USER_HZ: f64 = 100.0;

/// The host's CPU time so far, summed over its CPUs (`/proc/stat`'s `cpu` line), in ticks.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct HostClock {
    busy: u64,
    steal: u64,
    total: u64,
    cpus: u32,
}

impl HostClock {
    /// Now; `None` where `/proc/stat` cannot be read (a restricted container).
    pub fn now() -> Option<HostClock> {
        parse_stat(&fs::read_to_string("/proc/stat").ok()?)
    }

    /// The host over the window since `self`, rigel having used `rigel` of CPU in it.
    pub fn window(&self, rigel: &CpuTime) -> HostLoad {
        let shares = HostClock::now().and_then(|end| shares(self, &end, rigel));
        HostLoad {
            load_1m: fs::read_to_string("/proc/loadavg")
                .ok()
                .and_then(|l| l.split_whitespace().next()?.parse().ok()),
            cpus: (self.cpus > 0).then_some(self.cpus),
            steal: shares.map(|s| s.0),
            others: shares.map(|s| s.1),
            cpu_mhz: cpu_mhz(),
        }
    }
}

/// `cpu  user nice system idle iowait irq softirq steal guest guest_nice`: guest time is counted
/// in user already, so busy is user + nice + system + irq + softirq, and the total adds idle,
/// iowait and steal.
fn parse_stat(stat: &str) -> Option<HostClock> {
    let line = stat.lines().find(|l| l.starts_with("cpu "))?;
    let f: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .map(|v| v.parse().unwrap_or(0))
        .collect();
    let at = |i: usize| f.get(i).copied().unwrap_or(0);
    let busy = at(0) + at(1) + at(2) + at(5) + at(6);
    let steal = at(7);
    Some(HostClock {
        busy,
        steal,
        total: busy + at(3) + at(4) + steal,
        cpus: stat
            .lines()
            .filter(|l| l.starts_with("cpu") && l.as_bytes().get(3).is_some_and(u8::is_ascii_digit))
            .count() as u32,
    })
}

/// (steal, others) as shares of the host's CPU time between `a` and `b`; `None` over a window
/// too short for a tick.
fn shares(a: &HostClock, b: &HostClock, rigel: &CpuTime) -> Option<(f64, f64)> {
    let total = b.total.saturating_sub(a.total) as f64;
    if total <= 0.0 {
        return None;
    }
    let busy = b.busy.saturating_sub(a.busy) as f64 / USER_HZ;
    let steal = b.steal.saturating_sub(a.steal) as f64;
    let host_s = total / USER_HZ;
    // Ticks are sampled (a task running at a tick is charged the whole tick): rigel's exact CPU
    // time can exceed the busy ticks by a few, so the difference is floored at 0.
    let others = (busy - (rigel.user_s + rigel.system_s)).max(0.0) / host_s;
    Some((steal / total, others.min(1.0)))
}

/// The online CPUs' mean current frequency, MHz: `scaling_cur_freq` (kHz) where cpufreq is,
/// else `/proc/cpuinfo`'s `cpu MHz` lines; `None` where neither gives one.
fn cpu_mhz() -> Option<f64> {
    let cpufreq: Vec<f64> = fs::read_dir("/sys/devices/system/cpu")
        .ok()?
        .filter_map(|e| {
            let path = e.ok()?.path().join("cpufreq/scaling_cur_freq");
            fs::read_to_string(path).ok()?.trim().parse::<f64>().ok()
        })
        .map(|khz| khz / 1000.0)
        .collect();
    let mhz = if cpufreq.is_empty() {
        cpuinfo_mhz(&fs::read_to_string("/proc/cpuinfo").ok()?)
    } else {
        cpufreq
    };
    (!mhz.is_empty()).then(|| mhz.iter().sum::<f64>() / mhz.len() as f64)
}

fn cpuinfo_mhz(cpuinfo: &str) -> Vec<f64> {
    cpuinfo
        .lines()
        .filter_map(|l| {
            let (k, v) = l.split_once(':')?;
            (k.trim() == "cpu MHz").then(|| v.trim().parse().ok())?
        })
        .filter(|&m: &f64| m > 0.0)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn other_work_and_steal_are_shares_of_the_hosts_cpu_time() {
        // 2 CPUs over 1 s: 200 ticks. 120 busy, 20 stolen; rigel used 0.4 s of CPU.
        let a = parse_stat("cpu  100 0 50 1000 0 0 0 10 0 0\ncpu0 1 2 3\n").unwrap();
        let b = parse_stat("cpu  180 10 80 1060 0 0 0 30 5 0\n").unwrap();
        let rigel = CpuTime {
            user_s: 0.3,
            system_s: 0.1,
            sq_thread_s: None,
        };
        let (steal, others) = shares(&a, &b, &rigel).unwrap();
        assert!((steal - 0.1).abs() < 1e-9, "{steal}");
        // busy 120 ticks = 1.2 s, less rigel's 0.4 s, over 2 s of host CPU.
        assert!((others - 0.4).abs() < 1e-9, "{others}");
        assert_eq!(shares(&a, &a, &rigel), None);
        assert_eq!((a.cpus, b.cpus), (1, 0));
    }

    #[test]
    fn a_frequency_absent_is_absent_not_zero() {
        assert_eq!(
            cpuinfo_mhz("processor\t: 0\nmodel name\t: x\n"),
            Vec::<f64>::new()
        );
        assert_eq!(
            cpuinfo_mhz("cpu MHz\t\t: 2400.000\ncpu MHz\t\t: 1200.5\n"),
            vec![2400.0, 1200.5]
        );
    }

    #[test]
    fn this_host_gives_its_figures() {
        let Some(clock) = HostClock::now() else {
            return;
        };
        let h = clock.window(&CpuTime::default());
        assert!(h.load_1m.is_some_and(|l| l >= 0.0), "{h:?}");
        assert!(h.cpu_mhz.is_none_or(|m| m > 0.0), "{h:?}");
    }
}
