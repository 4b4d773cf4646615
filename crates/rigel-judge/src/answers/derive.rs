//! The answers a spec without `[answers]` gets, from its classes by what they are: a search its
//! answer; ORION's shapes (classes named `small` and `large`) ORION's own three lines, of the
//! classes that run at some point; otherwise per class, in the order written, a committing class
//! its commit p99 and a log writer (write-only, sequential, at most 128 KiB) its write p99, both at
//! the highest load of the other classes (the worst of equals); a class of large or sequential I/O
//! its MB/s; any other its IOPS (held at one load while others rise: under their highest load, else
//! its maximum). A class is the size most of its I/Os take (`8KiB:95%, 1MiB:5%` is an 8 KiB class),
//! never its mean.

use rigel_expr::Access;
use rigel_plan::{AnswerAt, AnswerPlan, IoClass, RunPlan};
use rigel_results::SearchRecord;

/// A class whose most common I/O is at least this large reads as a throughput class (MB/s).
const LARGE_IO_FROM: u64 = 128 * 1024;
/// A write-only sequential class of at most this size is a log writer.
const LOG_WRITE_UP_TO: u64 = 128 * 1024;

/// The answers of a plan without `[answers]`; `search` is the run's search record, if any.
pub fn derived(plan: &RunPlan, search: Option<&SearchRecord>) -> Vec<AnswerPlan> {
    if let Some(s) = search {
        return vec![answer(
            &format!("Highest {} with {}", s.knob, s.target),
            "",
            AnswerAt::Search,
            Vec::new(),
            String::new(),
        )];
    }
    if plan.orion_shaped() {
        // A class at load 0 in every point (dss's small, oltp's large) has no line, as in
        // ORION's summary: a line saying "no point counts: each failed" would blame the storage.
        let has = |n: &str| {
            plan.points
                .iter()
                .flat_map(|p| p.classes.iter())
                .any(|c| c.class == n && c.load > 0)
        };
        let mut out = Vec::new();
        if has("small") {
            out.push(answer(
                "Max IOPS",
                "small.iops",
                AnswerAt::Best,
                Vec::new(),
                "ORION's maximum small-I/O IOPS".to_owned(),
            ));
        }
        if has("large") {
            out.push(answer(
                "Max MiB/s",
                "large.mbps",
                AnswerAt::Best,
                Vec::new(),
                "ORION's maximum large-I/O MB/s".to_owned(),
            ));
        }
        if has("small") {
            out.push(answer(
                "Min mean latency",
                "small.latency.mean",
                AnswerAt::Best,
                Vec::new(),
                "ORION's minimum small-I/O mean latency".to_owned(),
            ));
        }
        return out;
    }
    per_class(plan)
}

/// Each class's answer by what it is (the rule after a search and ORION's shapes).
pub fn per_class(plan: &RunPlan) -> Vec<AnswerPlan> {
    plan.classes
        .iter()
        .map(|c| {
            let mut a = of_class(plan, c);
            // A swept size is a question per size: the best or worst of several sizes answers none.
            if swept_size(plan, &c.name) {
                a.per = Some(format!("{}.size", c.name));
            }
            a
        })
        .collect()
}

/// Whether the class runs at more than one size over the plan's points (`[sweep] "log.size"`).
fn swept_size(plan: &RunPlan, class: &str) -> bool {
    let mut sizes: Vec<u64> = plan
        .points
        .iter()
        .flat_map(|p| p.classes.iter())
        .filter(|c| c.class == class)
        .map(|c| c.pattern.common_size(c.size))
        .collect();
    sizes.sort_unstable();
    sizes.dedup();
    sizes.len() > 1
}

fn of_class(plan: &RunPlan, c: &IoClass) -> AnswerPlan {
    let others: Vec<String> = plan
        .classes
        .iter()
        .filter(|o| o.name != c.name)
        .map(|o| o.name.clone())
        .collect();
    let size = c.pattern.common_size(c.size);
    let what = format!(
        "{} {}",
        rigel_expr::Size(size),
        match c.access {
            Access::Random => "random",
            Access::Sequential => "sequential",
        }
    );
    let under = if others.is_empty() {
        format!("at the highest load of {}", c.name)
    } else {
        format!("under the highest load of {}", others.join(" + "))
    };
    if c.pattern.flush.is_some() {
        return answer(
            &format!("Commit p99 (write + flush) of {}", c.name),
            &format!("{}.commit.latency.p99", c.name),
            AnswerAt::HighestLoad,
            others.clone(),
            format!("How long does a commit of {} take {under}?", c.name),
        );
    }
    let writes_only = c.mix.read_percent == 0;
    if writes_only && c.access == Access::Sequential && size <= LOG_WRITE_UP_TO {
        return answer(
            &format!("Write p99 of {}", c.name),
            &format!("{}.write.latency.p99", c.name),
            AnswerAt::HighestLoad,
            others.clone(),
            format!("How long does a {what} write of {} take {under}?", c.name),
        );
    }
    let (figure, unit) = if c.access == Access::Sequential || size >= LARGE_IO_FROM {
        (format!("{}.mbps", c.name), "MiB/s")
    } else {
        (format!("{}.iops", c.name), "IOPS")
    };
    // A class held at one load beside others that rise (oracle/oltp's scan beside its data) is
    // asked what it keeps under their load, not at the quietest point; a class whose own load
    // rises is asked its maximum.
    if held(plan, &c.name) && !others.is_empty() {
        return answer(
            &format!("{unit} of {}", c.name),
            &figure,
            AnswerAt::HighestLoad,
            others.clone(),
            format!("What {unit} does {} ({what}) keep {under}?", c.name),
        );
    }
    answer(
        &format!("Max {unit} of {}", c.name),
        &figure,
        AnswerAt::Best,
        Vec::new(),
        format!("How many {unit} does {} ({what}) reach?", c.name),
    )
}

/// Whether `class` runs at one load in every point it runs in while another class's load changes.
fn held(plan: &RunPlan, class: &str) -> bool {
    let loads = |name: &str| {
        let mut l: Vec<u32> = plan
            .points
            .iter()
            .flat_map(|p| p.classes.iter())
            .filter(|c| c.class == name && c.load > 0)
            .map(|c| c.load)
            .collect();
        l.sort_unstable();
        l.dedup();
        l.len()
    };
    loads(class) == 1
        && plan
            .classes
            .iter()
            .any(|o| o.name != class && loads(&o.name) > 1)
}

fn answer(
    name: &str,
    figure: &str,
    at: AnswerAt,
    load: Vec<String>,
    question: String,
) -> AnswerPlan {
    AnswerPlan {
        name: name.to_owned(),
        question,
        figure: figure.to_owned(),
        at,
        load,
        per: None,
        when: None,
    }
}
