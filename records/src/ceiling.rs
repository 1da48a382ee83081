//! The host ceiling as results record it: the I/O shapes a plan uses (the
//! engine, its threads and depth, the block sizes), what the host reached
//! for each reading RAM, and the sentence a result within 10% of its
//! shape's ceiling carries. The runtime measures them (runtime/src/ceiling.rs).

use std::fmt;

use methodic_compiler::plan::{BlockShare, Bytes, Qd, QdCounting, Workload};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::engine::EngineKind;
use crate::numbers::nullable;

/// Share of the ceiling above which a result may be host-bound.
pub const NEAR: f64 = 0.9;

/// The work the host does for one I/O of a step: what its ceiling is
/// measured with. Reads and writes, random and sequential I/O of one shape
/// share a ceiling (docs/RESULTS.md says why).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub struct Shape {
    pub engine: EngineKind,
    /// Threads, and the I/Os each keeps in flight.
    pub threads: u32,
    pub depth: u32,
    /// The block sizes and their shares, as the workload has them.
    pub blocks: Vec<BlockShare>,
}

/// The threads and per-thread depth that workers keeping `qd` run as with
/// `engine`: psync keeps one I/O in flight a thread, so a queue deeper
/// than one a worker runs as a thread an I/O. The executor's `io_as` runs
/// workers by it, so a shape is what its steps run as.
pub fn threads_and_depth(engine: EngineKind, qd: &Qd) -> (u32, u32) {
    let (threads, depth) = if engine == EngineKind::Psync && qd.per_worker > 1 {
        (qd.total, 1)
    } else {
        (qd.workers, qd.per_worker)
    };
    (threads.max(1), depth.max(1))
}

impl Shape {
    /// The shape of `workload` kept at `qd` by `engine`.
    pub fn of(engine: EngineKind, qd: &Qd, workload: &Workload) -> Shape {
        let (threads, depth) = threads_and_depth(engine, qd);
        Shape { engine, threads, depth, blocks: workload.blocks.clone() }
    }

    /// The queue that runs this shape: one worker a thread.
    pub fn queue(&self) -> Qd {
        Qd {
            total: self.threads * self.depth,
            per_worker: self.depth,
            workers: self.threads,
            counted: QdCounting::Total,
        }
    }

    pub fn largest_block(&self) -> Bytes {
        self.blocks.iter().map(|b| b.size).max().unwrap_or(Bytes(4096))
    }

    pub fn smallest_block(&self) -> Bytes {
        self.blocks.iter().map(|b| b.size).min().unwrap_or(Bytes(4096))
    }

    /// `4KiB` or `4KiB 50% + 64KiB 50%`.
    pub fn blocks_words(&self) -> String {
        match self.blocks.as_slice() {
            [one] => one.size.to_string(),
            many => many.iter().map(|b| format!("{} {}", b.size, b.share)).collect::<Vec<_>>().join(" + "),
        }
    }
}

impl fmt::Display for Shape {
    /// `4KiB blocks at QD 32 (psync 32x1)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} blocks at QD {} ({} {}x{})",
            self.blocks_words(),
            self.threads * self.depth,
            self.engine.name(),
            self.threads,
            self.depth
        )
    }
}

/// The ceiling of one shape: random reads from RAM.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ShapeCeiling {
    #[serde(flatten)]
    pub shape: Shape,
    #[serde(deserialize_with = "nullable")]
    #[schemars(with = "Option<f64>")]
    pub iops: f64,
    /// Decimal MB/s.
    #[serde(deserialize_with = "nullable")]
    #[schemars(with = "Option<f64>")]
    pub mb_s: f64,
}

/// A shape the plan uses whose ceiling was not measured, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Unmeasured {
    #[serde(flatten)]
    pub shape: Shape,
    pub reason: String,
}

/// The run's host ceilings (`ceilings` in the manifest).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Ceilings {
    /// The RAM-backed file the engine ran against.
    pub target: String,
    /// How long each shape recorded (after a ramp of a fifth of it).
    pub seconds_each: f64,
    /// Copying the data buffers in memory, decimal MB/s.
    pub memory_copy_mb_s: f64,
    pub shapes: Vec<ShapeCeiling>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unmeasured: Vec<Unmeasured>,
}

/// The ceiling a step's record names for one of its I/Os.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct StepCeiling {
    /// The workload's name and total queue depth: for a rounds step, which
    /// cell this is.
    pub workload: String,
    pub qd: u32,
    #[serde(flatten)]
    pub ceiling: ShapeCeiling,
}

impl ShapeCeiling {
    /// A sentence when `iops` or `mb_s` reaches 90% of this ceiling.
    pub fn host_bound(&self, iops: f64, mb_s: f64) -> Option<String> {
        let say = |value: f64, ceiling: f64, unit: &str| {
            let pct = 100.0 * value / ceiling;
            let beyond = if pct > 110.0 {
                "; beyond the ceiling itself, which understates the host here (it copies each block out of the \
                 page cache from random offsets: direct I/O copies none, and blocks read in sequence can stay in \
                 the CPU's caches)"
            } else {
                ""
            };
            format!(
                "{value:.0} {unit} is {pct:.0}% of the host ceiling of its own shape ({ceiling:.0} {unit} reading {} \
                 from RAM){beyond}: possibly host-bound",
                self.shape
            )
        };
        if iops.is_finite() && self.iops > 0.0 && iops >= NEAR * self.iops {
            return Some(say(iops, self.iops, "IOPS"));
        }
        if mb_s.is_finite() && self.mb_s > 0.0 && mb_s >= NEAR * self.mb_s {
            return Some(say(mb_s, self.mb_s, "MB/s"));
        }
        None
    }
}

/// The one host ceiling methodic measured before ceilings per shape: read
/// back from older manifests (`host_ceiling`), shown by `report`, and
/// still judged by when such a run is resumed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Legacy {
    /// The RAM-backed file the engine ran against.
    pub target: String,
    /// Random reads of `iops_block` bytes at `qd`.
    #[serde(deserialize_with = "nullable")]
    #[schemars(with = "Option<f64>")]
    pub iops: f64,
    pub iops_block: u64,
    /// Sequential reads of `bandwidth_block` bytes at `qd`, decimal MB/s.
    #[serde(deserialize_with = "nullable")]
    #[schemars(with = "Option<f64>")]
    pub mb_s: f64,
    pub bandwidth_block: u64,
    pub qd: u32,
    /// The engine the runs used, with its threads and depth.
    pub engine: String,
    /// Copying the data buffers in memory, decimal MB/s.
    pub memory_copy_mb_s: f64,
    /// How long each measurement ran.
    pub seconds_each: f64,
}

impl Legacy {
    /// A sentence when `iops` or `mb_s` reaches 90% of the ceiling.
    pub fn host_bound(&self, iops: f64, mb_s: f64) -> Option<String> {
        let say = |value: f64, ceiling: f64, unit: &str, what: String| {
            let pct = 100.0 * value / ceiling;
            let beyond = if pct > 110.0 {
                "; beyond the ceiling itself, which one worker reading RAM through the page cache measured, so it \
                 understates what this step's workers reach"
            } else {
                ""
            };
            format!(
                "{value:.0} {unit} is {pct:.0}% of the host ceiling ({ceiling:.0} {unit} {what} from RAM at QD {}){beyond}: \
                 possibly host-bound",
                self.qd
            )
        };
        if iops.is_finite() && self.iops > 0.0 && iops >= NEAR * self.iops {
            return Some(say(iops, self.iops, "IOPS", format!("reading {} B blocks", self.iops_block)));
        }
        if mb_s.is_finite() && self.mb_s > 0.0 && mb_s >= NEAR * self.mb_s {
            return Some(say(mb_s, self.mb_s, "MB/s", format!("reading {} B blocks", self.bandwidth_block)));
        }
        None
    }
}

impl Ceilings {
    /// The ceiling measured for `shape`, if it was.
    pub fn of(&self, shape: &Shape) -> Option<&ShapeCeiling> {
        self.shapes.iter().find(|c| &c.shape == shape)
    }
}
