//! `rigel generate man DIR`: clap's pages (one per command) with the sections clap cannot know:
//! EXIT STATUS, ENVIRONMENT and EXAMPLES on every page, and ORION's own options on `rigel-orion.1`.

use clap_mangen::Man;
use rigel_fs::Dir;
use std::path::Path;

/// `(code, meaning)`, as `exit.rs` and the README give them.
const EXIT_STATUS: &[(&str, &str)] = &[
    (
        "0",
        "Success: the command did what was asked (every requirement met, no regression).",
    ),
    (
        "1",
        "A runtime failure: storage that cannot be opened or read, an I/O error that failed a point, a file that cannot be written.",
    ),
    (
        "2",
        "A bad spec or bad usage: a spec error (file, line, column and a hint are printed), an unknown option, a refused target.",
    ),
    (
        "3",
        "Requirements not met (a spec's [expect]), or a regression found by compare.",
    ),
    (
        "4",
        "compare --fail-inconclusive: no regression, but a figure too noisy to judge.",
    ),
    (
        "5",
        "run with [search]: the search ended with no answer (its target failed already at low, or its trials contradict each other).",
    ),
    (
        "6",
        "A data integrity failure (verify): a block read back was not what the storage had acknowledged.",
    ),
    (
        "130",
        "Interrupted (SIGINT): every finished point is kept; finish with rigel run --resume DIR.",
    ),
];

const ENVIRONMENT: &[(&str, &str)] = &[
    (
        "RIGEL_PATH",
        "A colon-separated list of folders where specs are looked up by name (acme/oltp-base is FOLDER/acme/oltp-base.toml), before the built-in specs.",
    ),
    (
        "NO_COLOR",
        "When set and not empty, no colors on stderr (--color always overrides it).",
    ),
    (
        "CLICOLOR_FORCE",
        "When set and not 0 (and NO_COLOR is not), colors on stderr even when it is not a terminal.",
    ),
    ("TERM", "dumb: no colors and no progress display."),
    (
        "RIGEL_STATE_DIR",
        "Where rigel keeps its marks of the files it created (default: $XDG_STATE_HOME/rigel, else ~/.local/state/rigel).",
    ),
    (
        "SLURM_PROCID, SLURM_NTASKS, OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_SIZE",
        "A fleet run's rank and size, from Slurm or Open MPI (see docs/fleet.md).",
    ),
];

/// Examples per page (by the command's name); `rigel` itself has the tour.
fn examples(page: &str) -> &'static [(&'static str, &'static str)] {
    match page {
        "rigel" => &[
            (
                "rigel run",
                "the built-in quick spec on a scratch file (safe)",
            ),
            (
                "rigel check specs/*.toml",
                "validate specs; exit 2 on any error",
            ),
            (
                "rigel plan specs/orion/simple.toml --set disks=4",
                "the data points and the time, before any I/O",
            ),
            (
                "rigel run my.toml --set lun=/dev/nvme1n1 --out runs/nvme1",
                "measure, into a run folder",
            ),
            (
                "rigel compare runs/before runs/after",
                "regressions; exit 3 if any",
            ),
            (
                "rigel orion -run simple -testname mylun",
                "ORION's own command line",
            ),
        ],
        "rigel-run" => &[
            (
                "rigel run oltp-70-30 --set lun=/dev/nvme1n1 --out runs/nvme1",
                "a built-in spec on a device",
            ),
            (
                "rigel run my.toml --set run.duration=10s --format html",
                "shorter points, only the HTML report",
            ),
            ("rigel run --resume runs/nvme1", "finish an interrupted run"),
        ],
        "rigel-report" => &[
            (
                "rigel report runs/nvme1",
                "render the run folder's reports again",
            ),
            (
                "rigel report runs/nvme1 --format orion --dialect 11.1",
                "ORION 11.1's files (latency in ms)",
            ),
            (
                "rigel report runs/nvme1 --template my.html.j2",
                "your own template, with the same context",
            ),
        ],
        "rigel-orion" => &[
            (
                "rigel orion -run simple -testname mylun",
                "reads mylun.lun, writes mylun_<date>_<time>_summary.txt and ORION's other files",
            ),
            (
                "rigel orion -run oltp -num_disks 4 --plan",
                "ORION's data points and estimate, without I/O",
            ),
            (
                "rigel orion -run advanced -size_large 1024 -type seq -matrix row -num_large 2 -q",
                "large streams held at 2 while small I/O rises; only results printed",
            ),
            (
                "rigel orion -run normal --to-spec > normal.toml",
                "the equivalent rigel spec",
            ),
        ],
        "rigel-compare" => &[(
            "rigel compare runs/before runs/after --format markdown",
            "a table of what changed, noise judged",
        )],
        "rigel-plan" => &[(
            "rigel plan specs/bs-qd-sweep.toml",
            "every data point and the estimated time",
        )],
        "rigel-check" => &[(
            "rigel check specs/*.toml",
            "exit 0 when all are valid, 2 otherwise",
        )],
        "rigel-specs" => &[
            ("rigel specs", "the specs found by name, where"),
            ("rigel specs orion/simple > mine.toml", "a copy to edit"),
        ],
        _ => &[],
    }
}

/// Text for roff: backslashes and hyphens escaped, no line starting with a control character.
fn roff(text: &str) -> String {
    let s = text.replace('\\', "\\e").replace('-', "\\-");
    if s.starts_with('.') || s.starts_with('\'') {
        format!("\\&{s}")
    } else {
        s
    }
}

/// The sections rigel adds to a page named `page` (`rigel-orion`).
pub fn extra_sections(page: &str, orion_help: &str) -> String {
    let mut out = String::new();
    if page == "rigel-orion" {
        out.push_str(".SH \"ORION OPTIONS\"\nORION's options, one dash each, as `rigel orion \\-help` prints them:\n.PP\n.nf\n");
        for line in orion_help.lines() {
            out.push_str(&roff(line));
            out.push('\n');
        }
        out.push_str(".fi\n");
    }
    out.push_str(".SH \"EXIT STATUS\"\n");
    for (code, meaning) in EXIT_STATUS {
        out.push_str(&format!(".TP\n\\fB{code}\\fR\n{}\n", roff(meaning)));
    }
    out.push_str(".SH ENVIRONMENT\n");
    for (name, meaning) in ENVIRONMENT {
        out.push_str(&format!(".TP\n\\fB{}\\fR\n{}\n", roff(name), roff(meaning)));
    }
    let ex = examples(page);
    if !ex.is_empty() {
        out.push_str(".SH EXAMPLES\n");
        for (cmd, what) in ex {
            out.push_str(&format!(".TP\n\\fB{}\\fR\n{}\n", roff(cmd), roff(what)));
        }
    }
    out
}

/// Every page, as clap_mangen's `generate_to` names them, with rigel's sections appended; each
/// file replaced atomically inside the folder the operator named (no link followed there).
pub fn generate(cmd: clap::Command, dir: &Path, orion_help: &str) -> std::io::Result<()> {
    fn each(cmd: clap::Command, dir: &Dir, orion_help: &str) -> std::io::Result<()> {
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()).cloned() {
            each(sub, dir, orion_help)?;
        }
        let man = Man::new(cmd);
        let name = man.get_filename();
        let page = name.trim_end_matches(".1").to_string();
        let mut text = Vec::new();
        man.render(&mut text)?;
        text.extend_from_slice(extra_sections(&page, orion_help).as_bytes());
        dir.write_atomic(&name, &text)
            .map_err(|e| std::io::Error::other(e.to_string()))
    }
    let folder = Dir::open_following(dir).map_err(|e| std::io::Error::other(e.to_string()))?;
    let mut cmd = cmd.disable_help_subcommand(true);
    cmd.build();
    each(cmd, &folder, orion_help)
}
