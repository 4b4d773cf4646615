//! From a plan to an open volume: test files created, every target opened and probed, writes
//! guarded, sizes trimmed so that every aligned I/O fits, and the facts for the results captured.

use super::create::{self, OnProgress, Preparation};
use super::error::lock_target;
use super::filetype;
use super::guard::{Consent, check_writable};
use super::kind::TargetKind;
use super::probe::{OpenMode, Probe, open_target, probe, reopen_target};
use super::sysfs::Sysfs;
use super::{TargetError, Volume};
use rigel_fs::lock::{ExitedWait, LockKind, holding};
use rigel_plan::{Layout, PlannedTarget, RunPlan, limits};
use rigel_results::TargetInfo;
use std::os::fd::OwnedFd;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// One opened target, ready for the executor.
#[derive(Debug)]
pub struct OpenTarget {
    pub path: PathBuf,
    /// Opened read-write when some point writes it, read-only otherwise; O_DIRECT unless the
    /// run asks for buffered I/O. A written block device is held exclusively (O_EXCL).
    pub fd: OwnedFd,
    pub probe: Probe,
    /// Bytes the volume uses: the declared or probed size, trimmed to whole I/Os and stripes.
    pub usable: u64,
    pub writable: bool,
    /// What was done to a declared test file (None for targets without a declared size).
    pub preparation: Option<Preparation>,
    /// A file's bytes backed by storage (st_blocks); None for block devices.
    pub allocated: Option<u64>,
    pub info: TargetInfo,
    /// A written passthrough target's namespace block device, held open exclusively (O_EXCL)
    /// while the run lasts: no mount, md or dm can take the namespace under the commands.
    pub claim: Option<OwnedFd>,
}

impl Drop for OpenTarget {
    fn drop(&mut self) {
        // The run's flock goes with this descriptor, whoever else still holds a reference to the
        // open file (a ring the kernel closes asynchronously): the next rigel may start at once.
        let _ = rustix::fs::flock(&self.fd, rustix::fs::FlockOperation::Unlock);
    }
}

#[derive(Debug)]
pub struct OpenVolume {
    pub targets: Vec<OpenTarget>,
    pub volume: Volume,
}

impl OpenVolume {
    /// The targets' facts, in plan order, for the results document.
    pub fn infos(&self) -> Vec<TargetInfo> {
        self.targets.iter().map(|t| t.info.clone()).collect()
    }

    /// What the user should know before trusting the figures: files whose holes (or unwritten
    /// extents) read as zeros from memory, never touching the device; targets another rigel
    /// reads at the same time (both runs' figures share the device).
    pub fn warnings(&self) -> Vec<String> {
        let holes = self
            .targets
            .iter()
            .filter(|t| t.probe.kind == TargetKind::File)
            .filter_map(|t| {
                let h = super::holes::holes(&t.fd, t.usable).ok()?;
                (h.bytes > 0).then(|| super::holes::hole_warning(&t.path, t.usable, &h))
            });
        let shared = self.targets.iter().filter_map(|t| {
            let file = std::fs::File::from(t.fd.try_clone().ok()?);
            let pids = rigel_fs::lock::others_holding(&file);
            (!pids.is_empty()).then(|| {
                let pids: Vec<String> = pids.iter().map(u32::to_string).collect();
                format!(
                    "{}: another rigel (pid {}) uses this target at the same time: both runs' \
                     figures share its capacity; run one at a time",
                    t.path.display(),
                    pids.join(", ")
                )
            })
        });
        holes.chain(shared).collect()
    }
}

/// Opens every target of `plan` (creating and filling declared test files first, reporting the
/// fill through `on_progress`), applies the write guard, and builds the volume.
pub fn open_volume(
    plan: &RunPlan,
    consent: Consent,
    on_progress: &mut OnProgress,
) -> Result<OpenVolume, TargetError> {
    if plan.targets.is_empty() {
        return Err(TargetError::NoTargets);
    }
    let raid0 = plan.volume.layout == Layout::Raid0;
    if raid0 && plan.volume.stripe == 0 {
        return Err(TargetError::ZeroStripe);
    }
    let sizes = class_sizes(plan);
    let stripe = raid0.then_some(plan.volume.stripe);
    let unit = limits::volume_unit(sizes.iter().map(|(_, s)| *s), stripe);
    // Refuse what can be refused before spending minutes filling test files.
    for t in &plan.targets {
        filetype::refuse_special(Path::new(&t.path))?;
        if let Some(size) = t.size {
            fits(Path::new(&t.path), size, unit)?;
        }
        preflight(t, consent)?;
    }
    let mut opened = plan
        .targets
        .iter()
        .map(|t| open_one(t, plan.run.direct, consent, on_progress))
        .collect::<Result<Vec<_>, _>>()?;
    check_alignment(plan, &sizes, &opened)?;
    for t in &mut opened {
        t.usable = fits(&t.path, t.usable, unit)?;
        t.info.size = t.usable;
    }
    let usable: Vec<u64> = opened.iter().map(|t| t.usable).collect();
    let volume = Volume::new(plan.volume.layout, plan.volume.stripe, &usable);
    Ok(OpenVolume {
        targets: opened,
        volume,
    })
}

/// `size` trimmed to whole units, or the error when not even one fits (the compiler checks
/// declared sizes by the same rule; probed sizes are known only here).
fn fits(path: &Path, size: u64, unit: u64) -> Result<u64, TargetError> {
    limits::usable(size, unit).ok_or_else(|| TargetError::TargetTooSmall {
        path: path.into(),
        size,
        need: unit,
    })
}

/// Marks rigel's test files that the run wrote again (their mtime and blocks changed, and a mark
/// vouches only for the file as it was marked). A run killed before this leaves its files
/// unmarked: the next run takes them for foreign ones, which is the safe side.
pub fn remark_written(targets: &[OpenTarget]) -> Result<(), TargetError> {
    for t in targets
        .iter()
        .filter(|t| t.writable && t.info.created_by_rigel)
    {
        let file =
            t.fd.try_clone()
                .map(std::fs::File::from)
                .map_err(TargetError::io(&t.path, "duplicate the descriptor"))?;
        file.sync_all()
            .map_err(TargetError::io(&t.path, "flush the data to the device"))?;
        super::marker::refresh_marker(&file, &t.path)?;
    }
    Ok(())
}

/// The write guard on a target that already exists (one rigel is about to create is its own).
fn preflight(target: &PlannedTarget, consent: Consent) -> Result<(), TargetError> {
    let path = Path::new(&target.path);
    if !target.written || !path.exists() {
        return Ok(());
    }
    let file = open_target(path, OpenMode::default())?;
    let probed = probe(path, &file)?;
    let ours = probed.kind == TargetKind::File && create::marked_by_rigel(&file, path)?;
    check_writable(target, &probed, ours, consent)?;
    Ok(())
}

fn open_one(
    target: &PlannedTarget,
    direct: bool,
    consent: Consent,
    on_progress: &mut OnProgress,
) -> Result<OpenTarget, TargetError> {
    let path = PathBuf::from(&target.path);
    let (preparation, own) = match target.size {
        Some(size) => {
            let (p, own) = create::ensure_file(&path, size, on_progress)?;
            (Some(p), own)
        }
        None => (None, None),
    };
    let read_only = OpenMode {
        direct,
        ..OpenMode::default()
    };
    // rigel's own file is used through the descriptor that created or checked it, never by its
    // name again (a link swapped in meanwhile would be written as rigel's).
    let mut file = match own {
        Some(own) => {
            let again = reopen_target(&own, &path, read_only)?;
            // Its fill lock goes (flock belongs to the open file description): this run's own
            // lock is taken below on the descriptor it keeps.
            drop(own);
            again
        }
        None => open_target(&path, read_only)?,
    };
    let probed = probe(&path, &file)?;
    // The mark is checked on the descriptor every later open goes through.
    let created_by_rigel = match preparation {
        Some(p) => p.created_by_rigel(),
        None => probed.kind == TargetKind::File && create::created_by_rigel(&file, &path)?,
    };
    let base = match target.size {
        Some(declared) if declared > probed.size => {
            return Err(TargetError::TooSmall {
                path,
                actual: probed.size,
                declared,
            });
        }
        Some(declared) => declared,
        None => probed.size,
    };
    if target.written {
        check_writable(target, &probed, created_by_rigel, consent)?;
        let mode = OpenMode {
            write: true,
            direct,
            exclusive: probed.kind == TargetKind::Block,
        };
        // A block device a SIGKILLed rigel wrote stays claimed (EBUSY) until the kernel has
        // torn its ring down: waited for while the device's flock holders have all exited, or
        // none is left (the flock goes first). A claim another rigel holds is refused naming it.
        let mut wait = ExitedWait::new();
        file = loop {
            match reopen_target(&file, &path, mode) {
                Err(e) if is_busy(&e) => {
                    let held = holding(&file, &path);
                    if wait.again(&held) || (held.holder.is_none() && wait.again_for_claim(&path)) {
                        continue;
                    }
                    return Err(match held.holder {
                        Some(_) => TargetError::Locked(held),
                        None => busy_as_refusal(e, &path),
                    });
                }
                opened => break opened?,
            }
        };
    }
    // Held on the run's own descriptor while the run lasts: readers share a target (a file or a
    // block device), a writer (or a filler, see `create`) has it alone. A written device's O_EXCL
    // keeps out other writers and mounts; the lock keeps another rigel's readers out too.
    let kind = if target.written {
        LockKind::Exclusive
    } else {
        LockKind::Shared
    };
    lock_target(&file, &path, kind)?;
    let claim = match probed.kind {
        TargetKind::Passthru if target.written => Some(claim_namespace(&path)?),
        _ => None,
    };
    let info = target_info(&path, &probed, base, created_by_rigel);
    let allocated = match probed.kind {
        TargetKind::Block | TargetKind::Passthru => None,
        TargetKind::File => Some(
            file.metadata()
                .map_err(TargetError::io(&path, "read the metadata"))?
                .blocks()
                * 512,
        ),
    };
    Ok(OpenTarget {
        path,
        fd: file.into(),
        probe: probed,
        usable: base,
        writable: target.written,
        preparation,
        allocated,
        info,
        claim,
    })
}

/// The namespace block device of the passthrough target `path`, opened exclusively (what O_EXCL
/// does for a written block device); refused as busy while anything holds it.
fn claim_namespace(path: &Path) -> Result<OwnedFd, TargetError> {
    let ns = super::passthru::namespace_at(path).ok_or_else(|| {
        TargetError::io(path, "find the namespace's block device")(std::io::Error::other(
            "no nvme-generic entry in sysfs",
        ))
    })?;
    let mode = OpenMode {
        write: false,
        direct: false,
        exclusive: true,
    };
    open_target(&ns.block, mode)
        .map(OwnedFd::from)
        .map_err(|e| busy_as_refusal(e, &ns.block))
}

/// O_EXCL on a block device fails with EBUSY while anything holds it.
fn is_busy(err: &TargetError) -> bool {
    matches!(err, TargetError::Io { source, .. } if source.raw_os_error() == Some(libc::EBUSY))
}

fn busy_as_refusal(err: TargetError, path: &Path) -> TargetError {
    if is_busy(&err) {
        return TargetError::Refused(Box::new(super::refusal::Refusal {
            path: path.into(),
            reason: super::refusal::Reason::Busy,
        }));
    }
    err
}

/// Every I/O size any point uses (sweeps may change a class's size).
fn class_sizes(plan: &RunPlan) -> Vec<(String, u64)> {
    let mut sizes: Vec<(String, u64)> = plan
        .classes
        .iter()
        .map(|c| (c.name.clone(), c.size))
        .chain(
            plan.points
                .iter()
                .flat_map(|p| p.classes.iter().map(|c| (c.class.clone(), c.size))),
        )
        .collect();
    sizes.sort_by_key(|(_, s)| *s);
    sizes.dedup_by_key(|(_, s)| *s);
    sizes
}

/// O_DIRECT needs every I/O size to be a multiple of every target's alignment; a passthrough
/// target takes no I/O above its controller's transfer limit.
fn check_alignment(
    plan: &RunPlan,
    sizes: &[(String, u64)],
    opened: &[OpenTarget],
) -> Result<(), TargetError> {
    for t in opened
        .iter()
        .filter(|t| t.probe.kind == TargetKind::Passthru)
    {
        let Some(max) = super::passthru::max_transfer(t.probe.dev) else {
            continue;
        };
        if let Some((class, size)) = sizes.iter().find(|(_, s)| *s > max) {
            return Err(TargetError::PassthruTooLarge {
                class: class.clone(),
                size: *size,
                path: t.path.clone(),
                max,
            });
        }
    }
    if !plan.run.direct {
        return Ok(());
    }
    for (class, size) in sizes {
        let misfit = opened
            .iter()
            .find(|t| size % u64::from(t.probe.dio_offset_align) != 0);
        if let Some(t) = misfit {
            return Err(TargetError::Misaligned {
                class: class.clone(),
                size: *size,
                path: t.path.clone(),
                align: t.probe.dio_offset_align,
            });
        }
    }
    Ok(())
}

/// The results' record of a target: sysfs facts of the device (or of the device a file lives on).
fn target_info(path: &Path, probe: &Probe, size: u64, created_by_rigel: bool) -> TargetInfo {
    let sysfs = Sysfs::default();
    let facts = sysfs.facts(probe.dev);
    let env = super::env_facts::target_env(
        path,
        probe.kind.name() == "file",
        sysfs.disk_dir(probe.dev).as_deref(),
    );
    TargetInfo {
        path: path.display().to_string(),
        kind: probe.kind.name().to_string(),
        size,
        model: facts.model,
        rotational: facts.rotational,
        scheduler: facts.scheduler,
        queue_depth: facts.queue_depth,
        logical_block_size: probe.logical_block_size,
        physical_block_size: probe.physical_block_size,
        created_by_rigel,
        env,
    }
}

/// The spec `text` checked as the binary checks it, and its plan: for the refusal tests, which
/// build their specs as text.
#[cfg(test)]
pub(crate) fn checked_spec(text: &str) -> (rigel_spec::Spec, RunPlan) {
    let c = rigel_plan::check(
        rigel_spec::SpecInput::Text { name: "t", text },
        &[],
        2,
        &rigel_spec::Builtins::single(),
    )
    .unwrap_or_else(|d| panic!("{}", d.render(false)));
    (c.loaded.spec, c.plan.expect("a runnable spec"))
}

/// A plan over `targets` with one random-read class per size, for tests.
#[cfg(test)]
pub(crate) fn test_plan(
    targets: Vec<PlannedTarget>,
    layout: Layout,
    stripe: u64,
    sizes: &[u64],
) -> RunPlan {
    use rigel_expr::{Access, Mix};
    use rigel_plan::{IoClass, MatrixInfo, MatrixShape, RunSettings, VolumeLayout};
    RunPlan {
        name: "test".into(),
        description: String::new(),
        targets,
        volume: VolumeLayout { layout, stripe },
        run: RunSettings {
            duration_ms: 1000,
            warmup_ms: 0,
            io_timeout_ms: 30_000,
            direct: true,
            buffers: Default::default(),
            seed: 1,
            workers: 1,
            verify: None,
            sqpoll: None,
            polled: false,
            zones: false,
        },
        classes: sizes
            .iter()
            .enumerate()
            .map(|(i, &size)| IoClass {
                name: format!("c{i}"),
                size,
                access: Access::Random,
                mix: Mix::READ,
                per_stream: 1,
                rate: None,
                arrival: Default::default(),
                pattern: Default::default(),
                engine: Default::default(),
            })
            .collect(),
        matrix: MatrixInfo {
            shape: MatrixShape::Point,
            levels: Vec::new(),
        },
        points: Vec::new(),
        orion_total_points: 0,
        estimated_seconds: 0,
        expect: Vec::new(),
        answers: Vec::new(),
        search: None,
        precondition: None,
        drain: None,
        steady: None,
        cpus: None,
    }
}

#[cfg(test)]
#[path = "open_tests.rs"]
mod tests;
