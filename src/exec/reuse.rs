//! What one point's workers leave for the next: their buffer arenas. Allocating, faulting in and
//! filling an arena with random data costs milliseconds per MiB-sized I/O in flight (a 64 × 1 MiB
//! arena: tens of milliseconds), paid on every point before; a run now pays it once per size.

use super::ring::Arena;
use std::sync::Mutex;

/// Arenas kept beyond this many are freed (more than any point's workers return at once).
const KEEP: usize = 64;

/// The arenas free for the next point (one pool per run, shared by its points' workers).
#[derive(Default)]
pub struct Reuse {
    arenas: Mutex<Vec<Arena>>,
}

impl std::fmt::Debug for Reuse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.arenas.lock().map_or(0, |a| a.len());
        write!(f, "Reuse {{ {n} arenas }}")
    }
}

impl Reuse {
    /// The smallest kept arena of at least `bytes`, or a new one; its content random when
    /// `random` (writes must carry incompressible data; reads need no fill).
    pub(super) fn arena(
        &self,
        bytes: usize,
        random: bool,
        rng: &mut fastrand::Rng,
    ) -> std::io::Result<Arena> {
        let kept = self.arenas.lock().ok().and_then(|mut arenas| {
            let best = arenas
                .iter()
                .enumerate()
                .filter(|(_, a)| a.len() >= bytes)
                .min_by_key(|(_, a)| a.len())
                .map(|(i, _)| i)?;
            Some(arenas.swap_remove(best))
        });
        let mut arena = match kept {
            Some(a) => a,
            None => Arena::new(bytes)?,
        };
        if random && !arena.random {
            rng.fill(arena.bytes_mut());
            arena.random = true;
        }
        Ok(arena)
    }

    /// Keeps `arena` for a later point. Only an arena no I/O uses any more may come back.
    pub(super) fn give(&self, arena: Arena) {
        if let Ok(mut arenas) = self.arenas.lock()
            && arenas.len() < KEEP
        {
            arenas.push(arena);
        }
    }
}
