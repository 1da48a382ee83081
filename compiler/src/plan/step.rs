//! A plan's steps: [`Step`] and its [`Action`], the settings an action
//! carries (stop rules, rounds, repeats, operating points, probes), and
//! the words that describe a step in tables and logs.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::cost::StepEstimate;
use super::dataset::Dataset;
use super::load::{Job, Pauses, Qd, Qos, Rate};
use super::target::{Extent, Target};
use super::words::{aggregate_word, fine_name, plural};
use super::workload::Workload;
use super::{Aggregate, Bytes, Duration, EraseMethod, Metric, Percent};

/// One step of the plan: what it does, the settings it runs with, and
/// its estimate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// Stable and unique in the plan: `phase-slug/what`, made from the
    /// step's content so that editing one step leaves other ids alone.
    pub id: String,
    pub phase: Option<String>,
    pub action: Action,
    /// The target settings in effect, for steps that touch the target.
    pub target: Option<Target>,
    /// The RAM limit in effect (`limit_ram`), if any.
    pub ram_limit: Option<Bytes>,
    pub repeat: Option<RepeatRun>,
    /// The sweep this step belongs to, numbered from 1 in plan order.
    pub sweep: Option<u32>,
    /// The step sets the drive's state (erase, fill, a precondition or
    /// rounds that write): results after it depend on it having run.
    pub establishes_state: bool,
    /// `verify`: every block written carries a stamp (its offset, the
    /// write's sequence number and a checksum) and every block read back
    /// is checked against it. Left out of the plan when off.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub verify: bool,
    /// `local`: in a run on many hosts, this step (one fio cannot run:
    /// see [`Action::may_be_local`]) runs on the conductor, the machine
    /// running methodic, not on each host. On one machine it changes
    /// nothing. Left out of the plan when off.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub local: bool,
    pub estimate: StepEstimate,
}

/// What a step does: an object whose one key is the kind of step (`fill`,
/// `measure`, ...) and whose value holds its settings; `drop_caches`, which
/// has none, is the string alone.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
// The language's spelling; the alias reads plans and results written before.
#[serde(rename_all = "snake_case")]
pub enum Action {
    #[serde(alias = "Erase")]
    Erase { method: EraseMethod },
    /// `passes` sequential passes of `workload` over the span.
    #[serde(alias = "Fill")]
    Fill { workload: Workload, qd: Qd, passes: u32 },
    #[serde(alias = "Precondition")]
    Precondition { workload: Workload, qd: Qd, stop: PreconditionStop, series: Duration },
    /// One workload at one queue depth: `ramp` not recorded, then recorded
    /// until the stop rule.
    #[serde(alias = "Measure")]
    Measure {
        workload: Workload,
        qd: Qd,
        ramp: Duration,
        stop: MeasureStop,
        series: Duration,
        /// Open loop at this rate; `None` (left out): closed loop.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        rate: Option<Rate>,
        /// Pauses between I/Os (think time, bursts); left out when none.
        #[serde(default, skip_serializing_if = "Pauses::is_none")]
        pauses: Pauses,
        /// The queue depth and workers are chosen at run time from earlier
        /// measurements (`at max of dirth`); `qd` is then the first of
        /// them, for estimates only. Left out when the plan gives the QD.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        at: Option<Point>,
    },
    /// Jobs that run at the same time, each with its own workload, queue
    /// depth, rate and device: `ramp` not recorded, then recorded for the
    /// stop rule's time (the language gives a together step no `until
    /// written`).
    #[serde(alias = "Together")]
    Together { jobs: Vec<Job>, ramp: Duration, stop: MeasureStop, series: Duration },
    /// The highest rate at which a latency percentile stays under a limit.
    Qos(Qos),

    /// Rounds of measurements repeated until the tracked cell is steady.
    #[serde(alias = "Rounds")]
    Rounds {
        cells: Vec<Cell>,
        /// Index in `cells` of the measurement the rule watches.
        track: u32,
        rule: SteadyRule,
    },
    #[serde(alias = "DropCaches")]
    DropCaches,
    #[serde(alias = "Idle")]
    Idle { time: Duration },
    /// From here to the end of its block, RAM is limited (`None`: lifted).
    #[serde(alias = "LimitRam")]
    LimitRam { limit: Option<Bytes> },
    #[serde(alias = "Copy")]
    Copy { dataset: Dataset },
    #[serde(alias = "Probe")]
    Probe(Probe),
}

impl Action {
    /// Every workload the step runs: one, a rounds step's cells, or none.
    pub fn workloads(&self) -> Vec<&Workload> {
        match self {
            Action::Fill { workload, .. }
            | Action::Precondition { workload, .. }
            | Action::Measure { workload, .. } => vec![workload],
            Action::Rounds { cells, .. } => cells.iter().map(|c| &c.workload).collect(),
            Action::Together { jobs, .. } => jobs.iter().map(|j| &j.workload).collect(),
            Action::Qos(q) => vec![&q.workload],
            Action::Erase { .. }
            | Action::DropCaches
            | Action::Idle { .. }
            | Action::LimitRam { .. }
            | Action::Copy { .. }
            | Action::Probe(_) => Vec::new(),
        }
    }

    /// The word for the step's kind: `measure`, `fill`, ...
    pub fn kind(&self) -> &'static str {
        match self {
            Action::Erase { .. } => "erase",
            Action::Fill { .. } => "fill",
            Action::Precondition { .. } => "precondition",
            Action::Measure { .. } => "measure",
            Action::Rounds { .. } => "rounds",
            Action::Together { .. } => "together",
            Action::Qos(_) => "qos",
            Action::DropCaches => "drop_caches",
            Action::Idle { .. } => "idle",
            Action::LimitRam { .. } => "limit_ram",
            Action::Copy { .. } => "copy",
            Action::Probe(_) => "probe",
        }
    }

    /// Whether the step uses the target's settings (span, workers, io
    /// mode, data); drop_caches, idle and limit_ram do not.
    pub fn touches_target(&self) -> bool {
        !matches!(self, Action::DropCaches | Action::Idle { .. } | Action::LimitRam { .. })
    }

    /// Whether the step may be marked `local`: fio cannot run it (an
    /// erase, drop_caches, limit_ram, a copy or a probe), so in a run on
    /// many hosts it runs on the conductor or not at all. The other steps
    /// run on every host.
    pub fn may_be_local(&self) -> bool {
        matches!(
            self,
            Action::Erase { .. }
                | Action::DropCaches
                | Action::LimitRam { .. }
                | Action::Copy { .. }
                | Action::Probe(_)
        )
    }

    /// Whether the step sets the drive's state: an erase, a fill, or a
    /// precondition or rounds that write. Results after it depend on it.
    pub fn establishes_state(&self) -> bool {
        matches!(
            self,
            Action::Erase { .. } | Action::Fill { .. } | Action::Precondition { .. } | Action::Rounds { .. }
        ) && self.writes()
    }

    /// Whether the step writes to its target.
    pub fn writes(&self) -> bool {
        match self {
            Action::Erase { .. } | Action::Fill { .. } | Action::Copy { .. } | Action::Probe(_) => true,
            Action::Precondition { workload, .. } | Action::Measure { workload, .. } => workload.writes(),
            Action::Rounds { cells, .. } => cells.iter().any(|c| c.workload.writes()),
            Action::Together { jobs, .. } => jobs.iter().any(|j| j.workload.writes()),
            Action::Qos(q) => q.workload.writes(),
            Action::DropCaches | Action::Idle { .. } | Action::LimitRam { .. } => false,
        }
    }
}

impl Step {
    /// One line saying what the step does, for tables and logs:
    /// `measure rnd4k_write QD 32: 30s ramp, 5min record`; a local step
    /// says so at the end: `drop caches (local: on the conductor)`.
    pub fn describe(&self) -> String {
        let what = self.describe_action();
        if self.local { format!("{what} (local: on the conductor)") } else { what }
    }

    fn describe_action(&self) -> String {
        match &self.action {
            Action::Erase { method } => match method {
                EraseMethod::Secure => "erase: secure erase of the target".to_string(),
                EraseMethod::Discard => "erase: discard (TRIM) the span".to_string(),
                EraseMethod::Purge => "erase: purge the drive (the strongest erase it supports)".to_string(),
                EraseMethod::SanitizeBlock => "erase: sanitize the drive (block erase)".to_string(),
                EraseMethod::SanitizeCrypto => "erase: sanitize the drive (crypto erase)".to_string(),
                EraseMethod::SanitizeOverwrite => "erase: sanitize the drive (overwrite)".to_string(),
                EraseMethod::Format => "erase: format the namespace".to_string(),
                EraseMethod::FormatSecure => "erase: format the namespace with user data erase".to_string(),
                EraseMethod::FormatCrypto => "erase: format the namespace with crypto erase".to_string(),
                EraseMethod::AtaSecure => "erase: ATA security erase".to_string(),
                EraseMethod::AtaSecureEnhanced => "erase: ATA enhanced security erase".to_string(),
            },
            Action::Fill { workload, passes, .. } => {
                format!("fill: {} of {}", plural(*passes as u64, "pass", "passes"), workload.label())
            }
            Action::Precondition { workload, stop, .. } => {
                let stop = match stop {
                    PreconditionStop::Time(d) => format!("for {}", d.human()),
                    PreconditionStop::Steady { round, rule } => format!(
                        "until steady ({} rounds, window {}, max {})",
                        round.human(),
                        rule.window,
                        rule.max_rounds
                    ),
                };
                format!("precondition {} {stop}", workload.label())
            }
            Action::Measure { workload, ramp, stop, rate, pauses, at, .. } => {
                let mut parts = Vec::new();
                if let Some(p) = at {
                    parts.push(format!("at {}", p.describe()));
                }
                if let Some(r) = rate {
                    parts.push(format!("open loop at {}", r.describe()));
                }
                if !pauses.is_none() {
                    parts.push(pauses.describe());
                }
                parts.extend(timing_words(*ramp, stop));
                let joined = if stop.time.is_some() && stop.amount().is_some() {
                    format!("{}, whichever comes first", parts.join(", "))
                } else {
                    parts.join(", ")
                };
                format!("measure {}: {joined}", workload.label())
            }
            Action::Together { jobs, ramp, stop, .. } => {
                let names: Vec<&str> = jobs.iter().map(|j| j.name.as_str()).collect();
                format!(
                    "together: {} at once ({}): {}",
                    plural(jobs.len() as u64, "job", "jobs"),
                    names.join(", "),
                    timing_words(*ramp, stop).join(", ")
                )
            }
            Action::Rounds { cells, track, rule } => {
                let tracked = cells.get(*track as usize).map_or("?", |c| c.workload.name.as_str());
                format!(
                    "rounds of {} until {tracked} is steady (window {}, max {})",
                    plural(cells.len() as u64, "measurement", "measurements"),
                    rule.window,
                    rule.max_rounds
                )
            }
            Action::Qos(q) => q.describe(),
            Action::DropCaches => "drop caches".to_string(),
            Action::Idle { time } => format!("idle {}", time.human()),
            Action::LimitRam { limit: Some(b) } => format!("limit RAM to {b}"),
            Action::LimitRam { limit: None } => "lift the RAM limit".to_string(),
            Action::Copy { dataset } => format!(
                "copy {} ({}, {})",
                dataset.name,
                plural(dataset.files, "file", "files"),
                dataset.total.human(false)
            ),
            Action::Probe(p) => format!(
                "probe pages: {} writes every {} over {}, {} of {}",
                p.io,
                p.step,
                p.range,
                aggregate_word(p.statistic),
                plural(p.repeats as u64, "repeat", "repeats")
            ),
        }
    }

    /// The queue depth as `256 (16x16)`, for steps that have one; the
    /// distinct depths of rounds, `1, 128 (4x32)`.
    pub fn qd(&self) -> Option<String> {
        let show = |qd: &Qd| {
            if qd.workers == 1 {
                qd.total.to_string()
            } else {
                format!("{} ({}x{})", qd.total, qd.workers, qd.per_worker)
            }
        };
        match &self.action {
            Action::Measure { at: Some(p), .. } => Some(format!("{} of {}", p.pick.word(), p.name)),
            Action::Fill { qd, .. } | Action::Precondition { qd, .. } | Action::Measure { qd, .. } => {
                Some(show(qd))
            }
            Action::Qos(q) => Some(show(&q.qd)),
            Action::Together { jobs, .. } => Some(
                jobs.iter().map(|j| format!("{} {}", j.name, show(&j.qd))).collect::<Vec<_>>().join(", "),
            ),
            Action::Rounds { cells, .. } => {
                let mut depths: Vec<&Qd> = cells.iter().map(|c| &c.qd).collect();
                depths.sort_by_key(|q| (q.total, q.workers));
                depths.dedup();
                // A thread x queue-depth matrix has dozens: its range says enough.
                match depths.as_slice() {
                    [first, .., last] if depths.len() > 6 => {
                        Some(format!("{} .. {} ({} layouts)", show(first), show(last), depths.len()))
                    }
                    _ => Some(depths.into_iter().map(show).collect::<Vec<_>>().join(", ")),
                }
            }
            Action::Erase { .. }
            | Action::DropCaches
            | Action::Idle { .. }
            | Action::LimitRam { .. }
            | Action::Copy { .. }
            | Action::Probe(_) => None,
        }
    }
}

/// A measurement's ramp and stop in words: `30s ramp`, `5min record`,
/// `until 400% of the span is written`.
fn timing_words(ramp: Duration, stop: &MeasureStop) -> Vec<String> {
    let mut parts = Vec::new();
    if !ramp.is_zero() {
        parts.push(format!("{} ramp", ramp.human()));
    }
    if let Some(t) = stop.time {
        parts.push(format!("{} record", t.human()));
    }
    match stop.amount() {
        Some((Extent::Percent(p), false)) => parts.push(format!("until {p} of the span is written")),
        Some((Extent::Bytes(b), false)) => parts.push(format!("until {b} is written")),
        Some((Extent::Percent(p), true)) => parts.push(format!("until {p} of the span is read or written")),
        Some((Extent::Bytes(b), true)) => parts.push(format!("until {b} is read or written")),
        None => {}
    }
    parts
}

/// An operating point chosen at run time from earlier measurements of the
/// plan (SNIA PTS DIRTH's MaxIOPS, MidIOPS and MinIOPS): the queue depth
/// and workers of the one that did the most IOPS, the fewest, or the IOPS
/// nearest halfway between, of those whose mean latency was under a limit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Point {
    pub pick: Pick,
    /// The name the measurements were given (`as dirth`).
    pub name: String,
    /// Their steps' indices in the plan, from 0: measure steps, or rounds
    /// steps whose cells of the tracked workload (steady-state window
    /// averages) are candidates.
    pub of: Vec<u32>,
    /// Only measurements whose mean latency was under this many
    /// nanoseconds are candidates; left out when any is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub under_ns: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Pick {
    /// The most IOPS.
    Max,
    /// The fewest IOPS.
    Min,
    /// The IOPS nearest halfway between the most and the fewest.
    Mid,
}

impl Pick {
    /// `max`, `mid`, `min`: as the language writes it.
    pub fn word(self) -> &'static str {
        match self {
            Pick::Max => "max",
            Pick::Mid => "mid",
            Pick::Min => "min",
        }
    }
}

impl Point {
    /// `the QD of the most IOPS of dirth with a mean latency under 5ms`.
    pub fn describe(&self) -> String {
        let what = match self.pick {
            Pick::Max => "the most IOPS",
            Pick::Min => "the fewest IOPS",
            Pick::Mid => "the IOPS nearest halfway between the most and the fewest",
        };
        match self.under_ns {
            Some(ns) => {
                format!("the QD of {what} of {} with a mean latency under {}", self.name, fine_name(ns))
            }
            None => format!("the QD of {what} of {}", self.name),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
// The language's spelling; the alias reads plans and results written before.
#[serde(rename_all = "snake_case")]
pub enum PreconditionStop {
    /// Run for this long.
    #[serde(alias = "Time")]
    Time(Duration),
    /// Run in rounds of `round` until the rule holds or max_rounds pass.
    #[serde(alias = "Steady")]
    Steady { round: Duration, rule: SteadyRule },
}

/// The SNIA PTS steady-state rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SteadyRule {
    /// Rounds in the measurement window.
    pub window: u32,
    /// Max - min of the window within this share of the window average.
    pub excursion: Percent,
    /// The least-squares line's change over the window within this share of the average.
    pub slope: Percent,
    /// Give up after this many rounds.
    pub max_rounds: u32,
    pub metric: Metric,
}

impl Default for SteadyRule {
    fn default() -> Self {
        SteadyRule {
            window: 5,
            excursion: Percent::whole(20),
            slope: Percent::whole(10),
            max_rounds: 25,
            metric: Metric::Iops,
        }
    }
}

/// When a measurement stops recording: after `time`, after `written` or
/// `transferred` (never both), or whichever comes first when a time and an
/// amount are set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MeasureStop {
    pub time: Option<Duration>,
    /// Bytes written, or a share of the span.
    pub written: Option<Extent>,
    /// Bytes read and written together (`until transferred`), or a share
    /// of the span. Plans from before it have none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transferred: Option<Extent>,
}

impl MeasureStop {
    /// A stop after a time only.
    pub fn timed(time: Duration) -> MeasureStop {
        MeasureStop { time: Some(time), written: None, transferred: None }
    }

    /// The amount the step stops after, and whether reads count toward
    /// it: `until written` counts writes, `until transferred` every byte.
    pub fn amount(&self) -> Option<(Extent, bool)> {
        match (self.written, self.transferred) {
            (Some(w), _) => Some((w, false)),
            (None, Some(t)) => Some((t, true)),
            (None, None) => None,
        }
    }
}

/// One measurement in a round.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Cell {
    pub workload: Workload,
    pub qd: Qd,
    pub ramp: Duration,
    pub record: Duration,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RepeatRun {
    /// The repeat block, numbered from 1 in plan order.
    pub group: u32,
    /// This run, from 1.
    pub run: u32,
    /// The runs the plan holds: all are made, unless `until` stops them
    /// earlier.
    pub runs: u32,
    pub aggregate: Aggregate,
    /// `repeat N..M until cv P%`: the runs after run N stop once the
    /// spread is small. Left out of the plan for a plain count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<UntilCv>,
}

/// The rule of `repeat N..M until cv P%`: after each run from run N
/// (`min_runs`) on, the runs stop when every step of the block that has
/// a value has a coefficient of variation (sample standard deviation over
/// mean) of its values at most `cv`; at most the repeat's `runs` (M) are
/// made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UntilCv {
    /// N: the runs always made, 2 or more.
    pub min_runs: u32,
    /// P: the largest spread that stops the runs, above 0% and below 100%.
    pub cv: Percent,
}

impl UntilCv {
    /// `3..10 until cv 3%`, as the language writes it, for `runs` (M).
    pub fn words(&self, runs: u32) -> String {
        format!("{}..{runs} until cv {}", self.min_runs, self.cv)
    }
}

/// A flash page-size probe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Probe {
    /// Bytes written at each offset.
    pub io: Bytes,
    /// Distance between offsets.
    pub step: Bytes,
    /// Offsets run from 0 up to `range - io`.
    pub range: Bytes,
    pub repeats: u32,
    pub statistic: Aggregate,
    /// How many offsets that makes.
    pub offsets: u64,
}
