//! What a point records of its engines and its workers' CPUs: real reads on a tmpfs file through
//! the io_uring engine, workers pinned round-robin to the CPUs `PointControl::cpus` gives.

use super::*;

fn two_classes() -> Vec<ClassLoad> {
    vec![
        class("a", 4 * KIB, Access::Random, 100, 2, 1),
        class("b", 4 * KIB, Access::Random, 100, 2, 1),
    ]
}

#[test]
#[serial_test::parallel]
fn pinned_workers_run_on_the_cpus_given_round_robin() {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get()) as u32;
    let t = TempTarget::new("/dev/shm", "pinned", 16 * MIB);
    // Three workers over the last CPU, then the first: the third goes back to the last.
    let given = vec![cpus - 1, 0];
    let ctl = PointControl {
        cpus: Some(given.clone()),
        ..PointControl::new(2)
    };
    let (r, p) = run_with(
        &[(&t.file, t.path())],
        Layout::Concat,
        vec![
            class("a", 4 * KIB, Access::Random, 100, 3, 1),
            class("b", 4 * KIB, Access::Random, 100, 3, 1),
        ],
        &settings(200, 0, 3),
        &ctl,
    );
    assert_eq!(p.workers, 3);
    let placement = r.placement.expect("the workers' CPUs are recorded");
    assert_eq!(placement.worker_cpus, vec![cpus - 1, 0, cpus - 1]);
}

#[test]
#[serial_test::parallel]
fn each_class_records_the_engine_that_ran_it() {
    let t = TempTarget::new("/dev/shm", "engines", 16 * MIB);
    let ctl = PointControl::new(2);
    let (r, _) = run_with(
        &[(&t.file, t.path())],
        Layout::Concat,
        two_classes(),
        &settings(200, 0, 1),
        &ctl,
    );
    let names: Vec<(&str, &str, &str)> = r
        .engines
        .iter()
        .map(|e| (e.class.as_str(), e.name.as_str(), e.requested.as_str()))
        .collect();
    assert_eq!(
        names,
        vec![("a", "io_uring", "auto"), ("b", "io_uring", "auto")]
    );
    let options = &r.engines[0].options;
    assert_eq!(
        options.get("registered_buffers").map(String::as_str),
        Some("true")
    );
    assert!(options.contains_key("sq_entries"), "{options:?}");
    assert!(r.engines.iter().all(|e| e.fallback.is_none()));
    // Unpinned, each worker's CPU is the one it ran on last.
    let placement = r.placement.expect("placement");
    assert_eq!(placement.worker_cpus.len(), 1);
}
