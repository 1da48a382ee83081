//! The tests of what a run leaves behind and what reads it: the manifest
//! (`results/manifest.rs`), going on after a crash or a signal
//! (`results/resume.rs`), the pairing of compared runs
//! (`results/compare_pairs.rs`), the views of load steps
//! (`results/load_views.rs`), another tool's results imported and
//! compared with a methodic run (`results/imported.rs`), the SNIA PTS
//! operating points
//! (`results/pts.rs`), no Debug text in what a person reads
//! (`results/no_debug_text.rs`) and the JSON Schemas of what methodic
//! writes, checked against a run's documents (`results/schema.rs`). A
//! module of the e2e binary (`main.rs` says why one binary).

#[path = "results/compare_pairs.rs"]
mod compare_pairs;
#[path = "results/imported.rs"]
mod imported;
#[path = "results/load_views.rs"]
mod load_views;
#[path = "results/manifest.rs"]
mod manifest;
#[path = "results/no_debug_text.rs"]
mod no_debug_text;
#[path = "results/pts.rs"]
mod pts;
#[path = "results/resume.rs"]
mod resume;
#[path = "results/schema.rs"]
mod schema;
#[path = "results/until_cv.rs"]
mod until_cv;
