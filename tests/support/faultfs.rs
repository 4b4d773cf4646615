//! A FUSE test filesystem serving one file whose faults a test chooses: errors at chosen offsets
//! with chosen errnos, short reads, stalls (once, armed at any moment, or on every I/O), and a fixed
//! service time with at most N I/Os served in parallel (a target of known latency and capacity), and
//! a wake-up cost after idling (a latency that falls as the load grows), silent corruption of
//! chosen blocks, a burst bucket (full speed until a token bucket of I/Os runs dry, then its refill
//! rate, as gp2's burst credits), a delay on each block's first read (a volume restored from a
//! snapshot, `Faults::first_read`), and a volatile write cache that a power cut empties (`Faults::volatile_cache`,
//! `FaultFs::lose_power`).
//!
//! Mounted in a temporary directory with `fuser` (its pure-Rust mount: root, `/dev/fuse`, no
//! libfuse), unmounted on drop. The file is opened with FOPEN_DIRECT_IO, so every read and write
//! reaches the filesystem (O_DIRECT works on it directly; a loop device over it works too).
//!
//! ```ignore
//! let fs = FaultFs::mount(Faults::new(16 << 20).read_error(8 << 20, libc::EIO))?;
//! // run rigel on fs.file() …
//! ```
#![allow(dead_code)] // each test binary uses part of it

use fuser::{
    Errno, FileAttr, FileHandle, FileType, Filesystem, FopenFlags, INodeNo, LockOwner, OpenFlags,
    ReplyAttr, ReplyData, ReplyEmpty, ReplyEntry, ReplyOpen, ReplyWrite, Request, WriteFlags,
};
use std::ffi::OsStr;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, SystemTime};

/// The file's name in the mount.
pub const FILE_NAME: &str = "disk.img";
const FILE_INO: INodeNo = INodeNo(2);
const TTL: Duration = Duration::from_secs(3600);

/// Why the FUSE tests cannot run here, if they cannot (not root, no /dev/fuse).
pub fn unavailable() -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    // /proc/self belongs to the effective user.
    if std::fs::metadata("/proc/self").map_or(true, |m| m.uid() != 0) {
        return Some("not root: mounting a FUSE filesystem needs root".into());
    }
    if !Path::new("/dev/fuse").exists() {
        return Some("/dev/fuse is missing".into());
    }
    None
}

/// Panics saying why where FUSE cannot run here (not root, no /dev/fuse; `.ci/run` runs as root
/// with /dev/fuse): a test that cannot run fails, never passes.
pub fn require() {
    if let Some(why) = unavailable() {
        panic!("{why}");
    }
}

/// [`FaultFs::mount`] where FUSE can run ([`require`]); panics where the mount fails.
pub fn mounted(faults: Faults) -> FaultFs {
    require();
    FaultFs::mount(faults).expect("mount")
}

/// A stall: I/O number `after` (0-based, reads and writes counted together) waits `duration`
/// before it is served; with `every`, so does every I/O after it.
#[derive(Clone, Copy, Debug)]
pub struct Stall {
    pub after: u64,
    pub duration: Duration,
    pub every: bool,
}

/// Silent data corruption of one 4 KiB block (`Faults::corrupt`): the I/O succeeds, the data is
/// wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Corrupt {
    /// Every read of the block returns it with bit 0 of byte `byte` (of the block) flipped.
    FlipRead { byte: u64 },
    /// Every write to the block after the first is acknowledged and dropped.
    DropWrites,
    /// Every write to the block after the first lands at `to` instead.
    Misdirect { to: u64 },
    /// Every read of the block returns the version before its last write.
    StaleRead,
    /// Every write to the block stores its first half only; the second half keeps what was there.
    TornWrite,
}

/// The corrupted block's size.
pub const CORRUPT_BLOCK: u64 = 4096;

/// What the file does. Built with the methods below; `Faults::new(size)` is a healthy file.
#[derive(Clone, Debug, Default)]
pub struct Faults {
    pub size: u64,
    /// Reads overlapping a range fail with its errno.
    pub read_errors: Vec<(Range<u64>, i32)>,
    /// Writes overlapping a range fail with its errno.
    pub write_errors: Vec<(Range<u64>, i32)>,
    /// Reads overlapping a range return half of what was asked (rounded down to 512 bytes).
    pub short_reads: Vec<Range<u64>>,
    pub stall: Option<Stall>,
    /// Every I/O takes at least this long to serve.
    pub service_time: Duration,
    /// At most this many I/Os are served at once (the others queue): the file's capacity.
    pub max_parallel: Option<usize>,
    /// Every open of the file waits this long before it is answered (a stalled server).
    pub open_stall: Duration,
    /// A device that sleeps when idle, as power saving does: an I/O arriving more than `.0`
    /// after the last one was served waits `.1` more (so the latency falls as the rate grows).
    pub wake: Option<(Duration, Duration)>,
    /// Blocks (4 KiB, at these offsets) whose data is silently corrupted.
    pub corrupt: Vec<(u64, Corrupt)>,
    /// A volatile write cache: a write is durable only once an fsync follows it or it carried
    /// O_DSYNC; `FaultFs::lose_power` drops every other.
    pub volatile_cache: bool,
    /// The volatile cache's fsync answers success and flushes nothing (a cache that lies).
    pub lying_flush: bool,
    /// A burst bucket: `.0` I/Os of credit (full at mount), refilled at `.1` I/Os per second; an
    /// I/O reaching a service place without credit waits there for the refill.
    pub bucket: Option<(f64, f64)>,
    /// The kernel may send one open's direct I/Os several at once (`Faults::async_direct_io`).
    pub async_dio: bool,
    /// A volume still being initialized: a read that covers a block ([`FIRST_READ_BLOCK`]) never
    /// read or written before waits this long more; later reads of it do not.
    pub first_read: Option<Duration>,
    /// A punched hole (a trim) answers success and keeps the data (a device that promises zeros
    /// after a discard and lies).
    pub lying_trim: bool,
}

/// The block a first read initializes: 4 KiB, the smallest I/O a test does, so each first read
/// of a block is delayed whatever its neighbours did. One bit each: 8 KiB for a 256 MiB file.
pub const FIRST_READ_BLOCK: u64 = 4096;

impl Faults {
    pub fn new(size: u64) -> Faults {
        Faults {
            size,
            ..Faults::default()
        }
    }
    /// Reads of the 512 bytes at `offset` fail with `errno`.
    pub fn read_error(mut self, offset: u64, errno: i32) -> Faults {
        self.read_errors.push((offset..offset + 512, errno));
        self
    }
    /// Writes of the 512 bytes at `offset` fail with `errno`.
    pub fn write_error(mut self, offset: u64, errno: i32) -> Faults {
        self.write_errors.push((offset..offset + 512, errno));
        self
    }
    pub fn short_reads(mut self, range: Range<u64>) -> Faults {
        self.short_reads.push(range);
        self
    }
    pub fn stall(mut self, stall: Stall) -> Faults {
        self.stall = Some(stall);
        self
    }
    pub fn open_stall(mut self, d: Duration) -> Faults {
        self.open_stall = d;
        self
    }
    /// The 4 KiB block at `offset` is corrupted as `how` says.
    pub fn corrupt(mut self, offset: u64, how: Corrupt) -> Faults {
        self.corrupt.push((offset, how));
        self
    }
    pub fn service_time(mut self, t: Duration, max_parallel: Option<usize>) -> Faults {
        self.service_time = t;
        self.max_parallel = max_parallel;
        self
    }
    /// Writes stay in a volatile cache until an fsync (or their own O_DSYNC) makes them durable.
    pub fn volatile_cache(mut self) -> Faults {
        self.volatile_cache = true;
        self
    }
    /// A volatile cache whose fsync succeeds without making anything durable (O_DSYNC writes
    /// still are).
    pub fn lying_flush(mut self) -> Faults {
        self.volatile_cache = true;
        self.lying_flush = true;
        self
    }
    /// Trims (punched holes) succeed and change nothing.
    pub fn lying_trim(mut self) -> Faults {
        self.lying_trim = true;
        self
    }
    /// A burst bucket of `credit` I/Os refilled at `rate` per second ([`Faults::bucket`]).
    pub fn burst_bucket(mut self, credit: f64, rate: f64) -> Faults {
        self.bucket = Some((credit, rate));
        self
    }
    /// The kernel may send several direct I/Os of one open at once (FUSE_ASYNC_DIO, and room for
    /// 256 of them in flight): a loop device over the file then passes its queue through, so a
    /// deep queue meets `max_parallel` places. Without it a loop device waits for each I/O before
    /// it sends the next, whatever the queue above it (about 1 / service time IOPS at any depth).
    pub fn async_direct_io(mut self) -> Faults {
        self.async_dio = true;
        self
    }
    /// A read covering a block read or written by nobody before waits `delay` more.
    pub fn first_read(mut self, delay: Duration) -> Faults {
        self.first_read = Some(delay);
        self
    }
    /// An I/O arriving more than `idle` after the last one was served waits `wake` more.
    pub fn wake_after_idle(mut self, idle: Duration, wake: Duration) -> Faults {
        self.wake = Some((idle, wake));
        self
    }
}

/// What the filesystem saw, for a test to check.
#[derive(Default)]
struct Counters {
    ios: AtomicU64,
    /// Opens asked of the file (answered or still stalled).
    opens: AtomicU64,
    stalled: AtomicU64,
    /// fsync and fdatasync calls answered.
    fsyncs: AtomicU64,
    in_flight: AtomicUsize,
    peak: AtomicUsize,
    /// A one-time stall armed by the test (ns; 0 = none).
    armed_ns: AtomicU64,
}

/// What the corruption modes remember: writes seen per corrupted block, and each block's version
/// before its last write.
#[derive(Default)]
struct History {
    writes: std::collections::HashMap<u64, u64>,
    previous: std::collections::HashMap<u64, Vec<u8>>,
}

/// The volatile cache's state: the durable content, the 512-byte sectors written since their
/// last fsync, and whether the power is off (every I/O then fails with EIO).
#[derive(Default)]
struct Cache {
    durable: Vec<u8>,
    dirty: Vec<bool>,
    off: bool,
}

const SECTOR: usize = 512;

impl Cache {
    fn persist(&mut self, at: usize, bytes: &[u8]) {
        let end = (at + bytes.len()).min(self.durable.len());
        self.durable[at..end].copy_from_slice(&bytes[..end - at]);
    }

    fn mark(&mut self, at: usize, len: usize) {
        let last = (at + len).div_ceil(SECTOR).min(self.dirty.len());
        self.dirty[at / SECTOR..last].fill(true);
    }

    /// Every dirty sector of `data` made durable.
    fn flush(&mut self, data: &[u8]) {
        for (i, d) in self.dirty.iter_mut().enumerate() {
            if std::mem::take(d) {
                let r = i * SECTOR..(i + 1) * SECTOR;
                self.durable[r.clone()].copy_from_slice(&data[r]);
            }
        }
    }
}

struct Fs {
    faults: Faults,
    data: Arc<Mutex<Vec<u8>>>,
    cache: Option<Arc<Mutex<Cache>>>,
    history: Arc<Mutex<History>>,
    counters: Arc<Counters>,
    /// Free service places when `max_parallel` is set.
    gate: Arc<(Mutex<usize>, Condvar)>,
    /// When the last I/O was served (for `wake`); None before the first.
    last_served: Arc<Mutex<Option<std::time::Instant>>>,
    bucket: Arc<Mutex<Bucket>>,
    /// One bit per [`FIRST_READ_BLOCK`]: touched (`first_read` only; empty otherwise).
    touched: Vec<AtomicU64>,
    /// Reads that waited for a first touch.
    first_reads: Arc<AtomicU64>,
}

/// A burst bucket's state: credit left as of `at`, the refill's next free slot once dry, and when
/// the first I/O came and when the credit first ran out.
#[derive(Default)]
struct Bucket {
    credit: f64,
    at: Option<std::time::Instant>,
    next: Option<std::time::Instant>,
    first: Option<std::time::Instant>,
    dry: Option<std::time::Instant>,
}

/// What an I/O entering service waits for credit: none while the bucket holds some (refilled at
/// `rate` since the last I/O, up to `cap`), else the refill's next free slot (one every 1/rate).
/// Asked once the I/O holds a service place, not when it arrives: an I/O queued for a place
/// meanwhile would wait out its slot on top of its queueing, and a queue deeper than the places
/// would be served below the refill rate.
fn bucket_wait(bucket: &Mutex<Bucket>, cap: f64, rate: f64) -> Duration {
    let now = std::time::Instant::now();
    let mut b = bucket.lock().unwrap_or_else(|e| e.into_inner());
    b.first.get_or_insert(now);
    let since = b.at.map_or(0.0, |t| now.duration_since(t).as_secs_f64());
    b.at = Some(now);
    if b.next.is_none() {
        b.credit = (b.credit + since * rate).min(cap);
        if b.credit >= 1.0 {
            b.credit -= 1.0;
            return Duration::ZERO;
        }
        b.dry = b.dry.or(Some(now));
    }
    // Dry: the refill serves one I/O every 1/rate, in the order they reach a place.
    let slot = b.next.map_or(now, |t| t.max(now)) + Duration::from_secs_f64(1.0 / rate);
    b.next = Some(slot);
    slot - now
}

/// A mounted fault filesystem. Unmounted (lazily) when dropped.
pub struct FaultFs {
    file: PathBuf,
    data: Arc<Mutex<Vec<u8>>>,
    cache: Option<Arc<Mutex<Cache>>>,
    counters: Arc<Counters>,
    session: Option<fuser::BackgroundSession>,
    dir: tempfile::TempDir,
    bucket: Arc<Mutex<Bucket>>,
    first_reads: Arc<AtomicU64>,
}

impl FaultFs {
    /// Mounts a filesystem serving one file that behaves as `faults` says.
    pub fn mount(faults: Faults) -> std::io::Result<FaultFs> {
        let dir = tempfile::tempdir()?;
        let counters = Arc::new(Counters::default());
        let places = faults.max_parallel.unwrap_or(usize::MAX);
        let data = Arc::new(Mutex::new(vec![0u8; faults.size as usize]));
        let cache = faults.volatile_cache.then(|| {
            Arc::new(Mutex::new(Cache {
                durable: vec![0u8; faults.size as usize],
                dirty: vec![false; (faults.size as usize).div_ceil(SECTOR)],
                off: false,
            }))
        });
        let bucket = Arc::new(Mutex::new(Bucket {
            credit: faults.bucket.map_or(0.0, |b| b.0),
            ..Bucket::default()
        }));
        let blocks = faults.size.div_ceil(FIRST_READ_BLOCK).div_ceil(64);
        let first_reads = Arc::new(AtomicU64::new(0));
        let fs = Fs {
            touched: match faults.first_read {
                Some(_) => (0..blocks).map(|_| AtomicU64::new(0)).collect(),
                None => Vec::new(),
            },
            first_reads: Arc::clone(&first_reads),
            bucket: Arc::clone(&bucket),
            data: Arc::clone(&data),
            cache: cache.clone(),
            history: Arc::default(),
            faults,
            counters: Arc::clone(&counters),
            gate: Arc::new((Mutex::new(places), Condvar::new())),
            last_served: Arc::default(),
        };
        let mut config = fuser::Config::default();
        config.mount_options = vec![fuser::MountOption::FSName("rigel-faultfs".into())];
        let session = fuser::spawn_mount(fs, dir.path(), &config)?;
        Ok(FaultFs {
            file: dir.path().join(FILE_NAME),
            data,
            cache,
            counters,
            session: Some(session),
            dir,
            bucket,
            first_reads,
        })
    }

    /// Reads delayed as a block's first (`Faults::first_read`).
    pub fn first_reads(&self) -> u64 {
        self.first_reads.load(Ordering::Relaxed)
    }

    /// From the first I/O to the moment the burst bucket's credit ran out (None while it has not).
    pub fn bucket_dry_after(&self) -> Option<Duration> {
        let b = self.bucket.lock().unwrap_or_else(|e| e.into_inner());
        Some(b.dry?.duration_since(b.first?))
    }

    /// The file's bytes in `range` as it holds them now (what a read would get, faults aside).
    pub fn bytes(&self, range: Range<u64>) -> Vec<u8> {
        let data = self.data.lock().unwrap_or_else(|e| e.into_inner());
        data[range.start as usize..range.end as usize].to_vec()
    }

    /// The file to test.
    pub fn file(&self) -> &Path {
        &self.file
    }

    /// Reads and writes served or being served so far.
    pub fn ios(&self) -> u64 {
        self.counters.ios.load(Ordering::Relaxed)
    }

    /// Opens of the file asked so far.
    pub fn opens(&self) -> u64 {
        self.counters.opens.load(Ordering::Relaxed)
    }

    /// I/Os that have been held by a stall.
    pub fn stalled(&self) -> u64 {
        self.counters.stalled.load(Ordering::Relaxed)
    }

    /// fsync and fdatasync calls answered (a loop device sends one for each flush it gets).
    pub fn fsyncs(&self) -> u64 {
        self.counters.fsyncs.load(Ordering::Relaxed)
    }

    /// The most I/Os the file has served at once.
    pub fn peak_parallel(&self) -> usize {
        self.counters.peak.load(Ordering::Relaxed)
    }

    /// A power cut (`Faults::volatile_cache`): every write not yet durable is dropped (the file
    /// holds its durable content again) and every I/O fails with EIO until `power_on`. Returns
    /// the 512-byte sectors that were not durable.
    pub fn lose_power(&self) -> usize {
        let cache = self
            .cache
            .as_ref()
            .expect("lose_power needs Faults::volatile_cache");
        let mut data = self.data.lock().unwrap_or_else(|e| e.into_inner());
        let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
        cache.off = true;
        data.copy_from_slice(&cache.durable);
        let lost = cache.dirty.iter().filter(|&&d| d).count();
        cache.dirty.fill(false);
        lost
    }

    /// The power is back: I/O is served again, from the durable content.
    pub fn power_on(&self) {
        if let Some(cache) = &self.cache {
            cache.lock().unwrap_or_else(|e| e.into_inner()).off = false;
        }
    }

    /// The next I/O waits `d` before it is served (once).
    pub fn stall_next(&self, d: Duration) {
        self.counters
            .armed_ns
            .store(d.as_nanos().max(1) as u64, Ordering::Relaxed);
    }
}

impl Drop for FaultFs {
    fn drop(&mut self) {
        drop(self.session.take());
        // The session's own unmount fails while the mount is busy (a rigel killed mid-I/O, an
        // open still stalled in the kernel) and leaves a dead mount behind: detach it lazily then.
        let dir = self.dir.path();
        let mounts = std::fs::read_to_string("/proc/self/mounts").unwrap_or_default();
        if mounts
            .lines()
            .any(|l| l.split(' ').nth(1) == Some(&*dir.to_string_lossy()))
        {
            let _ = std::process::Command::new("umount")
                .arg("-l")
                .arg(dir)
                .status();
        }
    }
}

fn attr(size: u64) -> FileAttr {
    let t = SystemTime::UNIX_EPOCH;
    FileAttr {
        ino: FILE_INO,
        size,
        blocks: size.div_ceil(512),
        atime: t,
        mtime: t,
        ctime: t,
        crtime: t,
        kind: FileType::RegularFile,
        perm: 0o666,
        nlink: 1,
        uid: 0,
        gid: 0,
        rdev: 0,
        flags: 0,
        blksize: 4096,
    }
}

fn dir_attr() -> FileAttr {
    FileAttr {
        ino: INodeNo::ROOT,
        kind: FileType::Directory,
        perm: 0o755,
        nlink: 2,
        ..attr(0)
    }
}

fn overlaps(r: &Range<u64>, offset: u64, len: u64) -> bool {
    r.start < offset + len && offset < r.end
}

impl Fs {
    /// How long I/O number `n` waits before it is served.
    fn delay(&self, n: u64) -> Duration {
        let c = &self.counters;
        let mut d = self.faults.service_time;
        let armed = c.armed_ns.swap(0, Ordering::Relaxed);
        if armed > 0 {
            d += Duration::from_nanos(armed);
            c.stalled.fetch_add(1, Ordering::Relaxed);
        }
        if let Some(s) = self.faults.stall
            && (n == s.after || (s.every && n > s.after))
        {
            d += s.duration;
            c.stalled.fetch_add(1, Ordering::Relaxed);
        }
        if let Some((idle, wake)) = self.faults.wake {
            let last = *self.last_served.lock().unwrap_or_else(|e| e.into_inner());
            if last.is_none_or(|t| t.elapsed() > idle) {
                d += wake;
            }
        }
        d
    }

    /// Marks the blocks `[offset, offset + len)` covers as touched; whether any was not before.
    fn touch(&self, offset: u64, len: u64) -> bool {
        if self.touched.is_empty() || len == 0 {
            return false;
        }
        let mut fresh = false;
        for b in offset / FIRST_READ_BLOCK..=(offset + len - 1) / FIRST_READ_BLOCK {
            let Some(word) = self.touched.get((b / 64) as usize) else {
                break;
            };
            let bit = 1u64 << (b % 64);
            fresh |= word.fetch_or(bit, Ordering::Relaxed) & bit == 0;
        }
        fresh
    }

    /// Serves an I/O after its delay, on its own thread when it has to wait (so that other I/Os
    /// go on meanwhile), within the capacity limit.
    fn serve(&self, delay: Duration, work: impl FnOnce() + Send + 'static) {
        // Only a file that wakes after idling keeps when it last served.
        let last = self.faults.wake.map(|_| Arc::clone(&self.last_served));
        let work = move || {
            work();
            if let Some(last) = last {
                *last.lock().unwrap_or_else(|e| e.into_inner()) = Some(std::time::Instant::now());
            }
        };
        let bucket = self
            .faults
            .bucket
            .map(|(cap, rate)| (Arc::clone(&self.bucket), cap, rate));
        if delay.is_zero() && self.faults.max_parallel.is_none() && bucket.is_none() {
            work();
            return;
        }
        let gate = Arc::clone(&self.gate);
        let counters = Arc::clone(&self.counters);
        std::thread::spawn(move || {
            let (places, freed) = &*gate;
            let mut free = places.lock().unwrap_or_else(|e| e.into_inner());
            while *free == 0 {
                free = freed.wait(free).unwrap_or_else(|e| e.into_inner());
            }
            *free -= 1;
            drop(free);
            let delay =
                delay + bucket.map_or(Duration::ZERO, |(b, cap, rate)| bucket_wait(&b, cap, rate));
            let now = counters.in_flight.fetch_add(1, Ordering::Relaxed) + 1;
            counters.peak.fetch_max(now, Ordering::Relaxed);
            std::thread::sleep(delay);
            work();
            counters.in_flight.fetch_sub(1, Ordering::Relaxed);
            *places.lock().unwrap_or_else(|e| e.into_inner()) += 1;
            freed.notify_one();
        });
    }
}

impl Filesystem for Fs {
    fn init(&mut self, _req: &Request, config: &mut fuser::KernelConfig) -> std::io::Result<()> {
        if self.faults.async_dio {
            config
                .add_capabilities(fuser::InitFlags::FUSE_ASYNC_DIO)
                .map_err(|_| std::io::Error::other("the kernel lacks FUSE_ASYNC_DIO"))?;
            // The kernel holds async direct I/Os as background requests: past this many in
            // flight the sender (the loop device's worker) would wait, capping the depth.
            let _ = config.set_max_background(256);
            let _ = config.set_congestion_threshold(256);
        }
        Ok(())
    }

    fn lookup(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEntry) {
        if parent == INodeNo::ROOT && name == FILE_NAME {
            reply.entry(&TTL, &attr(self.faults.size), fuser::Generation(0));
        } else {
            reply.error(Errno::ENOENT);
        }
    }

    fn getattr(&self, _req: &Request, ino: INodeNo, _fh: Option<FileHandle>, reply: ReplyAttr) {
        match ino {
            INodeNo::ROOT => reply.attr(&TTL, &dir_attr()),
            FILE_INO => reply.attr(&TTL, &attr(self.faults.size)),
            _ => reply.error(Errno::ENOENT),
        }
    }

    fn open(&self, _req: &Request, _ino: INodeNo, _flags: OpenFlags, reply: ReplyOpen) {
        self.counters.opens.fetch_add(1, Ordering::Relaxed);
        // Direct I/O: no page cache between the test and its faults.
        let answer = move || reply.opened(FileHandle(0), FopenFlags::FOPEN_DIRECT_IO);
        if self.faults.open_stall.is_zero() {
            answer();
        } else {
            let stall = self.faults.open_stall;
            std::thread::spawn(move || {
                std::thread::sleep(stall);
                answer();
            });
        }
    }

    fn read(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        size: u32,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        reply: ReplyData,
    ) {
        let n = self.counters.ios.fetch_add(1, Ordering::Relaxed);
        let len = u64::from(size);
        let error = self
            .faults
            .read_errors
            .iter()
            .find(|(r, _)| overlaps(r, offset, len))
            .map(|(_, e)| *e);
        let short = self
            .faults
            .short_reads
            .iter()
            .any(|r| overlaps(r, offset, len));
        let data = Arc::clone(&self.data);
        let corrupt = self.faults.corrupt.clone();
        let history = Arc::clone(&self.history);
        let cache = self.cache.clone();
        let mut delay = self.delay(n);
        if let Some(first) = self.faults.first_read
            && self.touch(offset, len)
        {
            delay += first;
            self.first_reads.fetch_add(1, Ordering::Relaxed);
        }
        self.serve(delay, move || {
            if let Some(errno) = error {
                return reply.error(Errno::from_i32(errno));
            }
            let data = data.lock().unwrap_or_else(|e| e.into_inner());
            if cache.is_some_and(|c| c.lock().unwrap_or_else(|e| e.into_inner()).off) {
                return reply.error(Errno::EIO);
            }
            let start = (offset as usize).min(data.len());
            let mut end = (start + size as usize).min(data.len());
            if short && end - start > 512 {
                end = start + (end - start) / 2 / 512 * 512;
            }
            if corrupt.is_empty() {
                return reply.data(&data[start..end]);
            }
            let mut out = data[start..end].to_vec();
            let history = history.lock().unwrap_or_else(|e| e.into_inner());
            for &(block, how) in &corrupt {
                corrupt_read(&mut out, start as u64, block, how, &history);
            }
            reply.data(&out);
        });
    }

    fn write(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        bytes: &[u8],
        _write_flags: WriteFlags,
        flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        reply: ReplyWrite,
    ) {
        let n = self.counters.ios.fetch_add(1, Ordering::Relaxed);
        let len = bytes.len() as u64;
        let error = self
            .faults
            .write_errors
            .iter()
            .find(|(r, _)| overlaps(r, offset, len))
            .map(|(_, e)| *e);
        let data = Arc::clone(&self.data);
        let bytes = bytes.to_vec();
        let corrupt = self.faults.corrupt.clone();
        let history = Arc::clone(&self.history);
        let cache = self.cache.clone();
        let dsync = flags.0 & (libc::O_DSYNC | libc::O_SYNC) != 0;
        // A written block is initialized: its later reads are not first reads.
        self.touch(offset, len);
        self.serve(self.delay(n), move || {
            if let Some(errno) = error {
                return reply.error(Errno::from_i32(errno));
            }
            let mut data = data.lock().unwrap_or_else(|e| e.into_inner());
            let start = (offset as usize).min(data.len());
            if let Some(cache) = &cache {
                let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
                if cache.off {
                    return reply.error(Errno::EIO);
                }
                if dsync {
                    cache.persist(start, &bytes);
                } else {
                    cache.mark(start, bytes.len());
                }
            }
            let end = (start + bytes.len()).min(data.len());
            let hit: Vec<(u64, Corrupt, Vec<u8>)> = corrupt
                .iter()
                .filter(|(b, _)| {
                    overlaps(
                        &(*b..*b + CORRUPT_BLOCK),
                        start as u64,
                        (end - start) as u64,
                    )
                })
                .map(|&(b, how)| {
                    (
                        b,
                        how,
                        data[b as usize..(b + CORRUPT_BLOCK) as usize].to_vec(),
                    )
                })
                .collect();
            data[start..end].copy_from_slice(&bytes[..end - start]);
            let mut history = history.lock().unwrap_or_else(|e| e.into_inner());
            for (block, how, old) in hit {
                corrupt_write(&mut data, block, how, old, &mut history);
            }
            reply.written((end - start) as u32);
        });
    }

    /// A trim: `fallocate(PUNCH_HOLE | KEEP_SIZE)` zeroes the range (or, lying, keeps it); any
    /// other mode is refused as a file system without it would.
    fn fallocate(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        length: u64,
        mode: i32,
        reply: ReplyEmpty,
    ) {
        if mode != libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE {
            return reply.error(Errno::EOPNOTSUPP);
        }
        self.counters.ios.fetch_add(1, Ordering::Relaxed);
        if !self.faults.lying_trim {
            let mut data = self.data.lock().unwrap_or_else(|e| e.into_inner());
            let start = (offset as usize).min(data.len());
            let end = (offset.saturating_add(length) as usize).min(data.len());
            data[start..end].fill(0);
        }
        reply.ok();
    }

    /// Makes every write before it durable (a loop device sends one for each flush it gets).
    fn fsync(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        _datasync: bool,
        reply: ReplyEmpty,
    ) {
        self.counters.fsyncs.fetch_add(1, Ordering::Relaxed);
        let Some(cache) = &self.cache else {
            return reply.ok();
        };
        let data = self.data.lock().unwrap_or_else(|e| e.into_inner());
        let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
        if cache.off {
            return reply.error(Errno::EIO);
        }
        if !self.faults.lying_flush {
            cache.flush(&data);
        }
        reply.ok();
    }
}

/// A write of the corrupted `block` (whose content before it was `old`) just landed in `data`:
/// undo, move or tear it as `how` says.
fn corrupt_write(data: &mut [u8], block: u64, how: Corrupt, old: Vec<u8>, h: &mut History) {
    let (b, n) = (block as usize, CORRUPT_BLOCK as usize);
    let seen = h.writes.entry(block).or_insert(0);
    *seen += 1;
    let later = *seen > 1;
    match how {
        Corrupt::FlipRead { .. } => {}
        Corrupt::DropWrites if later => data[b..b + n].copy_from_slice(&old),
        Corrupt::Misdirect { to } if later => {
            let new = data[b..b + n].to_vec();
            data[b..b + n].copy_from_slice(&old);
            data[to as usize..to as usize + n].copy_from_slice(&new);
        }
        Corrupt::StaleRead => {
            h.previous.insert(block, old);
        }
        Corrupt::TornWrite => data[b + n / 2..b + n].copy_from_slice(&old[n / 2..]),
        Corrupt::DropWrites | Corrupt::Misdirect { .. } => {}
    }
}

/// A read returning `out` (the file's bytes from `start`) passes the corrupted `block`: change
/// what it returns of it as `how` says.
fn corrupt_read(out: &mut [u8], start: u64, block: u64, how: Corrupt, h: &History) {
    let end = start + out.len() as u64;
    if block + CORRUPT_BLOCK <= start || block >= end {
        return;
    }
    match how {
        Corrupt::FlipRead { byte } => {
            let at = block + byte;
            if (start..end).contains(&at) {
                out[(at - start) as usize] ^= 1;
            }
        }
        Corrupt::StaleRead => {
            if let Some(prev) = h.previous.get(&block) {
                for (k, &v) in prev.iter().enumerate() {
                    let at = block + k as u64;
                    if (start..end).contains(&at) {
                        out[(at - start) as usize] = v;
                    }
                }
            }
        }
        _ => {}
    }
}

/// A loop device over a [`FaultFs`] file (`losetup --direct-io=on`): the faults seen through the
/// block layer, where a stalled I/O waits in the kernel's loop worker and never in the caller.
/// Detached on drop; drop it before its filesystem.
pub struct LoopOver {
    pub dev: PathBuf,
}

impl FaultFs {
    /// Attaches a loop device to the file.
    pub fn loop_device(&self) -> std::io::Result<LoopOver> {
        let out = std::process::Command::new("losetup")
            .args(["-f", "--show", "--direct-io=on"])
            .arg(&self.file)
            .output()?;
        if !out.status.success() {
            return Err(std::io::Error::other(format!(
                "losetup failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        Ok(LoopOver {
            dev: PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()),
        })
    }
}

impl Drop for LoopOver {
    fn drop(&mut self) {
        let _ = std::process::Command::new("losetup")
            .arg("-d")
            .arg(&self.dev)
            .status();
    }
}
