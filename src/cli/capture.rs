//! `rigel capture` and `rigel derive`: a device's requests into a trace folder, and the spec that
//! reproduces them.

use super::args::{CaptureArgs, DeriveArgs};
use super::exit;
use super::style::{note, outln};
use rigel_expr::units;
use rigel_trace::{CaptureOptions, Trace, TraceError, folder};

pub fn capture(a: &CaptureArgs) -> i32 {
    // A bare number is seconds, as `run.duration` takes one.
    let parsed = match a.duration.trim().parse::<u64>() {
        Ok(secs) => Ok(std::time::Duration::from_secs(secs)),
        Err(_) => rigel_expr::parse_duration(&a.duration),
    };
    let duration = match parsed {
        Ok(d) if !d.is_zero() => d,
        Ok(_) => return usage("--duration must be above 0"),
        Err(e) => return usage(&format!("--duration {:?}: {}", a.duration, e.message)),
    };
    let buffer = match rigel_expr::parse_size(&a.buffer) {
        Ok(s) if s.0 >= 4096 => s.0 / 1024,
        Ok(_) => return usage("--buffer must be at least 4KiB"),
        Err(e) => return usage(&format!("--buffer {:?}: {}", a.buffer, e.message)),
    };
    let result = match (&a.import, &a.device) {
        (Some(file), _) => import(file, a),
        (None, Some(path)) => {
            let dev = match rigel_trace::BlockDevice::open(path) {
                Ok(d) => d,
                Err(e) => return failed(&e),
            };
            note(format!(
                "capturing {} for {} into {} (Ctrl-C ends it early)",
                path.display(),
                units::duration(duration),
                a.out.display()
            ));
            for name in rigel_trace::tracefs::remove_stale_instances() {
                note(format!(
                    "removed the tracefs instance {name}: its capture had ended without \
                     removing it (killed), leaving it tracing with its buffers allocated"
                ));
            }
            let opts = CaptureOptions {
                duration,
                buffer_kib: buffer,
            };
            folder::capture_into(&dev, &opts, &a.out)
        }
        (None, None) => return usage("name a DEVICE to capture, or --import FILE"),
    };
    match result {
        Ok((path, trace)) => {
            summary(&trace);
            outln!("{}", path.display());
            if a.to_spec {
                return derive_dir(&a.out);
            }
            exit::OK
        }
        Err(e) => failed(&e),
    }
}

fn import(
    file: &std::path::Path,
    a: &CaptureArgs,
) -> Result<(std::path::PathBuf, Trace), TraceError> {
    let text = rigel_trace::import::read_text(file)?;
    let trace = rigel_trace::import::import(file, &text)?;
    Ok((folder::save(&a.out, &trace)?, trace))
}

fn summary(t: &Trace) {
    let h = &t.header;
    note(format!(
        "{} requests over {} ({} without a completion)",
        units::thousands(h.records as f64),
        units::seconds(h.duration_ns as f64 / 1e9),
        h.incomplete
    ));
    if h.dropped > 0 {
        eprintln!(
            "warning: the kernel's trace buffer overflowed: {} events lost, the trace has holes \
             (a larger --buffer, or a shorter capture)",
            h.dropped
        );
    } else if h.source == "tracefs" {
        note("0 events dropped");
    }
    if let Some(c) = &h.cost {
        note(format!(
            "capture cost: {:.3} CPU s ({:.2}% of one CPU) for {} events",
            c.cpu_seconds,
            c.cpu_share * 100.0,
            units::thousands(c.events as f64)
        ));
    }
}

pub fn derive(a: &DeriveArgs) -> i32 {
    derive_dir(&a.dir)
}

fn derive_dir(dir: &std::path::Path) -> i32 {
    match folder::derive(dir) {
        Ok(d) => {
            for c in &d.stats.classes {
                note(format!(
                    "class {}: {} requests",
                    c.name,
                    units::thousands(c.count() as f64)
                ));
            }
            note(format!("report: {}", d.report.display()));
            outln!("{}", d.spec.display());
            exit::OK
        }
        Err(e) => failed(&e),
    }
}

fn usage(msg: &str) -> i32 {
    eprintln!("rigel capture: {msg}");
    exit::BAD_SPEC
}

pub(super) fn failed(e: &TraceError) -> i32 {
    eprintln!("rigel: {e}");
    match e {
        TraceError::Import { .. }
        | TraceError::Usage(_)
        | TraceError::Format(_)
        | TraceError::Generated { .. } => exit::BAD_SPEC,
        _ => exit::RUNTIME,
    }
}
