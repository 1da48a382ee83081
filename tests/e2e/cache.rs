//! The page-cache trap, for real, decided by the kernel's counts and never
//! by how fast a run went: a buffered copy of a data set that fits in free
//! RAM, repeated without dropping caches, reads the drive once and the
//! cache after, and the results must say so with the bytes each run read
//! from the device; the same copy with drop_caches before each run, or
//! with RAM limited below the data set, reads the device every run and
//! nothing blames the cache. The data set is on the results directory's
//! file system (the temporary folder, which must be on a block device);
//! the copies go to tmpfs, or beside the scratch file.
//!
//! Needs root (drop_caches, memory cgroups) and a temporary folder on a
//! block device; without them each test skips, saying why, except under
//! CI=true, where it fails naming what is missing.

use std::fs::File;
use std::os::unix::io::AsRawFd;
use std::path::PathBuf;

use methodic_results::analysis::{Evidence, RepeatSummary};
use methodic_results::device_io::{Counter, DeviceIo};
use methodic_results::manifest;

use crate::common::{self, methodic, run_source};

/// One test at a time, across test binaries and worktrees too: a
/// drop_caches in one would empty the cache another is counting on. The
/// device tests' lock (runtime/tests/common), taken as they take it.
struct Serial(#[allow(dead_code)] File);

fn serial() -> Serial {
    let f = File::create("/tmp/methodic-test-devices.lock").expect("the device tests' lock file");
    // SAFETY: flock takes a descriptor and flags, no pointer; `f` keeps the descriptor open (and
    // the lock held) for as long as the Serial lives.
    unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX) };
    Serial(f)
}

/// Whether the test can run: when `missing` names something it lacks, it
/// skips, saying so, outside CI; under CI=true it fails naming it.
fn can_run(missing: Option<String>) -> bool {
    let Some(missing) = missing else { return true };
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("CI=true and this test cannot run: {missing}");
    }
    eprintln!("skipped: {missing}");
    false
}

/// What a copy test needs: root, and (for `on_disk`) a temporary folder
/// whose data reaches a block device.
fn needs(root: bool, on_disk: bool) -> Option<String> {
    if root && !common::is_root() {
        return Some("dropping the page cache and limiting RAM need root".into());
    }
    let tmp = std::env::temp_dir();
    let fs = methodic_runtime::file_system(&tmp);
    if on_disk && fs.as_ref().is_none_or(|f| matches!(f.fs_type.as_str(), "tmpfs" | "ramfs")) {
        return Some(format!(
            "the temporary folder {} is not on a block device (it is {}), so a data set there is in RAM all \
             along; set TMPDIR to a folder on a disk",
            tmp.display(),
            fs.map_or("on an unknown file system".into(), |f| f.fs_type)
        ));
    }
    None
}

const COPY: &str = "methodology \"cache-trap\" version \"1.0\"\n\
    target { span 64MiB; io buffered }\n\
    dataset d { size 1MiB..4MiB; total 128MiB; seed 1 }\n\
    phase \"copy\" {\n  repeat 4 aggregate mean { COPY }\n}\n";

/// The copies of a run, in order, with what reached the device, and the
/// repeat summary of the last.
struct Copies {
    io: Vec<DeviceIo>,
    summary: RepeatSummary,
}

fn copies(loaded: &manifest::Loaded) -> Copies {
    let io: Vec<DeviceIo> = loaded
        .steps
        .iter()
        .filter(|s| s.copy.is_some())
        .map(|s| s.device_io.clone().unwrap_or_else(|| panic!("{}: a copy carries its device counts", s.id)))
        .collect();
    let summary = loaded.steps.last().unwrap().repeats.clone().expect("the last run has the repeat summary");
    Copies { io, summary }
}

/// Runs the copy methodology with `body` in its repeat.
fn run(name: &str, body: &str) -> Copies {
    // The copies land in RAM (beside a target file on tmpfs), so that only
    // the reads of the data set, from the drive or the page cache, touch
    // the drive.
    let target = PathBuf::from(format!("/dev/shm/methodic-cache-{name}-{}.bin", std::process::id()));
    std::fs::write(&target, vec![0u8; 64 << 20]).unwrap();
    let out = run_source(
        &format!("cache-{name}"),
        &COPY.replace("COPY", body),
        &["--target", target.to_str().unwrap()],
    );
    let _ = std::fs::remove_file(&target);
    let loaded = manifest::load(&out).unwrap();
    std::fs::remove_dir_all(out.parent().unwrap()).unwrap();
    copies(&loaded)
}

/// Bytes of a copy's reads that reached the device, by the counters.
fn from_device(io: &DeviceIo) -> u64 {
    assert!(
        matches!(io.read.counter, Counter::Device | Counter::Process) && io.read.reached.is_some(),
        "the reads were counted: {io:?}"
    );
    io.read.reached.unwrap().0
}

#[test]
fn a_repeated_buffered_copy_warns_of_the_page_cache_unless_caches_are_dropped() {
    let _serial = serial();
    if !can_run(needs(true, true)) {
        return;
    }
    let cached = run("cached", "copy d");
    assert_eq!(cached.io.len(), 4);
    // The kernel's counts: the data set, made and dropped from the page
    // cache, is read from the device by run 1 and from the cache after.
    let asked = cached.io[0].read.asked.0;
    assert_eq!(asked, 128 << 20);
    assert!(from_device(&cached.io[0]) >= asked * 9 / 10, "run 1 read the device: {:?}", cached.io[0]);
    for (k, io) in cached.io.iter().enumerate().skip(1) {
        assert!(from_device(io) < asked / 10 && io.read.served_from_cache(), "run {}: {io:?}", k + 1);
        assert_eq!(io.write.counter, Counter::Ram, "the copies went to tmpfs: {io:?}");
    }
    let pc = cached.summary.page_cache.clone().expect("a buffered repeat answers the page-cache question");
    assert_eq!((pc.decided_by, pc.served_runs), (Evidence::Counters, vec![2, 3, 4]));
    let w = cached.summary.warning.as_deref().unwrap_or_else(|| panic!("no warning: {:?}", cached.summary));
    assert!(
        w.contains("runs 2..4 were served from the page cache, not the drive, by the kernel's counts")
            && w.contains(&format!(
                "run 2: 128.0 MiB copied, {} read from",
                human(from_device(&cached.io[1]))
            ))
            && w.contains("drop_caches"),
        "{w}"
    );

    let dropped = run("dropped", "drop_caches\n copy d");
    // Every run reads the device; run 1 may still be a little slower (a
    // warm-up the results may name), but nothing blames the page cache.
    for (k, io) in dropped.io.iter().enumerate() {
        assert!(from_device(io) >= asked * 9 / 10, "run {}: {io:?}", k + 1);
    }
    let pc = dropped.summary.page_cache.clone().expect("a buffered repeat answers the page-cache question");
    assert_eq!((pc.decided_by, pc.served_runs), (Evidence::Counters, vec![]));
    let blamed = dropped.summary.warning.as_deref().is_some_and(|w| w.contains("page cache, not the drive"));
    assert!(!blamed, "caches dropped before each run: {:?}", dropped.summary);
}

fn human(b: u64) -> String {
    methodic_results::units::human(b)
}

/// The v1.1 remedy, for real: RAM limited (memory cgroup) below the data
/// set's size, so no run can read it all from the cache: the kernel
/// counts at least the part beyond the limit read from the device in every
/// run, and nothing blames the page cache. (The consumer v1.1 spec limits
/// RAM to 16GiB against its 29.7GB set; here 1GiB against 1.25GiB, and
/// two runs: the second is the one a cache would serve; a third and fourth
/// would only read the 1.25GiB again.)
#[test]
fn with_ram_limited_below_the_data_set_the_cache_is_not_blamed() {
    let _serial = serial();
    if !can_run(needs(true, true)) {
        return;
    }
    let source = COPY
        .replace("total 128MiB", "total 1280MiB")
        .replace("  repeat 4", "  limit_ram 1GiB\n  repeat 2")
        .replace("COPY", "copy d");
    let out = run_source("cache-limited", &source, &[]);
    let loaded = manifest::load(&out).unwrap();
    std::fs::remove_dir_all(out.parent().unwrap()).unwrap();
    let limit = loaded
        .steps
        .iter()
        .flat_map(|s| &s.actions)
        .find(|a| a.starts_with("RAM limited to 1.0 GiB"))
        .cloned();
    let limit = limit.unwrap_or_else(|| panic!("the limit was put in force: {:?}", loaded.steps[0].actions));
    let c = copies(&loaded);
    assert_eq!(c.io.len(), 2);
    for (k, io) in c.io.iter().enumerate() {
        let asked = io.read.asked.0;
        assert_eq!(asked, 1280 << 20);
        // A memory cgroup holds at most its limit of the data set's pages:
        // the rest comes from the device, every run.
        if limit.contains("memory cgroup") {
            assert!(from_device(io) >= asked - (1 << 30), "run {}: {io:?}", k + 1);
        }
        assert!(!io.read.served_from_cache(), "run {}: {io:?}", k + 1);
    }
    let pc = c.summary.page_cache.clone().expect("a buffered repeat answers the page-cache question");
    assert_eq!((pc.decided_by, pc.served_runs), (Evidence::Counters, vec![]));
    let blamed = c.summary.warning.as_deref().is_some_and(|w| w.contains("page cache, not the drive"));
    assert!(!blamed, "{:?}", c.summary);
}

/// Rehearses the consumer copy methodology v1.0 with `extra` arguments.
fn consumer(name: &str, extra: &[&str]) -> manifest::Loaded {
    let dir = common::temp_path(&format!("consumer-{name}"));
    let mut args = vec!["run", "--rehearse", "specs/consumer-v1.0.method", "--out", dir.to_str().unwrap()];
    args.extend_from_slice(extra);
    let o = methodic(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let loaded = manifest::load(&dir).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    loaded
}

/// The consumer copy methodology v1.0 (buffered copies, 5 runs each, no
/// cache control) falls into the trap in a rehearsal: each data set is read
/// from the drive by run 1 and from the page cache by runs 2..5, as the
/// kernel counts, and both copy tests say so.
#[test]
fn consumer_v1_0_warns_of_the_page_cache() {
    let _serial = serial();
    if !can_run(needs(false, true)) {
        return;
    }
    let loaded = consumer("disk", &[]);
    let summaries: Vec<&RepeatSummary> = loaded.steps.iter().filter_map(|s| s.repeats.as_ref()).collect();
    assert_eq!(summaries.len(), 2, "one summary a copy test");
    for s in summaries {
        let pc = s.page_cache.as_ref().expect("a buffered repeat answers the page-cache question");
        assert_eq!((pc.decided_by, &pc.served_runs), (Evidence::Counters, &vec![2, 3, 4, 5]), "{s:?}");
        let w = s.warning.as_deref().unwrap_or_default();
        assert!(w.contains("runs 2..5 were served from the page cache"), "{w}");
    }
    let copies: Vec<&DeviceIo> = loaded.steps.iter().filter_map(|s| s.device_io.as_ref()).collect();
    assert_eq!(copies.len(), 10);
    for (k, io) in copies.iter().enumerate() {
        let first = k % 5 == 0;
        assert_eq!(!io.read.served_from_cache(), first, "copy {}: {io:?}", k + 1);
    }
}

/// With `--datasets` on a tmpfs the source is in RAM all along: the
/// manifest says where it was, the copies read from it, their counts say
/// no device was under it, and no warning blames the page cache.
#[test]
fn datasets_on_tmpfs_are_named_in_the_manifest() {
    let _serial = serial();
    let shm = std::path::Path::new("/dev/shm");
    let tmpfs = methodic_runtime::file_system(shm).is_some_and(|f| f.fs_type == "tmpfs");
    if !can_run((!tmpfs).then(|| "there is no tmpfs at /dev/shm".to_string())) {
        return;
    }
    let datasets = shm.join(format!("methodic-datasets-{}", std::process::id()));
    let loaded = consumer("tmpfs", &["--datasets", datasets.to_str().unwrap()]);
    let _ = std::fs::remove_dir_all(&datasets);
    let note = loaded.manifest.datasets.clone().expect("the manifest says where the datasets were");
    assert_eq!(note.file_system.map(|f| f.fs_type).as_deref(), Some("tmpfs"));
    let copies: Vec<_> = loaded.steps.iter().filter(|s| s.copy.is_some()).collect();
    assert_eq!(copies.len(), 10);
    for s in &copies {
        assert!(s.copy.as_ref().unwrap().source.starts_with(&datasets), "the copies read from the tmpfs");
        let io = s.device_io.as_ref().expect("a copy carries its device counts");
        assert_eq!((io.read.counter, io.read.source.as_str()), (Counter::Ram, "tmpfs"), "{io:?}");
    }
    for s in loaded.steps.iter().filter_map(|s| s.repeats.as_ref()) {
        assert_eq!(s.page_cache.as_ref().map(|p| p.decided_by), Some(Evidence::Ram), "{s:?}");
        let blamed = s.warning.as_deref().is_some_and(|w| w.contains("page cache, not the drive"));
        assert!(!blamed, "a source in RAM is not the page-cache trap: {s:?}");
    }
}
