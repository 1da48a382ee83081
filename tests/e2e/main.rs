//! methodic end to end, one test binary: `drive_lab` (methodic on
//! emulated NVMe, SATA and SCSI drives in a QEMU guest), `run` (every spec
//! rehearsed, and on many hosts through fio's servers), `report` (every format, the HTML pages in Chromium, an
//! unreadable file named, the installed binary), `results` (the manifest,
//! resume, compare's pairing, load views, PTS operating points, no Debug
//! text, the JSON Schemas) and `cache` (buffered copies and the page
//! cache). Each module was a binary of its own; together, their tests
//! share the machine's cores while others wait on a rehearsal's timers, a
//! throttled device or the drive lab's guest, where one binary after
//! another left the cores idle in those waits (on 2026-12-06 here, the
//! whole `cargo test --workspace` took 218 to 226 s with these as five
//! binaries, 173 s with them as one).
//!
//! One area alone: `cargo test --test e2e report::` (or `run::`,
//! `results::`, `cache::`, `drive_lab::`); one test by name, as ever.

#[path = "../browser/mod.rs"]
mod browser;
#[path = "../common/mod.rs"]
mod common;
// A file whose reads come back corrupted, for fio's verify on many hosts
// (`run::hosts`); the rest of it is tests/faults.rs's.
#[allow(dead_code)]
#[path = "../faultfs/mod.rs"]
mod faultfs;

mod cache;
// The longest test, one boot of the drive lab's guest: its name sorts
// early, so that it starts with the first tests rather than last.
mod drive_lab;
mod report;
mod results;
mod run;
