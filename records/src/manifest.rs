//! `manifest.json`: what made each number. Written when the run starts
//! (status `running`, every step `pending` with what it will do), again as
//! each step starts and finishes, and a last time when the run ends
//! (`completed`, `interrupted` or `failed`). Each write goes to a temporary
//! file that is synced and renamed over the old one, so a crash leaves the
//! last whole manifest.
//!
//! Every step carries the reader's checklist as named fields: workload,
//! queue depth and how it is counted, drive state before the step, span,
//! value kind, units, data pattern, cache policy and host.

use std::fs;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use methodic_compiler::plan::{
    Action, BlockShare, Bytes, DataPattern, IoKey, IoMode, Percent, Plan, PreconditionStop, Qd, QdCounting,
    QosAxis, Step, Units, ValueKind, Workload, plural,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::dir::{MANIFEST_FILE, STEPS_FILE};
pub use crate::engine::EngineNote;
use crate::error::{Error, Result};
use crate::host::{Host, TargetInfo};
use crate::record::{IoInfo, Status, SteadyResult, StepResult};
use crate::units::human;

/// The version of the manifest format. Bump it when a field changes
/// meaning or goes away, or when an older methodic would misread a new
/// manifest; readers refuse a manifest newer than they know. 2: enums in
/// the language's spelling (`step_average`); 1 (Rust's) still reads.
pub const MANIFEST_SCHEMA: u32 = 2;

/// `manifest.json`: what made each number. The tool, host, targets and
/// engine, the seed, the plan as it ran, and each step's status and
/// checklist (workload, queue depth and how it is counted, drive state,
/// span, value kind, units, data pattern, cache policy, host).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Manifest {
    /// [`MANIFEST_SCHEMA`] of the methodic that wrote it.
    pub schema: u32,
    pub tool: Tool,
    pub status: Status,
    pub error: Option<String>,
    /// Every number comes from a rehearsal (scaled-down sizes and times on
    /// a scratch target), not a measurement.
    pub rehearsal: bool,
    pub started: String,
    /// When this manifest was last written.
    pub updated: String,
    pub finished: Option<String>,
    pub seconds: f64,
    pub seed: u64,
    pub methodology: Methodology,
    pub host: Host,
    pub targets: Vec<TargetInfo>,
    pub engine: EngineNote,
    /// What the host and engine reach against RAM for each I/O shape the
    /// plan uses, measured before the first step; `None` when it was not
    /// measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ceilings: Option<crate::ceiling::Ceilings>,
    /// The one ceiling of manifests written before ceilings per shape
    /// (same schema: a reader that knows only this field finds no ceiling
    /// in a newer manifest, which it reads as not measured).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_ceiling: Option<crate::ceiling::Legacy>,
    /// Where copy tests read their datasets from, for plans that copy.
    #[serde(default)]
    pub datasets: Option<DatasetsNote>,
    /// The plan as it ran (for a rehearsal, the scaled-down plan; the
    /// methodology's own plan is `plan.ron` beside this file).
    pub plan: Plan,
    pub steps: Vec<ManifestStep>,
    /// Each `methodic run --resume` of this run, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resumed: Vec<ResumeNote>,
    /// What the run did to each drive's volatile write cache (`write_cache
    /// off` or `on`); empty when the methodology leaves it as it is.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub write_cache: Vec<WriteCacheNote>,
    /// A run on many hosts (`--hosts`): each host fio ran the steps on,
    /// in the hosts file's order; empty for a run on this machine (whose
    /// host is `host`, and whose targets are `targets`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hosts: Vec<HostNote>,
    /// A result another tool wrote, imported (`methodic import fio
    /// run.json -o DIR`): which file and tool, and what the file does not
    /// state. `None` for a run methodic made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub imported: Option<ImportedNote>,
}

/// Where an imported result came from and what it leaves unsaid. The
/// manifest's other fields hold only what the file states; each field it
/// does not state is named in `not_stated` (the run's) or in a step's
/// `not_stated`, never guessed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ImportedNote {
    /// The tool that wrote the file: `fio`, `Iometer`, `DiskSpd`,
    /// `CrystalDiskMark`, `KDiskMark`.
    pub tool: String,
    /// Its version as the file gives it (`fio-3.33`); `None` when the file
    /// does not say.
    pub version: Option<String>,
    /// The file's format: `JSON+ (--output-format=json+)`.
    pub format: String,
    /// The file, as it was given to the import.
    pub file: String,
    /// `sha256:` of the file's bytes.
    pub hash: String,
    /// When the tool ran, as the file says (its own words); `None` when
    /// it does not.
    pub ran: Option<String>,
    /// The targets the file names (a file or device path, a drive letter).
    pub targets: Vec<String>,
    /// Fields of every step the file does not state, by the names
    /// `compare` gives them (`host`, `drive state`, `data pattern`).
    pub not_stated: Vec<String>,
    /// What the import worked out rather than read, and from what; and
    /// what it left out.
    pub notes: Vec<String>,
}

impl ImportedNote {
    /// `fio-3.33 JSON+ (--output-format=json+), run.json`.
    pub fn describe(&self) -> String {
        format!("{} {}, {}", self.tool_words(), self.format, self.file)
    }

    /// `fio-3.33`, `DiskSpd 2.2.0`, `Iometer 1.1.0`, `KDiskMark (version
    /// not stated)`: the tool and its version, the tool's name said once.
    pub fn tool_words(&self) -> String {
        match &self.version {
            Some(v) if v.to_lowercase().contains(&self.tool.to_lowercase()) => v.clone(),
            Some(v) => format!("{} {v}", self.tool),
            None => format!("{} (version not stated)", self.tool),
        }
    }
}

/// One host of a run on many hosts: how the hosts file names it, what its
/// fio server said of itself when methodic connected, and its target.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HostNote {
    /// As the hosts file names it, in fio's syntax: `ip:10.0.0.2,8765`, `bench-07`.
    pub host: String,
    /// The file or block device the steps ran on there.
    pub target: String,
    /// The host's name, OS, architecture and fio version, as its fio
    /// server reported them.
    pub hostname: Option<String>,
    pub os: Option<String>,
    pub arch: Option<String>,
    pub fio_version: Option<String>,
    /// The host's kernel and CPU model: `None` when its fio server does
    /// not report them (fio's client/server protocol carries neither).
    #[serde(default)]
    pub kernel: Option<String>,
    #[serde(default)]
    pub cpu: Option<String>,
    /// The block devices fio saw busy there while it read the target at
    /// the start (its disk statistics): the device under a file target.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub disks: Vec<String>,
}

/// One target's volatile write cache over the run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct WriteCacheNote {
    /// The target, by its path.
    pub target: String,
    /// What the methodology asked: `off` or `on`.
    pub asked: String,
    /// Whether the cache was on before the run (`None`: the target is not
    /// a drive whose cache methodic can read: a file, loop or zram device,
    /// a partition).
    pub was_on: Option<bool>,
    /// What was done: `turned off (NVMe Set Features, volatile write
    /// cache)`, `already off`, `not a drive: left as it is`.
    pub done: String,
    /// Set at the end of the run (or of the session a resume ran): the
    /// cache put back as it was, or why it was not.
    pub restored: Option<String>,
}

/// A resume: where the run went on from, and why there.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ResumeNote {
    /// When the resume started.
    pub at: String,
    /// The methodic (and git revision) that resumed.
    pub tool: Tool,
    /// The step run first (from 1), and its id.
    pub from_step: usize,
    pub from_id: String,
    /// Why from there: the first step not finished, or the last step that
    /// establishes the drive state before one cut off while writing.
    pub reason: String,
    /// Records of steps that were run again, moved to `superseded.jsonl`.
    pub superseded: usize,
}

/// The methodic that wrote the file.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Tool {
    pub name: String,
    pub version: String,
    /// The git commit methodic was built from, when the build knew it.
    pub git_revision: Option<String>,
}

impl Tool {
    /// This methodic.
    pub fn this() -> Tool {
        Tool {
            name: "methodic".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            git_revision: option_env!("METHODIC_GIT_REVISION").map(str::to_string),
        }
    }
}

/// Which methodology ran, and the hashes of its source and plan.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Methodology {
    pub name: String,
    pub version: String,
    pub description: Option<String>,
    /// `sha256:` of the methodology source.
    pub source_hash: String,
    /// `sha256:` of the compiled plan (`plan.ron`): equal hashes, equal plans.
    pub plan_hash: String,
    pub plan_schema: u32,
    pub compiler: String,
    pub non_destructive: bool,
}

/// The folder copy tests read their source files from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct DatasetsNote {
    pub dir: PathBuf,
    /// Its file system: `tmpfs` keeps the source out of the way.
    pub file_system: Option<crate::host::FileSystem>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StepStatus {
    Pending,
    Running,
    Completed,
    Failed,
    Interrupted,
    /// Not run, and not to be: a run of a `repeat ... until cv` after the
    /// runs' spread was small enough (`skipped` on the step says so).
    Skipped,
}

/// One step: what it was to do, and what happened.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ManifestStep {
    pub index: usize,
    pub id: String,
    pub phase: Option<String>,
    pub kind: String,
    /// `measure rnd4k_read (4KiB random, 100% read): 30s ramp, 5min record`.
    pub description: String,
    pub status: StepStatus,
    pub started: Option<String>,
    pub seconds: Option<f64>,
    pub error: Option<String>,
    /// The step sets the drive's state (erase, fill, a writing precondition).
    pub establishes_state: bool,
    pub checklist: Checklist,
    /// How the step's I/O ran: engine, threads, depth.
    pub io: Option<IoInfo>,
    pub steady: Option<SteadyResult>,
    /// What an erase, cache drop or RAM limit actually did.
    pub actions: Vec<String>,
    /// Which device each worker used, set when the step finishes, for
    /// steps whose I/O ran on more than one worker (a step with one worker
    /// used the first device of its queue depth's `devices`, or its job's).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub workers: Vec<WorkerPlacement>,
    /// An imported result's step: the checklist's fields its file does not
    /// state beyond the run's (`span`, `queue depth counting`); their
    /// values in the checklist are placeholders, not facts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_stated: Vec<String>,
    /// Why a step with the status `skipped` was not run: `repeat 1
    /// stopped after run 4 of 10: cv 1.8% is under 3%`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
}

/// Where one worker of a step ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct WorkerPlacement {
    /// A `together` step's job, by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job: Option<String>,
    /// A rounds step's cell, from 1 (its last round).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cell: Option<u32>,
    /// From 1.
    pub worker: u32,
    /// The target it used, from 1 (the order of `--target` and of the
    /// manifest's `targets`), and its path.
    pub target: u32,
    pub path: PathBuf,
}

impl WorkerPlacement {
    /// Every worker of a step's spreads, where it ran.
    pub fn of(r: &StepResult) -> Vec<WorkerPlacement> {
        r.spread
            .iter()
            .flat_map(|s| {
                s.workers.iter().map(|w| WorkerPlacement {
                    job: s.job.clone(),
                    cell: s.cell,
                    worker: w.worker,
                    target: w.target,
                    path: w.path.clone(),
                })
            })
            .collect()
    }
}

/// The questions a reader asks of a number, answered for one step.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Checklist {
    /// The I/O pattern; for a rounds step, the measurement the steady-state
    /// rule tracks (every cell is in the plan).
    pub workload: Option<WorkloadFacts>,
    pub queue_depth: Option<QdFacts>,
    /// The drive's state when the step started; set when it starts.
    pub drive_state: Option<DriveState>,
    pub span: Option<SpanFacts>,
    pub value_kind: ValueFacts,
    pub units: Units,
    /// What is written (and, for reads, what was written before).
    pub data_pattern: Option<DataPattern>,
    pub cache: CacheFacts,
    /// The host's name; the whole description is the manifest's `host`.
    pub host: String,
    /// How the load is offered, when not closed loop: an open-loop rate and
    /// its arrivals, pauses between I/Os (`open loop at 50000 IOPS,
    /// Poisson arrivals; think 100us every 16 I/Os`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load: Option<String>,
    /// A `together` step's jobs, each answered on its own (the step's
    /// `workload` and `queue_depth` are then left out).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub jobs: Vec<JobFacts>,
}

/// One job of a `together` step, as the checklist gives it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct JobFacts {
    pub name: String,
    pub workload: WorkloadFacts,
    pub queue_depth: QdFacts,
    /// The device its workers use, from 1 (the first `--target`).
    pub device: u32,
    /// As the checklist's `load`, for this job.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load: Option<String>,
}

/// The words of a step's offered load: its rate and pauses; `None` for a
/// closed loop without pauses.
pub fn load_words(
    rate: Option<&methodic_compiler::plan::Rate>,
    pauses: &methodic_compiler::plan::Pauses,
) -> Option<String> {
    let mut parts = Vec::new();
    if let Some(r) = rate {
        parts.push(format!("open loop at {}", r.describe()));
    }
    if !pauses.is_none() {
        parts.push(pauses.describe());
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// How a step's load arrives, in words: a measurement's rate and pauses,
/// a QoS search's probes; `None` for a closed loop without pauses and for
/// steps whose load is not one (a together step's jobs each say theirs).
pub fn load_of(action: &Action) -> Option<String> {
    match action {
        Action::Measure { rate, pauses, .. } => load_words(rate.as_ref(), pauses),
        Action::Qos(q) if q.by == QosAxis::Qd => Some(format!(
            "closed loop at the depths a search probes, for the deepest up to QD {} per worker with {} under {}",
            q.qd.per_worker,
            q.percentile_name(),
            q.limit_name()
        )),
        Action::Qos(q) => Some(format!(
            "open loop at the rates a search probes ({} arrivals), for the highest with {} under {}",
            q.arrivals.words(),
            q.percentile_name(),
            q.limit_name()
        )),
        Action::Erase { .. }
        | Action::Fill { .. }
        | Action::Precondition { .. }
        | Action::Together { .. }
        | Action::Rounds { .. }
        | Action::DropCaches
        | Action::Idle { .. }
        | Action::LimitRam { .. }
        | Action::Copy { .. }
        | Action::Probe(_) => None,
    }
}

/// A together step's jobs, each with its workload, queue, device and
/// load; none for any other step.
pub fn jobs_of(action: &Action) -> Vec<JobFacts> {
    match action {
        Action::Together { jobs, .. } => jobs
            .iter()
            .map(|j| JobFacts {
                name: j.name.clone(),
                workload: WorkloadFacts::of(&j.workload),
                queue_depth: QdFacts::of(&j.qd, 1),
                device: j.device + 1,
                load: load_words(j.rate.as_ref(), &j.pauses),
            })
            .collect(),
        Action::Erase { .. }
        | Action::Fill { .. }
        | Action::Precondition { .. }
        | Action::Measure { .. }
        | Action::Qos(_)
        | Action::Rounds { .. }
        | Action::DropCaches
        | Action::Idle { .. }
        | Action::LimitRam { .. }
        | Action::Copy { .. }
        | Action::Probe(_) => Vec::new(),
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct WorkloadFacts {
    pub name: String,
    /// `4KiB random, 100% read`.
    pub description: String,
    pub blocks: Vec<BlockShare>,
    pub read_percent: Percent,
    pub random_percent: Percent,
    pub align: Bytes,
}

impl WorkloadFacts {
    pub fn of(w: &Workload) -> WorkloadFacts {
        WorkloadFacts {
            name: w.name.clone(),
            description: w.describe(),
            blocks: w.blocks.clone(),
            read_percent: w.read,
            random_percent: w.random,
            align: w.align,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct QdFacts {
    /// Outstanding I/Os over all workers.
    pub total: u32,
    pub per_worker: u32,
    pub workers: u32,
    /// Devices the workers are spread over.
    pub devices: u32,
    /// How the methodology counts its queue depths.
    pub counted: QdCounting,
    /// `QD 32 in total: 4 workers x 8 on 1 device (the methodology counts in total)`.
    pub description: String,
}

impl QdFacts {
    pub fn of(qd: &Qd, devices: u32) -> QdFacts {
        let devices = devices.max(1).min(qd.workers.max(1));
        let counted = match qd.counted {
            QdCounting::Total => "the methodology counts queue depth over all workers",
            QdCounting::PerWorker => "the methodology counts queue depth per worker",
        };
        QdFacts {
            total: qd.total,
            per_worker: qd.per_worker,
            workers: qd.workers,
            devices,
            counted: qd.counted,
            description: format!(
                "QD {} in total: {} x {} on {} ({counted})",
                qd.total,
                plural(qd.workers as u64, "worker", "workers"),
                qd.per_worker,
                plural(devices as u64, "device", "devices"),
            ),
        }
    }
}

/// The drive's history as far as this run knows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Condition {
    /// A target methodic did not erase, fill or precondition (yet).
    AsFound,
    /// Erased, or a new scratch file: nothing written since.
    Fresh,
    /// Written sequentially end to end.
    Filled,
    /// Written by a precondition that did not reach (or did not look for) steady state.
    Preconditioned,
    /// A precondition or rounds reached steady state.
    Steady,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DriveState {
    pub condition: Condition,
    /// `erased (discard), filled 2 times, preconditioned with ... for 6h`.
    pub description: String,
    /// How it was erased, when an erase ran.
    pub erased: Option<String>,
    pub fill_passes: u32,
    /// Each precondition since the last erase or fill, in order.
    pub preconditions: Vec<String>,
    /// The same, each named by what it does rather than by its workload's
    /// name (`4KiB random, 0% read at QD 32 for 6h`), so that `compare`
    /// calls a renamed but identical precondition the same drive state.
    /// Manifests written before it read back empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub preconditions_by_io: Vec<String>,
    /// Whether the last precondition or rounds reached steady state, and
    /// after how many rounds; `None` when none looked for it.
    pub steady: Option<SteadyNote>,
    /// Bytes written by measurements since the state was set.
    pub written_since: u64,
    /// A step that sets the state failed or was interrupted: the state is
    /// somewhere between the one before and the one it was to set.
    pub in_doubt: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SteadyNote {
    pub reached: bool,
    /// The round it was reached at, or the rounds run when it was not.
    pub rounds: u32,
}

impl DriveState {
    fn new(scratch: bool) -> DriveState {
        DriveState {
            condition: if scratch { Condition::Fresh } else { Condition::AsFound },
            description: String::new(),
            erased: None,
            fill_passes: 0,
            preconditions: Vec::new(),
            preconditions_by_io: Vec::new(),
            steady: None,
            written_since: 0,
            in_doubt: false,
        }
        .described(scratch)
    }

    fn described(mut self, scratch: bool) -> DriveState {
        self.condition = if self.steady.is_some_and(|s| s.reached) {
            Condition::Steady
        } else if !self.preconditions.is_empty() {
            Condition::Preconditioned
        } else if self.fill_passes > 0 {
            Condition::Filled
        } else if self.erased.is_some() || (scratch && self.written_since == 0) {
            Condition::Fresh
        } else {
            Condition::AsFound
        };
        let mut parts = Vec::new();
        if let Some(how) = &self.erased {
            parts.push(format!("erased ({how})"));
        }
        if self.fill_passes > 0 {
            parts.push(format!("filled sequentially {}", plural(self.fill_passes as u64, "time", "times")));
        }
        if !self.preconditions.is_empty() {
            parts.push(format!("preconditioned with {}", self.preconditions.join(", then ")));
        }
        match self.steady {
            Some(SteadyNote { reached: true, rounds }) => {
                parts.push(format!("steady state reached at round {rounds}"))
            }
            Some(SteadyNote { reached: false, rounds }) => parts
                .push(format!("steady state not reached in {}", plural(rounds as u64, "round", "rounds"))),
            None => {}
        }
        if parts.is_empty() {
            parts.push(if scratch {
                "a new scratch file".to_string()
            } else {
                "as found: methodic had not erased, filled or preconditioned it".to_string()
            });
        }
        if self.written_since > 0 {
            parts.push(written_since_words(self.written_since));
        }
        if self.in_doubt {
            parts.push("in doubt: a step that sets the state did not finish".to_string());
        }
        self.description = parts.join(", ");
        self
    }
}

/// What the steps wrote since a drive state was set, as its description
/// ends: `then 182.3 MiB written by the steps since`.
fn written_since_words(bytes: u64) -> String {
    format!("then {} written by the steps since", human(bytes))
}

impl DriveState {
    /// The state as it was set, without what the steps wrote since (or
    /// whether a step that sets it failed): two states that differ only
    /// in that are one state, written to since.
    pub fn as_set(&self) -> String {
        let mut words = self.description.clone();
        if self.in_doubt {
            words = words.replace(", in doubt: a step that sets the state did not finish", "");
        }
        if self.written_since > 0 {
            words = words.replace(&format!(", {}", written_since_words(self.written_since)), "");
        }
        words
    }
}

/// Follows the drive's state through the run.
#[derive(Debug, Clone)]
pub struct DriveTracker {
    scratch: bool,
    pub state: DriveState,
}

impl DriveTracker {
    pub fn new(scratch: bool) -> DriveTracker {
        DriveTracker { scratch, state: DriveState::new(scratch) }
    }

    /// Takes in what a step did.
    pub fn after(&mut self, step: &Step, result: &StepResult) {
        let s = &mut self.state;
        let finished = result.error.is_none();
        if !finished && step.establishes_state {
            s.in_doubt = true;
        }
        let probed = match (&step.action, &result.probe) {
            // Writes as issued (rounded up to a block with O_DIRECT); older
            // results lack write_bytes.
            (Action::Probe(p), Some(r)) => r.write_bytes.max(p.io.0) * r.offsets * r.repeats as u64,
            // A probe that left no record, or a step that probes nothing.
            (Action::Probe(_), None)
            | (
                Action::Erase { .. }
                | Action::Fill { .. }
                | Action::Precondition { .. }
                | Action::Measure { .. }
                | Action::Together { .. }
                | Action::Qos(_)
                | Action::Rounds { .. }
                | Action::DropCaches
                | Action::Idle { .. }
                | Action::LimitRam { .. }
                | Action::Copy { .. },
                _,
            ) => 0,
        };
        let written = result.io.as_ref().map_or(0, |io| io.bytes_written)
            + result.copy.as_ref().map_or(0, |c| c.bytes)
            + probed;
        match &step.action {
            Action::Erase { .. } if finished => {
                *s = DriveState::new(false);
                s.erased = Some(result.actions.join("; "));
            }
            Action::Fill { passes, .. } if finished => {
                if !s.preconditions.is_empty() || s.written_since > 0 || s.steady.is_some() {
                    // A fill after other writes starts the history anew.
                    *s = DriveState::new(false);
                }
                s.fill_passes += passes;
                s.in_doubt = false;
            }
            Action::Precondition { workload, qd, stop, .. } if finished && workload.writes() => {
                let length = match stop {
                    PreconditionStop::Time(d) => format!("for {}", d.human()),
                    PreconditionStop::Steady { round, .. } => {
                        let n = result.steady.as_ref().map_or(0, |st| st.rounds);
                        format!("for {} of {}", plural(n as u64, "round", "rounds"), round.human())
                    }
                };
                s.preconditions.push(format!("{} at QD {} {length}", workload.label(), qd.total));
                let by_io = IoKey::of_step(step).first().map_or_else(|| workload.label(), IoKey::describe);
                s.preconditions_by_io.push(format!("{by_io} {length}"));
                s.steady =
                    result.steady.as_ref().map(|st| SteadyNote { reached: st.reached, rounds: st.rounds });
                s.written_since = 0;
                s.in_doubt = false;
            }
            Action::Rounds { .. } if finished && step.establishes_state => {
                let n = result.steady.as_ref().map_or(0, |st| st.rounds);
                let own = format!("the step's own {}", plural(n as u64, "round", "rounds"));
                s.preconditions.push(own.clone());
                s.preconditions_by_io.push(own);
                s.steady =
                    result.steady.as_ref().map(|st| SteadyNote { reached: st.reached, rounds: st.rounds });
                s.written_since = 0;
                s.in_doubt = false;
            }
            // Any other step, or one of those above that did not finish
            // (or a precondition that only reads): what it wrote ages the
            // drive state.
            Action::Erase { .. }
            | Action::Fill { .. }
            | Action::Precondition { .. }
            | Action::Measure { .. }
            | Action::Together { .. }
            | Action::Qos(_)
            | Action::Rounds { .. }
            | Action::DropCaches
            | Action::Idle { .. }
            | Action::LimitRam { .. }
            | Action::Copy { .. }
            | Action::Probe(_) => s.written_since += written,
        }
        let st = std::mem::replace(s, DriveState::new(false));
        *s = st.described(self.scratch);
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SpanFacts {
    /// As the methodology gives it: `100%`, `8GiB`.
    pub declared: String,
    /// Bytes worked in, over all devices the step uses.
    pub bytes: u64,
    /// The capacity of those devices; 0 for an imported result whose file
    /// does not state it.
    pub capacity: u64,
    /// NaN (JSON `null`) when the capacity is not stated.
    #[serde(deserialize_with = "crate::numbers::nullable")]
    #[schemars(with = "Option<f64>")]
    pub percent_of_capacity: f64,
}

impl SpanFacts {
    /// `8GiB = 8.0 GiB (50.0% of 16.0 GiB)`, or for a target whose size
    /// is not stated `size=32M = 32.0 MiB (of a target whose size is not
    /// stated)`.
    pub fn words(&self) -> String {
        let of = match self.capacity {
            0 => "of a target whose size is not stated".to_string(),
            c => format!("{:.1}% of {}", self.percent_of_capacity, human(c)),
        };
        format!("{} = {} ({of})", self.declared, human(self.bytes))
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ValueFacts {
    /// The methodology's convention for the value it reports.
    pub kind: ValueKind,
    /// How this step's numbers are made: `the average over the 5min record time`.
    pub computed: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CacheFacts {
    /// `Direct` (O_DIRECT) or `Buffered` (through the page cache).
    pub io: Option<IoMode>,
    /// A drop_caches step ran since the last step that touched the target.
    pub caches_dropped: bool,
    /// The RAM limit in force, bytes.
    pub ram_limit: Option<u64>,
    /// `O_DIRECT; caches dropped before; RAM limited to 16 GiB`.
    pub description: String,
}

/// The workload and queue depth a step runs; for rounds, the tracked cell's.
pub fn workload_and_qd(action: &Action) -> (Option<&Workload>, Option<&Qd>) {
    match action {
        Action::Fill { workload, qd, .. }
        | Action::Precondition { workload, qd, .. }
        | Action::Measure { workload, qd, .. } => (Some(workload), Some(qd)),
        Action::Qos(q) => (Some(&q.workload), Some(&q.qd)),
        Action::Rounds { cells, track, .. } => {
            let c = cells.get(*track as usize).or(cells.first());
            (c.map(|c| &c.workload), c.map(|c| &c.qd))
        }
        Action::Erase { .. }
        | Action::Together { .. }
        | Action::DropCaches
        | Action::Idle { .. }
        | Action::LimitRam { .. }
        | Action::Copy { .. }
        | Action::Probe(_) => (None, None),
    }
}

pub fn cache_facts(io: Option<IoMode>, caches_dropped: bool, ram_limit: Option<Bytes>) -> CacheFacts {
    let mut parts = vec![match io {
        Some(IoMode::Direct) => "O_DIRECT (page cache bypassed)".to_string(),
        Some(IoMode::Buffered) => "buffered (through the page cache)".to_string(),
        None => "no target I/O".to_string(),
    }];
    parts.push(if caches_dropped { "caches dropped before".into() } else { "caches not dropped".into() });
    parts.push(match ram_limit {
        Some(b) => format!("RAM limited to {}", human(b.0)),
        None => "RAM not limited".into(),
    });
    CacheFacts { io, caches_dropped, ram_limit: ram_limit.map(|b| b.0), description: parts.join("; ") }
}

/// How a step's numbers are made, in a sentence, under the methodology's
/// value convention: the step average, the steady-state window's average,
/// or the peak (the best series interval; for rounds, the best round).
pub fn computed(step: &Step, kind: ValueKind) -> String {
    let own = match kind {
        ValueKind::Peak => peak_words(step),
        ValueKind::SteadyStateAverage => steady_state_words(&step.action),
        ValueKind::StepAverage => None,
    };
    with_repeat(step, own.unwrap_or_else(|| average_words(&step.action, kind)))
}

/// How the peak of a step with series intervals of its own is made (a
/// measure, fill, precondition or rounds step); `None` for any other.
fn peak_words(step: &Step) -> Option<String> {
    match &step.action {
        Action::Measure { stop, ramp, series, .. } => {
            let window = match stop.time {
                Some(t) => format!("the {} record time", t.human()),
                None => "the step".to_string(),
            };
            let ramp = if ramp.is_zero() { String::new() } else { format!(" after a {} ramp", ramp.human()) };
            let sweep = if step.sweep.is_some() { "; for the sweep, its best step" } else { "" };
            Some(format!(
                "the peak: the best {} interval of {window}{ramp} (the step average is kept beside it){sweep}",
                series.human()
            ))
        }
        Action::Fill { .. } => {
            Some("the peak: the best 1s interval of the fill (the average is kept beside it)".into())
        }
        Action::Precondition { series, .. } => Some(format!(
            "the peak: the best {} interval of the precondition (the average is kept beside it)",
            series.human()
        )),
        Action::Rounds { .. } => {
            Some("the peak: each measurement's best round (the window averages are kept beside it)".into())
        }
        Action::Erase { .. }
        | Action::Together { .. }
        | Action::Qos(_)
        | Action::DropCaches
        | Action::Idle { .. }
        | Action::LimitRam { .. }
        | Action::Copy { .. }
        | Action::Probe(_) => None,
    }
}

/// How the steady-state average of a precondition run until steady is
/// made; `None` for any other step.
fn steady_state_words(action: &Action) -> Option<String> {
    match action {
        Action::Precondition { stop: PreconditionStop::Steady { rule, .. }, .. } => Some(format!(
            "the steady-state average: the average of the last {} rounds' {} (the steady-state window when \
                 reached)",
            rule.window,
            metric_word(rule.metric)
        )),
        Action::Precondition { stop: PreconditionStop::Time(_), .. }
        | Action::Erase { .. }
        | Action::Fill { .. }
        | Action::Measure { .. }
        | Action::Together { .. }
        | Action::Qos(_)
        | Action::Rounds { .. }
        | Action::DropCaches
        | Action::Idle { .. }
        | Action::LimitRam { .. }
        | Action::Copy { .. }
        | Action::Probe(_) => None,
    }
}

/// How a step's average is made, for a convention whose own value the
/// step does not have: a step with no intervals reports its average under
/// a peak convention, and one with no steady-state window of its own under
/// a steady-state one, and the sentence says so.
fn average_words(action: &Action, kind: ValueKind) -> String {
    // The words, whether the step lacks intervals, whether it lacks a
    // steady-state window of its own.
    let (base, no_peak, no_window) = match action {
        Action::Measure { stop, ramp, .. } => {
            let done = |reads_count: bool| if reads_count { "read or written" } else { "written" };
            let what = match (stop.time, stop.amount()) {
                (Some(t), None) => format!("the average over the {} record time", t.human()),
                (None, Some((w, r))) => {
                    format!("the average from the first to the last completion until {w} was {}", done(r))
                }
                (Some(t), Some((w, r))) => {
                    format!("the average over the record time ({} or until {w} was {})", t.human(), done(r))
                }
                (None, None) => "the average over the step".into(),
            };
            let words = if ramp.is_zero() {
                format!("{what}, no ramp")
            } else {
                format!("{what}, after a {} ramp", ramp.human())
            };
            (words, false, true)
        }
        Action::Fill { .. } => ("the average over the whole fill".into(), false, true),
        Action::Precondition { stop: PreconditionStop::Time(d), .. } => {
            (format!("the average over the {} precondition", d.human()), false, false)
        }
        Action::Precondition { stop: PreconditionStop::Steady { rule, .. }, .. } => (
            format!(
                "the average over all rounds; the rule watches each round's {} over a window of {}",
                metric_word(rule.metric),
                rule.window
            ),
            false,
            false,
        ),
        Action::Rounds { rule, .. } => (
            format!(
                "each measurement's average over the last {} rounds (the steady-state window when reached)",
                rule.window
            ),
            false,
            false,
        ),
        Action::Copy { .. } => ("bytes copied over the time to the last fsync".into(), true, true),
        Action::Probe(p) => (
            format!(
                "the {} of {} per offset",
                methodic_compiler::plan::aggregate_word(p.statistic),
                plural(p.repeats as u64, "write", "writes")
            ),
            true,
            false,
        ),
        Action::Erase { .. }
        | Action::Together { .. }
        | Action::Qos(_)
        | Action::DropCaches
        | Action::Idle { .. }
        | Action::LimitRam { .. } => ("no value".into(), false, false),
    };
    match kind {
        ValueKind::Peak if no_peak => format!("{base} (no intervals: no peak)"),
        ValueKind::SteadyStateAverage if no_window => {
            format!("{base} (no steady-state window of its own: the step average)")
        }
        ValueKind::Peak | ValueKind::SteadyStateAverage | ValueKind::StepAverage => base,
    }
}

/// `base`, with the repeat run it belongs to.
fn with_repeat(step: &Step, base: String) -> String {
    match step.repeat {
        Some(r) if r.until.is_some() => format!(
            "{base}; run {} of at most {} (repeat {}), the methodology reports their {}",
            r.run,
            r.runs,
            r.until.map_or_else(String::new, |u| u.words(r.runs)),
            methodic_compiler::plan::aggregate_word(r.aggregate)
        ),
        Some(r) => format!(
            "{base}; run {} of {}, the methodology reports their {}",
            r.run,
            r.runs,
            methodic_compiler::plan::aggregate_word(r.aggregate)
        ),
        None => base,
    }
}

fn metric_word(m: methodic_compiler::plan::Metric) -> &'static str {
    match m {
        methodic_compiler::plan::Metric::Iops => "IOPS",
        methodic_compiler::plan::Metric::Bandwidth => "bandwidth",
        methodic_compiler::plan::Metric::Latency => "mean latency",
    }
}

/// A results directory read back: its manifest and its finished steps.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub dir: PathBuf,
    pub manifest: Manifest,
    pub steps: Vec<StepResult>,
}

impl Loaded {
    /// The manifest's step for a result.
    pub fn step_of(&self, r: &StepResult) -> Option<&ManifestStep> {
        self.manifest.steps.get(r.index.wrapping_sub(1)).filter(|s| s.id == r.id)
    }

    /// The plan's step for a result.
    pub fn plan_step(&self, r: &StepResult) -> Option<&Step> {
        self.manifest.plan.steps.get(r.index.wrapping_sub(1)).filter(|s| s.id == r.id)
    }

    /// Whether a record of a later run of `r`'s repeat is kept: a repeat
    /// `until cv` summarises after each run from run N on, and only the
    /// last run made holds a step's summary.
    pub fn later_run_recorded(&self, r: &StepResult) -> bool {
        let Some(q) = self.plan_step(r).and_then(|s| s.repeat) else { return false };
        self.steps.iter().any(|s| {
            self.plan_step(s).and_then(|p| p.repeat).is_some_and(|o| o.group == q.group && o.run > q.run)
        })
    }
    /// `r`'s repeat summary where it is its repeat's last word: a plain
    /// repeat's (on its last run), or a repeat `until cv`'s on the last run
    /// made (its earlier ones are superseded).
    pub fn final_repeats<'a>(&self, r: &'a StepResult) -> Option<&'a crate::analysis::RepeatSummary> {
        let rep = r.repeats.as_ref()?;
        (rep.until.is_none() || !self.later_run_recorded(r)).then_some(rep)
    }
}

/// Reads a results directory; changes nothing in it. Every error names the
/// file it is about.
pub fn load(dir: &Path) -> Result<Loaded> {
    let manifest = read_manifest(&manifest_path(dir)?)?;
    let steps = read_steps(&dir.join(STEPS_FILE))?;
    Ok(Loaded { dir: dir.to_path_buf(), manifest, steps })
}

/// The manifest of results directory `dir`, refusing what is not one.
pub fn manifest_path(dir: &Path) -> Result<PathBuf> {
    if !dir.exists() {
        return Err(Error::results(dir, "does not exist")
            .with_hint("give the results directory `methodic run` printed (its --out)"));
    }
    if !dir.is_dir() {
        return Err(Error::results(dir, "is not a directory")
            .with_hint("give the results directory `methodic run` printed, not a file in it"));
    }
    let path = dir.join(MANIFEST_FILE);
    if !path.exists() {
        let hint = if dir.join(STEPS_FILE).exists() || dir.join("results.json").exists() {
            "it has results but no manifest: it was written by a methodic older than 0.1 manifests"
        } else {
            "give the results directory `methodic run` printed (its --out)"
        };
        return Err(Error::results(dir, "is not a methodic results directory (it has no manifest.json)")
            .with_hint(hint));
    }
    Ok(path)
}

/// Reads `manifest.json` alone: refuses a damaged file, a newer schema and
/// a file that is not a manifest, naming it.
pub fn read_manifest(path: &Path) -> Result<Manifest> {
    let text = fs::read_to_string(path).map_err(|e| Error::results(path, format!("cannot be read: {e}")))?;
    let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
        Error::results(path, format!("is not valid JSON ({e})"))
            .with_hint("the file is damaged; results are also in steps.jsonl and results.json")
    })?;
    match value.get("schema").and_then(|v| v.as_u64()) {
        Some(n) if n > MANIFEST_SCHEMA as u64 => {
            return Err(Error::results(
                path,
                format!(
                    "was written with manifest schema {n}; this methodic {} reads schema {MANIFEST_SCHEMA} and older",
                    env!("CARGO_PKG_VERSION")
                ),
            )
            .with_hint("read it with the newer methodic that wrote it"));
        }
        Some(_) => {}
        None => {
            return Err(Error::results(path, "is not a methodic manifest (it has no schema number)"));
        }
    }
    serde_json::from_value(value).map_err(|e| Error::results(path, format!("is not a valid manifest: {e}")))
}

/// Reads `steps.jsonl`: one step a line, each line whole.
pub fn read_steps(path: &Path) -> Result<Vec<StepResult>> {
    let file = fs::File::open(path).map_err(|e| Error::results(path, format!("cannot be read: {e}")))?;
    let mut reader = BufReader::new(file);
    let mut steps = Vec::new();
    let mut line = String::new();
    let mut n = 0;
    loop {
        line.clear();
        let read =
            reader.read_line(&mut line).map_err(|e| Error::results(path, format!("cannot be read: {e}")))?;
        if read == 0 {
            break;
        }
        n += 1;
        if !line.ends_with('\n') {
            return Err(Error::results(path, format!("line {n} is truncated (it has no end of line)"))
                .with_hint("the run was cut off while recording this step; the steps before it are whole"));
        }
        if line.trim().is_empty() {
            continue;
        }
        let step: StepResult = serde_json::from_str(&line).map_err(|e| {
            Error::results(path, format!("line {n} is not a step record: {e}")).with_hint(
                "the file is damaged or was edited; each line must be one step as methodic wrote it",
            )
        })?;
        steps.push(step);
    }
    Ok(steps)
}

impl Manifest {
    /// Marks step `i` (from 0) as running from a drive state.
    pub fn step_started(&mut self, i: usize, started: &str, state: &DriveState) {
        let st = &mut self.steps[i];
        st.status = StepStatus::Running;
        st.started = Some(started.to_string());
        st.checklist.drive_state = Some(state.clone());
    }

    /// Takes in a finished (or failed, or interrupted) step.
    pub fn step_finished(&mut self, i: usize, r: &StepResult, interrupted: bool) {
        let st = &mut self.steps[i];
        st.status = match (&r.error, interrupted) {
            (_, true) => StepStatus::Interrupted,
            (Some(_), false) => StepStatus::Failed,
            (None, false) => StepStatus::Completed,
        };
        // As the record has it: a step whose I/O ran in an earlier
        // step's session (many hosts) started when that run did.
        st.started = Some(r.started.clone());
        st.seconds = Some(r.seconds);
        st.error = r.error.clone();
        st.io = r.io.clone();
        st.steady = r.steady.clone();
        st.actions = r.actions.clone();
        st.workers = WorkerPlacement::of(r);
    }

    /// Marks step `i` not run, and why: the repeat it belongs to stopped
    /// before its run.
    pub fn step_skipped(&mut self, i: usize, why: &str) {
        let st = &mut self.steps[i];
        st.status = StepStatus::Skipped;
        st.skipped = Some(why.to_string());
    }

    /// Puts step `i` back to pending, to be run again by a resume.
    pub fn reset_step(&mut self, i: usize) {
        let st = &mut self.steps[i];
        st.status = StepStatus::Pending;
        st.started = None;
        st.seconds = None;
        st.error = None;
        st.io = None;
        st.steady = None;
        st.actions.clear();
        st.workers.clear();
        st.checklist.drive_state = None;
        st.skipped = None;
    }

    /// Marks step `i` failed because its record could not be written.
    pub fn step_unrecorded(&mut self, i: usize, why: &str) {
        let st = &mut self.steps[i];
        st.status = StepStatus::Failed;
        st.error = Some(format!("not recorded: {why}"));
    }

    /// Writes the manifest to `dir` atomically: a temporary file, synced,
    /// renamed over the old one, and the directory synced.
    pub fn save(&mut self, dir: &Path, now: String) -> Result<()> {
        self.updated = now;
        let text = serde_json::to_string_pretty(self)
            .map_err(|e| Error::io("cannot encode the manifest", std::io::Error::other(e)))?;
        crate::dir::replace_synced(dir, MANIFEST_FILE, format!("{text}\n").as_bytes())
    }
}
