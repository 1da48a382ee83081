//! The page-cache trap, for real: a buffered copy of a data set that fits
//! in free RAM, repeated without dropping caches, reads the drive once and
//! the cache after, and the results must say so; the same copy with
//! drop_caches before each run must not. The data set is on the results
//! directory's file system; the copies go to tmpfs. Needs root (drop_caches writes
//! /proc/sys/vm/drop_caches); skips, saying why, without it.

use std::path::PathBuf;

use methodic_runtime::manifest;

mod common;
use common::methodic;

const COPY: &str = "methodology \"cache-trap\" version \"1.0\"\n\
    target { span 64MiB; io buffered }\n\
    dataset d { size 1MiB..4MiB; total 256MiB; seed 1 }\n\
    phase \"copy\" {\n  repeat 4 aggregate mean { COPY }\n}\n";

/// Runs the copy methodology with `body` in its repeat; the last run's
/// repeat summary.
fn run(name: &str, body: &str) -> methodic_runtime::analysis::repeats::RepeatSummary {
    let dir = std::env::temp_dir().join(format!("methodic-cache-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("m.method");
    std::fs::write(&file, COPY.replace("COPY", body)).unwrap();
    let out: PathBuf = dir.join("results");
    // The copies land in RAM (beside a target file on tmpfs), so that only
    // the reads of the data set, from the drive or the page cache, differ
    // between runs: the file system's own writeback and discards after
    // each run would blur them.
    let target = PathBuf::from(format!("/dev/shm/methodic-cache-{name}-{}.bin", std::process::id()));
    std::fs::write(&target, vec![0u8; 64 << 20]).unwrap();
    let o = methodic(&[
        "run",
        file.to_str().unwrap(),
        "--target",
        target.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let _ = std::fs::remove_file(&target);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let loaded = manifest::load(&out).unwrap();
    let last = loaded.steps.last().unwrap();
    let summary =
        last.repeats.clone().unwrap_or_else(|| panic!("{name}: the last run has the repeat summary"));
    std::fs::remove_dir_all(&dir).unwrap();
    summary
}

#[test]
fn a_repeated_buffered_copy_warns_of_the_page_cache_unless_caches_are_dropped() {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let root = status.lines().any(|l| l.starts_with("Uid:") && l.split_whitespace().nth(2) == Some("0"));
    if !root {
        eprintln!("skipped: dropping the page cache needs root");
        return;
    }
    let cached = run("cached", "copy d");
    assert_eq!(cached.runs.len(), 4);
    let w = cached.warning.as_deref().unwrap_or_else(|| panic!("no warning: {cached:?}"));
    assert!(w.contains("fits in the") && w.contains("page cache") && w.contains("drop_caches"), "{w}");
    let dropped = run("dropped", "drop_caches\n copy d");
    assert!(dropped.warning.is_none(), "caches dropped before each run: {dropped:?}");
}
