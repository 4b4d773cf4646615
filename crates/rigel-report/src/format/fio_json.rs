//! fio's `--output-format=json` document (fio 3.x) from rigel's results, for the pipelines that
//! read fio's JSON (fio-plot, CBT, pbench, scripts): one job per class and point, each direction's
//! figures and percentiles from rigel's own histograms, with fio's default percentile list. What
//! rigel does not measure is zero (slat: rigel's latency runs from submission, so it is fio's clat
//! and lat at once) or left out, as docs/fio.md says. `fio.json` holds every point;
//! `fio/point-N.json` one point each, as fio-plot reads a folder of one run per file.

use super::ReportError;
use hdrhistogram::Histogram;
use rigel_results::{
    ClassResult, DirStats, LatencyStats, PointResult, ResultsDoc, decode_histogram, within,
};
use serde_json::{Map, Value, json};
use std::path::PathBuf;

/// fio's default `percentile_list`.
pub const PERCENTILES: [f64; 17] = [
    1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95,
    99.99,
];

/// The files: `fio.json` with every point, and `fio/point-N.json` per point.
pub fn render(doc: &ResultsDoc) -> Result<Vec<(PathBuf, String)>, ReportError> {
    let mut out = vec![(PathBuf::from("fio.json"), document(doc)?)];
    for p in doc.points() {
        let text = pretty(&top(doc, std::slice::from_ref(p))?)?;
        out.push((
            PathBuf::from(format!("fio/point-{}.json", p.point.id)),
            text,
        ));
    }
    Ok(out)
}

/// The whole run as one fio document.
pub fn document(doc: &ResultsDoc) -> Result<String, ReportError> {
    pretty(&top(doc, doc.points())?)
}

/// The whole run's document into the file `path` (`rigel fio --output FILE`).
pub fn write(doc: &ResultsDoc, path: &std::path::Path) -> Result<(), ReportError> {
    super::junit::write_at(path, document(doc)?.as_bytes())
}

fn pretty(v: &Value) -> Result<String, ReportError> {
    let mut text = serde_json::to_string_pretty(v)?;
    text.push('\n');
    Ok(text)
}

fn top(doc: &ResultsDoc, points: &[PointResult]) -> Result<Value, ReportError> {
    let started = chrono::DateTime::parse_from_rfc3339(doc.started()).ok();
    let ms = started.map_or(0, |t| t.timestamp_millis());
    let mut jobs = Vec::new();
    for p in points {
        for c in &p.classes {
            jobs.push(job(p, c)?);
        }
    }
    let mut m = Map::new();
    // Not a fio version: a parser that needs one finds the field, and the truth in it.
    m.insert(
        "fio version".into(),
        json!(format!("rigel-{}", doc.rigel_version())),
    );
    m.insert("timestamp".into(), json!(ms / 1000));
    m.insert("timestamp_ms".into(), json!(ms));
    m.insert(
        "time".into(),
        json!(started.map_or(String::new(), |t| {
            t.format("%a %b %e %H:%M:%S %Y").to_string()
        })),
    );
    m.insert("global options".into(), json!({}));
    m.insert("jobs".into(), Value::Array(jobs));
    m.insert("disk_util".into(), disk_util(points));
    Ok(Value::Object(m))
}

/// fio's name for a class's rw mode (a mix of trims with reads or writes has none in fio: its
/// reads and writes are named, its trims are in the job's `trim`).
fn rw(random: bool, mix: rigel_expr::Mix) -> &'static str {
    if mix.trim_percent == 100 {
        return if random { "randtrim" } else { "trim" };
    }
    match (random, mix.read_percent) {
        (true, 100) => "randread",
        (true, 0) => "randwrite",
        (true, _) => "randrw",
        (false, 100) => "read",
        (false, 0) => "write",
        (false, _) => "rw",
    }
}

fn job(p: &PointResult, c: &ClassResult) -> Result<Value, ReportError> {
    let load = p.point.classes.iter().find(|l| l.class == c.class);
    let runtime_ms = (p.elapsed_s * 1000.0).round() as u64;
    let mut options = Map::new();
    options.insert("name".into(), json!(c.class));
    if let Some(l) = load {
        let random = l.access == rigel_expr::Access::Random;
        options.insert("rw".into(), json!(rw(random, l.mix)));
        options.insert("rwmixread".into(), json!(l.mix.read_percent.to_string()));
        options.insert("bs".into(), json!(l.size.to_string()));
        // fio-plot reads a sequential job's depth per stream and its streams as numjobs.
        let (depth, jobs) = if random {
            (l.outstanding, 1)
        } else {
            (l.per_stream, l.load)
        };
        options.insert("iodepth".into(), json!(depth.to_string()));
        options.insert("numjobs".into(), json!(jobs.to_string()));
    }
    let mut m = Map::new();
    m.insert("jobname".into(), json!(c.class));
    m.insert("groupid".into(), json!(p.point.id));
    let error = match &p.status {
        rigel_results::PointStatus::Ok => 0,
        rigel_results::PointStatus::Failed { error } => error.errno,
    };
    m.insert("error".into(), json!(error));
    m.insert("eta".into(), json!(0));
    m.insert("elapsed".into(), json!(p.elapsed_s.round() as u64));
    m.insert("job options".into(), Value::Object(options));
    let service = c.pace.is_some();
    m.insert(
        "read".into(),
        direction(c.read.as_ref(), c, false, runtime_ms, service)?,
    );
    m.insert(
        "write".into(),
        direction(c.write.as_ref(), c, true, runtime_ms, service)?,
    );
    m.insert(
        "trim".into(),
        direction(c.trim.as_ref(), c, false, runtime_ms, service)?,
    );
    m.insert("sync".into(), sync(c)?);
    m.insert("job_runtime".into(), json!(runtime_ms));
    let pct = |s: f64| {
        if p.elapsed_s > 0.0 {
            s / p.elapsed_s * 100.0
        } else {
            0.0
        }
    };
    m.insert("usr_cpu".into(), json!(pct(p.cpu.user_s)));
    m.insert("sys_cpu".into(), json!(pct(p.cpu.system_s)));
    m.insert("ctx".into(), json!(0));
    m.insert("majf".into(), json!(0));
    m.insert("minf".into(), json!(0));
    m.insert("iodepth_level".into(), depth_levels(c));
    let all = hist(&c.total.histogram, &c.class)?;
    let (ns, us, ms) = latency_buckets(all.as_ref(), c.total.ios);
    m.insert("latency_ns".into(), ns);
    m.insert("latency_us".into(), us);
    m.insert("latency_ms".into(), ms);
    Ok(Value::Object(m))
}

fn hist(text: &str, class: &str) -> Result<Option<Histogram<u64>>, ReportError> {
    if text.is_empty() {
        return Ok(None);
    }
    decode_histogram(text)
        .map(Some)
        .ok_or_else(|| ReportError::Histogram {
            what: class.to_owned(),
            reason: "its histogram does not decode".to_owned(),
        })
}

/// `{min, max, mean, stddev, N}`, with `percentile` when a histogram is given.
fn stat(l: &LatencyStats, n: u64, h: Option<&Histogram<u64>>) -> Value {
    let mut m = Map::new();
    m.insert("min".into(), json!(l.min_ns));
    m.insert("max".into(), json!(l.max_ns));
    m.insert("mean".into(), json!(l.mean_ns));
    m.insert("stddev".into(), json!(l.stdev_ns));
    m.insert("N".into(), json!(n));
    if let Some(h) = h.filter(|_| n > 0) {
        let mut p = Map::new();
        for pc in PERCENTILES {
            // The same quantile and clamp as results.json's own p50 … p99.99.
            let v = within(h.value_at_quantile(pc / 100.0), l.min_ns, l.max_ns);
            p.insert(format!("{pc:.6}"), json!(v));
        }
        m.insert("percentile".into(), Value::Object(p));
    }
    Value::Object(m)
}

fn zero_stat() -> Value {
    json!({"min": 0, "max": 0, "mean": 0.0, "stddev": 0.0, "N": 0})
}

fn direction(
    d: Option<&DirStats>,
    c: &ClassResult,
    write: bool,
    runtime_ms: u64,
    open_loop: bool,
) -> Result<Value, ReportError> {
    let empty = DirStats {
        ios: 0,
        bytes: 0,
        iops: 0.0,
        mbps: 0.0,
        latency: LatencyStats::default(),
        histogram: String::new(),
        service: None,
    };
    let d = d.unwrap_or(&empty);
    let bw_bytes = (d.bytes * 1000).checked_div(runtime_ms).unwrap_or(0);
    let h = hist(&d.histogram, &c.class)?;
    // An open-loop class's latency is its response time (fio's lat); its service time is clat.
    let (clat, lat) = match (&d.service, open_loop) {
        (Some(s), true) => {
            let sh = hist(&s.histogram, &c.class)?;
            (
                stat(&s.latency, d.ios, sh.as_ref()),
                stat(&d.latency, d.ios, None),
            )
        }
        _ => (
            stat(&d.latency, d.ios, h.as_ref()),
            stat(&d.latency, d.ios, None),
        ),
    };
    let mut m = Map::new();
    m.insert("io_bytes".into(), json!(d.bytes));
    m.insert("io_kbytes".into(), json!(d.bytes / 1024));
    m.insert("bw_bytes".into(), json!(bw_bytes));
    m.insert("bw".into(), json!(bw_bytes / 1024));
    m.insert("iops".into(), json!(d.iops));
    m.insert(
        "runtime".into(),
        json!(if d.ios > 0 { runtime_ms } else { 0 }),
    );
    m.insert("total_ios".into(), json!(d.ios));
    m.insert("short_ios".into(), json!(0));
    m.insert("drop_ios".into(), json!(0));
    m.insert("slat_ns".into(), zero_stat());
    m.insert("clat_ns".into(), clat);
    m.insert("lat_ns".into(), lat);
    let samples = per_second(c, write, d.ios)?;
    let bw: Vec<f64> = samples
        .iter()
        .map(|n| *n as f64 * c.size as f64 / 1024.0)
        .collect();
    let iops: Vec<f64> = samples.iter().map(|n| *n as f64).collect();
    let (bmin, bmax, bmean, bdev) = spread(&bw);
    m.insert("bw_min".into(), json!(bmin as u64));
    m.insert("bw_max".into(), json!(bmax as u64));
    m.insert("bw_agg".into(), json!(if d.ios > 0 { 100.0 } else { 0.0 }));
    m.insert("bw_mean".into(), json!(bmean));
    m.insert("bw_dev".into(), json!(bdev));
    m.insert("bw_samples".into(), json!(bw.len()));
    let (imin, imax, imean, idev) = spread(&iops);
    m.insert("iops_min".into(), json!(imin as u64));
    m.insert("iops_max".into(), json!(imax as u64));
    m.insert("iops_mean".into(), json!(imean));
    m.insert("iops_stddev".into(), json!(idev));
    m.insert("iops_samples".into(), json!(iops.len()));
    Ok(Value::Object(m))
}

/// The direction's completions in each whole second of the window, from the interval histograms
/// (none when the results kept no per-second histograms, or the direction did nothing).
fn per_second(c: &ClassResult, write: bool, ios: u64) -> Result<Vec<u64>, ReportError> {
    if ios == 0 {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for iv in &c.intervals {
        let text = if write {
            &iv.write_histogram
        } else {
            &iv.read_histogram
        };
        match text {
            Some(t) => out.push(hist(t, &c.class)?.map_or(0, |h| h.len())),
            None => return Ok(Vec::new()),
        }
    }
    Ok(out)
}

/// min, max, mean and sample standard deviation (fio's), zeros for no samples.
fn spread(v: &[f64]) -> (f64, f64, f64, f64) {
    if v.is_empty() {
        return (0.0, 0.0, 0.0, 0.0);
    }
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    let var = if v.len() > 1 {
        v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)
    } else {
        0.0
    };
    let min = v.iter().copied().fold(f64::INFINITY, f64::min);
    let max = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (min, max, mean, var.sqrt())
}

/// fio's `sync`: the flushes (rigel's `fdatasync:N`/`fsync:N` commits) and their latency.
fn sync(c: &ClassResult) -> Result<Value, ReportError> {
    let Some(commit) = &c.commit else {
        return Ok(json!({"total_ios": 0, "lat_ns": zero_stat()}));
    };
    let h = hist(&commit.flush_histogram, &c.class)?;
    Ok(json!({
        "total_ios": commit.commits,
        "lat_ns": stat(&commit.flush, commit.commits, h.as_ref()),
    }))
}

/// fio's depth distribution: a closed-loop class holds its outstanding count throughout (each
/// completion is replaced at once), so all of it is at that level; an open-loop class's depth
/// varies and rigel keeps no distribution of it: left empty.
fn depth_levels(c: &ClassResult) -> Value {
    let keys = ["1", "2", "4", "8", "16", "32", ">=64"];
    let level = match c.outstanding {
        0 => None,
        1 => Some(0),
        2..=3 => Some(1),
        4..=7 => Some(2),
        8..=15 => Some(3),
        16..=31 => Some(4),
        32..=63 => Some(5),
        _ => Some(6),
    };
    let mut m = Map::new();
    for (i, k) in keys.iter().enumerate() {
        let v = if c.pace.is_none() && level == Some(i) {
            100.0
        } else {
            0.0
        };
        m.insert((*k).into(), json!(v));
    }
    Value::Object(m)
}

/// fio's latency buckets: the percent of I/Os at most each bound (and above the previous).
fn latency_buckets(h: Option<&Histogram<u64>>, ios: u64) -> (Value, Value, Value) {
    let bounds = [2u64, 4, 10, 20, 50, 100, 250, 500, 750, 1000];
    let share = |lo: u64, hi: u64| -> f64 {
        match h {
            Some(h) if ios > 0 && hi > lo => {
                let n = h.count_between(lo.saturating_add(1), hi);
                n as f64 / h.len().max(1) as f64 * 100.0
            }
            _ => 0.0,
        }
    };
    let table = |unit: u64, extra: bool| -> Value {
        let mut m = Map::new();
        let mut prev = if unit == 1 { 0 } else { 1000 * unit / 1000 };
        for b in bounds {
            let hi = b * unit;
            m.insert(b.to_string(), json!(share(prev, hi)));
            prev = hi;
        }
        if extra {
            m.insert("2000".into(), json!(share(prev, 2000 * unit)));
            m.insert(">=2000".into(), json!(share(2000 * unit, u64::MAX)));
        }
        Value::Object(m)
    };
    (table(1, false), table(1000, false), table(1_000_000, true))
}

fn disk_util(points: &[PointResult]) -> Value {
    let mut names: Vec<&str> = Vec::new();
    for p in points {
        for d in &p.devices {
            if !names.contains(&d.name.as_str()) {
                names.push(&d.name);
            }
        }
    }
    let rows: Vec<Value> = names
        .iter()
        .map(|name| {
            let ds: Vec<_> = points
                .iter()
                .flat_map(|p| p.devices.iter())
                .filter(|d| d.name == *name)
                .collect();
            let sum = |f: &dyn Fn(&rigel_results::DeviceWindow) -> u64| {
                ds.iter().map(|d| f(d)).sum::<u64>()
            };
            let span: f64 = ds.iter().map(|d| d.span_ms).sum();
            let busy = sum(&|d| d.busy_ms);
            json!({
                "name": name,
                "read_ios": sum(&|d| d.reads),
                "write_ios": sum(&|d| d.writes),
                "read_merges": 0,
                "write_merges": 0,
                "read_ticks": 0,
                "write_ticks": 0,
                "in_queue": sum(&|d| d.in_flight_ms),
                "util": if span > 0.0 { (busy as f64 / span * 100.0).min(100.0) } else { 0.0 },
            })
        })
        .collect();
    Value::Array(rows)
}
