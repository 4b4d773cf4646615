//! What one point's workers leave for the next: their buffer arenas. Allocating, faulting in and
//! filling an arena with random data costs milliseconds per MiB-sized I/O in flight (a 64 × 1 MiB
//! arena: tens of milliseconds), paid on every point before; a run now pays it once per size. And `verify`'s generation map, kept
//! for the whole run, and the first-touch record (`touch`), likewise.

use super::engines::arena::Arena;
use super::touch::Touched;
use super::verify::block::AfterTrim;
use super::verify::journal::JournalFile;
use super::verify::map::GenMap;
use rigel_plan::Buffers;
use rigel_target::Volume;
use std::sync::Arc;
use std::sync::Mutex;

/// Arenas kept beyond this many are freed (more than any point's workers return at once).
const KEEP: usize = 64;

/// The arenas free for the next point (one pool per run, shared by its points' workers).
#[derive(Default)]
pub struct Reuse {
    arenas: Mutex<Vec<Arena>>,
    /// `verify`: the run's generation map (`verify::map`).
    pub(crate) gen_map: Mutex<Option<Arc<GenMap>>>,
    /// `journal = true`: the run folder's file the generation map is to live in.
    journal: Mutex<Option<JournalFile>>,
    /// The run's record of the blocks it touched (`touch`), made by its first point.
    touched: Mutex<Option<Arc<Touched>>>,
}

impl std::fmt::Debug for Reuse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.arenas.lock().map_or(0, |a| a.len());
        write!(f, "Reuse {{ {n} arenas }}")
    }
}

impl Reuse {
    /// The smallest kept arena of at least `bytes` backed by `pages`, or a new one; its content
    /// random when `random` (writes must carry incompressible data; reads need no fill).
    pub(super) fn arena(
        &self,
        bytes: usize,
        pages: Buffers,
        random: bool,
        rng: &mut fastrand::Rng,
    ) -> std::io::Result<Arena> {
        let kept = self.arenas.lock().ok().and_then(|mut arenas| {
            let best = arenas
                .iter()
                .enumerate()
                .filter(|(_, a)| a.len() >= bytes && a.pages == pages)
                .min_by_key(|(_, a)| a.len())
                .map(|(i, _)| i)?;
            Some(arenas.swap_remove(best))
        });
        let mut arena = match kept {
            Some(a) => a,
            None => Arena::new(bytes, pages)?,
        };
        if random && !arena.random {
            rng.fill(arena.bytes_mut());
            arena.random = true;
        }
        Ok(arena)
    }

    /// The run's generation map: made by the first verified point (with its targets' promises
    /// after a trim), kept for the rest of the run (a block written at one point is checked when
    /// read at a later one).
    pub(crate) fn gen_map(
        &self,
        volume: &Volume,
        unit: u64,
        seed: u64,
        after_trim: impl FnOnce() -> Vec<AfterTrim>,
    ) -> Result<Arc<GenMap>, String> {
        let mut kept = self
            .gen_map
            .lock()
            .map_err(|_| "the generation map's lock is poisoned".to_string())?;
        if let Some(m) = kept.as_ref()
            && m.fits(volume, unit)
        {
            return Ok(Arc::clone(m));
        }
        let journal = self.journal.lock().ok().and_then(|mut j| j.take());
        let m = Arc::new(
            GenMap::new(volume, unit, seed, journal.as_ref())?.with_after_trim(after_trim()),
        );
        *kept = Some(Arc::clone(&m));
        Ok(m)
    }

    /// The run's first-touch record: made by the first point (sized once per target), kept for
    /// the rest of the run, so a block touched at one point is a re-touch at the next.
    pub(crate) fn touched(&self, volume: &Volume) -> Arc<Touched> {
        let Ok(mut kept) = self.touched.lock() else {
            // A poisoned lock (a worker panicked holding it): a record of this point alone.
            return Arc::new(Touched::new(volume));
        };
        match kept.as_ref() {
            Some(t) if t.fits(volume) => Arc::clone(t),
            _ => {
                let t = Arc::new(Touched::new(volume));
                *kept = Some(Arc::clone(&t));
                t
            }
        }
    }

    /// The file the run's generation map is to be kept in (`journal = true`), taken by the first
    /// verified point.
    pub fn keep_journal(&self, journal: JournalFile) {
        if let Ok(mut j) = self.journal.lock() {
            *j = Some(journal);
        }
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
    #[serial_test::parallel]
    fn a_kept_arena_serves_a_later_point_and_is_filled_before_writes() {
        let reuse = Reuse::default();
        let mut rng = fastrand::Rng::with_seed(7);
        let a = reuse
            .arena(1 << 20, Buffers::Pages, false, &mut rng)
            .expect("arena");
        let first = a.range(0, 0);
        assert!(!a.random);
        reuse.give(a);
        // A smaller point takes the kept arena; a writing one gets it filled with random data.
        let mut b = reuse
            .arena(64 << 10, Buffers::Pages, true, &mut rng)
            .expect("arena");
        assert_eq!(b.range(0, 0), first);
        assert!(b.random);
        assert!(b.bytes_mut().iter().filter(|&&x| x == 0).count() < 1 << 14);
        reuse.give(b);
        // Larger than anything kept: a new one.
        let c = reuse
            .arena(2 << 20, Buffers::Pages, false, &mut rng)
            .expect("arena");
        assert_ne!(c.range(0, 0), first);
    }

    /// KiB of the mapping holding `addr` backed by transparent huge pages (/proc/self/smaps).
    fn anon_huge_kib(addr: usize) -> Option<u64> {
        let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
        let mut inside = false;
        for line in smaps.lines() {
            if let Some((range, _)) = line.split_once(' ')
                && let Some((lo, hi)) = range.split_once('-')
                && let (Ok(lo), Ok(hi)) =
                    (usize::from_str_radix(lo, 16), usize::from_str_radix(hi, 16))
            {
                inside = (lo..hi).contains(&addr);
            } else if inside && let Some(v) = line.strip_prefix("AnonHugePages:") {
                return v.trim().trim_end_matches(" kB").parse().ok();
            }
        }
        None
    }

    #[test]
    #[serial_test::parallel]
    fn a_huge_page_arena_is_aligned_backed_by_huge_pages_and_kept_apart() {
        let reuse = Reuse::default();
        let mut rng = fastrand::Rng::with_seed(7);
        let h = reuse
            .arena(3 << 20, Buffers::Huge, false, &mut rng)
            .expect("arena");
        assert_eq!(h.range(0, 0) as usize % (2 << 20), 0);
        assert_eq!(h.len(), 4 << 20);
        let thp = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled")
            .unwrap_or_default();
        if thp.contains("[never]") || thp.is_empty() {
            eprintln!("skipped the huge-page check: transparent huge pages are off here ({thp:?})");
        } else {
            // The kernel may lack a free huge page at the moment; it then falls back to small
            // ones, so at least one of the two must be huge on any machine with memory to spare.
            let kib = anon_huge_kib(h.range(0, 0) as usize).expect("the arena's mapping in smaps");
            assert!(
                kib >= 2048,
                "{kib} KiB of huge pages in a 4 MiB huge-page arena"
            );
        }
        let first = h.range(0, 0);
        reuse.give(h);
        // A point asking for 4 KiB pages does not get the kept huge-page arena, one asking for
        // huge pages does.
        let p = reuse
            .arena(1 << 20, Buffers::Pages, false, &mut rng)
            .expect("arena");
        assert_ne!(p.range(0, 0), first);
        let h2 = reuse
            .arena(1 << 20, Buffers::Huge, false, &mut rng)
            .expect("arena");
        assert_eq!(h2.range(0, 0), first);
    }
}
