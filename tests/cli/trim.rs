//! Trims (issue 46, item 4): a class whose mix names a trim discards its size at its offsets, and
//! the device says so: a loop device's own discard counters and a capture of its requests count
//! the discards the results claim; a trim-only class punches holes in a file on every engine; a
//! replayed capture's discards are sent; a verifying trim class verifies clean (a trimmed block
//! reads zeros or its data before the trim) and damage to a trimmed block is found.

use super::builder::{results, rigel};
use super::capture::wait_recording;
use super::replay_sends::imported;
use super::scenario::{Scenario, Spec};
use std::os::unix::fs::MetadataExt;

/// A device's counters from /sys/block/NAME/stat: reads, writes and discards completed (fields
/// 1, 5 and 12) and sectors discarded (field 14).
fn counters(name: &str) -> [u64; 4] {
    let stat = std::fs::read_to_string(format!("/sys/block/{name}/stat")).expect("the stat file");
    let f: Vec<u64> = stat
        .split_whitespace()
        .filter_map(|x| x.parse().ok())
        .collect();
    [f[0], f[4], f[11], f[13]]
}

fn class(doc: &serde_json::Value) -> &serde_json::Value {
    &doc["points"][0]["classes"][0]
}

fn ios(c: &serde_json::Value, dir: &str) -> u64 {
    c[dir]["ios"].as_u64().unwrap_or(0)
}

#[test]
#[serial_test::parallel]
fn a_trim_mix_on_a_loop_device_sends_the_discards_the_device_and_a_capture_count() {
    let tmp = Scenario::new();
    let dev = tmp.loop_device(64 << 20);
    let spec = Spec::named("trim")
        .destructive_target(dev.dev())
        .set("run.duration", "1s")
        .set("run.warmup", "0s")
        .set("class.io.size", "4KiB")
        .set("class.io.mix", "70% read, 20% write, 10% trim")
        // Paced: about 2,000 I/Os, each kind's share within a few tenths of a percent, and 4,000
        // trace events a capture starved on a loaded host still holds (unpaced, a tmpfs loop
        // device's tens of thousands a second overflowed its buffer under a load of 8).
        // Nothing here is a rate, so the test runs beside the others.
        .set("class.io.rate", "2000 iops")
        .set("matrix.shape", "point")
        .set("matrix.io", "4");
    let spec = tmp.spec("spec.toml", &spec);
    let cap = tmp.join("cap");
    let mut capture = rigel()
        .args(["capture", dev.dev(), "--duration", "60s", "--out"])
        .arg(&cap)
        .spawn();
    wait_recording(capture.id());
    let before = counters(dev.name());
    let run = tmp.run(&spec, "run", &["--allow-destructive"]).code(0);
    let after = counters(dev.name());
    let killed = std::process::Command::new("kill")
        .args(["-INT", &capture.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(killed.success());
    assert!(capture.wait().expect("the capture ends").success());
    let [reads, writes, discards, sectors] = [0, 1, 2, 3].map(|k| after[k] - before[k]);

    // The results: a trim direction of its own, about a tenth of the class's I/Os.
    let doc = run.results();
    let c = class(&doc);
    let (r, w, t) = (ios(c, "read"), ios(c, "write"), ios(c, "trim"));
    assert!(t > 0, "no trims in the results: {}", c["trim"]);
    assert_eq!(c["trim"]["bytes"].as_u64(), Some(t * 4096), "{}", c["trim"]);
    assert!(c["trim"]["histogram"].is_string(), "{}", c["trim"]);
    assert_eq!(ios(c, "total"), r + w + t, "{}", c["total"]);
    let share = t as f64 / (r + w + t) as f64;
    assert!((0.06..0.14).contains(&share), "trim share {share:.3}");
    // The report gives the trims a line of their own, with their IOPS.
    let report = std::fs::read_to_string(run.folder.join("report.md")).expect("report.md");
    let line = report
        .lines()
        .find(|l| l.split('|').nth(2).is_some_and(|c| c.trim() == "trim"))
        .unwrap_or_else(|| panic!("no trim line in the report:\n{report}"));
    let iops = line.split('|').nth(3).map(|c| c.trim().replace(',', ""));
    let want = c["trim"]["iops"].as_f64().expect("the trims' IOPS").round();
    assert_eq!(iops, Some(format!("{want}")), "{line}");

    // The device discarded at least what the window counted (the run's edges add a few), each
    // a 4 KiB range, and about a tenth of its requests.
    let trimmed = sectors / 8;
    assert_eq!(sectors % 8, 0, "{sectors} sectors discarded");
    assert!(
        trimmed >= t,
        "the device discarded {trimmed} ranges, results say {t}"
    );
    let device_share = discards as f64 / (reads + writes + discards) as f64;
    assert!(
        (0.06..0.14).contains(&device_share),
        "the device's discard share {device_share:.3} ({reads} reads, {writes} writes, \
         {discards} discards)"
    );

    // The capture saw the same discards the device counted.
    let trace = rigel_trace::folder::load(&cap).expect("the trace");
    assert_eq!(trace.header.dropped, 0, "the capture lost events");
    let traced: Vec<_> = trace
        .records
        .iter()
        .filter(|x| x.op == rigel_trace::Op::Discard)
        .collect();
    assert_eq!(
        traced.len() as u64,
        discards,
        "captured against counted discards"
    );
    let traced_bytes: u64 = traced.iter().map(|x| u64::from(x.size)).sum();
    assert_eq!(traced_bytes, sectors * 512);
}

#[test]
#[serial_test::parallel]
fn a_trim_class_punches_holes_in_a_file_on_every_engine() {
    for engine in ["io_uring", "libaio", "psync"] {
        let tmp = Scenario::new();
        let file = tmp.file("data.bin", 8 << 20);
        let allocated = std::fs::metadata(&file).expect("the file").blocks();
        let spec = Spec::named("trim-file")
            .destructive_target(&file)
            .set("run.engine", engine)
            .set("run.duration", "1s")
            .set("run.warmup", "0s")
            .set("class.io.size", "64KiB")
            .set("class.io.mix", "trim")
            .set("matrix.shape", "point")
            .set("matrix.io", "2");
        let spec = tmp.spec("spec.toml", &spec);
        let run = tmp.run(&spec, "run", &["--allow-destructive"]).code(0);
        let doc = run.results();
        let c = class(&doc);
        assert!(ios(c, "trim") > 0, "{engine}: no trims: {c}");
        assert!(c["read"].is_null() && c["write"].is_null(), "{engine}: {c}");
        if engine == "io_uring" {
            // fio's JSON names the job's mode and carries its trims where fio does.
            rigel()
                .arg("report")
                .arg(&run.folder)
                .args(["--format", "fio-json"])
                .run()
                .code(0);
            let text = std::fs::read_to_string(run.folder.join("fio.json")).expect("fio.json");
            let fio: serde_json::Value = serde_json::from_str(&text).expect("JSON");
            let job = &fio["jobs"][0];
            assert_eq!(job["job options"]["rw"], "randtrim", "{job}");
            assert_eq!(
                job["trim"]["total_ios"].as_u64(),
                Some(ios(c, "trim")),
                "{job}"
            );
        }
        let left = std::fs::metadata(&file).expect("the file").blocks();
        assert!(
            left < allocated,
            "{engine}: no hole punched ({left} of {allocated} blocks left)"
        );
    }
}

#[test]
#[serial_test::parallel]
fn a_replay_sends_the_captured_discards_and_derive_writes_their_share() {
    let tmp = Scenario::new();
    let dev = tmp.loop_device(16 << 20);
    // 20 reads, 10 writes, 10 discards of 64 KiB, 10 ms apart (`wait` is in µs). The replay's
    // window waits for the requests in flight at its end, so every discard is counted however
    // slowly the loaded host completes it.
    let mut iolog = String::from("fio version 2 iolog\n/x add\n/x open\n");
    for i in 0..40u64 {
        let action = match i % 4 {
            0 | 2 => "read",
            1 => "trim",
            _ => "write",
        };
        iolog += &format!("/x {action} {} 65536\n/x wait 10000\n", i * 65536);
    }
    iolog += "/x close\n";
    let cap = imported(&tmp, &iolog);
    let derived = rigel().arg("derive").arg(&cap).run().code(0);
    let spec = std::fs::read_to_string(cap.join("spec.toml")).expect("the derived spec");
    assert!(
        spec.contains("mix = \"50% read, 25% write, 25% trim\""),
        "{}\n{spec}",
        derived.stderr
    );
    let before = counters(dev.name());
    let out = tmp.join("replayed");
    let done = rigel()
        .arg("replay")
        .arg(&cap)
        .arg("--target")
        .arg(dev.dev())
        .arg("--allow-destructive")
        .arg("--out")
        .arg(&out)
        .run()
        .code(0);
    done.stderr_has("10 trims");
    let after = counters(dev.name());
    assert_eq!(after[3] - before[3], 10 * 65536 / 512, "sectors discarded");
    let doc = results(&out);
    assert_eq!(ios(class(&doc), "trim"), 10, "{}", class(&doc));
}

/// The journal's map starts here (its header's size); each entry is 2 bytes: 14 bits of
/// generation, 0x4000 trimmed, 0x8000 a write or trim in flight.
const MAP_AT: usize = 4096;

/// A verifying 70/20/10 read/write/trim class on a loop device (real discards through the block
/// layer): its reads of trimmed blocks find zeros (a loop device over a file punches holes) or
/// the data before the trim, and the run verifies clean; `rigel verify` of its journal too. Then
/// garbage written behind rigel's back over a block the journal names trimmed (after a write)
/// is found there.
#[test]
#[serial_test::parallel]
fn a_verifying_trim_class_verifies_clean_and_a_damaged_trimmed_block_is_found() {
    let tmp = Scenario::new();
    let dev = tmp.loop_device(16 << 20);
    let spec = Spec::named("trim-verify")
        .destructive_target(dev.dev())
        .set("run.duration", "1s")
        .set("run.warmup", "0s")
        .set("run.verify", true)
        .set("run.journal", true)
        .set("class.io.size", "4KiB")
        .set("class.io.mix", "70% read, 20% write, 10% trim")
        // Every write durable when acknowledged: a block found otherwise breaks a promise.
        .set("class.io.durability", "dsync")
        // 128 blocks: each is written, read and trimmed many times over.
        .set("class.io.region", "0..512KiB")
        .set("matrix.shape", "point")
        .set("matrix.io", "4");
    let spec = tmp.spec("spec.toml", &spec);
    let before = counters(dev.name());
    let out = tmp.join("run");
    rigel()
        .args(["run", "--allow-destructive"])
        .arg(&spec)
        .arg("--out")
        .arg(&out)
        .run()
        .code(0);
    let discarded = counters(dev.name())[2] - before[2];
    let doc = results(&out);
    let (point, c) = (&doc["points"][0], class(&doc));
    assert!(ios(c, "trim") > 0 && discarded >= ios(c, "trim"), "{c}");
    let integrity = &point["integrity"];
    let bad: u64 = integrity["counts"]
        .as_object()
        .map_or(1, |m| m.values().filter_map(|v| v.as_u64()).sum());
    assert!(
        integrity["blocks_checked"].as_u64().unwrap_or(0) > 20 && bad == 0,
        "{integrity}"
    );
    let verify = |code: i32| -> serde_json::Value {
        rigel().arg("verify").arg(&out).run().code(code);
        let text = std::fs::read_to_string(out.join("verify.json")).expect("verify.json");
        serde_json::from_str(&text).expect("verify.json parses")
    };
    let clean = verify(0);
    assert_eq!(clean["broken"]["counts"]["garbage"], 0, "{clean:#}");
    // A block trimmed after a write (a generation kept beside the trimmed bit).
    let map = std::fs::read(out.join("journal.map")).expect("journal.map");
    let trimmed: Vec<u64> = map[MAP_AT..]
        .chunks_exact(2)
        .enumerate()
        .filter(|(_, e)| {
            let e = u16::from_le_bytes([e[0], e[1]]);
            e & 0xC000 == 0x4000 && e & 0x3FFF != 0
        })
        .map(|(i, _)| i as u64 * 4096)
        .collect();
    let at = *trimmed.first().expect("a block trimmed after a write");
    let garbage: Vec<u8> = (0..4096u32).map(|i| (i * 7 + 1) as u8).collect();
    let disk = std::fs::OpenOptions::new()
        .write(true)
        .open(dev.dev())
        .expect("the loop device opens for writing");
    std::os::unix::fs::FileExt::write_all_at(&disk, &garbage, at).expect("garbage written");
    disk.sync_all().expect("garbage synced");
    drop(disk);
    let found = verify(6);
    let broken = &found["broken"];
    assert_eq!(broken["counts"]["garbage"], 1, "{broken:#}");
    assert_eq!(broken["first"][0]["target_offset"], at, "{broken:#}");
}

#[test]
#[serial_test::parallel]
fn the_write_guard_asks_a_trim_class_for_a_writes_consent() {
    let tmp = Scenario::new();
    let dev = tmp.loop_device(16 << 20);
    let spec = Spec::named("trim-consent")
        .target(dev.dev(), &[])
        .set("run.duration", "1s")
        .set("class.io.size", "4KiB")
        .set("class.io.mix", "90% read, 10% trim")
        .set("matrix.shape", "point")
        .set("matrix.io", "1");
    let spec = tmp.spec("spec.toml", &spec);
    let before = counters(dev.name());
    let run = tmp.run(&spec, "run", &[]).code(1);
    run.output.stderr_has("destructive = true");
    assert_eq!(
        counters(dev.name())[2],
        before[2],
        "a refused run discarded"
    );
}
