//! The shipped specs `shipped_answers` does not run (issue 42): each as shipped, on a loop device
//! over `/dev/shm` with 300 ms points and its sweep cut to two or three levels where a `--set`
//! can without changing its question. Every answer must come from a point that finished whole,
//! equal that point's raw figure in `results.json`, be taken at the load its rule names, and be
//! stated on page 1 of the Markdown; each test then checks what the spec's comment promises.

use super::scenario::{Run, Scenario};
use super::shipped_answers::{answers, class_at, load_of, one, point, run_shipped, summary};
use serde_json::Value;

/// `run_shipped` on one 64 MiB loop device named by `lun`, with short points and `sets`; exit 0,
/// or 3 where the spec's own `[expect]` may miss on a busy host (the answers stand either way).
fn run_on_lun(tmp: &Scenario, name: &str, sets: &[&str], codes: &[i32]) -> Run {
    let dev = tmp.loop_device(64 << 20);
    let mut all = vec![
        format!("lun={}", dev.dev()),
        "target.0.size=64MiB".to_owned(),
        "run.duration=300ms".to_owned(),
    ];
    all.extend(sets.iter().map(|s| (*s).to_owned()));
    let run = run_shipped(tmp, name, 1, &all);
    assert!(
        codes.contains(&run.output.code),
        "exit {} not in {codes:?}:\n{}\n{}",
        run.output.code,
        run.output.stdout,
        run.output.stderr
    );
    drop(dev);
    run
}

/// The raw figure `figure` (`scan.mbps`, `io.read.latency.p99`, `small.latency.mean`) at point `p`.
fn raw(p: &Value, figure: &str) -> Option<f64> {
    let parts: Vec<&str> = figure.split('.').collect();
    let c = class_at(p, parts[0]);
    let (dir, rest) = match parts[1] {
        "read" | "write" | "commit" => (&c[parts[1]], &parts[2..]),
        _ => (&c["total"], &parts[1..]),
    };
    match rest {
        ["iops"] => dir["iops"].as_f64(),
        ["mbps"] => dir["mbps"].as_f64(),
        ["latency", "p99"] => dir["latency"]["p99_ns"].as_f64(),
        ["latency", "mean"] => dir["latency"]["mean_ns"].as_f64(),
        _ => panic!("figure {figure} not read by this test"),
    }
}

/// The rules every answer keeps: from a point that finished whole, its value that point's raw
/// figure, stated on page 1 (`- **name (group): text**`). Returns the answers with a value.
fn every_answer_holds(run: &Run, doc: &Value) -> Vec<Value> {
    let page = summary(run);
    let mut given = Vec::new();
    for a in doc["answers"].as_array().expect("answers") {
        let Some(value) = a["value"].as_f64() else {
            continue;
        };
        let at = point(doc, &a["point_id"]);
        assert_eq!(at["status"]["state"], "ok", "{a:#} from a failed point");
        assert_eq!(at["partial"], Value::Null, "{a:#} from a partial point");
        let figure = a["figure"].as_str().unwrap();
        assert_eq!(
            Some(value),
            raw(&at, figure),
            "{a:#} is not its point's figure"
        );
        let class = figure.split('.').next().unwrap();
        assert_eq!(a["load"].as_u64(), Some(load_of(&at, class)), "{a:#}");
        let key = match a["group"].as_str() {
            Some(g) if !g.is_empty() => format!("{} ({g})", a["name"].as_str().unwrap()),
            _ => a["name"].as_str().unwrap().to_owned(),
        };
        let row = format!("- **{key}: {}", a["text"].as_str().unwrap());
        assert!(page.contains(&row), "page 1 lacks `{row}`:\n{page}");
        given.push(a.clone());
    }
    given
}

/// The points that count for `class` (it ran there, the point finished whole).
fn counted<'d>(doc: &'d Value, class: &str) -> Vec<&'d Value> {
    doc["points"]
        .as_array()
        .expect("points")
        .iter()
        .filter(|p| load_of(p, class) > 0 && p["status"]["state"] == "ok" && p["partial"].is_null())
        .collect()
}

/// The point of `points` with the extreme `figure` (`max` true: the highest).
fn extreme(points: &[&Value], figure: &str, max: bool) -> f64 {
    let vals = points.iter().map(|p| raw(p, figure).expect("figure"));
    if max {
        vals.fold(f64::MIN, f64::max)
    } else {
        vals.fold(f64::MAX, f64::min)
    }
}

#[test]
#[serial_test::parallel]
fn backup_stream_answers_each_sides_mbps_beside_the_other() {
    let tmp = Scenario::new();
    let src = tmp.loop_device(64 << 20);
    let dst = tmp.loop_device(64 << 20);
    let sets = vec![
        format!("source={}", src.dev()),
        format!("backup={}", dst.dev()),
        "target.0.size=64MiB".into(),
        "target.1.size=64MiB".into(),
        "run.duration=300ms".into(),
    ];
    let run = run_shipped(&tmp, "backup-stream", 2, &sets).code(0);
    let doc = run.results();
    let given = every_answer_holds(&run, &doc);
    assert_eq!(given.len(), 2, "{:#}", doc["answers"]);
    for name in ["read MB/s", "write MB/s"] {
        let a = one(&doc, name);
        let at = point(&doc, &a["point_id"]);
        // Both sides ran at the point: each figure is taken while the other runs.
        assert_eq!(
            (load_of(&at, "read"), load_of(&at, "write")),
            (4, 4),
            "{a:#}"
        );
        assert_eq!(a["unit"], "mbps");
    }
}

#[test]
#[serial_test::parallel]
fn bs_qd_sweep_answers_each_size_its_best_iops_and_deepest_p99() {
    let tmp = Scenario::new();
    let sets = ["matrix.io=1, 4", "sweep.io.size=4KiB, 64KiB"];
    let run = run_on_lun(&tmp, "bs-qd-sweep", &sets, &[0]);
    let doc = run.results();
    every_answer_holds(&run, &doc);
    for (name, size) in [("4KiB", 4096), ("64KiB", 65536)] {
        let group = format!("io.size={name}");
        let of_size: Vec<&Value> = counted(&doc, "io")
            .into_iter()
            .filter(|p| class_at(p, "io")["size"] == size)
            .collect();
        assert_eq!(of_size.len(), 2, "two depths at {name}");
        let iops = answers(&doc, "IOPS per size");
        let iops = iops
            .iter()
            .find(|a| a["group"] == group.as_str())
            .expect(&group);
        assert_eq!(
            iops["value"].as_f64(),
            Some(extreme(&of_size, "io.iops", true))
        );
        let lat = answers(&doc, "read p99 per size");
        let lat = lat
            .iter()
            .find(|a| a["group"] == group.as_str())
            .expect(&group);
        assert_eq!(lat["load"], 4, "the deepest queue: {lat:#}");
    }
}

#[test]
#[serial_test::parallel]
fn dss_scan_answers_its_best_mbps_and_the_p99_at_most_streams() {
    let tmp = Scenario::new();
    let run = run_on_lun(&tmp, "dss-scan", &["matrix.scan=1, 4"], &[0]);
    let doc = run.results();
    every_answer_holds(&run, &doc);
    let scans = counted(&doc, "scan");
    assert_eq!(scans.len(), 2);
    let mbps = one(&doc, "scan MB/s");
    assert_eq!(
        mbps["value"].as_f64(),
        Some(extreme(&scans, "scan.mbps", true))
    );
    assert_eq!(one(&doc, "scan p99 at most streams")["load"], 4);
}

#[test]
#[serial_test::parallel]
fn oltp_70_30_answers_iops_within_10ms_and_the_p99_at_each_depth() {
    let tmp = Scenario::new();
    // Its `[expect]` of 20,000 IOPS may miss on a loop device beside other tests: exit 3 then.
    let run = run_on_lun(&tmp, "oltp-70-30", &["matrix.oltp=1, 8"], &[0, 3]);
    let doc = run.results();
    every_answer_holds(&run, &doc);
    let points = counted(&doc, "oltp");
    let within = points
        .iter()
        .filter(|p| raw(p, "oltp.read.latency.p99").unwrap() <= 10e6)
        .map(|p| load_of(p, "oltp"))
        .max();
    let iops = one(&doc, "oltp IOPS");
    match within {
        Some(load) => assert_eq!(iops["load"], load, "{iops:#}"),
        None => assert_eq!(iops["value"], Value::Null, "{iops:#}"),
    }
    let groups: Vec<&str> = answers(&doc, "oltp read p99")
        .iter()
        .map(|a| a["group"].as_str().unwrap())
        .collect();
    assert_eq!(groups, ["oltp=1", "oltp=8"], "{:#}", doc["answers"]);
}

#[test]
#[serial_test::parallel]
fn preconditioned_steady_answers_the_steady_writes() {
    let tmp = Scenario::new();
    let run = run_on_lun(&tmp, "preconditioned-steady", &["run.steady.max=5s"], &[0]);
    let doc = run.results();
    let given = every_answer_holds(&run, &doc);
    for a in &given {
        let at = point(&doc, &a["point_id"]);
        assert_eq!(load_of(&at, "small"), 32, "{a:#}");
        // Measured after the rounds the steady rule ran, which the point records.
        let steady = at["steady"]["summary"].as_str().expect("the steady record");
        assert!(steady.contains("steady"), "{steady}");
    }
    let iops = one(&doc, "steady write IOPS");
    let p99 = one(&doc, "steady write p99");
    assert_eq!(iops["figure"], "small.iops");
    assert_eq!(p99["figure"], "small.write.latency.p99");
}

#[test]
#[serial_test::parallel]
fn preconditioned_steady_gives_no_steady_figure_from_a_point_never_steady() {
    let tmp = Scenario::new();
    // 1 s holds 3 rounds of 300 ms, fewer than the 5 the rule judges: the point is never steady.
    let run = run_on_lun(&tmp, "preconditioned-steady", &["run.steady.max=1s"], &[0]);
    let doc = run.results();
    for name in ["steady write IOPS", "steady write p99"] {
        let a = one(&doc, name);
        assert_eq!(a["value"], Value::Null, "{a:#}");
        let note = a["note"].as_str().unwrap();
        assert!(note.contains("never reached its steady state"), "{note}");
    }
}

#[test]
#[serial_test::parallel]
fn sla_rate_answers_the_response_p99_at_each_rate_and_says_which_it_missed() {
    let tmp = Scenario::new();
    // A rate a loop device keeps on a busy host, and one no device serves: that rate's line says
    // it was missed (no figure), not vanish. The `[expect]` of 2 ms may miss (exit 3).
    let sets = [
        "sweep.small.rate=500 iops, 50000000 iops",
        "run.duration=1s",
    ];
    let run = run_on_lun(&tmp, "sla-rate", &sets, &[0, 3]);
    let doc = run.results();
    every_answer_holds(&run, &doc);
    let got = answers(&doc, "read p99 per rate");
    let groups: Vec<&str> = got
        .iter()
        .map(|a| a["group"].as_str().unwrap_or("(no group)"))
        .collect();
    assert_eq!(
        groups,
        ["small.rate=500 iops", "small.rate=50000000 iops"],
        "{:#}",
        doc["answers"]
    );
    let (kept, missed) = (got[0], got[1]);
    assert_eq!(kept["figure"], "small.read.latency.p99");
    // The 500 reads a second are kept unless the host was too busy to send them on time (the
    // parallel tests and a build beside them: the point's own pace says so); then that line
    // says it missed its rate too, as the other's does.
    let at_500 = doc["points"]
        .as_array()
        .expect("points")
        .iter()
        .find(|p| p["point"]["classes"][0]["rate"]["iops"] == 500)
        .expect("the point at 500 IOPS");
    let small = &at_500["classes"][0];
    let kept_500 = small["pace"]["achieved"] == true && at_500.get("partial").is_none();
    if kept_500 {
        // The response time from each send time, the 1 MiB stream running beside it.
        assert_eq!(
            load_of(&point(&doc, &kept["point_id"]), "large"),
            1,
            "{kept:#}"
        );
    } else {
        eprintln!("the host missed 500 IOPS: {}", small["pace"]);
        assert_eq!(kept["value"], Value::Null, "{kept:#}");
        assert!(
            kept["note"].as_str().unwrap().contains("missed its rate"),
            "{kept:#}"
        );
    }
    assert_eq!(missed["value"], Value::Null, "{missed:#}");
    assert!(
        missed["note"].as_str().unwrap().contains("missed its rate"),
        "{missed:#}"
    );
    let page = summary(&run);
    // With no point counting at all, page 1 says so in one sentence instead of a dash per rate.
    let said = if kept_500 {
        "- **read p99 per rate (small.rate=50000000 iops): —**"
    } else {
        "No finished point counts for a headline"
    };
    assert!(page.contains(said), "{page}");
}

/// An ORION spec's three lines: the best small IOPS, the best large MB/s and the lowest small mean
/// latency of the points that count, and ORION's own line on the terminal with the same figure.
fn orion_lines_hold(name: &str, sets: &[&str], small: bool, large: bool) {
    let tmp = Scenario::new();
    let run = run_on_lun(&tmp, name, sets, &[0]);
    let doc = run.results();
    every_answer_holds(&run, &doc);
    let page = summary(&run);
    if small {
        let iops = one(&doc, "Max IOPS");
        let points = counted(&doc, "small");
        assert_eq!(
            iops["value"].as_f64(),
            Some(extreme(&points, "small.iops", true))
        );
        let lat = one(&doc, "Min mean latency");
        let min = extreme(&points, "small.latency.mean", false);
        assert_eq!(lat["value"].as_f64(), Some(min));
        let line = format!(
            "Maximum Small IOPS={:.0} @ Small={}",
            iops["value"].as_f64().unwrap(),
            iops["load"]
        );
        run.output.stdout_has(&line);
    } else {
        // A class that never ran has no line: not "—, each point failed".
        for name in ["Max IOPS", "Min mean latency"] {
            assert!(answers(&doc, name).is_empty(), "{:#}", doc["answers"]);
            assert!(!page.contains(&format!("**{name}")), "{page}");
        }
    }
    if large {
        let mbps = one(&doc, "Max MiB/s");
        let points = counted(&doc, "large");
        assert_eq!(
            mbps["value"].as_f64(),
            Some(extreme(&points, "large.mbps", true))
        );
    } else {
        assert!(
            answers(&doc, "Max MiB/s").is_empty(),
            "{:#}",
            doc["answers"]
        );
        assert!(!page.contains("**Max MiB/s"), "{page}");
    }
}

#[test]
#[serial_test::parallel]
fn orion_simple_answers_orions_three_lines() {
    orion_lines_hold("orion/simple", &["disks=1"], true, true);
}

#[test]
#[serial_test::parallel]
fn orion_normal_answers_orions_three_lines() {
    orion_lines_hold(
        "orion/normal",
        &["matrix.small=1, 3", "matrix.large=1"],
        true,
        true,
    );
}

#[test]
#[serial_test::parallel]
fn orion_oltp_answers_its_max_iops_and_no_mbps() {
    orion_lines_hold("orion/oltp", &["matrix.small=1, 4"], true, false);
}

#[test]
#[serial_test::parallel]
fn orion_dss_answers_its_max_mbps_and_no_iops() {
    orion_lines_hold("orion/dss", &["matrix.large=1, 2"], false, true);
}
