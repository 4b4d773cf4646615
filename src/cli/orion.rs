//! `rigel orion …`: ORION's own command line. The options become a spec (`rigel_orion`), the spec
//! runs through the same loop as `rigel run`, and the results come out as ORION's files in the
//! current directory, with ORION's console lines. The run folder goes beside them, in
//! `<prefix>.rigel/`, with rigel's own reports.

use super::args::ColorChoice;
use super::run;
use super::style::outln;
use super::{exit, plan_table, specs, summary};
use clap::ValueEnum;
use rigel_orion::{self as orion, LunFault, OrionError, OrionJob, OrionOptions, Parsed};
use rigel_plan::RunPlan;
use rigel_report::{self as report, Dialect, Format, ReportOptions};
use rigel_results::ResultsDoc;
use rigel_runner::metrics::MetricsOptions;
use rigel_runner::{self as runner, Job};
use rigel_target::{Consent, TargetError};
use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};

/// rigel's global options, accepted anywhere among ORION's (`rigel orion -run simple -q`), as the
/// man page's synopsis shows them; the rest are ORION's.
struct Globals {
    quiet: bool,
    color: Option<ColorChoice>,
    /// `--engine NAME`: every class's engine (ORION has no such option: `auto` without it).
    engine: Option<rigel_spec::Engine>,
    /// `--by NAME`: who measures, for the sign-off (default: RIGEL_BY).
    by: Option<String>,
    rest: Vec<String>,
}

fn globals(args: Vec<String>) -> Result<Globals, String> {
    let mut g = Globals {
        quiet: false,
        color: None,
        engine: None,
        by: None,
        rest: Vec::new(),
    };
    let mut it = args.into_iter();
    while let Some(a) = it.next() {
        let when = match a.as_str() {
            "-q" | "--quiet" => {
                g.quiet = true;
                continue;
            }
            "--engine" => {
                let names = rigel_spec::Engine::NAMES.join(", ");
                let name = it
                    .next()
                    .ok_or_else(|| format!("--engine needs a value: {names}"))?;
                g.engine = Some(
                    rigel_spec::Engine::from_name(&name)
                        .ok_or_else(|| format!("--engine {name}: expected {names}"))?,
                );
                continue;
            }
            "--by" => {
                g.by = Some(it.next().ok_or("--by needs a value: who measures")?);
                continue;
            }
            "--color" => it
                .next()
                .ok_or("--color needs a value: auto, always or never")?,
            _ => match a.strip_prefix("--color=") {
                Some(w) => w.to_owned(),
                None => {
                    g.rest.push(a);
                    continue;
                }
            },
        };
        g.color = Some(
            ColorChoice::from_str(&when, true)
                .map_err(|_| format!("--color {when}: expected auto, always or never"))?,
        );
    }
    Ok(g)
}

/// The arguments after `rigel orion`; `quiet` and `color` are what `rigel -q --color … orion` said.
pub fn main(args: &[OsString], quiet: bool, color: ColorChoice) -> i32 {
    let Some(args) = args
        .iter()
        .map(|a| a.to_str().map(str::to_owned))
        .collect::<Option<Vec<String>>>()
    else {
        eprintln!("rigel orion: the arguments must be valid UTF-8");
        return exit::BAD_SPEC;
    };
    let (args, engine, by) = match globals(args) {
        Ok(g) => {
            super::style::init(quiet || g.quiet, g.color.unwrap_or(color));
            (g.rest, g.engine, g.by)
        }
        Err(e) => {
            eprintln!("rigel orion: {e}");
            return exit::BAD_SPEC;
        }
    };
    let options = match orion::parse(&args) {
        Ok(Parsed::Help) => {
            outln!("{}", HELP.trim_end());
            return exit::OK;
        }
        Ok(Parsed::Run(o)) => *o,
        Err(e) => return usage(&e),
    };
    for note in &options.ignored {
        let why = if note.starts_with("-hugenotneeded") {
            "rigel allocates no HugePages"
        } else {
            "rigel does its I/O through its own engine (--engine)"
        };
        super::style::note(format!(
            "{note} is accepted for ORION's scripts and has no effect: {why}"
        ));
    }
    let cwd = match std::env::current_dir() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("rigel orion: cannot read the current directory: {e}");
            return exit::RUNTIME;
        }
    };
    let command = shell_join(&orion::orion_args(&args));
    let job = match orion::prepare(options, &cwd, &command) {
        Ok(job) => job,
        Err(e) => return usage(&e),
    };
    if job.options.ext.to_spec {
        outln!("{}", job.spec_toml.trim_end());
        return exit::OK;
    }
    let (loaded, plan) =
        match specs::compile_written(job.options.testname(), &job.spec_toml, engine) {
            Ok(p) => p,
            Err(code) => return code,
        };
    let o = &job.options;
    if o.write_percent() > 0 {
        eprintln!(
            "WARNING: -write {} writes to every LUN in {}: the data on them is destroyed.",
            o.write_percent(),
            job.luns.name
        );
    }
    if o.ext.plan {
        return print_plan(&plan, o);
    }
    if let Err(e) = job.check_write_consent() {
        return usage(&e);
    }
    // The spec ORION's options make, its sha256 and who ran it, as `rigel run` records them: the
    // sign-off names them whichever way the run was started.
    let mut provenance = specs::provenance(&loaded);
    provenance.spec.source = format!("rigel orion {command}");
    if let Some(by) = by.map(|b| b.trim().to_owned()).filter(|b| !b.is_empty()) {
        provenance.measured_by = Some(by);
    }
    calibrate(&job, loaded.resolved_toml, plan, &cwd, provenance)
}

fn usage(e: &OrionError) -> i32 {
    eprintln!("rigel orion: {e}");
    exit::BAD_SPEC
}

/// `--plan`: the plan as `rigel plan` shows it, with its warnings (a missing LUN), then ORION's
/// count and estimate. No I/O.
fn print_plan(plan: &RunPlan, o: &OrionOptions) -> i32 {
    specs::warn_targets(plan);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let written = plan_table::write(&mut out, plan)
        .and_then(|_| writeln!(out))
        .and_then(|_| writeln!(out, "Total Data Points: {}", plan.orion_total_points))
        .and_then(|_| writeln!(out, "{}", estimate_line(plan, o)))
        .and_then(|_| out.flush());
    match written {
        Ok(()) => exit::OK,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => exit::OK,
        Err(e) => {
            eprintln!("rigel orion: cannot write the plan: {e}");
            exit::RUNTIME
        }
    }
}

fn estimate_line(plan: &RunPlan, o: &OrionOptions) -> String {
    let minutes = orion::estimate_minutes(plan.orion_total_points, o.duration_s());
    format!("Calibration will take approximately {minutes} minutes.")
}

/// Which of ORION's own wordings a target error takes (rigel-orion words them without knowing the
/// target layer's error).
fn lun_fault(e: &TargetError) -> LunFault {
    match e {
        TargetError::Missing { .. } | TargetError::NoDevice { .. } => LunFault::Missing,
        TargetError::TargetTooSmall { size, need, .. } => LunFault::TooSmall {
            size: *size,
            need: *need,
        },
        _ => LunFault::Other,
    }
}

fn dialect(o: &OrionOptions) -> Dialect {
    o.ext.dialect.unwrap_or_default()
}

/// The run: ORION's console lines, the shared loop, ORION's files, the result lines.
fn calibrate(
    job: &OrionJob,
    spec_toml: String,
    plan: RunPlan,
    cwd: &Path,
    provenance: rigel_results::Provenance,
) -> i32 {
    let o = &job.options;
    let started = runner::now();
    let prefix = prefix(o.testname(), &started);
    // ORION's line exactly (scripts match it); rigel's own version goes to stderr.
    outln!(
        "ORION: ORacle IO Numbers -- Version {}",
        dialect(o).orion_release()
    );
    super::style::note(format!(
        "rigel {} writes ORION {}'s files",
        env!("CARGO_PKG_VERSION"),
        dialect(o).name()
    ));
    outln!("{prefix}");
    outln!("{}", estimate_line(&plan, o));
    if plan.run.warmup_ms > 0 {
        outln!("Using a large value for -cache_size may take longer.");
        eprintln!(
            "rigel: with {} of warm-up before each point, about {} in all",
            plan_table::human_ms(plan.run.warmup_ms),
            plan_table::human_ms(plan.estimated_seconds * 1000)
        );
    }
    if o.verbose {
        let _ = plan_table::write(&mut std::io::stdout(), &plan);
        outln!();
    }
    let _ = std::io::stdout().flush();
    let dir = run_folder(cwd, &prefix);
    let opts = runner::Options {
        consent: Consent {
            allow_destructive: o.ext.allow_destructive,
            force: o.ext.force,
        },
        ..runner::Options::default()
    };
    let (code, ran) = run::run_job(
        Job::fresh(dir, spec_toml, plan, started).with_provenance(provenance),
        opts,
        &|e| job.luns.explain(e.path(), lun_fault(e), &e.to_string()),
        &MetricsOptions {
            listen: o.ext.metrics.clone(),
            push: o.ext.metrics_push.clone().map(PathBuf::from),
        },
    );
    let Some(ran) = ran else { return code };
    let Some(doc) = ran.doc else { return code };
    if let Err(code) = write_reports(&doc, o, cwd) {
        return code;
    }
    summary::warn(&doc, &ran.dir);
    if o.verbose {
        print_points(&doc);
    }
    let (done, all) = (doc.points().len(), doc.plan().points.len());
    if done < all {
        eprintln!(
            "{}: {} of {all} points ran; ORION's files hold those, and the run folder is {}",
            if code == run::INTERRUPTED {
                "interrupted"
            } else {
                "stopped"
            },
            done,
            ran.dir.display()
        );
    }
    code
}

/// ORION's files into the current directory, and their result lines echoed as ORION ends (the run
/// folder has its own reports already).
fn write_reports(doc: &ResultsDoc, o: &OrionOptions, cwd: &Path) -> Result<(), i32> {
    let mut opts = ReportOptions::new(cwd);
    opts.formats = vec![Format::Orion];
    opts.dialect = dialect(o);
    opts.testname = Some(o.testname().to_owned());
    // The working directory holds other runs' files: none is ever replaced.
    opts.exclusive = true;
    let written = report::render(doc, &opts).map_err(|e| {
        eprintln!("rigel orion: cannot write ORION's files: {e}");
        exit::RUNTIME
    })?;
    let summary = written
        .iter()
        .find(|p| p.to_string_lossy().ends_with("_summary.txt"));
    if let Some(text) = summary.and_then(|p| std::fs::read_to_string(p).ok()) {
        outln!();
        text.lines()
            .filter(|l| {
                ["Maximum ", "Minimum ", "Small Read ", "Small Write "]
                    .iter()
                    .any(|s| l.starts_with(s))
            })
            .for_each(|l| outln!("{l}"));
    }
    Ok(())
}

/// `-verbose`: each point's figures, after the run.
fn print_points(doc: &ResultsDoc) {
    outln!();
    for p in doc.points() {
        let figures: Vec<String> = p
            .classes
            .iter()
            .filter(|c| c.total.ios > 0)
            .map(|c| {
                format!(
                    "{} {:.0} IOPS {:.2} MBPS {:.3} usecs",
                    c.class,
                    c.total.iops,
                    c.total.mbps,
                    c.total.latency.mean_ns / 1e3
                )
            })
            .collect();
        outln!(
            "point {} ({}): {}",
            p.point.id,
            p.point.label(),
            figures.join(", ")
        );
    }
}

/// ORION's file prefix `<testname>_<yyyymmdd>_<hhmm>`, from the run's start as its header records
/// it (the report derives the same prefix from the same time).
fn prefix(testname: &str, started: &str) -> String {
    let stamp = chrono::DateTime::parse_from_rfc3339(started)
        .map(|t| t.format("%Y%m%d_%H%M").to_string())
        .unwrap_or_else(|_| chrono::Local::now().format("%Y%m%d_%H%M").to_string());
    format!("{testname}_{stamp}")
}

/// `<prefix>.rigel/`, or `<prefix>.rigel.2/`, … when a run in the same minute took it.
fn run_folder(cwd: &Path, prefix: &str) -> PathBuf {
    let first = cwd.join(format!("{prefix}.rigel"));
    if !first.exists() {
        return first;
    }
    (2u32..)
        .map(|n| cwd.join(format!("{prefix}.rigel.{n}")))
        .find(|p| !p.exists())
        .unwrap_or(first)
}

/// The command line as a shell would take it back: ORION's summary and the spec name it.
fn shell_join(args: &[String]) -> String {
    args.iter()
        .map(|a| {
            let plain = !a.is_empty()
                && a.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
            if plain {
                a.clone()
            } else {
                format!("'{}'", a.replace('\'', r"'\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

pub(super) const HELP: &str = "\
ORION: ORacle IO Numbers, as rigel runs it

  rigel orion -run LEVEL [ORION options] [rigel options]

rigel reads <testname>.lun in the current directory (one device or file per line), runs ORION's
data points through its io_uring executor, prints ORION's console lines and writes ORION's files
(<testname>_<yyyymmdd>_<hhmm>_summary.txt, _iops.csv, _mbps.csv, _lat.csv, _hist.txt, _trace.txt)
in the current directory; the run folder (<prefix>.rigel/) holds everything else.

Mandatory:
  -run LEVEL         simple: 8 KiB random small I/O alone at rising load, then 1 MiB random
                             large I/O alone (the basic matrix)
                     normal: every combination of the two (the detailed matrix)
                     oltp: small I/O alone, load up to 20 x disks, for the maximum IOPS
                     dss: large I/O alone, load up to 2 x disks, for the maximum MBPS
                     advanced: the workload the options below describe

Optional:
  -testname NAME     reads NAME.lun and prefixes the files (default: orion)
  -num_disks N       sizes the load ranges (default: the LUNs in NAME.lun)
  -duration S        seconds per data point (default 60)
  -simulate concat|raid0   how the LUNs form one volume (default concat)
  -stripe KIB        raid0 stripe depth (default 1024); each I/O size must divide it
  -write PCT         percent of writes (default 0). WARNING: destroys the data on the LUNs;
                     rigel refuses it without --allow-destructive
  -cache_size MIB    unmeasured warm-up before each point, to defeat array caches: rigel runs
                     the point's own load for MIB / 256 seconds (rounded up); 0: none;
                     unset: 10 s, at most the point's duration
  -verbose           the plan before the run, each point's figures after it
  -help              this text
  -hugenotneeded, -storax   accepted and ignored

Only with -run advanced:
  -size_small KIB    small I/O size (default 8)
  -size_large KIB    large I/O size (default 1024)
  -type rand|seq     large I/O random, or sequential streams (default rand)
  -num_streamIO N    outstanding I/Os per sequential stream (default 4; with -type seq)
  -matrix M          basic (default): the first row and column; detailed: the whole grid;
                     point: -num_small x -num_large; col: large varied, small at -num_small;
                     row: small varied, large at -num_large; max: the grid up to both
  -num_small N       with -matrix point, col or max
  -num_large N       with -matrix point, row or max (streams with -type seq)

rigel's options (two dashes):
  --plan                the plan and ORION's estimate, without any I/O
  --to-spec             the equivalent rigel spec (TOML), to keep under version control
  --allow-destructive   consent to the writes -write asks for
  --force               with --allow-destructive: write even over a filesystem signature
  --by NAME             who measures, for the report's sign-off (default: RIGEL_BY)
  --dialect 11.1|12c    ORION's file layout (default 12c: latency in microseconds)
  --metrics HOST:PORT   serve live metrics (OpenMetrics) there for the run's life
  --metrics-push FILE   append the same metrics to FILE once a second
  --engine NAME         auto (default: io_uring, or where refused libaio), io_uring, libaio
                        (ORION's own) or psync
  -q, --quiet           only errors, warnings and results: no progress, no notes
  --color WHEN          colors on stderr: auto, always or never

Examples:
  rigel orion -run simple -testname mylun
  rigel orion -run advanced -size_small 32 -size_large 1024 -type rand -matrix detailed
  rigel orion -run oltp -num_disks 4 --plan
";
