//! methodic's runtime: a validated plan and its targets go in; the plan's
//! steps are executed with an io_uring or psync engine, and each step's
//! numbers come out, written to a results directory as they are made.
#![doc = include_str!("../ARCHITECTURE.md")]

pub mod access;
pub mod analysis;
pub mod ceiling;
pub mod copy;
pub mod data;
pub mod devio;
pub mod drive;
pub mod engine;
pub mod error;
pub mod exec;
pub mod failure;
pub mod guard;
pub mod hlog;
pub mod host;
pub mod hosts;
pub mod manifest;
mod mark;
pub mod probe;
pub mod region;
pub mod rehearse;

pub mod resume;
pub mod rng;
pub mod series;
pub mod stats;
pub mod steady;
mod sysfs;
pub mod system;
pub mod target;
mod testing;
pub mod time;
pub mod units;
pub mod verify;
pub mod worker;
pub mod workload;

pub use error::{Error, Result};
pub use exec::{EngineChoice, Observer, Quiet, RunOptions, run};
pub use methodic_results::record::{RunReport, Status, StepResult};
pub use resume::resume;
