//! The rules every plan keeps, written once: workloads, queue-depth splits,
//! target settings, steady-state rules, probes and RAM limits in, a list of
//! [`Problem`]s out. `lower` turns problems into diagnostics at the source
//! spans of the offending fields; `validate` turns them into diagnostics
//! that name the step of a plan read from disk.

use methodic_grammar::Code;

use crate::plan::*;

/// A broken rule, with the field it concerns so that the caller can point
/// at it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Problem {
    pub code: Code,
    pub field: Field,
    pub message: String,
    pub hint: Option<String>,
}

impl Problem {
    fn new(code: Code, field: Field, message: impl Into<String>) -> Problem {
        Problem { code, field, message: message.into(), hint: None }
    }

    fn hint(mut self, hint: impl Into<String>) -> Problem {
        self.hint = Some(hint.into());
        self
    }
}

/// Which part of a definition a problem concerns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Field {
    Blocks,
    /// `write_block` or `write_blocks`.
    WriteBlocks,
    /// The n-th block size, in the order written (in a plan: smallest first).
    Block(usize),
    Read,
    Random,
    Align,
    Offset,
    Access,
    Trim,
    Span,
    Workers,
    Devices,
    Data,
    Qd,
    Window,
    MaxRounds,
    Excursion,
    Slope,
    Io,
    Step,
    Range,
    Repeats,
    Whole,
}

/// The largest queue depth methodic accepts, in total.
pub(crate) const MAX_QD: u64 = 65_536;

/// The smallest RAM limit methodic accepts.
pub(crate) const MIN_RAM_LIMIT: u64 = Bytes::GIB;

/// Sector size that `io direct` needs sizes and offsets to be multiples of.
pub(crate) const SECTOR: u64 = 512;

/// Rules of a workload that hold whatever the target.
pub(crate) fn workload(w: &Workload) -> Vec<Problem> {
    let mut out = Vec::new();
    if w.blocks.is_empty() {
        out.push(Problem::new(Code::MissingProperty, Field::Blocks, "the workload has no block size"));
    }
    out.extend(split(
        &w.blocks,
        &Split { what: "block", of: "I/Os", field: Field::Block, whole: Field::Blocks },
    ));
    if w.read > Percent::HUNDRED {
        out.push(
            Problem::new(Code::ShareRange, Field::Read, format!("a read share of {} is over 100%", w.read))
                .hint("the read share is 0% (writes only) to 100% (reads only)"),
        );
    }
    if w.random > Percent::HUNDRED {
        out.push(
            Problem::new(
                Code::ShareRange,
                Field::Random,
                format!("a random share of {} is over 100%", w.random),
            )
            .hint("the random share is 0% (sequential) to 100% (random)"),
        );
    }
    if w.read <= Percent::HUNDRED && w.read.hundredths() + w.trim.hundredths() > 10_000 {
        out.push(
            Problem::new(
                Code::ShareRange,
                Field::Trim,
                format!("a read share of {} and a trim share of {} add up to over 100%", w.read, w.trim),
            )
            .hint("reads and trims are shares of the I/Os; writes are what they leave"),
        );
    }
    if let Some(writes) = &w.write_blocks {
        out.extend(write_split(writes));
        if !w.writes() {
            out.push(
                Problem::new(
                    Code::ConflictingProperty,
                    Field::WriteBlocks,
                    "the workload only reads: it issues none of the writes `write_blocks` sizes",
                )
                .hint("leave `write_blocks` out, or give the workload writes (`read 70%`)"),
            );
        }
    }
    out.extend(access(w));
    // A zero block size already explains a zero default alignment.
    if w.align.0 == 0 && !w.blocks.iter().any(|b| b.size.0 == 0) {
        out.push(Problem::new(Code::ZeroSize, Field::Align, "an alignment of 0B places no I/O"));
    }
    out
}

/// Rules of the writes' own split: a list, and the rules of any split.
fn write_split(writes: &[BlockShare]) -> Vec<Problem> {
    let mut out = Vec::new();
    if writes.is_empty() {
        out.push(Problem::new(Code::EmptyList, Field::WriteBlocks, "`write_blocks` lists no block size"));
    }
    let whole = Field::WriteBlocks;
    out.extend(split(
        writes,
        &Split { what: "write block", of: "the writes", field: |_| Field::WriteBlocks, whole },
    ));
    out
}

/// Which split [`split`] checks, for its words and where it points.
struct Split {
    /// `block` or `write block`, as the messages name a size.
    what: &'static str,
    /// What the shares are of: `I/Os`, `the writes`.
    of: &'static str,
    /// Where the `i`th size was written.
    field: fn(usize) -> Field,
    /// Where the split was written.
    whole: Field,
}

/// Rules of a block split (the reads' or the writes'): sizes above 0,
/// each once, shares that add up to 100%.
fn split(sizes: &[BlockShare], s: &Split) -> Vec<Problem> {
    let mut out = Vec::new();
    let mut sum: u64 = 0;
    for (i, b) in sizes.iter().enumerate() {
        sum += b.share.hundredths() as u64;
        if b.size.0 == 0 {
            out.push(Problem::new(Code::ZeroSize, (s.field)(i), "a block size of 0B moves no data"));
        }
        if sizes[..i].iter().any(|o| o.size == b.size) {
            out.push(
                Problem::new(
                    Code::DuplicateBlock,
                    (s.field)(i),
                    format!("{} size {} is listed twice", s.what, b.size),
                )
                .hint("give each block size once, with its whole share"),
            );
        }
    }
    if !sizes.is_empty() && sum != 10_000 {
        let total = Percent::from_hundredths(sum.min(u32::MAX as u64) as u32);
        out.push(
            Problem::new(
                Code::SplitSum,
                s.whole,
                format!("{}-size shares add up to {total}, not 100%", s.what),
            )
            .hint(format!("the shares are of {} issued; make them add up to exactly 100%", s.of)),
        );
    }
    out
}

/// Rules of a workload's access distribution: parameters the generator can
/// draw from, bands that add up, and random I/O to draw.
fn access(w: &Workload) -> Vec<Problem> {
    let bad = |m: String, hint: &'static str| Problem::new(Code::BadAccess, Field::Access, m).hint(hint);
    let mut out = Vec::new();
    if !w.access.is_uniform() && w.random == Percent::ZERO {
        out.push(bad(
            format!("sequential I/O draws no offsets, so `{}` has nothing to shape", w.access),
            "give the workload random I/O (`random zipf 1.2`), or leave the distribution out",
        ));
        return out;
    }
    match &w.access {
        Access::Uniform => {}
        Access::Zipf { theta } if theta.0 == 0 || theta.0 > 10_000 => out.push(bad(
            format!("a zipf exponent of {theta} is not above 0 and at most 10"),
            "fio's and the literature's exponents run from about 0.8 to 1.5: `zipf 1.2`",
        )),
        Access::Pareto { h } if h.0 == 0 || h.0 >= 1000 => out.push(bad(
            format!("a pareto shape of {h} is not between 0 and 1"),
            "`pareto 0.9` sends 90% of the I/O to 10% of the blocks; the shape is above 0 and below 1",
        )),
        Access::Normal { sigma, centre } => {
            if *sigma == Percent::ZERO || *sigma > Percent::HUNDRED {
                out.push(bad(
                    format!("a standard deviation of {sigma} is not above 0% and at most 100% of the span"),
                    "give the spread as a share of the span: `normal 5%`",
                ));
            }
            if *centre > Percent::HUNDRED {
                out.push(bad(
                    format!("a centre at {centre} of the span is beyond its end"),
                    "the centre is 0% (the start) to 100% (the end) of the span: `around 50%`",
                ));
            }
        }
        Access::Bands(bands) => {
            let io: u32 = bands.iter().map(|b| b.io.hundredths()).sum();
            let span: u32 = bands.iter().map(|b| b.span.hundredths()).sum();
            if io != 10_000 {
                out.push(bad(
                    format!("the bands' shares of I/O add up to {}, not 100%", Percent::from_hundredths(io)),
                    "each band is `IO% in SPAN%`; the I/O shares and the span shares each add up to 100%",
                ));
            }
            if span != 10_000 {
                out.push(bad(
                    format!(
                        "the bands' shares of the span add up to {}, not 100%",
                        Percent::from_hundredths(span)
                    ),
                    "the bands lie one after another from the start and cover the whole span",
                ));
            }
            if bands.iter().any(|b| b.span == Percent::ZERO && b.io > Percent::ZERO) {
                out.push(bad(
                    "a band of 0% of the span cannot take I/O".to_string(),
                    "give every band that takes I/O some of the span",
                ));
            }
        }
        _ => {}
    }
    out
}

/// What `io direct` (O_DIRECT) needs of a workload: sizes and offsets in
/// whole sectors.
pub(crate) fn direct_io(w: &Workload) -> Vec<Problem> {
    let hint = "O_DIRECT moves whole 512B sectors; use a multiple of 512B, or set `target { io buffered }` \
                (written with sync) to test sub-sector sizes and offsets";
    let mut out = Vec::new();
    for (i, b) in w.blocks.iter().enumerate() {
        if b.size.0 % SECTOR != 0 {
            out.push(
                Problem::new(
                    Code::Unaligned,
                    Field::Block(i),
                    format!("block size {}B cannot be issued with io direct", b.size.0),
                )
                .hint(hint),
            );
        }
    }
    for b in w.write_blocks.iter().flatten().filter(|b| b.size.0 % SECTOR != 0) {
        out.push(
            Problem::new(
                Code::Unaligned,
                Field::WriteBlocks,
                format!("write block size {}B cannot be issued with io direct", b.size.0),
            )
            .hint(hint),
        );
    }
    // An alignment equal to an unaligned block size (its default) is the same problem.
    if !w.align.0.is_multiple_of(SECTOR) && !w.all_blocks().any(|b| b.size == w.align) {
        out.push(
            Problem::new(
                Code::Unaligned,
                Field::Align,
                format!("alignment {}B cannot be used with io direct", w.align.0),
            )
            .hint(hint),
        );
    }
    if !w.offset.0.is_multiple_of(SECTOR) {
        out.push(
            Problem::new(
                Code::Unaligned,
                Field::Offset,
                format!("offset {}B cannot be used with io direct", w.offset.0),
            )
            .hint(hint),
        );
    }
    out
}

/// Target settings that cannot work.
pub(crate) fn target(t: &Target) -> Vec<Problem> {
    let mut out = Vec::new();
    match t.span {
        Extent::Percent(p) if p == Percent::ZERO || p > Percent::HUNDRED => out.push(
            Problem::new(Code::SpanRange, Field::Span, format!("a span of {p} is not between 0% and 100%"))
                .hint("the span is the share of the target the test works in: more than 0%, at most 100%"),
        ),
        Extent::Bytes(b) if b.0 == 0 => {
            out.push(Problem::new(Code::SpanRange, Field::Span, "a span of 0B leaves nothing to test"))
        }
        _ => {}
    }
    if t.workers == 0 {
        out.push(Problem::new(Code::ZeroCount, Field::Workers, "0 workers issue no I/O"));
    }
    if t.devices == 0 {
        out.push(Problem::new(Code::ZeroCount, Field::Devices, "0 devices leave nothing to test"));
    }
    if t.workers > 0 && t.devices > 0 && !t.workers.is_multiple_of(t.devices) {
        out.push(
            Problem::new(
                Code::WorkerLayout,
                Field::Workers,
                format!("{} workers cannot be spread evenly over {} devices", t.workers, t.devices),
            )
            .hint(format!("use a multiple of {} workers, so that each device gets the same load", t.devices)),
        );
    }
    if let DataPattern::Compressible(p) = t.data
        && p > Percent::HUNDRED
    {
        out.push(Problem::new(
            Code::ShareRange,
            Field::Data,
            format!("data cannot be {p} compressible; use 0% to 100%"),
        ));
    }
    out
}

/// A workload that cannot fit in a span given in bytes.
pub(crate) fn fits_span(w: &Workload, span: Extent) -> Option<Problem> {
    let Extent::Bytes(span) = span else {
        return None;
    };
    let largest = w.all_blocks().map(|b| b.size.0).max().unwrap_or(0);
    if span.0 > 0 && w.offset.0.saturating_add(largest) > span.0 {
        return Some(Problem::new(
            Code::SpanRange,
            Field::Span,
            format!("a span of {span} cannot hold a {} block at offset {}", Bytes(largest), w.offset),
        ));
    }
    None
}

/// Spreads a queue depth over the workers as the methodology counts it.
/// Returns the split and, when the total is below the worker count, a
/// warning that fewer workers will run.
pub(crate) fn split_qd(
    value: u64,
    counted: QdCounting,
    t: &Target,
) -> Result<(Qd, Option<Problem>), Problem> {
    let workers = t.workers.max(1) as u64;
    let total = match counted {
        QdCounting::Total => value,
        QdCounting::PerWorker => value.saturating_mul(workers),
    };
    if value == 0 {
        return Err(Problem::new(Code::QdRange, Field::Qd, "a queue depth of 0 issues no I/O")
            .hint("queue depths start at 1"));
    }
    if total > MAX_QD {
        let detail = match counted {
            QdCounting::Total => format!("a queue depth of {value} is above {MAX_QD}"),
            QdCounting::PerWorker => {
                format!(
                    "a queue depth of {value} per worker over {workers} workers is {total}, above {MAX_QD}"
                )
            }
        };
        return Err(
            Problem::new(Code::QdRange, Field::Qd, detail).hint(format!("the most is {MAX_QD} in total"))
        );
    }
    let total32 = total as u32;
    match counted {
        QdCounting::PerWorker => {
            Ok((Qd { total: total32, per_worker: value as u32, workers: workers as u32, counted }, None))
        }
        QdCounting::Total if total % workers == 0 => Ok((
            Qd { total: total32, per_worker: (total / workers) as u32, workers: workers as u32, counted },
            None,
        )),
        QdCounting::Total if total < workers => {
            let idle_devices = t.devices.saturating_sub(total32);
            let runs = if total == 1 { "1 worker".to_string() } else { format!("{total} workers") };
            let mut message =
                format!("queue depths below {workers} run on fewer workers: QD {total} runs {runs} at QD 1");
            if idle_devices > 0 {
                message.push_str(&format!(", leaving {idle_devices} of {} devices idle", t.devices));
            }
            let warning = Problem::new(Code::FewerWorkers, Field::Qd, message).hint(
                "to keep every worker busy, count per worker: `conventions { queue_depth per_worker }`",
            );
            Ok((Qd { total: total32, per_worker: 1, workers: total32, counted }, Some(warning)))
        }
        QdCounting::Total => {
            let lower = total / workers * workers;
            let upper = lower + workers;
            Err(Problem::new(
                Code::QdSplit,
                Field::Qd,
                format!("a total queue depth of {total} cannot be spread evenly over {workers} workers"),
            )
            .hint(format!(
                "use a multiple of {workers} ({lower} or {upper}), or count per worker with \
                 `conventions {{ queue_depth per_worker }}`"
            )))
        }
    }
}

/// The queue depth a fill uses when none is given: the smallest multiple
/// of the worker count that is at least 32, or 32 per worker when queue
/// depths are counted per worker.
pub(crate) fn default_fill_qd(counted: QdCounting, t: &Target) -> u64 {
    match counted {
        QdCounting::PerWorker => 32,
        QdCounting::Total => {
            let w = t.workers.max(1) as u64;
            32u64.div_ceil(w) * w
        }
    }
}

pub(crate) fn steady(rule: &SteadyRule) -> Vec<Problem> {
    let mut out = Vec::new();
    if rule.max_rounds == 0 {
        out.push(Problem::new(Code::ZeroCount, Field::MaxRounds, "max_rounds 0 allows no round"));
    }
    if rule.window < 2 {
        out.push(
            Problem::new(
                Code::SteadyWindow,
                Field::Window,
                format!("a window of {} round(s) has no slope", rule.window),
            )
            .hint("the SNIA rule uses a window of 5 rounds; at least 2 are needed"),
        );
    } else if rule.window > rule.max_rounds && rule.max_rounds > 0 {
        out.push(
            Problem::new(
                Code::SteadyWindow,
                Field::Window,
                format!("a window of {} rounds cannot fit in max_rounds {}", rule.window, rule.max_rounds),
            )
            .hint(format!("raise max_rounds to at least {}, or shorten the window", rule.window)),
        );
    }
    for (value, field, what) in
        [(rule.excursion, Field::Excursion, "excursion"), (rule.slope, Field::Slope, "slope")]
    {
        if value == Percent::ZERO || value > Percent::HUNDRED {
            out.push(
                Problem::new(
                    Code::SteadyThreshold,
                    field,
                    format!("a steady-state {what} limit of {value} is not between 0% and 100%"),
                )
                .hint("the SNIA rule allows an excursion of 20% and a slope of 10% of the window average"),
            );
        }
    }
    out
}

pub(crate) fn probe(p: &Probe, io: IoMode) -> Vec<Problem> {
    let mut out = Vec::new();
    if p.io.0 == 0 {
        out.push(Problem::new(Code::ZeroSize, Field::Io, "a probe write of 0B measures nothing"));
    }
    if p.step.0 == 0 {
        out.push(Problem::new(Code::ZeroSize, Field::Step, "a probe step of 0B never moves"));
    }
    if p.range < p.io {
        out.push(Problem::new(
            Code::BadProbe,
            Field::Range,
            format!("a probe range of {} cannot hold a {} write", p.range, p.io),
        ));
    }
    if p.repeats == 0 {
        out.push(Problem::new(Code::ZeroCount, Field::Repeats, "0 repeats time nothing"));
    }
    if io == IoMode::Direct {
        let hint = "a write at a sub-sector offset cannot reach the device as such: step by the \
                    logical block (512B) and write two blocks (io 1KiB); `target { io buffered }` \
                    runs it through the page cache, which writes back whole pages";
        for (value, field, what) in [(p.io, Field::Io, "write size"), (p.step, Field::Step, "step")] {
            if value.0 % SECTOR != 0 {
                out.push(
                    Problem::new(
                        Code::Unaligned,
                        field,
                        format!("a probe {what} of {}B cannot be issued with io direct", value.0),
                    )
                    .hint(hint),
                );
            }
        }
    }
    out
}

/// How many offsets a probe visits.
pub(crate) fn probe_offsets(io: Bytes, step: Bytes, range: Bytes) -> u64 {
    if step.0 == 0 || range < io {
        return 0;
    }
    (range.0 - io.0) / step.0 + 1
}

/// A series interval must fit in the time the step records (`length`,
/// or a round of a steady-state precondition).
pub(crate) fn series(series: Duration, length: Option<Duration>) -> Option<Problem> {
    let length = length.filter(|l| series > *l)?;
    Some(
        Problem::new(
            Code::ConflictingOption,
            Field::Whole,
            format!("a series interval of {series} is longer than the {length} the step records"),
        )
        .hint("the series samples the step at this interval: make it shorter than the record time"),
    )
}

pub(crate) fn ram_limit(limit: Bytes) -> Option<Problem> {
    (limit.0 < MIN_RAM_LIMIT).then(|| {
        Problem::new(
            Code::RamLimit,
            Field::Whole,
            format!("limiting RAM to {limit} leaves too little for the system to run"),
        )
        .hint("limit_ram takes 1GiB or more; it limits the memory the page cache and the run may use")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(workers: u32, devices: u32) -> Target {
        Target { workers, devices, ..Target::default() }
    }

    #[test]
    fn qd_split_total() {
        let (qd, warn) = split_qd(256, QdCounting::Total, &t(16, 4)).unwrap();
        assert_eq!((qd.total, qd.per_worker, qd.workers), (256, 16, 16));
        assert!(warn.is_none());
        let (qd, warn) = split_qd(2, QdCounting::Total, &t(16, 4)).unwrap();
        assert_eq!((qd.total, qd.per_worker, qd.workers), (2, 1, 2));
        let warn = warn.unwrap();
        assert_eq!(warn.code, Code::FewerWorkers);
        assert!(warn.message.contains("2 of 4 devices idle"), "{}", warn.message);
        let err = split_qd(24, QdCounting::Total, &t(16, 1)).unwrap_err();
        assert_eq!(err.code, Code::QdSplit);
        assert!(err.hint.unwrap().contains("(16 or 32)"));
    }

    #[test]
    fn qd_split_per_worker_and_limits() {
        let (qd, _) = split_qd(32, QdCounting::PerWorker, &t(8, 1)).unwrap();
        assert_eq!((qd.total, qd.per_worker, qd.workers), (256, 32, 8));
        assert_eq!(split_qd(0, QdCounting::Total, &t(1, 1)).unwrap_err().code, Code::QdRange);
        assert_eq!(split_qd(65_537, QdCounting::Total, &t(1, 1)).unwrap_err().code, Code::QdRange);
        assert_eq!(split_qd(65_536, QdCounting::Total, &t(1, 1)).unwrap().0.total, 65_536);
        assert_eq!(split_qd(8_193, QdCounting::PerWorker, &t(8, 1)).unwrap_err().code, Code::QdRange);
    }

    #[test]
    fn default_fill_qd_splits() {
        assert_eq!(default_fill_qd(QdCounting::Total, &t(1, 1)), 32);
        assert_eq!(default_fill_qd(QdCounting::Total, &t(3, 1)), 33);
        assert_eq!(default_fill_qd(QdCounting::Total, &t(16, 4)), 32);
        assert!(split_qd(default_fill_qd(QdCounting::Total, &t(3, 1)), QdCounting::Total, &t(3, 1)).is_ok());
    }

    #[test]
    fn workload_rules() {
        let w = Workload {
            name: "w".into(),
            blocks: vec![
                BlockShare { size: Bytes(512), share: Percent::whole(50) },
                BlockShare { size: Bytes(1000), share: Percent::whole(40) },
            ],
            read: Percent::whole(120),
            random: Percent::HUNDRED,
            align: Bytes(512),
            offset: Bytes(0),
            access: Default::default(),
            trim: Percent::ZERO,
            write_blocks: None,
        };
        let codes: Vec<Code> = workload(&w).into_iter().map(|p| p.code).collect();
        assert_eq!(codes, vec![Code::SplitSum, Code::ShareRange]);
        let direct: Vec<Field> = direct_io(&w).into_iter().map(|p| p.field).collect();
        assert_eq!(direct, vec![Field::Block(1)]);
    }

    #[test]
    fn steady_rules() {
        assert!(steady(&SteadyRule::default()).is_empty());
        let r = SteadyRule { window: 8, max_rounds: 5, ..SteadyRule::default() };
        assert_eq!(steady(&r)[0].code, Code::SteadyWindow);
        let r = SteadyRule { excursion: Percent::ZERO, ..SteadyRule::default() };
        assert_eq!(steady(&r)[0].code, Code::SteadyThreshold);
    }

    #[test]
    fn probe_rules() {
        let p = Probe {
            io: Bytes(512),
            step: Bytes(256),
            range: Bytes(4 << 20),
            repeats: 20,
            statistic: Aggregate::Median,
            offsets: 0,
        };
        assert!(probe(&p, IoMode::Buffered).is_empty());
        assert_eq!(probe(&p, IoMode::Direct)[0].field, Field::Step);
        assert_eq!(probe_offsets(p.io, p.step, p.range), (4 * 1024 * 1024 - 512) / 256 + 1);
    }
}
