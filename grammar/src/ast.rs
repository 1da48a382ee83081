//! The typed syntax tree of a methodology: what `parse` returns. Every node
//! carries the byte span it came from, so later stages can point at it.
//! Nothing here is resolved or checked beyond its shape and its literals.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::units::{Bytes, Duration, Percent};

/// A byte range in the source: `start..end`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Span {
        Span { start, end }
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span { start: self.start.min(other.start), end: self.end.max(other.end) }
    }
}

/// A value with the span it was written at.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Spanned<T> {
    pub node: T,
    pub span: Span,
}

impl<T> Spanned<T> {
    pub fn new(node: T, span: Span) -> Spanned<T> {
        Spanned { node, span }
    }
}

/// A whole methodology file: its items in source order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Methodology {
    pub items: Vec<Item>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Item {
    pub kind: ItemKind,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
// A statement is the largest item by far; items are one a top-level line
// and built once, so boxing it would save nothing worth the indirection.
#[allow(clippy::large_enum_variant)]
pub enum ItemKind {
    /// `methodology "name" version "1.0"`
    Header { name: Spanned<String>, version: Spanned<String> },
    /// `describe "..."`
    Describe(Spanned<String>),
    /// `non_destructive`
    NonDestructive,
    /// `on_error continue` or `on_error stop`
    OnError(Spanned<OnError>),
    /// `conventions { ... }`
    Conventions(Vec<Convention>),
    /// `use std.mixes`
    Use(Spanned<String>),
    /// `use "mixes.method"`: the path as written (escapes undone), from
    /// the folder of the file that uses it.
    UseFile(Spanned<String>),
    /// `workload NAME { ... }`
    Workload { name: Spanned<String>, body: WorkloadBody },
    /// `dataset NAME { ... }`
    Dataset { name: Spanned<String>, settings: Vec<DatasetSetting> },
    /// `let NAME = EXPR`
    Let { name: Spanned<String>, value: Expr },
    /// A statement at the top level (a phase, a step, a top-level `target`).
    Stmt(Stmt),
}

/// What a run does after a step fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, JsonSchema)]
// The language's spelling; the alias reads plans and results written before.
#[serde(rename_all = "snake_case")]
pub enum OnError {
    /// The run ends at the first failed step (the default).
    #[default]
    #[serde(alias = "Stop")]
    Stop,
    /// The failed step is recorded and the run goes on to the next; the
    /// run still ends as failed.
    #[serde(alias = "Continue")]
    Continue,
}

impl OnError {
    /// `stop` or `continue`, as written.
    pub fn word(self) -> &'static str {
        match self {
            OnError::Stop => "stop",
            OnError::Continue => "continue",
        }
    }

    pub fn is_stop(&self) -> bool {
        *self == OnError::Stop
    }
}

/// One line of a `conventions` block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Convention {
    Units(Spanned<Units>),
    QueueDepth(Spanned<QdCounting>),
    Value(Spanned<ValueKind>),
}

/// Whether reported sizes and rates use powers of ten or of two.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
// The language's spelling; the alias reads plans and results written before.
#[serde(rename_all = "snake_case")]
pub enum Units {
    /// MB = 10^6 B.
    #[serde(alias = "Decimal")]
    Decimal,
    /// MiB = 2^20 B.
    #[serde(alias = "Binary")]
    Binary,
}

/// How a queue depth in the methodology is counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
// The language's spelling; the alias reads plans and results written before.
#[serde(rename_all = "snake_case")]
pub enum QdCounting {
    /// `qd 256` means 256 outstanding I/Os over all workers together.
    #[serde(alias = "Total")]
    Total,
    /// `qd 32` means 32 outstanding I/Os in each worker.
    #[serde(alias = "PerWorker")]
    PerWorker,
}

/// Which value a step reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
// The language's spelling; the alias reads plans and results written before.
#[serde(rename_all = "snake_case")]
pub enum ValueKind {
    /// The average over the step's record time.
    #[serde(alias = "StepAverage")]
    StepAverage,
    /// The average over the steady-state window.
    #[serde(alias = "SteadyStateAverage")]
    SteadyStateAverage,
    /// The best value seen (of a step's repeats or its series).
    #[serde(alias = "Peak")]
    Peak,
}

impl ValueKind {
    /// `step average`, `steady-state average`, `peak`: for tables and sentences.
    pub fn words(self) -> &'static str {
        match self {
            ValueKind::StepAverage => "step average",
            ValueKind::SteadyStateAverage => "steady-state average",
            ValueKind::Peak => "peak",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
// The language's spelling; the alias reads plans and results written before.
#[serde(rename_all = "snake_case")]
pub enum IoMode {
    /// O_DIRECT: the page cache is bypassed.
    #[serde(alias = "Direct")]
    Direct,
    /// Through the page cache, as ordinary programs write.
    #[serde(alias = "Buffered")]
    Buffered,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
// The language's spelling; the alias reads plans and results written before.
#[serde(rename_all = "snake_case")]
pub enum EraseMethod {
    /// A secure erase (BLKSECDISCARD): the kernel has it only for eMMC,
    /// virtio and Xen; `purge` is what real drives take.
    #[serde(alias = "Secure")]
    Secure,
    /// A discard (TRIM) of the span (BLKDISCARD, hole punching on files).
    #[serde(alias = "Discard")]
    Discard,
    /// The strongest erase the drive supports, in this order: sanitize
    /// block erase, sanitize crypto erase, format with user data erase,
    /// format with crypto erase, ATA enhanced security erase, ATA security
    /// erase, then a discard of the whole device.
    Purge,
    /// NVMe Sanitize, ATA SANITIZE DEVICE or SCSI SANITIZE: block erase.
    SanitizeBlock,
    /// Sanitize by changing the media encryption key.
    SanitizeCrypto,
    /// Sanitize by overwriting the media (one pass of zeros).
    SanitizeOverwrite,
    /// NVMe Format NVM in the format in use, no secure erase asked.
    Format,
    /// NVMe Format NVM with a user data erase (SES 1).
    FormatSecure,
    /// NVMe Format NVM with a cryptographic erase (SES 2).
    FormatCrypto,
    /// ATA SECURITY ERASE UNIT, normal mode.
    AtaSecure,
    /// ATA SECURITY ERASE UNIT, enhanced mode.
    AtaSecureEnhanced,
}

impl EraseMethod {
    /// Every method, in the language's order.
    pub const ALL: [EraseMethod; 11] = [
        EraseMethod::Discard,
        EraseMethod::Purge,
        EraseMethod::SanitizeBlock,
        EraseMethod::SanitizeCrypto,
        EraseMethod::SanitizeOverwrite,
        EraseMethod::Format,
        EraseMethod::FormatSecure,
        EraseMethod::FormatCrypto,
        EraseMethod::AtaSecure,
        EraseMethod::AtaSecureEnhanced,
        EraseMethod::Secure,
    ];

    /// The method as the language spells it after `erase`: `discard`,
    /// `sanitize block`, `format secure`, ...
    pub fn keyword(self) -> &'static str {
        match self {
            EraseMethod::Secure => "secure",
            EraseMethod::Discard => "discard",
            EraseMethod::Purge => "purge",
            EraseMethod::SanitizeBlock => "sanitize block",
            EraseMethod::SanitizeCrypto => "sanitize crypto",
            EraseMethod::SanitizeOverwrite => "sanitize overwrite",
            EraseMethod::Format => "format",
            EraseMethod::FormatSecure => "format secure",
            EraseMethod::FormatCrypto => "format crypto",
            EraseMethod::AtaSecure => "ata_secure",
            EraseMethod::AtaSecureEnhanced => "ata_secure enhanced",
        }
    }

    /// The method from its words (`sanitize`, `block`); `Err` says what
    /// the first word takes after it.
    pub fn from_words(method: &str, option: Option<&str>) -> Result<EraseMethod, &'static str> {
        use EraseMethod::*;
        match (method, option) {
            ("secure", None) => Ok(Secure),
            ("discard", None) => Ok(Discard),
            ("purge", None) => Ok(Purge),
            ("sanitize", Some("block")) => Ok(SanitizeBlock),
            ("sanitize", Some("crypto")) => Ok(SanitizeCrypto),
            ("sanitize", Some("overwrite")) => Ok(SanitizeOverwrite),
            ("sanitize", _) => Err("`sanitize` takes `block`, `crypto` or `overwrite`"),
            ("format", None) => Ok(Format),
            ("format", Some("secure")) => Ok(FormatSecure),
            ("format", Some("crypto")) => Ok(FormatCrypto),
            ("format", _) => Err("`format` takes nothing, `secure` or `crypto`"),
            ("ata_secure", None) => Ok(AtaSecure),
            ("ata_secure", Some("enhanced")) => Ok(AtaSecureEnhanced),
            ("ata_secure", _) => Err("`ata_secure` takes nothing or `enhanced`"),
            (_, Some(_)) => Err("`secure`, `discard` and `purge` take nothing after them"),
            _ => Err("an erase method is `discard`, `purge`, `sanitize`, `format` or `ata_secure`"),
        }
    }

    /// Whether the drive itself erases (a sanitize, format or security
    /// erase through the passthrough interfaces): the whole drive or
    /// namespace, whatever the span.
    pub fn whole_drive(self) -> bool {
        !matches!(self, EraseMethod::Discard | EraseMethod::Secure)
    }
}

/// What the run does with the drives' volatile write cache: turn it off
/// (as SNIA PTS asks) or on before the first step and put it back as it
/// was at the end, or leave it as it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum WriteCache {
    Off,
    On,
    #[default]
    AsIs,
}

impl WriteCache {
    /// As the language spells it: `off`, `on`, `as_is`.
    pub fn keyword(self) -> &'static str {
        match self {
            WriteCache::Off => "off",
            WriteCache::On => "on",
            WriteCache::AsIs => "as_is",
        }
    }

    pub fn is_as_is(&self) -> bool {
        *self == WriteCache::AsIs
    }
}

/// How a rate's I/Os are spaced: evenly (`uniform`), or as a Poisson
/// process (`poisson`: exponential gaps of the same mean, as independent
/// users make them).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Arrivals {
    #[default]
    Uniform,
    Poisson,
}

impl Arrivals {
    /// As the language spells it.
    pub fn keyword(self) -> &'static str {
        match self {
            Arrivals::Uniform => "uniform",
            Arrivals::Poisson => "poisson",
        }
    }

    /// In words: `uniform`, `Poisson`.
    pub fn words(self) -> &'static str {
        match self {
            Arrivals::Uniform => "uniform",
            Arrivals::Poisson => "Poisson",
        }
    }
}

/// What a latency QoS search steps: the open-loop rate at a fixed queue
/// depth (`by rate`, the default), or the queue depth itself, closed loop,
/// up to the step's `qd` (`by qd`).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum QosAxis {
    #[default]
    Rate,
    Qd,
}

impl QosAxis {
    /// As the language spells it after `by`.
    pub fn keyword(self) -> &'static str {
        match self {
            QosAxis::Rate => "rate",
            QosAxis::Qd => "qd",
        }
    }

    /// Whether this is the default, the search by rate.
    pub fn is_rate(&self) -> bool {
        *self == QosAxis::Rate
    }
}

/// How repeated values are summarised.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
// The language's spelling; the alias reads plans and results written before.
#[serde(rename_all = "snake_case")]
pub enum Aggregate {
    #[serde(alias = "Mean")]
    Mean,
    #[serde(alias = "Median")]
    Median,
    #[serde(alias = "Max")]
    Max,
    #[serde(alias = "Min")]
    Min,
}

/// Which measured quantity a steady-state rule watches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
// The language's spelling; the alias reads plans and results written before.
#[serde(rename_all = "snake_case")]
pub enum Metric {
    #[serde(alias = "Iops")]
    Iops,
    #[serde(alias = "Bandwidth")]
    Bandwidth,
    /// Mean latency.
    #[serde(alias = "Latency")]
    Latency,
}

/// A workload body: `{ random; block 4KiB; read 0% }`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkloadBody {
    pub props: Vec<WorkloadProp>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkloadProp {
    pub kind: WorkloadPropKind,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum WorkloadPropKind {
    /// `random` (100%) or `random 80%`, with where the random offsets
    /// land (`random zipf 1.2`).
    Random(Option<Expr>, Option<AccessExpr>),
    /// `sequential`
    Sequential,
    /// `block 4KiB`
    Block(Expr),
    /// `blocks { 512B: 10%, 4KiB: 90% }`
    Blocks(Vec<SplitEntry>),
    /// `write_block 16KiB`: the writes' (and trims') own size.
    WriteBlock(Expr),
    /// `write_blocks { 4KiB: 50%, 64KiB: 50% }`: the writes' own split.
    WriteBlocks(Vec<SplitEntry>),
    /// `read 67%`
    Read(Expr),
    /// `align 4KiB`
    Align(Expr),
    /// `offset 1MiB`
    Offset(Expr),
    /// `trim 10%`
    Trim(Expr),
}

/// Where random offsets land: `zipf 1.2`, `normal 5% around 50%`, ...
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AccessExpr {
    pub kind: AccessKind,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum AccessKind {
    /// The exponent, in thousandths.
    Zipf(Spanned<u32>),
    /// The shape, in thousandths.
    Pareto(Spanned<u32>),
    Normal {
        sigma: Expr,
        around: Option<Expr>,
    },
    Bands(Vec<BandExpr>),
}

/// `50% in 5%`: a share of random I/Os and the share of the span it lands in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BandExpr {
    pub io: Expr,
    pub within: Expr,
    pub span: Span,
}

/// `4KiB: 60%` in a block split.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SplitEntry {
    pub size: Expr,
    pub share: Expr,
    pub span: Span,
}

/// A workload named or written in place.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum WorkloadRef {
    Named(Spanned<String>),
    Inline(WorkloadBody),
}

impl WorkloadRef {
    pub fn span(&self) -> Span {
        match self {
            WorkloadRef::Named(n) => n.span,
            WorkloadRef::Inline(b) => b.span,
        }
    }
}

/// A `key value` line of a settings block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Setting<K> {
    pub key: Spanned<K>,
    pub value: Expr,
    pub span: Span,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum DatasetKey {
    Files,
    Size,
    Total,
    Seed,
}

pub type DatasetSetting = Setting<DatasetKey>;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TargetSetting {
    pub kind: TargetSettingKind,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum TargetSettingKind {
    Span(Expr),
    Workers(Expr),
    Devices(Expr),
    Io(Spanned<IoMode>),
    Data(DataPatternExpr),
    /// Only in the top-level target block: it holds for the whole run.
    WriteCache(Spanned<WriteCache>),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum DataPatternExpr {
    Random,
    Zeros,
    Compressible(Expr),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SteadySetting {
    pub kind: SteadySettingKind,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum SteadySettingKind {
    Round(Expr),
    Window(Expr),
    Excursion(Expr),
    Slope(Expr),
    MaxRounds(Expr),
    Metric(Spanned<Metric>),
    /// `track W [qd N] [workers N]`: the qd and workers pick one of
    /// several measurements of the same workload.
    Track {
        workload: WorkloadRef,
        opts: Vec<StepOpt>,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProbeSetting {
    pub kind: ProbeSettingKind,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum ProbeSettingKind {
    Io(Expr),
    Step(Expr),
    Range(Expr),
    Repeats(Expr),
    Statistic(Spanned<Aggregate>),
}

/// A `{ ... }` of statements.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Block {
    pub stmts: Vec<Stmt>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
    /// `local`, where it was written: in a run on many hosts the step
    /// runs on the conductor. The grammar takes it after erase,
    /// drop_caches, limit_ram, copy and probe, and (for the compiler to
    /// refuse in words) on every step that does I/O.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub local: Option<Span>,
}

/// An option of a step (`qd 32`, `ramp 30s`), in the order written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepOpt {
    pub kind: StepOptKind,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum StepOptKind {
    Passes(Expr),
    Qd(Expr),
    Read(Expr),
    Ramp(Expr),
    Record(Expr),
    Series(Expr),
    For(Expr),
    /// `until steady { ... }`; `None` when written without a body.
    Steady(Option<Vec<SteadySetting>>),
    Written(Expr),
    /// `until transferred 100GB`: bytes read and written together.
    Transferred(Expr),
    /// `rate 50000 iops`, `rate 200MB/s poisson`.
    Rate {
        amount: Expr,
        unit: RateUnit,
        arrivals: Option<Spanned<Arrivals>>,
    },
    /// A job's own worker count.
    Workers(Expr),
    /// A job's device, from 1: the first `--target` is device 1.
    Device(Expr),
    /// `as NAME`: names a measurement for a later `rate P% of NAME`.
    As(Spanned<String>),
    /// `think 100us [every 16] [drained]`: the pause in nanoseconds, after
    /// how many I/Os (1 when not given), and whether it waits for the I/Os
    /// in flight to complete first.
    Think {
        pause: Spanned<u64>,
        every: Option<Expr>,
        drained: bool,
    },
    /// `bursts 2s every 10s [times 360]`.
    Bursts {
        on: Expr,
        every: Expr,
        times: Option<Expr>,
    },
    /// `verify`
    Verify,
    /// `at max of dirth [under 5ms]`: the queue depth and workers chosen
    /// at run time; the mean latency limit in nanoseconds.
    At {
        pick: Spanned<PickExpr>,
        of: Spanned<String>,
        under: Option<Spanned<u64>>,
    },
}

/// Which operating point `at` picks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum PickExpr {
    Max,
    Mid,
    Min,
}

/// What a rate counts: I/Os a second (`iops`), bytes a second (`/s`
/// after a size), or a share of the IOPS a named measurement did (`of
/// NAME`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum RateUnit {
    Iops,
    PerSecond,
    Of(Spanned<String>),
}

/// A setting of a `qos` step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QosSetting {
    pub kind: QosSettingKind,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum QosSettingKind {
    /// `p99.99 under 1ms`: the percentile in parts per million, the limit
    /// in nanoseconds.
    Limit {
        percentile: Spanned<u32>,
        under: Spanned<u64>,
    },
    /// Each probe point's record time.
    Probe(Expr),
    Ramp(Expr),
    /// The search stops when the rate that meets the limit and the one
    /// that does not are this close.
    Precision(Expr),
    Arrivals(Spanned<Arrivals>),
    /// `by qd` or `by rate`: what the search steps.
    By(Spanned<QosAxis>),
}

/// `job NAME WORKLOAD OPTIONS` in a `together` step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobDef {
    pub name: Spanned<String>,
    pub workload: WorkloadRef,
    pub opts: Vec<StepOpt>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum StmtKind {
    Phase {
        name: Spanned<String>,
        body: Block,
    },
    For {
        var: Spanned<String>,
        list: Expr,
        body: Block,
    },
    Repeat {
        /// `5`, or `3..10` with `until cv`.
        count: Expr,
        /// `until cv 3%`: the limit, spanned over the whole clause.
        until_cv: Option<Spanned<Expr>>,
        aggregate: Option<Spanned<Aggregate>>,
        body: Block,
    },
    Rounds {
        body: Block,
        rule: Vec<SteadySetting>,
        /// `as NAME`: the cells are operating points for a later `at`.
        name: Option<Spanned<String>>,
    },
    Target(Vec<TargetSetting>),
    /// `limit_ram 16GiB`; `None` for `limit_ram none`.
    LimitRam(Option<Expr>),
    Erase(Spanned<EraseMethod>),
    Fill {
        workload: WorkloadRef,
        opts: Vec<StepOpt>,
    },
    Precondition {
        workload: WorkloadRef,
        opts: Vec<StepOpt>,
    },
    Sweep {
        workload: WorkloadRef,
        opts: Vec<StepOpt>,
    },
    Measure {
        workload: WorkloadRef,
        opts: Vec<StepOpt>,
    },
    /// `qos W qd N { p99.99 under 1ms; ... }`: the highest rate at which
    /// a latency percentile stays under a limit.
    Qos {
        workload: WorkloadRef,
        /// The `qd N` option.
        qd: StepOpt,
        settings: Vec<QosSetting>,
    },
    /// `together OPTIONS { job ... }`: jobs that run at the same time.
    Together {
        opts: Vec<StepOpt>,
        jobs: Vec<JobDef>,
    },
    DropCaches,
    Idle(Expr),
    Copy(Spanned<String>),
    Probe(Vec<ProbeSetting>),
}

/// A value as written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum ExprKind {
    /// A whole number without a unit.
    Int(u64),
    Size(Bytes),
    Duration(Duration),
    Percent(Percent),
    /// A name: a variable, a workload, a dataset or a standard mix.
    Ident(String),
    /// `[a, b, c]`
    List(Vec<Expr>),
    /// `from..to` with an optional step.
    Range {
        from: Box<Expr>,
        to: Box<Expr>,
        step: Option<RangeStep>,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum RangeStep {
    /// `step 10%`: add this each time.
    Add(Box<Expr>),
    /// `step x2`: multiply by this each time.
    Mul(Spanned<u64>),
}
