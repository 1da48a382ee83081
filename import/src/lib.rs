//! Other tools' job files as methodologies: Iometer configuration files
//! (`iometer`), vdbench parameter files (`vdbench`) and DiskSpd XML
//! profiles and command lines (`diskspd`). fio's job files are the
//! methodic-fio crate's (fio/), which exports to fio as well.
//!
//! Each tool's module reads the file by the rules of the tool's own
//! reader (each module's docs cite them), translates what methodic can
//! express the way the tool means it, says in a comment every setting it
//! leaves out and why, and refuses the rest, every problem named with its
//! line, place and setting, and a hint that is true of methodic today.
//! The text it writes is then formatted and compiled (`finish`), so that
//! an imported methodology always compiles. See ARCHITECTURE.md.
//!
//! `disk_mark` reads results rather than jobs: CrystalDiskMark's and
//! KDiskMark's text results. `runs` makes each tool's results (those and
//! fio's, Iometer's and DiskSpd's) a run that methodic-results writes as
//! a results directory (`methodic import FORMAT RESULTS -o DIR`).

pub mod disk_mark;
pub mod diskspd;
mod finish;
pub mod iometer;
mod problem;
mod results_error;
pub mod runs;
mod text;
pub mod vdbench;

pub use finish::Imported;
pub use problem::{ImportError, ImportErrorKind};
pub use results_error::ResultsError;

/// A job file to import: its text, its names, and what the tool would
/// take from around it.
pub struct Input<'a> {
    /// The file's text.
    pub text: &'a str,
    /// The file as the user named it, in the header comment and in errors.
    pub file: &'a str,
    /// The methodology's name.
    pub name: &'a str,
    /// Values given on the command line for the file's variables
    /// (vdbench's `$lun`), as `(name, value)`.
    pub vars: &'a [(String, String)],
    /// Reads a file the job file includes (vdbench's `include=`), by the
    /// name written there, relative to the job file's folder.
    pub include: &'a dyn Fn(&str) -> Result<String, String>,
}
