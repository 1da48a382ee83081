//! A session: a run's steps from its first to the end, each run by its
//! kind's module and recorded (`steps.jsonl`, then the manifest) before
//! the next starts, and the end of the run however it ends (RAM limits
//! lifted, write caches restored, copies and scratch files removed, the
//! last manifest and `results.json`). A new run, a run on many hosts and a
//! resume each make a [`Session`] and hand it to [`execute`].

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use methodic_compiler::plan::{Action, Bytes, IoMode, OnError, Plan, Step, TimeRange, plural};
use methodic_results::dir::ResultsDir;
use methodic_results::manifest::EngineNote;
use methodic_results::record::{MethodologyRef, RunReport, Status, StepResult};

use super::ceiling;
use super::io::Workers;
use super::kinds;
use super::options::{Observer, RunOptions};
use super::remote::OnHosts;
use super::signals::{interrupted_by, stop_flag, stopped_by};
use super::step::{Executor, Local, OperatingPoint, Site};
use crate::engine::Real;
use crate::error::{Error, Result, describe};
use crate::failure::failed_steps;
use crate::target::Target;
use crate::time;
use methodic_results::manifest::{DriveTracker, Manifest};

/// A run ready to go: its results directory, manifest and open targets,
/// and where in the plan it starts (after the steps a
/// resume keeps).
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

/// How the run stands: completed until a step fails, is interrupted or
/// cannot be recorded; the error in one line.
struct Standing {
    status: Status,
    error: Option<String>,
}

impl Standing {
    fn fail(&mut self, error: String) {
        self.status = Status::Failed;
        self.error = Some(error);
    }

    fn interrupt(&mut self) {
        self.status = Status::Interrupted;
        self.error = Some(interrupted_by());
    }
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
        seconds_before,
        measure_ceiling,
        ram,
    } = session;
    let opts = &opts;
    // Where the run's I/O runs, for the whole session: on this machine's
    // targets, or by fio on every host of `--hosts` (with the session's
    // own start margin).
    let on_hosts;
    let site: &dyn Site = if opts.hosts.is_empty() {
        &Local
    } else {
        on_hosts = OnHosts::new(opts);
        &on_hosts
    };
    let mut exec = executor(&plan, site, opts, targets, &mut results, &engine, &manifest, &earlier);
    if measure_ceiling {
        host_ceilings(&exec, &mut manifest, opts.rehearse, observer);
    }
    let mut steps = earlier;
    let mut standing = Standing { status: Status::Completed, error: None };
    before_first(&mut exec, &mut manifest, first, ram, &mut standing, observer);
    for (i, step) in plan.steps.iter().enumerate().skip(first) {
        if standing.error.is_some() {
            break;
        }
        // A signal between steps (or during the host ceiling) stops the run
        // before the next step starts.
        if exec.workers.stop.load(Ordering::SeqCst) {
            standing.interrupt();
            break;
        }
        // A run of a repeat `until cv` after the one it stopped after.
        if let Some(stop) = super::until::skipped(&plan, i, &steps) {
            if !skip_step(&exec, &mut manifest, i, &stop, &mut standing, observer) {
                break;
            }
            continue;
        }
        let go_on =
            run_step(&mut exec, &mut manifest, &mut drive, &mut steps, i, step, &mut standing, observer);
        if !go_on {
            break;
        }
    }
    // Steps failed and the run went past them (on_error continue): it
    // still failed, and says which steps did.
    if let (Status::Completed, Some(e)) = (standing.status, failed_steps(&plan, &steps)) {
        standing.fail(e);
    }
    clean_up(exec, &mut manifest, standing.status, observer);
    let Standing { status, error } = standing;
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
        signal: (status == Status::Interrupted).then(stopped_by).flatten(),
    };
    results.finish(&report)?;
    saved?;
    Ok(report)
}

/// What the session's steps run with: its workers, the steps done
/// before it (what later rates and operating points refer to) and the
/// run's data stamping.
#[expect(clippy::too_many_arguments, reason = "the parts of a session an executor borrows, each once")]
fn executor<'a>(
    plan: &'a Plan,
    site: &'a dyn Site,
    opts: &'a RunOptions,
    targets: Vec<Target>,
    results: &'a mut ResultsDir,
    engine: &EngineNote,
    manifest: &Manifest,
    earlier: &[StepResult],
) -> Executor<'a> {
    let workers = Workers {
        engine: opts.engine,
        uring: engine.io_uring,
        seed: opts.seed,
        pin: opts.pin,
        latency: !opts.no_latency,
        stop: stop_flag(),
        engines: opts.engines.clone().unwrap_or_else(|| Arc::new(Real)),
    };
    Executor {
        plan,
        site,
        opts,
        targets,
        results,
        workers,
        ram: None,
        copies: Vec::new(),
        datasets_seen: Vec::new(),
        meter: None,
        done_iops: earlier.iter().filter_map(done_iops).collect(),
        done_points: earlier.iter().filter_map(|r| done_points(plan, r)).collect(),
        stamping: crate::verify::Stamping {
            run: crate::verify::run_identity(manifest.seed, &manifest.started),
            interval: verify_interval(plan),
        },
        floor: Default::default(),
    }
}

/// The host ceiling of each I/O shape of the plan (at most
/// [`crate::ceiling::MAX_SHAPES`]), kept in the manifest; what could not
/// be measured is said and kept with its reason.
fn host_ceilings(exec: &Executor<'_>, manifest: &mut Manifest, rehearse: bool, observer: &mut dyn Observer) {
    let (shapes, left_out) = crate::ceiling::choose(exec.shapes());
    if shapes.is_empty() {
        return;
    }
    let seconds = if rehearse { 0.05 } else { 0.5 };
    observer.note(&format!(
        "measuring the host ceiling of each of the plan's {}: the engine against RAM, with no device in the \
         way, {seconds}s each",
        plural(shapes.len() as u64, "I/O shape", "I/O shapes")
    ));
    if !left_out.is_empty() {
        observer.note(&format!(
            "{} more are not measured, and their steps not judged: a run measures at most {}, those with the \
             smallest blocks and shallowest queues",
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
                    .map(|shape| methodic_results::ceiling::Unmeasured { shape, reason: why.clone() }),
            );
            manifest.ceilings = Some(c);
        }
        Err(e) => observer.note(&format!("the host ceiling was not measured: {}", describe(&e))),
    }
}

/// Before the first step: the drives' write cache as the methodology
/// asks (again on a resume: a crash may have left it either way), and a
/// RAM limit a resume finds in force at its first step, set again.
fn before_first(
    exec: &mut Executor<'_>,
    manifest: &mut Manifest,
    first: usize,
    ram: Option<Bytes>,
    standing: &mut Standing,
    observer: &mut dyn Observer,
) {
    if let Err(e) =
        crate::drive::cache::apply(exec.plan.write_cache, &exec.targets, &mut manifest.write_cache)
    {
        standing.fail(e);
    }
    for n in &manifest.write_cache {
        observer.note(&format!("write cache of {}: {}", n.target, n.done));
    }
    if let (Some(limit), Some(step)) = (ram, exec.plan.steps.get(first)) {
        let mut note = StepResult::new(first, step, exec.opts.rehearse, String::new());
        match kinds::system::apply_ram_limit(exec, Some(limit), &mut note) {
            Ok(()) => observer.note(&format!("as before step {}: {}", first + 1, note.actions.join("; "))),
            Err(e) => standing.fail(format!(
                "the RAM limit in force at step {} cannot be set again: {}",
                first + 1,
                describe(&e)
            )),
        }
    }
}

/// Passes over step `i`, not run because its repeat stopped (`stop`):
/// no record is made, the manifest marks it skipped and says why, and the
/// run's output says so once, at the first step passed over. Whether the
/// manifest could be saved.
fn skip_step(
    exec: &Executor<'_>,
    manifest: &mut Manifest,
    i: usize,
    stop: &super::until::Stop,
    standing: &mut Standing,
    observer: &mut dyn Observer,
) -> bool {
    let same_run = |s: &Step| s.repeat.map(|q| (q.group, q.run));
    let first_passed = exec.plan.steps[i].repeat.is_some_and(|r| r.run == stop.after + 1)
        && (i == 0 || same_run(&exec.plan.steps[i - 1]) != same_run(&exec.plan.steps[i]));
    if first_passed {
        observer.note(&stop.words());
    }
    manifest.step_skipped(i, &stop.words());
    if let Err(e) = manifest.save(&exec.results.path, time::rfc3339(time::unix_now())).map_err(Error::from) {
        standing.fail(describe(&e));
        return false;
    }
    true
}

/// Runs step `i` and records it: its result appended to `steps.jsonl`,
/// then the manifest saved. Whether the run goes on to the next step.
#[expect(clippy::too_many_arguments, reason = "the session's parts one step reads and records into")]
fn run_step(
    exec: &mut Executor<'_>,
    manifest: &mut Manifest,
    drive: &mut DriveTracker,
    steps: &mut Vec<StepResult>,
    i: usize,
    step: &Step,
    standing: &mut Standing,
    observer: &mut dyn Observer,
) -> bool {
    let plan = exec.plan;
    let remaining = plan.steps[i..].iter().fold(TimeRange::default(), |t, s| t + s.estimate.time);
    observer.step_started(i, plan.steps.len(), step, remaining);
    let step_start = time::unix_now();
    manifest.step_started(i, &time::rfc3339(step_start), &drive.state);
    if let Err(e) = manifest.save(&exec.results.path, time::rfc3339(step_start)).map_err(Error::from) {
        manifest.step_unrecorded(i, &describe(&e));
        standing.fail(describe(&e));
        return false;
    }
    let t0 = Instant::now();
    let mut result = StepResult::new(i, step, exec.opts.rehearse, time::rfc3339(step_start));
    let outcome = kinds::run(exec, step, &mut result, observer);
    // A step whose I/O ran in an earlier step's fio session (many hosts)
    // has its run's length already, and its start.
    if result.seconds == 0.0 {
        result.seconds = t0.elapsed().as_secs_f64();
    }
    // The pacing floor's file in RAM is the step's: tmpfs back for the next.
    exec.floor.release();
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
    judge(exec, manifest, step, i, steps, &mut result);
    if let Some(w) = result.repeats.as_ref().and_then(|r| r.warning.as_ref()) {
        observer.note(&format!("{}: {w}", step.id));
    }
    if let Some(w) = result.repeats.as_ref().and_then(|r| r.until.as_ref()?.warning(r.cv)) {
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
    if let Some((k, points)) = done_points(plan, &result) {
        exec.done_points.insert(k, points);
    }
    steps.push(result);
    match (outcome, recorded) {
        (_, Err(e)) => standing.fail(describe(&e)),
        _ if interrupted => standing.interrupt(),
        // Recorded as failed above; the run goes on, and ends failed.
        (Err(_), _) if plan.methodology.on_error == OnError::Continue => {
            observer.note(&format!("{} failed; on_error continue: going on to the next step", step.id));
            return true;
        }
        (Err(e), _) => standing.fail(describe(&e)),
        (Ok(()), Ok(())) => return true,
    }
    false
}

/// What a finished step is judged by: on the last run of a repeat, its
/// statistics over every run; each of its I/Os against the host ceiling
/// of its shape (a run resumed from an older manifest: against the one
/// ceiling it measured).
fn judge(
    exec: &Executor<'_>,
    manifest: &Manifest,
    step: &Step,
    i: usize,
    done: &[StepResult],
    result: &mut StepResult,
) {
    result.repeats = repeat_summary(exec.plan, i, result, done, manifest);
    if let Some(c) = &manifest.ceilings {
        (result.ceilings, result.host_bound) = crate::ceiling::judge(c, &exec.uses(step), result);
    } else if let (Some(c), Some(sum)) = (&manifest.host_ceiling, &result.summary) {
        result.host_bound = c.host_bound(sum.total.iops, sum.total.mb_s);
    }
}

/// However the run ended: RAM limits lifted, the drives' write cache
/// restored, copies removed, and scratch files removed when the run
/// completed (kept otherwise, for `--resume`, and said).
fn clean_up(mut exec: Executor<'_>, manifest: &mut Manifest, status: Status, observer: &mut dyn Observer) {
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
    let keep_scratch = exec.opts.keep_scratch;
    let keep = keep_scratch || status != Status::Completed;
    for t in exec.targets.iter().filter(|t| t.created) {
        if !keep {
            let _ = t.remove_scratch();
        } else if !keep_scratch {
            observer.note(&format!(
                "the scratch file {} is kept so that `methodic run --resume {}` can go on; delete it if you will not",
                t.path.display(),
                exec.results.path.display()
            ));
        }
    }
}

/// On the last run of a repeat, the statistics of this step over every
/// run, with a warning when run 1 stands apart; for a repeat `until cv`,
/// on each run from run N on, over the runs so far, with its cv against
/// the limit (the last run made holds the step's).
fn repeat_summary(
    plan: &Plan,
    i: usize,
    result: &StepResult,
    done: &[StepResult],
    m: &Manifest,
) -> Option<methodic_results::analysis::RepeatSummary> {
    use crate::analysis::repeats::{CacheContext, Run, spread_within, summarize};
    use methodic_results::analysis::SpreadCheck;
    let step = &plan.steps[i];
    let r = step.repeat?;
    if r.run != r.runs && r.until.is_none_or(|u| r.run < u.min_runs) {
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
    let mut runs: Vec<Run> = Vec::new();
    // The runs made so far: every run on the last.
    for k in 1..=r.run {
        let Some(&n) = in_run(k).get(place) else { continue };
        let res = if n == i { Some(result) } else { done.iter().find(|s| s.index == n + 1) };
        if let Some((s, v)) = res.and_then(|s| Some((s, super::until::value(s)?))) {
            runs.push(Run { number: k, value: v, device_io: s.device_io.as_ref() });
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
            Action::Erase { .. }
            | Action::Fill { .. }
            | Action::Precondition { .. }
            | Action::Measure { .. }
            | Action::Together { .. }
            | Action::Qos(_)
            | Action::Rounds { .. }
            | Action::DropCaches
            | Action::Idle { .. }
            | Action::LimitRam { .. }
            | Action::Probe(_) => checklist.span.as_ref().map(|s| s.bytes),
        },
        free_ram: step.ram_limit.map_or(available, |l| available.min(l.0)),
        caches_dropped: checklist.cache.caches_dropped,
        ram_limit: step.ram_limit.map(|b| b.0),
        source_in_ram: matches!(step.action, Action::Copy { .. })
            && m.datasets.as_ref().and_then(|d| d.file_system.as_ref()).is_some_and(|f| f.fs_type == "tmpfs"),
    };
    let unit = if result.copy.is_some() { "MB/s" } else { "IOPS" };
    let mut summary = summarize(&runs, unit, r.aggregate, &ctx);
    summary.until = r.until.map(|u| SpreadCheck {
        planned: r.runs,
        ran: r.run,
        min_runs: u.min_runs,
        limit: u.cv,
        met: spread_within(std::slice::from_ref(&summary.runs), u.cv).is_some(),
    });
    Some(summary)
}

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
fn done_points(plan: &Plan, r: &StepResult) -> Option<(usize, Vec<OperatingPoint>)> {
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
        // A measurement that chose its own queue depth, and steps that
        // measure no operating point.
        Action::Measure { at: Some(_), .. }
        | Action::Erase { .. }
        | Action::Fill { .. }
        | Action::Precondition { .. }
        | Action::Together { .. }
        | Action::Qos(_)
        | Action::DropCaches
        | Action::Idle { .. }
        | Action::LimitRam { .. }
        | Action::Copy { .. }
        | Action::Probe(_) => return None,
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
