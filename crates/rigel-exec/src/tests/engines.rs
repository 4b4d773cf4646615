//! The executor's policy on the psync and libaio engines, through `run_point` with real I/O on
//! tmpfs: the load kept and Little's law held as on io_uring, the engine recorded per class,
//! and an engine's setup refusal a clear error of the point (never a panic, never worded as an
//! io_uring refusal).

use super::*;

fn on(engine: rigel_plan::Engine, mut c: ClassLoad) -> ClassLoad {
    c.engine = engine;
    c
}

#[test]
#[serial_test::serial]
fn psync_and_libaio_keep_the_load_and_littles_law_on_tmpfs() {
    use rigel_plan::Engine;
    let t = TempTarget::new("/dev/shm", "engines", 64 * MIB);
    for engine in [Engine::Psync, Engine::Libaio] {
        eprintln!("engine {engine}");
        let classes = vec![
            on(engine, class("small", 4 * KIB, Access::Random, 100, 8, 1)),
            on(engine, class("mixed", 8 * KIB, Access::Random, 50, 4, 1)),
        ];
        let (r, p) = run(
            &[(&t.file, t.path())],
            Layout::Concat,
            classes,
            // 1 s: a worker losing its CPU for some ms at an edge of the window (beside a build on 2
            // cores, among a pool's threads) moves the depth held by that share of the window.
            &settings(1000, 100, 2),
        );
        assert_eq!(r.status, PointStatus::Ok, "{engine}: {:?}", r.status);
        assert_load_kept(&r, &p);
        assert_littles_law(&r, &p);
        let names: Vec<&str> = r.engines.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, [engine.name(), engine.name()], "{engine}");
        let mixed = r.class("mixed").expect("mixed");
        assert!(mixed.write.as_ref().is_some_and(|w| w.ios > 0), "{engine}");
    }
}

#[test]
#[serial_test::parallel]
fn an_engine_that_cannot_set_up_fails_the_point_saying_why() {
    use rigel_plan::Engine;
    let t = TempTarget::new("/dev/shm", "engine-setup", 4 * MIB);
    let buffered = OpenOptions::new()
        .read(true)
        .open(&t.path)
        .expect("open buffered");
    let volume = Volume::new(Layout::Concat, MIB, &[4 * MIB]);
    let targets = [ExecTarget {
        fd: buffered.as_fd(),
        path: t.path(),
    }];
    let cases = [
        (
            Engine::Libaio,
            4,
            "could not set up its libaio engine",
            "needs O_DIRECT",
        ),
        (
            Engine::Psync,
            300,
            "could not set up its psync engine",
            "at most 256",
        ),
    ];
    for (engine, load, what, why) in cases {
        let point = DataPoint {
            id: 1,
            sweep: vec![],
            classes: vec![on(
                engine,
                class("small", 4 * KIB, Access::Random, 100, load, 1),
            )],
        };
        let mut run = settings(200, 0, 1);
        run.direct = false;
        let e = run_point_probed(&targets, &volume, &point, &run, &PointControl::new(1))
            .err()
            .unwrap_or_else(|| panic!("{engine} should refuse"));
        let text = e.to_string();
        assert!(text.contains(what) && text.contains(why), "{text}");
        assert!(
            !text.contains("io_uring is refused"),
            "not an io_uring refusal: {text}"
        );
    }
}
