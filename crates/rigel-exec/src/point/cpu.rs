//! The process's CPU time (getrusage RUSAGE_SELF: every thread, io_uring's io-wq workers included),
//! and a worker's CPU: pinning it, reading where it runs.

use rigel_results::CpuTime;

/// User and system CPU seconds used by the process so far.
pub fn process_cpu() -> CpuTime {
    // SAFETY: rusage is plain old data; zeroed is a valid value, and getrusage only writes it.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: valid `who` and a pointer to a live rusage; cannot fail with these arguments.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    if rc != 0 {
        return CpuTime::default();
    }
    let secs = |tv: libc::timeval| tv.tv_sec as f64 + tv.tv_usec as f64 / 1e6;
    CpuTime {
        user_s: secs(ru.ru_utime),
        system_s: secs(ru.ru_stime),
    }
}

/// CPU used between two readings.
pub fn delta(before: CpuTime, after: CpuTime) -> CpuTime {
    CpuTime {
        user_s: (after.user_s - before.user_s).max(0.0),
        system_s: (after.system_s - before.system_s).max(0.0),
    }
}

/// Pins the calling thread (a worker) to CPU `cpu` (`PointControl::cpus`).
pub(crate) fn pin(cpu: u32) -> std::io::Result<()> {
    let mut set = rustix::thread::CpuSet::new();
    let i = cpu as usize;
    if i >= rustix::thread::CpuSet::MAX_CPU {
        return Err(std::io::Error::from_raw_os_error(libc::EINVAL));
    }
    set.set(i);
    rustix::thread::sched_setaffinity(None, &set).map_err(std::io::Error::from)
}

/// The CPU the calling thread runs on now.
pub(crate) fn current() -> Option<u32> {
    u32::try_from(rustix::thread::sched_getcpu()).ok()
}
