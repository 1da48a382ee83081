//! The page-cache trap, for real: a buffered copy of a data set that fits
//! in free RAM, repeated without dropping caches, reads the drive once and
//! the cache after, and the results must say so; the same copy with
//! drop_caches before each run must not. The data set is on the results
//! directory's file system; the copies go to tmpfs. Needs root (drop_caches writes
//! /proc/sys/vm/drop_caches); skips, saying why, without it.

use std::path::PathBuf;

use methodic_runtime::manifest;

mod common;
use common::{methodic, run_source};

/// One test at a time: a drop_caches in one would empty the cache another
/// is timing.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

const COPY: &str = "methodology \"cache-trap\" version \"1.0\"\n\
    target { span 64MiB; io buffered }\n\
    dataset d { size 1MiB..4MiB; total 256MiB; seed 1 }\n\
    phase \"copy\" {\n  repeat 4 aggregate mean { COPY }\n}\n";

/// Runs the copy methodology with `body` in its repeat; the last run's
/// repeat summary.
fn run(name: &str, body: &str) -> methodic_runtime::analysis::repeats::RepeatSummary {
    // The copies land in RAM (beside a target file on tmpfs), so that only
    // the reads of the data set, from the drive or the page cache, differ
    // between runs: the file system's own writeback and discards after
    // each run would blur them.
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
    let last = loaded.steps.last().unwrap();
    last.repeats.clone().unwrap_or_else(|| panic!("{name}: the last run has the repeat summary"))
}

#[test]
fn a_repeated_buffered_copy_warns_of_the_page_cache_unless_caches_are_dropped() {
    let _serial = serial();
    if !common::is_root() {
        eprintln!("skipped: dropping the page cache needs root");
        return;
    }
    let cached = run("cached", "copy d");
    assert_eq!(cached.runs.len(), 4);
    let w = cached.warning.as_deref().unwrap_or_else(|| panic!("no warning: {cached:?}"));
    assert!(
        w.contains("fits in the")
            && w.contains("likely came from the page cache")
            && w.contains("drop_caches"),
        "{w}"
    );
    let dropped = run("dropped", "drop_caches\n copy d");
    // Run 1 may still be a little slower (a warm-up the results may name);
    // what must not happen is blaming the page cache.
    let blamed = dropped.warning.as_deref().is_some_and(|w| w.contains("likely came from the page cache"));
    assert!(!blamed, "caches dropped before each run: {dropped:?}");
}

/// The v1.1 remedy, for real: RAM limited (memory cgroup) below the data
/// set's size, so no run can read it from the cache; the runs agree and
/// nothing blames the page cache. (The consumer v1.1 spec limits RAM to
/// 16GiB against its 29.7GB set; here 1GiB against 1.25GiB.)
#[test]
fn with_ram_limited_below_the_data_set_the_cache_is_not_blamed() {
    let _serial = serial();
    if !common::is_root() {
        eprintln!("skipped: limiting RAM with a memory cgroup needs root");
        return;
    }
    let source = COPY
        .replace("total 256MiB", "total 1280MiB")
        .replace("  repeat 4", "  limit_ram 1GiB\n  repeat 4")
        .replace("COPY", "copy d");
    let out = run_source("cache-limited", &source, &[]);
    let loaded = manifest::load(&out).unwrap();
    std::fs::remove_dir_all(out.parent().unwrap()).unwrap();
    let limit =
        loaded.steps.iter().flat_map(|s| &s.actions).find(|a| a.starts_with("RAM limited to 1.0 GiB"));
    assert!(limit.is_some(), "the limit was put in force: {:?}", loaded.steps[0].actions);
    let summary = loaded.steps.last().unwrap().repeats.clone().expect("the repeat summary");
    let blamed = summary.warning.as_deref().is_some_and(|w| w.contains("likely came from the page cache"));
    assert!(!blamed, "{summary:?}");
}

/// Rehearses the consumer copy methodology v1.0 with `extra` arguments.
fn consumer(name: &str, extra: &[&str]) -> manifest::Loaded {
    let dir = std::env::temp_dir().join(format!("methodic-consumer-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut args = vec!["run", "--rehearse", "specs/consumer-v1.0.method", "--out", dir.to_str().unwrap()];
    args.extend_from_slice(extra);
    let o = methodic(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let loaded = manifest::load(&dir).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    loaded
}

/// The consumer copy methodology v1.0 (buffered copies, 5 runs each, no
/// cache control) reproduces the run-1 outlier in a rehearsal: its
/// datasets are read from the drive once and from the page cache after.
#[test]
fn consumer_v1_0_warns_of_the_page_cache() {
    let _serial = serial();
    let tmp = methodic_runtime::host::file_system(&std::env::temp_dir());
    if tmp.as_ref().is_some_and(|f| f.fs_type == "tmpfs") {
        eprintln!("skipped: the temporary folder is a tmpfs, where a data set is in RAM all along");
        return;
    }
    let loaded = consumer("disk", &[]);
    let warnings: Vec<_> = loaded.steps.iter().filter_map(|s| s.repeats.as_ref()?.warning.clone()).collect();
    assert!(!warnings.is_empty(), "run 1 stands apart in at least one of the two copy tests");
    assert!(warnings.iter().all(|w| w.contains("likely came from the page cache")), "{warnings:?}");
}

/// With `--datasets` on a tmpfs the source is in RAM all along: the
/// manifest says where it was, the copies read from it, and no warning
/// blames the page cache.
#[test]
fn datasets_on_tmpfs_are_named_in_the_manifest() {
    let _serial = serial();
    let datasets = PathBuf::from(format!("/dev/shm/methodic-datasets-{}", std::process::id()));
    let loaded = consumer("tmpfs", &["--datasets", datasets.to_str().unwrap()]);
    let _ = std::fs::remove_dir_all(&datasets);
    let note = loaded.manifest.datasets.clone().expect("the manifest says where the datasets were");
    assert_eq!(note.file_system.map(|f| f.fs_type).as_deref(), Some("tmpfs"));
    let copies: Vec<_> = loaded.steps.iter().filter_map(|s| s.copy.as_ref()).collect();
    assert_eq!(copies.len(), 10);
    assert!(copies.iter().all(|c| c.source.starts_with(&datasets)), "the copies read from the tmpfs");
    let blamed = loaded
        .steps
        .iter()
        .filter_map(|s| s.repeats.as_ref()?.warning.clone())
        .any(|w| w.contains("likely came from the page cache"));
    assert!(!blamed, "a source in RAM is not the page-cache trap");
}
