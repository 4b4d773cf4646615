//! A trace drawn from known statistics (a size mix, zipf θ 1.1 over a 64 MiB device, 70% reads,
//! Poisson arrivals at 5,000 a second, a flush after every 8 writes) derives a spec that states
//! them, with the spec language's fallbacks where a feature is missing.

use super::{Features, spec};
use crate::format::{Header, Op, Record, Trace};
use crate::stats::measure;
use rand_distr::Distribution as _;
use rigel_plan::fast_rng::Fast;

const DEVICE: u64 = 64 << 20;

fn trace() -> Trace {
    let blocks = DEVICE / 4096;
    let zipf = rand_distr::Zipf::new(blocks as f64, 1.1).expect("zipf");
    let mut seeded = fastrand::Rng::with_seed(3);
    let mut rng = Fast(&mut seeded);
    // Ranks scattered over the device by a fixed odd multiplier (a bijection modulo 2^k).
    let place = |rank: u64| (rank.wrapping_mul(2_654_435_761) % blocks) * 4096;
    let (mut t, mut writes, mut records) = (0f64, 0u64, Vec::new());
    for _ in 0..40_000 {
        t += -(1.0 - rng.0.f64()).ln() * 200_000.0;
        let size: u32 = match rng.0.u32(..100) {
            0..60 => 4096,
            60..90 => 16384,
            _ => 65536,
        };
        let rank: f64 = zipf.sample(&mut rng);
        let offset = place(rank as u64 - 1).min(DEVICE - u64::from(size)) / u64::from(size)
            * u64::from(size);
        let op = if rng.0.u32(..100) < 70 {
            Op::Read
        } else {
            Op::Write
        };
        let issue_ns = t as u64;
        records.push(Record {
            issue_ns,
            complete_ns: Some(issue_ns + 100_000),
            offset,
            size,
            op,
            flags: 0,
        });
        if op == Op::Write {
            writes += 1;
            if writes % 8 == 0 {
                records.push(Record {
                    issue_ns: issue_ns + 150_000,
                    complete_ns: Some(issue_ns + 160_000),
                    offset: 0,
                    size: 0,
                    op: Op::Flush,
                    flags: 0,
                });
            }
        }
    }
    records.sort_by_key(|r| r.issue_ns);
    Trace {
        header: Header {
            device: "/dev/loop9".into(),
            size: Some(DEVICE),
            records: records.len() as u64,
            complete: true,
            ..Header::default()
        },
        records,
    }
}

fn value<'a>(spec: &'a str, key: &str) -> &'a str {
    spec.lines()
        .find_map(|l| l.strip_prefix(&format!("{key} = \"")))
        .and_then(|rest| rest.split('"').next())
        .unwrap_or_else(|| panic!("no {key} in\n{spec}"))
}

#[test]
fn a_trace_of_known_statistics_derives_them() {
    let t = trace();
    let stats = measure(&t);
    let full = spec(
        &t,
        &stats,
        Features {
            size_mix: true,
            fdatasync: true,
        },
    );
    let sizes = value(&full, "size");
    // Shares within 2 points of 60/30/10.
    let shares: Vec<(String, f64)> = sizes
        .split(", ")
        .map(|p| {
            let (s, pct) = p.split_once(':').expect("SIZE:SHARE");
            (
                s.to_owned(),
                pct.trim_end_matches('%').parse().expect("a share"),
            )
        })
        .collect();
    for (size, want) in [("4KiB", 60.0), ("16KiB", 30.0), ("64KiB", 10.0)] {
        let got = shares.iter().find(|s| s.0 == size).map(|s| s.1);
        assert!(
            got.is_some_and(|g| (g - want).abs() <= 2.0),
            "{size}: {got:?} in {sizes}"
        );
    }
    let read: f64 = value(&full, "mix")
        .trim_end_matches("% read")
        .parse()
        .expect("mix");
    assert!((read - 70.0).abs() <= 1.0, "{full}");
    let theta: f64 = value(&full, "distribution")
        .strip_prefix("zipf:")
        .and_then(|x| x.parse().ok())
        .unwrap_or_else(|| panic!("{full}"));
    assert!((theta - 1.1).abs() <= 0.1, "{full}");
    assert_eq!(value(&full, "durability"), "fdatasync:8", "{full}");
    let rate: f64 = value(&full, "rate")
        .trim_end_matches(" iops")
        .parse()
        .expect("rate");
    assert!((rate - 5000.0).abs() <= 100.0, "{full}");
    assert_eq!(value(&full, "arrival"), "poisson", "{full}");
    let c = &stats.classes[0];
    let cv = c.gap_cv().expect("a CV");
    assert!((cv - 1.0).abs() <= 0.1, "CV {cv}");
    // Where the spec language lacks them: the most common size, and dsync.
    let fallback = spec(
        &t,
        &stats,
        Features {
            size_mix: false,
            fdatasync: false,
        },
    );
    assert_eq!(value(&fallback, "size"), "4KiB");
    assert_eq!(value(&fallback, "durability"), "dsync");
    assert!(fallback.contains("no group commit"), "{fallback}");
}

/// Every header field a trace's author controls, each carrying a table and a target.
const HOSTILE: &str = "x\n[[target]]\npath = \"/tmp/rigel-hostile\"\ndestructive = true\n";

#[test]
fn a_hostile_header_plans_only_the_target_variable() {
    let mut t = trace();
    t.header.device = format!("/dev/loop9{HOSTILE}");
    t.header.model = Some(HOSTILE.into());
    t.header.host = HOSTILE.into();
    t.header.kernel = format!("6.1\r{HOSTILE}");
    t.header.start = HOSTILE.into();
    t.header.source = HOSTILE.into();
    t.header.clock = HOSTILE.into();
    let stats = measure(&t);
    let text = spec(&t, &stats, Features::AVAILABLE);
    let doc: toml_edit::DocumentMut = text.parse().unwrap_or_else(|e| panic!("{e}\n{text}"));
    let targets = doc["target"].as_array_of_tables().expect("[[target]]");
    assert_eq!(targets.len(), 1, "{text}");
    assert_eq!(
        targets.get(0).and_then(|t| t["path"].as_str()),
        Some("${target}")
    );
    assert!(!text.contains("rigel-hostile\"\n"), "{text}");
    // And it loads back and compiles to that one target (the traced path, one line).
    let checked = super::checked_spec(&t, &stats, Features::AVAILABLE).expect("a checked spec");
    assert_eq!(checked, text);
}
