//! The plan: what `lower` produces and the runtime executes. A flat,
//! ordered list of fully resolved steps (no loops, no names to look up),
//! each with its workload written out in bytes and percent, its queue depth
//! in total and per worker, its target settings and its estimate. Written
//! as RON (or JSON) deterministically; [`Plan::from_ron`] reads a plan back
//! and checks its schema version before anything else.
//!
//! This module owns the plan as a whole (its header, conventions, target
//! settings, and what it says per phase); its parts live in submodules,
//! all re-exported here: `step` (steps, their actions and words),
//! `workload` (workloads and "the same I/O"), `dataset` (copy data sets),
//! `load` (open-loop rates and jobs that run together), `cost` (estimates)
//! and `format` (reading and writing RON and JSON).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use methodic_grammar::ast::{
    Aggregate, EraseMethod, IoMode, Metric, OnError, QdCounting, Units, ValueKind, WriteCache,
};
pub use methodic_grammar::units::{Bytes, Duration, Percent};

mod cost;
mod dataset;
mod format;
mod load;
mod step;
mod workload;

pub use self::cost::{Estimate, StepEstimate, TimeRange, Written};
pub use self::dataset::Dataset;
pub(crate) use self::dataset::size_draws;
pub use self::format::Format;
pub use self::load::{Arrivals, Bursts, Job, Pauses, Qos, Rate, RateAmount, Think, fine_name};
pub use self::step::{
    Action, Cell, MeasureStop, Pick, Point, PreconditionStop, Probe, Qd, RepeatRun, SteadyRule, Step,
    aggregate_word, plural,
};
pub use self::workload::{Access, Band, BlockShare, IoKey, Milli, Workload, WorkloadIo};

/// The version of the plan format. Bump it whenever a change to these
/// types would make an old plan read differently, or an older methodic
/// misread a new one. 2: enums in the language's spelling (`step_average`,
/// `measure`); plans of schema 1 (Rust's spelling) still read, through
/// serde aliases.
pub const PLAN_SCHEMA: u32 = 2;

/// The oldest plan schema this methodic reads.
pub const PLAN_SCHEMA_OLDEST: u32 = 1;

/// A compiled plan: the methodology's header and conventions, its target
/// settings, and every step fully resolved (workload in bytes and percent,
/// queue depth in total and per worker, target settings, estimate) in the
/// order the runtime runs them, with the plan's estimate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Plan {
    /// [`PLAN_SCHEMA`] of the compiler that wrote it.
    pub schema: u32,
    /// `methodic-compiler 0.1.0`.
    pub compiler: String,
    pub methodology: Header,
    pub conventions: Conventions,
    /// The target defaults declared at the top level; each step carries the
    /// settings in effect for it.
    pub target: Target,
    /// The drives' volatile write cache for the whole run (`write_cache`
    /// in the top-level target block); left out of the plan when `as_is`.
    #[serde(default, skip_serializing_if = "WriteCache::is_as_is")]
    pub write_cache: WriteCache,
    pub steps: Vec<Step>,
    /// The sum of the steps' estimates.
    pub estimate: Estimate,
}

/// Which methodology the plan was compiled from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Header {
    pub name: String,
    pub version: String,
    pub description: Option<String>,
    /// `sha256:` and the hex digest of the methodology source.
    pub source_hash: String,
    /// The methodology promises never to write to its target.
    pub non_destructive: bool,
    /// What the run does after a step fails: stop there (the default, left
    /// out of the plan) or go on to the next step.
    #[serde(default, skip_serializing_if = "OnError::is_stop")]
    pub on_error: OnError,
    /// Modules brought in with `use`.
    pub uses: Vec<String>,
}

/// How the methodology reports: its units, how it counts queue depth, and
/// which value a step reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Conventions {
    pub units: Units,
    pub queue_depth: QdCounting,
    pub value: ValueKind,
}

impl Default for Conventions {
    fn default() -> Self {
        Conventions { units: Units::Decimal, queue_depth: QdCounting::Total, value: ValueKind::StepAverage }
    }
}

/// How much of the target a step works in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
// The language's spelling; the alias reads plans and results written before.
#[serde(rename_all = "snake_case")]
pub enum Extent {
    /// A share of the target's capacity.
    #[serde(alias = "Percent")]
    Percent(Percent),
    /// A fixed number of bytes from the start of the target.
    #[serde(alias = "Bytes")]
    Bytes(Bytes),
}

impl std::fmt::Display for Extent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Extent::Percent(p) => write!(f, "{p}"),
            Extent::Bytes(b) => write!(f, "{b}"),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
// The language's spelling; the alias reads plans and results written before.
#[serde(rename_all = "snake_case")]
pub enum DataPattern {
    /// Incompressible data, refreshed so that it defeats deduplication.
    #[serde(alias = "Random")]
    Random,
    #[serde(alias = "Zeros")]
    Zeros,
    /// Data that compresses by about this share.
    #[serde(alias = "Compressible")]
    Compressible(Percent),
}

impl std::fmt::Display for DataPattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DataPattern::Random => write!(f, "random"),
            DataPattern::Zeros => write!(f, "zeros"),
            DataPattern::Compressible(p) => write!(f, "compressible {p}"),
        }
    }
}

/// The target settings a step runs with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Target {
    pub span: Extent,
    /// Worker threads declared; a step may use fewer (see [`Qd::workers`]).
    pub workers: u32,
    /// Devices the workers are spread over, round robin.
    pub devices: u32,
    pub io: IoMode,
    pub data: DataPattern,
}

impl Default for Target {
    fn default() -> Self {
        Target {
            span: Extent::Percent(Percent::HUNDRED),
            workers: 1,
            devices: 1,
            io: IoMode::Direct,
            data: DataPattern::Random,
        }
    }
}

impl Plan {
    /// For each step, whether a drop_caches ran since the last step that
    /// touched the target: the cache policy the step runs under.
    pub fn caches_dropped(&self) -> Vec<bool> {
        let mut dropped = false;
        self.steps
            .iter()
            .map(|s| {
                let before = dropped;
                if matches!(s.action, Action::DropCaches) {
                    dropped = true;
                } else if s.action.touches_target() {
                    dropped = false;
                }
                before
            })
            .collect()
    }
}

impl Plan {
    /// Time and step counts per phase, in plan order; steps outside phases
    /// are gathered under `None`.
    pub fn phases(&self) -> Vec<PhaseSummary> {
        let mut out: Vec<PhaseSummary> = Vec::new();
        for step in &self.steps {
            match out.last_mut() {
                Some(last) if last.phase == step.phase => last.add(step),
                _ => {
                    let mut p = PhaseSummary { phase: step.phase.clone(), ..PhaseSummary::default() };
                    p.add(step);
                    out.push(p);
                }
            }
        }
        out
    }
}

/// A phase's share of the plan's estimate.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PhaseSummary {
    pub phase: Option<String>,
    pub steps: u32,
    pub time: TimeRange,
    pub device_bound_steps: u32,
    pub written: Written,
}

impl PhaseSummary {
    fn add(&mut self, step: &Step) {
        self.steps += 1;
        self.time = self.time + step.estimate.time;
        self.device_bound_steps += u32::from(step.estimate.device_bound);
        self.written = self.written + step.estimate.written;
    }
}
