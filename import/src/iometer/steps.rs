//! The manager list and test setup to the target settings and steps, as
//! Iometer runs a test (iometer-org/iometer @ 7243b4d,
//! `src/GalileoView.cpp:1108-1129, 2007-2036`): for each index of the
//! workers' assigned specifications in turn, every worker runs its
//! specification at that index at once, for the ramp and then the run
//! time; the test type's cycling runs inside (`CycleQueue`, lines
//! 1893-1942: a queue depth sweep on every worker; `CycleWorkers`, lines
//! 1667-1715: the first n workers; the types that hand targets to the
//! workers run by run as [`cycling`] steps them). Workers are methodic workers (one
//! target each, a device each distinct target), outstanding I/Os the queue
//! depth of each (`queue_depth per_worker`), the disk size and starting
//! sector the span and offset (in 512-byte sectors, said so), the data
//! pattern the data written. One manager, disk workers only.

use std::collections::HashSet;

use methodic_compiler::plan::{Bytes, Duration};

use super::cycling;
use super::model::{At, Cycling, Manager, Setup, TestType, Worker};
use super::setup::cycle;
use super::workloads::{SECTOR, Workload};
use crate::ImportErrorKind;
use crate::problem::Problem;
use methodic_grammar::ident;

/// Worker and disk cycling when the file gives none: one more each run.
const ONE_AT_A_TIME: Cycling = Cycling { start: 1, end: None, step: 1, exponential: false };

/// Queue depth cycling when the file gives none: Iometer's default.
const QUEUE_DEFAULT: Cycling = Cycling { start: 1, end: Some(32), step: 2, exponential: true };

/// The loop variable of a queue depth sweep written as a `for` loop; kept
/// from the workloads' names.
pub(super) const QD_VAR: &str = "iometer_qd";

/// What the manager list and test setup become.
#[derive(Debug, Clone, Default)]
pub(super) struct Run {
    /// `span 100%; workers 2; io direct; data random`.
    pub(super) target: String,
    pub(super) steps: Vec<StepText>,
    /// Comments for the top of the methodology.
    pub(super) notes: Vec<String>,
    pub(super) dropped: usize,
    /// Warnings for the command line.
    pub(super) warnings: Vec<String>,
    /// The devices, by the target names Iometer gave them.
    pub(super) devices: Vec<String>,
    /// Bytes every workload starts at (the starting sector).
    pub(super) offset: u64,
    /// Names of the specifications the steps run (lower case).
    pub(super) used: HashSet<String>,
}

/// A step, or a loop of them, with the comment above it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct StepText {
    pub(super) comment: String,
    pub(super) text: String,
}

/// A worker that runs: its name, its specifications in order (lower case,
/// `None` for Idle), its queue depth and its device.
struct Active<'a> {
    worker: &'a Worker,
    specs: Vec<Option<usize>>,
    qd: u64,
    device: usize,
    /// Which of the worker's targets, from 0.
    target: usize,
}

/// One worker's part of a run: which workload, at which depth, where.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Part {
    workload: usize,
    qd: u64,
    device: usize,
}

/// The problem of a worker.
fn worker_problem(kind: ImportErrorKind, w: &Worker, line: usize, detail: impl Into<String>) -> Problem {
    Problem::new(kind, line, detail).place(format!("worker \"{}\"", w.name))
}

/// The disk a target name is, as Iometer matches names: a name whose
/// second character is `:` by its first two (`1: "ATA ..."` is `1:`),
/// others whole; case-insensitively (`Worker::LoadConfigTargets`, lines
/// 2480-2503).
fn disk_key(name: &str) -> String {
    let lower = name.to_ascii_lowercase();
    if lower.as_bytes().get(1) == Some(&b':') { lower.chars().take(2).collect() } else { lower }
}

/// The steps of the one manager's workers, running `workloads`. `failed`
/// names (in lower case) the file's specifications that are refused
/// already: a worker's assignment of one is not named again.
pub(super) fn managers_to_run(
    managers: &[Manager],
    setup: Option<&Setup>,
    workloads: &[Workload],
    failed: &HashSet<String>,
) -> Result<Run, Vec<Problem>> {
    let mut problems = Vec::new();
    if let Some(second) = managers.get(1) {
        problems.push(
            Problem::new(
                ImportErrorKind::Untranslatable,
                second.line,
                format!(
                    "a second manager, \"{}\": Iometer runs the workers of each manager on its own host; a \
                     methodology runs on the targets of one",
                    second.name
                ),
            )
            .place("MANAGER LIST")
            .hint("keep one manager in the file; `methodic run --hosts` runs one methodology on many hosts"),
        );
    }
    let Some(manager) = managers.first() else { return Err(problems) };
    let (actives, devices, mut run) = actives(manager, workloads, failed, &mut problems);
    let setup_problem = |detail: &str, line: usize| {
        Problem::new(ImportErrorKind::BadValue, line, detail.to_string()).place("TEST SETUP")
    };
    let (record, ramp, test_type) = match setup {
        None => {
            problems.push(
                Problem::new(
                    ImportErrorKind::Untranslatable,
                    0,
                    "the file has a manager list but no TEST SETUP section: Iometer's run time is then 0, a test \
                     that runs until someone stops it",
                )
                .hint("save the file from Iometer with \"Test setup\" checked, with a run time"),
            );
            return Err(problems);
        }
        Some(s) => {
            let record = match &s.run {
                Some(At { value, .. }) if *value > 0 => Duration::from_secs(*value),
                Some(At { line, .. }) => {
                    problems.push(
                        setup_problem(
                            "a run time of 0: Iometer runs until someone presses Stop; a methodology's steps \
                             run for a time",
                            *line,
                        )
                        .option("'Run Time 0 0 0")
                        .hint("give the run time the test should have"),
                    );
                    Duration::ZERO
                }
                None => {
                    problems.push(
                        setup_problem(
                            "no 'Run Time: Iometer's run time is then 0, a test that runs until stopped",
                            s.line,
                        )
                        .hint("add 'Run Time with the hours, minutes and seconds of the test"),
                    );
                    Duration::ZERO
                }
            };
            let ramp = Duration::from_secs(s.ramp.as_ref().map_or(0, |r| r.value));
            (record, ramp, s.test_type.as_ref().map_or(At::new(TestType::Normal, s.line), |t| t.clone()))
        }
    };
    if actives.is_empty() && problems.is_empty() {
        problems.push(
            Problem::new(
                ImportErrorKind::Empty,
                manager.line,
                "no disk worker has a target and a specification: Iometer would run nothing",
            )
            .place(format!("manager \"{}\"", manager.name))
            .hint("assign each worker a disk target and an access specification, and save the file again"),
        );
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let setup = setup.expect("checked above");
    let shape =
        Shape { workloads, record, ramp, several_devices: devices.len() > 1, workers: actives.len() as u64 };
    run.steps = match steps(&shape, &actives, setup, test_type) {
        Ok(s) => s,
        Err(p) => return Err(vec![p]),
    };
    run.target = target(&actives, &mut run, workloads)?;
    run.devices = devices;
    for a in &actives {
        for s in a.specs.iter().flatten() {
            run.used.insert(workloads[*s].name.to_ascii_lowercase());
        }
    }
    Ok(run)
}

/// The workers that run, the devices, and what the others say.
fn actives<'a>(
    manager: &'a Manager,
    workloads: &[Workload],
    failed: &HashSet<String>,
    problems: &mut Vec<Problem>,
) -> (Vec<Active<'a>>, Vec<String>, Run) {
    let mut run = Run::default();
    let mut devices: Vec<String> = Vec::new();
    let mut keys: Vec<String> = Vec::new();
    let mut out = Vec::new();
    run.notes.push(format!(
        "Iometer manager \"{}\"{}: its workers are this methodology's workers.",
        manager.name,
        if manager.address.is_empty() { String::new() } else { format!(" ({})", manager.address) }
    ));
    for w in &manager.workers {
        if !usable(w, problems) {
            continue;
        }
        if w.targets.is_empty() {
            run.notes.push(format!("Worker \"{}\" has no target: Iometer does not run it.", w.name));
            continue;
        }
        let specs = assigned_specs(w, workloads, failed, problems);
        if specs.iter().all(Option::is_none) {
            run.notes
                .push(format!("Worker \"{}\" has no access specification: Iometer leaves it idle.", w.name));
            continue;
        }
        let qd = w.qd.as_ref().map_or(1, |q| q.value);
        if qd == 0 || qd > 65536 {
            let line = w.qd.as_ref().map_or(w.line, |q| q.line);
            problems.push(worker_problem(
                ImportErrorKind::BadValue,
                w,
                line,
                format!("{qd} outstanding I/Os: methodic keeps 1 to 65536 in flight"),
            ));
        }
        if w.targets.len() > 1 {
            run.notes.push(format!(
                "Worker \"{}\" has {} targets: Iometer's worker takes turns over them with {qd} outstanding \
                 I/Os on each; here each target has a worker of its own at that depth, so a faster target is \
                 not held to a slower one's pace, and a think time pauses each target's worker on its own.",
                w.name,
                w.targets.len()
            ));
        }
        if let Some(seed) = &w.fixed_seed {
            run.notes.push(format!(
                "Worker \"{}\" uses the fixed seed {} (line {}): not carried over; `methodic run --seed N` \
                 fixes methodic's own (the sequences differ anyway).",
                w.name, seed.value, seed.line
            ));
            run.dropped += 1;
        }
        for (index, target) in w.targets.iter().enumerate() {
            let key = disk_key(&target.value);
            let device = match keys.iter().position(|k| *k == key) {
                Some(d) => d,
                None => {
                    keys.push(key);
                    devices.push(target.value.clone());
                    devices.len() - 1
                }
            };
            out.push(Active { worker: w, specs: specs.clone(), qd, device, target: index });
        }
    }
    (out, devices, run)
}

/// Whether a worker can be methodic workers: a disk worker, without test
/// connection rate; the problems if not.
fn usable(w: &Worker, problems: &mut Vec<Problem>) -> bool {
    if !w.is_disk() {
        problems.push(
            worker_problem(
                ImportErrorKind::Untranslatable,
                w,
                w.kind.line,
                format!(
                    "a network worker ({}): it sends requests and replies to another worker over the \
                     network; methodic measures storage",
                    w.kind.value
                ),
            )
            .option(format!("'Worker type {}", w.kind.value))
            .hint("remove the network workers; methodic runs disk workers"),
        );
        return false;
    }
    if let Some(At { value: true, line }) = w.connection_rate {
        problems.push(
            worker_problem(
                ImportErrorKind::Untranslatable,
                w,
                line,
                "test connection rate: Iometer closes and opens the target again every so many I/Os and \
                 times it; methodic keeps its targets open",
            )
            .hint("set test connection rate to DISABLED"),
        );
    }
    true
}

/// A worker's assigned specifications, by index into `workloads` (`None`
/// for Idle, or for a specification refused already).
fn assigned_specs(
    w: &Worker,
    workloads: &[Workload],
    failed: &HashSet<String>,
    problems: &mut Vec<Problem>,
) -> Vec<Option<usize>> {
    let mut specs = Vec::new();
    for s in &w.specs {
        if s.value.eq_ignore_ascii_case("Idle") {
            specs.push(None);
            continue;
        }
        match workloads.iter().position(|wl| wl.name.eq_ignore_ascii_case(&s.value)) {
            Some(i) => specs.push(Some(i)),
            None if failed.contains(&s.value.to_ascii_lowercase()) => specs.push(None),
            None => problems.push(
                worker_problem(
                    ImportErrorKind::BadValue,
                    w,
                    s.line,
                    format!("no access specification is named \"{}\" in the file: Iometer skips it", s.value),
                )
                .hint("add the specification to the file's ACCESS SPECIFICATIONS, or remove the assignment"),
            ),
        }
    }
    specs
}

/// The test's lengths and the shape of its workers, which every step shares.
struct Shape<'a> {
    workloads: &'a [Workload],
    record: Duration,
    ramp: Duration,
    several_devices: bool,
    /// The workers that run, the target's `workers`.
    workers: u64,
}

/// The steps: for each specification index, the test type's runs.
fn steps(
    shape: &Shape<'_>,
    actives: &[Active<'_>],
    setup: &Setup,
    test_type: At<TestType>,
) -> Result<Vec<StepText>, Problem> {
    let last = actives.iter().map(|a| a.specs.len()).max().unwrap_or(0);
    let type_problem = |detail: String| {
        Problem::new(ImportErrorKind::Untranslatable, test_type.line, detail)
            .place("TEST SETUP")
            .option(format!("'Test Type {}", test_type.value.word()))
    };
    let mut out = Vec::new();
    for index in 0..last {
        let parts: Vec<(&Active<'_>, Part)> = actives
            .iter()
            .filter_map(|a| {
                let w = (*a.specs.get(index)?)?;
                Some((a, Part { workload: w, qd: a.qd, device: a.device }))
            })
            .collect();
        let mut said: Vec<String> = Vec::new();
        for (a, p) in &parts {
            // A worker of several targets runs its specification on each: said once.
            let s = format!("\"{}\" runs \"{}\"", a.worker.name, shape.workloads[p.workload].name);
            if !said.contains(&s) {
                said.push(s);
            }
        }
        let what = said.join(", ");
        if parts.is_empty() {
            out.push(StepText {
                comment: format!(
                    "Specification {} of each worker: all idle (Idle), for the ramp and the run time.",
                    index + 1
                ),
                text: format!("idle {}", shape.ramp.saturating_add(shape.record)),
            });
            continue;
        }
        let comment = format!("Specification {} of each worker: {what}.", index + 1);
        match test_type.value {
            TestType::Normal => out.push(StepText { comment, text: step(shape, &parts, None) }),
            TestType::CycleOutstandingIos => {
                let list = queue_list(setup).map_err(type_problem)?;
                let comment = format!(
                    "{comment} CYCLE_OUTSTANDING_IOS: each run at queue depths {} on every worker.",
                    list.iter().map(u64::to_string).collect::<Vec<_>>().join(", ")
                );
                out.push(StepText { comment, text: sweep(shape, &parts, &list) });
            }
            other => {
                if other == TestType::CycleOutstandingIosAndTargets {
                    queue_list(setup).map_err(type_problem)?;
                }
                out.push(stepped(shape, &parts, setup, other, comment).map_err(type_problem)?);
            }
        }
    }
    Ok(out)
}

/// The queue depths a CYCLE_OUTSTANDING_IOS test runs, or why there are none.
fn queue_list(setup: &Setup) -> Result<Vec<u64>, String> {
    let c = setup.queue_cycling.as_ref().map_or(QUEUE_DEFAULT, |c| c.value);
    cycle(c.start, c.end.unwrap_or(32), c.step, c.exponential)
        .filter(|l| !l.is_empty() && l.iter().all(|q| *q <= 65536))
        .ok_or_else(|| {
            format!(
                "queue depth cycling from {} to {} by {} ({}) makes no list of 1 to {} queue depths of at most 65536",
                c.start,
                c.end.unwrap_or(32),
                c.step,
                if c.exponential { "EXPONENTIAL" } else { "LINEAR" },
                super::setup::MAX_CYCLE
            )
        })
}

/// The test types that cycle targets or workers run by run, stepped as
/// Iometer steps them ([`cycling::runs`]): a step a run; for
/// CYCLE_OUTSTANDING_IOS_AND_TARGETS a queue depth sweep at each count of
/// targets.
fn stepped(
    shape: &Shape<'_>,
    parts: &[(&Active<'_>, Part)],
    setup: &Setup,
    test: TestType,
    comment: String,
) -> Result<StepText, String> {
    let mut order: Vec<&Worker> = Vec::new();
    let mut workers: Vec<cycling::Worker> = Vec::new();
    for (a, p) in parts {
        match order.iter().position(|w| std::ptr::eq(*w, a.worker)) {
            Some(i) => workers[i].targets = workers[i].targets.max(a.target as u64 + 1),
            None => {
                order.push(a.worker);
                workers.push(cycling::Worker { targets: a.target as u64 + 1, qd: p.qd });
            }
        }
    }
    let value = |c: Option<&At<Cycling>>, default| c.map_or(default, |c| c.value);
    let rules = cycling::Cyclings::new(
        value(setup.worker_cycling.as_ref(), ONE_AT_A_TIME),
        value(setup.disk_cycling.as_ref(), ONE_AT_A_TIME),
        value(setup.queue_cycling.as_ref(), QUEUE_DEFAULT),
    );
    let runs = cycling::runs(test, rules, &workers).ok_or_else(|| {
        format!("{}: the cycling makes more than {} runs of a specification", test.word(), cycling::MAX_RUNS)
    })?;
    let on = |run: &cycling::RunState| -> Vec<(&Active<'_>, Part)> {
        parts
            .iter()
            .filter_map(|(a, p)| {
                let w = order.iter().position(|w| std::ptr::eq(*w, a.worker))?;
                ((a.target as u64) < run.active[w]).then_some((*a, Part { qd: run.qd[w], ..*p }))
            })
            .collect()
    };
    let joined = |v: Vec<String>, sep: &str| v.join(sep);
    let most = |run: &cycling::RunState| run.active.iter().copied().max().unwrap_or(0);
    let (said, text) = match test {
        TestType::CycleOutstandingIosAndTargets => {
            let mut groups: Vec<(&cycling::RunState, Vec<u64>)> = Vec::new();
            for run in &runs {
                let qd = run.qd.iter().zip(&run.active).find(|(_, a)| **a > 0).map_or(1, |(q, _)| *q);
                match groups.last_mut() {
                    Some((first, list)) if first.active == run.active => list.push(qd),
                    _ => groups.push((run, vec![qd])),
                }
            }
            let depths = groups
                .first()
                .map_or(String::new(), |(_, l)| joined(l.iter().map(u64::to_string).collect(), ", "));
            (
                format!(
                    "each worker on its first {} of its targets; at each, queue depths {depths} on every worker",
                    joined(groups.iter().map(|(r, _)| most(r).to_string()).collect(), ", then ")
                ),
                joined(groups.iter().map(|(r, list)| sweep(shape, &on(r), list)).collect(), "\n"),
            )
        }
        TestType::CycleTargets => (
            format!(
                "each worker on its first {} of its targets",
                joined(runs.iter().map(|r| most(r).to_string()).collect(), ", then ")
            ),
            joined(runs.iter().map(|r| step(shape, &on(r), None)).collect(), "\n"),
        ),
        TestType::CycleWorkers => (
            format!(
                "the first {} of them",
                joined(
                    runs.iter().map(|r| r.active.iter().filter(|a| **a > 0).count().to_string()).collect(),
                    ", then "
                )
            ),
            joined(runs.iter().map(|r| step(shape, &on(r), None)).collect(), "\n"),
        ),
        TestType::CycleWorkersAndTargets => (
            format!(
                "the first n workers, each on its first t of its targets, (n, t) = {}",
                joined(
                    runs.iter()
                        .map(|r| format!("({}, {})", r.active.iter().filter(|a| **a > 0).count(), most(r)))
                        .collect(),
                    ", "
                )
            ),
            joined(runs.iter().map(|r| step(shape, &on(r), None)).collect(), "\n"),
        ),
        _ => (
            format!(
                "the first {} targets counted down the workers (a worker's targets in order, then the next \
                 worker's); with one manager, as here, INCREMENT_TARGETS_PARALLEL and _SERIAL run alike",
                joined(runs.iter().map(|r| r.active.iter().sum::<u64>().to_string()).collect(), ", then ")
            ),
            joined(runs.iter().map(|r| step(shape, &on(r), None)).collect(), "\n"),
        ),
    };
    Ok(StepText { comment: format!("{comment} {}: {said}.", test.word()), text })
}

/// The parts grouped into jobs: the same workload, depth and device, in
/// the order of their first worker; with that worker's name and a count.
fn jobs<'a>(parts: &[(&'a Active<'a>, Part)]) -> Vec<(&'a Worker, Part, u64)> {
    let mut out: Vec<(&Worker, Part, u64)> = Vec::new();
    for (a, p) in parts {
        match out.iter_mut().find(|(_, q, _)| q == p) {
            Some(job) => job.2 += 1,
            None => out.push((a.worker, *p, 1)),
        }
    }
    out
}

/// ` think 10ms every 4`, or nothing.
fn think(w: &Workload) -> String {
    w.think.map_or(String::new(), |(ms, every)| format!(" think {} every {every}", Duration::from_millis(ms)))
}

/// ` for 1min ramp 30s`.
fn lengths(shape: &Shape<'_>) -> String {
    let mut out = format!(" for {}", shape.record);
    if !shape.ramp.is_zero() {
        out.push_str(&format!(" ramp {}", shape.ramp));
    }
    out
}

/// One run of the parts: a measurement when they are one job on the first
/// device, else a together step of a job each. `qd` replaces their depth
/// (a loop variable).
fn step(shape: &Shape<'_>, parts: &[(&Active<'_>, Part)], qd: Option<&str>) -> String {
    let jobs = jobs(parts);
    let depth = |p: &Part| qd.map_or(p.qd.to_string(), str::to_string);
    if let [(_, p, n)] = jobs.as_slice()
        && p.device == 0
    {
        let w = &shape.workloads[p.workload];
        let workers = if *n == shape.workers { String::new() } else { format!(" workers {n}") };
        return format!("measure {} qd {}{workers}{}{}", w.ident, depth(p), lengths(shape), think(w));
    }
    let mut taken = HashSet::new();
    let mut out = format!("together{} {{\n", lengths(shape));
    for (worker, p, n) in &jobs {
        let w = &shape.workloads[p.workload];
        let device = if shape.several_devices { format!(" device {}", p.device + 1) } else { String::new() };
        out.push_str(&format!(
            "  job {} {} qd {} workers {n}{}{device}\n",
            ident(&worker.name, "spec", &mut taken),
            w.ident,
            depth(p),
            think(w)
        ));
    }
    out.push('}');
    out
}

/// A queue depth sweep of the parts: `sweep` for one job on the first
/// device without pauses, else a `for` loop of runs.
fn sweep(shape: &Shape<'_>, parts: &[(&Active<'_>, Part)], list: &[u64]) -> String {
    let jobs = jobs(parts);
    let listed = list.iter().map(u64::to_string).collect::<Vec<_>>().join(", ");
    if let [(_, p, n)] = jobs.as_slice() {
        let w = &shape.workloads[p.workload];
        if p.device == 0 && w.think.is_none() {
            let workers = if *n == shape.workers { String::new() } else { format!(" workers {n}") };
            let ramp = if shape.ramp.is_zero() { String::new() } else { format!(" ramp {}", shape.ramp) };
            return format!("sweep {} qd [{listed}]{workers}{ramp} record {}", w.ident, shape.record);
        }
    }
    format!("for {QD_VAR} in [{listed}] {{\n{}\n}}", step(shape, parts, Some(QD_VAR)))
}

/// The target settings the workers share: span, workers, data; or the
/// problem of workers that differ there.
fn target(actives: &[Active<'_>], run: &mut Run, workloads: &[Workload]) -> Result<String, Vec<Problem>> {
    let first = actives[0].worker;
    let value = |w: &Worker| {
        (
            w.max_size.as_ref().map_or(0, |v| v.value),
            w.start.as_ref().map_or(0, |v| v.value),
            w.pattern.as_ref().map(|v| v.value),
        )
    };
    if let Some(other) = actives.iter().map(|a| a.worker).find(|w| value(w) != value(first)) {
        let line = other.max_size.as_ref().or(other.pattern.as_ref()).map_or(other.line, |v| v.line);
        return Err(vec![worker_problem(
            ImportErrorKind::Conflict,
            other,
            line,
            format!(
                "its disk size, starting sector or data pattern differ from worker \"{}\"'s: a methodology's \
                 workers share one span, offset and data",
                first.name
            ),
        )
        .hint("give every worker the same 'Disk maximum size,starting sector,Data pattern")]);
    }
    let (max, start, pattern) = value(first);
    let writes = actives.iter().flat_map(|a| a.specs.iter().flatten()).any(|w| workloads[*w].writes);
    let (Some(start_bytes), Some(end_bytes)) =
        (start.checked_mul(SECTOR), start.checked_add(max).and_then(|e| e.checked_mul(SECTOR)))
    else {
        return Err(vec![worker_problem(
            ImportErrorKind::BadValue,
            first,
            first.line,
            "a disk size or starting sector too large to hold",
        )]);
    };
    let span = if max == 0 { "100%".to_string() } else { Bytes(end_bytes).to_string() };
    if max > 0 || start > 0 {
        let msg = format!(
            "Disk maximum size {max} and starting sector {start}: Iometer counts them in the target's sectors; \
             512 bytes here, so I/O from {} to {} (on a drive of 4KiB sectors, multiply by 8).",
            Bytes(start_bytes),
            if max == 0 { "the end".to_string() } else { Bytes(end_bytes).to_string() }
        );
        run.warnings.push(msg.clone());
        run.notes.push(msg);
    }
    if start > 0
        && let Some(w) = actives
            .iter()
            .flat_map(|a| a.specs.iter().flatten())
            .map(|w| &workloads[*w])
            .find(|w| start_bytes % w.align != 0)
    {
        run.notes.push(format!(
            "The starting sector is not a multiple of {}'s alignment: Iometer aligns offsets from the \
                 start of the target, methodic from the starting offset.",
            w.ident
        ));
    }
    run.offset = start_bytes;
    let data = data_word(pattern, writes, first, run)?;
    Ok(format!("span {span}; workers {}; io direct; data {data}", actives.len()))
}

/// The data a worker's data pattern is here, with a note on how Iometer
/// writes it when the steps write.
fn data_word(
    pattern: Option<u64>,
    writes: bool,
    first: &Worker,
    run: &mut Run,
) -> Result<&'static str, Vec<Problem>> {
    Ok(match pattern {
        Some(2) => "random",
        Some(1) => {
            if writes {
                run.notes.push(
                    "Data pattern 1 (pseudo random): Iometer writes one buffer of random bytes again and again, \
                     which a drive that deduplicates stores once; methodic writes fresh random data."
                        .to_string(),
                );
            }
            "random"
        }
        Some(0) => {
            if writes {
                run.notes.push(
                    "Data pattern 0 (repeating bytes): each Iometer write repeats one random byte; methodic \
                     writes zeros, which compress and deduplicate as well, though a drive that spots zeros may \
                     treat them otherwise."
                        .to_string(),
                );
            }
            "zeros"
        }
        None => {
            if writes {
                run.notes.push(
                    "No data pattern (before 1.1.0): Iometer 2006.07.27 and older write one buffer of random \
                     bytes again and again; methodic writes fresh random data."
                        .to_string(),
                );
            }
            "random"
        }
        Some(other) => {
            let line = first.pattern.as_ref().map_or(first.line, |p| p.line);
            return Err(vec![worker_problem(
                ImportErrorKind::BadValue,
                first,
                line,
                format!(
                    "data pattern {other}: Iometer's are 0 (repeating bytes), 1 (pseudo random) and 2 (full random)"
                ),
            )]);
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn target_names_match_as_iometer_matches_them() {
        assert_eq!(disk_key("1: \"ATA EXAMPLE-SSD 1.0\""), "1:");
        assert_eq!(disk_key("1:"), "1:");
        assert_eq!(disk_key("PHYSICALDRIVE:1"), "physicaldrive:1");
        assert_eq!(disk_key("SDB"), "sdb");
    }
}
