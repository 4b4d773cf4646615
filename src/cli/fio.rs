//! `rigel fio JOBFILE… [fio's options]`: fio's jobs become a spec (`rigel_fio`), the spec runs
//! through the same loop as `rigel run`, and the results come out as rigel's summary or, with
//! `--output-format=json`, as fio's JSON document.

use super::args::ColorChoice;
use super::style::outln;
use super::{exit, run, specs};
use rigel_fio::{FioError, Input};
use rigel_runner::metrics::MetricsOptions;
use rigel_runner::{self as runner, Ended, Job};
use rigel_target::Consent;
use std::ffi::OsString;
use std::path::PathBuf;

/// What the command line asked of rigel itself (the rest is fio's).
#[derive(Default)]
struct Args {
    input: Input,
    to_spec: bool,
    quiet: bool,
    help: bool,
    consent: Consent,
    out: Option<PathBuf>,
    json: bool,
    output: Option<PathBuf>,
    metrics: MetricsOptions,
}

/// rigel's options that take a value: `--opt VALUE` or `--opt=VALUE`.
const VALUED: [&str; 6] = [
    "--set",
    "--out",
    "--output",
    "--output-format",
    "--metrics",
    "--metrics-push",
];

fn parse(args: Vec<String>) -> Result<Args, String> {
    let mut a = Args::default();
    let mut it = args.into_iter();
    while let Some(arg) = it.next() {
        let (name, inline) = match arg.split_once('=') {
            Some((n, v)) if VALUED.contains(&n) => (n.to_owned(), Some(v.to_owned())),
            _ => (arg.clone(), None),
        };
        if VALUED.contains(&name.as_str()) {
            let value = match inline {
                Some(v) => v,
                None => it.next().ok_or_else(|| format!("{name} needs a value"))?,
            };
            match name.as_str() {
                "--set" => a.input.overrides.push(value),
                "--out" => a.out = Some(value.into()),
                "--output" => a.output = Some(value.into()),
                "--metrics" => a.metrics.listen = Some(value),
                "--metrics-push" => a.metrics.push = Some(value.into()),
                _ => {
                    a.json = match value.as_str() {
                        "json" => true,
                        "normal" => false,
                        other => {
                            return Err(format!(
                                "--output-format={other}: rigel writes normal (its summary) or json (fio's JSON document)"
                            ));
                        }
                    }
                }
            }
            continue;
        }
        match arg.as_str() {
            "-h" | "--help" => a.help = true,
            "-q" | "--quiet" => a.quiet = true,
            "--to-spec" => a.to_spec = true,
            "--allow-destructive" => a.consent.allow_destructive = true,
            "--force" => a.consent.force = true,
            _ if arg.starts_with("--") => a.input.options.push(arg),
            _ if arg.starts_with('-') => {
                return Err(format!(
                    "`{arg}`: fio's options are `--option=value` (rigel fio --help)"
                ));
            }
            _ => a.input.files.push(arg.into()),
        }
    }
    Ok(a)
}

/// The arguments after `rigel fio`.
pub fn main(args: &[OsString]) -> i32 {
    let Some(args) = args
        .iter()
        .map(|a| a.to_str().map(str::to_owned))
        .collect::<Option<Vec<String>>>()
    else {
        eprintln!("rigel fio: the arguments must be valid UTF-8");
        return exit::BAD_SPEC;
    };
    let a = match parse(args) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("rigel fio: {e}");
            return exit::BAD_SPEC;
        }
    };
    // fio's JSON on stdout is a document: nothing else may go there.
    super::style::init(a.quiet || (a.json && a.output.is_none()), ColorChoice::Auto);
    if a.help {
        outln!("{}", HELP.trim_end());
        return exit::OK;
    }
    let t = match rigel_fio::translate(&a.input, &|v| std::env::var(v).ok()) {
        Ok(t) => t,
        Err(e) => return usage(&e),
    };
    if a.to_spec {
        outln!("{}", t.spec_toml.trim_end());
        return exit::OK;
    }
    for note in &t.notes {
        super::style::note(note);
    }
    let (loaded, plan) = match specs::compile_written(&t.name, &t.spec_toml, None) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let dir = a.out.clone().unwrap_or_else(|| {
        let stamp = chrono::Local::now().format("%Y%m%d-%H%M%S");
        PathBuf::from("runs").join(format!("{}-{stamp}", plan.name))
    });
    let provenance = specs::provenance(&loaded);
    let mut job =
        Job::fresh(dir, loaded.resolved_toml, plan, runner::now()).with_provenance(provenance);
    if a.out.is_none() {
        job = job.with_unique_dir();
    }
    let opts = runner::Options {
        consent: a.consent,
        ..runner::Options::default()
    };
    let (code, ran) = run::run_job(job, opts, &|e| e.to_string(), &a.metrics);
    let Some(ran) = ran else { return code };
    let Some(doc) = &ran.doc else { return code };
    if !a.json {
        return run::judge(doc, &ran.dir, ran.ended == Ended::Interrupted, code, None);
    }
    let written = match &a.output {
        None => rigel_report::fio_json::document(doc).map(|text| outln!("{}", text.trim_end())),
        Some(path) => rigel_report::fio_json::write(doc, path),
    };
    if let Err(e) = written {
        eprintln!("rigel fio: cannot write fio's JSON: {e}");
        return exit::RUNTIME;
    }
    code
}

fn usage(e: &FioError) -> i32 {
    eprintln!("rigel fio: {e}");
    exit::BAD_SPEC
}

pub(super) const HELP: &str = "\
fio's jobs, run by rigel

  rigel fio JOBFILE... [--option=value...] [rigel options]

rigel reads fio job files (and fio's own --name=JOB --rw=... options, which form jobs as on fio's
command line; options before the first --name are global), translates every job into a class of
one spec, runs it through its io_uring executor and prints its summary. An option rigel does not
do is an error naming the file, line and option (exit 2); docs/fio.md lists every option.

rigel's options:
  --to-spec              print the spec (TOML) instead of running it; each value's comment
                         names the fio options it came from
  --set OPTION=VALUE     set a fio option in every job, over the files' own settings
                         (--set filename=/dev/loop0 runs a file's jobs on another device)
  --output-format json   print fio's JSON document (fio 3.x's --output-format=json) after the run
  --output FILE          write it to FILE instead of the terminal
  --out DIR              the run folder (default runs/NAME-DATE)
  --allow-destructive    consent to the writes the jobs ask for on existing files and devices
  --force                with --allow-destructive: write even over a filesystem signature
  --metrics HOST:PORT    serve live metrics (OpenMetrics) there for the run's life
  --metrics-push FILE    append the same metrics to FILE once a second
  -q, --quiet            only errors, warnings and results

Examples:
  rigel fio randread.fio --set filename=/dev/nvme1n1 --runtime=30
  rigel fio --name=r --rw=randread --bs=4k --iodepth=32 --ioengine=io_uring --direct=1 \\
            --filename=/dev/sdb --runtime=30 --time_based --output-format=json
  rigel fio jobs.fio --to-spec > jobs.toml
";
