//! The tests of what a run leaves behind and what reads it: the manifest
//! (`results/manifest.rs`), going on after a crash or a signal
//! (`results/resume.rs`) and the pairing of compared runs
//! (`results/compare_pairs.rs`). One test binary: each of them mostly
//! waits on a rehearsal's timers, so together, four at a time, they share
//! the machine's cores rather than take turns at them.

mod common;

#[path = "results/compare_pairs.rs"]
mod compare_pairs;
#[path = "results/manifest.rs"]
mod manifest;
#[path = "results/resume.rs"]
mod resume;
