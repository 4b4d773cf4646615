//! `rigel compare` over two runs with nothing in common (issue 42): it says so and exits 2 instead
//! of "no regression … over 0 matched points".

use super::builder::rigel;
use serde_json::Value;

#[test]
#[serial_test::parallel]
fn two_runs_with_nothing_in_common_say_so_and_exit_2() {
    let tmp = tempfile::tempdir_in("/dev/shm").expect("a tmpfs temp dir");
    let base: Value =
        serde_json::from_str(rigel_testkit::fixtures::BASIC).expect("the fixture parses");
    let mut other = base.clone();
    other["points"] = Value::Array(Vec::new());
    other["plan"]["answers"] = serde_json::json!([
        {"name": "something else", "figure": "small.iops", "at": "best"}
    ]);
    let (a, b) = (tmp.path().join("a.json"), tmp.path().join("b.json"));
    std::fs::write(&a, base.to_string()).unwrap();
    std::fs::write(&b, other.to_string()).unwrap();
    let out = rigel().arg("compare").arg(&a).arg(&b).run().code(2);
    out.stdout_has("nothing in common");
    out.stderr_has("nothing was compared");
    // A run against itself has its answers in common: compared, exit 0.
    rigel()
        .arg("compare")
        .arg(&a)
        .arg(&a)
        .run()
        .code(0)
        .stdout_has("Max IOPS");
}
