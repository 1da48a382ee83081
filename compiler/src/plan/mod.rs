//! The plan: what `lower` produces and the runtime executes. A flat,
//! ordered list of fully resolved steps (no loops, no names to look up),
//! each with its workload written out in bytes and percent, its queue depth
//! in total and per worker, its target settings and its estimate. Written
//! as RON (or JSON) deterministically; [`Plan::from_ron`] reads a plan back
//! and checks its schema version before anything else.
//!
//! This module owns the plan as a whole (its header, conventions, what it
//! says per phase, and how it is written out and read back); its parts
//! live in submodules, all re-exported here: `step` (steps and their
//! actions), `workload` (workloads written out), `load` (queue depths,
//! open-loop rates and jobs that run together), `io_key` ("the same I/O"),
//! `target` (target settings), `dataset` (copy data sets), `cost`
//! (estimates) and `words` (numbers and names in words). None of them
//! takes anything from this module.

use methodic_grammar::{Code, Diagnostic};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use methodic_grammar::ast::{
    Aggregate, EraseMethod, IoMode, Metric, OnError, QdCounting, Units, ValueKind, WriteCache,
};
pub use methodic_grammar::units::{Bytes, Duration, Percent};

mod cost;
mod dataset;
mod io_key;
mod load;
mod step;
mod target;
mod words;
mod workload;

pub use self::cost::{Estimate, StepEstimate, TimeRange, Written};
pub use self::dataset::Dataset;
pub(crate) use self::dataset::size_draws;
pub use self::io_key::IoKey;
pub use self::load::{
    Arrivals, Bursts, DepthSearch, Job, Pauses, Qd, Qos, QosAxis, Rate, RateAmount, Think, depth_probes,
};
pub use self::step::{
    Action, Cell, MeasureStop, Pick, Point, PreconditionStop, Probe, RepeatRun, SteadyRule, Step, UntilCv,
};
pub use self::target::{DataPattern, Extent, Target};
pub use self::words::{aggregate_word, fine_name, plural};
pub use self::workload::{Access, Band, BlockShare, Milli, Workload, WorkloadIo};

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
    /// Files of workloads brought in with `use "FILE"`, each with the hash
    /// of its text; their workloads are in the steps in full. Plans from
    /// before have none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub used_files: Vec<UsedFile>,
}

/// A file `use "FILE"` brought workloads in from: its path as written and
/// `sha256:` with the hex digest of its text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UsedFile {
    pub path: String,
    pub source_hash: String,
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

// ------------------------------------------------ written out and read back

/// How a plan is written out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Ron,
    Json,
}

impl Plan {
    /// The plan as RON, the same bytes for the same plan.
    pub fn to_ron(&self) -> String {
        let config = ron::ser::PrettyConfig::new()
            .indentor("  ".to_string())
            .struct_names(false)
            .separate_tuple_members(false)
            .enumerate_arrays(false)
            .new_line("\n".to_string())
            // Steps, actions and estimates one field a line; workloads, queue
            // depths and target settings on one line each.
            .depth_limit(4);
        let mut out = ron::ser::to_string_pretty(self, config)
            .unwrap_or_else(|e| format!("// internal error: the plan cannot be written as RON: {e}\n"));
        out.push('\n');
        out
    }

    pub fn to_json(&self) -> String {
        let mut out = serde_json::to_string_pretty(self)
            .unwrap_or_else(|e| format!("{{\"error\": \"the plan cannot be written as JSON: {e}\"}}"));
        out.push('\n');
        out
    }

    pub fn write(&self, format: Format) -> String {
        match format {
            Format::Ron => self.to_ron(),
            Format::Json => self.to_json(),
        }
    }

    /// Reads a plan written by [`Plan::to_ron`]. Checks the schema version
    /// first, so that a plan from another methodic says so plainly. Does
    /// not validate the content: use `crate::validate` for that. The
    /// diagnostic is boxed, as it is large and rarely made.
    pub fn from_ron(text: &str) -> Result<Plan, Box<Diagnostic>> {
        let options = ron::Options::default();
        match options.from_str::<Plan>(text) {
            Ok(plan) => check_schema(plan.schema).map(|()| plan),
            // A plan of another schema fails on its first difference; read
            // its schema alone to say so. Done only on failure, as it costs
            // a second parse.
            Err(e) => {
                if let Ok(s) = options.from_str::<SchemaOnly>(text) {
                    check_schema(s.schema)?;
                }
                Err(Box::new(ron_error(e)))
            }
        }
    }

    /// Reads a plan written by [`Plan::to_json`]; see [`Plan::from_ron`].
    pub fn from_json(text: &str) -> Result<Plan, Box<Diagnostic>> {
        let json_error = |e: serde_json::Error| {
            Diagnostic::unplaced(Code::PlanSyntax, format!("not a readable plan: {e}"))
        };
        match serde_json::from_str::<Plan>(text) {
            Ok(plan) => check_schema(plan.schema).map(|()| plan),
            Err(e) => {
                if let Ok(s) = serde_json::from_str::<SchemaOnly>(text) {
                    check_schema(s.schema)?;
                }
                Err(Box::new(json_error(e)))
            }
        }
    }
}

/// The one field read before the rest, so that a plan of another schema
/// version is named as such rather than failing on its first difference.
#[derive(Deserialize)]
struct SchemaOnly {
    #[serde(default)]
    schema: u32,
}

fn check_schema(schema: u32) -> Result<(), Box<Diagnostic>> {
    let wrong = match schema {
        PLAN_SCHEMA_OLDEST..=PLAN_SCHEMA => return Ok(()),
        0 => Diagnostic::unplaced(Code::PlanSyntax, "this file has no plan schema version").with_hint(format!(
            "a plan starts with `(schema: {PLAN_SCHEMA}, ...`; write one with `methodic compile`"
        )),
        other => Diagnostic::unplaced(
            Code::PlanSchema,
            format!(
                "this plan has schema version {other}; this methodic reads schemas {PLAN_SCHEMA_OLDEST} to {PLAN_SCHEMA}"
            ),
        )
        .with_hint("compile the methodology again with this methodic: `methodic compile FILE.method`"),
    };
    Err(Box::new(wrong))
}

fn ron_error(e: ron::error::SpannedError) -> Diagnostic {
    Diagnostic::unplaced(
        Code::PlanSyntax,
        format!("not a readable plan: {} (line {}, column {})", e.code, e.span.start.line, e.span.start.col),
    )
}
