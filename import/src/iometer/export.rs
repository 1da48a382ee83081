//! A plan to Iometer 1.1.0 configuration files: `methodic export iometer`.
//!
//! An .icf file holds one test setup (one run time, one ramp, one test
//! type) and one set of workers, each with its queue depth and target; the
//! specifications a worker is assigned run one after another, all workers
//! at once (iometer-org/iometer @ 7243b4d, `src/GalileoView.cpp:1108-1129`).
//! So consecutive steps go into one file when they share the run time,
//! ramp and workers (the same depth, device, span and data on each), each
//! step a specification index; a sweep whose queue depths are a sequence
//! Iometer's `CycleQueue` makes (`1, 2, 4, ... 32`: start, end, step,
//! LINEAR or EXPONENTIAL) is a CYCLE_OUTSTANDING_IOS file of its own; and
//! every other step starts a new file. A step's workers are Iometer's disk
//! workers: a measurement's workers round robin over the target's devices,
//! a together step's jobs each with their workers on their device, each at
//! its queue depth per worker (Iometer counts outstanding I/Os per worker
//! and target). The span and offset are a disk size and starting sector
//! in 512-byte sectors; `think P every N` a delay of P milliseconds before
//! each burst of N.
//!
//! What Iometer cannot run (erase, fill, preconditions, rounds, copies,
//! probes, QoS searches, drop_caches, limit_ram, open-loop rates, timed
//! bursts, access distributions, trims, buffered I/O, compressible data,
//! shares of a hundredth, pauses that are not whole milliseconds, a span
//! that is a share of a drive other than 100%) is left out, step by step,
//! with a warning and a line in the next file's test description: an .icf
//! file has no comments (`ICF_ifstream::GetPair` reads every `'` line).

use methodic_compiler::plan::{
    Action, DataPattern, Duration, Extent, IoMode, Pauses, Percent, Plan, Step, Target, Workload,
};

use super::icf::{IcfRun, IcfSpec, IcfWorker, icf_text};
use super::model::{Cycling, TestType};
use super::setup::{MAX_RUN, cycle};
use super::workloads::SECTOR;

/// One .icf file: its name, its text, and the plan's steps it runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IcfFile {
    /// `NAME-VERSION-01.icf`.
    pub name: String,
    /// The text, with CRLF line ends, as Iometer 1.1.0 writes it.
    pub text: String,
    /// The ids of the plan's steps it runs, in order.
    pub steps: Vec<String>,
}

/// What `methodic export iometer` writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exported {
    pub files: Vec<IcfFile>,
    /// `run-iometer.cmd`: the files in Iometer's batch mode, one after
    /// another (`IOmeter.exe /c FILE.icf /r FILE.csv`).
    pub batch: String,
    /// What Iometer cannot do as the plan says, each left out or changed.
    pub warnings: Vec<String>,
}

/// Iometer's largest transfer size (1023 MiB + 1023 KiB + 1023 B, the
/// spinners of `CAccessDialog`, `src/AccessDialog.h:100`).
const MAX_SIZE: u64 = 1_073_741_823;

/// A worker of one step: where and how deep, and its specification.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Seat {
    qd: u64,
    device: u32,
    max_size: u64,
    start: u64,
    pattern: u64,
}

/// One step as Iometer runs it: its length, its workers and what each runs.
#[derive(Debug, Clone)]
struct Slot {
    id: String,
    run: u64,
    ramp: u64,
    seats: Vec<Seat>,
    /// A specification a seat (`None`: Idle).
    specs: Vec<Option<IcfSpec>>,
    /// The sweep the step belongs to.
    sweep: Option<u32>,
}

/// The plan as .icf files, or why none can be made. `targets` names
/// Iometer's disk target for each device (`1:` for physical disk 1 in
/// Iometer 1.1.0 on Windows, `sdb` for Linux Dynamo); without them the
/// files leave the target assignments out.
pub fn plan_to_icf(plan: &Plan, targets: &[String]) -> Result<Exported, String> {
    let mut warnings = Vec::new();
    let mut skipped: Vec<String> = Vec::new();
    let mut slots: Vec<(Slot, Vec<String>)> = Vec::new();
    for step in &plan.steps {
        match slot(step, &mut warnings) {
            Ok(s) => slots.push((s, std::mem::take(&mut skipped))),
            Err(why) => {
                warnings.push(format!("step {} is left out: {why}", step.id));
                skipped.push(format!("{} ({})", step.id, step.action.kind()));
            }
        }
    }
    if slots.is_empty() {
        return Err(format!(
            "no step of {} is one Iometer can run{}",
            plan.methodology.name,
            if warnings.is_empty() { String::new() } else { format!(":\n  {}", warnings.join("\n  ")) }
        ));
    }
    let devices = slots.iter().flat_map(|(s, _)| &s.seats).map(|s| s.device + 1).max().unwrap_or(1) as usize;
    if !targets.is_empty() && targets.len() < devices {
        return Err(format!(
            "the plan runs on {devices} devices and {} Iometer target{} given: give --iometer-target once for each device",
            targets.len(),
            if targets.len() == 1 { " is" } else { "s are" }
        ));
    }
    if targets.is_empty() {
        warnings.push(
            "no --iometer-target: the files assign no disk to the workers; pick them in Iometer's Disk Targets \
             tab before a run (a batch run, /c, would run nothing)"
                .to_string(),
        );
    }
    let runs = group(slots, targets);
    let count = runs.len();
    let stem = format!("{}-{}", file_name(&plan.methodology.name), file_name(&plan.methodology.version));
    let origin = format!("methodic {} {}", plan.methodology.name, plan.methodology.version);
    let mut files = Vec::new();
    let mut batch = String::new();
    for (i, (mut run, steps)) in runs.into_iter().enumerate() {
        let name = format!("{stem}-{:02}", i + 1);
        let after = if i + 1 == count { skipped.join(" ") } else { String::new() };
        run.description = description(&origin, &steps, &run.description, &after);
        batch.push_str(&format!("IOmeter.exe /c {name}.icf /r {name}.csv\r\n"));
        files.push(IcfFile { name: format!("{name}.icf"), text: icf_text(&run), steps });
    }
    Ok(Exported { files, batch, warnings })
}

/// A name for a file: letters, digits, `-`, `_` and `.`.
fn file_name(s: &str) -> String {
    s.chars().map(|c| if c.is_ascii_alphanumeric() || "-_.".contains(c) { c } else { '-' }).collect()
}

/// The test description: what made the file, its steps, and what was
/// left out before them; ASCII, no commas (the GUI turns them into `-`),
/// under 190 characters.
fn description(origin: &str, steps: &[String], before: &str, after: &str) -> String {
    let mut d = format!("{origin}: {}", steps.join(" "));
    if !before.is_empty() {
        d.push_str(&format!("; not in Iometer; run before: {before}"));
    }
    if !after.is_empty() {
        d.push_str(&format!("; not in Iometer; run after: {after}"));
    }
    let mut d: String = d
        .chars()
        .map(|c| {
            if c == ',' {
                ';'
            } else if c.is_ascii() && !c.is_control() {
                c
            } else {
                '_'
            }
        })
        .collect();
    if d.len() > 190 {
        d.truncate(187);
        d.push_str("...");
    }
    d.trim_start_matches('\'').to_string()
}

/// Whole seconds of a duration, or why not.
fn seconds(d: Duration, what: &str) -> Result<u64, String> {
    let ms = d.as_millis();
    if !ms.is_multiple_of(1000) {
        return Err(format!("a {what} of {d}: Iometer counts whole seconds"));
    }
    if ms / 1000 > MAX_RUN {
        return Err(format!("a {what} of {d}: Iometer's longest is 596 hours"));
    }
    Ok(ms / 1000)
}

/// A step as Iometer runs it, or why it cannot.
fn slot(step: &Step, warnings: &mut Vec<String>) -> Result<Slot, String> {
    let id = step.id.clone();
    match &step.action {
        Action::Measure { workload, qd, ramp, stop, rate, pauses, at, .. } => {
            if rate.is_some() {
                return Err("an open-loop rate: Iometer keeps its queues full".into());
            }
            if at.is_some() {
                return Err("an operating point chosen from results: Iometer runs a fixed depth".into());
            }
            let record = timed(stop)?;
            let target = step.target.unwrap_or_default();
            let spec = spec(workload, pauses, &id, warnings)?;
            let mut seats = Vec::new();
            for k in 0..qd.workers {
                seats.push(seat(&target, workload, qd.per_worker, k % target.devices.max(1), warnings)?);
            }
            let specs = vec![Some(spec); seats.len()];
            Ok(Slot {
                id,
                run: seconds(record, "run time")?,
                ramp: seconds(*ramp, "ramp")?,
                seats,
                specs,
                sweep: step.sweep,
            })
        }
        Action::Together { jobs, ramp, stop, .. } => {
            let record = timed(stop)?;
            let target = step.target.unwrap_or_default();
            let (mut seats, mut specs) = (Vec::new(), Vec::new());
            for j in jobs {
                if j.rate.is_some() {
                    return Err(format!(
                        "job {} has an open-loop rate: Iometer keeps its queues full",
                        j.name
                    ));
                }
                let s = spec(&j.workload, &j.pauses, &id, warnings)?;
                for _ in 0..j.qd.workers {
                    seats.push(seat(&target, &j.workload, j.qd.per_worker, j.device, warnings)?);
                    specs.push(Some(s.clone()));
                }
            }
            Ok(Slot {
                id,
                run: seconds(record, "run time")?,
                ramp: seconds(*ramp, "ramp")?,
                seats,
                specs,
                sweep: None,
            })
        }
        Action::Idle { time } => Ok(Slot {
            id,
            run: seconds(*time, "idle time")?,
            ramp: 0,
            seats: vec![Seat { qd: 1, device: 0, max_size: 0, start: 0, pattern: 2 }],
            specs: vec![None],
            sweep: None,
        }),
        other => Err(format!("Iometer has no {} step", other.kind())),
    }
}

/// The record time of a measurement that stops after a time.
fn timed(stop: &methodic_compiler::plan::MeasureStop) -> Result<Duration, String> {
    match (stop.time, stop.amount()) {
        (Some(t), None) => Ok(t),
        (_, Some((_, false))) => {
            Err("it stops after bytes written: an Iometer run stops after a time".into())
        }
        _ => Err("it stops after bytes read and written: an Iometer run stops after a time".into()),
    }
}

/// A worker's settings from the step's target, or why Iometer cannot.
fn seat(
    target: &Target,
    w: &Workload,
    qd: u32,
    device: u32,
    warnings: &mut Vec<String>,
) -> Result<Seat, String> {
    if target.io == IoMode::Buffered {
        return Err("io buffered: Iometer's I/O is always unbuffered".into());
    }
    let pattern = match target.data {
        DataPattern::Random => 2,
        DataPattern::Zeros => {
            if w.writes() {
                let text = "data zeros is Iometer's data pattern 0, each write one random byte repeated: as \
                            compressible, but not zeros"
                    .to_string();
                if !warnings.contains(&text) {
                    warnings.push(text);
                }
            }
            0
        }
        DataPattern::Compressible(p) => {
            return Err(format!("data compressible {p}: Iometer has no such pattern"));
        }
    };
    let start = w.offset.0 / SECTOR;
    let max_size = match target.span {
        Extent::Percent(p) if p == Percent::HUNDRED => 0,
        Extent::Percent(p) => {
            return Err(format!("a span of {p}: Iometer's disk size is in sectors, not a share"));
        }
        Extent::Bytes(b) if b.0 > w.offset.0 => (b.0 - w.offset.0) / SECTOR,
        Extent::Bytes(b) => return Err(format!("an offset of {} past a span of {b}", w.offset)),
    };
    Ok(Seat { qd: qd as u64, device, max_size, start, pattern })
}

/// A workload and its pauses as an access specification, or why not.
fn spec(w: &Workload, pauses: &Pauses, id: &str, warnings: &mut Vec<String>) -> Result<IcfSpec, String> {
    if !w.access.is_uniform() {
        return Err(format!("random {}: Iometer's random offsets are uniform", w.access));
    }
    if w.trim > Percent::ZERO {
        return Err("trims: Iometer reads and writes".into());
    }
    if pauses.bursts.is_some() {
        return Err("timed bursts: Iometer pauses by I/O count (delay and burst)".into());
    }
    let (delay, burst) = match pauses.think {
        None => (0, 1),
        Some(t) if t.pause_ns % 1_000_000 == 0 && t.pause_ns > 0 => (t.pause_ns / 1_000_000, t.every as u64),
        Some(_) => {
            return Err(
                "a think time that is not whole milliseconds: Iometer's delay is in milliseconds".into()
            );
        }
    };
    let whole = |p: Percent| p.hundredths().is_multiple_of(100).then_some(p.hundredths() as u64 / 100);
    let (Some(read), Some(random)) = (whole(w.read), whole(w.random)) else {
        return Err("a read or random share of a hundredth: Iometer takes whole percent".into());
    };
    // With the writes' own sizes, each line reads or writes only: the
    // reads' lines at their share of the read share, 100% reads, then the
    // writes' at theirs of the rest, 0% reads (an Iometer line has its own
    // read share).
    let sides: Vec<(&[methodic_compiler::plan::BlockShare], Percent, u64)> = match &w.write_blocks {
        None => vec![(&w.blocks, Percent::HUNDRED, read)],
        Some(writes) => vec![
            (&w.blocks, w.read, 100),
            (writes, Percent::from_hundredths(10_000 - w.read.hundredths()), 0),
        ],
    };
    let mut lines = Vec::new();
    for (b, part, read) in
        sides.iter().flat_map(|(split, part, read)| split.iter().map(move |b| (b, *part, *read)))
    {
        let Some(share) = whole(b.share.times_percent(part)) else {
            return Err(format!("a block share of {} of {}: Iometer takes whole percent", b.share, part));
        };
        if b.size.0 > MAX_SIZE || b.size.0 % SECTOR != 0 {
            return Err(format!(
                "a block of {}: Iometer's sizes go to 1GiB less 1 byte, in sectors here",
                b.size
            ));
        }
        lines.push([b.size.0, share, read, random, delay, burst, w.align.0, 0]);
    }
    if lines.len() > 99 {
        return Err("more than 99 block sizes".into());
    }
    if random > 0 && random < 100 {
        warnings.push(format!(
            "{id}: {random}% random: Iometer's sequential I/Os continue after the previous I/O, random or not; \
             methodic's continue each worker's own stream"
        ));
    }
    if random < 100 && w.blocks.iter().any(|b| b.size.0 % w.align.0.max(1) != 0) {
        warnings.push(format!("{id}: Iometer aligns sequential I/O to {} too, leaving gaps", w.align));
    }
    if !w.offset.0.is_multiple_of(w.align.0.max(1)) {
        warnings.push(format!(
            "{id}: Iometer aligns offsets from the start of the disk, not from the offset {}",
            w.offset
        ));
    }
    let think = if delay > 0 { format!(" think {delay}ms x{burst}") } else { String::new() };
    Ok(IcfSpec { name: spec_name(&format!("{}{think}", w.name)), lines })
}

/// A name Iometer reads back as written: its token characters only (no
/// `,`, `|`, TAB or non-ASCII; `ICF_ifstream::ExtractFirstToken`), not
/// starting with `'`, at most 128 characters, and not `Idle`.
fn spec_name(name: &str) -> String {
    const OTHER: &str = "`~!@#$%^&*()-_=+[]{}\\:;\"'./<>? ";
    let mut out: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || OTHER.contains(c) { c } else { '_' })
        .take(120)
        .collect();
    out = out.trim().trim_start_matches('\'').to_string();
    if out.is_empty() || out.eq_ignore_ascii_case("Idle") {
        out = format!("spec {out}");
    }
    out
}

/// Slots into files: a sweep Iometer cycles as its own file, and
/// consecutive slots of one length and one set of workers together.
fn group(slots: Vec<(Slot, Vec<String>)>, targets: &[String]) -> Vec<(IcfRun, Vec<String>)> {
    let mut out: Vec<(IcfRun, Vec<String>, Vec<Seat>)> = Vec::new();
    let mut i = 0;
    let mut last_cycle = false;
    while i < slots.len() {
        let (s, skipped) = &slots[i];
        let skipped = skipped.join(" ");
        if let Some(n) = cycled(&slots[i..]) {
            let seats: Vec<Seat> = s.seats.iter().map(|x| Seat { qd: 1, ..x.clone() }).collect();
            let qds: Vec<u64> = slots[i..i + n].iter().map(|(s, _)| s.seats[0].qd).collect();
            let queue = queue_cycling(&qds).unwrap_or(Cycling {
                start: 1,
                end: Some(32),
                step: 2,
                exponential: true,
            });
            let mut run = new_run(s, &seats, targets, TestType::CycleOutstandingIos, queue, skipped);
            add(&mut run, s);
            let ids = slots[i..i + n].iter().map(|(s, _)| s.id.clone()).collect();
            out.push((run, ids, seats));
            i += n;
            last_cycle = true;
            continue;
        }
        let joins = !last_cycle
            && skipped.is_empty()
            && out
                .last()
                .is_some_and(|(r, _, seats)| r.run == s.run && r.ramp == s.ramp && *seats == s.seats);
        if joins {
            let (run, ids, _) = out.last_mut().expect("checked above");
            add(run, s);
            ids.push(s.id.clone());
        } else {
            let default = Cycling { start: 1, end: Some(32), step: 2, exponential: true };
            let mut run = new_run(s, &s.seats, targets, TestType::Normal, default, skipped);
            add(&mut run, s);
            out.push((run, vec![s.id.clone()], s.seats.clone()));
        }
        last_cycle = false;
        i += 1;
    }
    out.into_iter().map(|(r, ids, _)| (r, ids)).collect()
}

/// A file's run with `seats` as its workers and nothing assigned yet; the
/// description holds what was left out before it, until `plan_to_icf`
/// writes the whole description.
fn new_run(
    s: &Slot,
    seats: &[Seat],
    targets: &[String],
    test_type: TestType,
    queue: Cycling,
    skipped: String,
) -> IcfRun {
    IcfRun {
        description: skipped,
        run: s.run,
        ramp: s.ramp,
        test_type,
        queue,
        specs: Vec::new(),
        workers: seats
            .iter()
            .map(|x| IcfWorker {
                qd: x.qd,
                max_size: x.max_size,
                start: x.start,
                pattern: x.pattern,
                specs: Vec::new(),
                target: targets.get(x.device as usize).cloned(),
            })
            .collect(),
    }
}

/// The slot's specifications assigned to the run's workers, at the next
/// index; each specification once in the file, renamed when two differ
/// under one name.
fn add(run: &mut IcfRun, s: &Slot) {
    for (w, spec) in run.workers.iter_mut().zip(&s.specs) {
        let Some(spec) = spec else {
            w.specs.push("Idle".to_string());
            continue;
        };
        let name = match run.specs.iter().find(|x| x.lines == spec.lines && x.name.starts_with(&spec.name)) {
            Some(x) => x.name.clone(),
            None => {
                let mut name = spec.name.clone();
                let mut n = 2;
                while run.specs.iter().any(|x| x.name.eq_ignore_ascii_case(&name)) {
                    name = format!("{} {n}", spec.name);
                    n += 1;
                }
                run.specs.push(IcfSpec { name: name.clone(), lines: spec.lines.clone() });
                name
            }
        };
        w.specs.push(name);
    }
}

/// How many slots from the first make a sweep Iometer cycles: two or more
/// of one sweep, one specification and one length, on the same workers
/// but for their depth, each worker at the same depth, in a sequence
/// Iometer's queue depth cycling makes. `None` otherwise.
fn cycled(slots: &[(Slot, Vec<String>)]) -> Option<usize> {
    let (first, _) = slots.first()?;
    let sweep = first.sweep?;
    let strip = |s: &Slot| s.seats.iter().map(|x| Seat { qd: 0, ..x.clone() }).collect::<Vec<_>>();
    let n = slots
        .iter()
        .take_while(|(s, skipped)| {
            s.sweep == Some(sweep)
                && (s.id == first.id || skipped.is_empty())
                && s.run == first.run
                && s.ramp == first.ramp
                && s.specs == first.specs
                && strip(s) == strip(first)
                && s.seats.iter().all(|x| x.qd == s.seats[0].qd)
        })
        .count();
    let qds: Vec<u64> = slots[..n].iter().map(|(s, _)| s.seats[0].qd).collect();
    (n >= 2 && queue_cycling(&qds).is_some()).then_some(n)
}

/// The queue depth cycling that makes `qds`, if one does.
fn queue_cycling(qds: &[u64]) -> Option<Cycling> {
    let (&start, &end) = (qds.first()?, qds.last()?);
    let second = *qds.get(1)?;
    let mut candidates = Vec::new();
    if second > start {
        candidates.push(Cycling { start, end: Some(end), step: second - start, exponential: false });
    }
    if second % start == 0 && second / start >= 2 {
        candidates.push(Cycling { start, end: Some(end), step: second / start, exponential: true });
    }
    candidates.into_iter().find(|c| cycle(c.start, end, c.step, c.exponential).as_deref() == Some(qds))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(src: &str) -> Plan {
        methodic_compiler::compile(src, &methodic_compiler::Options::default()).unwrap().plan
    }

    const HEAD: &str = "methodology \"t\" version \"1\"\nconventions { queue_depth per_worker }\n";

    #[test]
    fn sweeps_iometer_makes_are_cycled() {
        assert_eq!(
            queue_cycling(&[1, 2, 4, 8, 16, 32]),
            Some(Cycling { start: 1, end: Some(32), step: 2, exponential: true })
        );
        assert_eq!(
            queue_cycling(&[1, 3, 5]),
            Some(Cycling { start: 1, end: Some(5), step: 2, exponential: false })
        );
        assert_eq!(queue_cycling(&[1, 2, 3]).map(|c| c.step), Some(1));
        assert_eq!(queue_cycling(&[1, 4, 32]), None);
        let p = plan(&format!(
            "{HEAD}target {{ workers 2 }}\nworkload w {{ random; block 4KiB; read 100% }}\n\
             sweep w qd 1..32 step x2 ramp 5s record 30s\nmeasure w qd 4 for 30s ramp 5s\nmeasure w qd 4 for 30s ramp 5s think 2ms every 8\n"
        ));
        let e = plan_to_icf(&p, &["1:".into()]).unwrap();
        assert_eq!(e.files.len(), 2, "{:?}", e.files.iter().map(|f| &f.steps).collect::<Vec<_>>());
        assert!(e.files[0].text.contains("\tCYCLE_OUTSTANDING_IOS\r\n"));
        assert!(e.files[0].text.contains("\t1          32         2          EXPONENTIAL\r\n"));
        let second = &e.files[1].text;
        assert!(second.contains("\tw,NONE\r\n") && second.contains("\tw think 2ms x8,NONE\r\n"), "{second}");
        assert!(second.contains("\t4096,100,100,100,2,8,4096,0\r\n"));
        assert_eq!(second.matches("'Worker\r\n").count(), 2);
        assert!(second.contains("\t4,DISABLED,1,DISABLED,0\r\n"));
        assert_eq!(e.batch.lines().count(), 2);
    }

    #[test]
    fn what_iometer_cannot_run_is_left_out_and_said() {
        let p = plan(&format!(
            "{HEAD}workload w {{ random; block 4KiB; read 0% }}\nerase discard\nmeasure w qd 1 for 10s\n\
             measure w qd 1 rate 100 iops for 10s\n"
        ));
        let e = plan_to_icf(&p, &[]).unwrap();
        assert_eq!(e.files.len(), 1);
        assert!(e.warnings.iter().any(|w| w.contains("Iometer has no erase step")), "{:?}", e.warnings);
        assert!(e.warnings.iter().any(|w| w.contains("open-loop rate")));
        assert!(e.warnings.iter().any(|w| w.contains("--iometer-target")));
        assert!(e.files[0].text.contains("not in Iometer; run before: "), "{}", e.files[0].text);
        assert!(!e.files[0].text.contains("'Target assignments"));
        let p = plan(&format!("{HEAD}erase discard\n"));
        assert!(plan_to_icf(&p, &[]).is_err());
    }

    #[test]
    fn names_iometer_reads_back() {
        assert_eq!(spec_name("rnd4k, read|x"), "rnd4k_ read_x");
        assert_eq!(spec_name("Idle"), "spec Idle");
        assert_eq!(spec_name("'x"), "x");
    }
}
