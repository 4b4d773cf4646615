//! The engines: the seam every one implements (`seam`), the buffer arena they borrow from
//! (`arena`), io_uring (`io_uring`), libaio (`libaio`) and psync (`psync`) with the ready
//! queue and timers the last two and the fake keep themselves (`ready`), the policy tests' fake (`fake`), and the one place that
//! maps an engine's name to its type (`visit`); the clock every engine and the policy time I/O by
//! (`clock`), a trim's system calls (`discard`), and `sys`, the few other OS calls that need `unsafe`. All of rigel-exec's `unsafe`
//! is in this folder (`tests/layering` checks it).

pub(crate) mod arena;
pub(crate) mod clock;
#[cfg(test)]
mod contract_tests;
pub(crate) mod discard;
#[cfg(test)]
pub(crate) mod fake;
pub(crate) mod io_uring;
pub(crate) mod libaio;
pub(crate) mod nvme;
pub(crate) mod psync;
mod ready;
pub(crate) mod seam;
pub(crate) mod slot_bufs;
pub(crate) mod sys;
#[cfg(test)]
mod trim_tests;
pub(crate) mod zones;

pub use seam::RingMode;
pub(crate) use seam::{Engine, Facts, Interval, Live, Open, Opened};

/// Something to run on an engine chosen at run time (a worker's loop): [`visit`] calls
/// `visit::<E>` with the engine's type, so the loop is compiled once per engine.
pub(crate) trait Visit {
    type Out;
    fn visit<E: Engine>(self) -> Self::Out;
}

/// Runs `v` on `engine` (a concrete one: `resolve_engine` turned `auto` into one). The one place
/// that maps an engine's name to its type. `passthru`: the worker's volume holds an NVMe
/// passthrough target (`nvme::any_passthru`), which only io_uring's passthrough ring reaches.
pub(crate) fn visit<V: Visit>(
    engine: rigel_plan::Engine,
    polled: bool,
    passthru: bool,
    v: V,
) -> V::Out {
    use rigel_plan::Engine as Name;
    match engine {
        // NVMe commands polled on the namespace's poll queues (IOPOLL on the passthrough ring).
        Name::IoUring | Name::Auto if passthru && polled => {
            v.visit::<io_uring::polled::PolledEngine<io_uring::passthru::PassthruEngine>>()
        }
        Name::IoUring | Name::Auto if passthru => v.visit::<io_uring::passthru::PassthruEngine>(),
        // `polled = true` (the plan allows it on io_uring only): the polled ring's engine.
        Name::IoUring | Name::Auto if polled => v.visit::<io_uring::polled::PolledEngine>(),
        Name::IoUring | Name::Auto => v.visit::<io_uring::IoUringEngine>(),
        Name::Libaio => v.visit::<libaio::LibaioEngine>(),
        Name::Psync => v.visit::<psync::PsyncEngine>(),
    }
}
