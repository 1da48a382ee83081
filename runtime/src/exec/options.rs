//! What a caller sets for a run and how it watches one: the run's options
//! ([`RunOptions`], with the engine asked for) and its [`Observer`].

use std::path::{Path, PathBuf};
use std::sync::Arc;

use methodic_compiler::plan::{Step, TimeRange};
use methodic_results::record::StepResult;

use crate::engine::EngineFactory;

/// Which engine to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EngineChoice {
    /// psync where each worker keeps one I/O in flight, io_uring elsewhere.
    #[default]
    Auto,
    IoUring,
    Psync,
}

impl EngineChoice {
    /// As `--engine` spells it, and the manifest records it.
    pub(crate) fn word(self) -> &'static str {
        match self {
            EngineChoice::Auto => "auto",
            EngineChoice::IoUring => "io-uring",
            EngineChoice::Psync => "psync",
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Targets, one a device of the plan; none for a scratch file.
    pub targets: Vec<PathBuf>,
    /// The results directory to create.
    pub out: PathBuf,
    pub rehearse: bool,
    pub engine: EngineChoice,
    /// `--destroy`, once for each device: the serials (or paths) of the
    /// block devices the user agreed to overwrite.
    pub destroy: Vec<String>,
    /// Keep scratch files after the run.
    pub keep_scratch: bool,
    /// The seed every offset and choice derives from.
    pub seed: u64,
    /// Pin workers to CPUs, round robin.
    pub pin: bool,
    /// The methodology source, copied into the results.
    pub source: Option<String>,
    /// Do not record latencies and series: only to measure what recording
    /// costs. Results say so.
    pub no_latency: bool,
    /// Do not measure the host ceiling before the first step.
    pub skip_ceiling: bool,
    /// Do not measure the host's pacing floor beside open-loop steps.
    pub skip_floor: bool,
    /// `--overwrite`: write over an existing file target methodic did not create.
    pub overwrite: bool,
    /// Where copy tests generate their datasets (a tmpfs keeps the source
    /// from being the bottleneck); `datasets/` in the results directory
    /// when `None`.
    pub datasets: Option<PathBuf>,
    /// Makes each worker's engine; the real io_uring and psync engines
    /// ([`Real`](crate::engine::Real)) when `None`. Tests give one that injects faults or
    /// notes every I/O.
    pub engines: Option<Arc<dyn EngineFactory>>,
    /// A run on many hosts: each step's I/O runs on every one of them at
    /// once, through fio's client/server mode; empty for a run on this
    /// machine.
    pub hosts: Vec<crate::hosts::HostSpec>,
    /// The fio that talks to the hosts' servers; `fio` on the PATH when `None`.
    pub fio: Option<PathBuf>,
    /// A run on many hosts: how long after its jobs are sent every host
    /// starts each I/O run, in milliseconds (1500 when `None`), widened
    /// when a host starts later than that.
    pub start_margin_ms: Option<u64>,
    /// A run on many hosts: the most ramp and record time, in
    /// milliseconds, of a sweep's or a repeat's timed measurements sent
    /// to the hosts in one fio session (300000, 5 minutes, when `None`;
    /// 0: a session a step).
    pub batch_ms: Option<u64>,
}

/// What the caller sees of a run as it goes: the CLI draws a progress
/// bar; tests see nothing.
pub trait Observer {
    fn step_started(&mut self, _index: usize, _total: usize, _step: &Step, _remaining: TimeRange) {}
    fn step_finished(&mut self, _index: usize, _step: &Step, _result: &StepResult) {}
    fn note(&mut self, _message: &str) {}
    /// The share done of work that reports it (a drive's sanitize), 0 to 1.
    fn progress(&mut self, _what: &str, _share: f64) {}
}

/// An observer that shows nothing.
pub struct Quiet;

impl Observer for Quiet {}

impl RunOptions {
    /// Where copy tests keep their datasets.
    pub(crate) fn datasets_dir(&self, results: &Path) -> PathBuf {
        self.datasets.clone().unwrap_or_else(|| results.join("datasets"))
    }
}
