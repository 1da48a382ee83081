//! `run`: a validated plan, its targets and the run's options go in; each
//! step is executed in order and its numbers come out, appended to the
//! results directory before the next step starts. Chooses the engine for
//! each step, spreads workers over devices, applies RAM limits as each
//! step's `ram_limit` says, and cleans up (scratch files, RAM limits,
//! copies) however the run ends.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering};
use std::sync::{Arc, Barrier, OnceLock};
use std::time::{Duration as StdDuration, Instant, SystemTime};

use methodic_compiler::plan::{
    Action, Bytes, Cell, Extent, IoMode, Metric, OnError, Percent, Plan, PreconditionStop, Qd, QdCounting,
    SteadyRule, Step, Target as Settings, TimeRange, Workload,
};

use crate::ceiling::{self, Ceilings, Shape};
use crate::copy;
use crate::engine::EngineKind;
use crate::error::{Error, Result};
use crate::failure::IoFailed;
use crate::failure::failed_steps;
use crate::hlog::HistogramLog;
use crate::manifest::{self, DriveTracker, Manifest};
use crate::probe;
use crate::region::{Region, step_region, worker_regions};
use crate::rehearse;
use crate::rng::{Stream, stream_seed};
use crate::series::{self, Row};
use crate::stats::{Latency, Recorder, Summary};
use crate::steady::{self};
use crate::system::{self, RamLimit};
use crate::target::{OpenOptionsT, Target};
use crate::time;
use crate::worker::{self, Job, SeriesLink, SharedBudget, Timing};
use methodic_results::dir::ResultsDir;
use methodic_results::host::TargetKind;
use methodic_results::manifest::EngineNote;
use methodic_results::record::{
    CellResult, IoErrors, IoInfo, MethodologyRef, RunReport, Status, SteadyResult, StepResult,
};

/// Which engine to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EngineChoice {
    /// psync where each worker keeps one I/O in flight, io_uring elsewhere.
    #[default]
    Auto,
    IoUring,
    Psync,
}

#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Targets, one a device of the plan; none for a scratch file.
    pub targets: Vec<PathBuf>,
    /// The results directory to create.
    pub out: PathBuf,
    pub rehearse: bool,
    pub engine: EngineChoice,
    /// `--destroy`: the serial of the block device the user agreed to overwrite.
    pub destroy: Option<String>,
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
}

/// What the caller sees of a run as it goes: the CLI draws a progress
/// bar; tests see nothing.
pub trait Observer {
    fn step_started(&mut self, _index: usize, _total: usize, _step: &Step, _remaining: TimeRange) {}
    fn step_finished(&mut self, _index: usize, _step: &Step, _result: &StepResult) {}
    fn note(&mut self, _message: &str) {}
}

/// An observer that shows nothing.
pub struct Quiet;

impl Observer for Quiet {}

/// The most threads psync uses to keep a queue depth; deeper queues use
/// io_uring.
const MAX_PSYNC_THREADS: u32 = 128;

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
    unsafe {
        libc::signal(sig, libc::SIG_DFL);
        libc::raise(sig);
    }
}

fn stop_flag() -> Arc<AtomicBool> {
    let flag = STOP.get_or_init(|| Arc::new(AtomicBool::new(false))).clone();
    flag.store(false, Ordering::SeqCst);
    SIGNAL.store(0, Ordering::SeqCst);
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
    let started = time::unix_now();
    let original = plan;
    let plan = if opts.rehearse { rehearse::rehearse(plan) } else { plan.clone() };

    check_space(&plan, opts)?;
    let results = ResultsDir::create(&opts.out, &original.to_ron(), opts.source.as_deref())?;
    if opts.rehearse {
        std::fs::write(results.path.join("rehearsal-plan.ron"), plan.to_ron())
            .map_err(|e| Error::io("cannot write the rehearsal plan", e))?;
    }
    // A run that cannot start leaves nothing behind.
    let start = open_targets(&plan, opts, &results.path).and_then(|targets| {
        check_alignment(&plan, &targets)?;
        let uring = match opts.engine {
            EngineChoice::Psync => Err("--engine psync".to_string()),
            _ => worker::io_uring_available(),
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
        choice: match opts.engine {
            EngineChoice::Auto => "auto",
            EngineChoice::IoUring => "io-uring",
            EngineChoice::Psync => "psync",
        }
        .to_string(),
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
        let dir = datasets_dir(opts, &results.path);
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
            started: time::rfc3339(started),
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
    /// When the run first started.
    pub started: String,
    /// Seconds the run ran before this session.
    pub seconds_before: f64,
    pub measure_ceiling: bool,
    /// A RAM limit in force at `first`, set again before it runs.
    pub ram: Option<Bytes>,
}

/// Runs a session's steps from its first to the end, recording each.
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
        started,
        seconds_before,
        measure_ceiling,
        ram,
    } = session;
    let opts = &opts;
    let mut exec = Executor {
        plan: &plan,
        opts,
        targets,
        results: &mut results,
        stop: stop_flag(),
        uring: engine.io_uring,
        ram: None,
        copies: Vec::new(),
        datasets_seen: Vec::new(),
        meter: None,
    };
    let (shapes, left_out) =
        if measure_ceiling { ceiling::choose(exec.shapes()) } else { Default::default() };
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
                ceiling::MAX_SHAPES
            ));
        }
        match exec.ceiling(&shapes, seconds) {
            // A ceiling cut short by a signal is no ceiling.
            Ok(_) if exec.stop.load(Ordering::SeqCst) => {}
            Ok(mut c) => {
                for u in &c.unmeasured {
                    observer.note(&format!("no host ceiling for {}: {}", u.shape, u.reason));
                }
                let why = format!(
                    "the plan uses more than {} I/O shapes: those with the smallest blocks and shallowest queues \
                     were measured",
                    ceiling::MAX_SHAPES
                );
                c.unmeasured.extend(
                    left_out.into_iter().map(|shape| ceiling::Unmeasured { shape, reason: why.clone() }),
                );
                manifest.ceilings = Some(c);
            }
            Err(e) => observer.note(&format!("the host ceiling was not measured: {}", describe(&e))),
        }
    }
    let mut steps = earlier;
    let mut status = Status::Completed;
    let mut error = None;
    if let (Some(limit), Some(step)) = (ram, plan.steps.get(first)) {
        let mut note = StepResult::new(first, step, opts.rehearse, String::new());
        match exec.apply_ram_limit(Some(limit), &mut note) {
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
        if exec.stop.load(Ordering::SeqCst) {
            status = Status::Interrupted;
            error = Some(interrupted_by());
            break;
        }
        let remaining = plan.steps[i..].iter().fold(TimeRange::default(), |t, s| t.add(s.estimate.time));
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
        let outcome = exec.step(step, &mut result);
        result.seconds = t0.elapsed().as_secs_f64();
        let interrupted = exec.stop.load(Ordering::SeqCst);
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
            (result.ceilings, result.host_bound) = ceiling::judge(c, &exec.uses(step), &result);
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
        tool: format!("methodic {}", env!("CARGO_PKG_VERSION")),
        methodology: MethodologyRef {
            name: original.methodology.name.clone(),
            version: original.methodology.version.clone(),
            source_hash: original.methodology.source_hash.clone(),
        },
        rehearsal: opts.rehearse,
        status,
        error,
        seed: opts.seed,
        started,
        seconds: manifest.seconds,
        engine,
        targets: manifest.targets.clone(),
        results: results.path.clone(),
        steps,
        signal: (status == Status::Interrupted).then(|| SIGNAL.load(Ordering::SeqCst)).filter(|s| *s != 0),
    };
    results.finish(&report)?;
    saved?;
    Ok(report)
}

#[cfg(test)]
thread_local! {
    /// Tests: the fault that the workers on the target of this index
    /// inject, in runs on this thread.
    static FAULT: std::cell::RefCell<Option<(usize, crate::engine::fault::Fault)>> =
        const { std::cell::RefCell::new(None) };
    /// Tests: when set, every run of workers on this thread appends the
    /// I/Os each worker handed its engine, a list per worker.
    static TRACE: std::cell::RefCell<Option<Vec<Vec<Vec<crate::workload::Io>>>>> =
        const { std::cell::RefCell::new(None) };
}

/// Where copy tests keep their datasets.
fn datasets_dir(opts: &RunOptions, results: &Path) -> PathBuf {
    opts.datasets.clone().unwrap_or_else(|| results.join("datasets"))
}

/// Measures the host ceiling on its own (`methodic calibrate`): one
/// worker keeping each of `qds` in flight, reading blocks of each of
/// `blocks` at random from a file in RAM, `seconds` each, with the engine
/// a run would choose for that queue on a file in RAM; and a memory copy.
pub fn calibrate(blocks: &[Bytes], qds: &[u32], seconds: f64, engine: EngineChoice) -> Result<Ceilings> {
    let plan = methodic_compiler::compile("methodology \"calibrate\" version \"1\"\n", &Default::default())
        .map_err(|_| Error::unsupported("the calibration plan does not compile"))?
        .plan;
    let out = Path::new("/dev/shm").join(format!("methodic-calibrate-{}", std::process::id()));
    let opts = RunOptions { out: out.clone(), engine, ..Default::default() };
    let mut results = ResultsDir::create(&out, "", None)?;
    let uring = worker::io_uring_available().is_ok() && engine != EngineChoice::Psync;
    let mut exec = Executor {
        plan: &plan,
        opts: &opts,
        targets: Vec::new(),
        results: &mut results,
        stop: stop_flag(),
        uring,
        ram: None,
        copies: Vec::new(),
        datasets_seen: Vec::new(),
        meter: None,
    };
    let mut shapes: Vec<Shape> = Vec::new();
    for &qd in qds {
        let qd = Qd { total: qd.max(1), per_worker: qd.max(1), workers: 1, counted: QdCounting::Total };
        // No targets: the engine a file in RAM would get.
        let engine = exec.engine_for(&qd, 0).0;
        let (threads, depth) = ceiling::threads_and_depth(engine, &qd);
        for &size in blocks {
            let shape = Shape {
                engine,
                threads,
                depth,
                blocks: vec![methodic_compiler::plan::BlockShare { size, share: Percent::HUNDRED }],
            };
            if !shapes.contains(&shape) {
                shapes.push(shape);
            }
        }
    }
    let c = exec.ceiling(&shapes, seconds);
    results.discard();
    c
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

/// Opens the targets the plan needs, or makes scratch files in `out`.
fn open_targets(plan: &Plan, opts: &RunOptions, out: &Path) -> Result<Vec<Target>> {
    let devices = devices(plan);
    let mut open = open_options(plan, opts)?;
    if opts.targets.is_empty() {
        let size = if opts.rehearse { rehearse::CAPACITY } else { scratch_size(plan) };
        open.create_size = Some(size);
        return (0..devices)
            .map(|i| {
                let name = if devices == 1 { "scratch.bin".to_string() } else { format!("scratch-{i}.bin") };
                Target::open(&out.join(name), &open)
            })
            .collect();
    }
    if opts.targets.len() < devices {
        return Err(Error::unsupported(format!(
            "the plan spreads its workers over {devices} devices, but {} --target {} given",
            opts.targets.len(),
            if opts.targets.len() == 1 { "was" } else { "were" }
        ))
        .with_hint(format!("give --target once for each of the {devices} devices")));
    }
    opts.targets.iter().map(|p| Target::open_with_results(p, &open, Some(out))).collect()
}

/// How many devices the plan spreads its workers over.
pub(crate) fn devices(plan: &Plan) -> usize {
    plan.steps.iter().filter_map(|s| s.target.map(|t| t.devices)).max().unwrap_or(1).max(1) as usize
}

/// How the plan needs its targets opened: for writing or not, with
/// O_DIRECT or not, and the consent given on the command line.
pub(crate) fn open_options(plan: &Plan, opts: &RunOptions) -> Result<OpenOptionsT> {
    let need_direct = plan
        .steps
        .iter()
        .any(|s| s.target.is_some_and(|t| t.io == IoMode::Direct) && s.action.touches_target());
    // Copies write beside the target, not to it.
    let write = plan.steps.iter().any(|s| s.action.writes() && !matches!(s.action, Action::Copy { .. }));
    if write && plan.methodology.non_destructive {
        return Err(Error::unsupported(
            "the plan says non_destructive but has steps that write to the target: it was edited by hand?",
        )
        .with_hint("compile the methodology again; methodic does not open a non_destructive plan's target for writing"));
    }
    Ok(OpenOptionsT {
        create_size: None,
        need_direct,
        write,
        destroy: opts.destroy.clone(),
        overwrite: opts.overwrite,
    })
}

/// Refuses, before anything is written, a step whose O_DIRECT I/O the
/// target cannot take: block sizes, alignment and start offsets must be
/// multiples of its direct-I/O alignment (statx's dio_offset_align, else
/// the logical block size), or every I/O fails with EINVAL mid-run.
fn check_alignment(plan: &Plan, targets: &[Target]) -> Result<()> {
    for (i, step) in plan.steps.iter().enumerate() {
        let Some(settings) = step.target.filter(|t| t.io == IoMode::Direct) else { continue };
        for t in targets.iter().take(settings.devices.max(1) as usize).filter(|t| t.has_direct()) {
            let align = t.direct_align().max(1);
            for w in step.action.workloads() {
                let sizes = w.blocks.iter().map(|b| b.size).chain([w.align, w.offset]);
                if let Some(bad) = sizes.filter(|b| b.0 != 0).find(|b| b.0 % align != 0) {
                    return Err(Error::target(
                        &t.path,
                        format!(
                            "step {} ({}) does O_DIRECT I/O in multiples of {bad}, but this target takes direct I/O \
                             only in multiples of {} (its {})",
                            i + 1,
                            step.id,
                            Bytes(align),
                            if t.dio_offset_align.is_some() { "direct-I/O alignment" } else { "logical block size" }
                        ),
                    )
                    .with_hint(format!(
                        "use `io buffered` for that step, or block sizes and alignment in multiples of {}",
                        Bytes(align)
                    )));
                }
            }
        }
    }
    Ok(())
}

/// What a run puts in its results directory beyond its records: scratch
/// files, datasets generated there, and copies beside a scratch target.
/// Refused before anything is made when the file system has not the room,
/// rather than failing a day later.
fn check_space(plan: &Plan, opts: &RunOptions) -> Result<()> {
    let mut parts = Vec::new();
    if opts.targets.is_empty() {
        let size = if opts.rehearse { rehearse::CAPACITY } else { scratch_size(plan) };
        parts.push((devices(plan) as u64 * size, "the scratch file"));
    }
    let mut datasets: Vec<&methodic_compiler::plan::Dataset> = Vec::new();
    for s in &plan.steps {
        if let Action::Copy { dataset } = &s.action {
            if !datasets.iter().any(|d| d == &dataset) {
                datasets.push(dataset);
            }
        }
    }
    if opts.datasets.is_none() && !datasets.is_empty() {
        parts.push((datasets.iter().map(|d| d.total.0).sum(), "the copy datasets"));
    }
    if opts.targets.is_empty() {
        if let Some(largest) = datasets.iter().map(|d| d.total.0).max() {
            parts.push((largest, "copies beside the scratch file"));
        }
    }
    // steps.jsonl, series and the manifest: a generous allowance.
    parts.push((16 << 20, "records and series"));
    let need: u64 = parts.iter().map(|p| p.0).sum();
    let Some((free, read_only)) = system::free_bytes(&opts.out) else { return Ok(()) };
    if read_only {
        return Err(Error::results(&opts.out, "is on a read-only file system")
            .with_hint("give --out a directory on a file system you can write to"));
    }
    if free >= need {
        return Ok(());
    }
    let what: Vec<String> = parts.iter().map(|(b, w)| format!("{w} {}", crate::units::human(*b))).collect();
    Err(Error::results(
        &opts.out,
        format!(
            "its file system has {} free, and the run puts about {} there ({})",
            crate::units::human(free),
            crate::units::human(need),
            what.join(", ")
        ),
    )
    .with_hint(if opts.targets.is_empty() {
        "give --out on a file system with room, --target a file or device to run on, or --datasets DIR elsewhere"
    } else {
        "give --out on a file system with room, or --datasets DIR elsewhere"
    }))
}

/// A scratch file holds the largest span given in bytes, or 1GiB.
fn scratch_size(plan: &Plan) -> u64 {
    plan.steps
        .iter()
        .filter_map(|s| match s.target.map(|t| t.span) {
            Some(Extent::Bytes(b)) => Some(b.0),
            _ => None,
        })
        .max()
        .unwrap_or(Bytes::GIB)
        .max(64 << 20)
}

struct Executor<'a> {
    plan: &'a Plan,
    opts: &'a RunOptions,
    targets: Vec<Target>,
    results: &'a mut ResultsDir,
    stop: Arc<AtomicBool>,
    uring: bool,
    ram: Option<RamLimit>,
    /// Copy destinations to remove at the end.
    copies: Vec<PathBuf>,
    /// Datasets this run has copied from (kept: they are reused).
    datasets_seen: Vec<PathBuf>,
    /// The device counters at the start of a buffered step that
    /// `finish_io` ends.
    meter: Option<crate::devio::Meter>,
}

/// What an I/O run is asked to do.
struct IoSpec<'w> {
    workload: &'w Workload,
    qd: Qd,
    settings: Settings,
    ramp: StdDuration,
    record: Option<StdDuration>,
    /// Fill: this many passes over each worker's stripe.
    passes: Option<u32>,
    /// Until written: this many bytes over all workers.
    budget: Option<u64>,
    /// The series interval, and the CSV to write (or only rows to keep).
    series: Option<(StdDuration, Option<PathBuf>)>,
    /// Which round and cell of the step this is: each draws its own
    /// random stream.
    at: At,
}

/// A round and a cell of a step, from 1; both 1 for steps without rounds.
#[derive(Debug, Clone, Copy)]
struct At {
    round: u32,
    cell: u32,
}

impl At {
    const ONCE: At = At { round: 1, cell: 1 };
}

/// What a ceiling run reads: the shape's blocks, at random, each aligned
/// to the smallest.
fn ceiling_workload(shape: &Shape) -> Workload {
    Workload {
        name: "ceiling".into(),
        blocks: shape.blocks.clone(),
        read: Percent::HUNDRED,
        random: Percent::HUNDRED,
        align: shape.smallest_block(),
        offset: Bytes(0),
    }
}

/// The one place a ceiling run's I/O is specified: `qd` of `w` on the file
/// in RAM, buffered (tmpfs), `seconds` after a ramp of a fifth of that.
fn ceiling_spec(w: &Workload, qd: Qd, seconds: f64) -> IoSpec<'_> {
    IoSpec {
        workload: w,
        qd,
        settings: Settings {
            span: Extent::Percent(Percent::HUNDRED),
            workers: qd.workers,
            devices: 1,
            io: IoMode::Buffered,
            data: methodic_compiler::plan::DataPattern::Random,
        },
        ramp: StdDuration::from_secs_f64(seconds / 5.0),
        record: Some(StdDuration::from_secs_f64(seconds)),
        passes: None,
        budget: None,
        series: None,
        at: At::ONCE,
    }
}

struct IoRun {
    recorder: Recorder,
    seconds: f64,
    /// The series interval of `rows`, in seconds.
    interval_s: f64,
    /// When recording began (the first worker's end of ramp).
    record_start: SystemTime,
    info: IoInfo,
    rows: Vec<Row>,
}

fn std_duration(d: methodic_compiler::plan::Duration) -> StdDuration {
    StdDuration::from_millis(d.as_millis())
}

impl Executor<'_> {
    fn step(&mut self, step: &Step, out: &mut StepResult) -> Result<()> {
        self.apply_ram_limit(step.ram_limit, out)?;
        let settings = step.target.unwrap_or(self.plan.target);
        // Buffered steps that finish_io ends count the bytes that reach
        // the device from here.
        let ended_by_finish_io = matches!(
            step.action,
            Action::Fill { .. }
                | Action::Measure { .. }
                | Action::Precondition { stop: PreconditionStop::Time(_), .. }
        );
        self.meter = (settings.io == IoMode::Buffered && ended_by_finish_io).then(|| {
            let paths: Vec<&Path> = self
                .targets
                .iter()
                .take(settings.devices.max(1) as usize)
                .map(|t| t.path.as_path())
                .collect();
            crate::devio::Meter::start(&paths, &paths)
        });
        match &step.action {
            Action::Erase { method } => {
                for t in self.targets.iter().take(settings.devices.max(1) as usize) {
                    let region =
                        step_region(settings.span, Bytes(0), Bytes(1), Bytes(t.capacity), t.logical_block)
                            .map_err(|e| Error::target(&t.path, e.to_string()))?;
                    out.actions.push(system::erase(t, *method, region)?);
                }
            }
            Action::Fill { workload, qd, passes } => {
                let csv = self.results.series_path(&step.id, "")?;
                let run = self.io(
                    step,
                    IoSpec {
                        workload,
                        qd: *qd,
                        settings,
                        ramp: StdDuration::ZERO,
                        record: None,
                        passes: Some(*passes),
                        budget: None,
                        series: Some((StdDuration::from_secs(1), Some(csv.clone()))),
                        at: At::ONCE,
                    },
                )?;
                self.save_latency(step, out, &run)?;
                self.finish_io(step, out, run, settings, &csv)?;
            }
            Action::Measure { workload, qd, ramp, stop, series } => {
                let csv = self.results.series_path(&step.id, "")?;
                let budget = stop.written.map(|w| self.bytes_of(w, settings));
                let run = self.io(
                    step,
                    IoSpec {
                        workload,
                        qd: *qd,
                        settings,
                        ramp: std_duration(*ramp),
                        record: stop.time.map(std_duration),
                        passes: None,
                        budget,
                        series: Some((std_duration(*series), Some(csv.clone()))),
                        at: At::ONCE,
                    },
                )?;
                if stop.written.is_some() {
                    let rows: Vec<(f64, f64)> = run.rows.iter().map(|r| (r.t, r.mb_s)).collect();
                    out.cliff = Some(crate::analysis::cliff::detect(&rows, run.info.bytes_written));
                }
                self.save_latency(step, out, &run)?;
                self.finish_io(step, out, run, settings, &csv)?;
            }
            Action::Precondition { workload, qd, stop: PreconditionStop::Time(d), series } => {
                let csv = self.results.series_path(&step.id, "")?;
                let run = self.io(
                    step,
                    IoSpec {
                        workload,
                        qd: *qd,
                        settings,
                        ramp: StdDuration::ZERO,
                        record: Some(std_duration(*d)),
                        passes: None,
                        budget: None,
                        series: Some((std_duration(*series), Some(csv.clone()))),
                        at: At::ONCE,
                    },
                )?;
                self.save_latency(step, out, &run)?;
                self.finish_io(step, out, run, settings, &csv)?;
            }
            Action::Precondition { workload, qd, stop: PreconditionStop::Steady { round, rule }, series } => {
                self.precondition_until_steady(step, out, workload, *qd, settings, *round, rule, *series)?;
            }
            Action::Rounds { cells, track, rule } => {
                self.rounds(step, out, cells, *track as usize, rule, settings)?
            }
            Action::DropCaches => out.actions = system::drop_caches(&self.targets),
            Action::Idle { time } => {
                let end = Instant::now() + std_duration(*time);
                while Instant::now() < end && !self.stop.load(Ordering::Relaxed) {
                    std::thread::sleep((end - Instant::now()).min(StdDuration::from_millis(100)));
                }
            }
            // apply_ram_limit did the work and said so; a limit already in
            // force is said here.
            Action::LimitRam { .. } if out.actions.is_empty() => {
                out.actions.push(match &self.ram {
                    Some(r) => format!("RAM limited to {}: {}", crate::units::human(r.limit), r.method),
                    None => "RAM not limited".to_string(),
                });
            }
            Action::LimitRam { .. } => {}
            Action::Copy { dataset } => {
                let t = &self.targets[0];
                if t.kind != TargetKind::File {
                    return Err(Error::unsupported("copy steps copy files, and need a file target")
                        .with_hint(
                            "give a file on the file system to test as --target, or run on a scratch file",
                        ));
                }
                let source = datasets_dir(self.opts, &self.results.path).join(&dataset.name);
                if copy::prepare(dataset, &source, &self.stop)? {
                    out.actions.push(format!("generated dataset {} in {}", dataset.name, source.display()));
                } else if !self.datasets_seen.contains(&source) {
                    // Made by an earlier run: out of the page cache, as a
                    // new one would be, before this run's first copy of it.
                    copy::evict(&source, dataset.files);
                    out.actions.push(format!(
                        "reused dataset {} in {}, dropped from the page cache",
                        dataset.name,
                        source.display()
                    ));
                }
                if !self.datasets_seen.contains(&source) {
                    self.datasets_seen.push(source.clone());
                }
                let parent = t.path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
                let dest = parent.join(format!("methodic-copy-{}", std::process::id()));
                if !self.copies.contains(&dest) {
                    self.copies.push(dest.clone());
                }
                let (copied, device_io) = copy::copy_tree(&source, &dest, dataset.files, &self.stop)?;
                out.copy = Some(copied);
                out.device_io = Some(device_io);
            }
            Action::Probe(p) => {
                let t = &self.targets[0];
                // A write reaches the device as written only with O_DIRECT,
                // in whole logical blocks; through the page cache it reaches
                // the device as whole pages. One route for every offset, or
                // the two routes' own difference would show as a pattern.
                let direct = settings.io == IoMode::Direct && t.has_direct();
                let unit =
                    if direct { t.direct_align().max(512) } else { probe::page_size().max(t.logical_block) };
                let in_ram = t
                    .identity
                    .file_system
                    .as_ref()
                    .map(|f| f.fs_type.as_str())
                    .filter(|f| ["tmpfs", "ramfs"].contains(f));
                let ram_disk = t.identity.driver.as_deref().filter(|d| ["zram", "brd"].contains(d));
                let caveat = in_ram
                    .map(|fs| format!("the target is a file on {fs}, in RAM: there is no flash behind it"))
                    .or(ram_disk
                        .map(|d| format!("the target is a {d} device, in RAM: there is no flash behind it")));
                let route = probe::Route { file: t.file(direct), direct, unit, caveat };
                let csv = self.results.series_path(&step.id, "")?;
                out.probe = Some(probe::run(p, &route, 0, &csv, &self.stop)?);
                out.series = Some(self.relative(&csv));
            }
        }
        Ok(())
    }

    /// Puts the step's RAM limit in force (or lifts it).
    fn apply_ram_limit(&mut self, wanted: Option<Bytes>, out: &mut StepResult) -> Result<()> {
        let current = self.ram.as_ref().map(|r| r.limit);
        if current == wanted.map(|b| b.0) {
            return Ok(());
        }
        self.ram = None;
        if let Some(limit) = wanted {
            let r = system::limit_ram(limit.0)?;
            out.actions.push(format!("RAM limited to {}: {}", crate::units::human(limit.0), r.method));
            self.ram = Some(r);
        } else {
            out.actions.push("RAM limit lifted".into());
        }
        Ok(())
    }

    /// The engine `io_as` chooses for a queue on that many devices.
    fn engine_of(&self) -> impl Fn(&Qd, usize) -> EngineKind + '_ {
        move |qd, devices| self.engine_for(qd, devices.min(self.targets.len())).0
    }

    /// The distinct I/O shapes of the plan's steps, with the engine each
    /// will run with on these targets.
    fn shapes(&self) -> Vec<Shape> {
        ceiling::plan_shapes(self.plan, &self.engine_of())
    }

    /// The I/Os `step` does, each with its shape.
    fn uses<'p>(&self, step: &'p Step) -> Vec<ceiling::Use<'p>> {
        ceiling::step_uses(step, self.plan.target, &self.engine_of())
    }

    /// Runs the engine against a file in RAM (tmpfs at /dev/shm) instead of
    /// the targets: random reads of each shape, `seconds` each after a
    /// ramp of a fifth of that, with the shape's engine, threads and depth;
    /// and a memory copy. A shape that cannot run is left unmeasured, and
    /// says why.
    fn ceiling(&mut self, shapes: &[Shape], seconds: f64) -> Result<Ceilings> {
        let shm = Path::new("/dev/shm");
        if !shm.is_dir() {
            return Err(Error::unsupported("there is no /dev/shm to hold a file in RAM"));
        }
        // Room for every thread's stripe to hold blocks.
        let need = shapes.iter().map(|s| s.largest_block().0.saturating_mul(s.threads as u64 * 2)).max();
        let size = need.unwrap_or(0).clamp(64 << 20, 512 << 20);
        // A name of this run's own: two runs in one process (tests, a
        // library user) must not remove each other's file.
        static CEILINGS: AtomicU64 = AtomicU64::new(0);
        let n = CEILINGS.fetch_add(1, Ordering::Relaxed);
        let path = shm.join(format!("methodic-ceiling-{}-{n}.bin", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let open = OpenOptionsT {
            create_size: Some(size),
            need_direct: false,
            write: true,
            destroy: None,
            overwrite: false,
        };
        let free = system::free_bytes(shm).map_or(0, |f| f.0);
        if free < size * 2 {
            return Err(Error::unsupported(format!(
                "/dev/shm has {} free, too little for a {} file in RAM",
                crate::units::human(free),
                crate::units::human(size)
            )));
        }
        let ram = Target::open(&path, &open)?;
        // The workers use the open file: its name can go now, so that no
        // crash leaves it holding RAM.
        let _ = std::fs::remove_file(&path);
        // Real data: tmpfs reads unwritten pages without copying them.
        let written = {
            use std::os::unix::fs::FileExt;
            let mut chunk = vec![0u8; 1 << 20];
            crate::rng::Rng::new(0xce11).fill(&mut chunk);
            (0..size / chunk.len() as u64)
                .try_for_each(|k| ram.file(false).write_all_at(&chunk, k * chunk.len() as u64))
        };
        if let Err(e) = written {
            let _ = ram.remove_scratch();
            return Err(Error::io(format!("cannot write {}", path.display()), e));
        }
        let saved = std::mem::replace(&mut self.targets, vec![ram]);
        let mut measured = Vec::new();
        let mut unmeasured = Vec::new();
        for shape in shapes {
            if self.stop.load(Ordering::SeqCst) {
                break;
            }
            // The engine the steps of this shape run with: `engine_for`
            // chooses psync for a file that completes inline, io_uring for
            // one that does not, as it does on the targets.
            self.targets[0].inline_completion = shape.engine == EngineKind::Psync;
            let workload = ceiling_workload(shape);
            let run = self.io_as("calibrate/iops", 1, ceiling_spec(&workload, shape.queue(), seconds));
            let ran = run.and_then(|r| {
                let (engine, threads, depth) = (r.info.engine, r.info.threads, r.info.depth);
                if (engine, threads, depth) != (shape.engine, shape.threads, shape.depth) {
                    return Err(Error::unsupported(format!(
                        "it ran as {} {threads}x{depth}, not as the steps do",
                        engine.name()
                    )));
                }
                let s = r.recorder.summary(r.seconds);
                Ok(ceiling::ShapeCeiling { shape: shape.clone(), iops: s.total.iops, mb_s: s.total.mb_s })
            });
            match ran {
                Ok(c) => measured.push(c),
                Err(e) => unmeasured.push(ceiling::Unmeasured { shape: shape.clone(), reason: describe(&e) }),
            }
        }
        let ram = std::mem::replace(&mut self.targets, saved);
        let _ = ram[0].remove_scratch();
        Ok(Ceilings {
            target: format!("{} (tmpfs)", path.display()),
            seconds_each: seconds,
            memory_copy_mb_s: crate::ceiling::memory_copy_mb_s(seconds.min(0.5)),
            shapes: measured,
            unmeasured,
        })
    }

    /// Bytes of an `until written` amount: a size, or a share of the span.
    fn bytes_of(&self, w: Extent, settings: Settings) -> u64 {
        match w {
            Extent::Bytes(b) => b.0,
            Extent::Percent(p) => {
                let span: u64 = self
                    .targets
                    .iter()
                    .take(settings.devices.max(1) as usize)
                    .map(|t| match settings.span {
                        Extent::Percent(s) => s.of(t.capacity),
                        Extent::Bytes(b) => b.0.min(t.capacity),
                    })
                    .sum();
                p.of(span)
            }
        }
    }

    /// Saves a step's latency histograms as an HdrHistogram interval log:
    /// one interval, its record window.
    fn save_latency(&mut self, step: &Step, out: &mut StepResult, run: &IoRun) -> Result<()> {
        out.peak = crate::analysis::peak::of(&run.rows, run.interval_s);
        let Some(mut log) = self.latency_log(step, run.record_start)? else { return Ok(()) };
        run.log_into(&mut log, "")?;
        out.latency_log = Some(self.relative(log.path()));
        Ok(())
    }

    /// The step's interval log, made anew, its times counted from `base`;
    /// `None` when latencies are not recorded.
    fn latency_log(&self, step: &Step, base: SystemTime) -> Result<Option<HistogramLog>> {
        if self.opts.no_latency {
            return Ok(None);
        }
        HistogramLog::create(&self.results.histogram_path(&step.id)?, &step.id, base).map(Some)
    }

    fn relative(&self, path: &Path) -> PathBuf {
        path.strip_prefix(&self.results.path).unwrap_or(path).to_path_buf()
    }

    fn finish_io(
        &mut self,
        step: &Step,
        out: &mut StepResult,
        run: IoRun,
        settings: Settings,
        series: &Path,
    ) -> Result<()> {
        out.summary = Some(run.recorder.summary(run.seconds));
        out.io = Some(run.info);
        out.series = Some(self.relative(series));
        if settings.io == IoMode::Buffered && step.action.writes() {
            // The numbers are recorded first: a sync that fails (EIO on
            // write-back) fails the step, and says so, but keeps them.
            for t in &self.targets {
                t.file(false).sync_data().map_err(|e| {
                    Error::io(format!("the buffered writes could not be synced to {}", t.path.display()), e)
                })?;
            }
            out.actions.push("buffered writes synced to the device after the step (not timed)".into());
        }
        // After the sync: the writes have reached the device. Reads asked
        // are those recorded (a ramp's are not in the summary); writes
        // asked include the ramp's.
        if let Some(meter) = self.meter.take() {
            let asked_read = out.summary.as_ref().and_then(|s| s.read.as_ref()).map_or(0, |r| r.bytes);
            let asked_written = out.io.as_ref().map_or(0, |i| i.bytes_written);
            out.device_io = Some(meter.finish(Bytes(asked_read), Bytes(asked_written)));
        }
        Ok(())
    }

    /// The engine for a worker keeping `per_worker` I/Os in flight.
    /// The engine for a step whose workers keep `qd` in flight on the
    /// first `devices` targets, and why.
    fn engine_for(&self, qd: &Qd, devices: usize) -> (EngineKind, &'static str) {
        let inline = self.targets.iter().take(devices).all(|t| t.inline_completion);
        match self.opts.engine {
            EngineChoice::Psync => (EngineKind::Psync, "--engine psync"),
            EngineChoice::IoUring if self.uring => (EngineKind::IoUring, "--engine io-uring"),
            _ if !self.uring => (EngineKind::Psync, "io_uring is not available"),
            _ if qd.per_worker == 1 => (EngineKind::Psync, "one I/O in flight a worker: psync is faster"),
            _ if inline && qd.total <= MAX_PSYNC_THREADS => (
                EngineKind::Psync,
                "the target completes I/O in the submitting thread (zram, tmpfs): a psync thread an I/O \
                 beats io_uring's kernel workers",
            ),
            _ => (EngineKind::IoUring, "io_uring keeps the queue depth from one thread a worker"),
        }
    }

    /// Runs workers on the targets as `spec` says and merges what they did.
    fn io(&mut self, step: &Step, spec: IoSpec<'_>) -> Result<IoRun> {
        self.io_as(&step.id, step.repeat.map_or(1, |r| r.run), spec)
    }

    /// Runs workers as `spec` says, named by `id`; each worker draws the
    /// random stream of `id`, repeat run `run`, the spec's round and cell,
    /// and its own index.
    fn io_as(&mut self, id: &str, run: u32, spec: IoSpec<'_>) -> Result<IoRun> {
        let device_count = (spec.settings.devices.max(1) as usize).min(self.targets.len());
        let (engine, engine_reason) = self.engine_for(&spec.qd, device_count);
        // psync keeps one I/O in flight a thread: the queue depth is kept
        // with one thread per outstanding I/O (the ceiling's shapes use the
        // same mapping).
        let (threads, depth) = ceiling::threads_and_depth(engine, &spec.qd);
        let threads = threads as usize;
        let devices = device_count.min(threads);
        let largest = spec.workload.blocks.iter().map(|b| b.size).max().unwrap_or(Bytes(4096));
        let direct = spec.settings.io == IoMode::Direct;
        // Each device's region, and the stripes of the threads on it.
        let mut layout: Vec<(usize, Region, Region)> = Vec::with_capacity(threads);
        for d in 0..devices {
            let t = &self.targets[d];
            let region = step_region(
                spec.settings.span,
                spec.workload.offset,
                largest,
                Bytes(t.capacity),
                t.logical_block,
            )
            .map_err(|e| {
                Error::target(&t.path, e.to_string()).with_hint("use a larger target or a smaller span")
            })?;
            let on_device: Vec<usize> = (0..threads).filter(|i| i % devices == d).collect();
            let stripe_align = spec.workload.align.0.max(largest.0).max(t.logical_block);
            let stripes = worker_regions(region, on_device.len() as u32, stripe_align);
            for (k, i) in on_device.into_iter().enumerate() {
                layout.push((i, region, stripes[k]));
            }
        }
        layout.sort_by_key(|l| l.0);
        let (tx, collector) = match &spec.series {
            Some((interval, path)) => {
                let (tx, h) = series::collector(path.as_deref(), threads, interval.as_secs_f64())
                    .map_err(|e| Error::io("cannot start the series", e))?;
                (Some(tx), Some(h))
            }
            None => (None, None),
        };
        let barrier = Arc::new(Barrier::new(threads));
        let abort = Arc::new(AtomicBool::new(false));
        let budget = spec.budget.map(|target| SharedBudget { issued: Arc::new(AtomicU64::new(0)), target });
        // Pinned round robin over the CPUs the process may use (a taskset or
        // cgroup mask), not CPU 0..n.
        let cpus = crate::host::allowed_cpus();
        let (mono0, wall0) = (Instant::now(), SystemTime::now());
        let stream = |worker: u32| Stream { step: id, run, round: spec.at.round, cell: spec.at.cell, worker };
        let seed0 = stream_seed(self.opts.seed, &stream(0));
        let jobs: Vec<Job> = layout
            .iter()
            .map(|&(i, region, stripe)| Job {
                fd: {
                    use std::os::unix::io::AsRawFd;
                    self.targets[i % devices].file(direct).as_raw_fd()
                },
                engine,
                // Block devices without nowait get every request punted to
                // a kernel worker anyway; files write faster inline (tmpfs).
                force_async: {
                    let t = &self.targets[i % devices];
                    t.kind == TargetKind::BlockDevice && !t.nowait
                },
                depth,
                workload: spec.workload.clone(),
                area: region,
                stripe,
                seed: stream_seed(self.opts.seed, &stream(i as u32)),
                data: spec.settings.data,
                timing: Timing { ramp: spec.ramp, record: spec.record },
                start: barrier.clone(),
                quota: spec.passes.map(|p| stripe.len * p as u64),
                budget: budget.clone(),
                series: tx.as_ref().map(|tx| SeriesLink {
                    tx: tx.clone(),
                    worker: i,
                    interval: spec.series.as_ref().map_or(StdDuration::from_secs(1), |s| s.0),
                }),
                stop: self.stop.clone(),
                abort: abort.clone(),
                cpu: self.opts.pin.then_some(cpus[i % cpus.len()]),
                latency: !self.opts.no_latency,
                #[cfg(test)]
                fault: FAULT.with(|f| {
                    f.borrow().as_ref().filter(|(t, _)| *t == i % devices).map(|(_, fault)| fault.clone())
                }),
                #[cfg(test)]
                trace: TRACE.with(|t| t.borrow().is_some()).then(Default::default),
                #[cfg(test)]
                each_stamp: None,
            })
            .collect();
        #[cfg(test)]
        let traces: Vec<_> = jobs.iter().filter_map(|j| j.trace.clone()).collect();
        drop(tx);
        let outcomes: Vec<std::io::Result<worker::Outcome>> = std::thread::scope(|s| {
            let handles: Vec<_> = jobs
                .into_iter()
                .enumerate()
                .map(|(i, job)| {
                    std::thread::Builder::new()
                        .name(format!("methodic-worker-{i}"))
                        .spawn_scoped(s, move || worker::run(job))
                        .expect("a worker thread starts")
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|_| Err(std::io::Error::other("a worker panicked"))))
                .collect()
        });
        #[cfg(test)]
        TRACE.with(|t| {
            if let Some(calls) = t.borrow_mut().as_mut() {
                calls.push(traces.iter().map(|l| l.lock().unwrap().clone()).collect());
            }
        });
        let rows = match collector {
            Some(h) => {
                h.join().map_err(|_| Error::unsupported("the series collector panicked"))?.map_err(|e| {
                    let path =
                        spec.series.as_ref().and_then(|(_, p)| p.as_deref()).unwrap_or(Path::new("series"));
                    Error::io(format!("cannot write {}", path.display()), e)
                })?
            }
            None => Vec::new(),
        };
        let mut recorder = Recorder::default();
        let (mut inflight, mut written) = (0.0, 0u64);
        let mut fixed = true;
        let mut forced_async = false;
        let mut from: Option<Instant> = None;
        let mut last: Option<Instant> = None;
        // Worker k drives target k % devices (see `layout`).
        let (mut failed, mut completed) = (0u64, 0u64);
        let mut failures: Vec<(usize, worker::IoFailure)> = Vec::new();
        for (k, o) in outcomes.into_iter().enumerate() {
            let on = k % devices;
            let o =
                o.map_err(|e| Error::io(format!("step {id} on {}", self.targets[on].path.display()), e))?;
            failed += o.errors;
            completed += o.completed;
            if let Some(f) = o.first_error {
                failures.push((on, f));
            }
            recorder.merge(&o.recorder);
            inflight += o.mean_inflight;
            written += o.written_bytes;
            fixed &= o.fixed_buffers || engine == EngineKind::Psync;
            forced_async |= o.force_async;
            from = Some(from.map_or(o.record_from, |f: Instant| f.min(o.record_from)));
            last = match (last, o.last_recorded) {
                (Some(a), Some(b)) => Some(a.max(b)),
                (a, b) => a.or(b),
            };
        }
        let measured = match (from, last) {
            (Some(f), Some(l)) => l.saturating_duration_since(f).as_secs_f64(),
            _ => 0.0,
        };
        // A timed step records completions inside its record time, so that
        // is its length; a step that stops by bytes lasts as long as it took.
        // A timed step stopped early by a signal, or by its byte budget
        // (`for T until written N`), lasted as long as it ran.
        // A step that failed lasted until its failure.
        let cut_short = self.stop.load(Ordering::SeqCst) || spec.budget.is_some() || !failures.is_empty();
        let seconds = match spec.record {
            Some(r) if !cut_short => r.as_secs_f64(),
            Some(r) => measured.min(r.as_secs_f64()),
            None => measured,
        };
        let errors = failures.first().map(|(on, f)| {
            let mut also_on: Vec<PathBuf> = Vec::new();
            for (t, _) in &failures {
                let p = &self.targets[*t].path;
                if *t != *on && !also_on.contains(p) {
                    also_on.push(p.clone());
                }
            }
            IoErrors {
                failed,
                completed,
                first: crate::failure::failed_io(&self.targets[*on].path, f),
                also_on,
            }
        });
        let run = IoRun {
            recorder,
            seconds,
            interval_s: spec.series.as_ref().map_or(1.0, |s| s.0.as_secs_f64()),
            record_start: wall0 + from.map_or(StdDuration::ZERO, |f| f.saturating_duration_since(mono0)),
            info: IoInfo {
                engine,
                engine_reason: engine_reason.to_string(),
                threads: threads as u32,
                depth,
                mean_inflight: inflight,
                registered_buffers: engine == EngineKind::IoUring && fixed,
                forced_async,
                latency_recorded: !self.opts.no_latency,
                bytes_written: written,
                seed: seed0,
                errors,
            },
            rows,
        };
        if run.info.errors.is_some() {
            let series = spec.series.as_ref().and_then(|(_, p)| p.as_deref()).map(|p| self.relative(p));
            return Err(Error::IoFailed(Box::new(IoFailed {
                step: id.to_string(),
                summary: run.recorder.summary(run.seconds),
                info: run.info,
                series,
            })));
        }
        Ok(run)
    }

    #[allow(clippy::too_many_arguments)]
    fn precondition_until_steady(
        &mut self,
        step: &Step,
        out: &mut StepResult,
        workload: &Workload,
        qd: Qd,
        settings: Settings,
        round: methodic_compiler::plan::Duration,
        rule: &SteadyRule,
        series: methodic_compiler::plan::Duration,
    ) -> Result<()> {
        let csv = self.results.series_path(&step.id, "")?;
        let rounds_csv = self.results.series_path(&step.id, ".rounds")?;
        let mut series_out = CsvOut::create(&csv, series::HEADER)?;
        let mut rounds_out = CsvOut::create(
            &rounds_csv,
            "round,value,window_average,range,range_limit,change,change_limit,steady",
        )?;
        let mut values = Vec::new();
        let mut window = None;
        let mut all = Recorder::default();
        let mut info = None;
        let mut seconds = 0.0;
        let mut latencies = Vec::new();
        let mut rows = Vec::new();
        let mut log = self.latency_log(step, SystemTime::now())?;
        // An error in a round ends the loop, but the rounds before it are
        // kept in the step's record.
        let mut gather = || -> Result<()> {
            for r in 1..=rule.max_rounds {
                let run = self.io(
                    step,
                    IoSpec {
                        workload,
                        qd,
                        settings,
                        ramp: StdDuration::ZERO,
                        record: Some(std_duration(round)),
                        passes: None,
                        budget: None,
                        series: Some((std_duration(series), None)),
                        at: At { round: r, cell: 1 },
                    },
                )?;
                let summary = run.recorder.summary(run.seconds);
                let value = metric_of(&summary, rule.metric);
                values.push(value);
                latencies.push(summary.total.latency_us.clone());
                if let Some(log) = log.as_mut() {
                    run.log_into(log, "")?;
                }
                rows.extend(run.rows.iter().map(|r| Row { t: seconds + r.t, ..*r }));
                for row in &run.rows {
                    series_out.row(&Row { t: seconds + row.t, ..*row }.csv_line())?;
                }
                seconds += run.seconds;
                all.merge(&run.recorder);
                info = Some(run.info);
                window = steady::check(&values, rule);
                match &window {
                    Some(w) => rounds_out.row(&format!(
                        "{r},{value:.3},{:.3},{:.3},{:.3},{:.3},{:.3},{}",
                        w.average, w.range, w.range_limit, w.change, w.change_limit, w.steady
                    ))?,
                    None => rounds_out.row(&format!("{r},{value:.3},,,,,,false"))?,
                }
                if window.as_ref().is_some_and(|w| w.steady) || self.stop.load(Ordering::Relaxed) {
                    break;
                }
            }
            Ok(())
        };
        let outcome = gather();
        // The failed round's I/O facts (its errors) stand for the step's.
        if let Err(Error::IoFailed(f)) = &outcome {
            info = Some(f.info.clone());
        }
        if !values.is_empty() {
            out.summary = Some(all.summary(seconds));
            out.io = info;
            out.series = Some(self.relative(&csv));
            out.latency_log = log.as_ref().map(|l| self.relative(l.path()));
            out.steady =
                Some(SteadyResult { rounds_latency_us: latencies, ..steady_result(rule, values, window) });
            out.peak = crate::analysis::peak::of(&rows, std_duration(series).as_secs_f64());
        }
        outcome
    }

    fn rounds(
        &mut self,
        step: &Step,
        out: &mut StepResult,
        cells: &[Cell],
        track: usize,
        rule: &SteadyRule,
        settings: Settings,
    ) -> Result<()> {
        let csv = self.results.series_path(&step.id, ".rounds")?;
        let mut rounds_out = CsvOut::create(
            &csv,
            "round,cell,workload,qd,iops,mb_s,mean_latency_us,p99_latency_us,p99_99_latency_us,max_latency_us",
        )?;
        let mut per_cell: Vec<Vec<Summary>> = vec![Vec::new(); cells.len()];
        // Each cell's last `window` rounds of latencies, to merge into the
        // window's distribution at the end.
        let mut tails: Vec<RecentRecorders> = vec![RecentRecorders::new(rule.window as usize); cells.len()];
        let mut log = self.latency_log(step, SystemTime::now())?;
        let mut values = Vec::new();
        let mut window = None;
        let mut info = None;
        // As for a precondition: an error keeps the rounds before it.
        let mut gather = || -> Result<()> {
            for r in 1..=rule.max_rounds {
                for (k, cell) in cells.iter().enumerate() {
                    let run = self.io(
                        step,
                        IoSpec {
                            workload: &cell.workload,
                            qd: cell.qd,
                            settings,
                            ramp: std_duration(cell.ramp),
                            record: Some(std_duration(cell.record)),
                            passes: None,
                            budget: None,
                            series: None,
                            at: At { round: r, cell: k as u32 + 1 },
                        },
                    )?;
                    let s = run.recorder.summary(run.seconds);
                    rounds_out.row(&format!(
                        "{r},{},{},{},{:.1},{:.3},{:.2},{:.2},{:.2},{:.2}",
                        k + 1,
                        cell.workload.name.replace(',', ";"),
                        cell.qd.total,
                        s.total.iops,
                        s.total.mb_s,
                        s.total.latency_us.mean,
                        s.total.latency_us.p99,
                        s.total.latency_us.p99_99,
                        s.total.latency_us.max
                    ))?;
                    if let Some(log) = log.as_mut() {
                        run.log_into(log, &format!("cell{}.", k + 1))?;
                    }
                    tails[k].push(&run.recorder);
                    if k == track {
                        values.push(metric_of(&s, rule.metric));
                    }
                    per_cell[k].push(s);
                    info = Some(run.info);
                    if self.stop.load(Ordering::Relaxed) {
                        break;
                    }
                }
                window = steady::check(&values, rule);
                if window.as_ref().is_some_and(|w| w.steady) || self.stop.load(Ordering::Relaxed) {
                    break;
                }
            }
            Ok(())
        };
        let outcome = gather();
        if let Err(Error::IoFailed(f)) = &outcome {
            info = Some(f.info.clone());
        }
        if per_cell.iter().all(Vec::is_empty) {
            return outcome;
        }
        let w = rule.window as usize;
        out.cells = Some(
            cells
                .iter()
                .zip(&per_cell)
                .zip(&tails)
                .filter(|((_, runs), _)| !runs.is_empty())
                .map(|((cell, runs), tail_latency)| {
                    let tail = &runs[runs.len().saturating_sub(w)..];
                    let avg =
                        |f: &dyn Fn(&Summary) -> f64| tail.iter().map(f).sum::<f64>() / tail.len() as f64;
                    CellResult {
                        workload: cell.workload.name.clone(),
                        qd: cell.qd.total,
                        window_iops: avg(&|s| s.total.iops),
                        window_mb_s: avg(&|s| s.total.mb_s),
                        window_mean_latency_us: avg(&|s| s.total.latency_us.mean),
                        window_latency_us: tail_latency.merged(),
                        rounds_latency_us: runs.iter().map(|s| s.total.latency_us.clone()).collect(),
                        peak_iops: runs.iter().map(|s| s.total.iops).fold(0.0, f64::max),
                        peak_mb_s: runs.iter().map(|s| s.total.mb_s).fold(0.0, f64::max),
                        last: runs[runs.len() - 1].clone(),
                    }
                })
                .collect(),
        );
        out.io = info;
        out.series = Some(self.relative(&csv));
        out.latency_log = log.as_ref().map(|l| self.relative(l.path()));
        out.steady = Some(steady_result(rule, values, window));
        outcome
    }
}

impl IoRun {
    /// Writes the run's histograms into `log` as one interval, its record
    /// window, their tags after `prefix`.
    fn log_into(&self, log: &mut HistogramLog, prefix: &str) -> Result<()> {
        log.interval(&self.recorder, self.record_start, StdDuration::from_secs_f64(self.seconds), prefix)
    }
}

/// A cell's latency histograms of its last `keep` rounds, kept compressed
/// (a few KiB a round instead of the histogram's few hundred).
#[derive(Clone)]
struct RecentRecorders {
    keep: usize,
    rounds: std::collections::VecDeque<[Vec<u8>; 2]>,
}

impl RecentRecorders {
    fn new(keep: usize) -> RecentRecorders {
        RecentRecorders { keep: keep.max(1), rounds: std::collections::VecDeque::new() }
    }

    fn push(&mut self, rec: &Recorder) {
        use hdrhistogram::serialization::{Serializer, V2DeflateSerializer};
        let mut ser = V2DeflateSerializer::new();
        let mut pack = |h: &hdrhistogram::Histogram<u64>| {
            let mut bytes = Vec::new();
            // Serializing into memory fails only on a histogram too large to encode.
            ser.serialize(h, &mut bytes).map(|_| bytes).unwrap_or_default()
        };
        if self.rounds.len() == self.keep {
            self.rounds.pop_front();
        }
        self.rounds.push_back([pack(&rec.read.lat), pack(&rec.write.lat)]);
    }

    /// The latency of every I/O of the kept rounds, reads and writes together.
    fn merged(&self) -> Latency {
        let mut all = crate::stats::histogram(3);
        let mut de = hdrhistogram::serialization::Deserializer::new();
        for bytes in self.rounds.iter().flatten().filter(|b| !b.is_empty()) {
            if let Ok(h) = de.deserialize::<u64, _>(&mut bytes.as_slice()) {
                let _ = all.add(&h);
            }
        }
        crate::stats::latency_of(&all)
    }
}

/// What a steady-state loop reports: the tracked values and the last window.
fn steady_result(rule: &SteadyRule, values: Vec<f64>, window: Option<steady::Window>) -> SteadyResult {
    SteadyResult {
        metric: rule.metric,
        reached: window.as_ref().is_some_and(|w| w.steady),
        rounds: values.len() as u32,
        values,
        window,
        rounds_latency_us: Vec::new(),
    }
}

fn metric_of(s: &Summary, m: Metric) -> f64 {
    match m {
        Metric::Iops => s.total.iops,
        Metric::Bandwidth => s.total.mb_s,
        Metric::Latency => s.total.latency_us.mean,
    }
}

/// A CSV file written a row at a time and flushed, so that a crash keeps
/// every finished row.
struct CsvOut {
    path: PathBuf,
    file: std::io::BufWriter<std::fs::File>,
}

impl CsvOut {
    fn create(path: &Path, header: &str) -> Result<CsvOut> {
        let f = std::fs::File::create(path)
            .map_err(|e| Error::io(format!("cannot create {}", path.display()), e))?;
        let mut out = CsvOut { path: path.to_path_buf(), file: std::io::BufWriter::new(f) };
        out.row(header)?;
        Ok(out)
    }

    fn row(&mut self, line: &str) -> Result<()> {
        use std::io::Write;
        writeln!(self.file, "{line}")
            .and_then(|()| self.file.flush())
            .map_err(|e| Error::io(format!("cannot write {}", self.path.display()), e))
    }
}

#[cfg(test)]
mod tests;
