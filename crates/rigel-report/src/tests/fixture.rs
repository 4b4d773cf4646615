//! Results documents for report tests, built from a small queueing model of a device (Little's law
//! holds at every point, latencies spread log-normally) with real HDR histograms. The checked-in
//! `tests/fixtures/results-*.json` come from here until a real small run replaces them.

use base64::Engine as _;
use hdrhistogram::Histogram;
use hdrhistogram::serialization::{Serializer as _, V2DeflateSerializer};
use rigel_expr::{Access, CmpOp, Comparison, Mix, Quantity};
use rigel_plan::*;
use rigel_results::*;

/// A point's `[sweep]` bindings and each class's load.
pub type PlannedLoads = (Vec<(&'static str, &'static str)>, Vec<u32>);

#[derive(Clone)]
pub struct ClassSpec {
    pub name: &'static str,
    pub size: u64,
    pub access: Access,
    pub read_percent: u8,
    pub per_stream: u32,
    /// Service time of one I/O on an idle device, µs.
    pub base_us: f64,
}

pub struct Scenario {
    pub name: &'static str,
    pub description: &'static str,
    pub command: &'static [&'static str],
    pub targets: Vec<(&'static str, u64)>,
    pub layout: Layout,
    pub shape: MatrixShape,
    pub classes: Vec<ClassSpec>,
    /// (sweep bindings, loads per class) for every planned point, in run order.
    pub points: Vec<PlannedLoads>,
    /// How many of the planned points finished (the rest are missing: an interrupted run).
    pub finished: usize,
    /// Point ids that failed on an I/O error.
    pub failed: Vec<u32>,
    pub duration_s: u64,
    pub started: &'static str,
    /// The spec's `[expect]` requirements.
    pub expect: Vec<Requirement>,
}

fn encode(h: &Histogram<u64>) -> String {
    let mut buf = Vec::new();
    // Serializing an in-memory histogram into a Vec cannot fail.
    V2DeflateSerializer::new()
        .serialize(h, &mut buf)
        .expect("serialize histogram");
    base64::engine::general_purpose::STANDARD.encode(buf)
}

fn normal(rng: &mut fastrand::Rng) -> f64 {
    let u1 = rng.f64().max(1e-12);
    let u2 = rng.f64();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// A direction's figures: latencies spread around `mean_us`, IOPS from Little's law.
fn dir_stats(
    rng: &mut fastrand::Rng,
    mean_us: f64,
    outstanding: f64,
    size: u64,
    secs: f64,
) -> DirStats {
    let mut h = Histogram::<u64>::new_with_bounds(1, 60_000_000_000, 3).expect("histogram bounds");
    let sigma = 0.35;
    let samples = 4000;
    let iops = outstanding / (mean_us / 1e6);
    let ios = (iops * secs).round() as u64;
    let per = (ios / samples).max(1);
    for _ in 0..samples {
        let v = mean_us * 1e3 * (sigma * normal(rng) - sigma * sigma / 2.0).exp();
        let _ = h.record_n(v.max(1000.0) as u64, per);
    }
    let latency = LatencyStats {
        min_ns: h.min(),
        mean_ns: h.mean(),
        stdev_ns: h.stdev(),
        p50_ns: h.value_at_quantile(0.5),
        p90_ns: h.value_at_quantile(0.9),
        p99_ns: h.value_at_quantile(0.99),
        p99_9_ns: h.value_at_quantile(0.999),
        p99_99_ns: h.value_at_quantile(0.9999),
        max_ns: h.max(),
    };
    let iops = outstanding / (latency.mean_ns / 1e9);
    let ios = (iops * secs).round() as u64;
    DirStats {
        ios,
        bytes: ios * size,
        iops: ios as f64 / secs,
        mbps: ios as f64 * size as f64 / secs / 1048576.0,
        latency,
        histogram: encode(&h),
        service: None,
    }
}

fn class_load(c: &ClassSpec, load: u32, size: u64) -> ClassLoad {
    let per_stream = if c.access == Access::Sequential {
        c.per_stream
    } else {
        1
    };
    ClassLoad {
        class: c.name.to_string(),
        size,
        access: c.access,
        mix: Mix::reads_of(c.read_percent),
        load,
        per_stream,
        outstanding: load * per_stream,
        rate: None,
        arrival: Default::default(),
        pattern: Default::default(),
        engine: Default::default(),
    }
}

pub fn build(s: &Scenario) -> ResultsDoc {
    let mut rng = fastrand::Rng::with_seed(42);
    let planned: Vec<DataPoint> = s
        .points
        .iter()
        .enumerate()
        .map(|(i, (sweep, loads))| {
            let size_of = |c: &ClassSpec| {
                sweep
                    .iter()
                    .find(|(k, _)| *k == format!("{}.size", c.name))
                    .map_or(c.size, |(_, v)| {
                        v.trim_end_matches("KiB")
                            .parse::<u64>()
                            .map_or(c.size, |k| k * 1024)
                    })
            };
            DataPoint {
                id: i as u32 + 1,
                sweep: sweep
                    .iter()
                    .map(|(k, v)| SweepBinding {
                        key: k.to_string(),
                        value: v.to_string(),
                    })
                    .collect(),
                classes: s
                    .classes
                    .iter()
                    .zip(loads)
                    .map(|(c, &l)| class_load(c, l, size_of(c)))
                    .collect(),
            }
        })
        .collect();
    let mut levels: Vec<ClassLevels> = s
        .classes
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let mut l: Vec<u32> = s.points.iter().map(|p| p.1[i]).collect();
            l.sort_unstable();
            l.dedup();
            ClassLevels {
                class: c.name.to_string(),
                levels: l,
            }
        })
        .collect();
    if s.shape == MatrixShape::Basic {
        for l in &mut levels {
            l.levels.retain(|&v| v > 0);
        }
    }
    let secs = s.duration_s as f64;
    let plan = RunPlan {
        name: s.name.to_string(),
        description: s.description.to_string(),
        targets: s
            .targets
            .iter()
            .map(|(p, size)| PlannedTarget {
                name: String::new(),
                path: p.to_string(),
                size: Some(*size),
                destructive: false,
                named_on_command_line: false,
                written: false,
            })
            .collect(),
        volume: VolumeLayout {
            layout: s.layout,
            stripe: 1 << 20,
        },
        run: RunSettings {
            duration_ms: s.duration_s * 1000,
            warmup_ms: 0,
            io_timeout_ms: 30_000,
            direct: true,
            buffers: Default::default(),
            seed: 7,
            workers: 2,
            verify: None,
            sqpoll: None,
            polled: false,
            zones: false,
        },
        classes: s
            .classes
            .iter()
            .map(|c| IoClass {
                name: c.name.to_string(),
                size: c.size,
                access: c.access,
                mix: Mix::reads_of(c.read_percent),
                per_stream: if c.access == Access::Sequential {
                    c.per_stream
                } else {
                    1
                },
                rate: None,
                arrival: Default::default(),
                pattern: Default::default(),
                engine: Default::default(),
            })
            .collect(),
        matrix: MatrixInfo {
            shape: s.shape,
            levels,
        },
        orion_total_points: planned.len() as u64 + 1,
        estimated_seconds: planned.len() as u64 * s.duration_s,
        expect: s.expect.clone(),
        answers: Vec::new(),
        search: None,
        precondition: None,
        drain: None,
        steady: None,
        cpus: None,
        points: planned.clone(),
    };
    let start = chrono::DateTime::parse_from_rfc3339(s.started).expect("fixture start time");
    let points = planned
        .iter()
        .take(s.finished)
        .map(|p| {
            // Queueing model: every outstanding I/O shares the device; large I/Os weigh by their size.
            let weight: f64 = p
                .classes
                .iter()
                .map(|c| f64::from(c.outstanding) * (c.size as f64 / 8192.0).sqrt())
                .sum();
            let classes = p
                .classes
                .iter()
                .zip(&s.classes)
                .filter(|(c, _)| c.outstanding > 0)
                .map(|(c, spec)| class_result(&mut rng, c, spec, weight, secs))
                .collect();
            let status = if s.failed.contains(&p.id) {
                PointStatus::Failed {
                    error: IoFailure {
                        target: s.targets[0].0.to_string(),
                        offset: 7340032,
                        errno: 5,
                        message: "Input/output error".into(),
                    },
                }
            } else {
                PointStatus::Ok
            };
            let started =
                start + chrono::Duration::seconds(i64::from(p.id - 1) * (s.duration_s as i64 + 1));
            PointResult {
                point: p.clone(),
                status,
                started: started.to_rfc3339(),
                elapsed_s: secs,
                classes,
                cpu: CpuTime {
                    user_s: 0.21 * secs,
                    system_s: 0.48 * secs,
                    sq_thread_s: None,
                },
                window: None,
                partial: None,
                paused: None,
                fleet: None,
                steady: None,
                drain: None,
                devices: Vec::new(),
                integrity: None,
                engines: Vec::new(),
                placement: None,
                host: None,
            }
        })
        .collect();
    let finished = if s.finished == planned.len() {
        (start + chrono::Duration::seconds(planned.len() as i64 * (s.duration_s as i64 + 1)))
            .to_rfc3339()
    } else {
        String::new()
    };
    let header = RunHeader {
        schema_version: SCHEMA_VERSION,
        rigel_version: "0.1.0".into(),
        command: s.command.iter().map(|a| a.to_string()).collect(),
        started: s.started.into(),
        host: HostInfo {
            hostname: "db-test-01".into(),
            kernel: "6.12.48-1-amd64".into(),
            cpu_model: "AMD EPYC 7B13".into(),
            cores: 8,
            memory_bytes: 32 << 30,
        },
        targets: s
            .targets
            .iter()
            .map(|(p, size)| TargetInfo {
                path: p.to_string(),
                kind: "block".into(),
                size: *size,
                model: "Samsung SSD 990 PRO 2TB".into(),
                rotational: Some(false),
                scheduler: "none".into(),
                queue_depth: Some(1023),
                logical_block_size: 512,
                physical_block_size: 4096,
                created_by_rigel: false,
                env: Default::default(),
            })
            .collect(),

        provenance: None,
        write_data: rigel_results::WriteData::of_plan(&plan),
    };
    let spec_toml = format!(
        "[spec]\nname = \"{}\"\ndescription = \"{}\"\n",
        s.name, s.description
    );
    ResultsDoc::new(header, spec_toml, plan, points, finished)
}

fn class_result(
    rng: &mut fastrand::Rng,
    c: &ClassLoad,
    spec: &ClassSpec,
    weight: f64,
    secs: f64,
) -> ClassResult {
    let q = f64::from(c.outstanding);
    let scale = (c.size as f64 / spec.size as f64).sqrt();
    let mean_us = spec.base_us * scale * (1.0 + weight / 24.0);
    let reads = q * f64::from(c.mix.read_percent) / 100.0;
    let writes = q - reads;
    let read = (reads > 0.0).then(|| dir_stats(rng, mean_us, reads, c.size, secs));
    let write = (writes > 0.0).then(|| dir_stats(rng, mean_us * 0.6, writes, c.size, secs));
    let total = match (&read, &write) {
        (Some(r), None) => r.clone(),
        (None, Some(w)) => w.clone(),
        _ => dir_stats(rng, mean_us * (reads + writes * 0.6) / q, q, c.size, secs),
    };
    let intervals = (1..=secs as u64)
        .map(|t| {
            let wobble = 1.0 + 0.03 * normal(rng);
            let ios = (total.iops * wobble).round() as u64;
            Interval {
                t_s: t as f64,
                ios,
                iops: ios as f64,
                mbps: ios as f64 * c.size as f64 / 1048576.0,
                mean_ns: total.latency.mean_ns / wobble,
                p99_ns: (total.latency.p99_ns as f64 / wobble) as u64,
                read_histogram: None,
                write_histogram: None,
            }
        })
        .collect();
    ClassResult {
        read,
        write,
        intervals,
        ..ClassResult::new(c.class.clone(), c.size, c.outstanding, total)
    }
}

pub fn small(read_percent: u8) -> ClassSpec {
    ClassSpec {
        name: "small",
        size: 8192,
        access: Access::Random,
        read_percent,
        per_stream: 1,
        base_us: 85.0,
    }
}

pub fn large(access: Access) -> ClassSpec {
    ClassSpec {
        name: "large",
        size: 1 << 20,
        access,
        read_percent: 100,
        per_stream: 4,
        base_us: 900.0,
    }
}

pub fn requirement(key: &str, op: CmpOp, value: Quantity) -> Requirement {
    Requirement {
        key: key.to_string(),
        comparison: Comparison { op, value },
    }
}

/// ORION's basic matrix: small alone at rising load, then large alone.
pub fn basic_points(small: &[u32], large: &[u32]) -> Vec<PlannedLoads> {
    small
        .iter()
        .map(|&s| (vec![], vec![s, 0]))
        .chain(large.iter().map(|&l| (vec![], vec![0, l])))
        .collect()
}

/// The fixtures checked in under `tests/fixtures/`, by file stem.
pub fn scenarios() -> Vec<(&'static str, Scenario)> {
    let detailed: Vec<_> = (0..=2u32)
        .flat_map(|l| (0..=4u32).map(move |s| (vec![], vec![s, l])))
        .filter(|(_, v)| v[0] + v[1] > 0)
        .collect();
    vec![
        (
            "basic",
            Scenario {
                name: "orion-simple",
                description: "8 KiB random reads, then 1 MiB random reads, each alone at rising load",
                command: &[
                    "rigel",
                    "run",
                    "specs/orion/simple.toml",
                    "--set",
                    "lun=/dev/nvme1n1",
                ],
                targets: vec![("/dev/nvme1n1", 2000398934016)],
                layout: Layout::Concat,
                shape: MatrixShape::Basic,
                classes: vec![small(100), large(Access::Random)],
                points: basic_points(&[1, 2, 3, 4, 5], &[1, 2]),
                finished: 7,
                failed: vec![],
                duration_s: 5,
                started: "2026-11-29T21:22:05+01:00",
                expect: vec![
                    requirement("small.iops", CmpOp::Ge, Quantity::Number(40000.0)),
                    requirement(
                        "small.latency.p99 @ small=1",
                        CmpOp::Le,
                        Quantity::Nanos(500_000),
                    ),
                    requirement(
                        "large.mbps",
                        CmpOp::Ge,
                        Quantity::BytesPerSec(1.5 * 1073741824.0),
                    ),
                ],
            },
        ),
        (
            "detailed",
            Scenario {
                name: "oltp-with-scans",
                description: "70/30 OLTP mix against sequential 1 MiB scans, every combination (RAID 0 over two LUNs)",
                command: &[
                    "rigel",
                    "orion",
                    "-run",
                    "normal",
                    "-testname",
                    "mixed",
                    "-type",
                    "seq",
                    "-simulate",
                    "raid0",
                    "-write",
                    "30",
                ],
                targets: vec![("/dev/sdb", 536870912000), ("/dev/sdc", 536870912000)],
                layout: Layout::Raid0,
                shape: MatrixShape::Detailed,
                classes: vec![small(70), large(Access::Sequential)],
                points: detailed,
                finished: 14,
                failed: vec![9],
                duration_s: 3,
                started: "2026-11-30T08:05:41+00:00",
                expect: vec![],
            },
        ),
    ]
}
