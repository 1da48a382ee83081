//! Faults end to end: `methodic run` on a target whose reads or writes
//! fail with EIO at a chosen offset. The failing target is a FUSE file
//! (tests/faultfs), used as a file target and as the backing file of a
//! loop device; this kernel has no device-mapper (dm-error, dm-flakey).
//! Needs root and /dev/fuse; without them each test says why it skips, or
//! under CI=true fails naming what is missing.

mod common;
mod faultfs;
// The device tests' lock and loop devices (the runtime's tests share them).
#[path = "../runtime/tests/common/mod.rs"]
mod devices;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::{methodic, text};
use faultfs::{FaultFs, Ops};

const EIGHT_MIB: u64 = 8 << 20;

/// Reads, a sequential fill over the target (64KiB writes), reads again.
fn source(on_error: &str) -> String {
    format!(
        "methodology \"faults\" version \"1\"\n{on_error}\n\
         workload r {{ random; block 4KiB; read 100% }}\n\
         workload s {{ sequential; block 64KiB; read 0% }}\n\
         measure r qd 1 for 300ms\n\
         fill s passes 1\n\
         measure r qd 4 for 300ms\n"
    )
}

/// Runs `source` with `args` in a new folder named for `name`; the output
/// and the results folder. The caller removes the folder's parent.
fn run(name: &str, source: &str, args: &[&str]) -> (Output, PathBuf) {
    let dir = common::temp_dir(&format!("faults-{name}"));
    let file = dir.join("m.method");
    std::fs::write(&file, source).unwrap();
    let out = dir.join("results");
    let mut all = vec!["run", file.to_str().unwrap(), "--no-ceiling", "--seed", "1", "--json"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--out", out.to_str().unwrap()]);
    (methodic(&all), out)
}

fn journal(out: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(out.join("steps.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The file target's fill: failed at 8MiB with EIO on `target`, with
/// the writes that completed before it counted and kept.
fn assert_the_fill_failed_at_8mib(fill: &serde_json::Value, target: &Path) {
    let error = fill["error"].as_str().expect("the fill failed");
    let words = format!(
        "step fill-s on {}: write of 65536 bytes at offset 8388608 failed with EIO (Input/output error); ",
        target.display()
    );
    assert!(error.starts_with(&words) && error.ends_with("I/Os failed"), "{error}");
    let errors = &fill["io"]["errors"];
    assert_eq!(errors["first"]["offset"], EIGHT_MIB);
    assert_eq!(errors["first"]["op"], "write");
    assert_eq!(errors["first"]["errno"], "EIO");
    assert_eq!(errors["first"]["target"], target.to_str().unwrap());
    let completed = errors["completed"].as_u64().unwrap();
    assert!(completed > 0 && errors["failed"].as_u64() >= Some(1), "{errors}");
    // A fill records from its first I/O: every completed write is counted.
    assert_eq!(fill["summary"]["total"]["ios"], completed);
    assert_eq!(fill["io"]["bytes_written"], completed * 65536);
}

/// The step statuses in the manifest, in order.
fn manifest_statuses(out: &Path) -> (serde_json::Value, Vec<String>) {
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).unwrap()).unwrap();
    let statuses =
        m["steps"].as_array().unwrap().iter().map(|s| s["status"].as_str().unwrap().to_string()).collect();
    (m, statuses)
}

#[test]
fn faultfs_fails_where_told() {
    use std::os::unix::fs::FileExt;
    let Some(fs) = FaultFs::mount("smoke", 1 << 20) else { return };
    let f = std::fs::OpenOptions::new().read(true).write(true).open(fs.file()).unwrap();
    f.write_all_at(&[7u8; 4096], 0).unwrap();
    fs.fail(Ops::Writes, 65536..65536 + 512);
    let e = f.write_all_at(&[7u8; 4096], 65536).unwrap_err();
    assert_eq!(e.raw_os_error(), Some(libc::EIO));
    let mut b = [0u8; 4096];
    f.read_exact_at(&mut b, 65536).unwrap();
    assert_eq!(fs.failed(), 1);
    assert_eq!(fs.bytes(0..4), [7, 7, 7, 7]);
}

#[test]
fn an_eio_mid_step_on_a_fuse_file_fails_the_run_there_and_keeps_the_steps_before() {
    let Some(fs) = FaultFs::mount("stop", 16 << 20) else { return };
    fs.fail(Ops::Writes, EIGHT_MIB..EIGHT_MIB + 4096);
    let target = fs.file();
    let (o, out) = run("stop", &source(""), &["--target", target.to_str().unwrap(), "--overwrite"]);
    let stderr = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "error: step fill-s on {}: write of 65536 bytes at offset 8388608 failed with EIO",
            target.display()
        )),
        "{stderr}"
    );
    assert!(fs.failed() >= 1);
    // The report on stdout, the journal and results.json: the reads before,
    // then the fill that failed, and nothing after.
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).expect("the report, as JSON");
    assert_eq!(report["status"], "failed");
    let steps = report["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 2, "the run ended at the failed step");
    assert!(steps[0]["error"].is_null() && steps[0]["summary"]["total"]["ios"].as_u64() > Some(0));
    assert_the_fill_failed_at_8mib(&steps[1], &target);
    let journaled = journal(&out);
    assert_eq!(journaled.len(), 2);
    assert_eq!(journaled[0]["summary"], steps[0]["summary"]);
    assert_the_fill_failed_at_8mib(&journaled[1], &target);
    let results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    assert_eq!((&results["status"], results["steps"].as_array().unwrap().len()), (&"failed".into(), 2));
    let (m, statuses) = manifest_statuses(&out);
    assert_eq!(m["status"], "failed");
    assert_eq!(statuses, ["completed", "failed", "pending"]);
    // The failed write never reached the file; each completed one did.
    // Which ones completed is a race when the engine is psync (a thread a
    // stripe, each from its stripe's start, and the one at 8MiB fails
    // first), so the test counts them: the 64KiB blocks of random data in
    // the file are the fill's completed writes.
    assert!(fs.bytes(EIGHT_MIB..EIGHT_MIB + 65536).iter().all(|b| *b == 0));
    let written = (0..16u64 << 20)
        .step_by(65536)
        .filter(|&at| fs.bytes(at..at + 65536).iter().any(|b| *b != 0))
        .count() as u64;
    assert_eq!(Some(written), steps[1]["io"]["errors"]["completed"].as_u64(), "64KiB blocks written");
    // The results read back.
    let r = methodic(&["report", out.to_str().unwrap()]);
    let shown = text(&r.stdout);
    assert!(r.status.success(), "{}", text(&r.stderr));
    assert!(shown.contains("failed: step fill-s") && shown.contains("offset 8388608"), "{shown}");
    std::fs::remove_dir_all(out.parent().unwrap()).unwrap();
}

#[test]
fn on_error_continue_runs_the_steps_after_an_eio_and_the_run_still_fails() {
    let Some(fs) = FaultFs::mount("continue", 16 << 20) else { return };
    fs.fail(Ops::Writes, EIGHT_MIB..EIGHT_MIB + 4096);
    let target = fs.file();
    // io_uring this time (psync where the machine has none): the EIO comes
    // back in a completion, with 31 other writes in flight.
    let engine = if methodic_runtime::io_uring_available().is_ok() { "io-uring" } else { "psync" };
    let args = ["--target", target.to_str().unwrap(), "--overwrite", "--engine", engine];
    let (o, out) = run("continue", &source("on_error continue"), &args);
    let stderr = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "steps failed, so the run did: {stderr}");
    assert!(
        stderr
            .contains("error: 1 of 3 steps failed and the run went on past it (on_error continue): fill-s;"),
        "{stderr}"
    );
    assert!(stderr.contains("the drive state of the steps after it is in doubt"), "{stderr}");
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(report["status"], "failed");
    let steps = report["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 3, "the run went on past the failed fill");
    assert_the_fill_failed_at_8mib(&steps[1], &target);
    assert_eq!(steps[1]["io"]["engine"], engine.replace('-', "_"));
    assert!(steps[2]["error"].is_null(), "{}", steps[2]["error"]);
    assert!(steps[2]["summary"]["total"]["ios"].as_u64() > Some(0), "the step after the failure measured");
    assert_eq!(journal(&out).len(), 3);
    let (m, statuses) = manifest_statuses(&out);
    assert_eq!(statuses, ["completed", "failed", "completed"]);
    assert_eq!(m["steps"][2]["checklist"]["drive_state"]["in_doubt"], true);
    let r = methodic(&["report", out.to_str().unwrap()]);
    assert!(r.status.success(), "{}", text(&r.stderr));
    std::fs::remove_dir_all(out.parent().unwrap()).unwrap();
}

/// A buffered write step whose writes all land but whose sync to the
/// device fails (a lost write-back) fails with that said, and keeps what
/// it measured.
#[test]
fn a_failed_sync_after_buffered_writes_fails_the_step_and_keeps_its_numbers() {
    let Some(fs) = FaultFs::mount("sync", 16 << 20) else { return };
    fs.fail_sync();
    let target = fs.file();
    let src = "methodology \"sync\" version \"1\"\ntarget { io buffered }\n\
               measure { random; block 4KiB; read 0% } qd 1 for 200ms\n";
    let (o, out) = run("sync", src, &["--target", target.to_str().unwrap(), "--overwrite"]);
    let stderr = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!("the buffered writes could not be synced to {}", target.display())),
        "{stderr}"
    );
    let step = &journal(&out)[0];
    assert!(step["error"].as_str().unwrap_or("").contains("Input/output error"), "{step}");
    assert!(step["summary"]["total"]["ios"].as_u64() > Some(0), "what it measured is kept: {step}");
    std::fs::remove_dir_all(out.parent().unwrap()).unwrap();
}

/// A buffered fill whose sync fails fails as a measure step does, with
/// its numbers kept; and drop_caches on a file whose sync fails says so
/// among what it did, where the error used to be dropped.
#[test]
fn a_failed_sync_fails_a_buffered_fill_and_is_said_by_drop_caches() {
    let Some(fs) = FaultFs::mount("sync-fill", 16 << 20) else { return };
    fs.fail_sync();
    let target = fs.file();
    let fill = "methodology \"fill\" version \"1\"\ntarget { io buffered }\n\
                fill { sequential; block 64KiB; read 0% } passes 1\n";
    let (o, out) = run("sync-fill", fill, &["--target", target.to_str().unwrap(), "--overwrite"]);
    let stderr = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    let words = format!("the buffered writes could not be synced to {}", target.display());
    assert!(stderr.contains(&words), "{stderr}");
    let step = &journal(&out)[0];
    assert!(step["error"].as_str().unwrap_or("").contains("Input/output error"), "{step}");
    assert_eq!(step["summary"]["total"]["ios"], 256, "the whole 16MiB was written: {step}");
    std::fs::remove_dir_all(out.parent().unwrap()).unwrap();

    let drop = "methodology \"drop\" version \"1\"\ntarget { io buffered }\n\
                drop_caches\nmeasure { random; block 4KiB; read 100% } qd 1 for 200ms\n";
    let (o, out) = run("sync-drop", drop, &["--target", target.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let actions = journal(&out)[0]["actions"].clone();
    let said = format!(
        "sync of {} failed (Input/output error (os error 5)): its unwritten pages stay in the page cache",
        target.display()
    );
    assert!(actions.as_array().unwrap().iter().any(|a| a == &said), "{actions}");
    std::fs::remove_dir_all(out.parent().unwrap()).unwrap();
}

/// The rounds file (`*.rounds.csv`) under `dir`, however deep, once made.
fn rounds_csv(dir: &Path) -> Option<PathBuf> {
    for p in std::fs::read_dir(dir).ok()?.map(|e| e.unwrap().path()) {
        let found = if p.is_dir() {
            rounds_csv(&p)
        } else {
            Some(p).filter(|p| p.to_string_lossy().ends_with(".rounds.csv"))
        };
        if found.is_some() {
            return found;
        }
    }
    None
}

/// Rounds until steady whose reads start failing after two rounds: the
/// run fails with the EIO, and every round before the failed one stays in
/// the step's record, as many as the rounds file holds.
#[test]
fn rounds_that_fail_midway_keep_the_rounds_before_the_failure() {
    let Some(fs) = FaultFs::mount("rounds", 16 << 20) else { return };
    let target = fs.file();
    let dir = common::temp_dir("faults-rounds");
    let file = dir.join("m.method");
    // Ten rounds at least before the rule can hold: the fault comes first.
    std::fs::write(
        &file,
        "methodology \"rounds\" version \"1\"\ntarget { io buffered }\n\
         rounds {\n  measure { random; block 4KiB; read 100% } qd 1 for 500ms\n}\n\
         until steady { window 10; max_rounds 50; track { random; block 4KiB; read 100% } }\n",
    )
    .unwrap();
    let out = dir.join("results");
    let child = common::spawn(&[
        "run",
        file.to_str().unwrap(),
        "--no-ceiling",
        "--target",
        target.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let two_rounds = || {
        rounds_csv(&out)
            .and_then(|p| std::fs::read_to_string(p).ok())
            .is_some_and(|csv| csv.lines().count() >= 3)
    };
    for _ in 0..1200 {
        if two_rounds() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(two_rounds(), "two rounds in a minute");
    fs.fail(Ops::Reads, 0..16 << 20);
    let o = child.wait_with_output().unwrap();
    let stderr = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    let step = &journal(&out)[0];
    assert!(step["error"].as_str().unwrap_or("").contains("failed with EIO"), "{step}");
    let rows = std::fs::read_to_string(rounds_csv(&out).unwrap()).unwrap().lines().count() as u64 - 1;
    let steady = &step["steady"];
    assert!(rows >= 2 && steady["rounds"] == rows, "{rows} rounds in the file: {steady}");
    assert_eq!(steady["reached"], false);
    assert_eq!(step["cells"][0]["workload"].as_str().map(|w| !w.is_empty()), Some(true), "{step}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_eio_from_a_loop_device_over_a_failing_file_names_the_device_and_the_offset() {
    // Declared first, dropped last: the loop device lets go of the file
    // before it is unmounted.
    let Some(fs) = FaultFs::mount("loop", 16 << 20) else { return };
    let Some(lock) = devices::devices() else { return };
    let Some(dev) = devices::Loop::over(&lock, &fs.file()) else { return };
    fs.fail(Ops::Reads, EIGHT_MIB..EIGHT_MIB + 4096);
    let source = "methodology \"faults\" version \"1\"\n\
                  workload s { sequential; block 64KiB; read 0% }\n\
                  workload q { sequential; block 64KiB; read 100% }\n\
                  fill s passes 1 qd 1\n\
                  measure q qd 1 for 5s\n\
                  measure q qd 1 for 300ms\n";
    let device = dev.dev.to_str().unwrap();
    let (o, out) = run("loop", source, &["--target", device, "--destroy", device]);
    let stderr = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    let words = format!("step q-qd1 on {device}: read of 65536 bytes at offset 8388608 failed with EIO");
    assert!(stderr.contains(&format!("error: {words}")), "{stderr}");
    assert!(fs.failed() >= 1, "the read reached the file system");
    let steps = journal(&out);
    assert_eq!(steps.len(), 2, "the fill, then the read that failed");
    assert!(steps[0]["error"].is_null() && steps[0]["io"]["bytes_written"] == 16 << 20, "{}", steps[0]);
    let read = &steps[1];
    assert_eq!(read["io"]["errors"]["first"]["offset"], EIGHT_MIB);
    assert_eq!(read["io"]["errors"]["first"]["target"], device);
    // The 128 reads before 8MiB completed, and were kept.
    assert_eq!(read["io"]["errors"]["completed"], 128);
    assert_eq!(read["summary"]["total"]["ios"], 128);
    let (_, statuses) = manifest_statuses(&out);
    assert_eq!(statuses, ["completed", "failed", "pending"]);
    std::fs::remove_dir_all(out.parent().unwrap()).unwrap();
}

/// A plain read, a sequential fill with `verify` (its read-back checks
/// every 4KiB interval it wrote), then sequential reads with `verify` on
/// two psync workers, whose second starts its stripe at 8MiB.
fn verify_source(on_error: &str) -> String {
    format!(
        "methodology \"verify\" version \"1\"\n{on_error}\n\
         workload r {{ random; block 4KiB; read 100% }}\n\
         workload s {{ sequential; block 64KiB; align 4KiB; read 0% }}\n\
         workload q {{ sequential; block 64KiB; align 4KiB; read 100% }}\n\
         measure r qd 1 for 200ms\n\
         fill s passes 1 verify\n\
         measure q qd 2 for 200ms verify\n"
    )
}

/// A step's verify record found the one corrupted interval, at 8MiB, on
/// `target`: once when read back; as often as it was read (each listed)
/// when checked as read.
fn assert_the_mismatch_at_8mib(step: &serde_json::Value, target: &str, how: &str) {
    let v = &step["verify"];
    assert_eq!(v["how"], how, "{step}");
    assert_eq!(v["interval_bytes"], 4096);
    let (found, listed) = (v["mismatches"].as_u64().unwrap(), v["first"].as_array().unwrap());
    if how == "read_back" {
        assert_eq!(found, 1, "{v}");
    } else {
        assert!(found >= 1 && found == listed.len() as u64, "{v}");
    }
    assert!(listed.iter().all(|m| m["offset"] == EIGHT_MIB), "{v}");
    let m = &v["first"][0];
    assert_eq!(
        (&m["offset"], &m["kind"], &m["target"]),
        (&EIGHT_MIB.into(), &"corrupted".into(), &target.into())
    );
    assert!(m["expected"].as_str().unwrap().starts_with("checksum 0x"), "{m}");
    let error = step["error"].as_str().expect("the step failed");
    assert!(error.contains("data verification") && error.contains("the first at offset 8388608"), "{error}");
    // Its numbers are kept.
    assert!(step["summary"]["total"]["ios"].as_u64() > Some(0), "{step}");
}

/// Reads of a FUSE file return one byte flipped at 8MiB: the fill's
/// read-back finds it, the run fails there saying its offset, and the
/// plain read before it keeps its numbers; in steps.jsonl, results.json,
/// the manifest and the report.
#[test]
fn a_corrupted_read_fails_a_verify_step_naming_its_offset() {
    let Some(fs) = FaultFs::mount("verify", 16 << 20) else { return };
    fs.corrupt(EIGHT_MIB + 100..EIGHT_MIB + 101);
    let target = fs.file();
    let path = target.to_str().unwrap();
    let (o, out) = run("verify", &verify_source(""), &["--target", path, "--overwrite", "--engine", "psync"]);
    let stderr = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("error: step fill-s: data verification: 1 of 4096 intervals"), "{stderr}");
    assert!(stderr.contains(&format!("the first at offset 8388608 of {path}: corrupted")), "{stderr}");
    assert!(fs.corrupted() >= 1, "a read came back corrupted");
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let steps = report["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 2, "the run ended at the fill");
    assert!(steps[0]["error"].is_null() && steps[0]["summary"]["total"]["ios"].as_u64() > Some(0));
    assert_the_mismatch_at_8mib(&steps[1], path, "read_back");
    assert_eq!(
        (&steps[1]["verify"]["written"], &steps[1]["verify"]["checked"]),
        (&4096.into(), &4096.into())
    );
    let journaled = journal(&out);
    assert_eq!(journaled[0]["summary"], steps[0]["summary"]);
    assert_the_mismatch_at_8mib(&journaled[1], path, "read_back");
    let results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    assert_eq!(results["status"], "failed");
    assert_the_mismatch_at_8mib(&results["steps"][1], path, "read_back");
    let (_, statuses) = manifest_statuses(&out);
    assert_eq!(statuses, ["completed", "failed", "pending"]);
    let r = methodic(&["report", out.to_str().unwrap()]);
    let shown = text(&r.stdout);
    assert!(r.status.success(), "{}", text(&r.stderr));
    assert!(
        shown.contains("failed: step fill-s: data verification") && shown.contains("offset 8388608"),
        "{shown}"
    );
    std::fs::remove_dir_all(out.parent().unwrap()).unwrap();
}

/// The same through a loop device over the FUSE file, on_error continue:
/// the fill's read-back and the reads after it (as they read) each find
/// the corrupted interval at 8MiB of the loop device; the run goes on
/// past the fill, and fails.
#[test]
fn a_corrupted_read_through_a_loop_device_fails_both_verify_steps() {
    // Declared first, dropped last: the loop device lets go of the file
    // before it is unmounted.
    let Some(fs) = FaultFs::mount("verify-loop", 16 << 20) else { return };
    let Some(lock) = devices::devices() else { return };
    let Some(dev) = devices::Loop::over(&lock, &fs.file()) else { return };
    fs.corrupt(EIGHT_MIB + 100..EIGHT_MIB + 101);
    let device = dev.dev.to_str().unwrap();
    let args = ["--target", device, "--destroy", device, "--engine", "psync"];
    let (o, out) = run("verify-loop", &verify_source("on_error continue"), &args);
    let stderr = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("2 of 3 steps failed"), "{stderr}");
    let steps = journal(&out);
    assert_eq!(steps.len(), 3, "on_error continue: every step ran");
    assert!(steps[0]["error"].is_null());
    assert_the_mismatch_at_8mib(&steps[1], device, "read_back");
    assert_the_mismatch_at_8mib(&steps[2], device, "as_read");
    let (_, statuses) = manifest_statuses(&out);
    assert_eq!(statuses, ["completed", "failed", "failed"]);
    let r = methodic(&["report", out.to_str().unwrap(), "--format", "csv"]);
    assert!(r.status.success(), "{}", text(&r.stderr));
    let csv = text(&r.stdout);
    let header = devices::csv_cells(csv.lines().next().unwrap());
    let at = header.iter().position(|c| c == "verify_first_offset").expect("a verify_first_offset column");
    let firsts: Vec<String> =
        csv.lines().skip(1).map(|l| devices::csv_cells(l)[at].clone()).filter(|c| !c.is_empty()).collect();
    assert_eq!(firsts, ["8388608", "8388608"], "{csv}");
    std::fs::remove_dir_all(out.parent().unwrap()).unwrap();
}

/// On a scratch file, nothing corrupted: the fill reads back every
/// interval it wrote (16MiB of 4KiB intervals, each once), the reads
/// check every interval they read, and nothing mismatches.
#[test]
fn a_clean_run_verifies_every_interval_it_wrote() {
    let src = "methodology \"clean\" version \"1\"\ntarget { span 16MiB }\n\
               workload s { sequential; block 64KiB; align 4KiB; read 0% }\n\
               workload r { random; block 4KiB; read 100% }\n\
               fill s passes 1 verify\n\
               measure r qd 4 for 200ms verify\n";
    let (o, out) = run("verify-clean", src, &[]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let steps = journal(&out);
    let (fill, read) = (&steps[0]["verify"], &steps[1]["verify"]);
    assert_eq!(
        (&fill["written"], &fill["checked"], &fill["left_out"]),
        (&4096.into(), &4096.into(), &0.into())
    );
    assert_eq!(fill["mismatches"], 0);
    // Each 4KiB read checks its one interval: as many as were read, ramp
    // included (at least the reads recorded).
    let reads = steps[1]["summary"]["total"]["ios"].as_u64().unwrap();
    assert!(read["checked"].as_u64().unwrap() >= reads && reads > 0, "{read}");
    assert_eq!((&read["how"], &read["mismatches"]), (&"as_read".into(), &0.into()));
    std::fs::remove_dir_all(out.parent().unwrap()).unwrap();
}
