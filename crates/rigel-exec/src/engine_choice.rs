//! Which engine a class asking for `requested` gets on this host: `auto` takes io_uring and,
//! where the kernel refuses it, falls back (libaio for O_DIRECT, else psync) with the refusal as
//! the reason; an explicit `io_uring` refused is today's [`RingRefused`].

use super::refused::{RingRefused, probe_ring};
use rigel_plan::Engine;

/// The concrete engine for `requested` here, and why `auto` did not get io_uring (None when it
/// did, or when an engine was named). `direct`: the run uses O_DIRECT (`run.direct`).
pub fn resolve_engine(
    requested: Engine,
    direct: bool,
) -> Result<(Engine, Option<String>), RingRefused> {
    match requested {
        Engine::IoUring => probe_ring().map(|()| (Engine::IoUring, None)),
        Engine::Libaio | Engine::Psync => Ok((requested, None)),
        Engine::Auto => match probe_ring() {
            Ok(()) => Ok((Engine::IoUring, None)),
            // libaio is asynchronous only with O_DIRECT (buffered I/O blocks in io_submit).
            Err(refused) => {
                let to = if direct {
                    Engine::Libaio
                } else {
                    Engine::Psync
                };
                Ok((
                    to,
                    Some(format!("{refused}; engine = \"auto\" uses {to} instead")),
                ))
            }
        },
    }
}
