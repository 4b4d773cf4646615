//! How a job issues its I/O and what it writes: fio's rates, random distributions, flushes and
//! data shapes as the class's `rate`/`arrival`, `distribution`, `durability`, `compress`/`dedupe`.

use crate::error::FioError;
use crate::jobfile::Setting;
use crate::jobs::bad_value;
use crate::units;
use crate::value::{Ctx, Value, size_text, value};

/// `rate`, `rate_iops` and `rate_process`: fio's rates are per job, so numjobs multiplies them.
pub(crate) fn pacing(
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

pub(crate) fn distribution(c: &Ctx, keys: &mut Vec<(&'static str, Value)>) -> Result<(), FioError> {
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

pub(crate) fn durability(
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
pub(crate) fn data(
    c: &Ctx,
    keys: &mut Vec<(&'static str, Value)>,
    writes: bool,
) -> Result<(), FioError> {
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
