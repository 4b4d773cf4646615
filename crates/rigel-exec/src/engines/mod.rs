//! The engines: the seam every one implements (`seam`), the buffer arena they borrow from
//! (`arena`), io_uring (`io_uring`), the policy tests' fake (`fake`), and the one place that maps
//! an engine's name to its type (`visit`).

pub(crate) mod arena;
#[cfg(test)]
pub(crate) mod fake;
pub(crate) mod io_uring;
pub(crate) mod seam;

pub use seam::RingMode;
pub(crate) use seam::{Engine, Facts, Interval, Live, Op, Open, Opened, Rw};
use std::io;

/// Something to run on an engine chosen at run time (a worker's loop): [`visit`] calls
/// `visit::<E>` with the engine's type, so the loop is compiled once per engine.
pub(crate) trait Visit {
    type Out;
    fn visit<E: Engine>(self) -> Self::Out;
    /// The engine is not in this build.
    fn unavailable(self, error: io::Error) -> Self::Out;
}

/// Runs `v` on `engine` (a concrete one: `resolve_engine` turned `auto` into one). The one place
/// that maps an engine's name to its type.
pub(crate) fn visit<V: Visit>(engine: rigel_plan::Engine, v: V) -> V::Out {
    use rigel_plan::Engine as Name;
    match engine {
        Name::IoUring | Name::Auto => v.visit::<io_uring::IoUringEngine>(),
        Name::Libaio | Name::Psync => v.unavailable(io::Error::new(
            io::ErrorKind::Unsupported,
            format!("the {engine} engine is not built into this rigel yet"),
        )),
    }
}
