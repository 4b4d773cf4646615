//! Tests of opening a plan's targets: sizes, alignment, refusals.

use super::*;

fn declared(path: &Path, size: u64, written: bool) -> PlannedTarget {
    PlannedTarget {
        name: String::new(),
        path: path.display().to_string(),
        size: Some(size),
        destructive: false,
        named_on_command_line: false,
        written,
    }
}

fn open_quietly(plan: &RunPlan, consent: Consent) -> Result<OpenVolume, TargetError> {
    open_volume(plan, consent, &mut |_| std::ops::ControlFlow::Continue(()))
}

fn creates_trims_and_reuses_in(base: &str) {
    let dir = tempfile::tempdir_in(base).unwrap();
    let a = dir.path().join("a.bin");
    let b = dir.path().join("b.bin");
    let targets = vec![
        declared(&a, (10 << 20) + 4096, true),
        declared(&b, 6 << 20, false),
    ];
    let plan = test_plan(targets, Layout::Raid0, 256 << 10, &[8192, 1 << 20]);
    let mut progress = 0u64;
    let vol = open_volume(&plan, Consent::default(), &mut |p| {
        progress = p.done;
        std::ops::ControlFlow::Continue(())
    })
    .unwrap();
    assert_eq!(progress, 6 << 20, "the last fill reported its end");
    let [ta, tb] = &vol.targets[..] else { panic!() };
    assert_eq!(ta.preparation, Some(Preparation::Created));
    assert_eq!(ta.probe.size, (10 << 20) + 4096);
    assert_eq!(ta.usable, 10 << 20, "trimmed to whole 1 MiB I/Os");
    assert_eq!(tb.usable, 6 << 20);
    assert!(ta.writable && !tb.writable);
    assert!(ta.info.created_by_rigel && tb.info.created_by_rigel);
    assert_eq!(ta.info.kind, "file");
    assert_eq!(ta.info.size, 10 << 20);
    assert_eq!(
        vol.volume.size(),
        12 << 20,
        "raid0: twice the smaller target"
    );
    assert_eq!(vol.infos().len(), 2);
    assert!(vol.warnings().is_empty(), "{:?}", vol.warnings());
    drop(vol);

    let mut calls = 0;
    let vol = open_volume(&plan, Consent::default(), &mut |_| {
        calls += 1;
        std::ops::ControlFlow::Continue(())
    })
    .unwrap();
    assert_eq!(calls, 0);
    assert_eq!(vol.targets[0].preparation, Some(Preparation::Reused));
}

#[test]
fn creates_trims_and_reuses_test_files_on_tmp() {
    creates_trims_and_reuses_in("/tmp");
}

#[test]
fn creates_trims_and_reuses_test_files_on_shm() {
    assert!(
        Path::new("/dev/shm").is_dir(),
        "this test needs a tmpfs at /dev/shm"
    );
    creates_trims_and_reuses_in("/dev/shm");
}

#[test]
fn a_pre_existing_file_is_not_written_without_consent() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("precious.db");
    let data: Vec<u8> = (0..1 << 20).map(|i| (i % 251) as u8).collect();
    std::fs::write(&path, &data).unwrap();
    let mut target = declared(&path, 1 << 20, true);
    target.size = None;
    let plan = test_plan(vec![target.clone()], Layout::Concat, 1 << 20, &[4096]);
    let err = open_quietly(&plan, Consent::default()).unwrap_err();
    let TargetError::Refused(refusal) = &err else {
        panic!("{err}")
    };
    assert!(matches!(
        refusal.reason,
        super::super::Reason::NoConsent { .. }
    ));
    assert!(err.to_string().contains("precious.db"));
    assert_eq!(std::fs::read(&path).unwrap(), data);

    // Reading it is fine; writing it with both consents too.
    target.written = false;
    let plan = test_plan(vec![target.clone()], Layout::Concat, 1 << 20, &[4096]);
    let vol = open_quietly(&plan, Consent::default()).unwrap();
    assert!(!vol.targets[0].info.created_by_rigel);
    // Its shared lock would refuse the writer below (as it refuses another rigel).
    drop(vol);
    target.written = true;
    target.destructive = true;
    let plan = test_plan(vec![target], Layout::Concat, 1 << 20, &[4096]);
    let consent = Consent {
        allow_destructive: true,
        force: false,
    };
    assert!(open_quietly(&plan, consent).unwrap().targets[0].writable);
}

#[test]
fn a_sparse_foreign_file_is_warned_about() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sparse.img");
    std::fs::File::create(&path)
        .unwrap()
        .set_len(64 << 20)
        .unwrap();
    let mut target = declared(&path, 0, false);
    target.size = None;
    let plan = test_plan(vec![target], Layout::Concat, 1 << 20, &[4096]);
    let vol = open_quietly(&plan, Consent::default()).unwrap();
    let warnings = vol.warnings();
    assert_eq!(warnings.len(), 1);
    assert!(
        warnings[0].contains("sparse.img")
            && warnings[0].contains("64 MiB in 1 hole (0 B – 64 MiB) of its 64 MiB")
            && warnings[0].contains("--fill"),
        "{warnings:?}"
    );
    // `check` and `plan` know the same before any I/O.
    let foreseen = crate::foresee(&plan);
    assert!(foreseen.iter().any(|w| w == &warnings[0]), "{foreseen:?}");
}

#[test]
fn refusals_come_before_any_test_file_is_made() {
    let dir = tempfile::tempdir().unwrap();
    let new = dir.path().join("new.bin");
    let theirs = dir.path().join("theirs.bin");
    std::fs::write(&theirs, vec![1u8; 1 << 20]).unwrap();
    let mut foreign = declared(&theirs, 1 << 20, true);
    foreign.size = None;
    let targets = vec![declared(&new, 64 << 20, true), foreign];
    let plan = test_plan(targets, Layout::Concat, 1 << 20, &[4096]);
    let err = open_quietly(&plan, Consent::default()).unwrap_err();
    assert!(matches!(err, TargetError::Refused(_)), "{err}");
    assert!(!new.exists(), "the refusal came after a fill");

    let plan = test_plan(
        vec![declared(&new, 1 << 20, false)],
        Layout::Concat,
        1 << 20,
        &[2 << 20],
    );
    let err = open_quietly(&plan, Consent::default()).unwrap_err();
    assert!(matches!(err, TargetError::TargetTooSmall { .. }), "{err}");
    assert!(!new.exists(), "a too-small file was made anyway");
}

#[test]
fn sizes_that_cannot_work_are_explained() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.bin");
    let t = || vec![declared(&path, 1 << 20, false)];

    let plan = test_plan(t(), Layout::Concat, 1 << 20, &[1000]);
    let err = open_quietly(&plan, Consent::default()).unwrap_err();
    assert!(
        matches!(err, TargetError::Misaligned { size: 1000, .. }),
        "{err}"
    );
    let mut buffered = plan.clone();
    buffered.run.direct = false;
    open_quietly(&buffered, Consent::default()).unwrap();

    // An I/O size and a stripe that do not nest: the unit is their least common multiple.
    let plan = test_plan(t(), Layout::Raid0, 192 << 10, &[128 << 10]);
    let vol = open_quietly(&plan, Consent::default()).unwrap();
    assert_eq!(vol.targets[0].usable, 2 * (384 << 10));

    let plan = test_plan(t(), Layout::Concat, 1 << 20, &[2 << 20]);
    let err = open_quietly(&plan, Consent::default()).unwrap_err();
    assert!(
        matches!(err, TargetError::TargetTooSmall { need: 2097152, .. }),
        "{err}"
    );
    assert!(err.to_string().contains("t.bin"));

    let plan = test_plan(Vec::new(), Layout::Concat, 1 << 20, &[4096]);
    assert!(matches!(
        open_quietly(&plan, Consent::default()),
        Err(TargetError::NoTargets)
    ));
}

#[test]
fn a_missing_undeclared_file_says_how_to_create_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut target = declared(&dir.path().join("absent"), 0, false);
    target.size = None;
    let plan = test_plan(vec![target], Layout::Concat, 1 << 20, &[4096]);
    let err = open_quietly(&plan, Consent::default()).unwrap_err();
    assert!(err.to_string().contains("declare its size"), "{err}");
}
