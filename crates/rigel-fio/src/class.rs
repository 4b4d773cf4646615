//! One fio job as one rigel class: what it does (rw, mix, sizes), how hard (iodepth × numjobs, or
//! numjobs streams of iodepth each), where (files, size, offset) and how (engine, rate, think,
//! durability, data, verify). Each value keeps the fio options it came from for `--to-spec`.

use crate::error::FioError;
use crate::jobfile::Setting;
use crate::jobs::{Job, bad_value};
use crate::placement::File;
use crate::units::{self, KbBase};
use crate::value::{Ctx, Value, default, duration_text, size_text, value};

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
    let trims = matches!(rw_text, "trim" | "randtrim");
    let (access, reads, writes) = match rw_text {
        "read" | "trim" => ("sequential", true, false),
        "write" => ("sequential", false, true),
        "randread" | "randtrim" => ("random", true, false),
        "randwrite" => ("random", false, true),
        "rw" | "readwrite" => ("sequential", true, true),
        "randrw" => ("random", true, true),
        other => {
            let why = if other == "trimwrite" || other == "randtrimwrite" {
                // fio trims a block, then writes that block: two I/Os bound to one offset in
                // order, where rigel draws each I/O's direction and offset on its own.
                "rigel does not pair a trim with a write of the same block (fio's trimwrite): \
                 a class's mix draws each I/O's direction alone; use rw=trim and rw=write jobs"
                    .to_owned()
            } else {
                "rigel does read, write, randread, randwrite, rw (readwrite), randrw, trim and \
                 randtrim"
                    .to_owned()
            };
            return Err(match rw {
                Some(s) => bad_value(s, &why),
                None => unreachable_default(),
            });
        }
    };
    let rw_from: Vec<&Setting> = rw.into_iter().collect();
    // A trim job reads nothing: `reads` above only picked the access.
    let reads = reads && !trims;
    let mix = if trims {
        value("trim", &rw_from)
    } else if reads && writes {
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
    let size = block_sizes(&c, reads, writes, trims)?;
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
    crate::pacing::pacing(&c, &mut keys, numjobs, reads && writes)?;
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
        crate::pacing::distribution(&c, &mut keys)?;
        if !job.flag("norandommap")? {
            notes.push(format!("job {}: rigel draws random offsets with replacement, as fio's norandommap (fio's random map visits each block once per pass)", job.name));
        }
    } else if let Some(s) = c.get("random_distribution") {
        notes.push(format!(
            "{}: random_distribution has no effect on a sequential job (as in fio)",
            s.at
        ));
    }
    crate::pacing::durability(&c, &mut keys, writes, &mut notes)?;
    crate::pacing::data(&c, &mut keys, writes)?;
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

    let (files, region) = crate::placement::placement(&c, &job.name, numjobs)?;
    let run = run_values(&c, job)?;
    Ok(Class {
        name,
        at: job.at.clone(),
        group: job.group,
        // A trim destroys data as a write does: the target needs the same consent.
        writes: writes || trims,
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
fn block_sizes(c: &Ctx, reads: bool, writes: bool, trims: bool) -> Result<(Value, u64), FioError> {
    // bs=R,W[,T]: rigel has one mix for both directions; the directions the job uses must agree.
    // A trim job's size is T, which is W where omitted (as fio reads it).
    let pick = |s: &Setting| -> Result<String, FioError> {
        let text = c.text(s);
        let parts: Vec<&str> = text.split(',').map(str::trim).collect();
        let read = parts[0];
        let write = parts
            .get(1)
            .copied()
            .filter(|w| !w.is_empty())
            .unwrap_or(read);
        let trim = parts
            .get(2)
            .copied()
            .filter(|t| !t.is_empty())
            .unwrap_or(write);
        let used: Vec<&str> = [(reads, read), (writes, write), (trims, trim)]
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
}
