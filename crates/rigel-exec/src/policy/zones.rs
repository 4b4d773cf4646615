//! `zones = "sequential"` on a host-managed zoned device: each writing slot holds one zone open
//! and writes it from its write pointer on, one write in flight at a time, so the writes reach
//! the zone in order whatever the scheduler; a full zone is reset (`BLKRESETZONE`) and written
//! again from its start, the reset's time kept off the write's latency. Reads go anywhere, as
//! the class draws them. The point's pool hands each slot its zone at setup (zones not full
//! first; a full one is reset as it is taken), so the zones held open are the writing slots.

use crate::engines::zones::{self, Zone};
use std::io;
use std::os::fd::RawFd;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// The point's zones, shared by its workers (taken at setup only, never on the hot path).
pub struct ZonePool {
    /// (target, zone), in the order taken: the last is taken first.
    free: Mutex<Vec<(u32, Zone)>>,
    total: usize,
    taken: AtomicU64,
    written: AtomicU64,
    resets: AtomicU64,
}

impl ZonePool {
    /// The sequential-write zones of every target (`fds`, in volume order). A target that is
    /// not zoned has none; a run asking zones of a volume with none at all is refused.
    pub fn new(fds: &[RawFd]) -> io::Result<ZonePool> {
        let mut all = Vec::new();
        for (t, &fd) in fds.iter().enumerate() {
            all.extend(zones::report(fd)?.into_iter().map(|z| (t as u32, z)));
        }
        if all.is_empty() {
            return Err(io::Error::other(
                "zones = \"sequential\", but no target is a zoned block device with \
                 sequential-write zones",
            ));
        }
        // Full zones last (taken last), so that a run resets only when it must.
        all.sort_by_key(|(t, z)| {
            (
                std::cmp::Reverse(z.is_full()),
                std::cmp::Reverse((*t, z.start)),
            )
        });
        Ok(ZonePool {
            total: all.len(),
            free: Mutex::new(all),
            taken: AtomicU64::new(0),
            written: AtomicU64::new(0),
            resets: AtomicU64::new(0),
        })
    }

    /// A zone for one writing slot (reset first when full), its writes going through `fds`
    /// (the worker's descriptors).
    pub(crate) fn take(&self, fds: &[RawFd]) -> io::Result<Cursor<'_>> {
        let got = self.free.lock().map_or(None, |mut f| f.pop());
        let Some((target, zone)) = got else {
            return Err(io::Error::other(format!(
                "zones = \"sequential\": more writes in flight than the volume's {} \
                 sequential-write zones (each writing I/O holds a zone of its own); lower the \
                 writing classes' load",
                self.total
            )));
        };
        self.taken.fetch_add(1, Ordering::Relaxed);
        let mut c = Cursor {
            pool: self,
            fd: fds[target as usize],
            target,
            zone,
            wrote: false,
        };
        if c.zone.is_full() {
            c.reset()?;
        }
        Ok(c)
    }

    /// What the point did, as results record it beside the engine's options: zones written,
    /// reset, and held open at once (one per writing slot).
    pub fn summary(&self) -> String {
        format!(
            "sequential: {} zones written, {} reset, {} held open",
            self.written.load(Ordering::Relaxed),
            self.resets.load(Ordering::Relaxed),
            self.taken.load(Ordering::Relaxed)
        )
    }
}

/// A writing slot's zone and where its next write goes.
pub(crate) struct Cursor<'p> {
    pool: &'p ZonePool,
    fd: RawFd,
    target: u32,
    zone: Zone,
    wrote: bool,
}

impl Cursor<'_> {
    /// The target and offset of the slot's next write of `len` bytes, and the ns a reset took
    /// first (the zone had no room left), which the caller keeps off the write's latency.
    #[inline]
    pub(crate) fn next(&mut self, len: u32) -> (u32, u64, u64) {
        let mut spent = 0;
        if self.zone.wp + u64::from(len) > self.zone.start + self.zone.capacity {
            let t = std::time::Instant::now();
            // A reset refused leaves the write pointer where it is: the write then fails at the
            // device and the point reports it.
            let _ = self.reset();
            spent = t.elapsed().as_nanos() as u64;
        }
        if !self.wrote {
            self.wrote = true;
            self.pool.written.fetch_add(1, Ordering::Relaxed);
        }
        let at = self.zone.wp;
        self.zone.wp += u64::from(len);
        (self.target, at, spent)
    }

    fn reset(&mut self) -> io::Result<()> {
        zones::reset(self.fd, &self.zone)?;
        self.pool.resets.fetch_add(1, Ordering::Relaxed);
        self.zone.wp = self.zone.start;
        // The zone is written afresh: counted again as written once it is.
        self.wrote = false;
        Ok(())
    }
}
