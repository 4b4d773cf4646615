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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_arena_serves_a_later_point_and_is_filled_before_writes() {
        let reuse = Reuse::default();
        let mut rng = fastrand::Rng::with_seed(7);
        let a = reuse.arena(1 << 20, false, &mut rng).expect("arena");
        let first = a.at(0);
        assert!(!a.random);
        reuse.give(a);
        // A smaller point takes the kept arena; a writing one gets it filled with random data.
        let mut b = reuse.arena(64 << 10, true, &mut rng).expect("arena");
        assert_eq!(b.at(0), first);
        assert!(b.random);
        assert!(b.bytes_mut().iter().filter(|&&x| x == 0).count() < 1 << 14);
        reuse.give(b);
        // Larger than anything kept: a new one.
        let c = reuse.arena(2 << 20, false, &mut rng).expect("arena");
        assert_ne!(c.at(0), first);
    }
}
