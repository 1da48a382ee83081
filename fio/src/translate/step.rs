//! What a job translates to: the [`Step`] and its parts (where the I/O
//! goes, what it writes, when it stops, the file, the notes), shared by
//! the readers of each concern, the grouping and the writer. It imports
//! nothing from the rest of the crate, so that any of them can import it.

use methodic_compiler::plan::{Access, Bytes, Duration, Percent, Rate};

/// One job, translated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Step {
    /// The name fio reports the job under.
    pub(crate) name: String,
    pub(crate) section: String,
    pub(crate) line: usize,
    /// The translated options that count for the job, as written.
    pub(crate) options: Vec<String>,
    pub(crate) description: Option<String>,
    pub(crate) notes: Vec<Note>,
    pub(crate) random: Percent,
    /// Where the random offsets land (`random_distribution`).
    pub(crate) access: Access,
    pub(crate) read: Percent,
    /// All of it for `rw=trim` and `randtrim`, else none.
    pub(crate) trim: Percent,
    pub(crate) blocks: Vec<(Bytes, Percent)>,
    /// The writes' own sizes (fio's `bssplit=R,W` on a job that reads and
    /// writes), as `write_blocks`.
    pub(crate) write_blocks: Option<Vec<(Bytes, Percent)>>,
    pub(crate) align: Option<Bytes>,
    pub(crate) offset: Bytes,
    pub(crate) span: FioSpan,
    pub(crate) workers: u64,
    pub(crate) qd: u64,
    pub(crate) direct: bool,
    pub(crate) data: Data,
    pub(crate) drop_caches: bool,
    pub(crate) ramp: Duration,
    pub(crate) stop: Stop,
    /// Open loop at this rate over all the job's workers; `None`: closed.
    pub(crate) rate: Option<Rate>,
    /// fio's `filename`, when given.
    pub(crate) filename: Option<Filename>,
    /// Binary units unless the job reads sizes as fio's kb_base=1000.
    pub(crate) binary: bool,
    /// fio tracks which blocks random I/O has touched (no `norandommap`).
    pub(crate) random_map: bool,
    /// The step checks its data (fio's `verify` with a checksum): a
    /// writing step reads back what it wrote, a reading one checks its
    /// reads.
    pub(crate) verify: bool,
    /// fio's `latency_target`: the step is a search by queue depth up to
    /// `qd` (a `qos ... by qd` step) rather than a measurement.
    pub(crate) latency: Option<LatencyTarget>,
    /// fio's `thinktime`: `think P every N drained`.
    pub(crate) think: Option<ThinkTime>,
}

/// fio's thinktime as methodic's `think P every N drained`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ThinkTime {
    /// The pause, in microseconds.
    pub(crate) pause_us: u64,
    /// After this many I/Os started.
    pub(crate) every: u64,
}

/// fio's latency target as a `qos ... by qd` step's settings: the share of
/// I/Os (`latency_percentile`, parts per million) that must complete
/// within `under_ns` (`latency_target`), judged over `window` at each
/// depth (`latency_window`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LatencyTarget {
    pub(crate) percentile_ppm: u32,
    pub(crate) under_ns: u64,
    pub(crate) window: Duration,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FioSpan {
    Percent(Percent),
    Bytes(Bytes),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Data {
    Random,
    Zeros,
    Compressible(Percent),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stop {
    /// `time_based`: for the runtime.
    Time(Duration),
    /// Until this much is written, or after the runtime if one is given.
    Written { written: FioSpan, time: Option<Duration> },
    /// Until this much is read, written or trimmed (a job that reads),
    /// or after the runtime if one is given.
    Transferred { transferred: FioSpan, time: Option<Duration> },
}

/// The file or device fio runs a job on (`filename=`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Filename {
    /// The path, without the blanks around it.
    pub(crate) path: String,
    /// The option as written, and where.
    pub(crate) written: String,
    pub(crate) line: usize,
    /// Given in `[global]`.
    pub(crate) global: bool,
}

/// Something left out or read differently, said in a comment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Note {
    pub(crate) line: usize,
    /// Whether it concerns an option of `[global]` as a whole, said once at
    /// the top, rather than this job.
    pub(crate) global: bool,
    /// Whether an option was left out (counted in [`Imported::dropped`](crate::Imported::dropped)).
    pub(crate) dropped: bool,
    pub(crate) text: String,
}
