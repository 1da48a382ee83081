//! `run`: a validated plan, its targets and the run's options go in; each
//! step is executed in order and its numbers come out, appended to the
//! results directory before the next step starts. This module owns the
//! run's options, its signals, starting a run (the checks in `checks`,
//! the host ceiling in `ceiling`) and the step loop that records each
//! step and cleans up (scratch files, RAM limits, copies) however the run
//! ends. A step's work is `step`'s and its kind's module (`fill`,
//! `measure`, `precondition`, `rounds`, `copy`, `probe`, `erase`,
//! `system`); the workers' I/O is `io`'s.

mod ceiling;
mod checks;
mod io;
mod kinds;
pub(crate) mod remote;
mod step;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Instant;

use methodic_compiler::plan::{Action, Bytes, IoMode, OnError, Plan, Step, TimeRange};
use methodic_results::dir::ResultsDir;
use methodic_results::manifest::EngineNote;
use methodic_results::record::{MethodologyRef, RunReport, Status, StepResult};

pub use self::ceiling::calibrate;
use self::checks::{check_alignment, check_erases, check_space, check_trims, open_targets};
pub(crate) use self::checks::{devices, open_options};
use self::io::{MAX_PSYNC_THREADS, Workers};
use self::step::{Executor, OperatingPoint};
use crate::engine::{EngineFactory, Real};
use crate::error::{Error, Result};
use crate::failure::failed_steps;
use crate::manifest::{self, DriveTracker, Manifest};
use crate::target::Target;
use crate::{rehearse, time};

/// Which engine to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EngineChoice {
    /// psync where each worker keeps one I/O in flight, io_uring elsewhere.
    #[default]
    Auto,
    IoUring,
    Psync,
}

impl EngineChoice {
    /// As `--engine` spells it, and the manifest records it.
    pub(crate) fn word(self) -> &'static str {
        match self {
            EngineChoice::Auto => "auto",
            EngineChoice::IoUring => "io-uring",
            EngineChoice::Psync => "psync",
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Targets, one a device of the plan; none for a scratch file.
    pub targets: Vec<PathBuf>,
    /// The results directory to create.
    pub out: PathBuf,
    pub rehearse: bool,
    pub engine: EngineChoice,
    /// `--destroy`, once for each device: the serials (or paths) of the
    /// block devices the user agreed to overwrite.
    pub destroy: Vec<String>,
    /// Keep scratch files after the run.
    pub keep_scratch: bool,
    /// The seed every offset and choice derives from.
    pub seed: u64,
    /// Pin workers to CPUs, round robin.
    pub pin: bool,
    /// The methodology source, copied into the results.
    pub source: Option<String>,
    /// Do not record latencies and series: only to measure what recording
    /// costs. Results say so.
    pub no_latency: bool,
    /// Do not measure the host ceiling before the first step.
    pub skip_ceiling: bool,
    /// `--overwrite`: write over an existing file target methodic did not create.
    pub overwrite: bool,
    /// Where copy tests generate their datasets (a tmpfs keeps the source
    /// from being the bottleneck); `datasets/` in the results directory
    /// when `None`.
    pub datasets: Option<PathBuf>,
    /// Makes each worker's engine; the real io_uring and psync engines
    /// ([`Real`]) when `None`. Tests give one that injects faults or
    /// notes every I/O.
    pub engines: Option<Arc<dyn EngineFactory>>,
    /// A run on many hosts: each step's I/O runs on every one of them at
    /// once, through fio's client/server mode; empty for a run on this
    /// machine.
    pub hosts: Vec<crate::hosts::HostSpec>,
    /// The fio that talks to the hosts' servers; `fio` on the PATH when `None`.
    pub fio: Option<PathBuf>,
    /// A run on many hosts: how long after its jobs are sent every host
    /// starts each I/O run, in milliseconds (1500 when `None`), widened
    /// when a host starts later than that.
    pub start_margin_ms: Option<u64>,
}

/// What the caller sees of a run as it goes: the CLI draws a progress
/// bar; tests see nothing.
pub trait Observer {
    fn step_started(&mut self, _index: usize, _total: usize, _step: &Step, _remaining: TimeRange) {}
    fn step_finished(&mut self, _index: usize, _step: &Step, _result: &StepResult) {}
    fn note(&mut self, _message: &str) {}
    /// The share done of work that reports it (a drive's sanitize), 0 to 1.
    fn progress(&mut self, _what: &str, _share: f64) {}
}

/// An observer that shows nothing.
pub struct Quiet;

impl Observer for Quiet {}

/// The stop flag signals set.
static STOP: OnceLock<Arc<AtomicBool>> = OnceLock::new();

/// The signal that stopped the run (0: none).
static SIGNAL: AtomicI32 = AtomicI32::new(0);

/// The first SIGINT or SIGTERM asks the run to stop after the step in
/// flight has been recorded; a second one ends the process at once.
extern "C" fn on_signal(sig: libc::c_int) {
    if let Some(s) = STOP.get() {
        if !s.swap(true, Ordering::SeqCst) {
            SIGNAL.store(sig, Ordering::SeqCst);
            return;
        }
    }
    // SAFETY: signal and raise take numbers only; restoring the default action and raising the
    // signal again is how a handler hands a signal on.
    unsafe {
        libc::signal(sig, libc::SIG_DFL);
        libc::raise(sig);
    }
}

pub(super) fn stop_flag() -> Arc<AtomicBool> {
    let flag = STOP.get_or_init(|| Arc::new(AtomicBool::new(false))).clone();
    flag.store(false, Ordering::SeqCst);
    SIGNAL.store(0, Ordering::SeqCst);
    // SAFETY: `on_signal` is an extern "C" fn that only stores into atomics, which is
    // async-signal-safe.
    unsafe {
        libc::signal(libc::SIGINT, on_signal as *const () as libc::sighandler_t);
        libc::signal(libc::SIGTERM, on_signal as *const () as libc::sighandler_t);
    }
    flag
}

/// Whether SIGINT or SIGTERM asked the last run (or what runs after it in
/// this process, such as a crosscheck's fio) to stop.
pub fn stop_requested() -> bool {
    STOP.get().is_some_and(|s| s.load(Ordering::SeqCst))
}

/// Runs a plan. The results directory is written as the run goes; the
/// report is returned (and written as `results.json`) however it ends.
pub fn run(plan: &Plan, opts: &RunOptions, observer: &mut dyn Observer) -> Result<RunReport> {
    if !opts.hosts.is_empty() {
        return remote::run(plan, opts, observer);
    }
    let started = time::unix_now();
    let original = plan;
    let plan = if opts.rehearse { rehearse::rehearse(plan, !opts.targets.is_empty()) } else { plan.clone() };

    check_space(&plan, opts)?;
    let results = ResultsDir::create(&opts.out, &original.to_ron(), opts.source.as_deref())?;
    if opts.rehearse {
        std::fs::write(results.path.join("rehearsal-plan.ron"), plan.to_ron())
            .map_err(|e| Error::io("cannot write the rehearsal plan", e))?;
    }
    // A run that cannot start leaves nothing behind.
    let start = open_targets(&plan, opts, &results.path).and_then(|targets| {
        check_alignment(&plan, &targets)?;
        check_trims(&plan, &targets)?;
        check_erases(&plan, &targets)?;
        let uring = match opts.engine {
            EngineChoice::Psync => Err("--engine psync".to_string()),
            _ => crate::worker::io_uring_available(),
        };
        if let (EngineChoice::IoUring, Err(why)) = (opts.engine, &uring) {
            return Err(Error::unsupported(format!("io_uring is not available here: {why}"))
                .with_hint("leave out --engine io_uring to fall back to psync"));
        }
        Ok((targets, uring))
    });
    let (targets, uring) = match start {
        Ok(t) => t,
        Err(e) => {
            results.discard();
            return Err(e);
        }
    };
    if let (EngineChoice::Auto, Err(why)) = (opts.engine, &uring) {
        observer.note(&format!("io_uring is not available ({why}): every step uses psync"));
    }
    let engine = EngineNote {
        choice: opts.engine.word().to_string(),
        io_uring: uring.is_ok(),
        io_uring_unavailable: uring.err(),
        pinned: opts.pin,
        latency_recorded: !opts.no_latency,
        psync_max_threads: MAX_PSYNC_THREADS,
    };
    let plan_ron = original.to_ron();
    let mut manifest = manifest::start(manifest::Start {
        plan: &plan,
        plan_ron: &plan_ron,
        targets: &targets,
        host: crate::host::read(),
        engine: engine.clone(),
        rehearsal: opts.rehearse,
        seed: opts.seed,
        started: time::rfc3339(started),
    });
    if plan.steps.iter().any(|s| matches!(s.action, Action::Copy { .. })) {
        let dir = opts.datasets_dir(&results.path);
        if let Err(e) = std::fs::create_dir_all(&dir) {
            results.discard();
            return Err(Error::io(format!("cannot create the datasets folder {}", dir.display()), e));
        }
        manifest.datasets = Some(manifest::DatasetsNote {
            file_system: crate::host::file_system(&dir),
            dir: std::fs::canonicalize(&dir).unwrap_or(dir),
        });
    }
    if let Err(e) = manifest.save(&results.path, time::rfc3339(time::unix_now())) {
        results.discard();
        return Err(e.into());
    }
    let drive = DriveTracker::new(targets.iter().all(|t| t.created));
    execute(
        Session {
            original: original.clone(),
            plan,
            opts: opts.clone(),
            results,
            manifest,
            targets,
            engine,
            first: 0,
            earlier: Vec::new(),
            drive,
            seconds_before: 0.0,
            measure_ceiling: !opts.skip_ceiling,
            ram: None,
        },
        observer,
    )
}

/// A run ready to go: its results directory, manifest and open targets,
/// and where in the plan it starts (after the steps a resume keeps).
pub(crate) struct Session {
    /// The methodology's plan (`plan.ron`).
    pub original: Plan,
    /// The plan that runs: the original, or its rehearsal.
    pub plan: Plan,
    pub opts: RunOptions,
    pub results: ResultsDir,
    pub manifest: Manifest,
    pub targets: Vec<Target>,
    pub engine: EngineNote,
    /// The first step to run (from 0).
    pub first: usize,
    /// The records of the steps before `first`.
    pub earlier: Vec<StepResult>,
    /// The drive state when `first` starts.
    pub drive: DriveTracker,
    /// Seconds the run ran before this session.
    pub seconds_before: f64,
    pub measure_ceiling: bool,
    /// A RAM limit in force at `first`, set again before it runs.
    pub ram: Option<Bytes>,
}

/// Runs a session's steps from its first to the end, recording each.
#[expect(
    clippy::too_many_lines,
    reason = "not split yet: a session's set-up, its host ceilings, the loop over its steps and its end"
)]
pub(crate) fn execute(session: Session, observer: &mut dyn Observer) -> Result<RunReport> {
    let clock = Instant::now();
    let Session {
        original,
        plan,
        opts,
        mut results,
        mut manifest,
        targets,
        engine,
        first,
        earlier,
        mut drive,
        seconds_before,
        measure_ceiling,
        ram,
    } = session;
    let opts = &opts;
    let workers = Workers {
        engine: opts.engine,
        uring: engine.io_uring,
        seed: opts.seed,
        pin: opts.pin,
        latency: !opts.no_latency,
        stop: stop_flag(),
        engines: opts.engines.clone().unwrap_or_else(|| Arc::new(Real)),
    };
    let site: &dyn step::Site = if opts.hosts.is_empty() { &step::Local } else { &remote::OnHosts };
    let mut exec = Executor {
        plan: &plan,
        site,
        opts,
        targets,
        results: &mut results,
        workers,
        ram: None,
        copies: Vec::new(),
        datasets_seen: Vec::new(),
        meter: None,
        done_iops: earlier.iter().filter_map(done_iops).collect(),
        done_points: earlier.iter().filter_map(|r| done_points(&plan, r)).collect(),
        stamping: crate::verify::Stamping {
            run: crate::verify::run_identity(manifest.seed, &manifest.started),
            interval: verify_interval(&plan),
        },
    };
    let (shapes, left_out) =
        if measure_ceiling { crate::ceiling::choose(exec.shapes()) } else { Default::default() };
    if !shapes.is_empty() {
        let seconds = if opts.rehearse { 0.05 } else { 0.5 };
        observer.note(&format!(
            "measuring the host ceiling of each of the plan's {}: the engine against RAM, with no device in \
             the way, {seconds}s each",
            methodic_compiler::plan::plural(shapes.len() as u64, "I/O shape", "I/O shapes")
        ));
        if !left_out.is_empty() {
            observer.note(&format!(
                "{} more are not measured, and their steps not judged: a run measures at most {}, those with \
                 the smallest blocks and shallowest queues",
                left_out.len(),
                crate::ceiling::MAX_SHAPES
            ));
        }
        match ceiling::measure(&shapes, seconds, &exec.workers) {
            // A ceiling cut short by a signal is no ceiling.
            Ok(_) if exec.workers.stop.load(Ordering::SeqCst) => {}
            Ok(mut c) => {
                for u in &c.unmeasured {
                    observer.note(&format!("no host ceiling for {}: {}", u.shape, u.reason));
                }
                let why = format!(
                    "the plan uses more than {} I/O shapes: those with the smallest blocks and shallowest queues \
                     were measured",
                    crate::ceiling::MAX_SHAPES
                );
                c.unmeasured.extend(
                    left_out
                        .into_iter()
                        .map(|shape| crate::ceiling::Unmeasured { shape, reason: why.clone() }),
                );
                manifest.ceilings = Some(c);
            }
            Err(e) => observer.note(&format!("the host ceiling was not measured: {}", describe(&e))),
        }
    }
    let mut steps = earlier;
    let mut status = Status::Completed;
    let mut error = None;
    // The drives' write cache as the methodology asks, before the first
    // step (again on a resume: a crash may have left it either way).
    if let Err(e) = crate::drive::cache::apply(plan.write_cache, &exec.targets, &mut manifest.write_cache) {
        status = Status::Failed;
        error = Some(e);
    }
    for n in &manifest.write_cache {
        observer.note(&format!("write cache of {}: {}", n.target, n.done));
    }
    if let (Some(limit), Some(step)) = (ram, plan.steps.get(first)) {
        let mut note = StepResult::new(first, step, opts.rehearse, String::new());
        match kinds::system::apply_ram_limit(&mut exec, Some(limit), &mut note) {
            Ok(()) => observer.note(&format!("as before step {}: {}", first + 1, note.actions.join("; "))),
            Err(e) => {
                status = Status::Failed;
                error = Some(format!(
                    "the RAM limit in force at step {} cannot be set again: {}",
                    first + 1,
                    describe(&e)
                ));
            }
        }
    }
    let total = plan.steps.len();
    for (i, step) in plan.steps.iter().enumerate().skip(first) {
        if error.is_some() {
            break;
        }
        // A signal between steps (or during the host ceiling) stops the run
        // before the next step starts.
        if exec.workers.stop.load(Ordering::SeqCst) {
            status = Status::Interrupted;
            error = Some(interrupted_by());
            break;
        }
        let remaining = plan.steps[i..].iter().fold(TimeRange::default(), |t, s| t + s.estimate.time);
        observer.step_started(i, total, step, remaining);
        let step_start = time::unix_now();
        manifest.step_started(i, &time::rfc3339(step_start), &drive.state);
        if let Err(e) = manifest.save(&exec.results.path, time::rfc3339(step_start)).map_err(Error::from) {
            manifest.step_unrecorded(i, &describe(&e));
            status = Status::Failed;
            error = Some(describe(&e));
            break;
        }
        let t0 = Instant::now();
        let mut result = StepResult::new(i, step, opts.rehearse, time::rfc3339(step_start));
        let outcome = kinds::run(&mut exec, step, &mut result, observer);
        result.seconds = t0.elapsed().as_secs_f64();
        let interrupted = exec.workers.stop.load(Ordering::SeqCst);
        if interrupted {
            result.error = Some(interrupted_by());
        } else if let Err(e) = &outcome {
            result.error = Some(describe(e));
        }
        // A step whose I/Os failed keeps what it measured until then.
        if let Err(Error::IoFailed(f)) = &outcome {
            f.keep_in(&mut result);
        }
        result.repeats = repeat_summary(&plan, i, &result, &steps, &manifest);
        // Each I/O against the ceiling of its own shape; a run resumed from
        // an older manifest against the one ceiling it measured.
        if let Some(c) = &manifest.ceilings {
            (result.ceilings, result.host_bound) = crate::ceiling::judge(c, &exec.uses(step), &result);
        } else if let (Some(c), Some(sum)) = (&manifest.host_ceiling, &result.summary) {
            result.host_bound = c.host_bound(sum.total.iops, sum.total.mb_s);
        }
        if let Some(w) = result.repeats.as_ref().and_then(|r| r.warning.as_ref()) {
            observer.note(&format!("{}: {w}", step.id));
        }
        drive.after(step, &result);
        // The step goes to steps.jsonl first: the manifest points at it. A
        // step that could not be recorded is failed in the manifest too.
        let appended = exec.results.append_step(&result).map_err(Error::from);
        manifest.step_finished(i, &result, interrupted);
        if let Err(e) = &appended {
            manifest.step_unrecorded(i, &describe(e));
        }
        let recorded = appended.and_then(|()| {
            manifest.save(&exec.results.path, time::rfc3339(time::unix_now())).map_err(Error::from)
        });
        observer.step_finished(i, step, &result);
        if let Some((k, iops)) = done_iops(&result) {
            exec.done_iops.insert(k, iops);
        }
        if let Some((k, points)) = done_points(exec.plan, &result) {
            exec.done_points.insert(k, points);
        }
        steps.push(result);
        match (outcome, recorded) {
            (_, Err(e)) => {
                status = Status::Failed;
                error = Some(describe(&e));
                break;
            }
            _ if interrupted => {
                status = Status::Interrupted;
                error = Some(interrupted_by());
                break;
            }
            // Recorded as failed above; the run goes on, and ends failed.
            (Err(_), _) if plan.methodology.on_error == OnError::Continue => {
                observer.note(&format!("{} failed; on_error continue: going on to the next step", step.id));
            }
            (Err(e), _) => {
                status = Status::Failed;
                error = Some(describe(&e));
                break;
            }
            (Ok(()), Ok(())) => {}
        }
    }
    // Steps failed and the run went past them (on_error continue): it
    // still failed, and says which steps did.
    if let (Status::Completed, Some(e)) = (status, failed_steps(&plan, &steps)) {
        status = Status::Failed;
        error = Some(e);
    }
    exec.ram = None;
    crate::drive::cache::restore(&exec.targets, &mut manifest.write_cache);
    for n in manifest.write_cache.iter().filter(|n| n.was_on.is_some()) {
        if let Some(r) = &n.restored {
            observer.note(&format!("write cache of {}: {r}", n.target));
        }
    }
    for dir in &exec.copies {
        let _ = std::fs::remove_dir_all(dir);
    }
    // A run that did not complete keeps its scratch files: `--resume` goes
    // on with them.
    let keep = opts.keep_scratch || status != Status::Completed;
    for t in exec.targets.iter().filter(|t| t.created) {
        if !keep {
            let _ = t.remove_scratch();
        } else if !opts.keep_scratch {
            observer.note(&format!(
                "the scratch file {} is kept so that `methodic run --resume {}` can go on; delete it if you will not",
                t.path.display(),
                exec.results.path.display()
            ));
        }
    }
    let finished = time::unix_now();
    manifest.status = status;
    manifest.error = error.clone();
    manifest.finished = Some(time::rfc3339(finished));
    manifest.seconds = seconds_before + clock.elapsed().as_secs_f64();
    let saved = manifest.save(&results.path, time::rfc3339(finished));
    let report = RunReport {
        manifest: PathBuf::from(methodic_results::dir::MANIFEST_FILE),
        methodology: MethodologyRef {
            name: original.methodology.name.clone(),
            version: original.methodology.version.clone(),
            source_hash: original.methodology.source_hash.clone(),
        },
        rehearsal: opts.rehearse,
        status,
        error,
        seconds: manifest.seconds,
        results: results.path.clone(),
        steps,
        signal: (status == Status::Interrupted).then(|| SIGNAL.load(Ordering::SeqCst)).filter(|s| *s != 0),
    };
    results.finish(&report)?;
    saved?;
    Ok(report)
}

impl RunOptions {
    /// Where copy tests keep their datasets.
    pub(crate) fn datasets_dir(&self, results: &Path) -> PathBuf {
        self.datasets.clone().unwrap_or_else(|| results.join("datasets"))
    }
}

/// On the last run of a repeat, the statistics of this step over every
/// run, with a warning when run 1 stands apart.
fn repeat_summary(
    plan: &Plan,
    i: usize,
    result: &StepResult,
    done: &[StepResult],
    m: &Manifest,
) -> Option<crate::analysis::repeats::RepeatSummary> {
    use crate::analysis::repeats::{CacheContext, Run, summarize};
    let step = &plan.steps[i];
    let r = step.repeat?;
    if r.run != r.runs {
        return None;
    }
    // The same step of every run: the one at this step's place among the
    // steps of its run.
    let in_run = |k: u32| -> Vec<usize> {
        plan.steps
            .iter()
            .enumerate()
            .filter(|(_, s)| s.repeat.is_some_and(|q| q.group == r.group && q.run == k))
            .map(|(n, _)| n)
            .collect()
    };
    let place = in_run(r.run).iter().position(|&n| n == i)?;
    let value =
        |s: &StepResult| s.copy.as_ref().map(|c| c.mb_s).or_else(|| s.summary.as_ref().map(|x| x.total.iops));
    let mut runs: Vec<Run> = Vec::new();
    for k in 1..=r.runs {
        let Some(&n) = in_run(k).get(place) else { continue };
        let res = if n == i { Some(result) } else { done.iter().find(|s| s.index == n + 1) };
        if let Some(s) = res.filter(|s| s.error.is_none()) {
            if let Some(v) = value(s) {
                runs.push(Run { number: k, value: v, device_io: s.device_io.as_ref() });
            }
        }
    }
    if runs.is_empty() {
        return None;
    }
    let checklist = &m.steps[i].checklist;
    let available = crate::host::meminfo().1;
    let ctx = CacheContext {
        // Copies always go through the page cache, whatever the io mode.
        buffered: checklist.cache.io == Some(IoMode::Buffered) || matches!(step.action, Action::Copy { .. }),
        copy: matches!(step.action, Action::Copy { .. }),
        data_bytes: match &step.action {
            Action::Copy { dataset } => Some(dataset.total.0),
            _ => checklist.span.as_ref().map(|s| s.bytes),
        },
        free_ram: step.ram_limit.map_or(available, |l| available.min(l.0)),
        caches_dropped: checklist.cache.caches_dropped,
        ram_limit: step.ram_limit.map(|b| b.0),
        source_in_ram: matches!(step.action, Action::Copy { .. })
            && m.datasets.as_ref().and_then(|d| d.file_system.as_ref()).is_some_and(|f| f.fs_type == "tmpfs"),
    };
    let unit = if result.copy.is_some() { "MB/s" } else { "IOPS" };
    Some(summarize(&runs, unit, r.aggregate, &ctx))
}

/// `interrupted by SIGTERM`.
fn interrupted_by() -> String {
    match SIGNAL.load(Ordering::SeqCst) {
        libc::SIGINT => "interrupted by SIGINT".into(),
        libc::SIGTERM => "interrupted by SIGTERM".into(),
        0 => "interrupted".into(),
        n => format!("interrupted by signal {n}"),
    }
}

/// An error in one line, with its hint.
pub fn describe(e: &Error) -> String {
    match e.hint() {
        Some(h) => format!("{e} ({h})"),
        None => e.to_string(),
    }
}

#[cfg(test)]
mod tests;

/// A finished step's IOPS, by its index in the plan from 0, for a later
/// rate that is a share of it; `None` for a step that failed or measured
/// nothing.
fn done_iops(r: &StepResult) -> Option<(usize, f64)> {
    let s = r.summary.as_ref().filter(|_| r.error.is_none())?;
    Some((r.index.checked_sub(1)?, s.total.iops))
}

/// A finished step's operating points, by its index in the plan from 0,
/// for a later `at max of NAME`: a measurement's queue depth with its
/// IOPS, or each cell of a rounds step's tracked workload with its
/// steady-state window average. `None` for a step that failed, measured nothing, or chose its
/// own queue depth.
fn done_points(plan: &methodic_compiler::plan::Plan, r: &StepResult) -> Option<(usize, Vec<OperatingPoint>)> {
    if r.error.is_some() {
        return None;
    }
    let k = r.index.checked_sub(1)?;
    let points = match &plan.steps.get(k)?.action {
        Action::Measure { qd, at: None, .. } => {
            let total = &r.summary.as_ref()?.total;
            vec![OperatingPoint { qd: *qd, iops: total.iops, mean_latency_us: total.latency_us.mean }]
        }
        // The cells of the tracked workload: a round's other cells (a
        // pre-write) are not operating points of it.
        Action::Rounds { cells, track, .. } => r
            .cells
            .as_ref()?
            .iter()
            .filter_map(|c| {
                let tracked = &cells.get(*track as usize)?.workload;
                let cell = cells.iter().filter(|p| p.workload.same_io(tracked)).find(|p| {
                    p.workload.name == c.workload
                        && p.qd.total == c.qd
                        && (c.workers == 0 || p.qd.workers == c.workers)
                })?;
                Some(OperatingPoint {
                    qd: cell.qd,
                    iops: c.window_iops,
                    mean_latency_us: c.window_mean_latency_us,
                })
            })
            .collect(),
        _ => return None,
    };
    Some((k, points))
}

/// The interval a run's steps with `verify` stamp and check: the smallest
/// of their workloads' (see [`crate::verify::interval_of`]), so that a
/// step reading smaller blocks than another wrote checks each of its
/// reads; 4KiB when no step verifies.
fn verify_interval(plan: &Plan) -> u32 {
    plan.steps
        .iter()
        .filter(|s| s.verify)
        .flat_map(|s| s.action.workloads())
        .map(crate::verify::interval_of)
        .min()
        .unwrap_or(4096)
}
