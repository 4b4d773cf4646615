//! One fio job as one rigel class: what it does (rw, mix, sizes), how hard (iodepth × numjobs, or
//! numjobs streams of iodepth each), where (files, size, offset) and how (engine, rate, think,
//! durability, data, verify). Each value keeps the fio options it came from for `--to-spec`.

use crate::error::FioError;
use crate::jobfile::Setting;
use crate::jobs::{Job, bad_value};
use crate::units::{self, Extent, KbBase};

/// A spec value and the fio settings it was made from (`rw=randread (job.fio:4)`).
#[derive(Clone, Debug)]
pub struct Value {
    pub text: String,
    pub from: String,
}

fn from(settings: &[&Setting]) -> String {
    settings
        .iter()
        .map(|s| match &s.value {
            Some(v) => format!("{}={v} ({})", s.name, s.at),
            None => format!("{} ({})", s.name, s.at),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn value(text: impl Into<String>, settings: &[&Setting]) -> Value {
    Value {
        text: text.into(),
        from: from(settings),
    }
}

fn default(text: impl Into<String>, why: &str) -> Value {
    Value {
        text: text.into(),
        from: format!("fio's default: {why}"),
    }
}

/// One file a job addresses, as fio names it.
#[derive(Clone, Debug, PartialEq)]
pub struct File {
    pub path: String,
    /// The size rigel creates it at when it does not exist.
    pub size: Option<u64>,
}

/// A job translated.
#[derive(Clone, Debug)]
pub struct Class {
    pub name: String,
    /// The job's section header.
    pub at: crate::error::Loc,
    pub group: usize,
    pub writes: bool,
    pub keys: Vec<(&'static str, Value)>,
    /// The matrix load: outstanding I/Os (random) or streams (sequential).
    pub load: Value,
    pub files: Vec<File>,
    pub region: Option<Value>,
    /// fio processes this job starts (numjobs), for the worker count.
    pub numjobs: u64,
    /// Run-wide values this job asks for; every job must agree.
    pub run: Vec<(&'static str, Value)>,
    pub notes: Vec<String>,
}

/// A size as the spec writes it: the largest binary unit that divides it.
pub fn size_text(bytes: u64) -> String {
    for (unit, name) in [(1u64 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")] {
        if bytes >= unit && bytes % unit == 0 {
            return format!("{}{name}", bytes / unit);
        }
    }
    format!("{bytes}B")
}

/// A duration as the spec writes it, from nanoseconds.
pub fn duration_text(ns: u64) -> String {
    for (unit, name) in [(1_000_000_000u64, "s"), (1_000_000, "ms"), (1_000, "us")] {
        if ns >= unit && ns % unit == 0 {
            return format!("{}{name}", ns / unit);
        }
    }
    format!("{ns}ns")
}

struct Ctx<'a> {
    job: &'a Job,
    base: KbBase,
}

impl Ctx<'_> {
    fn get(&self, name: &str) -> Option<&Setting> {
        self.job.get(name)
    }
    fn text<'s>(&self, s: &'s Setting) -> &'s str {
        s.value.as_deref().unwrap_or("")
    }
    fn int(&self, name: &str) -> Result<Option<(u64, &Setting)>, FioError> {
        match self.get(name) {
            None => Ok(None),
            Some(s) => units::integer(self.text(s))
                .map(|v| Some((v, s)))
                .map_err(|why| bad_value(s, &why)),
        }
    }
    fn size(&self, s: &Setting, text: &str) -> Result<u64, FioError> {
        units::size(text, self.base).map_err(|why| bad_value(s, &why))
    }
}

/// The class for `job`, named `name` (unique among the classes).
pub fn translate(job: &Job, name: String) -> Result<Class, FioError> {
    let base = match job.get("kb_base") {
        None => KbBase::Binary,
        Some(s) => match s.value.as_deref().map(str::trim) {
            Some("1024") => KbBase::Binary,
            Some("1000") => KbBase::Decimal,
            _ => return Err(bad_value(s, "kb_base is 1024 or 1000")),
        },
    };
    let c = Ctx { job, base };
    let mut keys = Vec::new();
    let mut notes = Vec::new();

    // rw and the mix.
    let rw = c.get("rw");
    let rw_text = rw.map_or("read", |s| c.text(s)).trim();
    if let Some(s) = rw.filter(|_| rw_text.contains(':')) {
        return Err(bad_value(
            s,
            "rigel's streams do not skip (rw=MODE:N): give the mode alone",
        ));
    }
    let (access, reads, writes) = match rw_text {
        "read" => ("sequential", true, false),
        "write" => ("sequential", false, true),
        "randread" => ("random", true, false),
        "randwrite" => ("random", false, true),
        "rw" | "readwrite" => ("sequential", true, true),
        "randrw" => ("random", true, true),
        other => {
            let why = if other.contains("trim") {
                "rigel issues no trims: use a read or write mode".to_owned()
            } else {
                "rigel does read, write, randread, randwrite, rw (readwrite) and randrw".to_owned()
            };
            return Err(match rw {
                Some(s) => bad_value(s, &why),
                None => unreachable_default(),
            });
        }
    };
    let rw_from: Vec<&Setting> = rw.into_iter().collect();
    let mix = if reads && writes {
        let (pct, src) = match (c.int("rwmixread")?, c.int("rwmixwrite")?) {
            (Some((r, s)), _) => (r, vec![s]),
            (None, Some((w, s))) => (100u64.saturating_sub(w), vec![s]),
            (None, None) => (50, vec![]),
        };
        if pct > 100 {
            return Err(bad_value(src[0], "a percentage is 0 to 100"));
        }
        let mut all = rw_from.clone();
        all.extend(src);
        value(format!("{pct}% read"), &all)
    } else if writes {
        value("write", &rw_from)
    } else if rw.is_some() {
        value("read", &rw_from)
    } else {
        default("read", "rw=read")
    };
    keys.push((
        "access",
        Value {
            text: access.to_owned(),
            from: mix.from.clone(),
        },
    ));
    keys.push(("mix", mix));

    // Sizes.
    let size = block_sizes(&c, reads, writes)?;
    keys.insert(0, ("size", size.0));

    // Engine and load.
    let engine_setting = c.get("ioengine");
    let engine_name = engine_setting.map_or("psync", |s| c.text(s).trim());
    let (engine, sync) = match engine_name {
        "io_uring" => ("io_uring", false),
        "libaio" => ("libaio", false),
        "psync" | "sync" | "pvsync" | "pvsync2" | "vsync" => ("psync", true),
        other => {
            let s = engine_setting.expect("only a written ioengine is not psync");
            return Err(bad_value(
                s,
                &format!(
                    "rigel's engines are io_uring, libaio and psync (for fio's psync, sync, vsync, pvsync, pvsync2): `{other}` is not one of them"
                ),
            ));
        }
    };
    let direct = match (c.get("direct"), c.get("buffered")) {
        (Some(_), _) => job.flag("direct")?,
        (None, Some(_)) => !job.flag("buffered")?,
        (None, None) => false,
    };
    if engine == "libaio" && !direct {
        let s = engine_setting.expect("libaio is written");
        return Err(bad_value(
            s,
            "libaio with buffered I/O (direct=0, fio's default) blocks in io_submit, so rigel refuses it: add direct=1 (--set direct=1), or use ioengine=psync for buffered I/O",
        ));
    }
    keys.push((
        "engine",
        match engine_setting {
            Some(s) => value(engine, &[s]),
            None => default(engine, "ioengine=psync"),
        },
    ));
    let (iodepth, depth_from) = match c.int("iodepth")? {
        Some((0, s)) => return Err(bad_value(s, "iodepth is at least 1")),
        Some((d, s)) => (d, vec![s]),
        None => (1, vec![]),
    };
    let (numjobs, jobs_from) = match c.int("numjobs")? {
        Some((0, s)) => return Err(bad_value(s, "numjobs is at least 1")),
        Some((n, s)) => (n, vec![s]),
        None => (1, vec![]),
    };
    // A synchronous engine has one I/O in flight per job whatever iodepth says (fio warns so).
    let depth = if sync { 1 } else { iodepth };
    if sync && iodepth > 1 {
        notes.push(format!(
            "job {}: iodepth={iodepth} has no effect with ioengine={engine_name} (one I/O in flight per job, as in fio)",
            job.name
        ));
    }
    let mut load_from = depth_from.clone();
    load_from.extend(jobs_from.iter().copied());
    load_from.extend(engine_setting);
    let load = if access == "sequential" {
        keys.push(("per_stream", value(depth.to_string(), &depth_from)));
        value(numjobs.to_string(), &jobs_from)
    } else {
        value((depth * numjobs).to_string(), &load_from)
    };

    // Pacing.
    pacing(&c, &mut keys, numjobs, reads && writes)?;
    if let Some(s) = c.get("thinktime") {
        let ns = units::time_ns(c.text(s), 1_000).map_err(|why| bad_value(s, &why))?;
        if ns > 0 {
            if keys.iter().any(|(k, _)| *k == "rate") {
                return Err(bad_value(
                    s,
                    "rigel's rates are open loop: a think time applies to closed-loop jobs only",
                ));
            }
            keys.push(("think", value(duration_text(ns), &[s])));
        }
    }
    if access == "random" {
        distribution(&c, &mut keys)?;
        if !job.flag("norandommap")? {
            notes.push(format!("job {}: rigel draws random offsets with replacement, as fio's norandommap (fio's random map visits each block once per pass)", job.name));
        }
    } else if let Some(s) = c.get("random_distribution") {
        notes.push(format!(
            "{}: random_distribution has no effect on a sequential job (as in fio)",
            s.at
        ));
    }
    durability(&c, &mut keys, writes, &mut notes)?;
    data(&c, &mut keys, writes)?;
    if let Some(s) = c.get("verify") {
        match c.text(s).trim() {
            "0" | "null" | "none" | "" => {}
            "pattern" => {
                return Err(bad_value(
                    s,
                    "rigel's verify writes its own headers and checksums: use verify=crc32c (any checksum)",
                ));
            }
            _ if !writes => {
                return Err(bad_value(
                    s,
                    "rigel verifies the blocks its run writes: a read-only job has none (use rw=randrw or a write job before it in the same group)",
                ));
            }
            _ => keys.push(("verify", value("after", &[s]))),
        }
    }
    if let Some(s) = c.get("zonemode") {
        if c.text(s).trim() != "none" {
            return Err(bad_value(
                s,
                "rigel does not drive zoned devices: zonemode=none only",
            ));
        }
    }

    let (files, region) = placement(&c, &job.name, numjobs)?;
    let run = run_values(&c, job)?;
    Ok(Class {
        name,
        at: job.at.clone(),
        group: job.group,

        writes,
        keys,
        load,
        files,
        region,
        numjobs,
        run,
        notes,
    })
}

fn unreachable_default() -> FioError {
    FioError::Generated("rw's default is read".to_owned())
}

/// `bs`, `bsrange` or `bssplit` as a size mix; returns it and the smallest size.
fn block_sizes(c: &Ctx, reads: bool, writes: bool) -> Result<(Value, u64), FioError> {
    // bs=R,W[,T]: rigel has one mix for both directions; the directions the job uses must agree.
    let pick = |s: &Setting| -> Result<String, FioError> {
        let text = c.text(s);
        let parts: Vec<&str> = text.split(',').map(str::trim).collect();
        let read = parts[0];
        let write = parts
            .get(1)
            .copied()
            .filter(|w| !w.is_empty())
            .unwrap_or(read);
        let used: Vec<&str> = [(reads, read), (writes, write)]
            .iter()
            .filter(|(u, v)| *u && !v.is_empty())
            .map(|(_, v)| *v)
            .collect();
        match used.as_slice() {
            [one] => Ok((*one).to_owned()),
            [r, w] if r == w => Ok((*r).to_owned()),
            [_, _] => Err(bad_value(
                s,
                "rigel gives a job one size mix for reads and writes: make them equal, or give reads and writes a job each",
            )),
            _ => Ok(read.to_owned()),
        }
    };
    let checked = |s: &Setting, b: u64| -> Result<u64, FioError> {
        if b == 0 || b % 512 != 0 {
            return Err(bad_value(
                s,
                "rigel's I/O sizes are whole multiples of 512 bytes",
            ));
        }
        Ok(b)
    };
    if let Some(s) = c.get("bssplit") {
        let text = pick(s)?;
        return bssplit(c, s, &text).and_then(|(t, min)| Ok((value(t, &[s]), checked(s, min)?)));
    }
    if let Some(s) = c.get("bsrange") {
        let text = pick(s)?;
        let (lo, hi) = units::size_range(&text, c.base).map_err(|why| bad_value(s, &why))?;
        let (lo, hi) = (checked(s, lo)?, checked(s, hi)?);
        if lo == hi {
            return Ok((value(size_text(lo), &[s]), lo));
        }
        // fio draws a size between the two, rounded down to a multiple of the smaller.
        let count = hi / lo;
        if count > 64 {
            return Err(bad_value(
                s,
                &format!(
                    "{count} sizes from {} to {} in steps of the smaller: rigel mixes at most 64 sizes; use bssplit",
                    size_text(lo),
                    size_text(hi)
                ),
            ));
        }
        let text = format!(
            "{}..={} step {}",
            size_text(lo),
            size_text(hi / lo * lo),
            size_text(lo)
        );
        return Ok((value(text, &[s]), lo));
    }
    match c.get("bs") {
        Some(s) => {
            let text = pick(s)?;
            if text.contains('-') || text.contains(':') {
                let (lo, hi) =
                    units::size_range(&text, c.base).map_err(|why| bad_value(s, &why))?;
                if lo != hi {
                    return Err(bad_value(s, "a range of sizes is bsrange="));
                }
            }
            let b = checked(s, c.size(s, &text)?)?;
            Ok((value(size_text(b), &[s]), b))
        }
        None => Ok((default("4KiB", "bs=4k"), 4096)),
    }
}

/// `bssplit=4k/10:64k/50:32k/`: shares by count; blank shares split what the others leave.
fn bssplit(c: &Ctx, s: &Setting, text: &str) -> Result<(String, u64), FioError> {
    let mut entries: Vec<(u64, Option<u64>)> = Vec::new();
    for part in text.split(':').filter(|p| !p.trim().is_empty()) {
        let (size, pct) = match part.split_once('/') {
            Some((a, b)) if !b.trim().is_empty() => {
                let p = units::integer(b).map_err(|why| bad_value(s, &why))?;
                (a, Some(p * 100))
            }
            Some((a, _)) => (a, None),
            None => (part, None),
        };
        entries.push((c.size(s, size)?, pct));
    }
    // Hundredths of a percent, as the spec writes shares.
    let given: u64 = entries.iter().filter_map(|e| e.1).sum();
    let blanks = entries.iter().filter(|e| e.1.is_none()).count() as u64;
    if given > 10_000 || (blanks == 0 && given != 10_000) {
        return Err(bad_value(s, "the shares must add up to 100"));
    }
    let mut left = 10_000 - given;
    let mut blank_seen = 0;
    let mut out = Vec::new();
    let mut min = u64::MAX;
    for (size, pct) in &entries {
        let share = match pct {
            Some(p) => *p,
            None => {
                blank_seen += 1;
                let share = if blank_seen == blanks {
                    left
                } else {
                    (10_000 - given) / blanks
                };
                left -= share;
                share
            }
        };
        if share == 0 {
            continue;
        }
        min = min.min(*size);
        out.push(format!(
            "{}:{}.{:02}%",
            size_text(*size),
            share / 100,
            share % 100
        ));
    }
    if out.is_empty() {
        return Err(bad_value(s, "no size with a share above 0"));
    }
    Ok((out.join(", "), min))
}

/// `rate`, `rate_iops` and `rate_process`: fio's rates are per job, so numjobs multiplies them.
fn pacing(
    c: &Ctx,
    keys: &mut Vec<(&'static str, Value)>,
    numjobs: u64,
    mixed: bool,
) -> Result<(), FioError> {
    let one = |s: &Setting| -> Result<String, FioError> {
        let parts: Vec<&str> = c
            .text(s)
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .collect();
        match parts.as_slice() {
            [one] if !mixed => Ok((*one).to_owned()),
            [r, w] if r == w && !mixed => Ok((*r).to_owned()),
            _ if mixed => Err(bad_value(
                s,
                "fio paces reads and writes apart, rigel a class as a whole: give a mixed job no rate, or give reads and writes a job each",
            )),
            _ => Err(bad_value(
                s,
                "one rate per job: give the direction the job does",
            )),
        }
    };
    let rate = if let Some(s) = c.get("rate_iops") {
        let n = units::integer(&one(s)?).map_err(|why| bad_value(s, &why))?;
        Some(value(format!("{} iops", n * numjobs), &[s]))
    } else if let Some(s) = c.get("rate") {
        let b = c.size(s, &one(s)?)?;
        Some(value(format!("{}/s", size_text(b * numjobs)), &[s]))
    } else {
        None
    };
    let Some(rate) = rate else { return Ok(()) };
    if rate.text.starts_with("0 ") || rate.text.starts_with("0B") {
        return Ok(());
    }
    keys.push(("rate", rate));
    if let Some(s) = c.get("rate_process") {
        let arrival = match c.text(s).trim() {
            "linear" => "uniform",
            "poisson" => "poisson",
            _ => return Err(bad_value(s, "rate_process is linear or poisson")),
        };
        keys.push(("arrival", value(arrival, &[s])));
    }
    Ok(())
}

fn distribution(c: &Ctx, keys: &mut Vec<(&'static str, Value)>) -> Result<(), FioError> {
    let Some(s) = c.get("random_distribution") else {
        return Ok(());
    };
    let text = c.text(s).trim();
    let (kind, arg) = text.split_once(':').unwrap_or((text, ""));
    let d = match kind {
        "random" => return Ok(()),
        "zipf" | "pareto" if arg.contains(',') => {
            return Err(bad_value(
                s,
                "rigel's distributions have no centre: give the parameter alone",
            ));
        }
        "zipf" => format!("zipf:{arg}"),
        "pareto" => format!("pareto:{arg}"),
        "normal" | "gauss" if arg.contains(',') => {
            return Err(bad_value(
                s,
                "rigel's normal distribution is centred on the region: give σ alone",
            ));
        }
        "normal" | "gauss" => format!("normal:{arg}%"),
        "zoned" if !arg.contains(',') => {
            let bands: Result<Vec<Option<String>>, FioError> = arg
                .split(':')
                .map(|b| {
                    let (io, region) = b
                        .split_once('/')
                        .ok_or_else(|| bad_value(s, "zoned bands are IO%/REGION%"))?;
                    // `20/` (no region) is what the others leave: rigel gives the rest that by itself.
                    Ok((!region.trim().is_empty())
                        .then(|| format!("{}%/{}%", io.trim(), region.trim())))
                })
                .collect();
            format!(
                "hot:{}",
                bands?.into_iter().flatten().collect::<Vec<_>>().join(", ")
            )
        }
        _ => {
            return Err(bad_value(
                s,
                "rigel draws random, zipf:θ, pareto:h, normal:σ and zoned:IO/REGION:… (one set for reads and writes)",
            ));
        }
    };
    keys.push(("distribution", value(d, &[s])));
    Ok(())
}

fn durability(
    c: &Ctx,
    keys: &mut Vec<(&'static str, Value)>,
    writes: bool,
    notes: &mut Vec<String>,
) -> Result<(), FioError> {
    let mut found: Vec<(&Setting, String)> = Vec::new();
    for name in ["fsync", "fdatasync"] {
        if let Some((n, s)) = c.int(name)? {
            if n > 0 {
                found.push((s, format!("{name}:{n}")));
            }
        }
    }
    if let Some(s) = c.get("sync") {
        match c.text(s).trim() {
            "0" | "none" => {}
            "1" | "sync" | "dsync" | "" => found.push((s, "dsync".to_owned())),
            _ => return Err(bad_value(s, "sync is 0, 1 (sync) or dsync")),
        }
    }
    match found.as_slice() {
        [] => Ok(()),
        [(s, _)] if !writes => {
            notes.push(format!(
                "{}: {} has no effect on a job that does not write (as in fio)",
                s.at, s.name
            ));
            Ok(())
        }
        [(s, d)] => {
            keys.push(("durability", value(d.clone(), &[*s])));
            Ok(())
        }
        [_, (s, _), ..] => Err(bad_value(
            s,
            "rigel makes a job's writes durable one way: give one of fsync, fdatasync and sync",
        )),
    }
}

/// `buffer_compress_percentage=P` and `dedupe_percentage=P` as ratios 100 : (100 − P).
fn data(c: &Ctx, keys: &mut Vec<(&'static str, Value)>, writes: bool) -> Result<(), FioError> {
    for (name, key) in [
        ("buffer_compress_percentage", "compress"),
        ("dedupe_percentage", "dedupe"),
    ] {
        let Some((p, s)) = c.int(name)? else { continue };
        if p == 0 {
            continue;
        }
        if p >= 100 {
            return Err(bad_value(
                s,
                "rigel's ratios go up to 100:1: give at most 99",
            ));
        }
        if !writes {
            return Err(bad_value(
                s,
                "shapes what a job writes: this job does not write",
            ));
        }
        let hundredths = (10_000 * 100 + (100 - p) * 50) / (100 - p) / 100;
        keys.push((
            key,
            value(
                format!("{}.{:02}:1", hundredths / 100, hundredths % 100),
                &[s],
            ),
        ));
    }
    Ok(())
}

/// The files a job addresses and the part of them it uses (fio's size and offset).
fn placement(
    c: &Ctx,
    job_name: &str,
    numjobs: u64,
) -> Result<(Vec<File>, Option<Value>), FioError> {
    let nrfiles = match c.int("nrfiles")? {
        Some((0, s)) => return Err(bad_value(s, "nrfiles is at least 1")),
        Some((n, _)) => n,
        None => 1,
    };
    let size_s = c.get("size");
    let size = match size_s {
        Some(s) => Some((
            units::extent(c.text(s), c.base).map_err(|why| bad_value(s, &why))?,
            s,
        )),
        None => None,
    };
    let offset_s = c.get("offset");
    let offset = match offset_s {
        Some(s) => units::extent(c.text(s), c.base).map_err(|why| bad_value(s, &why))?,
        None => Extent::Bytes(0),
    };
    let filesize = match c.get("filesize") {
        Some(s) => Some(c.size(s, c.text(s))?),
        None => None,
    };
    let dir = c.get("directory").map(|s| c.text(s).to_owned());
    let in_dir = |name: &str| match &dir {
        Some(d) if !name.starts_with('/') => format!("{}/{name}", d.trim_end_matches('/')),
        _ => name.to_owned(),
    };
    let names: Vec<String> = match c.get("filename") {
        Some(s) => split_files(c.text(s)).iter().map(|n| in_dir(n)).collect(),
        // fio names a job's files JOB.JOBNUM.FILENUM, in `directory` or where it runs.
        None => (0..numjobs)
            .flat_map(|j| (0..nrfiles).map(move |f| (j, f)))
            .map(|(j, f)| in_dir(&format!("{job_name}.{j}.{f}")))
            .collect(),
    };
    let per_file = |total: u64| filesize.unwrap_or(total / nrfiles.max(1));
    let mut files = Vec::new();
    for path in names {
        let exists = std::fs::metadata(&path).is_ok();
        let size = match (exists, size, offset) {
            (true, _, _) => None,
            (false, Some((Extent::Bytes(b), _)), Extent::Bytes(o)) => Some(o + per_file(b)),
            (false, _, _) if filesize.is_some() => filesize,
            (false, _, _) => {
                let at = size_s.map_or(c.job.at.clone(), |s| s.at.clone());
                return Err(FioError::BadValue {
                    at,
                    option: "filename".to_owned(),
                    value: path,
                    why: "no such file: give size= in bytes (fio and rigel create a missing file at that size)".to_owned(),
                });
            }
        };
        files.push(File { path, size });
    }
    if files.is_empty() {
        return Err(FioError::Syntax {
            at: c.job.at.clone(),
            why: format!("job {job_name} names no file"),
        });
    }
    let any_existing = files.iter().any(|f| f.size.is_none());
    let start = match offset {
        Extent::Bytes(0) => None,
        Extent::Bytes(b) => Some(size_text(b)),
        Extent::Percent(p) => Some(format!("{p}%")),
    };
    let end = match (size, offset) {
        (Some((Extent::Bytes(b), _)), Extent::Bytes(o)) if any_existing || o > 0 => {
            Some(size_text(o + b))
        }
        (Some((Extent::Bytes(_), _)), _) => None,
        (Some((Extent::Percent(p), _)), Extent::Percent(o)) => {
            Some(format!("{}%", (p + o).min(100.0)))
        }
        (Some((Extent::Percent(p), _)), Extent::Bytes(0)) => Some(format!("{p}%")),
        (Some((s, st)), _) => {
            let _ = s;
            return Err(bad_value(
                st,
                "give size and offset both in bytes or both in percent",
            ));
        }
        (None, _) => None,
    };
    let mut from_settings: Vec<&Setting> = Vec::new();
    from_settings.extend(size_s);
    from_settings.extend(offset_s);
    let region = match (start, end) {
        (None, None) => None,
        (s, e) => Some(value(
            format!(
                "{}..{}",
                s.unwrap_or_else(|| "0".to_owned()),
                e.unwrap_or_else(|| "100%".to_owned())
            ),
            &from_settings,
        )),
    };
    Ok((files, region))
}

/// fio's `filename=a:b` is two files; `\:` is a colon inside a name.
fn split_files(text: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut chars = text.chars().peekable();
    while let Some(ch) = chars.next() {
        match ch {
            '\\' if chars.peek() == Some(&':') => {
                chars.next();
                out.last_mut().expect("one").push(':');
            }
            ':' => out.push(String::new()),
            ch => out.last_mut().expect("one").push(ch),
        }
    }
    out.into_iter()
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .collect()
}

/// The job's run-wide values: duration, warm-up, direct, seed.
fn run_values(c: &Ctx, job: &Job) -> Result<Vec<(&'static str, Value)>, FioError> {
    let mut run = Vec::new();
    match c.get("runtime") {
        Some(s) => {
            let ns = units::time_ns(c.text(s), 1_000_000_000).map_err(|why| bad_value(s, &why))?;
            let mut from = vec![s];
            from.extend(job.get("time_based"));
            run.push(("duration", value(duration_text(ns), &from)));
        }
        None => {
            return Err(FioError::Syntax {
                at: job.at.clone(),
                why: format!(
                    "job {} has no runtime: rigel's points are timed; give runtime= (and time_based) in the job or [global], or --runtime=SECONDS on the command line",
                    job.name
                ),
            });
        }
    }
    if let Some(s) = c.get("ramp_time") {
        let ns = units::time_ns(c.text(s), 1_000_000_000).map_err(|why| bad_value(s, &why))?;
        run.push(("warmup", value(duration_text(ns), &[s])));
    }
    let direct = match (c.get("direct"), c.get("buffered")) {
        (Some(d), _) => value(job.flag("direct")?.to_string(), &[d]),
        (None, Some(b)) => value((!job.flag("buffered")?).to_string(), &[b]),
        (None, None) => default("false", "direct=0"),
    };
    run.push(("direct", direct));
    match (c.int("randseed")?, c.get("randrepeat")) {
        (Some((n, s)), _) => run.push(("seed", value(n.to_string(), &[s]))),
        (None, Some(s)) if !job.flag("randrepeat")? => {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64 & ((1 << 53) - 1));
            run.push(("seed", value(now.to_string(), &[s])));
        }
        _ => {}
    }
    Ok(run)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_durations_as_the_spec_writes_them() {
        assert_eq!(size_text(4096), "4KiB");
        assert_eq!(size_text(1 << 20), "1MiB");
        assert_eq!(size_text(1536), "1536B");
        assert_eq!(duration_text(30_000_000_000), "30s");
        assert_eq!(duration_text(100_000), "100us");
    }

    #[test]
    fn filenames_split_at_unescaped_colons() {
        assert_eq!(split_files("/dev/a:/dev/b"), vec!["/dev/a", "/dev/b"]);
        assert_eq!(split_files("a\\:b"), vec!["a:b"]);
    }
}
