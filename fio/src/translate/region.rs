//! Where a job works and when it stops: `size`, `offset` and
//! `offset_increment` to a span, an offset and stripes; `time_based`,
//! `runtime`, `loops` and `io_size` to a time or an amount written (a job
//! that reads or trims and stops by size is refused: methodic has no stop
//! after bytes read).

use methodic_compiler::plan::{Bytes, Duration, Percent};

use super::access::Rw;
use super::reader::{Got, JobReader, need};
use super::step::{FioSpan, Stop};
use crate::error::ImportErrorKind;
use crate::values::{FioSize, KbBase, fio_size, refusal};

/// `size` (per clone, `None` for the whole target) and `offset`.
pub(crate) fn region(r: &mut JobReader<'_>, kb: KbBase) -> Got<(Option<FioSize>, Bytes)> {
    let size = r.read("size", |v| fio_size(need(v)?, kb, true));
    let offset = r.read("offset", |v| fio_size(need(v)?, kb, true));
    let (size, offset) = (size?, offset?);
    let offset = match offset {
        None | Some(FioSize::Percent(Percent::ZERO)) => Bytes(0),
        Some(FioSize::Bytes(b)) => b,
        Some(FioSize::Percent(_)) => {
            let e = r.get("offset").expect("read above");
            return Err(r.problem(
                ImportErrorKind::Untranslatable,
                e,
                refusal("methodic's offset is a size; an offset as a share of the target has no equivalent")
                    .hint("give the offset in bytes, such as offset=1g"),
            ));
        }
    };
    match size {
        None | Some(FioSize::Bytes(Bytes(0))) => Ok((None, offset)),
        Some(FioSize::Bytes(b)) => Ok((Some(FioSize::Bytes(b)), offset)),
        Some(FioSize::Percent(p)) => {
            let e = r.get("size").expect("read above");
            if p == Percent::ZERO || p > Percent::HUNDRED {
                return Err(r.problem(
                    ImportErrorKind::BadValue,
                    e,
                    refusal(format!("a size of {p} is not a share of the target between 0% and 100%")),
                ));
            }
            if offset.0 > 0 {
                let o = r.get("offset").expect("a non-zero offset was given");
                return Err(r.problem(
                    ImportErrorKind::Conflict,
                    o,
                    refusal(format!(
                        "fio works from the offset over {p} of the target; methodic's span starts at the \
                         start of the target and its offset lies inside the span, so a share cannot be moved"
                    ))
                    .hint("give size in bytes, or drop the offset"),
                ));
            }
            Ok((Some(FioSize::Percent(p)), offset))
        }
    }
}

/// Where a job works, as methodic says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Layout {
    /// From the start of the target to the end of the last clone's region.
    pub(crate) span: FioSpan,
    pub(crate) offset: Bytes,
    /// Each clone's region (`size`); `None`: to the end of the target.
    pub(crate) size: Option<FioSize>,
    /// Each clone works in its own stripe (`offset_increment` = `size`),
    /// as methodic's workers do with sequential I/O.
    pub(crate) striped: bool,
}

/// The span and stripes of a job's clones. fio's clones of a sequential
/// job each start at the same offset unless `offset_increment` moves them
/// apart; methodic gives each worker its own stripe of the span.
pub(crate) fn layout(
    r: &mut JobReader<'_>,
    (size, offset): (Option<FioSize>, Bytes),
    increment: Option<FioSize>,
    workers: u64,
    random: Percent,
    unit: Bytes,
) -> Got<Layout> {
    let increment =
        increment.filter(|i| !matches!(i, FioSize::Bytes(Bytes(0)) | FioSize::Percent(Percent::ZERO)));
    let striped = match (increment, r.get("offset_increment")) {
        (Some(i), Some(e)) if workers > 1 => {
            if random > Percent::ZERO {
                return Err(r.problem(
                    ImportErrorKind::Conflict,
                    e,
                    refusal(
                        "fio's clones would each send their random I/O to their own stripe; methodic's \
                         workers send random I/O anywhere in the span",
                    )
                    .hint("drop offset_increment"),
                ));
            }
            if size != Some(i) {
                return Err(r.problem(
                    ImportErrorKind::Conflict,
                    e,
                    refusal(
                        "methodic's workers work in adjacent stripes of one size: offset_increment must be \
                         the job's size",
                    )
                    .hint("set offset_increment to the size, or drop it and numjobs"),
                ));
            }
            match i {
                FioSize::Bytes(b) if b.0 % unit.0.max(1) > 0 => {
                    return Err(r.problem(
                        ImportErrorKind::Conflict,
                        e,
                        refusal(format!(
                            "stripes of {b} are not whole {unit} blocks, and methodic's stripes are"
                        )),
                    ));
                }
                _ => {}
            }
            true
        }
        (Some(_), Some(e)) => {
            r.note(e, false, true, "ignored: it moves every clone after the first, and numjobs=1 makes none");
            false
        }
        _ => false,
    };
    if workers > 1 && random < Percent::HUNDRED && !striped {
        let e = r.get("numjobs").expect("numjobs above 1 was given");
        return Err(r.problem(
            ImportErrorKind::Conflict,
            e,
            refusal(format!(
                "fio runs {workers} clones of the job that each go through the region sequentially from its \
                 start, over the same blocks; methodic gives each worker its own stripe of the span"
            ))
            .hint(
                "give each clone its own stripe with offset_increment equal to size (sequential jobs), or \
                 import it with numjobs=1 (iodepth sets the depth)",
            ),
        ));
    }
    let clones = if striped { workers } else { 1 };
    let span = match size {
        None => FioSpan::Percent(Percent::HUNDRED),
        Some(FioSize::Bytes(b)) => match b.0.checked_mul(clones).and_then(|s| s.checked_add(offset.0)) {
            Some(end) => FioSpan::Bytes(Bytes(end)),
            None => {
                let e = r.get("size").expect("read above");
                return Err(r.problem(
                    ImportErrorKind::BadValue,
                    e,
                    refusal("the region ends beyond what a number holds"),
                ));
            }
        },
        Some(FioSize::Percent(p)) => {
            let total = p.times(clones);
            if total > Percent::HUNDRED {
                let e = r.get("offset_increment").expect("only stripes grow a share");
                return Err(r.problem(
                    ImportErrorKind::BadValue,
                    e,
                    refusal(format!("{clones} stripes of {p} end past the end of the target ({total})")),
                ));
            }
            FioSpan::Percent(total)
        }
    };
    Ok(Layout { span, offset, size, striped })
}

/// When the measurement stops: time-based, or once each clone has written
/// its `size` (or `io_size`) `loops` times.
#[allow(clippy::too_many_arguments)]
pub(crate) fn stop(
    r: &mut JobReader<'_>,
    rw: Rw,
    time_based: bool,
    runtime: Option<Duration>,
    loops: u64,
    io_size: Option<Bytes>,
    workers: u64,
    layout: Layout,
) -> Got<Stop> {
    let io_size = io_size.filter(|b| b.0 > 0);
    if time_based {
        let Some(t) = runtime else {
            let e = r.get("time_based").expect("time_based was given");
            return Err(r.problem(
                ImportErrorKind::Conflict,
                e,
                refusal("time_based without a runtime runs until fio is stopped")
                    .hint("give runtime=, such as runtime=60"),
            ));
        };
        // fio's keep_running() (backend.c:1805) runs a time-based job on
        // before it looks at loops, and do_io() passes on at `size`.
        for (name, what) in [("loops", loops > 1), ("io_size", io_size.is_some())] {
            if what {
                let e = r.get(name).expect("given");
                r.note(
                    e,
                    false,
                    true,
                    "ignored, as fio ignores it with time_based: the job runs for the runtime",
                );
            }
        }
        return Ok(Stop::Time(t));
    }
    // fio's io_size (or size, times loops) bounds the bytes a job moves:
    // reads and writes of a mixed job, the reads of a job that reads, the
    // trims of one that trims (io_bytes_exceeded(), backend.c:822 at
    // axboe/fio@f5344384), as methodic's `until transferred` counts; a
    // job that only writes moves what it writes: `until written`.
    // A ramp counts towards the amount in both: fio's do_io() counts the
    // bytes it issues from the job's start, ramp included (backend.c:1229;
    // the reset at the ramp's end, reset_io_counters(), leaves
    // io_issue_bytes alone), as methodic's byte budget does.
    let reads = !matches!(rw, Rw::Write | Rw::RandWrite);
    let times = loops.saturating_mul(workers);
    let written = match (io_size, layout.size) {
        (Some(b), _) | (None, Some(FioSize::Bytes(b))) => FioSpan::Bytes(Bytes(b.0.saturating_mul(times))),
        (None, _) if layout.offset.0 > 0 => {
            let e = r.get("offset").expect("a non-zero offset was given");
            return Err(r.problem(
                ImportErrorKind::Conflict,
                e,
                refusal(
                    "without time_based, fio moves the bytes from the offset to the end of the target; methodic \
                     counts what a step moves in bytes or in shares of a span that starts at the start of the \
                     target",
                )
                .hint("give size in bytes, or add time_based with a runtime"),
            ));
        }
        // Each clone writes its share of the span: all of it, or its stripe.
        (None, _) => FioSpan::Percent(Percent::HUNDRED.times(if layout.striped { loops } else { times })),
    };
    if reads {
        return Ok(Stop::Transferred { transferred: written, time: runtime });
    }
    Ok(Stop::Written { written, time: runtime })
}
