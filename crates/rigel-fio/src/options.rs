//! Every fio option rigel knows, in one table: translated into the spec, accepted because it does
//! not change the measurement, or refused with what to do instead. docs/fio.md is this table in
//! prose; an option in none of the three lists is refused as unknown.

/// What rigel does with a fio option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Becomes part of the spec.
    Translated,
    /// Accepted and has no effect on the measurement; the text says why.
    Ignored(&'static str),
    /// An error naming the option; the text says what to do.
    Refused(&'static str),
}

/// fio's other names for an option, and the name this table uses.
pub const ALIASES: &[(&str, &str)] = &[
    ("readwrite", "rw"),
    ("blocksize", "bs"),
    ("blocksize_range", "bsrange"),
    ("ba", "blockalign"),
    ("timeout", "runtime"),
    ("wait_for_previous", "stonewall"),
    ("rate_min", "ratemin"),
    ("iodepth_batch_submit", "iodepth_batch"),
];

pub const TRANSLATED: &[&str] = &[
    "rw",
    "rwmixread",
    "rwmixwrite",
    "bs",
    "bsrange",
    "bssplit",
    "iodepth",
    "numjobs",
    "filename",
    "directory",
    "size",
    "filesize",
    "offset",
    "nrfiles",
    "direct",
    "buffered",
    "ioengine",
    "runtime",
    "time_based",
    "ramp_time",
    "random_distribution",
    "fsync",
    "fdatasync",
    "sync",
    "rate",
    "rate_iops",
    "rate_process",
    "thinktime",
    "buffer_compress_percentage",
    "dedupe_percentage",
    "verify",
    "norandommap",
    "randrepeat",
    "randseed",
    "zonemode",
    "kb_base",
    "stonewall",
];

pub const IGNORED: &[(&str, &str)] = &[
    ("name", "a job's name names its class"),
    ("description", "text only"),
    (
        "group_reporting",
        "rigel reports each job as a class, whatever the grouping of the report",
    ),
    ("thread", "rigel's workers are threads either way"),
    ("unit_base", "output units only"),
    (
        "clat_percentiles",
        "rigel records every latency in histograms; all percentiles are kept",
    ),
    (
        "lat_percentiles",
        "rigel records every latency in histograms; all percentiles are kept",
    ),
    (
        "slat_percentiles",
        "rigel records every latency in histograms; all percentiles are kept",
    ),
    (
        "percentile_list",
        "rigel keeps whole histograms; its fio JSON lists fio's default percentiles",
    ),
    (
        "disable_lat",
        "rigel always measures latency (its clock costs little)",
    ),
    (
        "disable_clat",
        "rigel always measures latency (its clock costs little)",
    ),
    (
        "disable_slat",
        "rigel always measures latency (its clock costs little)",
    ),
    (
        "gtod_reduce",
        "rigel always measures latency (its clock costs little)",
    ),
    (
        "write_bw_log",
        "rigel keeps per-second intervals in results.json",
    ),
    (
        "write_lat_log",
        "rigel keeps per-second intervals in results.json",
    ),
    (
        "write_iops_log",
        "rigel keeps per-second intervals in results.json",
    ),
    (
        "write_hist_log",
        "rigel keeps the histograms in results.json",
    ),
    (
        "log_avg_msec",
        "rigel keeps per-second intervals in results.json",
    ),
    (
        "per_job_logs",
        "rigel keeps per-second intervals in results.json",
    ),
    ("iodepth_batch", "rigel batches its submissions itself"),
    (
        "iodepth_batch_complete",
        "rigel batches its completions itself",
    ),
    (
        "iodepth_batch_complete_min",
        "rigel batches its completions itself",
    ),
    (
        "iodepth_batch_complete_max",
        "rigel batches its completions itself",
    ),
    (
        "iodepth_low",
        "rigel refills every completion at once (closed loop)",
    ),
    (
        "registerfiles",
        "rigel registers its files with io_uring itself",
    ),
    (
        "fixedbufs",
        "rigel registers its buffers with io_uring itself",
    ),
    (
        "allow_file_create",
        "rigel creates a file target that has a size and does not exist",
    ),
    (
        "create_on_open",
        "rigel opens its targets before the measured window",
    ),
    (
        "fallocate",
        "rigel writes the files it creates in full, with random data",
    ),
    (
        "invalidate",
        "rigel's measurement starts after its own open; direct I/O bypasses the cache",
    ),
    ("exitall", "the jobs of a rigel point end together"),
    (
        "new_group",
        "fio starts a reporting group; rigel reports each job as a class",
    ),
    (
        "overwrite",
        "rigel creates its files in full before the run",
    ),
];

pub const REFUSED: &[(&str, &str)] = &[
    (
        "startdelay",
        "rigel starts the jobs of a point together: remove it, or run the jobs as separate points (stonewall)",
    ),
    (
        "loops",
        "rigel's points are timed: give runtime= and time_based",
    ),
    (
        "number_ios",
        "rigel's points are timed: give runtime= and time_based",
    ),
    (
        "io_size",
        "rigel's points are timed: give runtime= and time_based",
    ),
    (
        "io_limit",
        "rigel's points are timed: give runtime= and time_based",
    ),
    (
        "fill_device",
        "rigel's points are timed; a whole-device fill is [precondition] in a spec",
    ),
    (
        "cpus_allowed",
        "pin with `cpus` in the spec's [run] (rigel fio --to-spec, then edit)",
    ),
    (
        "cpumask",
        "pin with `cpus` in the spec's [run] (rigel fio --to-spec, then edit)",
    ),
    (
        "cpus_allowed_policy",
        "pin with `cpus` in the spec's [run] (rigel fio --to-spec, then edit)",
    ),
    (
        "numa_cpu_nodes",
        "pin with `cpus = \"node:N\"` in the spec's [run]",
    ),
    (
        "numa_mem_policy",
        "rigel allocates its buffers on the workers' node",
    ),
    ("prio", "rigel does not set I/O priorities"),
    ("prioclass", "rigel does not set I/O priorities"),
    ("cmdprio_percentage", "rigel does not set I/O priorities"),
    ("cmdprio_class", "rigel does not set I/O priorities"),
    ("cmdprio_bssplit", "rigel does not set I/O priorities"),
    ("nice", "rigel does not change its scheduling"),
    ("blockalign", "rigel aligns each I/O to its own size"),
    ("bs_unaligned", "rigel aligns each I/O to its own size"),
    (
        "ratemin",
        "rigel reports whether a rate was achieved; it does not stop a job below one",
    ),
    (
        "rate_iops_min",
        "rigel reports whether a rate was achieved; it does not stop a job below one",
    ),
    (
        "rate_cycle",
        "rigel reports whether a rate was achieved; it does not stop a job below one",
    ),
    (
        "rate_ignore_thinktime",
        "rigel's rates are open loop: a think time does not apply to them",
    ),
    (
        "latency_target",
        "use [search] in a spec: the highest load meeting a latency requirement",
    ),
    (
        "latency_window",
        "use [search] in a spec: the highest load meeting a latency requirement",
    ),
    (
        "latency_percentile",
        "use [search] in a spec: the highest load meeting a latency requirement",
    ),
    (
        "steadystate",
        "use `steady` in the spec's [run] (SNIA's rule)",
    ),
    ("ss", "use `steady` in the spec's [run] (SNIA's rule)"),
    (
        "steadystate_duration",
        "use `steady` in the spec's [run] (SNIA's rule)",
    ),
    ("ss_dur", "use `steady` in the spec's [run] (SNIA's rule)"),
    (
        "steadystate_ramp_time",
        "use `steady` in the spec's [run] (SNIA's rule)",
    ),
    ("ss_ramp", "use `steady` in the spec's [run] (SNIA's rule)"),
    (
        "steadystate_check_interval",
        "use `steady` in the spec's [run] (SNIA's rule)",
    ),
    (
        "do_verify",
        "rigel's verify checks every read of a written block, and with verify= every written block at the point's end: remove it",
    ),
    (
        "verify_backlog",
        "rigel's verify checks reads inline and every written block at the point's end: remove it",
    ),
    (
        "verify_interval",
        "rigel stamps every verify_unit (4 KiB): remove it",
    ),
    (
        "verify_pattern",
        "rigel's verify writes its own headers and checksums: remove it",
    ),
    (
        "verify_fatal",
        "a corrupted block fails the point and the run exits 6: remove it",
    ),
    (
        "verify_dump",
        "rigel names the corrupted block and offset: remove it",
    ),
    (
        "verify_async",
        "rigel's verify runs off the latency clock: remove it",
    ),
    (
        "verify_offset",
        "rigel's verify writes its own headers: remove it",
    ),
    (
        "verify_state_save",
        "rigel's journal keeps the generation map: use `journal` in the spec",
    ),
    (
        "verify_write_sequence",
        "rigel's verify tracks each block's generation: remove it",
    ),
    (
        "verify_only",
        "check a volume after a run with `rigel verify DIR`",
    ),
    (
        "buffer_pattern",
        "rigel's write data is random (or shaped by compress/dedupe): remove it",
    ),
    (
        "zero_buffers",
        "rigel's write data is random (or shaped by compress/dedupe): remove it",
    ),
    (
        "refill_buffers",
        "rigel's write data is fresh for every write already: remove it",
    ),
    (
        "scramble_buffers",
        "rigel's write data is fresh for every write already: remove it",
    ),
    (
        "dedupe_mode",
        "rigel's dedupe repeats units from a pool: remove it",
    ),
    (
        "buffer_compress_chunk",
        "rigel shapes compression in 4 KiB units: remove it",
    ),
    (
        "continue_on_error",
        "rigel fails a point on an I/O error and names it",
    ),
    (
        "ignore_error",
        "rigel fails a point on an I/O error and names it",
    ),
    (
        "file_service_type",
        "rigel lays several files out as one concat volume",
    ),
    ("openfiles", "rigel opens every target for the whole point"),
    (
        "filename_format",
        "name the files with filename= (rigel names directory= files JOB.0.N)",
    ),
    (
        "unlink",
        "rigel keeps the files it creates (delete them after the run)",
    ),
    (
        "offset_increment",
        "rigel spreads sequential streams across the region itself",
    ),
    (
        "percentage_random",
        "give the random and the sequential part a job each",
    ),
    (
        "random_generator",
        "rigel draws offsets with its own seeded generator",
    ),
    (
        "serialize_overlap",
        "rigel's verify keeps overlapping writes apart",
    ),
    ("readfua", "rigel sends no FUA reads"),
    (
        "writefua",
        "use sync=1 (durability \"dsync\": FUA where the device has it)",
    ),
    (
        "sqthread_poll",
        "rigel's io_uring engine runs without SQPOLL in a translated job",
    ),
    (
        "sqthread_poll_cpu",
        "rigel's io_uring engine runs without SQPOLL in a translated job",
    ),
    (
        "hipri",
        "rigel's io_uring engine runs without polled completions in a translated job",
    ),
    ("nonvectored", "rigel's io_uring engine uses fixed buffers"),
    ("mem", "use `buffers` in the spec's [run] (pages or huge)"),
    ("iomem", "use `buffers` in the spec's [run] (pages or huge)"),
    ("iomem_align", "rigel aligns its buffers to 4 KiB"),
    ("exec_prerun", "run the command before rigel"),
    ("exec_postrun", "run the command after rigel"),
    (
        "flow",
        "rigel runs each job at its own load: use rate= for a fixed ratio",
    ),
    (
        "thinktime_blocks",
        "rigel's think time follows every I/O: remove it",
    ),
    ("thinktime_spin", "rigel's think time sleeps: remove it"),
    (
        "thinktime_iotime",
        "rigel's think time follows every I/O: remove it",
    ),
    (
        "zonesize",
        "rigel does not drive zoned devices (zonemode=none only)",
    ),
    (
        "zonerange",
        "rigel does not drive zoned devices (zonemode=none only)",
    ),
    (
        "zoneskip",
        "rigel does not drive zoned devices (zonemode=none only)",
    ),
    (
        "max_open_zones",
        "rigel does not drive zoned devices (zonemode=none only)",
    ),
    (
        "ioscheduler",
        "set the scheduler in sysfs before the run: rigel records it",
    ),
    (
        "wait_for",
        "give the jobs to run one after another a group each (stonewall)",
    ),
    (
        "random_sequence_stride",
        "give the random and the sequential part a job each",
    ),
    ("cpuload", "rigel does not burn CPU (ioengine=cpuio)"),
    ("cpumode", "rigel does not burn CPU (ioengine=cpuio)"),
    (
        "exitall_on_error",
        "rigel fails a point on an I/O error and names it",
    ),
    ("write_barrier", "use fsync=N or sync=1"),
    (
        "end_fsync",
        "rigel times each point's writes alone: use fsync=N for flushes inside the window",
    ),
    (
        "fsync_on_close",
        "rigel times each point's writes alone: use fsync=N for flushes inside the window",
    ),
    (
        "pre_read",
        "rigel does not pre-read files into the page cache",
    ),
    (
        "lockfile",
        "rigel locks its targets against other rigel runs itself",
    ),
    ("clocksource", "rigel uses its own monotonic clock"),
    ("status_interval", "rigel shows live figures on a terminal"),
];

/// This table's name for `name` (fio's aliases mapped).
pub fn canonical(name: &str) -> &str {
    ALIASES
        .iter()
        .find(|(a, _)| *a == name)
        .map_or(name, |(_, c)| c)
}

/// What rigel does with the option `name` (after [`canonical`]); `None` for one it does not know.
pub fn kind(name: &str) -> Option<Kind> {
    if TRANSLATED.contains(&name) {
        return Some(Kind::Translated);
    }
    if let Some((_, why)) = IGNORED.iter().find(|(n, _)| *n == name) {
        return Some(Kind::Ignored(why));
    }
    REFUSED
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, hint)| Kind::Refused(hint))
}

/// Every name the table knows, for "did you mean".
pub fn all_names() -> impl Iterator<Item = &'static str> {
    TRANSLATED
        .iter()
        .copied()
        .chain(IGNORED.iter().map(|(n, _)| *n))
        .chain(REFUSED.iter().map(|(n, _)| *n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_option_has_one_kind() {
        let names: Vec<&str> = all_names().collect();
        for n in &names {
            assert_eq!(
                names.iter().filter(|m| *m == n).count(),
                1,
                "{n} listed twice"
            );
        }
        assert_eq!(kind(canonical("readwrite")), Some(Kind::Translated));
        assert!(matches!(kind("startdelay"), Some(Kind::Refused(_))));
        assert_eq!(kind("no_such_option"), None);
    }
}
