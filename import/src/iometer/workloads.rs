//! An access specification to a methodic workload, by what Dynamo does
//! with it (iometer-org/iometer @ 7243b4d, `src/IOGrunt.cpp`,
//! `src/IOAccess.cpp`, `src/IOTargetDisk.cpp`): a line is drawn per burst
//! by its `% of size`, and each I/O reads and goes to a random offset by
//! the line's `% reads` and `% random`; so the lines become a block split
//! with one read share, one random share, one alignment and one pause,
//! which must then be the same on every line (methodic's workload has one
//! of each). Align 0 is the target's sector size (`TargetDisk::Seek`,
//! lines 1730-1840), taken as 512 bytes and said so; a reply (a second I/O
//! the other way, `IOGrunt.cpp:985-996`) is refused. In: a [`Spec`]; out:
//! a [`Workload`], its properties as the language writes them.

use std::collections::BTreeMap;

use methodic_compiler::plan::{Bytes, Duration, Percent};

use super::model::{AccessLine, Spec};
use crate::ImportErrorKind;
use crate::problem::Problem;

/// The sector size methodic assumes where Iometer uses the target's own.
pub(crate) const SECTOR: u64 = 512;

/// Iometer's delay and burst are `int`s (`struct Access_Spec`, `src/IOAccess.h:78-90`).
const INT_MAX: u64 = i32::MAX as u64;

/// A specification as a methodic workload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Workload {
    /// Its name in the methodology.
    pub(super) ident: String,
    /// Its name in Iometer.
    pub(super) name: String,
    pub(super) line: usize,
    /// `random; blocks { ... }; read 80%; align 512B`, without the offset.
    pub(super) body: String,
    /// Comments: how it was translated.
    pub(super) notes: Vec<String>,
    /// Settings left out, among the notes.
    pub(super) dropped: usize,
    /// A pause of this many milliseconds before every this many I/Os.
    pub(super) think: Option<(u64, u64)>,
    /// The alignment its I/Os get, in bytes.
    pub(super) align: u64,
    /// Whether some of its I/Os write.
    pub(super) writes: bool,
}

/// A problem of one specification.
fn problem(kind: ImportErrorKind, spec: &Spec, line: usize, detail: String) -> Problem {
    Problem::new(kind, line, detail).place(format!("access specification \"{}\"", spec.name))
}

/// The access line as written, for an error.
fn written(a: &AccessLine) -> String {
    format!("{},{},{},{},{},{},{},{}", a.size, a.share, a.reads, a.random, a.delay, a.burst, a.align, a.reply)
}

/// The lines that run must agree on `what`: the first that differs is a
/// problem.
fn same(
    spec: &Spec,
    used: &[&AccessLine],
    what: &str,
    value: impl Fn(&AccessLine) -> (u64, u64),
    hint: &str,
) -> Option<Problem> {
    let first = used[0];
    let other = used.iter().find(|a| value(a) != value(first))?;
    Some(
        problem(
            ImportErrorKind::Conflict,
            spec,
            other.line,
            format!(
                "its lines differ in {what} (line {} and line {}): a methodic workload has one {what} for its \
                 whole block split",
                first.line, other.line
            ),
        )
        .option(written(other))
        .hint(hint.to_string()),
    )
}

/// What Iometer can hold or methodic cannot do in one line: a reply,
/// values beyond Iometer's 32 bits, a size `io direct` cannot issue.
fn line_problems(spec: &Spec, a: &AccessLine) -> Vec<Problem> {
    let mut problems = Vec::new();
    if a.reply != 0 {
        problems.push(
            problem(
                ImportErrorKind::Untranslatable,
                spec,
                a.line,
                format!(
                    "reply {}: Iometer follows each I/O of this line by a reply of {} bytes the other way \
                     (a request and reply, meant for network workers); a methodic workload has no such pairs",
                    a.reply, a.reply
                ),
            )
            .option(written(a))
            .hint("set reply to 0 (the eighth field)"),
        );
    }
    if a.delay > INT_MAX || a.burst > INT_MAX || a.align > u32::MAX as u64 {
        problems.push(
            problem(
                ImportErrorKind::BadValue,
                spec,
                a.line,
                "a delay or burst above 2147483647 or an align above 4294967295: Iometer holds them in 32 bits"
                    .to_string(),
            )
            .option(written(a)),
        );
    }
    if a.size == 0 || !a.size.is_multiple_of(SECTOR) || a.size > u32::MAX as u64 {
        problems.push(
            problem(
                ImportErrorKind::BadValue,
                spec,
                a.line,
                format!(
                    "a transfer size of {} bytes: Iometer does unbuffered I/O, which methodic does as `io \
                     direct`, in multiples of 512 bytes",
                    a.size
                ),
            )
            .option(written(a)),
        );
    }
    problems
}

/// Whether the lines that run differ in `% reads` and each only reads or
/// only writes: the reads' sizes then make `blocks`, the writes' their own.
fn by_direction(used: &[&AccessLine]) -> bool {
    used.iter().any(|a| a.reads == 100)
        && used.iter().any(|a| a.reads == 0)
        && used.iter().all(|a| a.reads % 100 == 0)
}

/// `block S` or `blocks { S: P%, ... }` (a `prefix` before each word) of
/// lines' sizes, each size's lines added; their shares made shares of
/// `total`, in hundredths of a percent. `None` when one is not whole
/// hundredths.
fn split_text(prefix: &str, lines: &[&AccessLine], total: u64) -> Option<String> {
    let mut blocks: BTreeMap<u64, u64> = BTreeMap::new();
    for a in lines {
        *blocks.entry(a.size).or_default() += a.share;
    }
    let mut parts = Vec::new();
    for (size, share) in &blocks {
        if (share * 10_000) % total != 0 {
            return None;
        }
        parts.push((Bytes(*size), Percent::from_hundredths((share * 10_000 / total) as u32)));
    }
    Some(match parts.as_slice() {
        [(size, _)] => format!("{prefix}block {size}"),
        many => format!(
            "{prefix}blocks {{ {} }}",
            many.iter().map(|(s, p)| format!("{s}: {p}")).collect::<Vec<_>>().join(", ")
        ),
    })
}

/// `blocks ...; write_blocks ...` and the read share of lines that each
/// only read or only write ([`by_direction`]), with a note; a problem when
/// a side's shares are not whole hundredths of a percent of it.
fn direction_blocks(
    spec: &Spec,
    used: &[&AccessLine],
    notes: &mut Vec<String>,
) -> Result<(String, u64), Vec<Problem>> {
    let reads: Vec<&AccessLine> = used.iter().copied().filter(|a| a.reads == 100).collect();
    let writes: Vec<&AccessLine> = used.iter().copied().filter(|a| a.reads == 0).collect();
    let read_total: u64 = reads.iter().map(|a| a.share).sum();
    let write_total: u64 = writes.iter().map(|a| a.share).sum();
    match (split_text("", &reads, read_total), split_text("write_", &writes, write_total)) {
        (Some(r), Some(w)) => {
            notes.push(
                "its lines each only read or only write: the reads' sizes are `blocks`, the writes' \
                 `write_blocks`, and the read share what the reading lines add up to"
                    .to_string(),
            );
            Ok((format!("{r}; {w}"), read_total))
        }
        _ => Err(vec![problem(
            ImportErrorKind::Conflict,
            spec,
            spec.line,
            "its reading (or writing) lines' shares are not whole hundredths of a percent of the reads (or \
             writes): methodic's shares are"
                .to_string(),
        )
        .hint("make the reading lines' shares, and the writing lines', divide evenly")]),
    }
}

/// The first line of `used` that differs from the first in what one
/// workload holds once: read and random shares, pause, alignment.
fn disagreements(spec: &Spec, used: &[&AccessLine]) -> Vec<Problem> {
    let mut problems = Vec::new();
    let hint = "split it into specifications that each have one value there";
    // Lines that each only read or only write are reads' and writes' own
    // sizes (`write_blocks`).
    if !by_direction(used) {
        problems.extend(same(spec, used, "% reads", |a| (a.reads, 0), hint));
    }
    problems.extend(same(spec, used, "% random", |a| (a.random, 0), hint));
    problems.extend(same(
        spec,
        used,
        "delay and burst",
        |a| (a.delay, if a.delay > 0 { a.burst.max(1) } else { 0 }),
        hint,
    ));
    let request_size = used.len() > 1 && used.iter().all(|a| a.align == a.size);
    let align_hint = if request_size {
        "each line is aligned to its own size (Iometer 1.1.0's \"request size\" alignment); a methodic \
         workload has one alignment: set one align on every line, such as the smallest size"
    } else {
        "set one align on every line"
    };
    problems.extend(same(spec, used, "align", |a| (a.align, 0), align_hint));
    problems
}

/// The alignment the lines get (align 0 is the sector, 512 bytes here),
/// or why methodic cannot give it.
fn alignment(spec: &Spec, used: &[&AccessLine]) -> Result<u64, Vec<Problem>> {
    let first = used[0];
    let align = if first.align == 0 { SECTOR } else { first.align };
    if align % SECTOR != 0 {
        return Err(vec![
            problem(
                ImportErrorKind::BadValue,
                spec,
                first.line,
                format!("align {}: methodic's `io direct` aligns to multiples of 512 bytes", first.align),
            )
            .option(written(first)),
        ]);
    }
    if first.random < 100
        && let Some(a) = used.iter().find(|a| a.size % align != 0)
    {
        return Err(vec![
            problem(
                ImportErrorKind::Untranslatable,
                spec,
                a.line,
                format!(
                    "sequential I/O of {} bytes aligned to {align}: Iometer aligns sequential I/O too, and \
                     leaves a gap after each I/O; methodic's sequential I/O has no gaps",
                    a.size
                ),
            )
            .option(written(a))
            .hint("make the sizes multiples of the alignment, or the specification 100% random"),
        ]);
    }
    Ok(align)
}

/// The specification as a workload named `ident`, or why not.
pub(super) fn spec_to_workload(spec: &Spec, ident: String) -> Result<Workload, Vec<Problem>> {
    let used: Vec<&AccessLine> = spec.lines.iter().filter(|a| a.share > 0).collect();
    let mut problems = Vec::new();
    let mut notes = Vec::new();
    let mut dropped = 0;
    for a in spec.lines.iter().filter(|a| a.share == 0) {
        notes.push(format!("line {}: 0% of the I/Os, which Iometer never runs: left out", a.line));
    }
    problems.extend(used.iter().flat_map(|a| line_problems(spec, a)));
    if used.is_empty() {
        return Err(problems);
    }
    problems.extend(disagreements(spec, &used));
    if !problems.is_empty() {
        return Err(problems);
    }
    let first = used[0];
    let align = alignment(spec, &used)?;
    let smallest = used.iter().map(|a| a.size).min().unwrap_or(SECTOR);
    if first.align == 0 {
        notes.push(
            "align 0: Iometer aligns to the target's sector size; 512 bytes here (on a drive of 4KiB sectors, \
             write align 4KiB)"
                .to_string(),
        );
    }
    let mut blocks: BTreeMap<u64, u64> = BTreeMap::new();
    for a in &used {
        *blocks.entry(a.size).or_default() += a.share;
    }
    if blocks.len() < used.len() {
        notes.push("lines of the same size are one block size here, their shares added".to_string());
    }
    let access = match first.random {
        100 => "random".to_string(),
        0 => "sequential".to_string(),
        r => {
            notes.push(format!(
                "{r}% random: Iometer's sequential I/Os continue after the previous I/O on the target, random \
                 or not; methodic's continue the worker's own sequential stream. The shares are the same, \
                 where the sequential runs start differs"
            ));
            format!("random {r}%")
        }
    };
    let (block, reads) = if by_direction(&used) {
        direction_blocks(spec, &used, &mut notes)?
    } else {
        let block = match blocks.iter().collect::<Vec<_>>().as_slice() {
            [(size, _)] => format!("block {}", Bytes(**size)),
            many => format!(
                "blocks {{ {} }}",
                many.iter().map(|(s, p)| format!("{}: {p}%", Bytes(**s))).collect::<Vec<_>>().join(", ")
            ),
        };
        (block, first.reads)
    };
    let mut body = format!("{access}; {block}; read {reads}%");
    if align != smallest {
        body.push_str(&format!("; align {}", Bytes(align)));
    }
    let think = if first.delay > 0 {
        let every = first.burst.max(1);
        notes.push(format!(
            "delay {}ms, burst {}: a pause of {} before every {every} I/Os (Iometer pauses before each \
             burst, the first included; a worker keeps its I/Os in flight meanwhile)",
            first.delay,
            first.burst,
            Duration::from_millis(first.delay)
        ));
        Some((first.delay, every))
    } else {
        if first.burst > 1 && used.len() > 1 {
            notes.push(format!(
                "burst {} without a delay: Iometer draws a line for every {} I/Os instead of every I/O; the \
                 shares are the same: not carried over",
                first.burst, first.burst
            ));
            dropped += 1;
        }
        None
    };
    Ok(Workload {
        ident,
        name: spec.name.clone(),
        line: spec.line,
        body,
        notes,
        dropped,
        think,
        align,
        writes: reads < 100,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(lines: &[[u64; 8]]) -> Spec {
        Spec {
            name: "s".into(),
            line: 1,
            assignment: "NONE".into(),
            lines: lines
                .iter()
                .enumerate()
                .map(|(i, l)| AccessLine {
                    line: i + 3,
                    size: l[0],
                    share: l[1],
                    reads: l[2],
                    random: l[3],
                    delay: l[4],
                    burst: l[5],
                    align: l[6],
                    reply: l[7],
                })
                .collect(),
        }
    }

    fn body(lines: &[[u64; 8]]) -> String {
        spec_to_workload(&spec(lines), "w".into()).unwrap().body
    }

    #[test]
    fn lines_that_each_only_read_or_only_write_are_each_directions_sizes() {
        assert_eq!(
            body(&[
                [4096, 35, 100, 100, 0, 1, 4096, 0],
                [8192, 35, 100, 100, 0, 1, 4096, 0],
                [16384, 30, 0, 100, 0, 1, 4096, 0]
            ]),
            "random; blocks { 4KiB: 50%, 8KiB: 50% }; write_block 16KiB; read 70%"
        );
        // Shares that are not whole hundredths of the reads' are refused.
        let lines = [
            [4096, 10, 100, 100, 0, 1, 4096, 0],
            [8192, 20, 100, 100, 0, 1, 4096, 0],
            [16384, 70, 0, 100, 0, 1, 4096, 0],
        ];
        let e = spec_to_workload(&spec(&lines), "w".into()).unwrap_err();
        assert!(e.iter().any(|p| p.detail.contains("not whole hundredths")), "{e:?}");
    }

    #[test]
    fn lines_become_a_split_with_one_read_and_random_share() {
        assert_eq!(body(&[[8192, 100, 67, 100, 0, 1, 0, 0]]), "random; block 8KiB; read 67%; align 512B");
        assert_eq!(body(&[[8192, 100, 67, 100, 0, 1, 8192, 0]]), "random; block 8KiB; read 67%");
        assert_eq!(
            body(&[[512, 10, 80, 100, 0, 1, 0, 0], [4096, 90, 80, 100, 0, 1, 0, 0]]),
            "random; blocks { 512B: 10%, 4KiB: 90% }; read 80%"
        );
        assert_eq!(body(&[[65536, 100, 100, 0, 0, 1, 65536, 0]]), "sequential; block 64KiB; read 100%");
        assert_eq!(
            body(&[[8192, 100, 80, 80, 0, 1, 4096, 0]]),
            "random 80%; block 8KiB; read 80%; align 4KiB"
        );
        assert_eq!(
            body(&[
                [4096, 50, 0, 100, 0, 1, 0, 0],
                [4096, 50, 0, 100, 0, 1, 0, 0],
                [512, 0, 0, 100, 0, 1, 0, 0]
            ]),
            "random; block 4KiB; read 0%; align 512B",
            "equal sizes added, 0% left out"
        );
    }

    #[test]
    fn delay_and_burst_are_a_think_time() {
        let w = spec_to_workload(&spec(&[[4096, 100, 0, 100, 10, 4, 0, 0]]), "w".into()).unwrap();
        assert_eq!(w.think, Some((10, 4)));
        let w = spec_to_workload(&spec(&[[4096, 100, 0, 100, 5, 0, 0, 0]]), "w".into()).unwrap();
        assert_eq!(w.think, Some((5, 1)), "burst 0 is 1");
    }

    #[test]
    fn what_one_workload_cannot_hold_is_refused() {
        let refused = |lines: &[[u64; 8]], words: &str| {
            let e = spec_to_workload(&spec(lines), "w".into()).unwrap_err();
            assert!(e.iter().any(|p| p.detail.contains(words)), "{words}: {:?}", e);
        };
        refused(&[[4096, 100, 0, 100, 0, 1, 0, 512]], "reply 512");
        refused(&[[4096, 50, 0, 100, 0, 1, 0, 0], [8192, 50, 10, 100, 0, 1, 0, 0]], "% reads");
        refused(&[[4096, 50, 0, 100, 0, 1, 4096, 0], [8192, 50, 0, 100, 0, 1, 8192, 0]], "align");
        refused(&[[1000, 100, 0, 100, 0, 1, 0, 0]], "1000 bytes");
        refused(&[[3072, 100, 0, 0, 0, 1, 2048, 0]], "gap");
        let e = spec_to_workload(
            &spec(&[[4096, 50, 0, 100, 0, 1, 4096, 0], [8192, 50, 0, 100, 0, 1, 8192, 0]]),
            "w".into(),
        )
        .unwrap_err();
        assert!(e[0].hint.as_deref().unwrap().contains("request size"));
    }
}
