//! The plan: what `lower` produces and the runtime executes. A flat,
//! ordered list of fully resolved steps (no loops, no names to look up),
//! each with its workload written out in bytes and percent, its queue depth
//! in total and per worker, its target settings and its estimate. Written
//! as RON (or JSON) deterministically; [`Plan::from_ron`] reads a plan back
//! and checks its schema version before anything else.

use serde::{Deserialize, Serialize};

pub use methodic_grammar::ast::{
    Aggregate, EraseMethod, IoMode, Metric, OnError, QdCounting, Units, ValueKind,
};
pub use methodic_grammar::units::{Bytes, Duration, Percent};
use methodic_grammar::{Code, Diagnostic};

/// The version of the plan format. Bump it whenever a change to these
/// types would make an old plan read differently.
pub const PLAN_SCHEMA: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
    pub steps: Vec<Step>,
    /// The sum of the steps' estimates.
    pub estimate: Estimate,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
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

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
    pub estimate: StepEstimate,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
    Measure { workload: Workload, qd: Qd, ramp: Duration, stop: MeasureStop, series: Duration },
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
            _ => Vec::new(),
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
            Action::DropCaches | Action::Idle { .. } | Action::LimitRam { .. } => false,
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

impl Step {
    /// One line saying what the step does, for tables and logs:
    /// `measure rnd4k_write QD 32: 30s ramp, 5min record`.
    pub fn describe(&self) -> String {
        match &self.action {
            Action::Erase { method } => match method {
                EraseMethod::Secure => "erase: secure erase of the target".to_string(),
                EraseMethod::Discard => "erase: discard (TRIM) the span".to_string(),
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
            Action::Measure { workload, ramp, stop, .. } => {
                let mut parts = Vec::new();
                if !ramp.is_zero() {
                    parts.push(format!("{} ramp", ramp.human()));
                }
                if let Some(t) = stop.time {
                    parts.push(format!("{} record", t.human()));
                }
                match stop.written {
                    Some(Extent::Percent(p)) => parts.push(format!("until {p} of the span is written")),
                    Some(Extent::Bytes(b)) => parts.push(format!("until {b} is written")),
                    None => {}
                }
                let joined = if stop.time.is_some() && stop.written.is_some() {
                    format!("{}, whichever comes first", parts.join(", "))
                } else {
                    parts.join(", ")
                };
                format!("measure {}: {joined}", workload.label())
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
            Action::Fill { qd, .. } | Action::Precondition { qd, .. } | Action::Measure { qd, .. } => {
                Some(show(qd))
            }
            Action::Rounds { cells, .. } => {
                let mut depths: Vec<&Qd> = cells.iter().map(|c| &c.qd).collect();
                depths.sort_by_key(|q| (q.total, q.workers));
                depths.dedup();
                Some(depths.into_iter().map(show).collect::<Vec<_>>().join(", "))
            }
            _ => None,
        }
    }
}

/// `1 pass`, `2 passes`.
pub fn plural(n: u64, one: &str, many: &str) -> String {
    if n == 1 { format!("1 {one}") } else { format!("{n} {many}") }
}

/// `median`, `mean`, `max`, `min`.
pub fn aggregate_word(a: Aggregate) -> &'static str {
    match a {
        Aggregate::Mean => "mean",
        Aggregate::Median => "median",
        Aggregate::Max => "max",
        Aggregate::Min => "min",
    }
}

impl Written {
    /// `200% of capacity + 7.4 GB + writes for 6h`, or `-`; sizes in the
    /// given units.
    pub fn human(&self, units: Units) -> String {
        let mut parts = Vec::new();
        if self.capacity != Percent::ZERO {
            parts.push(format!("{} of capacity", self.capacity));
        }
        if self.bytes.0 != 0 {
            parts.push(self.bytes.human(units == Units::Binary));
        }
        if !self.timed.is_zero() {
            parts.push(format!("writes for {}", self.timed.human()));
        }
        if parts.is_empty() { "-".to_string() } else { parts.join(" + ") }
    }
}

/// A workload written out in full.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Workload {
    /// The name it was defined under, or a description for one written in
    /// place. Not part of what the workload does.
    pub name: String,
    /// Block sizes with their shares of I/Os, smallest first; shares add up
    /// to 100%.
    pub blocks: Vec<BlockShare>,
    /// Share of I/Os that read.
    pub read: Percent,
    /// Share of I/Os at random offsets; the rest continue sequentially.
    pub random: Percent,
    /// Offsets are multiples of this.
    pub align: Bytes,
    /// I/O starts this far into the span.
    pub offset: Bytes,
}

impl Workload {
    pub fn writes(&self) -> bool {
        self.read < Percent::HUNDRED
    }

    /// What the workload does, without its name.
    pub fn io(&self) -> WorkloadIo {
        WorkloadIo {
            blocks: self.blocks.clone(),
            read: self.read,
            random: self.random,
            align: self.align,
            offset: self.offset,
        }
    }

    /// Whether two workloads do the same I/O, whatever their names.
    pub fn same_io(&self, other: &Workload) -> bool {
        self.io() == other.io()
    }

    /// The name with what the workload does, unless the name already
    /// says it: `rnd4k_read (4KiB random, 100% read)`.
    pub fn label(&self) -> String {
        let what = self.describe();
        if self.name.starts_with(&what) { self.name.clone() } else { format!("{} ({what})", self.name) }
    }

    /// `4KiB random, 0% read` or `512B..64KiB split random, 80% read`.
    pub fn describe(&self) -> String {
        let blocks = match self.blocks.as_slice() {
            [one] => one.size.to_string(),
            [first, .., last] => format!("{}..{} split", first.size, last.size),
            [] => "no blocks".to_string(),
        };
        let access = if self.random == Percent::HUNDRED {
            "random".to_string()
        } else if self.random == Percent::ZERO {
            "sequential".to_string()
        } else {
            format!("{} random", self.random)
        };
        format!("{blocks} {access}, {} read", self.read)
    }
}

/// A workload's I/O without its name: every field of [`Workload`] that
/// moves a number. Two workloads with equal `WorkloadIo` do the same I/O.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct WorkloadIo {
    pub blocks: Vec<BlockShare>,
    pub read: Percent,
    pub random: Percent,
    pub align: Bytes,
    pub offset: Bytes,
}

impl WorkloadIo {
    /// Every field in words, for when [`Workload::describe`] hides a
    /// difference: `4KiB:100% read 0% random 100% align 4KiB offset 1MiB`.
    pub fn in_full(&self) -> String {
        let blocks: Vec<String> = self.blocks.iter().map(|b| format!("{}:{}", b.size, b.share)).collect();
        format!(
            "{} read {} random {} align {} offset {}",
            blocks.join("+"),
            self.read,
            self.random,
            self.align,
            self.offset
        )
    }
}

/// "The same I/O", defined once: what a step (or one cell of a rounds
/// step) does to its target, with no name in it. Two steps whose keys are
/// equal measure the same thing, whatever their workloads, data sets or
/// phases are called. `diff` matches steps across plans by it; `compare`
/// pairs results across runs by it and names drive states by its
/// [`describe`](IoKey::describe). A key, not a label: it derives `Ord` and
/// `Hash` to be looked up, and says in words what it holds only through
/// `describe`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum IoKey {
    /// A fill, precondition or measurement, or one cell of a rounds step:
    /// the kind of step, the workload's I/O and the total queue depth.
    Io { kind: &'static str, io: WorkloadIo, qd: u32 },
    /// A copy: the data set's files and their sizes (not its name).
    Copy { files: u64, size_min: Bytes, size_max: Bytes, seed: u64 },
    /// Any other step: its kind (`erase`, `idle`, `probe`, ...).
    Other(&'static str),
}

impl IoKey {
    /// The keys of a step: one a cell for a rounds step, one for any other.
    pub fn of_step(step: &Step) -> Vec<IoKey> {
        let kind = step.action.kind();
        match &step.action {
            Action::Fill { workload, qd, .. }
            | Action::Precondition { workload, qd, .. }
            | Action::Measure { workload, qd, .. } => {
                vec![IoKey::Io { kind, io: workload.io(), qd: qd.total }]
            }
            Action::Rounds { cells, .. } => {
                cells.iter().map(|c| IoKey::Io { kind, io: c.workload.io(), qd: c.qd.total }).collect()
            }
            Action::Copy { dataset } => vec![IoKey::Copy {
                files: dataset.files,
                size_min: dataset.size_min,
                size_max: dataset.size_max,
                seed: dataset.seed,
            }],
            _ => vec![IoKey::Other(kind)],
        }
    }

    /// What the key holds, in words and without names: `4KiB random, 0%
    /// read at QD 32`, with the alignment and offset where they are not
    /// the plain ones (aligned to the smallest block, from the start), and
    /// the shares of a split. Keys that differ are described differently.
    pub fn describe(&self) -> String {
        match self {
            IoKey::Io { io, qd, .. } => {
                let w = Workload {
                    name: String::new(),
                    blocks: io.blocks.clone(),
                    read: io.read,
                    random: io.random,
                    align: io.align,
                    offset: io.offset,
                };
                let mut out = w.describe();
                if io.blocks.len() > 1 {
                    let shares: Vec<String> =
                        io.blocks.iter().map(|b| format!("{} {}", b.share, b.size)).collect();
                    out.push_str(&format!(" ({})", shares.join(", ")));
                }
                if io.blocks.first().is_none_or(|b| b.size != io.align) {
                    out.push_str(&format!(", aligned to {}", io.align));
                }
                if io.offset != Bytes(0) {
                    out.push_str(&format!(", from {} in", io.offset));
                }
                format!("{out} at QD {qd}")
            }
            IoKey::Copy { files, size_min, size_max, seed } => {
                format!("copy of {} of {size_min}..{size_max} (seed {seed})", plural(*files, "file", "files"))
            }
            IoKey::Other(kind) => (*kind).to_string(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BlockShare {
    pub size: Bytes,
    pub share: Percent,
}

/// A queue depth as the methodology counts it and as it is spread.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Qd {
    /// Outstanding I/Os over all workers.
    pub total: u32,
    /// Outstanding I/Os in each active worker.
    pub per_worker: u32,
    /// Workers active in this step: the declared workers, or fewer when a
    /// total queue depth is below the worker count.
    pub workers: u32,
    /// How the methodology counted it.
    pub counted: QdCounting,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
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

/// When a measurement stops recording: after `time`, after `written`, or
/// whichever comes first when both are set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeasureStop {
    pub time: Option<Duration>,
    /// Bytes written, or a share of the span.
    pub written: Option<Extent>,
}

/// One measurement in a round.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cell {
    pub workload: Workload,
    pub qd: Qd,
    pub ramp: Duration,
    pub record: Duration,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RepeatRun {
    /// The repeat block, numbered from 1 in plan order.
    pub group: u32,
    /// This run, from 1.
    pub run: u32,
    pub runs: u32,
    pub aggregate: Aggregate,
}

/// A generated tree of files for copy tests.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Dataset {
    pub name: String,
    /// Every file's size lies in `size_min..=size_max`, drawn uniformly.
    pub size_min: Bytes,
    pub size_max: Bytes,
    pub files: u64,
    /// The sum of the file sizes.
    pub total: Bytes,
    pub seed: u64,
}

impl Dataset {
    /// A dataset of `files` files drawn from `size_min..=size_max`; the
    /// total follows from the draws.
    pub fn of_files(name: &str, size_min: Bytes, size_max: Bytes, files: u64, seed: u64) -> Dataset {
        let total = size_draws(size_min, size_max, seed).take(files as usize).sum();
        Dataset { name: name.to_string(), size_min, size_max, files, total: Bytes(total), seed }
    }

    /// The file sizes in order, as the generator makes them: uniform in
    /// `size_min..=size_max` from a SplitMix64 stream seeded with `seed`.
    /// When the count was derived from a total, the last file holds what
    /// is left of the total.
    pub fn file_sizes(&self) -> impl Iterator<Item = u64> + use<> {
        let mut draws = size_draws(self.size_min, self.size_max, self.seed);
        let files = self.files;
        let mut left = self.total.0;
        (1..=files).map(move |n| {
            let drawn = draws.next().unwrap_or(0);
            let size = if n == files { left } else { drawn.min(left) };
            left -= size;
            size
        })
    }
}

/// An endless stream of sizes uniform in `min..=max` (SplitMix64).
pub(crate) fn size_draws(min: Bytes, max: Bytes, seed: u64) -> impl Iterator<Item = u64> {
    let (min, max) = (min.0, max.0.max(min.0));
    let mut state = seed;
    std::iter::repeat_with(move || {
        if min == max {
            return min;
        }
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        min + z % (max - min + 1)
    })
}

/// A flash page-size probe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
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

/// A time from `min` to `max`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimeRange {
    pub min: Duration,
    pub max: Duration,
}

impl TimeRange {
    pub fn exactly(d: Duration) -> TimeRange {
        TimeRange { min: d, max: d }
    }

    pub fn add(self, other: TimeRange) -> TimeRange {
        TimeRange { min: self.min.saturating_add(other.min), max: self.max.saturating_add(other.max) }
    }

    pub fn is_zero(self) -> bool {
        self.max.is_zero()
    }

    /// `6h`, `2h 5min .. 6h 25min`, or `up to 24h` from zero.
    pub fn human(self) -> String {
        if self.min.is_zero() && !self.max.is_zero() {
            format!("up to {}", self.max.human())
        } else if self.min == self.max {
            self.min.human()
        } else {
            format!("{} .. {}", self.min.human(), self.max.human())
        }
    }
}

/// What a step writes, as far as the plan can know it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Written {
    /// A share of the target's capacity (a fill of a 100% span twice is 200%).
    pub capacity: Percent,
    /// Bytes that do not depend on the capacity (byte spans, copies, probes).
    pub bytes: Bytes,
    /// Time spent writing for a fixed time: how much that writes depends on
    /// the device.
    pub timed: TimeRange,
}

impl Written {
    pub fn add(self, other: Written) -> Written {
        Written {
            capacity: Percent::from_hundredths(
                self.capacity.hundredths().saturating_add(other.capacity.hundredths()),
            ),
            bytes: Bytes(self.bytes.0.saturating_add(other.bytes.0)),
            timed: self.timed.add(other.timed),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StepEstimate {
    /// Time the step takes where the plan can know it; a steady-state step
    /// gives a range from `window` rounds to `max_rounds` rounds.
    pub time: TimeRange,
    /// The step also takes time that depends on the device's speed (erase,
    /// fill, until written, copy, probe).
    pub device_bound: bool,
    pub written: Written,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Estimate {
    /// The sum of the steps' times.
    pub time: TimeRange,
    /// Steps whose time also depends on the device.
    pub device_bound_steps: u32,
    /// The sum of the steps' writes.
    pub written: Written,
    /// The capacity given with `--capacity`, if any.
    pub capacity: Option<Bytes>,
    /// `capacity` times `written.capacity`, plus `written.bytes`.
    pub written_bytes: Option<Bytes>,
}

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
    /// not validate the content: use `crate::validate` for that.
    pub fn from_ron(text: &str) -> Result<Plan, Diagnostic> {
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
                Err(ron_error(e))
            }
        }
    }

    /// Reads a plan written by [`Plan::to_json`]; see [`Plan::from_ron`].
    pub fn from_json(text: &str) -> Result<Plan, Diagnostic> {
        let json_error = |e: serde_json::Error| {
            Diagnostic::unplaced(Code::PlanSyntax, format!("not a readable plan: {e}"))
        };
        match serde_json::from_str::<Plan>(text) {
            Ok(plan) => check_schema(plan.schema).map(|()| plan),
            Err(e) => {
                if let Ok(s) = serde_json::from_str::<SchemaOnly>(text) {
                    check_schema(s.schema)?;
                }
                Err(json_error(e))
            }
        }
    }

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
        self.time = self.time.add(step.estimate.time);
        self.device_bound_steps += u32::from(step.estimate.device_bound);
        self.written = self.written.add(step.estimate.written);
    }
}

/// The one field read before the rest, so that a plan of another schema
/// version is named as such rather than failing on its first difference.
#[derive(Deserialize)]
struct SchemaOnly {
    #[serde(default)]
    schema: u32,
}

fn check_schema(schema: u32) -> Result<(), Diagnostic> {
    match schema {
        PLAN_SCHEMA => Ok(()),
        0 => Err(Diagnostic::unplaced(Code::PlanSyntax, "this file has no plan schema version")
            .with_hint("a plan starts with `(schema: 1, ...`; write one with `methodic compile`")),
        other => Err(Diagnostic::unplaced(
            Code::PlanSchema,
            format!("this plan has schema version {other}; this methodic reads schema {PLAN_SCHEMA}"),
        )
        .with_hint("compile the methodology again with this methodic: `methodic compile FILE.method`")),
    }
}

fn ron_error(e: ron::error::SpannedError) -> Diagnostic {
    Diagnostic::unplaced(
        Code::PlanSyntax,
        format!("not a readable plan: {} (line {}, column {})", e.code, e.span.start.line, e.span.start.col),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dataset(min: u64, max: u64, files: u64, total: u64) -> Dataset {
        Dataset {
            name: "d".into(),
            size_min: Bytes(min),
            size_max: Bytes(max),
            files,
            total: Bytes(total),
            seed: 7,
        }
    }

    /// The first measurement of `src`'s plan and its key.
    fn measured(src: &str) -> (Workload, IoKey) {
        let plan = crate::compile(src, &Default::default()).unwrap().plan;
        let step = plan.steps.iter().find(|s| s.action.kind() == "measure").unwrap();
        let Action::Measure { workload, .. } = &step.action else { unreachable!("a measure step") };
        (workload.clone(), IoKey::of_step(step).remove(0))
    }

    #[test]
    fn the_same_io_ignores_names_and_keeps_offsets_apart() {
        let src = |name: &str, extra: &str| {
            format!(
                "methodology \"k\" version \"1\"\nworkload {name} {{ random; block 4KiB; read 0%{extra} }}\n\
                 measure {name} qd 8 for 1s\n"
            )
        };
        let (w, plain) = measured(&src("w4", ""));
        let (v, renamed) = measured(&src("writesmall", ""));
        assert_eq!(plain, renamed, "a name is not part of the I/O");
        assert!(w.same_io(&v));
        assert_eq!(plain.describe(), "4KiB random, 0% read at QD 8");
        let (u, offset) = measured(&src("w4", "; offset 1MiB"));
        assert_ne!(plain, offset, "another offset is another I/O");
        assert!(!w.same_io(&u));
        assert_eq!(offset.describe(), "4KiB random, 0% read, from 1MiB in at QD 8");
        let (_, aligned) = measured(&src("w4", "; align 8KiB"));
        assert_eq!(aligned.describe(), "4KiB random, 0% read, aligned to 8KiB at QD 8");
    }

    #[test]
    fn fixed_size_dataset() {
        let sizes: Vec<u64> = dataset(10, 10, 3, 30).file_sizes().collect();
        assert_eq!(sizes, vec![10, 10, 10]);
    }

    #[test]
    fn dataset_sizes_stay_in_range_and_add_up() {
        let sizes: Vec<u64> = size_draws(Bytes(100), Bytes(1000), 7).take(50).collect();
        assert!(sizes.iter().all(|s| (100..=1000).contains(s)));
        assert!(sizes.iter().any(|s| *s != sizes[0]), "sizes vary");
        let total: u64 = sizes.iter().sum();
        assert_eq!(dataset(100, 1000, 50, total).file_sizes().collect::<Vec<_>>(), sizes);
        // A total that ends inside the 50th draw: the last file is cut.
        let cut = dataset(100, 1000, 50, total - 10).file_sizes().collect::<Vec<_>>();
        assert_eq!(cut.iter().sum::<u64>(), total - 10);
        assert_eq!(cut[49], sizes[49] - 10);
    }
}
