//! A job (its options, `[global]` ones included) in, one [`Step`] out: a
//! workload, target settings, a measurement (with its open-loop rate) and
//! the file fio runs it on, with notes for what is left out; or every
//! problem that keeps the job from one.

mod access;
mod distribution;
mod load;
mod rate;
mod reader;
mod region;
mod step;
mod verify;

use std::collections::HashSet;

use methodic_compiler::plan::{Bytes, Duration, Percent};

use self::access::{Rw, access, blocks, data, engine, filename, io_mode, random_share, read_share, single};
use self::distribution::distribution;
pub(crate) use self::distribution::{normal_differs, pareto_differs, zipf_differs};
use self::load::{latency, pauses};
use self::rate::{job_rate, rate_options};
use self::reader::{Got, JobReader, Reported, need};
use self::region::{Layout, layout, region, stop};
pub(crate) use self::step::{Data, FioSpan, LatencyTarget, Note, Step, Stop, ThinkTime};
use self::verify::{Verify, verify_fits, verify_option};
use crate::error::{ImportErrorKind, Problem};
use crate::job_file::Job;
use crate::options::{Handling, canonical, lookup};
use crate::values::{FioSize, KbBase, fio_bytes, fio_size, refusal};

/// A job's options to a step, or the problems that keep it from one.
pub(crate) fn job_to_step(job: &Job) -> (Option<Step>, Vec<Problem>) {
    let mut r = JobReader { job, problems: Vec::new(), notes: Vec::new() };
    r.other_options();
    let step = translate(&mut r).ok();
    if !r.problems.is_empty() {
        return (None, r.problems);
    }
    (step, Vec::new())
}

/// A job's options read in one pass, each concern by its own reader, so
/// that every refusal is reported before the step is built; then the
/// checks that need several of them at once.
pub(crate) fn translate(r: &mut JobReader<'_>) -> Got<Step> {
    let job = r.job;
    let kb = kb_base(r);
    // Sizes cannot be read without knowing kb_base; the rest still is.
    let kb_ok = kb.is_ok();
    let kb = kb.unwrap_or(KbBase::Compat1024);

    let rw = access(r);
    let read = read_share(r, rw.as_ref().ok().copied());
    let random = random_share(r, rw.as_ref().ok().copied());
    let blocks = if kb_ok { blocks(r, kb, rw.as_ref().ok().copied()) } else { Err(Reported) };
    let align =
        if kb_ok { r.read("ba", |v| single(need(v)?).and_then(|v| fio_bytes(v, kb))) } else { Err(Reported) };
    let qd = r.int("iodepth", 1, 65_536).map(|d| d.unwrap_or(1));
    let workers = r.int("numjobs", 1, 65_536).map(|n| n.unwrap_or(1));
    let distribution = distribution(r, random.as_ref().ok().copied(), workers.as_ref().ok().copied());
    let direct = io_mode(r);
    let invalidate = r.bool("invalidate").map(|v| v.unwrap_or(true));
    let region = if kb_ok { region(r, kb) } else { Err(Reported) };
    let increment =
        if kb_ok { r.read("offset_increment", |v| fio_size(need(v)?, kb, true)) } else { Err(Reported) };
    let io_size = if kb_ok { r.read("io_size", |v| fio_bytes(need(v)?, kb)) } else { Err(Reported) };
    let data = data(r);
    let time_based = r.flag("time_based");
    let runtime = r.time("runtime").map(|t| t.filter(|t| !t.is_zero()));
    let ramp = r.time("ramp_time").map(|t| t.unwrap_or(Duration::ZERO));
    let loops = r.int("loops", 1, u64::MAX).map(|l| l.unwrap_or(1));
    // A [global] description describes the methodology, not each job.
    let description = r
        .get("description")
        .filter(|e| e.section != "global")
        .and_then(|e| e.value.as_deref())
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty());
    let stonewall = r.flag("stonewall");
    let file = r.get("filename").and_then(|e| filename(r, e));
    let rates = rate_options(r, kb_ok.then_some(kb));
    let engine = match (&qd, &direct) {
        (Ok(qd), Ok(direct)) => engine(r, *qd, *direct),
        _ => Ok(()),
    };
    let verify = verify_option(r);
    let paused = pauses(r, qd.as_ref().ok().copied());
    let latency = latency(r);

    let (rw, read, random, blocks, align, qd, workers, direct, invalidate, region, data) =
        (rw?, read?, random?, blocks?, align?, qd?, workers?, direct?, invalidate?, region?, data?);
    let (time_based, runtime, ramp, loops) = (time_based?, runtime?, ramp?, loops?);
    let ((), _, increment, io_size, rates) = (engine?, stonewall?, increment?, io_size?, rates?);
    let (verify, think, latency) = (verify?, paused?, latency?);
    let access = distribution?;
    let (blocks, write_blocks) = blocks;
    let rate = job_rate(r, rates, read, workers)?;
    // methodic's stripes are whole multiples of the alignment and of the
    // largest block, of either direction.
    let all: Vec<(Bytes, Percent)> = blocks.iter().chain(write_blocks.iter().flatten()).copied().collect();
    let (smallest, largest) = extremes(&all);
    let layout = layout(r, region, increment, workers, random, align.unwrap_or(smallest).max(largest))?;
    let Layout { span, offset, .. } = layout;
    in_flight(r, qd, workers)?;
    if direct {
        sector_sizes(r, &all, align, offset)?;
    }
    holds_a_block(r, layout.size, largest)?;

    // A search ends when it does: the job's runtime and size are not its stop.
    let stop = latency
        .map(|l| Ok(Stop::Time(l.window)))
        .unwrap_or_else(|| stop(r, rw, time_based, runtime, loops, io_size, workers, layout))?;
    let verify = match verify {
        Verify::Off => false,
        Verify::On(e, back) => {
            verify_fits(r, (e, back), rw, (time_based, stop), loops, io_size, layout.size)?
        }
    };
    unverified_search(r, verify, latency)?;
    unpaused_search(r, think, latency)?;

    // fio keeps no random map for a non-uniform distribution.
    let random_map = random > Percent::ZERO && access.is_uniform() && !r.flag("norandommap").unwrap_or(false);

    Ok(Step {
        name: job.name(),
        section: job.section.clone(),
        line: job.line,
        options: translated_options(job),
        description,
        notes: std::mem::take(&mut r.notes),
        random,
        access,
        read,
        trim: if matches!(rw, Rw::Trim | Rw::RandTrim) { Percent::HUNDRED } else { Percent::ZERO },
        blocks,
        write_blocks,
        align,
        offset,
        span,
        workers,
        qd,
        direct,
        data,
        drop_caches: !direct && invalidate,
        ramp,
        stop,
        rate,
        filename: file,
        binary: kb == KbBase::Compat1024,
        random_map,
        verify,
        latency,
        think,
    })
}

/// A region (`size` in bytes) that holds the largest block.
fn holds_a_block(r: &mut JobReader<'_>, size: Option<FioSize>, largest: Bytes) -> Got<()> {
    let Some(FioSize::Bytes(size)) = size.filter(|s| matches!(s, FioSize::Bytes(b) if *b < largest)) else {
        return Ok(());
    };
    let e = r.get("size").expect("a size in bytes was given");
    Err(r.problem(
        ImportErrorKind::BadValue,
        e,
        refusal(format!("a region of {}B holds no {largest} block", size.0)),
    ))
}

/// A job with a latency target is a `qos` step, which does not check its
/// data: `verify` with it is refused.
fn unverified_search(r: &mut JobReader<'_>, verify: bool, latency: Option<LatencyTarget>) -> Got<()> {
    if !(verify && latency.is_some()) {
        return Ok(());
    }
    let e = r.get("verify").expect("verify was read");
    Err(r.problem(
        ImportErrorKind::Conflict,
        e,
        refusal(
            "with latency_target the job is a `qos` step, and methodic's `verify` is an option of fill, \
             precondition, measure and sweep",
        )
        .hint("drop verify, or latency_target, to import the job"),
    ))
}

/// A job with a latency target and a think time: the target makes it a
/// `qos` step, which has no pauses.
fn unpaused_search(
    r: &mut JobReader<'_>,
    think: Option<ThinkTime>,
    latency: Option<LatencyTarget>,
) -> Got<()> {
    if think.is_none() || latency.is_none() {
        return Ok(());
    }
    let e = r.get("thinktime").expect("a think time was read");
    Err(r.problem(
        ImportErrorKind::Conflict,
        e,
        refusal("with latency_target the job is a `qos` step, and methodic's searches have no pauses")
            .hint("drop thinktime, or latency_target, to import the job"),
    ))
}

/// `kb_base`: how fio reads the job's sizes.
fn kb_base(r: &mut JobReader<'_>) -> Got<KbBase> {
    match r.int("kb_base", 0, u64::MAX)? {
        None | Some(1024) => Ok(KbBase::Compat1024),
        Some(1000) => Ok(KbBase::Si1000),
        Some(n) => {
            let e = r.get("kb_base").expect("read above");
            Err(r.problem(
                ImportErrorKind::BadValue,
                e,
                refusal(format!("fio takes kb_base=1024 or 1000, not {n}")),
            ))
        }
    }
}

/// The I/Os in flight over all the job's workers, within methodic's
/// bound.
fn in_flight(r: &mut JobReader<'_>, qd: u64, workers: u64) -> Got<()> {
    if qd * workers > 65_536 {
        let e = r.get("iodepth").expect("a depth above 1 was given");
        return Err(r.problem(
            ImportErrorKind::BadValue,
            e,
            refusal(format!(
                "{qd} per job over {workers} jobs is {} I/Os in flight; methodic keeps at most 65536",
                qd * workers
            )),
        ));
    }
    Ok(())
}

/// The smallest and the largest of the sizes (4KiB for none).
fn extremes(sizes: &[(Bytes, Percent)]) -> (Bytes, Bytes) {
    let each = || sizes.iter().map(|(b, _)| *b);
    (each().min().unwrap_or(Bytes(4096)), each().max().unwrap_or(Bytes(4096)))
}

/// Sizes direct I/O can issue: blocks, alignment and offset in whole
/// 512B sectors; each one that is not is reported.
fn sector_sizes(
    r: &mut JobReader<'_>,
    blocks: &[(Bytes, Percent)],
    align: Option<Bytes>,
    offset: Bytes,
) -> Got<()> {
    let mut bad = Vec::new();
    for (b, _) in blocks {
        if b.0 % 512 != 0 {
            bad.push((
                if r.get("bssplit").is_some() { "bssplit" } else { "bs" },
                format!("block size {}B", b.0),
            ));
        }
    }
    if let Some(a) = align.filter(|a| a.0 % 512 != 0) {
        bad.push(("ba", format!("alignment {}B", a.0)));
    }
    if !offset.0.is_multiple_of(512) {
        bad.push(("offset", format!("offset {}B", offset.0)));
    }
    for (name, what) in &bad {
        let e = r.get(name).expect("a value that was read");
        r.problem(
            ImportErrorKind::BadValue,
            e,
            refusal(format!("with direct=1 the {what} is not a whole number of 512B sectors, which O_DIRECT needs (fio would fail too)"))
                .hint("use a multiple of 512 bytes, or direct=0"),
        );
    }
    if bad.is_empty() { Ok(()) } else { Err(Reported) }
}

/// Options read by the import that have a comment or note of their own
/// (or none, at fio's default), and so are not listed above the step:
/// names, the file and engine, `verify` and the options of pauses and
/// latency targets, which fio ignores without the option they serve.
fn said_apart(name: &str) -> bool {
    ["name", "description", "filename", "ioengine", "verify", "do_verify", "rate_ignore_thinktime"]
        .contains(&name)
        || name.starts_with("thinktime")
        || name.starts_with("latency_")
}

/// The translated options that count for the job (the last of each), as
/// written: those the comment above its step lists.
fn translated_options(job: &Job) -> Vec<String> {
    let mut seen = HashSet::new();
    let mut v: Vec<String> = job
        .entries
        .iter()
        .rev()
        .filter(|e| seen.insert(canonical(&e.key)))
        .filter(|e| {
            matches!(lookup(&e.key).map(|o| o.handling), Some(Handling::Translated))
                && !said_apart(canonical(&e.key))
        })
        .map(|e| e.written())
        .collect();
    v.reverse();
    v
}
