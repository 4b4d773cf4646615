//! ORION's command line, read by hand: its long options take one dash (`-run simple`), which clap
//! does not parse well. rigel's own extensions take two (`--plan`).

use super::OrionError;
use super::options::{LargeType, Matrix, OrionOptions, RunLevel, Simulate};
use rigel_expr::suggest::{did_you_mean, did_you_mean_spelt};
use rigel_plan::limits;

/// What the command line asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Parsed {
    Help,
    Run(Box<OrionOptions>),
}

/// ORION's options, as its help lists them.
pub const ORION_OPTIONS: [&str; 20] = [
    "run",
    "testname",
    "num_disks",
    "size_small",
    "size_large",
    "type",
    "num_streamIO",
    "simulate",
    "stripe",
    "write",
    "cache_size",
    "duration",
    "matrix",
    "num_small",
    "num_large",
    "verbose",
    "help",
    "hugenotneeded",
    "storax",
    "h",
];

/// rigel's extensions.
pub const EXTENSIONS: [&str; 8] = [
    "allow-destructive",
    "force",
    "plan",
    "to-spec",
    "dialect",
    "metrics",
    "metrics-push",
    "help",
];

/// Parses the arguments after `rigel orion`.
pub fn parse<S: AsRef<str>>(args: &[S]) -> Result<Parsed, OrionError> {
    let mut o = OrionOptions::new(RunLevel::Simple);
    let mut run = None;
    let mut seen: Vec<String> = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_ref();
        i += 1;
        if let Some(name) = arg.strip_prefix("--") {
            if name == "help" {
                return Ok(Parsed::Help);
            }
            extension(name, arg, &mut o, args, &mut i)?;
            continue;
        }
        let Some(name) = arg.strip_prefix('-').filter(|n| !n.is_empty()) else {
            return Err(OrionError::NotAnOption { arg: arg.into() });
        };
        let Some(name) = ORION_OPTIONS
            .iter()
            .find(|o| o.eq_ignore_ascii_case(name))
            .copied()
        else {
            return Err(unknown(arg, name));
        };
        if seen.iter().any(|s| s == name) {
            return Err(OrionError::Twice {
                option: format!("-{name}"),
            });
        }
        seen.push(name.to_owned());
        match name {
            "help" | "h" => return Ok(Parsed::Help),
            "verbose" => o.verbose = true,
            "hugenotneeded" => o.ignored.push("-hugenotneeded".into()),
            "storax" => {
                // ORION names its I/O library here; rigel always uses io_uring.
                let mut note = "-storax".to_owned();
                if let Some(v) = args.get(i).map(AsRef::as_ref)
                    && !v.starts_with('-')
                {
                    note = format!("-storax {v}");
                    i += 1;
                }
                o.ignored.push(note);
            }
            _ => {
                let value = value_of(name, args, &mut i)?;
                set(name, value, &mut o, &mut run)?;
            }
        }
    }
    o.run = run.ok_or(OrionError::NoRun)?;
    super::rules::check(&o)?;
    Ok(Parsed::Run(Box::new(o)))
}

/// The arguments without rigel's extensions: ORION's own command line, as ORION would have had it.
pub fn orion_args<S: AsRef<str>>(args: &[S]) -> Vec<String> {
    let mut out = Vec::new();
    let mut skip_value = false;
    for a in args.iter().map(AsRef::as_ref) {
        if std::mem::take(&mut skip_value) {
            continue;
        }
        if a.starts_with("--") {
            skip_value = a == "--dialect";
            continue;
        }
        out.push(a.to_owned());
    }
    out
}

fn unknown(arg: &str, name: &str) -> OrionError {
    let mut hint = did_you_mean_spelt("-", name, ORION_OPTIONS);
    if hint.is_none() && EXTENSIONS.contains(&name) {
        hint = Some(format!("rigel's own options take two dashes: --{name}"));
    }
    OrionError::UnknownOption {
        option: arg.into(),
        hint: hint.or_else(|| Some("`rigel orion -help` lists the options".into())),
    }
}

fn extension<S: AsRef<str>>(
    name: &str,
    arg: &str,
    o: &mut OrionOptions,
    args: &[S],
    i: &mut usize,
) -> Result<(), OrionError> {
    let flag = match name {
        "allow-destructive" => &mut o.ext.allow_destructive,
        "force" => &mut o.ext.force,
        "plan" => &mut o.ext.plan,
        "to-spec" => &mut o.ext.to_spec,
        "dialect" => {
            let value = value_of("-dialect", args, i)?;
            let dialect = value.parse().map_err(|e: String| OrionError::BadValue {
                option: arg.into(),
                value: value.into(),
                expected: e,
            })?;
            o.ext.dialect = Some(dialect);
            return Ok(());
        }
        "metrics" => {
            o.ext.metrics = Some(value_of("-metrics", args, i)?.to_owned());
            return Ok(());
        }
        "metrics-push" => {
            o.ext.metrics_push = Some(value_of("-metrics-push", args, i)?.to_owned());
            return Ok(());
        }
        _ => {
            let single = ORION_OPTIONS.iter().find(|n| n.eq_ignore_ascii_case(name));
            let hint = match single {
                Some(n) => Some(format!("ORION's options take one dash: -{n}")),
                None => did_you_mean_spelt("--", name, EXTENSIONS)
                    .or_else(|| Some("`rigel orion -help` lists the options".into())),
            };
            return Err(OrionError::UnknownOption {
                option: arg.into(),
                hint,
            });
        }
    };
    *flag = true;
    Ok(())
}

fn value_of<'a, S: AsRef<str>>(
    name: &str,
    args: &'a [S],
    i: &mut usize,
) -> Result<&'a str, OrionError> {
    match args.get(*i).map(AsRef::as_ref) {
        Some(v) if !v.starts_with('-') || v.parse::<i64>().is_ok() => {
            *i += 1;
            Ok(v)
        }
        _ => Err(OrionError::MissingValue {
            option: format!("-{}", name.trim_start_matches('-')),
            expected: expected_of(name),
        }),
    }
}

fn expected_of(name: &str) -> &'static str {
    match name {
        "run" => "simple, normal, advanced, dss or oltp",
        "testname" => "a name (ORION reads <name>.lun and prefixes its files with it)",
        "type" => "rand or seq",
        "simulate" => "concat or raid0",
        "matrix" => "basic, detailed, point, col, row or max",
        "size_small" | "size_large" | "stripe" => "a size in KiB, e.g. 8",
        "write" => "a percent of writes, 0 to 100",
        "cache_size" => "a size in MiB (0: no cache warm-up)",
        "duration" => "seconds per data point, e.g. 60",
        "-dialect" => "11.1 or 12c",
        "-metrics" => "HOST:PORT to serve live metrics on, e.g. 127.0.0.1:9464",
        "-metrics-push" => "a file to append live metrics to once a second",
        _ => "a whole number",
    }
}

fn set(
    name: &str,
    v: &str,
    o: &mut OrionOptions,
    run: &mut Option<RunLevel>,
) -> Result<(), OrionError> {
    match name {
        "run" => *run = Some(pick(name, v, &RunLevel::ALL.map(|r| (r.name(), r)))?),
        "testname" if v.is_empty() => return Err(bad(name, v, "a name that is not empty")),
        "testname" => o.testname = Some(v.into()),
        "num_disks" => o.num_disks = Some(number(name, v, 1, MAX_DISKS)? as u32),
        "size_small" => o.size_small = Some(number(name, v, 1, MAX_SIZE_KIB)?),
        "size_large" => o.size_large = Some(number(name, v, 1, MAX_SIZE_KIB)?),
        "type" => {
            let types = [("rand", LargeType::Rand), ("seq", LargeType::Seq)];
            o.large_type = Some(pick(name, v, &types)?);
        }
        "num_streamIO" => o.num_stream_io = Some(number(name, v, 1, MAX_LOAD)? as u32),
        "simulate" => {
            let kinds = [("concat", Simulate::Concat), ("raid0", Simulate::Raid0)];
            o.simulate = Some(pick(name, v, &kinds)?);
        }
        "stripe" => o.stripe = Some(number(name, v, 1, MAX_SIZE_KIB)?),
        "write" => o.write = Some(number(name, v, 0, 100)? as u8),
        "cache_size" => o.cache_size = Some(number(name, v, 0, MAX_CACHE_MIB)?),
        "duration" => o.duration = Some(number(name, v, 1, MAX_DURATION_S)?),
        "matrix" => o.matrix = Some(pick(name, v, &Matrix::ALL.map(|m| (m.name(), m)))?),
        "num_small" => o.num_small = Some(number(name, v, 0, MAX_LOAD)? as u32),
        "num_large" => o.num_large = Some(number(name, v, 0, MAX_LOAD)? as u32),
        _ => unreachable_option(name)?,
    }
    Ok(())
}

/// Loads ORION derives from `-num_disks` (up to 20 × disks) stay within what rigel keeps in flight;
/// rigel's limit on targets in one volume.
pub const MAX_DISKS: u64 = limits::MAX_TARGETS;
/// rigel's limit on outstanding I/Os per class at one point.
pub const MAX_LOAD: u64 = limits::MAX_OUTSTANDING;
/// rigel's largest I/O (1 GiB), in KiB.
pub const MAX_SIZE_KIB: u64 = limits::MAX_IO_SIZE >> 10;
/// The cache that warms up within rigel's longest warm-up (a day at the assumed warm-up rate).
pub const MAX_CACHE_MIB: u64 = limits::MAX_DURATION.as_secs() * super::to_spec::WARMUP_MIB_PER_S;
/// rigel's longest point (a day), in seconds.
pub const MAX_DURATION_S: u64 = limits::MAX_DURATION.as_secs();

fn unreachable_option(name: &str) -> Result<(), OrionError> {
    Err(OrionError::UnknownOption {
        option: format!("-{name}"),
        hint: None,
    })
}

fn bad(name: &str, v: &str, expected: impl Into<String>) -> OrionError {
    OrionError::BadValue {
        option: format!("-{name}"),
        value: v.into(),
        expected: expected.into(),
    }
}

fn pick<T: Copy>(name: &str, v: &str, choices: &[(&str, T)]) -> Result<T, OrionError> {
    if let Some((_, t)) = choices.iter().find(|(n, _)| n.eq_ignore_ascii_case(v)) {
        return Ok(*t);
    }
    let names: Vec<&str> = choices.iter().map(|(n, _)| *n).collect();
    let mut expected = one_of(&names);
    if let Some(h) = did_you_mean(&v.to_ascii_lowercase(), names.iter().copied()) {
        expected = format!("{expected}; {h}");
    }
    Err(bad(name, v, expected))
}

fn one_of(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => (*one).to_owned(),
        [rest @ .., last] => format!("one of {}, or {last}", rest.join(", ")),
    }
}

fn number(name: &str, v: &str, min: u64, max: u64) -> Result<u64, OrionError> {
    let range = format!("a whole number from {min} to {max}");
    let what = match name {
        "size_small" | "size_large" | "stripe" => format!("{range} (KiB)"),
        "cache_size" => format!("{range} (MiB)"),
        "duration" => format!("{range} (seconds)"),
        "write" => format!("{range} (percent)"),
        _ => range,
    };
    match v.parse::<u64>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        _ => Err(bad(name, v, what)),
    }
}
