//! Runs one data point through rigel's executor on one target and prints its result as JSON: the
//! benchmark harness (benches/run.sh) uses it to compare rigel's executor with fio on exactly one
//! workload at a time, without writing a spec per workload.
//!
//! usage: bench_point --target PATH --bs BYTES --qd N [--seq] [--buffered] [--duration-ms MS]
//!        [--warmup-ms MS] [--workers N] [--write-percent P]

use rigel::exec::{ExecTarget, PointControl, run_point_probed};
use rigel::expr::{Access, Mix};
use rigel::plan::{ClassLoad, DataPoint, Layout, RunSettings};
use rigel::target::{OpenMode, Volume, open_target, probe};
use std::os::fd::AsFd;
use std::path::Path;
use std::process::ExitCode;

struct Args {
    target: String,
    bs: u64,
    qd: u32,
    seq: bool,
    buffered: bool,
    duration_ms: u64,
    warmup_ms: u64,
    workers: u32,
    write_percent: u8,
}

fn parse() -> Result<Args, String> {
    let mut a = Args {
        target: String::new(),
        bs: 4096,
        qd: 1,
        seq: false,
        buffered: false,
        duration_ms: 5000,
        warmup_ms: 1000,
        workers: 1,
        write_percent: 0,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        let num = |v: String| v.parse::<u64>().map_err(|e| format!("{flag}: {e}"));
        match flag.as_str() {
            "--target" => a.target = value()?,
            "--bs" => a.bs = num(value()?)?,
            "--qd" => a.qd = num(value()?)? as u32,
            "--duration-ms" => a.duration_ms = num(value()?)?,
            "--warmup-ms" => a.warmup_ms = num(value()?)?,
            "--workers" => a.workers = num(value()?)? as u32,
            "--write-percent" => a.write_percent = num(value()?)?.min(100) as u8,
            "--seq" => a.seq = true,
            "--buffered" => a.buffered = true,
            _ => return Err(format!("unknown argument {flag}")),
        }
    }
    if a.target.is_empty() {
        return Err("--target is required".into());
    }
    Ok(a)
}

fn main() -> ExitCode {
    let args = match parse() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("bench_point: {e}");
            return ExitCode::from(2);
        }
    };
    let path = Path::new(&args.target);
    let mode = OpenMode {
        write: args.write_percent > 0,
        direct: !args.buffered,
        exclusive: false,
    };
    let opened = open_target(path, mode).and_then(|f| probe(path, &f).map(|p| (f, p)));
    let (file, probe) = match opened {
        Ok(x) => x,
        Err(e) => {
            eprintln!("bench_point: {e}");
            return ExitCode::from(1);
        }
    };
    let volume = Volume::new(Layout::Concat, 1 << 20, &[probe.size]);
    let targets = [ExecTarget {
        fd: file.as_fd(),
        path: &args.target,
    }];
    // Sequential: one stream carrying the whole queue depth, as fio's rw=read at iodepth=N.
    let (access, load, per_stream) = if args.seq {
        (Access::Sequential, 1, args.qd)
    } else {
        (Access::Random, args.qd, 1)
    };
    let point = DataPoint {
        id: 1,
        sweep: vec![],
        classes: vec![ClassLoad {
            class: "bench".into(),
            size: args.bs,
            access,
            mix: Mix {
                read_percent: 100 - args.write_percent,
            },
            load,
            per_stream,
            outstanding: args.qd,
        }],
    };
    let run = RunSettings {
        duration_ms: args.duration_ms,
        warmup_ms: args.warmup_ms,
        direct: !args.buffered,
        seed: 1,
        workers: args.workers,
    };
    let ctl = PointControl::new(1);
    match run_point_probed(&targets, &volume, &point, &run, &ctl) {
        Ok((result, probe)) => {
            let c = &result.classes[0];
            let out = serde_json::json!({
                "iops": c.total.iops,
                "mbps": c.total.mbps,
                "ios": c.total.ios,
                "mean_ns": c.total.latency.mean_ns,
                "p99_ns": c.total.latency.p99_ns,
                "elapsed_s": result.elapsed_s,
                "cpu_user_s": result.cpu.user_s,
                "cpu_system_s": result.cpu.system_s,
                "status": result.status,
                "batches": probe.batches,
                "fixed_buffers": probe.fixed_buffers,
                "fixed_files": probe.fixed_files,
                "ring_modes": format!("{:?}", probe.ring_modes),
                "mean_in_flight": probe.classes[0].mean_in_flight,
            });
            println!("{out}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("bench_point: {e}");
            ExitCode::from(1)
        }
    }
}
