//! The bytes that reached the device, counted for real on a loop device
//! the test sets up with an ext4 file system on it, so that no other I/O
//! shares the device: a file dropped from the page cache is read from the
//! loop device, and read again from the cache; a buffered fill's writes
//! reach the device within the step; a buffered measurement over data a
//! fill left in the cache is served from it in every run, and the repeat
//! says so by the counts. Every assertion is a count, none a time.
//!
//! Needs root (loop devices, mount, drop_caches) and mkfs.ext4; without
//! them each test skips, saying why, except under CI=true, where it fails
//! naming what is missing.

mod common;

use std::fs::{self, File};
use std::io::{Read, Write};
use std::os::unix::io::AsRawFd;
use std::path::Path;

use common::{DeviceLock, Loop, Mounted};
use methodic_compiler::plan::Bytes;
use methodic_results::analysis::Evidence;
use methodic_results::device_io::Counter;
use methodic_results::record::Status;
use methodic_runtime::Meter;
use methodic_runtime::{Quiet, RunOptions, run};

/// Fails under CI=true, naming what is missing; else says the test skips.
fn missing(what: &str) {
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("CI=true and this test cannot run: {what} is missing");
    }
    eprintln!("skipped: {what} is missing");
}

/// A loop device with a fresh ext4 on it, mounted; `None` (having said
/// why) when it cannot be made.
fn ext4_on_loop(lock: &DeviceLock) -> Option<(Loop<'_>, Mounted)> {
    let Some(l) = Loop::setup(lock, 256 << 20) else {
        missing("a loop device (losetup, and user xattrs in the temporary folder)");
        return None;
    };
    let mkfs = std::process::Command::new("mkfs.ext4").args(["-q", "-F"]).arg(&l.dev).status();
    if !mkfs.is_ok_and(|s| s.success()) {
        missing("mkfs.ext4");
        return None;
    }
    let Some(m) = Mounted::new(&l.dev, "noatime") else {
        missing("mount");
        return None;
    };
    Some((l, m))
}

fn read_all(path: &Path) -> File {
    let mut f = File::open(path).unwrap();
    let mut buf = Vec::new();
    f.read_to_end(&mut buf).unwrap();
    f
}

#[test]
fn a_file_dropped_from_the_cache_is_read_from_its_device_then_from_the_cache() {
    let Some(lock) = common::devices() else { return missing("root, to set up a loop device") };
    let Some((l, m)) = ext4_on_loop(&lock) else { return };
    let path = m.point.join("data.bin");
    let size = 8u64 << 20;
    let mut f = File::create(&path).unwrap();
    f.write_all(&vec![0x5a; size as usize]).unwrap();
    f.sync_all().unwrap();
    drop(f);
    let f = read_all(&path);
    // SAFETY: posix_fadvise takes a descriptor and numbers, no pointer; `f` keeps the descriptor
    // open for the call.
    assert_eq!(unsafe { libc::posix_fadvise(f.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) }, 0);
    drop(f);

    let meter = Meter::start(&[&path], &[&path]);
    read_all(&path);
    let cold = meter.finish(Bytes(size), Bytes(0));
    let meter = Meter::start(&[&path], &[&path]);
    read_all(&path);
    let warm = meter.finish(Bytes(size), Bytes(0));

    assert_eq!(
        (cold.read.counter, cold.read.source.as_str()),
        (Counter::Device, l.name().as_str()),
        "{cold:?}"
    );
    assert!(cold.read.reached.unwrap().0 >= size, "read from {}: {cold:?}", l.name());
    assert!(!cold.read.served_from_cache(), "{cold:?}");
    assert!(warm.read.served_from_cache(), "read again, from the page cache: {warm:?}");
    assert!(
        warm.read_words("read")
            .unwrap()
            .ends_with(&format!("read from {}: served from the page cache", l.name())),
        "{warm:?}"
    );
}

/// Runs `source` on a 64MiB file on the mounted file system.
fn run_there(m: &Mounted, source: &str, name: &str) -> methodic_results::record::RunReport {
    let plan = methodic_compiler::compile(source, &Default::default()).unwrap_or_else(|d| panic!("{d}")).plan;
    let out = common::temp_path(&format!("devio-{name}"));
    let target = m.point.join(format!("{name}.bin"));
    File::create(&target).unwrap().set_len(64 << 20).unwrap();
    // The test's own file: methodic writes over it when told it may.
    let opts = RunOptions {
        targets: vec![target],
        out,
        seed: 7,
        overwrite: true,
        skip_ceiling: true,
        ..Default::default()
    };
    let report = run(&plan, &opts, &mut Quiet).unwrap_or_else(|e| panic!("{e}"));
    let _ = fs::remove_dir_all(&opts.out);
    assert_eq!(report.status, Status::Completed, "{:?}", report.error);
    report
}

const MEASURE: &str = "methodology \"t\" version \"1\"\ntarget { span 16MiB; io buffered }\n\
    workload seqr { sequential; block 1MiB; read 100% }\n\
    fill { sequential; block 1MiB; read 0% } qd 1\n\
    phase \"read\" {\n  repeat 2 aggregate mean { BODY }\n}\n";

#[test]
fn buffered_steps_count_what_reached_the_device() {
    let Some(lock) = common::devices() else { return missing("root, to set up a loop device") };
    let Some((l, m)) = ext4_on_loop(&lock) else { return };

    // The fill's buffered writes are synced within the step: all of them
    // reached the loop device by its end. The fill leaves the span in the
    // page cache, and every measurement reads it from there.
    let cached = run_there(&m, &MEASURE.replace("BODY", "measure seqr qd 1 for 1s"), "cached");
    let fill = cached.steps.iter().find(|s| s.kind == "fill").unwrap();
    let io = fill.device_io.as_ref().expect("a buffered fill counts its device bytes");
    assert_eq!((io.write.counter, io.write.source.as_str()), (Counter::Device, l.name().as_str()), "{io:?}");
    assert_eq!(io.write.asked, Bytes(16 << 20), "{io:?}");
    assert!(io.write.reached.unwrap() >= io.write.asked, "synced within the step: {io:?}");
    let measures: Vec<_> = cached.steps.iter().filter(|s| s.kind == "measure").collect();
    assert_eq!(measures.len(), 2);
    for s in &measures {
        let io = s.device_io.as_ref().expect("a buffered measurement counts its device bytes");
        assert_eq!(io.read.asked.0, s.summary.as_ref().unwrap().read.as_ref().unwrap().bytes);
        assert!(io.read.served_from_cache(), "{}: {io:?}", s.id);
    }
    let pc = measures[1].repeats.as_ref().and_then(|r| r.page_cache.clone()).expect("the repeat's verdict");
    assert_eq!((pc.decided_by, pc.served_runs), (Evidence::Counters, vec![1, 2]));
    let w = measures[1].repeats.as_ref().unwrap().warning.clone().unwrap_or_default();
    assert!(w.contains("every run was served from the page cache"), "{w}");

    // With the caches dropped before each measurement, each one reads the
    // span from the device on its first pass (the passes after it come
    // from the cache).
    let dropped =
        run_there(&m, &MEASURE.replace("BODY", "drop_caches\n measure seqr qd 1 for 1s"), "dropped");
    for s in dropped.steps.iter().filter(|s| s.kind == "measure") {
        let io = s.device_io.as_ref().unwrap();
        let first_pass = io.read.asked.0.min(16 << 20);
        assert!(io.read.reached.unwrap().0 >= first_pass * 9 / 10, "{}: {io:?}", s.id);
    }
}
