//! The `Profile` model in, the methodology's parts out (`Method`):
//! each time span a phase, each target a job (a `measure` when a time
//! span has one target on the first device, a `together` step
//! otherwise), with DiskSpd's defaults applied and its meaning kept
//! (`-o` is per thread, `-g` per thread and in bytes per millisecond,
//! `-i` split over the threads, `-Sh` write-through). What DiskSpd itself
//! refuses (`Profile::Validate`, Common.cpp:752-1081 at commit c361eed)
//! is refused in its words; what methodic cannot say is refused with a
//! hint; what changes nothing measured becomes a note.

use super::model::{At, Distribution, Note, Pattern, Profile, Set, Target, TimeSpan, bytes, or};
use crate::ImportErrorKind;
use crate::problem::Problem;

// Why each setting that changes nothing measured is kept as a comment only,
// shared by the two readers.

/// `-z`, `<RandSeed>`.
pub(crate) const SEED: &str =
    "DiskSpd's random seed; methodic draws from its own generator (`methodic run --seed N` repeats a run)";
/// `-L`, `<MeasureLatency>`.
pub(crate) const LATENCY: &str = "methodic records every I/O's latency anyway";
/// `-n`, `<DisableAffinity>`.
pub(crate) const AFFINITY_OFF: &str = "where DiskSpd places its threads; methodic places its workers itself";
/// `-a`, `<Affinity>`: refused with this reason.
pub(crate) const AFFINITY: &str =
    "methodic places its workers itself, on the CPUs it may use: it has no affinity setting";
/// `-x`, `<CompletionRoutines>`.
pub(crate) const COMPLETION: &str =
    "how DiskSpd waits for I/O on Windows (completion routines); methodic does its own I/O";
/// `-f[rst]`, `<SequentialScan>` and the other open hints.
pub(crate) const HINTS: &str = "Windows file-open hints for the cache; change nothing methodic does";
/// `-l`, `<UseLargePages>`.
pub(crate) const LARGE_PAGES: &str = "DiskSpd's buffer memory; changes nothing methodic measures";
/// `-I`, `<IOPriority>`.
pub(crate) const PRIORITY: &str = "a Windows I/O priority hint; methodic issues I/O at the normal priority";
/// `-Sr`, `<DisableLocalCache>`: refused with this reason.
pub(crate) const LOCAL_CACHE: &str =
    "DiskSpd turns off the SMB client's cache of a remote file; methodic has no such setting";
/// `-Sm`, `-N`, `<MemoryMappedIo>`: refused with this reason.
pub(crate) const MAPPED: &str = "memory-mapped I/O: methodic reads and writes with system calls only";
/// `-p`, `<ParallelAsyncIO>`: refused with this reason.
pub(crate) const PARALLEL: &str =
    "each I/O in flight walks its own sequential stream from one start: methodic has no such pattern";

/// The methodology to write.
#[derive(Debug, Default)]
pub(crate) struct Method {
    pub(crate) phases: Vec<Phase>,
    /// The targets' paths, device 1 first.
    pub(crate) devices: Vec<String>,
    /// Write-through on every target that writes (`-Sh`).
    pub(crate) write_cache_off: bool,
    pub(crate) notes: Vec<Note>,
    pub(crate) warnings: Vec<String>,
}

/// One time span.
#[derive(Debug)]
pub(crate) struct Phase {
    pub(crate) title: String,
    pub(crate) at: At,
    pub(crate) record: u64,
    pub(crate) ramp: u64,
    pub(crate) series_ms: Option<u64>,
    /// The cool-down as a precondition after the step, in seconds.
    pub(crate) cooldown: Option<u64>,
    pub(crate) shared: Shared,
    pub(crate) jobs: Vec<Job>,
    pub(crate) notes: Vec<Note>,
    pub(crate) said: Vec<String>,
}

/// What a phase's jobs share: its target block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Shared {
    pub(crate) span: String,
    pub(crate) direct: bool,
    /// `random`, `zeros`; `None` for a job that only reads.
    pub(crate) data: Option<&'static str>,
}

/// One target of a time span.
#[derive(Debug)]
pub(crate) struct Job {
    pub(crate) name: String,
    pub(crate) workload_name: String,
    pub(crate) workload: String,
    pub(crate) qd: u64,
    pub(crate) workers: u64,
    pub(crate) rate: Option<String>,
    pub(crate) think: Option<String>,
    pub(crate) device: usize,
    pub(crate) about: String,
    pub(crate) notes: Vec<Note>,
    pub(crate) said: Vec<String>,
    writes: bool,
    write_through: Option<At>,
}

/// The profile's parts, or every problem.
pub(crate) fn profile_to_method(p: &Profile) -> Result<Method, Vec<Problem>> {
    let mut m = Method { notes: p.notes.clone(), ..Method::default() };
    let mut problems = Vec::new();
    let last = p.spans.len();
    for (i, span) in p.spans.iter().enumerate() {
        let phase = time_span(span, span.title.clone(), i + 1 == last, &mut m, &mut problems);
        m.phases.extend(phase);
    }
    write_through(&mut m, &mut problems);
    let mut seen = std::collections::HashSet::new();
    m.warnings.retain(|w| seen.insert(w.clone()));
    if problems.is_empty() { Ok(m) } else { Err(problems) }
}

/// `-Sh` on targets that write is the run's `write_cache off`: every job
/// that writes must have it, or none.
fn write_through(m: &mut Method, problems: &mut Vec<Problem>) {
    let writers: Vec<(&str, &Job)> = m
        .phases
        .iter()
        .flat_map(|p| p.jobs.iter().map(|j| (p.title.as_str(), j)))
        .filter(|(_, j)| j.writes)
        .collect();
    let with: Vec<&(&str, &Job)> = writers.iter().filter(|(_, j)| j.write_through.is_some()).collect();
    if with.is_empty() {
        return;
    }
    if let Some((phase, without)) = writers.iter().find(|(_, j)| j.write_through.is_none()) {
        let w = with[0].1.write_through.clone().expect("filtered");
        problems.push(
            Problem::new(
                ImportErrorKind::Conflict,
                w.line,
                format!(
                    "write-through (no hardware write caching) is the run's `write_cache off` in methodic, set once for the whole run, but {phase}, {} writes without it",
                    without.about
                ),
            )
            .option(w.said)
            .place(format!("{}, {}", with[0].0, with[0].1.about))
            .hint("give write-through (-Sh or -Sw with -Su) to every target that writes, or to none"),
        );
        return;
    }
    m.write_cache_off = true;
}

/// A device number for `path`, numbered by first appearance.
fn device(m: &mut Method, path: &str) -> usize {
    match m.devices.iter().position(|d| d == path) {
        Some(i) => i + 1,
        None => {
            m.devices.push(path.to_string());
            m.devices.len()
        }
    }
}

/// One time span to a phase (`None` when it has a problem, each pushed to `problems`).
fn time_span(
    s: &TimeSpan,
    title: String,
    last: bool,
    m: &mut Method,
    problems: &mut Vec<Problem>,
) -> Option<Phase> {
    let place = s.at.said.clone();
    let duration = or(&s.duration, 10);
    if duration == 0 {
        let at = s.duration.as_ref().map_or(s.at.clone(), |d| d.at.clone());
        problems.push(
            Problem::new(ImportErrorKind::BadValue, at.line, "a measured time of 0 seconds measures nothing")
                .option(at.said)
                .place(place.clone())
                .hint("give the seconds to measure (DiskSpd's default is 10)"),
        );
    }
    let mut phase = Phase {
        title,
        at: s.at.clone(),
        record: duration,
        ramp: or(&s.warmup, 5),
        series_ms: None,
        cooldown: None,
        shared: Shared { span: "100%".into(), direct: false, data: None },
        jobs: Vec::new(),
        notes: s.notes.clone(),
        said: Vec::new(),
    };
    if s.warmup.is_none() {
        phase.said.push("DiskSpd warms up for 5 seconds unless told otherwise: ramp 5s.".into());
    }
    series(s, duration, &mut phase);
    let pool = or(&s.thread_count, 0);
    if let Some(o) = &s.request_count {
        if pool == 0 && o.value > 0 {
            phase.notes.push(Note::new(
                o.at.clone(),
                "DiskSpd ignores it without a thread pool (-F, <ThreadCount>)",
            ));
        } else if o.value > 0 && s.targets.len() > 1 {
            problems.push(
                Problem::new(
                    ImportErrorKind::Untranslatable,
                    o.at.line,
                    "each pool thread shares its I/Os in flight over the targets at random, by weight: each methodic worker keeps its queue on one device",
                )
                .option(o.at.said.clone())
                .place(place.clone())
                .hint("remove it (-O): each pool thread then keeps each target's RequestCount (-o) in flight on it"),
            );
        }
    }
    let before = problems.len();
    let mut shared: Option<(Shared, String)> = None;
    for (i, t) in s.targets.iter().enumerate() {
        let Some((job, sh)) = target(s, t, i + 1, m, problems) else { continue };
        match &mut shared {
            None => shared = Some((sh, job.about.clone())),
            Some((first, about)) => {
                let mut merged = first.clone();
                if merged.data.is_none() {
                    merged.data = sh.data;
                }
                let differences = differences(first, &sh);
                if !differences.is_empty() {
                    problems.push(
                        Problem::new(
                            ImportErrorKind::Conflict,
                            t.at.line,
                            format!(
                                "the targets of a time span run together, and a together step's jobs share one span, I/O mode and written data, but {about} and {} differ: {}",
                                job.about,
                                differences.join(", ")
                            ),
                        )
                        .option(t.at.said.clone())
                        .place(place.clone())
                        .hint("give the targets of one time span the same region, cache flags and write content, or put them in time spans of their own"),
                    );
                }
                *first = merged;
            }
        }
        phase.jobs.push(job);
    }
    if let Some((sh, _)) = shared {
        phase.shared = sh;
    }
    cooldown(s, last, &mut phase, problems);
    (problems.len() == before && !phase.jobs.is_empty()).then_some(phase)
}

/// How two jobs' target settings differ: `span 100% and 5GiB`.
fn differences(a: &Shared, b: &Shared) -> Vec<String> {
    let io = |s: &Shared| if s.direct { "direct" } else { "buffered" };
    let mut out = Vec::new();
    if a.span != b.span {
        out.push(format!("span {} and {}", a.span, b.span));
    }
    if a.direct != b.direct {
        out.push(format!("io {} and {}", io(a), io(b)));
    }
    if let (Some(x), Some(y)) = (a.data, b.data)
        && x != y
    {
        out.push(format!("data {x} and {y}"));
    }
    out
}

/// `-D[ms]`: a series of that interval.
fn series(s: &TimeSpan, duration: u64, phase: &mut Phase) {
    let on = s.iops_std_dev.as_ref().is_some_and(|d| d.value);
    if !on {
        if let Some(b) = &s.bucket {
            phase.notes.push(Note::new(b.at.clone(), "an interval for IOPS per interval, which this time span does not ask for (CalculateIopsStdDev)"));
        }
        return;
    }
    let ms = or(&s.bucket, 1000);
    let ms = if ms == 0 { 1000 } else { ms };
    if ms > duration * 1000 {
        let at = s.bucket.as_ref().map_or(s.at.clone(), |b| b.at.clone());
        phase.notes.push(Note::new(
            at,
            "an interval longer than the measured time: the step keeps its default series of 1s",
        ));
    } else {
        phase.series_ms = Some(ms);
    }
}

/// `-C`: nothing follows the last time span, and a cool-down of reads
/// changes nothing; otherwise a precondition of the same I/O.
fn cooldown(s: &TimeSpan, last: bool, phase: &mut Phase, problems: &mut Vec<Problem>) {
    let Some(c) = s.cooldown.as_ref().filter(|c| c.value > 0) else { return };
    let writes = phase.jobs.iter().any(|j| j.writes);
    if last || !writes {
        let why = if last {
            "I/O after the measurement, not recorded; nothing follows it here"
        } else {
            "I/O after the measurement, not recorded; it only reads, so it changes nothing the next time span meets"
        };
        phase.notes.push(Note::new(c.at.clone(), why));
        return;
    }
    match phase.jobs.as_slice() {
        [j] if j.rate.is_none() && j.think.is_none() && j.device == 1 => phase.cooldown = Some(c.value),
        _ => problems.push(
            Problem::new(
                ImportErrorKind::Untranslatable,
                c.at.line,
                "a cool-down that writes before the next time span is a precondition here, which runs one workload closed loop: not several targets, a rate or think time",
            )
            .option(c.at.said.clone())
            .place(s.at.said.clone())
            .hint("give a cool-down of 0 (-C0), or put this time span last"),
        ),
    }
}

/// A refusal of the setting written at `at`, with why and what to do.
fn refuse(
    problems: &mut Vec<Problem>,
    kind: ImportErrorKind,
    at: &At,
    place: &str,
    why: impl Into<String>,
    hint: &str,
) {
    problems.push(Problem::new(kind, at.line, why).option(at.said.clone()).place(place).hint(hint));
}

/// The threads DiskSpd runs on a target, and the queue depth each keeps.
fn threads_and_depth(
    s: &TimeSpan,
    t: &Target,
    place: &str,
    problems: &mut Vec<Problem>,
) -> Option<(u64, u64)> {
    let pool = or(&s.thread_count, 0);
    let own = or(&t.threads, 1);
    if let Some(n) = t.threads.as_ref().filter(|n| n.value == 0) {
        refuse(problems, ImportErrorKind::BadValue, &n.at, place, "0 threads run no I/O", "give 1 or more");
        return None;
    }
    if pool > 0 && own > 1 {
        let at = &t.threads.as_ref().expect("above 1").at;
        refuse(
            problems,
            ImportErrorKind::Conflict,
            at,
            place,
            "DiskSpd refuses threads per target (-t) with a thread pool (-F)",
            "give one of them",
        );
        return None;
    }
    let threads = if pool > 0 { pool } else { own };
    let mut qd = or(&t.request_count, 2);
    if let Some(o) = s.request_count.as_ref().filter(|o| pool > 0 && o.value > 0) {
        qd = o.value;
    }
    if qd == 0 {
        let at = t.request_count.as_ref().map_or(&t.at, |r| &r.at);
        refuse(
            problems,
            ImportErrorKind::BadValue,
            at,
            place,
            "0 I/Os in flight run no I/O",
            "give 1 or more (DiskSpd's default is 2)",
        );
        return None;
    }
    if threads.saturating_mul(qd) > 65_536 {
        refuse(
            problems,
            ImportErrorKind::BadValue,
            &t.at,
            place,
            format!(
                "{threads} threads with {qd} I/Os in flight each: methodic keeps at most 65536 in flight in a step"
            ),
            "give fewer threads or I/Os in flight",
        );
        return None;
    }
    Some((threads, qd))
}

/// One target to a job and what it needs of the phase's target block.
fn target(
    s: &TimeSpan,
    t: &Target,
    n: usize,
    m: &mut Method,
    problems: &mut Vec<Problem>,
) -> Option<(Job, Shared)> {
    let place =
        format!("{}, {}", s.at.said, if t.at.said.is_empty() { t.path.clone() } else { t.at.said.clone() });
    let before = problems.len();
    let block = or(&t.block, 65536);
    if block == 0 {
        let at = &t.block.as_ref().expect("0 is given").at;
        refuse(
            problems,
            ImportErrorKind::BadValue,
            at,
            &place,
            "a block size of 0",
            "give the I/O size in bytes",
        );
    }
    let (threads, qd) = threads_and_depth(s, t, &place, problems)?;
    let write = or(&t.write_ratio, 0);
    let direct = t.no_os_cache.is_some();
    let mut notes = t.notes.clone();
    let mut said = Vec::new();
    let (span_bytes, base) = region(t, &place, &mut notes, &mut said, problems);
    if let Some(s) = span_bytes.filter(|s| base < *s && block > 0 && s - base < block) {
        refuse(
            problems,
            ImportErrorKind::BadValue,
            &t.at,
            &place,
            format!(
                "a region of {} from offset {} cannot hold a block of {}",
                bytes(s),
                bytes(base),
                bytes(block)
            ),
            "give a larger region (-c, -f, -B base:length) or a smaller block",
        );
    }
    let span = span_bytes.map_or("100%".to_string(), bytes);
    let room = span_bytes.and_then(|s| s.checked_sub(base));
    let access = access(t, block, threads, room, &place, &mut said, problems);
    let (workers, qd) = match &access {
        Some(a) if a.one_stream => (1, threads * qd),
        _ => (threads, qd),
    };
    if let Some(at) = &t.no_os_cache {
        let align = access.as_ref().map_or(block, |a| a.align);
        sectors(at, [("block size", block), ("alignment", align), ("base offset", base)], &place, problems);
    }
    let data = data(s, t, write, block, &place, &mut notes, &mut said, &mut m.warnings, problems);
    let rate = rate(s, t, block, threads, &place, &mut said, &mut m.warnings, problems);
    let think = think(
        t,
        threads,
        access.as_ref().is_some_and(|a| a.one_stream),
        rate.is_some(),
        &place,
        &mut notes,
        problems,
    );
    let write_through = t.write_through.clone();
    if let Some(w) = &write_through {
        through(w, write, direct, &place, &mut notes, problems);
    }
    let device = device(m, &t.path);
    if problems.len() > before {
        return None;
    }
    let access = access?;
    let mut props = vec![access.text, format!("block {}", bytes(block)), format!("read {}%", 100 - write)];
    if access.align != block {
        props.push(format!("align {}", bytes(access.align)));
    }
    if base > 0 {
        props.push(format!("offset {}", bytes(base)));
    }
    let about = format!("target {n} ({})", t.path);
    let job = Job {
        name: format!("t{n}"),
        workload_name: String::new(),
        workload: props.join("; "),
        qd,
        workers,
        rate,
        think,
        device,
        about,
        notes,
        said,
        writes: write > 0,
        write_through,
    };
    Some((job, Shared { span, direct, data }))
}

/// Without the OS cache, sizes and offsets in whole 512-byte sectors.
fn sectors(at: &At, values: [(&str, u64); 3], place: &str, problems: &mut Vec<Problem>) {
    for (what, v) in values {
        if v % 512 != 0 {
            refuse(
                problems,
                ImportErrorKind::BadValue,
                at,
                place,
                format!(
                    "without the OS cache I/O goes straight to the device in whole 512-byte sectors, and the {what} of {v} bytes is not one (DiskSpd's I/O would fail)"
                ),
                "use sizes that are multiples of 512 bytes, or the OS cache (no -S)",
            );
        }
    }
}

/// Write-through: nothing for reads, refused with the OS cache on.
fn through(
    w: &At,
    write: u64,
    direct: bool,
    place: &str,
    notes: &mut Vec<Note>,
    problems: &mut Vec<Problem>,
) {
    if write == 0 {
        notes.push(Note::new(w.clone(), "write-through changes nothing for a target that only reads"));
    } else if !direct {
        refuse(
            problems,
            ImportErrorKind::Untranslatable,
            w,
            place,
            "write-through with the OS cache on (buffered, each write through to the drive) has no equivalent: methodic's buffered I/O is plain buffered I/O",
            "add -Su (-Sh is both), or remove the write-through",
        );
    }
}

/// The span and the base offset: `-B`, `-f`, `-c`.
fn region(
    t: &Target,
    place: &str,
    notes: &mut Vec<Note>,
    said: &mut Vec<String>,
    problems: &mut Vec<Problem>,
) -> (Option<u64>, u64) {
    let base = or(&t.base, 0);
    let max = or(&t.max_size, 0);
    let drive = is_drive(&t.path);
    let mut file = or(&t.file_size, 0);
    if let Some(f) = &t.file_size {
        if drive {
            notes.push(Note::new(
                f.at.clone(),
                "DiskSpd creates files only; a drive or volume is used as it is",
            ));
            file = 0;
        } else if f.value == 0 {
            refuse(
                problems,
                ImportErrorKind::BadValue,
                &f.at,
                place,
                "DiskSpd would create an empty file, with nothing to do I/O on",
                "give the file's size",
            );
        } else {
            said.push(format!("{} (line {}): DiskSpd (re)creates the file this size before the time span; here it is the span, the size of the scratch file (or of the part of --target used), which methodic does not write first.", f.at.said, f.at.line));
        }
    }
    if let Some(m) = t.max_size.as_ref().filter(|m| m.value > 0 && m.value <= base) {
        refuse(
            problems,
            ImportErrorKind::Conflict,
            &m.at,
            place,
            "DiskSpd refuses a maximum offset at or below the base offset",
            "give a maximum above the base (-B, <BaseFileOffset>)",
        );
    }
    let span = match (max, file) {
        (0, 0) => None,
        (0, f) => Some(f),
        (m, 0) => Some(m),
        (m, f) => Some(m.min(f)),
    };
    if let Some(s) = span.filter(|s| *s <= base) {
        let at = t.base.as_ref().map_or(&t.at, |b| &b.at);
        refuse(
            problems,
            ImportErrorKind::Conflict,
            at,
            place,
            format!("the base offset is at or past the end of the region ({})", bytes(s)),
            "give a base offset inside the file",
        );
    }
    (span, base)
}

/// `#N` (a physical drive) or `X:` (a volume).
pub(crate) fn is_drive(path: &str) -> bool {
    let b = path.as_bytes();
    path.starts_with('#') || (b.len() == 2 && b[0].is_ascii_alphabetic() && b[1] == b':')
}

/// The access pattern of a target.
struct Access {
    text: String,
    align: u64,
    /// `-si`: the threads share one stream: one worker at their depth.
    one_stream: bool,
}

/// The access pattern: random (`random`), or sequential with DiskSpd's threads as methodic can run them.
/// `room`: the region's length when the file states it.
fn access(
    t: &Target,
    block: u64,
    threads: u64,
    room: Option<u64>,
    place: &str,
    said: &mut Vec<String>,
    problems: &mut Vec<Problem>,
) -> Option<Access> {
    let interlocked = t.interlocked.as_ref().filter(|i| i.value);
    let stride_t = t.thread_stride.as_ref().filter(|s| s.value > 0);
    if t.random.is_some() || t.random_ratio.is_some() {
        return random(t, block, interlocked, stride_t, place, said, problems);
    }
    if let Some(d) = &t.distribution {
        refuse(
            problems,
            ImportErrorKind::Conflict,
            &d.at,
            place,
            "DiskSpd refuses random distribution ranges (-rd) on sequential I/O",
            "add -r, or remove the distribution",
        );
        return None;
    }
    if let Some(s) = t.stride.as_ref().filter(|s| s.value != 0 && s.value != block) {
        refuse(
            problems,
            ImportErrorKind::Untranslatable,
            &s.at,
            place,
            format!(
                "a sequential stride of {} with blocks of {} leaves gaps or overlaps; methodic's sequential I/O is contiguous",
                bytes(s.value),
                bytes(block)
            ),
            "stride by the block size (-s with no value)",
        );
        return None;
    }
    if let Some(i) = interlocked {
        if stride_t.is_some() {
            refuse(
                problems,
                ImportErrorKind::Conflict,
                &i.at,
                place,
                "DiskSpd refuses -si with a thread stride (-T)",
                "give one of them",
            );
            return None;
        }
        if threads > 1 {
            said.push(format!("DiskSpd's {threads} threads share one sequential stream (-si): here one worker keeps all their I/Os in flight."));
        }
        return Some(Access { text: "sequential".into(), align: block, one_stream: true });
    }
    if let Some(ts) = stride_t {
        if threads == 1 {
            refuse(
                problems,
                ImportErrorKind::Conflict,
                &ts.at,
                place,
                "DiskSpd refuses a thread stride (-T) with one thread",
                "remove it",
            );
            return None;
        }
        return stripes(ts, block, threads, room, place, said, problems);
    }
    if threads > 1 {
        refuse(
            problems,
            ImportErrorKind::Untranslatable,
            &t.at,
            place,
            format!(
                "DiskSpd's {threads} threads each walk the same offsets from the start of the target (DiskSpd itself warns the pattern is not sequential); methodic's workers each walk a stripe of their own"
            ),
            "share one stream with -si (<InterlockedSequential>), or use one thread",
        );
        return None;
    }
    Some(Access { text: "sequential".into(), align: block, one_stream: false })
}

/// `-T` on sequential I/O: thread i starts at i times the stride and walks
/// on to the end of the region, then from its start
/// (`ThreadTargetState::NextRelativeSeqOffset`, Common.h at
/// microsoft/diskspd@c361eed). When the stride times the threads is the
/// region, the threads stay a stride apart, and the offsets in flight at
/// any moment are those of methodic's workers each walking a stripe of
/// that length: the same I/O, but for which thread issues which.
fn stripes(
    ts: &Set<u64>,
    block: u64,
    threads: u64,
    room: Option<u64>,
    place: &str,
    said: &mut Vec<String>,
    problems: &mut Vec<Problem>,
) -> Option<Access> {
    let why = match room {
        Some(r) if ts.value.checked_mul(threads) == Some(r) && ts.value.is_multiple_of(block) => {
            said.push(format!(
                "{} (line {}): DiskSpd's {threads} threads start a stride of {} apart and each walks on over the \
                 others' part; they stay that far apart, so the offsets in flight are those of {threads} \
                 workers each walking a stripe of {} here, which is what methodic's workers do.",
                ts.at.said,
                ts.at.line,
                bytes(ts.value),
                bytes(ts.value)
            ));
            return Some(Access { text: "sequential".into(), align: block, one_stream: false });
        }
        Some(r) if ts.value.checked_mul(threads) == Some(r) => {
            format!("a thread stride of {} is not a whole number of blocks of {}", bytes(ts.value), bytes(block))
        }
        Some(r) => format!(
            "{threads} threads a stride of {} apart cover {} of a region of {}: each walks on over the others' part, \
             which methodic's workers, each on a stripe of its own, only match when the stride times the threads \
             is the region",
            bytes(ts.value),
            bytes(ts.value.saturating_mul(threads)),
            bytes(r)
        ),
        None => "each DiskSpd thread walks the whole region from its own start (-T); methodic's workers each walk \
                 a stripe of their own, the same only when the stride times the threads is the region, and this \
                 target's region is not stated"
            .to_string(),
    };
    refuse(
        problems,
        ImportErrorKind::Untranslatable,
        &ts.at,
        place,
        why,
        "give a stride of the region divided by the threads (with the region stated by -c, -f or -B base:length), \
         -si for one shared stream, or one thread",
    );
    None
}

/// `-r`, `-rs` and `-rd` (random, mixed, distributed).
fn random(
    t: &Target,
    block: u64,
    interlocked: Option<&Set<bool>>,
    stride_t: Option<&Set<u64>>,
    place: &str,
    said: &mut Vec<String>,
    problems: &mut Vec<Problem>,
) -> Option<Access> {
    let at = t.random.as_ref().map_or_else(|| &t.random_ratio.as_ref().expect("one").at, |r| &r.at);
    for (set, what) in [
        (t.stride.as_ref().map(|s| &s.at), "sequential I/O (-s, <StrideSize>)"),
        (interlocked.map(|i| &i.at), "an interlocked sequential stream (-si)"),
        (stride_t.map(|s| &s.at), "a thread stride (-T)"),
    ] {
        if let Some(other) = set {
            refuse(
                problems,
                ImportErrorKind::Conflict,
                other,
                place,
                format!("DiskSpd refuses {what} with random I/O ({})", at.said),
                "give one access pattern",
            );
        }
    }
    let align = match or(&t.random, 0) {
        0 => block,
        a => a,
    };
    let ratio = or(&t.random_ratio, 100);
    let mut text = if ratio == 100 { "random".to_string() } else { format!("random {ratio}%") };
    if ratio < 100 {
        if align != block {
            refuse(
                problems,
                ImportErrorKind::Untranslatable,
                at,
                place,
                format!(
                    "DiskSpd's sequential runs after a random I/O step by the alignment ({}), not the block size ({}): they overlap or leave gaps, which methodic's streams do not",
                    bytes(align),
                    bytes(block)
                ),
                "align random I/O to the block size (-r with no value)",
            );
        }
        said.push("DiskSpd's sequential I/Os (-rs) run on from each random I/O and keep its read or write; methodic's continue each worker's own stream and draw read or write for each I/O: the same shares, another locality.".into());
    }
    if let Some(d) = &t.distribution {
        text.push_str(&bands(d, place, problems)?);
    }
    Some(Access { text, align, one_stream: false })
}

/// `-rdpct` as bands, with the tail DiskSpd adds; `-rdabs` refused.
fn bands(d: &Set<Distribution>, place: &str, problems: &mut Vec<Problem>) -> Option<String> {
    let ranges = match &d.value {
        Distribution::Absolute => {
            refuse(
                problems,
                ImportErrorKind::Untranslatable,
                &d.at,
                place,
                "ranges in bytes (-rdabs), which DiskSpd cuts to the target and shares out again over what is left: methodic's bands are shares of the span",
                "give the ranges as shares of the target (-rdpct, <Percent>)",
            );
            return None;
        }
        Distribution::Percent(r) => r.clone(),
    };
    let mut io = 0;
    let mut span = 0;
    let mut out = Vec::new();
    for (i, s) in &ranges {
        io += i;
        span += s;
        if io > 100 || span > 100 {
            refuse(
                problems,
                ImportErrorKind::Syntax,
                &d.at,
                place,
                "DiskSpd refuses ranges whose IO or target shares add up to more than 100%",
                "make each add up to 100 or less",
            );
            return None;
        }
        if span == 100 && io < 100 {
            refuse(
                problems,
                ImportErrorKind::Syntax,
                &d.at,
                place,
                format!(
                    "DiskSpd refuses a distribution that covers the target with {}% of the I/O left",
                    100 - io
                ),
                "give the rest of the I/O a range",
            );
            return None;
        }
        out.push(format!("{i}% in {s}%"));
    }
    if io < 100 || span < 100 {
        if io == 100 {
            refuse(
                problems,
                ImportErrorKind::Syntax,
                &d.at,
                place,
                "DiskSpd refuses a distribution whose target shares do not add up to 100% once the I/O is used up",
                "give the rest of the target a range of 0% I/O",
            );
            return None;
        }
        out.push(format!("{}% in {}%", 100 - io, 100 - span));
    }
    Some(format!(" bands {}", out.join(", ")))
}

/// What writes carry.
#[allow(clippy::too_many_arguments)]
fn data(
    s: &TimeSpan,
    t: &Target,
    write: u64,
    block: u64,
    place: &str,
    notes: &mut Vec<Note>,
    said: &mut Vec<String>,
    warnings: &mut Vec<String>,
    problems: &mut Vec<Problem>,
) -> Option<&'static str> {
    let zr = s.random_write_data.as_ref().filter(|z| z.value);
    let pattern = t.pattern.as_ref();
    if write == 0 {
        if let Some(p) = pattern {
            notes.push(Note::new(p.at.clone(), "what DiskSpd writes; this target only reads"));
        }
        return None;
    }
    match pattern.map(|p| p.value) {
        Some(Pattern::Zero) => Some("zeros"),
        Some(Pattern::RandomBuffer(n)) => {
            let p = pattern.expect("some");
            if n < block {
                refuse(
                    problems,
                    ImportErrorKind::Conflict,
                    &p.at,
                    place,
                    "DiskSpd refuses a random buffer smaller than the block size",
                    "give a buffer at least one block large",
                );
            }
            said.push(format!("{} (line {}): DiskSpd cuts each write from one {} buffer of random bytes (blocks repeat when it is small); methodic writes fresh random bytes in every write (data random).", p.at.said, p.at.line, bytes(n)));
            Some("random")
        }
        _ if zr.is_some() => Some("random"),
        _ => {
            let w = "DiskSpd writes its default pattern (the bytes 0 to 255 repeated: the same block every time, which compresses and deduplicates to nothing); imported as `data random`, so a drive that compresses or deduplicates does more work here than under DiskSpd (-Zr makes DiskSpd write random data too)";
            said.push(format!("{w}."));
            warnings.push(w.to_string());
            Some("random")
        }
    }
}

/// `-g`: DiskSpd's cap for each thread, in bytes a millisecond or IOPS,
/// as the rate of all the threads.
#[allow(clippy::too_many_arguments)]
fn rate(
    s: &TimeSpan,
    t: &Target,
    block: u64,
    threads: u64,
    place: &str,
    said: &mut Vec<String>,
    warnings: &mut Vec<String>,
    problems: &mut Vec<Problem>,
) -> Option<String> {
    let g = t.throughput.as_ref().filter(|g| g.value.amount > 0)?;
    if s.completion_routines.as_ref().is_some_and(|c| c.value) {
        refuse(
            problems,
            ImportErrorKind::Conflict,
            &g.at,
            place,
            "DiskSpd refuses a throughput limit with completion routines (-x)",
            "remove one of them",
        );
        return None;
    }
    if or(&s.thread_count, 0) > 0 && or(&s.request_count, 0) > 0 {
        refuse(
            problems,
            ImportErrorKind::Conflict,
            &g.at,
            place,
            "DiskSpd refuses a throughput limit with -F and -O",
            "remove one of them",
        );
        return None;
    }
    let n = g.value.amount;
    let rate = if g.value.iops {
        // Common.h:1534-1538: (IOPS x block) / 1000 in 32 bits.
        let product = n.saturating_mul(block);
        if product >= 1 << 32 {
            let wrapped = (product % (1 << 32)) / 1000;
            refuse(
                problems,
                ImportErrorKind::BadValue,
                &g.at,
                place,
                format!(
                    "DiskSpd computes {n} I/Os a second times {block} bytes in 32 bits, which wraps: it would cap at {wrapped} bytes a millisecond, not {n} I/Os a second"
                ),
                "give the cap in bytes a millisecond (-g without i)",
            );
            return None;
        }
        let bpms = product / 1000;
        if bpms == 0 {
            refuse(
                problems,
                ImportErrorKind::BadValue,
                &g.at,
                place,
                format!(
                    "DiskSpd turns {n} I/Os a second of {block} bytes into 0 bytes a millisecond, which it reads as no limit at all"
                ),
                "remove the limit, or give a larger one",
            );
            return None;
        }
        if product % 1000 == 0 {
            format!("{} iops", n * threads)
        } else {
            said.push(format!("DiskSpd turns {n} I/Os a second into {bpms} bytes a millisecond a thread (rounded down), the rate kept here."));
            format!("{}KB/s", bpms * threads)
        }
    } else {
        format!("{}KB/s", n * threads)
    };
    let w = "DiskSpd caps each thread's I/O (a closed loop that catches up after a stall, latency timed from issue); methodic starts I/Os at the rate (an open loop, latency timed from when each I/O was due)";
    said.push(format!("{w}; the rate is DiskSpd's cap for each of the {threads} threads, in all."));
    warnings.push(w.to_string());
    Some(rate)
}

/// `-i` and `-j`: `think P every N`, the burst split over the threads.
fn think(
    t: &Target,
    threads: u64,
    one_stream: bool,
    rated: bool,
    place: &str,
    notes: &mut Vec<Note>,
    problems: &mut Vec<Problem>,
) -> Option<String> {
    let (i, j) = match (&t.burst, &t.think) {
        (None, None) => return None,
        (Some(i), Some(j)) if i.value > 0 && j.value > 0 => (i, j),
        (Some(x), _) | (_, Some(x)) => {
            refuse(
                problems,
                ImportErrorKind::Conflict,
                &x.at,
                place,
                "DiskSpd needs both a burst size (-i) and a think time (-j), each above 0",
                "give both, or neither",
            );
            return None;
        }
    };
    if rated {
        notes.push(Note::new(
            j.at.clone(),
            "DiskSpd ignores think time when a throughput limit (-g) is given",
        ));
        return None;
    }
    if one_stream {
        refuse(
            problems,
            ImportErrorKind::Untranslatable,
            &j.at,
            place,
            "each DiskSpd thread pauses on its own, but here its threads are one stream (-si) on one worker",
            "remove -i and -j, or -si",
        );
        return None;
    }
    let every = (i.value / threads).max(1);
    Some(format!("think {}ms every {every}", j.value))
}
