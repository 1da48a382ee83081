//! A run's records: `results.json` (the whole run) and each step's line in
//! `steps.jsonl` (what it measured, how its I/O ran, what failed), as the
//! runtime writes them and every reader reads them back.

use std::path::PathBuf;

use methodic_compiler::plan::{Arrivals, Metric, QosAxis, Step};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::analysis::{Cliff, Peak, RepeatSummary, Window};
use crate::ceiling::StepCeiling;
use crate::device_io::DeviceIo;
use crate::engine::EngineKind;
use crate::numbers::{Latency, Rates, Summary};

/// `results.json`: how the run ended and every step's record. What made
/// the numbers (the tool, host, targets, engine, seed, the plan and each
/// step's checklist) is the manifest's, which this names and does not
/// repeat.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct RunReport {
    /// The run's manifest, relative to the results directory.
    #[serde(default = "manifest_file")]
    pub manifest: PathBuf,
    /// Which methodology ran: enough to tell one results.json from another.
    pub methodology: MethodologyRef,
    /// Every number below comes from a rehearsal, not a measurement.
    pub rehearsal: bool,
    pub status: Status,
    pub error: Option<String>,
    pub seconds: f64,
    pub results: PathBuf,
    pub steps: Vec<StepResult>,
    /// The signal that interrupted the run (2 SIGINT, 15 SIGTERM).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Running,
    Completed,
    Failed,
    Interrupted,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct MethodologyRef {
    pub name: String,
    pub version: String,
    pub source_hash: String,
}

fn manifest_file() -> PathBuf {
    PathBuf::from(crate::dir::MANIFEST_FILE)
}

/// One step's record in `steps.jsonl` and `results.json`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct StepResult {
    pub index: usize,
    pub id: String,
    pub phase: Option<String>,
    pub kind: String,
    pub rehearsal: bool,
    pub started: String,
    pub seconds: f64,
    pub error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub io: Option<IoInfo>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<Summary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub series: Option<PathBuf>,
    /// The step's latency histograms, an HdrHistogram interval log
    /// (relative to the results directory).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_log: Option<PathBuf>,
    /// The best series interval of the record window (`value peak`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak: Option<Peak>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub steady: Option<SteadyResult>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cells: Option<Vec<CellResult>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub copy: Option<CopyResult>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub probe: Option<ProbeResult>,
    /// For a measurement until written: where the rate fell to a lower
    /// plateau and stayed, if it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cliff: Option<Cliff>,
    /// The host ceiling of each of the step's I/Os (a rounds step: each
    /// cell's), as measured for its own shape before the first step.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ceilings: Vec<StepCeiling>,
    /// Within 10% of the host ceiling of its own shape: the number may be
    /// the host's, not the drive's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_bound: Option<String>,
    /// On the last run of a repeat: every run's value, their statistics,
    /// and a warning when run 1 stands apart.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeats: Option<RepeatSummary>,
    /// What an erase, cache drop or RAM limit actually did.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub actions: Vec<String>,
    /// For a copy or a buffered fill, measure or timed precondition: the
    /// bytes asked for and the bytes that reached the device, by the
    /// kernel's counters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_io: Option<DeviceIo>,
    /// For an NVMe or SATA target, its health counters before and after
    /// the step.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub health: Vec<crate::health::StepHealth>,
    /// A `together` step's jobs, each on its own (the step's `summary` is
    /// all of them merged).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub jobs: Vec<JobResult>,
    /// A latency QoS search: every probe, and the rate it found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qos: Option<QosResult>,
    /// How the step's I/O spread over its devices and workers, where it
    /// had more than one worker: the step's one I/O (a QoS search: the
    /// probe its numbers are), each `together` job, each rounds cell's
    /// last round, a precondition until steady's rounds together
    /// (docs/RESULTS.md, "Devices and workers").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub spread: Vec<Spread>,
    /// A measurement (or `together` job) with `bursts ON every PERIOD`:
    /// each burst of its record window, in order (docs/RESULTS.md,
    /// "Bursts").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bursts: Vec<BurstResult>,
    /// I/Os recorded in the summary but started in no burst of the record
    /// window: started in the ramp's last burst, completed after the ramp
    /// ended (over all the step's jobs with bursts).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub bursts_from_ramp: u64,
    /// A step with `verify`: the intervals it checked and every mismatch
    /// it found (see [`VerifyResult`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<VerifyResult>,
    /// A run on many hosts (`--hosts`): each host's share of the step's
    /// I/O, as fio reported it on that host; the step's summary is all
    /// hosts together (latency from their merged histograms). For a
    /// rounds step, each cell's last round (docs/RESULTS.md, "Many
    /// hosts"). Empty for a run on this machine.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hosts: Vec<HostRates>,
}

/// One host's share of a step of a run on many hosts: what fio did there
/// over the step's record time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HostRates {
    /// The host as the hosts file names it, in fio's syntax (`ip:10.0.0.2,8765`).
    pub host: String,
    /// The file or block device it ran on there.
    pub target: String,
    /// A rounds step's cell, from 1 in the plan's order: its last round;
    /// `None` for the step's one I/O run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cell: Option<u32>,
    /// A `together` step's job, by its name; `None` for other steps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job: Option<String>,
    /// The seconds its rates are over: fio's runtime on that host.
    pub seconds: f64,
    /// Reads and writes together.
    pub total: Rates,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read: Option<Rates>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write: Option<Rates>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// What a latency QoS search found: the highest rate (by rate) or the
/// deepest queue depth (by queue depth) at which the percentile stayed
/// under the limit, and every probe it made, in order.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct QosResult {
    /// `p99.99`.
    pub percentile: String,
    pub limit_us: f64,
    /// What the search stepped; results from before it was a choice
    /// searched by rate.
    #[serde(default, skip_serializing_if = "QosAxis::is_rate")]
    pub by: QosAxis,
    /// By rate, the closed-loop probe: the most the target did at this
    /// queue depth. By queue depth, where every probe is closed loop: the
    /// most any probe did.
    pub closed_loop_iops: f64,
    /// By rate, the highest rate that met the limit; `None` when none did,
    /// and by queue depth (the step's summary is the probe at the depth
    /// found).
    pub found_iops: Option<f64>,
    /// By rate, the lowest rate that did not, above it (the search's
    /// bracket); `None` by queue depth.
    pub failed_iops: Option<f64>,
    /// By queue depth: the deepest depth per worker that met the limit;
    /// `None` by rate, or when depth 1 did not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub found_qd: Option<u32>,
    /// By queue depth: the shallowest depth per worker that did not, above
    /// it; `None` by rate, or when the ceiling met the limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed_qd: Option<u32>,
    pub points: Vec<QosPoint>,
    /// In words: `p99.99 under 1ms up to 41250 IOPS (41250 met it, 42500 did not; closed loop 61000 IOPS)`.
    pub verdict: String,
}

impl QosResult {
    /// A probe whose host floor, at the searched percentile, is over this
    /// share of the limit cannot judge the drive (`host_limited`).
    pub const HOST_SHARE: f64 = 0.5;

    /// The probe whose numbers are the step's: the last that met the limit
    /// at the rate found (the runtime asks whole I/Os a second) or at the
    /// depth found.
    pub fn found_probe(&self) -> Option<&QosPoint> {
        match self.by {
            QosAxis::Qd => {
                let found = self.found_qd?;
                self.points.iter().rev().find(|p| p.met && p.qd == Some(found))
            }
            QosAxis::Rate => {
                let found = self.found_iops?.round().max(1.0);
                self.points.iter().rev().find(|p| p.met && p.rate_iops == Some(found))
            }
        }
    }

    /// Whether the search found nothing that met the limit.
    pub fn found_nothing(&self) -> bool {
        match self.by {
            QosAxis::Qd => self.found_qd.is_none(),
            QosAxis::Rate => self.found_iops.is_none(),
        }
    }
}

/// One probe of a QoS search.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct QosPoint {
    /// The rate asked; `None` for a closed-loop probe.
    pub rate_iops: Option<f64>,
    /// In a search by queue depth, the depth per worker the probe ran at;
    /// `None` in a search by rate (every probe at the step's depth).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qd: Option<u32>,
    /// I/Os a second completed over the probe's record time.
    pub achieved_iops: f64,
    /// The rate was kept (open loop; `io.rate.kept`): 99% of the I/Os due
    /// started, and at most 1% were left waiting at the end. On many hosts
    /// (fio counts no I/Os due or started): 99% of the I/Os asked
    /// completed, less those the queue may hold at the end.
    pub kept: bool,
    /// The searched percentile, µs; `None` when the probe completed no I/O
    /// in its record time (it did not meet the limit).
    #[serde(default)]
    pub percentile_us: Option<f64>,
    pub latency_us: crate::numbers::Latency,
    /// Kept, and the percentile under the limit.
    pub met: bool,
    /// Open loop: how late the probe's I/Os started, at the searched
    /// percentile, us.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lateness_us: Option<f64>,
    /// Open loop: the host's pacing floor beside the probe, at the searched
    /// percentile (the worse of its runs against RAM), us.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub floor_us: Option<f64>,
    /// The probe missed the limit, and the host's floor alone took more
    /// than [`QosResult::HOST_SHARE`] of it: the host, not the drive, kept
    /// it from meeting the limit, and the probe cannot judge the drive.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub host_limited: bool,
}

/// One job of a `together` step: what it did, on which device, and its
/// own summary, I/O facts and series.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct JobResult {
    pub name: String,
    /// The target it ran on, by path.
    pub device: String,
    /// Its workload, with what it does: `reads (4KiB random, 100% read)`.
    pub workload: String,
    /// Its total queue depth.
    pub qd: u32,
    pub summary: Summary,
    /// How its I/O ran; `None` for an imported result's job (the tool's
    /// engine is the manifest's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub io: Option<IoInfo>,
    /// Its series; `None` for an imported result's job.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub series: Option<PathBuf>,
}

impl StepResult {
    /// The thermal-throttle events the drives counted over the step
    /// (NVMe: the health log's transition counts, after less before);
    /// `None` when no drive's health that counts them was read.
    pub fn throttle_events(&self) -> Option<u32> {
        let counted: Vec<u32> = self.health.iter().filter_map(|h| h.throttle_events).collect();
        (!counted.is_empty()).then(|| counted.iter().sum())
    }

    /// The record of step `i` (from 0) before it runs.
    pub fn new(i: usize, step: &Step, rehearsal: bool, started: String) -> StepResult {
        StepResult {
            index: i + 1,
            id: step.id.clone(),
            phase: step.phase.clone(),
            kind: step.action.kind().to_string(),
            rehearsal,
            started,
            seconds: 0.0,
            error: None,
            io: None,
            summary: None,
            series: None,
            latency_log: None,
            peak: None,
            steady: None,
            cells: None,
            copy: None,
            probe: None,
            cliff: None,
            repeats: None,
            ceilings: Vec::new(),
            host_bound: None,
            actions: Vec::new(),
            device_io: None,
            health: Vec::new(),
            jobs: Vec::new(),
            qos: None,
            spread: Vec::new(),
            bursts: Vec::new(),
            bursts_from_ramp: 0,
            verify: None,
            hosts: Vec::new(),
        }
    }
}

/// How a step's I/O ran.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct IoInfo {
    pub engine: EngineKind,
    /// Why methodic chose the engine.
    pub engine_reason: String,
    /// Worker threads, and the I/Os each kept in flight.
    pub threads: u32,
    pub depth: u32,
    /// The average number of I/Os in flight over all threads, sampled at
    /// each submission: what queue depth was actually kept.
    pub mean_inflight: f64,
    pub registered_buffers: bool,
    /// io_uring sent every I/O straight to a kernel worker, as the target
    /// cannot be driven without blocking (zram, loop devices, tmpfs).
    pub forced_async: bool,
    /// Latencies were not recorded (`no_latency`).
    pub latency_recorded: bool,
    pub bytes_written: u64,
    pub seed: u64,
    /// I/Os that failed: the step stopped at the first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub errors: Option<IoErrors>,
    /// Open loop: the rate asked, the rate kept, and how late I/Os
    /// started; absent for a closed-loop step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<OpenLoopResult>,
}

/// An open-loop step's rate: what was asked, what its workers started and
/// completed over the record window, whether the rate was kept, and how
/// late I/Os started (docs/RESULTS.md, "Open loop"). Latencies in the
/// step's summary, series and log count from when each I/O was due.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct OpenLoopResult {
    /// I/Os a second asked over all the step's workers (for a bandwidth,
    /// the bytes a second over the workload's mean block).
    pub asked_iops: f64,
    /// The bandwidth asked, bytes a second, when the rate was one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asked_bytes_s: Option<u64>,
    pub arrivals: Arrivals,
    /// I/Os due in the record window, by the workers' schedules.
    pub due: u64,
    /// I/Os started in the record window, whenever they were due.
    pub started: u64,
    /// I/Os completed in the record window (the summary's).
    pub completed: u64,
    /// `started` and `completed` over the seconds recorded.
    pub started_iops: f64,
    pub completed_iops: f64,
    /// The workers started at least 99% of the I/Os due, and left a
    /// backlog of at most 1% of them at the end.
    pub kept: bool,
    /// I/Os started in the window one mean gap (of their worker) or more
    /// after they were due, and their share of those started, percent.
    pub late: u64,
    pub late_percent: f64,
    /// One worker's mean gap, us: how late counts as late.
    pub late_after_us: f64,
    /// How late the late I/Os started, on average, us.
    pub lateness_mean_us: f64,
    /// Lateness of every I/O started in the window (on time counts as 0):
    /// its 99th percentile and its maximum, us.
    pub lateness_p99_us: f64,
    pub lateness_max_us: f64,
    /// I/Os due before the window ended (ramp included) that never started.
    pub never_started: u64,
    /// Of those, the ones already late when it ended (a backlog).
    pub backlog: u64,
    /// The median lateness of every I/O started in the window, us (0 in
    /// results written before it was recorded).
    #[serde(default)]
    pub lateness_p50_us: f64,
    /// The host's pacing floor at this rate and these threads, measured
    /// beside the step; `None` for results from before it was measured,
    /// for steps run on many hosts and for `together` jobs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub floor: Option<PacingFloor>,
    /// When the step's p99 latency is within [`PacingFloor::FACTOR`] of the
    /// floor's: a sentence saying that this percentile is the host's
    /// scheduling, not the device.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub floor_warning: Option<String>,
}

/// The host's pacing floor: the step's open loop (its rate, arrivals,
/// engine, threads and depth) run with no device, and against a file in
/// RAM (tmpfs), just before and just after the step. How late the loop
/// alone starts I/Os is the host's scheduling; the latency against RAM
/// (counted from when each I/O was due, as the step's) is the least the
/// host adds to every I/O at this rate (docs/RESULTS.md, "The host's
/// pacing floor").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PacingFloor {
    /// How long each floor run recorded, seconds.
    pub seconds: f64,
    /// The runs, in the order they ran.
    pub runs: Vec<FloorRun>,
    /// Why a run is missing (no room in /dev/shm, say); `None` when all
    /// four ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_measured: Option<String>,
}

/// One run of the pacing floor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FloorRun {
    /// `no I/O` (the loop alone) or `RAM` (a file in tmpfs).
    pub against: FloorTarget,
    /// `before` or `after` the step.
    pub when: FloorWhen,
    /// I/Os started in its record window.
    pub started: u64,
    /// How late they started: median, 99th percentile and maximum, us.
    pub lateness_p50_us: f64,
    pub lateness_p99_us: f64,
    pub lateness_max_us: f64,
    /// Their latency from when each was due: 99th percentile and maximum,
    /// us (against no device: the lateness and nothing else).
    pub latency_p99_us: f64,
    pub latency_max_us: f64,
}

/// What a floor run drove.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FloorTarget {
    /// No device: every I/O completes as it starts, without a system call.
    NoIo,
    /// A file in RAM (tmpfs at /dev/shm).
    Ram,
}

/// When a floor run ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FloorWhen {
    Before,
    After,
}

impl FloorTarget {
    /// `no-I/O` or `RAM`: the run's name.
    pub fn label(self) -> &'static str {
        match self {
            FloorTarget::NoIo => "no-I/O",
            FloorTarget::Ram => "RAM",
        }
    }

    pub fn words(self) -> &'static str {
        match self {
            FloorTarget::NoIo => "no I/O",
            FloorTarget::Ram => "a file in RAM",
        }
    }
}

impl FloorWhen {
    pub fn words(self) -> &'static str {
        match self {
            FloorWhen::Before => "before",
            FloorWhen::After => "after",
        }
    }
}

impl PacingFloor {
    /// A step whose p99 latency is under this many times the floor's
    /// carries a warning: at most half of it can be the device's.
    pub const FACTOR: f64 = 2.0;

    /// The worst late-start p99 of the loop alone (no I/O), us.
    pub fn lateness_p99_us(&self) -> f64 {
        self.worst(FloorTarget::NoIo, |r| r.lateness_p99_us)
    }

    /// The worst p99 latency against RAM, us: what the step's p99 is
    /// judged against.
    pub fn latency_p99_us(&self) -> f64 {
        self.worst(FloorTarget::Ram, |r| r.latency_p99_us)
    }

    fn worst(&self, against: FloorTarget, f: fn(&FloorRun) -> f64) -> f64 {
        self.runs.iter().filter(|r| r.against == against).map(f).fold(0.0, f64::max)
    }

    /// The warning for a step whose p99 latency is `p99_us`, when it is
    /// under [`PacingFloor::FACTOR`] times the floor's; `None` otherwise,
    /// and when the floor has no RAM run.
    pub fn warning(&self, p99_us: f64) -> Option<String> {
        let floor = self.latency_p99_us();
        if floor <= 0.0 || !p99_us.is_finite() || p99_us >= Self::FACTOR * floor {
            return None;
        }
        Some(format!(
            "its p99 latency, {}, is under {}x the host's pacing floor at this rate ({} against a file in \
             RAM): this percentile is the host's scheduling, not the device",
            seconds_words(p99_us / 1e6),
            Self::FACTOR,
            seconds_words(floor / 1e6)
        ))
    }

    /// `the host's pacing floor: started late by p99 120 us with no I/O,
    /// p99 latency 310 us against a file in RAM`; a kind of run that is
    /// missing (or started no I/O) is left out, and why it is missing
    /// said.
    pub fn words(&self) -> String {
        let ran = |against: FloorTarget| self.runs.iter().any(|r| r.against == against && r.started > 0);
        let mut parts = Vec::new();
        if ran(FloorTarget::NoIo) {
            parts.push(format!(
                "started late by p99 {} with no I/O",
                seconds_words(self.lateness_p99_us() / 1e6)
            ));
        }
        if ran(FloorTarget::Ram) {
            parts.push(format!(
                "p99 latency {} against a file in RAM",
                seconds_words(self.latency_p99_us() / 1e6)
            ));
        }
        if let Some(why) = &self.not_measured {
            parts.push(if self.runs.is_empty() {
                format!("not measured: {why}")
            } else {
                format!("not measured in full: {why}")
            });
        }
        if parts.is_empty() {
            parts.push("no floor run started an I/O".into());
        }
        format!("the host's pacing floor: {}", parts.join(", "))
    }
}

impl OpenLoopResult {
    /// `asked 50000 IOPS, kept 31250 (62.5%); 81% of I/Os started late,
    /// by up to 1.24 s; 104000 never started`, or `at 2000 IOPS (uniform):
    /// kept` with its late I/Os when there were any.
    pub fn words(&self) -> String {
        let asked = match self.asked_bytes_s {
            Some(b) => format!("{:.1} MB/s", b as f64 / 1e6),
            None => format!("{:.0} IOPS", self.asked_iops),
        };
        let share = if self.asked_iops > 0.0 { self.started_iops / self.asked_iops * 100.0 } else { 0.0 };
        let kept = match self.asked_bytes_s {
            Some(b) => format!("{:.1} MB/s", b as f64 / 1e6 * share / 100.0),
            None => format!("{:.0}", self.started_iops),
        };
        let mut out = if self.kept {
            format!("at {asked} ({}): kept", self.arrivals.words())
        } else {
            format!("asked {asked} ({}), kept {kept} ({share:.1}%)", self.arrivals.words())
        };
        if self.late > 0 {
            out.push_str(&format!(
                "; {} of I/Os started late, by up to {}",
                percent_words(self.late_percent),
                seconds_words(self.lateness_max_us / 1e6)
            ));
        }
        if self.never_started > 0 {
            out.push_str(&format!("; {} never started", self.never_started));
        }
        if let Some(floor) = &self.floor {
            out.push_str(&format!(
                "; started late by p99 {} ({})",
                seconds_words(self.lateness_p99_us / 1e6),
                floor.words()
            ));
        }
        if let Some(w) = &self.floor_warning {
            out.push_str(&format!("; warning: {w}"));
        }
        out
    }
}

/// `81%`, `0.3%`, `0.004%`: a share with the digits that tell it from 0.
fn percent_words(p: f64) -> String {
    if p >= 10.0 {
        format!("{p:.0}%")
    } else if p >= 0.1 {
        format!("{p:.1}%")
    } else {
        format!("{p:.3}%")
    }
}

/// `1.24 s`, `4.1 ms`, `850 us`.
fn seconds_words(s: f64) -> String {
    if s >= 1.0 {
        format!("{s:.2} s")
    } else if s >= 1e-3 {
        format!("{:.1} ms", s * 1e3)
    } else {
        format!("{:.0} us", s * 1e6)
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct SteadyResult {
    pub metric: Metric,
    pub reached: bool,
    pub rounds: u32,
    /// The metric of each round, in order.
    pub values: Vec<f64>,
    /// The last window checked.
    pub window: Option<Window>,
    /// Each round's latency (reads and writes together), in order: the
    /// distribution of every round, not only the last.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rounds_latency_us: Vec<Latency>,
}

/// One measurement of a `rounds` step: its last round, and its averages
/// over the steady-state window (or the last `window` rounds).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct CellResult {
    pub workload: String,
    pub qd: u32,
    /// The workers the queue depth was spread over (0 in results written
    /// before it was recorded).
    #[serde(default)]
    pub workers: u32,
    pub window_iops: f64,
    pub window_mb_s: f64,
    pub window_mean_latency_us: f64,
    /// The latency of every I/O of the window's rounds, as one
    /// distribution: its `max` is the longest response time in the window
    /// (SNIA PTS's maximum response time), its `mean` the average
    /// response time over the window's I/Os.
    #[serde(default)]
    pub window_latency_us: Latency,
    /// Each round's latency, in order.
    #[serde(default)]
    pub rounds_latency_us: Vec<Latency>,
    /// The best round's IOPS and MB/s (`value peak`: a cell has no series,
    /// its rounds are its intervals).
    #[serde(default)]
    pub peak_iops: f64,
    #[serde(default)]
    pub peak_mb_s: f64,
    pub last: Summary,
}

/// The failed I/Os of a step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct IoErrors {
    /// I/Os that failed or moved fewer bytes than asked.
    pub failed: u64,
    /// I/Os that completed in full, ramp included.
    pub completed: u64,
    /// The first failure (of the first worker that had one).
    pub first: FailedIo,
    /// Other targets I/Os failed on, when the step used several.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub also_on: Vec<PathBuf>,
}

/// One failed I/O: where, what, and what the kernel said.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FailedIo {
    pub target: PathBuf,
    /// `read` or `write`.
    pub op: String,
    pub offset: u64,
    pub len: u32,
    /// `EIO`; `null` for a short transfer.
    pub errno: Option<String>,
    /// -errno, or the bytes a short transfer moved.
    pub result: i32,
    /// In words: `write of 65536 bytes at offset 8388608 failed with EIO (Input/output error)`.
    pub error: String,
}

/// What one copy did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CopyResult {
    pub files: u64,
    pub bytes: u64,
    /// From the first read to the end of the sync of the destination.
    pub seconds: f64,
    pub mb_s: f64,
    pub mib_s: f64,
    /// How the copy was made.
    pub method: String,
    pub source: PathBuf,
    pub destination: PathBuf,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ProbeResult {
    /// Offsets probed (the plan's, less those `skipped`).
    pub offsets: u64,
    pub repeats: u32,
    /// The plan's offsets that were not probed: with O_DIRECT, those that
    /// are not multiples of the target's logical block.
    #[serde(default)]
    pub skipped: u64,
    /// Bytes of each write as issued: the probe's `io`, rounded up to the
    /// logical block with O_DIRECT.
    #[serde(default)]
    pub write_bytes: u64,
    /// The smallest write that reaches the device as such: the logical
    /// block (the direct-I/O alignment) with O_DIRECT, a page of the page
    /// cache without.
    #[serde(default)]
    pub unit_bytes: u64,
    /// How each write went and was made durable: `O_DIRECT writes, each
    /// followed by fdatasync`, or `writes through the page cache, each
    /// followed by fdatasync`.
    pub durable: String,
    /// What reached the device, in words.
    #[serde(default)]
    pub note: String,
    /// Over the offsets' kept values, in microseconds.
    pub min_us: f64,
    pub median_us: f64,
    pub max_us: f64,
    /// The page size the latencies point at, or why none was found.
    #[serde(default)]
    pub pages: Option<crate::analysis::PageEstimate>,
}

/// How one I/O run of a step spread over its devices and workers: each
/// device's numbers (its workers' I/Os merged, latency from the merged
/// histograms) and each worker's, over the run's record window, with the
/// noise of each (docs/RESULTS.md, "Devices and workers"). A worker is one
/// thread: with psync, one a queue slot.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Spread {
    /// A `together` step's job, by name; `None` for the step's own I/O.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job: Option<String>,
    /// A rounds step's cell, from 1 in the plan's order: its last round.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cell: Option<u32>,
    /// Each device the workers used, in target order; empty when they all
    /// used one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub devices: Vec<DeviceRates>,
    /// Each worker, from 1; empty with one worker.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub workers: Vec<WorkerRates>,
}

/// One device's share of an I/O run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DeviceRates {
    /// The target, from 1 (the order of `--target`); the manifest's
    /// `targets` says what it is (model, serial).
    pub target: u32,
    pub path: PathBuf,
    /// The workers that used it, from 1.
    pub workers: Vec<u32>,
    /// The seconds its rates are over: the step's record time (a step
    /// that stops by bytes: to its workers' last recorded completion).
    pub seconds: f64,
    /// Reads and writes together.
    pub rates: crate::numbers::Rates,
    pub noise: Noise,
}

/// One worker's share of an I/O run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct WorkerRates {
    /// From 1.
    pub worker: u32,
    /// The target it used, from 1, and its path.
    pub target: u32,
    pub path: PathBuf,
    /// The seconds its rates are over: the step's record time (a step
    /// that stops by bytes: to its last recorded completion).
    pub seconds: f64,
    /// Reads and writes together.
    pub rates: crate::numbers::Rates,
    pub noise: Noise,
}

/// How a worker (or a device) ran against the others of its group (the
/// step's devices; the workers on the same device) interval by interval
/// over the record window, and how much that moved: what a difference in
/// IOPS must exceed to be more than noise (docs/RESULTS.md, "Devices and
/// workers"). Measured on a log scale, each interval against the group's
/// own in the same interval, so that what slows the whole machine for a
/// moment (another process, a stall) moves every member alike and cancels.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Noise {
    /// Whole series intervals counted (those every member of the group
    /// recorded), and their length.
    pub intervals: u32,
    pub interval_s: f64,
    /// The sample standard deviation of its IOPS over those intervals.
    pub sd_iops: f64,
    /// The mean over the intervals of `ln((n + 1) / g)`, `n` its I/Os in the
    /// interval and `g` the geometric mean of its group's `n + 1`: above 0
    /// when it ran faster than its group, below when slower (0.1 is about
    /// 10% faster).
    pub vs_group: f64,
    /// The correlation of that log ratio from one interval to the next
    /// (lag 1).
    pub autocorrelation: f64,
    /// The standard error of `vs_group`: the log ratios' standard
    /// deviation over `sqrt(n)`, widened by `sqrt((1 + r) / (1 - r))` for
    /// their autocorrelation `r` (taken between 0 and 0.9); `None` with
    /// fewer than [`Noise::MIN_INTERVALS`] intervals or alone in its group,
    /// when the noise cannot be told.
    pub vs_group_se: Option<f64>,
}

impl Noise {
    /// The fewest whole intervals whose spread is taken as the noise.
    pub const MIN_INTERVALS: usize = 4;

    /// The noise of each member of a group, from its I/O counts, one a
    /// whole interval of `interval_s` seconds (counted over the intervals
    /// every member has: the shortest series).
    pub fn of_group(counts: &[Vec<u64>], interval_s: f64) -> Vec<Noise> {
        let n = counts.iter().map(Vec::len).min().unwrap_or(0);
        let logs: Vec<Vec<f64>> =
            counts.iter().map(|c| c[..n].iter().map(|x| (*x as f64 + 1.0).ln()).collect()).collect();
        let group: Vec<f64> =
            (0..n).map(|j| logs.iter().map(|l| l[j]).sum::<f64>() / logs.len().max(1) as f64).collect();
        counts
            .iter()
            .zip(&logs)
            .map(|(c, l)| {
                let iops: Vec<f64> = c[..n].iter().map(|x| *x as f64 / interval_s).collect();
                let ratio: Vec<f64> = l.iter().zip(&group).map(|(x, g)| x - g).collect();
                let (mean, sd, r) = moments(&ratio);
                let widen = {
                    let r = r.clamp(0.0, 0.9);
                    ((1.0 + r) / (1.0 - r)).sqrt()
                };
                Noise {
                    intervals: n as u32,
                    interval_s,
                    sd_iops: moments(&iops).1,
                    vs_group: mean,
                    autocorrelation: r,
                    vs_group_se: (n >= Noise::MIN_INTERVALS && counts.len() > 1)
                        .then(|| sd / (n as f64).sqrt() * widen),
                }
            })
            .collect()
    }
}

/// The mean, sample standard deviation and lag-1 autocorrelation of `x`.
fn moments(x: &[f64]) -> (f64, f64, f64) {
    let n = x.len();
    if n == 0 {
        return (0.0, 0.0, 0.0);
    }
    let mean = x.iter().sum::<f64>() / n as f64;
    let ss: f64 = x.iter().map(|v| (v - mean).powi(2)).sum();
    let sd = if n > 1 { (ss / (n - 1) as f64).sqrt() } else { 0.0 };
    let r = if n > 2 && ss > 0.0 {
        x.windows(2).map(|w| (w[0] - mean) * (w[1] - mean)).sum::<f64>() / ss
    } else {
        0.0
    };
    (mean, sd, r)
}

/// One burst of a measurement with `bursts ON every PERIOD`: the I/Os
/// started in `[start + i * PERIOD, start + i * PERIOD + ON)` of its
/// record window and recorded (docs/RESULTS.md, "Bursts").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BurstResult {
    /// A `together` step's job, by name; `None` for a measurement.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job: Option<String>,
    /// From 0.
    pub index: u32,
    /// When it started, seconds into the record window.
    pub start_s: f64,
    /// The seconds of its `ON` inside the record window (the last burst's
    /// may be cut by the window's end).
    pub on_s: f64,
    pub ios: u64,
    /// `ios` over `on_s`.
    pub iops: f64,
    /// Of its I/Os, from start to completion; `None` when latencies were
    /// not recorded or it has no I/O.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_latency_us: Option<f64>,
}

/// What a step with `verify` checked: a write step reads back every
/// interval it wrote once its writes end; a read step checks every
/// interval it reads as it reads it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct VerifyResult {
    pub how: VerifyWay,
    /// Bytes an interval, each with a stamp at its head.
    pub interval_bytes: u64,
    /// The run the stamps are checked against (hex).
    pub run: String,
    /// A write step: the intervals it wrote whole, stamped. By fio: every
    /// write, a block written twice counted twice (fio reads each back
    /// once).
    pub written: u64,
    /// A write step: intervals it wrote that are not checked, as their
    /// contents are not known: trimmed, or written in part.
    pub left_out: u64,
    /// Intervals checked: read back (a write step), or read (a read step).
    pub checked: u64,
    /// Every mismatch found, counted exactly.
    pub mismatches: u64,
    /// The first mismatches, at most [`VerifyResult::LISTED`]: by offset
    /// when read back, in the order the workers found them when read.
    pub first: Vec<Mismatch>,
    /// Seconds the read-back took (a write step), not part of the step's
    /// numbers; 0 for a read step, whose checks are part of its reads.
    pub seconds: f64,
    /// Checked by fio's own verify, not methodic's stamp (a run on many
    /// hosts): fio's header and crc32c at the head of each block written
    /// (the interval is the block), read back by fio's verify phase once
    /// the writes end; `run` is empty, as fio's header names no run.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub by_fio: bool,
}

impl VerifyResult {
    /// How many mismatches are listed at most.
    pub const LISTED: usize = 100;

    /// `verified 4096 intervals of 4 KiB, no mismatch (read back in
    /// 0.21s)`, or the mismatches in words.
    pub fn words(&self) -> String {
        let how = match self.how {
            VerifyWay::ReadBack => format!(", read back in {:.2}s", self.seconds),
            VerifyWay::AsRead => String::new(),
        };
        let size = crate::units::human(self.interval_bytes);
        let (by, unit) = if self.by_fio {
            ("by fio's own verify (verify=crc32c, its header in each block): ", "blocks")
        } else {
            ("", "intervals")
        };
        if self.mismatches == 0 {
            return format!("{by}verified {} {unit} of {size}{how}: no mismatch", self.checked);
        }
        let first = self.first.first().map_or(String::new(), |m| format!("; the first {}", m.words()));
        format!(
            "{by}{} of {} {unit} of {size} checked do not match{how}{first}",
            self.mismatches, self.checked
        )
    }
}

/// How a step verified.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum VerifyWay {
    /// Its writes, read back once they ended.
    ReadBack,
    /// Its reads, checked as they completed.
    AsRead,
}

/// One interval whose contents are not what was written there.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Mismatch {
    /// The target, by path.
    pub target: String,
    /// The interval's offset on the target.
    pub offset: u64,
    pub kind: MismatchKind,
    /// What should have been there, and what was, in words.
    pub expected: String,
    pub found: String,
}

impl Mismatch {
    /// `at offset 8388608 of /dev/loop0: corrupted (expected checksum
    /// 0x1f2e3d4c, found 0x99aa0b1c)`.
    pub fn words(&self) -> String {
        format!(
            "at offset {} of {}: {} (expected {}, found {})",
            self.offset,
            self.target,
            self.kind.words(),
            self.expected,
            self.found
        )
    }
}

/// What was wrong with an interval.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum MismatchKind {
    /// No stamp at its head: never written with `verify`.
    NotStamped,
    /// Its bytes do not give the checksum its stamp holds.
    Corrupted,
    /// A whole, unchanged stamp of another run: a write of this run did
    /// not reach it.
    Stale,
    /// A whole, unchanged stamp of another offset: a write meant for
    /// there landed here.
    Misplaced,
}

impl MismatchKind {
    pub fn words(self) -> &'static str {
        match self {
            MismatchKind::NotStamped => "not written with verify",
            MismatchKind::Corrupted => "corrupted",
            MismatchKind::Stale => "stale (written by another run)",
            MismatchKind::Misplaced => "misplaced (another offset's block)",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A verify record in words: the count and the interval, the read-back
    /// time where there was one, and the first mismatch with its offset.
    #[test]
    fn a_verify_record_says_what_was_checked_and_the_first_mismatch() {
        let mut v = VerifyResult {
            how: VerifyWay::ReadBack,
            interval_bytes: 4096,
            run: "00000000000000aa".into(),
            written: 4096,
            left_out: 0,
            checked: 4096,
            mismatches: 0,
            first: Vec::new(),
            seconds: 0.25,
            by_fio: false,
        };
        assert_eq!(v.words(), "verified 4096 intervals of 4.0 KiB, read back in 0.25s: no mismatch");
        v.mismatches = 2;
        v.first.push(Mismatch {
            target: "/dev/loop0".into(),
            offset: 8388608,
            kind: MismatchKind::Misplaced,
            expected: "the stamp of offset 8388608".into(),
            found: "the stamp of offset 4096 (worker 1, write 9)".into(),
        });
        v.how = VerifyWay::AsRead;
        assert_eq!(
            v.words(),
            "2 of 4096 intervals of 4.0 KiB checked do not match; the first at offset 8388608 of /dev/loop0: \
             misplaced (another offset's block) (expected the stamp of offset 8388608, found the stamp of \
             offset 4096 (worker 1, write 9))"
        );
        let json = serde_json::to_value(&v).unwrap();
        assert_eq!((&json["how"], &json["first"][0]["kind"]), (&"as_read".into(), &"misplaced".into()));
        assert!(json.get("by_fio").is_none(), "said only when fio checked");
        // fio's own verify on many hosts says so, in blocks.
        v.by_fio = true;
        v.how = VerifyWay::ReadBack;
        v.mismatches = 0;
        assert_eq!(
            v.words(),
            "by fio's own verify (verify=crc32c, its header in each block): verified 4096 blocks of 4.0 KiB, \
             read back in 0.25s: no mismatch"
        );
    }

    fn floor_run(against: FloorTarget, when: FloorWhen, late_p99: f64, latency_p99: f64) -> FloorRun {
        FloorRun {
            against,
            when,
            started: 100,
            lateness_p50_us: late_p99 / 2.0,
            lateness_p99_us: late_p99,
            lateness_max_us: late_p99 * 2.0,
            latency_p99_us: latency_p99,
            latency_max_us: latency_p99 * 2.0,
        }
    }

    #[test]
    fn the_floor_warns_where_a_p99_is_under_twice_its_worst_run_against_ram() {
        let floor = PacingFloor {
            seconds: 1.0,
            runs: vec![
                floor_run(FloorTarget::NoIo, FloorWhen::Before, 150.0, 151.0),
                floor_run(FloorTarget::Ram, FloorWhen::Before, 200.0, 400.0),
                floor_run(FloorTarget::NoIo, FloorWhen::After, 3000.0, 3001.0),
                floor_run(FloorTarget::Ram, FloorWhen::After, 100.0, 250.0),
            ],
            not_measured: None,
        };
        // The worst of before and after: the host's floor moves.
        assert_eq!((floor.lateness_p99_us(), floor.latency_p99_us()), (3000.0, 400.0));
        assert_eq!(
            floor.words(),
            "the host's pacing floor: started late by p99 3.0 ms with no I/O, p99 latency 400 us against a file in RAM"
        );
        assert_eq!(
            floor.warning(799.0).as_deref(),
            Some(
                "its p99 latency, 799 us, is under 2x the host's pacing floor at this rate (400 us against a \
                 file in RAM): this percentile is the host's scheduling, not the device"
            )
        );
        assert_eq!(floor.warning(800.0), None);
        assert_eq!(floor.warning(f64::NAN), None);
        // With no run against RAM, nothing to judge by, and the words say
        // what is missing.
        let alone = PacingFloor {
            runs: floor.runs[..1].to_vec(),
            not_measured: Some("no run against RAM: /dev/shm has 1.0 MiB free".into()),
            ..floor.clone()
        };
        assert_eq!(alone.warning(10.0), None);
        assert_eq!(
            alone.words(),
            "the host's pacing floor: started late by p99 150 us with no I/O, not measured in full: no run against \
             RAM: /dev/shm has 1.0 MiB free"
        );
        // With no run at all (a together step's jobs), not measured.
        let none =
            PacingFloor { runs: Vec::new(), not_measured: Some("jobs at once".into()), ..floor.clone() };
        assert_eq!(none.warning(10.0), None);
        assert_eq!(none.words(), "the host's pacing floor: not measured: jobs at once");
    }
}
