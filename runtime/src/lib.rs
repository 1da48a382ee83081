//! methodic's runtime: a validated plan and its targets go in; the plan's
//! steps are executed with an io_uring or psync engine, and each step's
//! numbers come out, written to a results directory as they are made.
//!
//! The crate's public face is what other crates use, each under one name
//! at its root; every module is private. The records a run writes (the
//! run report, step results, the manifest and the results directory) are
//! `methodic-results`' types, named only there.
#![doc = include_str!("../ARCHITECTURE.md")]

mod access;
mod analysis;
mod ceiling;
mod copy;
mod data;
mod devio;
mod drive;
mod engine;
mod error;
mod exec;
mod failure;
mod guard;
mod hlog;
mod host;
mod hosts;
mod manifest;
mod mark;
mod probe;
mod region;
mod rehearse;
mod resume;
mod rng;
mod series;
mod stats;
mod steady;
mod sysfs;
mod system;
mod target;
mod testing;
mod time;
mod verify;
mod worker;
mod workload;

// Running a plan: `run` and `resume`, their options and what they report
// on the way; `rehearse` scales a plan down as `run --rehearse` does;
// `calibrate` measures the host ceiling alone (`methodic calibrate`).
pub use exec::{EngineChoice, Observer, Quiet, RunOptions, calibrate, run, stop_requested};
pub use rehearse::rehearse;
pub use resume::resume;

// Errors, and one in a line with its hint.
pub use error::{Error, Result, describe};

// Many hosts: the hosts file read as `run --hosts` reads it.
pub use hosts::{HostSpec, parse_hosts};

// Engines: the interface a factory in `RunOptions::engines` implements
// (tests inject faults or note every I/O through it), what workers hand
// it, and whether this kernel runs io_uring.
pub use data::{Buffers, Lease};
pub use engine::{Completion, Engine, EngineFactory, Real, Request, Setup};
pub use worker::io_uring_available;
pub use workload::{Io, Op};

// Targets opened as a run opens them, the destructive-write guard
// included (the guard's device tests open them so), and the device
// counters a buffered step is metered by.
pub use devio::Meter;
pub use target::{OpenOptionsT, Target};

// What the command line shows besides runs: the host's CPUs and file
// systems, the median the crosscheck takes, the most I/O shapes a run
// measures a host ceiling for, and timestamps as results name them.
pub use analysis::median;
pub use ceiling::MAX_SHAPES;
pub use host::{allowed_cpus, file_system};
pub use time::{compact, unix_now};

// The data generator and its random stream, for the data benchmark.
pub use data::Pattern;
pub use rng::Rng;
