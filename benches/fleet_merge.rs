//! A synthetic fleet for `rigel merge`: RANKS rank folders of POINTS points each (two classes, a
//! read-only and a 70/30 one, real HDR histograms from recorded latencies), written into DIR.
//! benches/fleet-merge.sh then times `rigel merge DIR` under /usr/bin/time -v.
//!
//! `cargo bench --bench fleet_merge -- DIR RANKS POINTS`

use rigel_record::{RunFolder, RunHeader};
use rigel_results::{ClassRecorder, CpuTime, PointResult, PointStatus, WallWindow};
use std::path::{Path, PathBuf};

/// Distinct rank folders generated; the others are copies of them with their own host name.
const VARIANTS: u32 = 8;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let [dir, ranks, points] = args.as_slice() else {
        eprintln!("usage: cargo bench --bench fleet_merge -- DIR RANKS POINTS");
        std::process::exit(2);
    };
    let (dir, ranks, points): (PathBuf, u32, u32) = (dir.into(), ranks.parse()?, points.parse()?);
    let spec = format!(
        "[spec]\nname = \"synthetic\"\n\n[[target]]\npath = \"/data/f\"\nsize = \"1GiB\"\n\n\
         [run]\nduration = \"10s\"\n\n[class.small]\nsize = \"8KiB\"\nmix = \"read\"\n\n\
         [class.mixed]\nsize = \"64KiB\"\nmix = \"70% read\"\n\n[matrix]\nshape = \"row\"\n\
         small = \"1..={}\"\nmixed = \"4\"\n",
        // The row holds the mixed class alone, then each small level with it.
        points.saturating_sub(1).max(1)
    );
    let loaded = rigel_spec::load(
        rigel_spec::SpecInput::Text {
            name: "synthetic",
            text: &spec,
        },
        &[],
        4,
    )
    .map_err(|d| format!("{:?}", d.errors))?;
    let plan = rigel_plan::compile(&loaded.spec, 4).map_err(|e| format!("{e:?}"))?;
    assert_eq!(
        plan.points.len() as u32,
        points,
        "one point per small level"
    );
    std::fs::create_dir_all(&dir)?;
    for rank in 0..ranks.min(VARIANTS) {
        let folder = rigel_fleet::rank_dir(&dir, rank);
        let header = RunHeader {
            schema_version: rigel_plan::SCHEMA_VERSION,
            rigel_version: "bench".into(),
            command: vec!["rigel".into()],
            started: "2026-12-01T00:00:00+00:00".into(),
            host: Default::default(),
            targets: Vec::new(),
            provenance: None,
            write_data: Vec::new(),
        };
        let mut run = RunFolder::create(&folder, &loaded.resolved_toml, &plan, &header)?;
        let mut rng = fastrand::Rng::with_seed(u64::from(rank));
        for (k, p) in plan.points.iter().enumerate() {
            let classes = p
                .classes
                .iter()
                .map(|c| {
                    let mut rec = ClassRecorder::new(10);
                    for i in 0..5000u64 {
                        let lat = 50_000 + rng.u64(0..200_000) * (1 + u64::from(rank));
                        rec.record(
                            rng.u8(0..100) >= c.mix.read_percent,
                            lat,
                            c.size,
                            (i / 500) as usize * rigel_results::TICKS_PER_SECOND,
                        );
                    }
                    rec.finish(
                        &c.class,
                        c.size,
                        c.outstanding,
                        c.mix.reads(),
                        c.mix.writes(),
                        10.0,
                    )
                })
                .collect();
            let start_ns = 1_800_000_000_000_000_000 + k as u64 * 11_000_000_000;
            run.append(&PointResult {
                point: p.clone(),
                status: PointStatus::Ok,
                started: "2026-12-01T00:00:00+00:00".into(),
                elapsed_s: 10.0,
                classes,
                cpu: CpuTime::default(),
                window: Some(WallWindow {
                    start_ns,
                    end_ns: start_ns + 10_000_000_000,
                }),
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
            })?;
        }
    }
    for rank in VARIANTS..ranks {
        copy_rank(&dir, rank % VARIANTS, rank)?;
    }
    rigel_fleet::write_ranks(&dir, ranks)?;
    eprintln!("{} ranks × {points} points in {}", ranks, dir.display());
    Ok(())
}

fn copy_rank(dir: &Path, from: u32, to: u32) -> std::io::Result<()> {
    let (src, dst) = (
        rigel_fleet::rank_dir(dir, from),
        rigel_fleet::rank_dir(dir, to),
    );
    std::fs::create_dir_all(&dst)?;
    for entry in std::fs::read_dir(&src)? {
        let entry = entry?;
        let name = entry.file_name();
        if name == "run.json" {
            let text = std::fs::read_to_string(entry.path())?;
            let text = text.replacen(
                "\"hostname\": \"\"",
                &format!("\"hostname\": \"node{to}\""),
                1,
            );
            std::fs::write(dst.join(&name), text)?;
        } else {
            std::fs::copy(entry.path(), dst.join(&name))?;
        }
    }
    Ok(())
}
