//! The process's CPU time (getrusage RUSAGE_SELF: every thread, io_uring's io-wq workers and
//! SQPOLL submission threads included, as they belong to the process), and a worker's CPU:
//! pinning it, reading where it runs.

use rigel_results::CpuTime;

/// User and system CPU seconds used by the process so far.
pub fn process_cpu() -> CpuTime {
    let (user_s, system_s) = crate::engines::sys::process_cpu_s().unwrap_or_default();
    CpuTime {
        user_s,
        system_s,
        sq_thread_s: None,
    }
}

/// CPU used between two readings.
pub fn delta(before: CpuTime, after: CpuTime) -> CpuTime {
    CpuTime {
        user_s: (after.user_s - before.user_s).max(0.0),
        system_s: (after.system_s - before.system_s).max(0.0),
        sq_thread_s: None,
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
