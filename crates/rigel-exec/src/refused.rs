//! Whether this process may use io_uring at all, found by setting up a tiny ring, and when the
//! kernel refuses: the likely cause (a seccomp profile, the `kernel.io_uring_disabled` sysctl, an
//! old kernel, the locked-memory limit) and its fix. `rigel run` asks before it makes a run folder;
//! `rigel check` and `rigel plan` warn.

use std::io;

/// Where the kernel says whether io_uring is allowed (Linux 6.6 and later).
const SYSCTL: &str = "/proc/sys/kernel/io_uring_disabled";

/// io_uring is refused to this process.
#[derive(Debug, thiserror::Error)]
#[error("io_uring is refused here ({source}): {cause}")]
pub struct RingRefused {
    #[source]
    pub source: io::Error,
    /// The likely cause and its fix, in a sentence.
    pub cause: String,
}

/// Sets up (and drops) a 2-entry ring: Ok when io_uring can be used here.
pub fn probe_ring() -> Result<(), RingRefused> {
    io_uring::IoUring::new(2).map(drop).map_err(refused)
}

/// Why setting up a ring failed with `e`, with the sysctl's value read now.
pub fn refused(e: io::Error) -> RingRefused {
    let sysctl = std::fs::read_to_string(SYSCTL)
        .ok()
        .and_then(|s| s.trim().parse::<u8>().ok());
    RingRefused {
        cause: cause(e.raw_os_error(), sysctl),
        source: e,
    }
}

/// The cause of errno `errno` when `kernel.io_uring_disabled` reads `sysctl` (None: absent).
fn cause(errno: Option<i32>, sysctl: Option<u8>) -> String {
    let seccomp = "a seccomp profile forbids the io_uring system calls (the default profiles of \
                   Docker 25+ and containerd 2.x do): run rigel under a profile that allows \
                   io_uring_setup, io_uring_enter and io_uring_register (docs/fleet.md gives one \
                   for Kubernetes), or with `--security-opt seccomp=unconfined`";
    match (errno, sysctl) {
        (_, Some(2)) => "the sysctl kernel.io_uring_disabled is 2 (io_uring is off for every \
                         process): set it to 0 (`sysctl -w kernel.io_uring_disabled=0`, and in \
                         /etc/sysctl.d/ to keep it)"
            .into(),
        (Some(libc::EPERM), Some(1)) => format!(
            "the sysctl kernel.io_uring_disabled is 1 (io_uring only for root and the group \
             kernel.io_uring_group): run rigel as root or in that group, or set the sysctl to 0; \
             or else {seccomp}"
        ),
        (Some(libc::EPERM), _) => seccomp.into(),
        (Some(libc::ENOSYS), _) => "the kernel has no io_uring (older than 5.1, or built \
                                    without CONFIG_IO_URING), or a seccomp profile answers \
                                    ENOSYS: rigel needs Linux 5.10 or newer with io_uring"
            .into(),
        (Some(libc::ENOMEM), _) => "the locked-memory limit is too small for a ring (kernels \
                                    before 5.12 charge rings to it): raise `ulimit -l`"
            .into(),
        _ => "rigel needs io_uring: check the kernel (5.10 or newer), the sysctl \
              kernel.io_uring_disabled and any seccomp profile"
            .into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[serial_test::parallel]
    fn each_refusal_names_its_cause_and_fix() {
        assert!(cause(Some(libc::EPERM), Some(0)).contains("seccomp"));
        assert!(cause(Some(libc::EPERM), None).contains("io_uring_setup"));
        assert!(cause(Some(libc::EPERM), Some(2)).contains("io_uring_disabled is 2"));
        assert!(cause(Some(libc::EPERM), Some(1)).contains("kernel.io_uring_group"));
        assert!(cause(Some(libc::ENOSYS), Some(0)).contains("older than 5.1"));
        assert!(cause(Some(libc::ENOMEM), None).contains("ulimit -l"));
    }

    #[test]
    #[serial_test::parallel]
    fn a_ring_is_allowed_here() {
        // This machine runs io_uring (the executor's tests need it): the probe must agree.
        probe_ring().expect("io_uring allowed");
    }
}
