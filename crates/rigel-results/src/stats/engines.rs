//! The engines and the placement of a run in words, as the terminal, the reports, ORION's
//! summary and `rigel compare` say them: one wording for every reader.

use crate::model::{EngineRecord, Placement, PointResult};
use rigel_expr::format_cpu_list;

/// Each class's engines over `points`, in the order first met: (class, [(engine, asked)]).
fn per_class(points: &[PointResult]) -> Vec<(String, Vec<&EngineRecord>)> {
    let mut out: Vec<(String, Vec<&EngineRecord>)> = Vec::new();
    for e in points.iter().flat_map(|p| &p.engines) {
        let at = match out.iter().position(|(c, _)| *c == e.class) {
            Some(i) => i,
            None => {
                out.push((e.class.clone(), Vec::new()));
                out.len() - 1
            }
        };
        if !out[at].1.iter().any(|r| r.name == e.name) {
            out[at].1.push(e);
        }
    }
    out
}

/// The engines that did the I/O of `points` (None for results written before engines could be
/// chosen: io_uring): `io_uring`; `libaio (auto: io_uring is refused here …)`; per class when
/// they differ, `small: psync, large: io_uring`; `io_uring or libaio` for a class whose points
/// differ (a run resumed on another host).
pub fn engines_text(points: &[PointResult]) -> Option<String> {
    let classes = per_class(points);
    let names = |rs: &[&EngineRecord]| {
        rs.iter()
            .map(|r| r.name.as_str())
            .collect::<Vec<_>>()
            .join(" or ")
    };
    let first = classes.first()?;
    let same = classes.iter().all(|(_, rs)| names(rs) == names(&first.1));
    let mut text = if same {
        names(&first.1)
    } else {
        classes
            .iter()
            .map(|(c, rs)| format!("{c}: {}", names(rs)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if let Some(why) = fallback(points) {
        text.push_str(&format!(" (auto fell back: {why})"));
    }
    if let Some(sq) = sqpoll_text(points) {
        text.push_str(&format!(", {sq}"));
    }
    Some(text)
}

/// `sqpoll: the kernel submission threads used 0.37 of the 0.56 CPU seconds measured (in the
/// CPU figures)`, over the points that had them (None: no point did).
fn sqpoll_text(points: &[PointResult]) -> Option<String> {
    let with: Vec<&PointResult> = points
        .iter()
        .filter(|p| p.cpu.sq_thread_s.is_some())
        .collect();
    if with.is_empty() {
        return None;
    }
    let sq: f64 = with.iter().filter_map(|p| p.cpu.sq_thread_s).sum();
    let all: f64 = with.iter().map(|p| p.cpu.user_s + p.cpu.system_s).sum();
    Some(format!(
        "sqpoll: the kernel submission threads used {sq:.2} of the {all:.2} CPU seconds \
         measured (counted in the CPU figures)"
    ))
}

/// Why `auto` did not get io_uring in some point of `points`, the first reason recorded.
pub fn fallback(points: &[PointResult]) -> Option<&str> {
    points
        .iter()
        .flat_map(|p| &p.engines)
        .find_map(|e| e.fallback.as_deref())
}

/// The engine names of `points`, each once, sorted (`["io_uring"]`).
pub fn engine_names(points: &[PointResult]) -> Vec<String> {
    let mut names: Vec<String> = points
        .iter()
        .flat_map(|p| &p.engines)
        .map(|e| e.name.clone())
        .collect();
    names.sort();
    names.dedup();
    names
}

/// Where the workers ran, in one line: `CPUs 1 (cpus = "1"); governor performance; nvme0n1: 2
/// queues (0-3, 4-7); SMT siblings shared` and its notes.
pub fn placement_text(p: &Placement) -> String {
    let mut parts = Vec::new();
    let mut cpus: Vec<u32> = p.worker_cpus.clone();
    cpus.sort_unstable();
    cpus.dedup();
    match (cpus.is_empty(), &p.pinned_by) {
        (false, Some(by)) => {
            parts.push(format!("workers on CPUs {} ({by})", format_cpu_list(&cpus)))
        }
        (false, None) => parts.push(format!("workers on CPUs {}", format_cpu_list(&cpus))),
        (true, Some(by)) => parts.push(format!("workers pinned by {by}")),
        (true, None) => parts.push("workers not pinned".to_owned()),
    }
    if let Some(g) = &p.governor {
        parts.push(format!("governor {g}"));
    }
    for q in &p.device_queues {
        let n = q.queues.len();
        let s = if n == 1 { "" } else { "s" };
        parts.push(format!(
            "{}: {n} hardware queue{s} ({})",
            q.device,
            q.queues.join("; ")
        ));
    }
    if p.smt_shared == Some(true) {
        parts.push("two workers shared one core's SMT siblings".to_owned());
    }
    parts.extend(p.notes.iter().cloned());
    parts.join("; ")
}

/// The placement of the run: the first point's that has one (every point's host facts are the
/// same; the workers' CPUs may differ by point only when unpinned).
pub fn placement(points: &[PointResult]) -> Option<&Placement> {
    points.iter().find_map(|p| p.placement.as_ref())
}

/// The engines of `points` as a comparison names them (`io_uring`, `io_uring and psync`);
/// results without records were taken by io_uring, the only engine then.
pub fn engines_label(points: &[PointResult]) -> String {
    let names = engine_names(points);
    if names.is_empty() {
        "io_uring".to_owned()
    } else {
        names.join(" and ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::DeviceQueues;

    fn point(engines: &[(&str, &str, Option<&str>)]) -> PointResult {
        let json = serde_json::json!({
            "point": {"id": 1, "sweep": [], "classes": []},
            "status": {"state": "ok"}, "started": "", "elapsed_s": 1.0, "classes": [],
            "cpu": {"user_s": 0.0, "system_s": 0.0},
            "window": null,
        });
        let mut p: PointResult = serde_json::from_value(json).expect("a minimal point");
        p.engines = engines
            .iter()
            .map(|(class, name, fallback)| EngineRecord {
                class: (*class).into(),
                name: (*name).into(),
                requested: "auto".into(),
                fallback: fallback.map(str::to_owned),
                options: Default::default(),
            })
            .collect();
        p
    }

    #[test]
    fn one_engine_is_named_once_and_a_fallback_says_why() {
        let both = [("small", "io_uring", None), ("large", "io_uring", None)];
        assert_eq!(engines_text(&[point(&both)]).as_deref(), Some("io_uring"));
        assert_eq!(
            engines_text(&[point(&[])]),
            None,
            "older results: none recorded"
        );
        let fell = [("small", "libaio", Some("io_uring is refused here (EPERM)"))];
        assert_eq!(
            engines_text(&[point(&fell)]).as_deref(),
            Some("libaio (auto fell back: io_uring is refused here (EPERM))")
        );
        let mixed = [("small", "psync", None), ("large", "io_uring", None)];
        assert_eq!(
            engines_text(&[point(&mixed)]).as_deref(),
            Some("small: psync, large: io_uring")
        );
        let later = [("small", "libaio", None), ("large", "io_uring", None)];
        assert_eq!(
            engines_text(&[point(&mixed), point(&later)]).as_deref(),
            Some("small: psync or libaio, large: io_uring")
        );
    }

    #[test]
    fn a_comparison_across_engines_says_so_and_old_results_count_as_io_uring() {
        let uring = [point(&[("small", "io_uring", None)])];
        let aio = [point(&[("small", "libaio", None)])];
        let old = [point(&[])];
        assert_eq!(engines_label(&uring), engines_label(&old));
        assert_eq!(engines_label(&aio), "libaio");
        let both = [point(&[
            ("small", "psync", None),
            ("large", "io_uring", None),
        ])];
        assert_eq!(engines_label(&both), "io_uring and psync");
    }

    #[test]
    fn placement_reads_as_one_line() {
        let p = Placement {
            worker_cpus: vec![5, 4],
            pinned_by: Some("the device's node 1".into()),
            device_queues: vec![DeviceQueues {
                device: "nvme0n1".into(),
                queues: vec!["0-3".into(), "4-7".into()],
            }],
            governor: Some("performance".into()),
            smt_shared: Some(false),
            notes: vec![],
        };
        assert_eq!(
            placement_text(&p),
            "workers on CPUs 4-5 (the device's node 1); governor performance; nvme0n1: 2 \
             hardware queues (0-3; 4-7)"
        );
    }
}
