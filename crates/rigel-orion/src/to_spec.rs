//! ORION's options as a rigel spec (TOML text): the one translation `rigel orion` makes. The spec
//! then goes through the ordinary pipeline (load, compile, execute, report), and `--to-spec` prints
//! it so that an ORION habit can move into version control.
//!
//! Load levels use `orion(M)` exactly as `specs/orion/*.toml` do, with `disks` (ORION's
//! `-num_disks`, by default the number of LUNs) as a variable.

use super::lun::LunFile;
use super::options::{LargeType, Matrix, OrionOptions, RunLevel, Simulate};
use std::fmt::Write;

/// Warm-up when `-cache_size` is not given. ORION then warms the array cache for two minutes before
/// each data point, yet its own time estimate leaves that out; rigel's warm-up runs the point's own
/// load (so it also settles the device), and this much, at most one point's duration, is enough to
/// flush the caches the loads of an ORION run can reach.
pub const UNSET_WARMUP_S: u64 = 10;

/// The rate at which `-cache_size` MiB are assumed to pass during warm-up: rigel's warm-up is a time,
/// ORION's a volume of I/O, and a modest array streams this much even at ORION's lowest loads.
pub const WARMUP_MIB_PER_S: u64 = 256;

/// Seconds of unmeasured warm-up before each data point: none for `-cache_size 0`, the time to pass
/// `-cache_size` MiB at [`WARMUP_MIB_PER_S`] (rounded up), or, unset, [`UNSET_WARMUP_S`] capped at
/// the point's duration.
pub fn warmup_seconds(o: &OrionOptions) -> u64 {
    match o.cache_size {
        None => UNSET_WARMUP_S.min(o.duration_s()),
        Some(mib) => mib.div_ceil(WARMUP_MIB_PER_S),
    }
}

/// ORION's console estimate: `(Total Data Points + 1) × duration`, in minutes, rounded to the
/// nearest (simple with one disk: 8 points at 60 s → 9 minutes). Warm-up is not counted, as ORION
/// does not count its own.
pub fn estimate_minutes(total_points: u64, duration_s: u64) -> u64 {
    ((total_points + 1) * duration_s + 30) / 60
}

/// The `[matrix]` shape and the small and large load sweeps for these options.
pub fn matrix_loads(o: &OrionOptions) -> (&'static str, String, String) {
    let small_max = |k: u32| format!("orion({k} * ${{disks}})");
    let up_to = |n: Option<u32>| match n.unwrap_or(0) {
        0 => "0".to_owned(),
        n => format!("orion({n})"),
    };
    let fixed = |n: Option<u32>| n.unwrap_or(0).to_string();
    let (small_rule, large_rule) = match o.run {
        RunLevel::Oltp => (small_max(20), small_max(2)),
        _ => (small_max(5), small_max(2)),
    };
    match (o.run, o.matrix()) {
        (RunLevel::Oltp, _) => ("row", small_rule, "0".into()),
        (RunLevel::Dss, _) => ("col", "0".into(), large_rule),
        (_, Matrix::Basic) => ("basic", small_rule, large_rule),
        (_, Matrix::Detailed) => ("detailed", small_rule, large_rule),
        (_, Matrix::Point) => ("point", fixed(o.num_small), fixed(o.num_large)),
        (_, Matrix::Col) => ("col", fixed(o.num_small), large_rule),
        (_, Matrix::Row) => ("row", small_rule, fixed(o.num_large)),
        (_, Matrix::Max) => ("max", up_to(o.num_small), up_to(o.num_large)),
    }
}

fn quote(s: &str) -> String {
    toml::Value::String(s.to_owned()).to_string()
}

fn mix(write: u8) -> String {
    match write {
        0 => "read".into(),
        100 => "write".into(),
        w => format!("{w}% write"),
    }
}

/// The spec for `o` over the LUNs of `luns`. `commandline` is ORION's command line as given (it
/// becomes the description and ORION's summary names it).
pub fn to_spec(o: &OrionOptions, luns: &LunFile, commandline: &str) -> String {
    let commandline = commandline.replace(['\n', '\r'], " ");
    let mut s = String::new();
    let w = &mut s;
    // Writing into a String cannot fail; `let _` keeps the lines short.
    let _ = writeln!(w, "# rigel's equivalent of `orion {commandline}`.");
    let destructive = o.write_percent() > 0 && o.ext.allow_destructive;
    let consent = if destructive {
        " --allow-destructive"
    } else {
        ""
    };
    let _ = writeln!(
        w,
        "# Written by `rigel orion {commandline} --to-spec`; run it with `rigel run FILE{consent}`."
    );
    let _ = writeln!(w, "[spec]\nname = {}", quote(o.testname()));
    let _ = writeln!(
        w,
        "description = {}\n",
        quote(&format!("ORION {commandline}"))
    );
    let disks = o
        .num_disks
        .map_or_else(|| "targets".to_owned(), |n| n.to_string());
    let _ = writeln!(
        w,
        "[vars]\ndisks = {}    # ORION's -num_disks: sizes the load ranges (default: the number of LUNs)\n",
        quote(&disks)
    );
    let _ = writeln!(
        w,
        "# The LUNs of {} (relative paths are relative to where rigel runs).",
        luns.name
    );
    for lun in &luns.luns {
        let _ = writeln!(w, "[[target]]\npath = {}", quote(&lun.path));
        if destructive {
            let _ = writeln!(w, "destructive = true    # -write with --allow-destructive");
        }
        let _ = writeln!(w);
    }
    let layout = match o.simulate() {
        Simulate::Concat => "concat",
        Simulate::Raid0 => "raid0",
    };
    let _ = writeln!(
        w,
        "[volume]\nlayout = \"{layout}\"\nstripe = \"{}KiB\"\n",
        o.stripe_kib()
    );
    let warmup = match o.cache_size {
        None => "-cache_size unset: a short warm-up at each point's own load".to_owned(),
        Some(0) => "-cache_size 0: no warm-up".to_owned(),
        Some(m) => format!("-cache_size {m} MiB at {WARMUP_MIB_PER_S} MiB/s"),
    };
    let _ = writeln!(
        w,
        "[run]\nduration = \"{}s\"\nwarmup = \"{}s\"    # {warmup}\n",
        o.duration_s(),
        warmup_seconds(o)
    );
    let mix = mix(o.write_percent());
    let _ = writeln!(
        w,
        "[class.small]\nsize = \"{}KiB\"\naccess = \"random\"\nmix = \"{mix}\"\n",
        o.size_small_kib()
    );
    let access = match o.large_type() {
        LargeType::Rand => "random",
        LargeType::Seq => "sequential",
    };
    let _ = writeln!(
        w,
        "[class.large]\nsize = \"{}KiB\"\naccess = \"{access}\"\nmix = \"{mix}\"",
        o.size_large_kib()
    );
    if o.large_type() == LargeType::Seq {
        let _ = writeln!(w, "per_stream = {}    # -num_streamIO", o.num_stream_io());
    }
    let (shape, small, large) = matrix_loads(o);
    let _ = writeln!(
        w,
        "\n[matrix]\nshape = \"{shape}\"\nsmall = {}\nlarge = {}",
        quote(&small),
        quote(&large)
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn published_estimates() {
        assert_eq!(estimate_minutes(8, 60), 9);
        assert_eq!(estimate_minutes(18, 60), 19);
        assert_eq!(estimate_minutes(23, 60), 24);
    }

    #[test]
    fn warmup_follows_cache_size() {
        let mut o = OrionOptions::new(RunLevel::Simple);
        assert_eq!(warmup_seconds(&o), UNSET_WARMUP_S);
        o.duration = Some(3);
        assert_eq!(warmup_seconds(&o), 3);
        o.cache_size = Some(0);
        assert_eq!(warmup_seconds(&o), 0);
        o.cache_size = Some(1);
        assert_eq!(warmup_seconds(&o), 1);
        o.cache_size = Some(4096);
        assert_eq!(warmup_seconds(&o), 16);
    }

    #[test]
    fn paths_are_quoted_as_toml() {
        let luns = LunFile::parse("t.lun", "/data/a \"b\".img\n").expect("parses");
        let spec = to_spec(&OrionOptions::new(RunLevel::Simple), &luns, "-run simple");
        let loaded = rigel_spec::load(
            rigel_spec::SpecInput::Text {
                name: "t",
                text: &spec,
            },
            &[],
            1,
        )
        .expect("the spec loads");
        assert_eq!(loaded.spec.targets[0].path.value, "/data/a \"b\".img");
    }
}
