//! A run on many hosts (`RunOptions::hosts`): which steps may run through
//! fio's client/server mode, checked before anything runs; starting such
//! a run (every host probed first, the manifest naming each); and each
//! I/O run of a step made the job every host runs at once
//! ([`io`], which [`Executor::io`] hands over to). methodic keeps the
//! plan: ramps and records, fills, rounds and their steady state, repeats
//! and resumes run as on one machine, each I/O run being one `fio
//! --client` over every host. The fio side (the hosts file, the probe,
//! running fio and reading its output) is `crate::hosts`'s.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::{Duration as StdDuration, SystemTime};

use methodic_compiler::plan::{
    Action, Bytes, Duration, EraseMethod, Extent, MeasureStop, Pauses, Percent, Plan, QosAxis, RateAmount,
    Step, WriteCache, plural,
};
use methodic_fio::{Engine, HostLogs, HostRun, Order, file_name, host_job};
use methodic_results::manifest::{EngineNote, HostNote};
use methodic_results::record::IoInfo;

use super::io::{Batched, IoRun, IoSpec, MAX_PSYNC_THREADS};
use super::options::{EngineChoice, Observer, RunOptions};
use super::step::{AtOnce, Executor, Site, StepRun, one_by_one};
use crate::error::{Error, Result};
use crate::hosts::{self, HostJobs, HostSpec};
use crate::worker::Counts;
use methodic_results::engine::EngineKind;

/// A host that began this much later than due widens the margin.
const LATE_MS: u64 = 100;

/// The longest a host waits past the margin for the set start (a host
/// whose clock is behind).
const MAX_CLOCK_LAG_MS: u64 = 5000;

/// The widest the start margin grows.
const MAX_START_MARGIN_MS: u64 = 10_000;

/// The start margin when `--start-margin` is not given: 1.5 s, which
/// covers fio 3.33's server taking "run" a second late.
const DEFAULT_START_MARGIN_MS: u64 = 1500;

/// The fio to run: `--fio`, else `fio` on the PATH.
pub(crate) fn fio_of(opts: &RunOptions) -> PathBuf {
    opts.fio.clone().unwrap_or_else(|| PathBuf::from("fio"))
}

/// Every host probed, said on the way; the notes the manifest keeps.
pub(crate) fn probe(opts: &RunOptions, observer: &mut dyn Observer) -> Result<Vec<HostNote>> {
    observer.note(&format!(
        "asking the fio server of each of {} whether it can read its target",
        plural(opts.hosts.len() as u64, "host", "hosts")
    ));
    let work = std::env::temp_dir().join(format!("methodic-probe-{}", std::process::id()));
    let notes = hosts::probe(&fio_of(opts), &opts.hosts, &work);
    let _ = std::fs::remove_dir_all(&work);
    notes
}

/// How a run on many hosts runs its I/O: on the hosts' fio, io_uring
/// where a worker keeps more than one I/O in flight (as `auto` does on
/// one machine) unless `--engine` says otherwise.
pub(crate) fn engine_note(opts: &RunOptions) -> EngineNote {
    EngineNote {
        choice: opts.engine.word().to_string(),
        io_uring: opts.engine != EngineChoice::Psync,
        io_uring_unavailable: None,
        pinned: false,
        latency_recorded: true,
        psync_max_threads: MAX_PSYNC_THREADS,
    }
}

/// Refuses, naming the step, what fio's client/server mode cannot run as
/// methodic would: steps fio cannot run at all (erases other than by
/// discard, limit_ram, copy, probe), `local` steps that need a target
/// (this machine has none in such a run), `verify` that fio's own verify
/// cannot do as methodic would ([`verify_refused`]), think time that is
/// not drained and think time with bursts (a `together` job's too), a share
/// of trims, more than one device a host, an amount written or
/// transferred given as a share of the span, and the drives' write cache.
pub(crate) fn check_plan(plan: &Plan) -> Result<()> {
    check_write_cache(plan)?;
    for (i, step) in plan.steps.iter().enumerate() {
        let name = format!("step {} ({})", i + 1, step.id);
        let refuse =
            |what: String, hint: &str| Err(Error::unsupported(format!("{name}: {what}")).with_hint(hint));
        if step.local {
            check_local(step, &name)?;
            continue;
        }
        match &step.action {
            // Each host's fio server runs these (`exec_prerun`).
            Action::Erase { method: EraseMethod::Discard } | Action::DropCaches => {}
            Action::Erase { method } => {
                return refuse(
                    format!(
                        "fio cannot run erase {} on the hosts: it takes the drive's own tools",
                        method.keyword()
                    ),
                    "run it on each host before the run (`methodic export --fio` says which command), and \
                     leave it out, or erase with `erase discard`",
                );
            }
            Action::Copy { .. } | Action::Probe(_) => {
                return refuse(
                    format!("fio cannot run {} on the hosts", step.action.kind()),
                    "run it on one machine, and leave it out of a methodology run on many hosts",
                );
            }
            Action::LimitRam { .. } => {
                return refuse(
                    "fio cannot limit the RAM of the hosts".into(),
                    "run fio's servers in a memory cgroup on each host and leave it out, or mark it `local` to \
                     limit this machine's",
                );
            }
            Action::Together { jobs, .. } => {
                if let Some((job, (what, hint))) =
                    jobs.iter().find_map(|j| Some((j, pauses_refused(&j.pauses)?)))
                {
                    return refuse(format!("job {}: {what}", job.name), hint);
                }
            }
            Action::Measure {
                stop:
                    MeasureStop { written: Some(Extent::Percent(p)), .. }
                    | MeasureStop { transferred: Some(Extent::Percent(p)), .. },
                ..
            } => {
                return refuse(
                    format!("it stops after {p} of the span, and the hosts' spans are fio's to size"),
                    "give the amount in bytes (`until written 4GiB`, `until transferred 4GiB`)",
                );
            }
            // By queue depth each probe is closed loop; by rate open loop,
            // paced by fio's rate_iops, its rate kept judged by the I/Os
            // completed (see `QOS_RATE_ON_HOSTS`).
            Action::Fill { .. }
            | Action::Precondition { .. }
            | Action::Measure { .. }
            | Action::Qos(_)
            | Action::Rounds { .. }
            | Action::Idle { .. } => {}
        }
        if let Action::Measure { pauses, .. } = &step.action
            && let Some((what, hint)) = pauses_refused(pauses)
        {
            return refuse(what, hint);
        }
        if step.verify
            && let Some((what, hint)) = verify_refused(&step.action)
        {
            return refuse(what, hint);
        }
        if let Some(w) =
            step.action.workloads().into_iter().find(|w| w.trim > Percent::ZERO && w.trim < Percent::HUNDRED)
        {
            return refuse(
                format!("its workload {} trims {} of its I/Os, which fio cannot mix", w.name, w.trim),
                "trim alone (trim 100%) or not at all",
            );
        }
        if step.target.unwrap_or(plan.target).devices > 1 {
            return refuse(
                "it spreads over several devices; a run on many hosts has one target a host".into(),
                "give each host one target",
            );
        }
    }
    Ok(())
}

/// Why a step with `verify` does not run on many hosts, and what to do;
/// `None` when fio's own verify checks it as methodic would check its
/// writes: a fill, or a measurement until an amount written or
/// transferred with no time, that only writes, in one block size. fio
/// verifies a job after its writes end, and a time-based job only by
/// whole passes of its size, never the last, nor at all with psync
/// (backend.c, `do_io` and `thread_main`); a time limit cuts the read-back
/// short (`do_verify` stops at the runtime); its reads would be counted
/// with the read-back's; a block of several sizes holds several of fio's
/// headers, of which fio 3.33 may pass a bad one (verify.c,
/// `verify_io_u`); and a read checks every block read for fio's header,
/// where methodic checks only the blocks a verify step wrote.
fn verify_refused(action: &Action) -> Option<(String, &'static str)> {
    let workload = match action {
        Action::Fill { workload, .. } => workload,
        Action::Measure { workload, stop, .. } if stop.time.is_none() => workload,
        Action::Measure { .. } | Action::Precondition { .. } => {
            return Some((
                "`verify` of a step that runs for a time does not run on many hosts: fio verifies a time-based \
                 job by whole passes only, never the last, and a time limit cuts its read-back short"
                    .into(),
                "verify a step that stops by an amount (`until written 4GiB verify`), or a `fill ... verify`",
            ));
        }
        Action::Erase { .. }
        | Action::DropCaches
        | Action::Idle { .. }
        | Action::LimitRam { .. }
        | Action::Copy { .. }
        | Action::Probe(_)
        | Action::Together { .. }
        | Action::Qos(_)
        | Action::Rounds { .. } => {
            return Some((
                format!("`verify` of {} does not run on many hosts", action.kind()),
                "verify a `fill` or a measurement that stops by an amount",
            ));
        }
    };
    if workload.read > Percent::ZERO || workload.trim > Percent::ZERO {
        return Some((
            format!(
                "`verify` of workload {}, which reads or trims, does not run on many hosts: fio checks each \
                 block it reads for its own header, where methodic checks only the blocks a verify step wrote, \
                 and counts the read-back of the writes with the reads",
                workload.name
            ),
            "verify the writes alone (a workload with `read 0%`), as fio's own verify reads them back",
        ));
    }
    (workload.write_blocks.as_ref().unwrap_or(&workload.blocks).len() > 1).then(|| {
        (
            format!(
                "`verify` of workload {}, of several block sizes, does not run on many hosts: fio's header \
                 goes in every smallest block, and fio 3.33 passes a larger block whose checksum fails in any \
                 but its last",
                workload.name
            ),
            "verify a workload of one block size",
        )
    })
}

/// Why a measurement's pauses do not run on many hosts, and what to do;
/// `None` when they do. A drained think is fio's thinktime exactly (fio
/// waits for the I/Os in flight, then pauses: `handle_thinktime()`), and
/// bursts are its thinktime_iotime, each pause after the burst's I/Os
/// drained (said in the step's actions, [`BURSTS_ON_HOSTS`]); a think
/// that is not drained differs, and a think with bursts would need two
/// thinktimes.
fn pauses_refused(pauses: &Pauses) -> Option<(String, &'static str)> {
    match (pauses.think, pauses.bursts) {
        (Some(_), Some(_)) => Some((
            format!(
                "its think time with bursts ({}) does not run on many hosts: fio has one thinktime, for the one \
                 or the other",
                pauses.describe()
            ),
            "keep the think time or the bursts in a methodology run on many hosts, not both",
        )),
        (Some(t), None) if !t.drained => Some((
            format!(
                "its think time ({}) does not run on many hosts: fio's thinktime waits for every I/O in flight \
                 before it pauses, and this think does not",
                pauses.describe()
            ),
            "add `drained` (`think 100us every 16 drained`), which fio runs as methodic does",
        )),
        (Some(_) | None, None) | (None, Some(_)) => None,
    }
}

/// A methodology that sets the drives' write cache does not run on many
/// hosts: fio cannot set it.
fn check_write_cache(plan: &Plan) -> Result<()> {
    if plan.write_cache == WriteCache::AsIs {
        return Ok(());
    }
    Err(Error::unsupported(format!(
        "the methodology sets the drives' write cache ({}), which fio cannot do on the hosts",
        plan.write_cache.keyword()
    ))
    .with_hint("set it on each host before the run (nvme set-feature -f 6, hdparm -W), and leave it out"))
}

/// A `local` step of a run on many hosts runs on the conductor (this
/// machine), which has no target in such a run: only what needs none (a
/// cache drop, a RAM limit) may be `local`. `name` names the step.
fn check_local(step: &Step, name: &str) -> Result<()> {
    match step.action {
        Action::DropCaches | Action::LimitRam { .. } => Ok(()),
        Action::Erase { .. }
        | Action::Fill { .. }
        | Action::Precondition { .. }
        | Action::Measure { .. }
        | Action::Together { .. }
        | Action::Qos(_)
        | Action::Rounds { .. }
        | Action::Idle { .. }
        | Action::Copy { .. }
        | Action::Probe(_) => Err(Error::unsupported(format!(
            "{name}: it is `local`, but {} needs a target, and a run on many hosts has none on this machine",
            step.action.kind()
        ))
        .with_hint("run it on one machine, and leave it out of a methodology run on many hosts")),
    }
}

/// The time left between two I/O runs sent in one session, in
/// milliseconds: each host's fio ends one (its last I/Os, its files
/// closed) and sets the next up within it, so that every run starts at
/// its own set time on every host. Between stonewalled jobs fio took 200
/// to 325 ms on 8 loopback hosts (docs/many-hosts.md).
const GAP_MS: u64 = 400;

/// One I/O run of `step` on every host at once: [`io_runs`] with one.
fn io(x: &Executor<'_>, margin_ms: &Cell<u64>, step: &Step, spec: IoSpec<'_>) -> Result<IoRun> {
    let mut runs = io_runs(x, margin_ms, &[Run { step, stream: step.id.clone(), spec }], Order::InTurn)?;
    Ok(runs.remove(0))
}

/// One I/O run of a session on the hosts: the step it is of, the id its
/// random stream is drawn by, and its I/O.
struct Run<'a> {
    step: &'a Step,
    stream: String,
    spec: IoSpec<'a>,
}

/// Whether `specs` can go to the hosts in one session: more than one, and
/// each but the last runs for a set time (its ramp and record), so that
/// the next one's start can be set.
fn one_session(specs: &[IoSpec<'_>]) -> bool {
    specs.len() > 1
        && specs[..specs.len() - 1]
            .iter()
            .all(|s| s.record.is_some() && s.budget.is_none() && s.passes.is_none())
}

/// The most ramp and record time of a sweep's or a repeat's steps that
/// go to the hosts in one fio session when `--batch-time` is not given:
/// 5 minutes, what a stop or a lost host in the middle may cost.
pub(crate) const DEFAULT_BATCH_MS: u64 = 300_000;

/// Whether `step` may go to the hosts in one fio session with the steps
/// after it: a measurement that runs for a set time (so that the next
/// one's start can be set) and takes nothing from the steps before it as
/// it runs (a rate that is a share of one's IOPS, an operating point
/// `at`), without `verify` (fio verifies at a job's end) and not `local`.
fn batchable(step: &Step) -> bool {
    let Action::Measure { stop, rate, at, .. } = &step.action else { return false };
    !step.local
        && !step.verify
        && at.is_none()
        && stop.time.is_some()
        && stop.amount().is_none()
        && !matches!(rate, Some(r) if matches!(r.amount, RateAmount::Share { .. }))
}

/// A measurement's ramp and record time, in milliseconds.
fn length_ms(step: &Step) -> u64 {
    let Action::Measure { ramp, stop, .. } = &step.action else { return 0 };
    ramp.as_millis() + stop.time.map_or(0, |t| t.as_millis())
}

/// The steps of `plan` that go to the hosts in one fio session beginning
/// with step `i`: `i` and the steps after it of the same sweep or the same
/// repeat block, while each is [`batchable`] and their ramps and records
/// add up to at most `most_ms`; `i` alone when it is not batchable, in
/// neither, or `most_ms` is 0.
pub(crate) fn batch(plan: &Plan, i: usize, most_ms: u64) -> Range<usize> {
    let first = &plan.steps[i];
    let group = |s: &Step| (s.sweep, s.repeat.map(|r| r.group));
    if !batchable(first) || group(first) == (None, None) {
        return i..i + 1;
    }
    let mut total = 0;
    let end = plan.steps[i..]
        .iter()
        .take_while(|s| {
            total += length_ms(s);
            batchable(s) && group(s) == group(first) && total <= most_ms
        })
        .count();
    i..i + end.max(1)
}

/// The words of a batch's note and its steps' records: "steps 3 to 11 (a
/// sweep's 9 measurements, 9m of ramp and record)".
fn batch_words(plan: &Plan, steps: &Range<usize>) -> String {
    let first = &plan.steps[steps.start];
    let ms: u64 = plan.steps[steps.clone()].iter().map(length_ms).sum();
    format!(
        "steps {} to {} ({}'s {} measurements, {} of ramp and record)",
        steps.start + 1,
        steps.end,
        if first.sweep.is_some() { "a sweep" } else { "a repeat" },
        steps.len(),
        Duration::from_millis(ms)
    )
}

/// I/O runs of `step` on every host at once, in one `fio --client`
/// session: each of `runs` (the id its random stream is drawn by, and its
/// I/O) made the job each host's fio runs (the step's own action, with
/// the queue depth, rate and time that run has, exported by
/// methodic-fio), all of a host's in one job file, in the `order` asked:
/// in turn, each after the one before (a `stonewall`) and starting on
/// every host at its own set time, or at once, all at one set time. The
/// session's files stay in the results (`fio/STEP[-roundR[-cellC]]/`,
/// a QoS probe's `fio/STEP-probeK/`);
/// each run is read back as an [`IoRun`]: all hosts' counts and merged
/// latency histograms, each host's share, and the series from fio's
/// logs.
fn io_runs(x: &Executor<'_>, margin_ms: &Cell<u64>, runs: &[Run<'_>], order: Order) -> Result<Vec<IoRun>> {
    // Every host starts each run at one time on its clock: the first a
    // margin from now (fio's servers take "run" up to a second apart),
    // in turn each next one when the one before has ended, and a gap.
    let margin = margin_ms.get();
    let sent_ms = crate::time::unix_now_ms();
    let mut at_ms = sent_ms + margin;
    let mut prepared = Vec::with_capacity(runs.len());
    for Run { step, spec, .. } in runs {
        let p = prepare(x, step, spec, at_ms)?;
        if order == Order::InTurn {
            at_ms += (spec.ramp + spec.record.unwrap_or_default()).as_millis() as u64 + GAP_MS;
        }
        prepared.push(p);
    }
    let step = runs[0].step;
    let specs: Vec<&IoSpec<'_>> = runs.iter().map(|r| &r.spec).collect();
    let n = runs.len();
    let jobs = x
        .opts
        .hosts
        .iter()
        .enumerate()
        .map(|(k, h)| {
            let on_host: Vec<HostRun<'_>> = prepared
                .iter()
                .zip(runs)
                .enumerate()
                .map(|(j, (p, r))| HostRun {
                    step: &p.one,
                    engine: p.engine,
                    logs: Some(HostLogs { prefix: hosts::log_prefix(k, j, n), interval_ms: p.log_ms }),
                    prerun: Some(p.prerun.clone()),
                    seed: Some(host_seed(x, &r.stream, r.step, &r.spec, k)),
                    verify: r.spec.verify.is_some(),
                })
                .collect();
            host_job(&h.target, &on_host, order)
        })
        .collect::<std::result::Result<Vec<_>, String>>()
        .map_err(|why| {
            Error::unsupported(format!("step {}: fio cannot run it on the hosts: {why}", step.id))
        })?;
    let dir = session_dir(x, runs, order);
    let intervals_ms = prepared.iter().map(|p| Some(p.log_ms)).collect();
    let verify = specs.iter().map(|s| s.verify.is_some()).collect();
    let done = hosts::run_io(
        &fio_of(x.opts),
        &x.opts.hosts,
        &HostJobs { jobs, intervals_ms, verify },
        &dir,
        &x.workers.stop,
    )
    .map_err(|e| with_resume_hint(x, step, e))?;
    done.into_iter()
        .zip(prepared)
        .zip(specs)
        .enumerate()
        .map(|(j, ((run, p), spec))| {
            // Only the first run's start says how late the hosts took
            // "run"; a later one late is the run before it running long.
            // A later one's margin is from the jobs sent to its set start.
            let set_ms = p.due_ms - spec.ramp.as_millis() as u64;
            let unwidened = Cell::new(set_ms.saturating_sub(sent_ms));
            let widens = if j == 0 { margin_ms } else { &unwidened };
            let host_skew = starts_seen(&x.opts.hosts, &run.starts, p.due_ms, widens);
            read_back(x, p, spec, run, host_skew)
        })
        .collect()
}

/// The folder of a session's files in the results: `fio/STEP/`, and
/// for a part of a step `fio/STEP-roundR/` (a round's cells),
/// `fio/STEP-roundR-cellC/` (a cell alone) or `fio/STEP-probeK/` (a QoS
/// probe). A session of several steps' runs is the first step's.
fn session_dir(x: &Executor<'_>, runs: &[Run<'_>], order: Order) -> PathBuf {
    let (step, first) = (runs[0].step, runs[0].spec.at);
    let one_step = runs.iter().all(|r| r.step.id == step.id);
    let suffix = match (runs.len(), order) {
        (_, Order::AtOnce) => String::new(),
        _ if !one_step => String::new(),
        // A QoS search's probes: the k-th is drawn as round k.
        (1, _) if matches!(step.action, Action::Qos(_)) => format!("-probe{}", first.round),
        (1, _) if first.round == 1 && first.cell == 1 => String::new(),
        (1, _) => format!("-round{}-cell{}", first.round, first.cell),
        _ => format!("-round{}", first.round),
    };
    x.results.path.join("fio").join(format!("{}{suffix}", file_name(&step.id)))
}

/// What the hosts did in one I/O run (`run`, made ready as `p` from
/// `spec`) as methodic's [`IoRun`], its series written where `spec` asks,
/// with how far apart the hosts began (`host_skew`).
fn read_back(
    x: &Executor<'_>,
    p: Prepared,
    spec: &IoSpec<'_>,
    mut run: hosts::HostsRun,
    host_skew: Option<(f64, String, u64)>,
) -> Result<IoRun> {
    if p.interval_ms.is_none() {
        run.rows.clear();
    }
    if let Some((_, Some(csv))) = &spec.series {
        write_series(csv, &run.rows)?;
    }
    if let (Some(v), Some(mut found)) = (spec.verify, run.verified.take()) {
        let w = spec.workload;
        found.block = w.write_blocks.as_ref().unwrap_or(&w.blocks).first().map_or(0, |b| b.size.0);
        v.by_fio.lock().expect("fio's findings are not poisoned").push(found);
    }
    let seconds = run.seconds;
    Ok(IoRun {
        host_skew,
        seconds,
        interval_s: p.interval_ms.map_or(1.0, |ms| ms as f64 / 1000.0),
        // When the first host began recording, on its clock; the
        // set time where no host logged.
        record_start: SystemTime::UNIX_EPOCH
            + StdDuration::from_millis(run.starts.iter().flatten().min().copied().unwrap_or(p.due_ms)),
        info: IoInfo {
            engine: p.kind,
            engine_reason: format!(
                "{} ({} x {}, each {} deep)",
                p.reason,
                plural(x.opts.hosts.len() as u64, "host", "hosts"),
                plural(u64::from(p.engine.threads), "thread", "threads"),
                p.engine.depth
            ),
            threads: p.engine.threads,
            depth: p.engine.depth,
            mean_inflight: run.mean_inflight,
            registered_buffers: false,
            forced_async: false,
            latency_recorded: true,
            bytes_written: run.bytes_written,
            seed: x.workers.seed,
            errors: None,
            rate: None,
        },
        rows: run.rows,
        workers: Vec::new(),
        bursts: None,
        hosts: run.hosts,
        recorder: run.recorder,
        lateness: None,
        floor: Vec::new(),
        batched: None,
    })
}

/// One I/O run made ready for the hosts: the step each runs, its engine
/// and why, its log and series intervals, the wait before it and when
/// its record is due to begin (Unix milliseconds).
struct Prepared {
    one: Step,
    engine: Engine,
    kind: EngineKind,
    reason: &'static str,
    interval_ms: Option<u64>,
    log_ms: u64,
    prerun: String,
    due_ms: u64,
}

/// `spec` made ready to start on every host at `at_ms` (Unix
/// milliseconds on each host's clock); a host whose clock is behind waits
/// at most `MAX_CLOCK_LAG_MS` past it, by this machine's clock.
fn prepare(x: &Executor<'_>, step: &Step, spec: &IoSpec<'_>, at_ms: u64) -> Result<Prepared> {
    let (kind, reason) = engine_of(x.opts.engine, spec);
    let (threads, depth) = methodic_results::ceiling::threads_and_depth(kind, &spec.qd);
    if spec.passes.is_some() && spec.workload.random > Percent::ZERO && threads > 1 {
        return Err(Error::unsupported(format!(
            "step {}: a random fill with {threads} threads a host: fio's clones would each write the whole span",
            step.id
        ))
        .with_hint("fill sequentially, or with one worker (io_uring keeps its queue depth from one thread)"));
    }
    let interval_ms = spec.series.as_ref().map(|s| (s.0.as_millis() as u64).max(1));
    // Logs always: they say when each host began recording. Without a
    // series, at an interval a few of which fit in the record time.
    let log_ms = interval_ms
        .unwrap_or_else(|| spec.record.map_or(1000, |r| (r.as_millis() as u64 / 4).clamp(10, 1000)));
    let now_ms = crate::time::unix_now_ms();
    let prerun = hosts::start_at_command(
        u128::from(at_ms) * 1_000_000,
        u128::from((at_ms + MAX_CLOCK_LAG_MS).saturating_sub(now_ms)) * 1_000_000,
    );
    Ok(Prepared {
        one: host_step(step, spec, x.opts.hosts.len()),
        engine: Engine { psync: kind == EngineKind::Psync, threads, depth, registered: false },
        kind,
        reason,
        interval_ms,
        log_ms,
        prerun,
        due_ms: at_ms + spec.ramp.as_millis() as u64,
    })
}

/// The engine the hosts' fio runs `spec` with, as `--engine` (`choice`)
/// says, and why.
fn engine_of(choice: EngineChoice, spec: &IoSpec<'_>) -> (EngineKind, &'static str) {
    let kind = match choice {
        EngineChoice::Psync => EngineKind::Psync,
        EngineChoice::IoUring => EngineKind::IoUring,
        EngineChoice::Auto if spec.qd.per_worker == 1 => EngineKind::Psync,
        EngineChoice::Auto => EngineKind::IoUring,
    };
    let reason = match (choice, kind) {
        (EngineChoice::Auto, EngineKind::Psync) => "fio on every host; one I/O in flight a worker: psync",
        (EngineChoice::Auto, _) => "fio on every host; more than one I/O in flight a worker: io_uring",
        _ => "fio on every host, as --engine says",
    };
    (kind, reason)
}

/// The step each of `hosts` hosts runs for this I/O run of `step`: a fill
/// or a measurement with the queue depth, times and series `spec` has,
/// without `verify`. The step's rate and amount are the whole run's, as
/// on one machine they are all its workers': each host takes its share.
fn host_step(step: &Step, spec: &IoSpec<'_>, hosts: usize) -> Step {
    let n = hosts.max(1) as u64;
    let rate = spec.rate.map(|r| methodic_compiler::plan::Rate {
        amount: match r.amount {
            RateAmount::Iops(i) => RateAmount::Iops(i.div_ceil(n)),
            RateAmount::Bandwidth(b) => RateAmount::Bandwidth(Bytes(b.0.div_ceil(n))),
            other => other,
        },
        ..r
    });
    let budget = spec.budget.map(|(b, counts)| (Bytes(b.0.div_ceil(n)), counts));
    let ms = |d: StdDuration| Duration::from_millis(d.as_millis() as u64);
    let mut one = step.clone();
    one.verify = false;
    one.target = Some(spec.settings);
    one.action = match spec.passes {
        Some(passes) => Action::Fill { workload: spec.workload.clone(), qd: spec.qd, passes },
        None => Action::Measure {
            workload: spec.workload.clone(),
            qd: spec.qd,
            ramp: ms(spec.ramp),
            stop: MeasureStop {
                time: spec.record.map(ms),
                written: budget.filter(|b| b.1 == Counts::Writes).map(|b| Extent::Bytes(b.0)),
                transferred: budget.filter(|b| b.1 == Counts::Everything).map(|b| Extent::Bytes(b.0)),
            },
            series: spec.series.as_ref().map_or(Duration::from_secs(1), |s| ms(s.0)),
            rate,
            pauses: spec.pauses,
            at: None,
        },
    };
    one
}

/// The seed of the k-th host's fio for this I/O run of `step`: the run's
/// seed, drawn apart for each step, repeat, round, cell and host, as a
/// worker's stream is on one machine.
fn host_seed(x: &Executor<'_>, stream: &str, step: &Step, spec: &IoSpec<'_>, k: usize) -> u64 {
    let stream = crate::rng::Stream {
        step: stream,
        run: step.repeat.map_or(1, |r| r.run),
        round: spec.at.round,
        cell: spec.at.cell,
        worker: k as u32,
    };
    // fio reads randseed as a signed 64-bit number.
    crate::rng::stream_seed(x.workers.seed, &stream) >> 1
}

/// How far apart `hosts` began recording (their `starts`, Unix
/// milliseconds), the host that began last, and the start margin this I/O
/// run had; `None` with one host. A host that began recording later than
/// `due` (the set start and the ramp) took "run" after it: the run's next
/// I/O runs get a wider margin.
fn starts_seen(
    hosts: &[HostSpec],
    starts: &[Option<u64>],
    due: u64,
    margin_ms: &Cell<u64>,
) -> Option<(f64, String, u64)> {
    let margin = margin_ms.get();
    let late = starts.iter().flatten().map(|s| s.saturating_sub(due)).max().unwrap_or(0);
    if late > LATE_MS {
        margin_ms.set((margin + late + LATE_MS).min(MAX_START_MARGIN_MS));
    }
    let first = starts.iter().flatten().min().copied();
    starts
        .iter()
        .zip(hosts)
        .filter_map(|(s, h)| Some(((*s)?, h)))
        .max_by_key(|(s, _)| *s)
        .filter(|_| hosts.len() > 1)
        .and_then(|(s, h)| Some(((s - first?) as f64 / 1000.0, h.client.clone(), margin)))
}

/// The hosts' targets, by fio on each host, for one session of a run.
pub(crate) struct OnHosts {
    /// How long after the jobs are sent every host starts them, in
    /// milliseconds: `--start-margin` (1.5 s when left out) at the start
    /// of the session, widened for the rest of it when a host began later
    /// than that. The run's own, so that two runs at once in one process
    /// (tests, a program using the library) never share it.
    margin_ms: Cell<u64>,
    /// The most ramp and record time of steps sent in one fio session
    /// ([`batch`]), in milliseconds: `--batch-time`, 0 for a session a
    /// step.
    batch_ms: u64,
    /// The I/O runs of a batch's later steps, done in its first step's
    /// session, by step id, each taken when its step comes.
    ran: RefCell<HashMap<String, IoRun>>,
    /// The batch the step that `run_step` last saw begins (its id and the
    /// plan's steps in it), for its I/O to send: found once a step, from
    /// the step's index, not by looking the step up in the plan.
    planned: RefCell<Option<(String, Range<usize>)>>,
}

impl OnHosts {
    pub(crate) fn new(opts: &RunOptions) -> OnHosts {
        OnHosts {
            margin_ms: Cell::new(opts.start_margin_ms.unwrap_or(DEFAULT_START_MARGIN_MS)),
            batch_ms: opts.batch_ms.unwrap_or(DEFAULT_BATCH_MS),
            ran: RefCell::default(),
            planned: RefCell::default(),
        }
    }

    /// The steps that go to the hosts in one session with step `i` of
    /// `plan`, when it is the first of several and none of them has run
    /// yet.
    fn batch_of(&self, plan: &Plan, i: usize) -> Option<Range<usize>> {
        let steps = batch(plan, i, self.batch_ms);
        (steps.len() > 1 && !self.ran.borrow().contains_key(&plan.steps[i].id)).then_some(steps)
    }

    /// The I/O runs of `steps` (the first, `step`, as `spec`; each later
    /// one made as its measure kind makes it) in one session on the hosts,
    /// in turn: the first one's run; the others kept for their steps,
    /// each with its own set start and what its record says of the batch.
    fn io_batch(
        &self,
        x: &Executor<'_>,
        step: &Step,
        spec: IoSpec<'_>,
        steps: Range<usize>,
    ) -> Result<IoRun> {
        let mut runs = vec![Run { step, stream: step.id.clone(), spec }];
        for later in &x.plan.steps[steps.start + 1..steps.end] {
            let Action::Measure { qd, rate, .. } = &later.action else { continue };
            let settings = later.target.unwrap_or(x.plan.target);
            let csv = x.results.series_path(&later.id, "")?;
            let spec = super::kinds::measure::spec(x, later, settings, *qd, *rate, csv, None)?;
            runs.push(Run { step: later, stream: later.id.clone(), spec });
        }
        let dir = x.relative(&session_dir(x, &runs, Order::InTurn));
        let n = runs.len();
        let mut done = io_runs(x, &self.margin_ms, &runs, Order::InTurn)?.into_iter().zip(&runs).enumerate();
        let batched = |(k, (mut run, r)): (usize, (IoRun, &Run<'_>))| {
            let ramp = r.spec.ramp.as_secs_f64();
            let began = run.record_start.duration_since(SystemTime::UNIX_EPOCH).unwrap_or_default();
            run.batched = Some(Batched {
                started: began.as_secs_f64() - ramp,
                seconds: ramp + r.spec.record.unwrap_or_default().as_secs_f64(),
                words: format!(
                    "run {} of {n} in one fio session on the hosts with steps {} to {} ({}/): {}",
                    k + 1,
                    steps.start + 1,
                    steps.end,
                    dir.display(),
                    if k == 0 {
                        "the start margin and fio's start paid once for them all".to_string()
                    } else {
                        format!(
                            "started at its own set time, {:.1} s after run {k} was due to end",
                            GAP_MS as f64 / 1000.0
                        )
                    }
                ),
            });
            (r.step.id.clone(), run)
        };
        let (_, first) = batched(done.next().expect("a batch has its first step's run"));
        self.ran.borrow_mut().extend(done.map(batched));
        Ok(first)
    }
}

impl Site for OnHosts {
    /// A step whose run was done in an earlier step's session takes it;
    /// the first step of a batch ([`batch`], found by `run_step`) sends
    /// the batch's runs in one session; any other step's run is a session
    /// of its own.
    fn io(&self, x: &Executor<'_>, step: &Step, spec: IoSpec<'_>) -> Result<IoRun> {
        if let Some(run) = self.ran.borrow_mut().remove(&step.id) {
            return Ok(run);
        }
        let planned = self.planned.borrow_mut().take().filter(|(id, _)| *id == step.id);
        match planned {
            Some((_, steps)) => self.io_batch(x, step, spec, steps),
            None => io(x, &self.margin_ms, step, spec),
        }
    }

    /// Runs that need no decision between them go to the hosts in one
    /// session, when each but the last runs for a set time: the start
    /// margin and fio's start are paid once, not once a run.
    fn io_each(
        &self,
        x: &Executor<'_>,
        step: &Step,
        specs: Vec<IoSpec<'_>>,
        each: &mut dyn FnMut(IoRun) -> Result<()>,
    ) -> Result<()> {
        if !one_session(&specs) {
            return one_by_one(self, x, step, specs, each);
        }
        let runs: Vec<Run<'_>> =
            specs.into_iter().map(|spec| Run { step, stream: step.id.clone(), spec }).collect();
        for run in io_runs(x, &self.margin_ms, &runs, Order::InTurn)? {
            each(run)?;
        }
        Ok(())
    }

    /// The jobs go to the hosts in one session, each host's fio running
    /// them at once, all started at one set time.
    fn io_at_once(&self, x: &Executor<'_>, step: &Step, jobs: Vec<AtOnce<'_>>) -> Vec<Result<IoRun>> {
        let runs: Vec<Run<'_>> =
            jobs.into_iter().map(|j| Run { step, stream: j.stream, spec: j.spec }).collect();
        match io_runs(x, &self.margin_ms, &runs, Order::AtOnce) {
            Ok(done) => done.into_iter().map(Ok).collect(),
            Err(e) => vec![Err(e)],
        }
    }

    /// An erase and a cache drop run on every host at once; a `local`
    /// step runs on the conductor, as on one machine, and its record says
    /// so.
    fn run_step(&self, x: &Executor<'_>, s: &mut StepRun<'_>, observer: &mut dyn Observer) -> Result<bool> {
        let planned = self.batch_of(x.plan, s.out.index - 1);
        if let Some(steps) = &planned {
            observer.note(&format!(
                "{} go to the hosts in one fio session: their results come when it ends (--batch-time 0 sends each \
                 step alone)",
                batch_words(x.plan, steps)
            ));
        }
        *self.planned.borrow_mut() = planned.map(|steps| (s.step.id.clone(), steps));
        if s.step.local {
            s.out.actions.push("local: on the conductor (this machine), not on the hosts".into());
            Ok(false)
        } else if matches!(s.step.action, Action::Erase { .. } | Action::DropCaches) {
            command_step(x, s).map(|()| true)
        } else {
            s.out.actions.extend(actions_on_hosts(&s.step.action).into_iter().map(String::from));
            Ok(false)
        }
    }
}

/// What an I/O step on many hosts says in its actions of how fio runs it
/// otherwise than methodic would: open loop, bursts.
fn actions_on_hosts(action: &Action) -> Vec<&'static str> {
    let (open, bursts) = open_and_bursts(action);
    let mut out = Vec::new();
    if open {
        out.push(OPEN_LOOP_ON_HOSTS);
    }
    if matches!(action, Action::Qos(q) if q.by == QosAxis::Rate) {
        out.push(QOS_RATE_ON_HOSTS);
    }
    if bursts {
        out.push(BURSTS_ON_HOSTS);
    }
    out
}

/// Whether a step runs an open loop (a rate, or a QoS search by rate),
/// and whether it has bursts (a measurement's, or a `together` job's).
fn open_and_bursts(action: &Action) -> (bool, bool) {
    match action {
        Action::Measure { rate, pauses, .. } => (rate.is_some(), pauses.bursts.is_some()),
        Action::Together { jobs, .. } => {
            (jobs.iter().any(|j| j.rate.is_some()), jobs.iter().any(|j| j.pauses.bursts.is_some()))
        }
        Action::Qos(q) => (q.by == QosAxis::Rate, false),
        Action::Erase { .. }
        | Action::Fill { .. }
        | Action::Precondition { .. }
        | Action::Rounds { .. }
        | Action::Idle { .. }
        | Action::LimitRam { .. }
        | Action::Copy { .. }
        | Action::Probe(_)
        | Action::DropCaches => (false, false),
    }
}

/// The first fio that runs bursts as methodic's periods: fio 3.33 and
/// older count `thinktime_iotime` from before each pause, so the first
/// burst lasts a whole period, and the pauses run past the job's
/// runtime (backend.c's `handle_thinktime()`; fixed by fio's commit
/// f9fc7a27, "backend: fix runtime when used with thinktime", in 3.34).
const BURSTS_FROM_FIO: (u32, u32) = (3, 34);

/// Refuses a plan with bursts when a host's fio (as `notes`, the hosts'
/// answers, say) is older than [`BURSTS_FROM_FIO`] or of a version it did
/// not say, naming each such host.
pub(crate) fn check_fio_versions(plan: &Plan, notes: &[HostNote]) -> Result<()> {
    let Some((i, step)) = plan.steps.iter().enumerate().find(|(_, s)| open_and_bursts(&s.action).1) else {
        return Ok(());
    };
    let older: Vec<String> = notes
        .iter()
        .filter(|n| n.fio_version.as_deref().and_then(fio_release).is_none_or(|v| v < BURSTS_FROM_FIO))
        .map(|n| format!("{} ({})", n.host, n.fio_version.as_deref().unwrap_or("fio of unknown version")))
        .collect();
    if older.is_empty() {
        return Ok(());
    }
    let (major, minor) = BURSTS_FROM_FIO;
    Err(Error::unsupported(format!(
        "step {} ({}): its bursts need fio {major}.{minor} or later on every host, and {} {} an older one: {}; fio \
         3.33 and before run the first burst for a whole period, and pause past the job's end",
        i + 1,
        step.id,
        plural(older.len() as u64, "host", "hosts"),
        if older.len() == 1 { "runs" } else { "run" },
        older.join(", ")
    ))
    .with_hint(format!("install fio {major}.{minor} or later on those hosts, or leave the bursts out")))
}

/// fio's release from its version (`fio-3.33`, `fio-3.36-12-gabc`,
/// `3.35`): major and minor.
fn fio_release(version: &str) -> Option<(u32, u32)> {
    let v = version.trim().trim_start_matches("fio-");
    let mut parts = v.split(['.', '-']);
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.chars().take_while(char::is_ascii_digit).collect::<String>().parse().ok()?;
    Some((major, minor))
}

/// What an open-loop step on many hosts says of its latencies: fio paces
/// it, and times each I/O from its submission.
const OPEN_LOOP_ON_HOSTS: &str = "open loop on the hosts by fio's rate_iops (rate_process=poisson for Poisson \
     arrivals): fio counts each I/O's latency from when it was submitted, not from when it was due, and keeps no \
     lateness, so these percentiles leave out how late the hosts started I/Os, and no pacing floor was measured";

/// How a QoS search by rate on many hosts judges a probe's rate kept:
/// fio counts no I/Os due or started.
const QOS_RATE_ON_HOSTS: &str = "each open-loop probe kept its rate when the hosts completed 99% of the I/Os \
     asked (less those the queue may hold at the end): fio counts no I/Os due or started";

/// What bursts on many hosts say: fio's thinktime_iotime drains each
/// burst before its pause, and counts the job as a whole.
const BURSTS_ON_HOSTS: &str = "bursts on the hosts by fio's thinktime_iotime and thinktime: fio waits for each \
     burst's I/Os in flight before it pauses, so each period runs longer than methodic's fixed grid by that \
     wait, and fio counts the run as a whole, not each burst";

/// An erase by discard or a cache drop on every host at once: each
/// host's fio server runs the command (`exec_prerun`) before a 4KiB read
/// of its target; what was done goes into the step's actions.
fn command_step(x: &Executor<'_>, s: &mut StepRun<'_>) -> Result<()> {
    let (name, commands, done): (&str, Vec<String>, String) = match &s.step.action {
        Action::Erase { method: EraseMethod::Discard } => {
            let span = match s.settings.span {
                Extent::Bytes(b) => Ok(b.0),
                Extent::Percent(p) => Err(p.hundredths()),
            };
            let words = match s.settings.span {
                Extent::Bytes(b) => b.to_string(),
                Extent::Percent(p) => format!("{p} of the target"),
            };
            (
                "discard",
                x.opts.hosts.iter().map(|h| hosts::discard_command(&h.target, span)).collect(),
                format!("discarded {words} from its start (blkdiscard; a punched hole on a file)"),
            )
        }
        Action::DropCaches => (
            "drop_caches",
            vec![hosts::DROP_CACHES_COMMAND.to_string(); x.opts.hosts.len()],
            "page cache, dentries and inodes dropped after a sync".to_string(),
        ),
        Action::Erase { .. }
        | Action::Fill { .. }
        | Action::Precondition { .. }
        | Action::Measure { .. }
        | Action::Together { .. }
        | Action::Qos(_)
        | Action::Rounds { .. }
        | Action::Idle { .. }
        | Action::LimitRam { .. }
        | Action::Copy { .. }
        | Action::Probe(_) => {
            return Err(Error::unsupported(format!("step {}: fio cannot run it on the hosts", s.step.id)));
        }
    };
    let dir = x.results.path.join("fio").join(file_name(&s.step.id));
    hosts::run_commands(&fio_of(x.opts), &x.opts.hosts, name, &commands, &dir, &x.workers.stop)
        .map_err(|e| with_resume_hint(x, s.step, e))?;
    s.out.actions.push(format!(
        "on each of {}, by its fio server (exec_prerun): {done}",
        plural(x.opts.hosts.len() as u64, "host", "hosts")
    ));
    Ok(())
}

/// A host's error named with its step, and how to go on.
fn with_resume_hint(x: &Executor<'_>, step: &Step, e: Error) -> Error {
    match e {
        Error::Hosts { message, hint } => Error::Hosts {
            message: format!("step {}: {message}", step.id),
            hint: Some(format!(
                "{}the steps before it are kept: once every host can run again, `methodic run --resume {}` goes on",
                hint.map(|h| format!("{h}; ")).unwrap_or_default(),
                x.results.path.display()
            )),
        },
        e => e,
    }
}

/// The series CSV of an I/O run on many hosts.
fn write_series(path: &Path, rows: &[methodic_results::series::Row]) -> Result<()> {
    let mut out = methodic_results::csv_file::Writer::create(path)?;
    for r in rows {
        out.row(r)?;
    }
    Ok(())
}

/// The hosts of a run on many hosts that is resumed, from its manifest.
pub(crate) fn hosts_of(notes: &[HostNote]) -> Vec<HostSpec> {
    notes.iter().map(|n| HostSpec { client: n.host.clone(), target: n.target.clone() }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plan of a methodology of `src` over workload `r`.
    fn plan_of(src: &str) -> Plan {
        let src = format!(
            "methodology \"h\" version \"1\"\nworkload r {{ random; block 4KiB; read 100% }}\n{src}\n"
        );
        methodic_compiler::compile(&src, &Default::default()).expect("compiles").plan
    }

    fn checked(src: &str) -> Result<()> {
        check_plan(&plan_of(src))
    }

    /// A QoS search runs on many hosts by queue depth (its probes closed
    /// loop) and by rate (open loop, as fio's rate_iops), and its actions
    /// say how fio paced and judged the probes.
    #[test]
    fn a_qos_search_runs_on_many_hosts_by_queue_depth_and_by_rate() {
        assert!(checked("qos r qd 8 { p99 under 1ms; probe 1s; by qd }").is_ok());
        let by_rate = plan_of("qos r qd 8 { p99 under 1ms; probe 1s }");
        assert!(check_plan(&by_rate).is_ok());
        assert_eq!(actions_on_hosts(&by_rate.steps[0].action), [OPEN_LOOP_ON_HOSTS, QOS_RATE_ON_HOSTS]);
    }

    /// A drained think and bursts run on many hosts (fio's thinktime and
    /// thinktime_iotime, the bursts saying where fio differs); a think that
    /// is not drained, and a think with bursts, are refused, each saying why.
    #[test]
    fn a_drained_think_and_bursts_run_on_many_hosts_and_other_pauses_are_refused() {
        let measure = |pauses: &str| checked(&format!("measure r qd 4 {pauses}"));
        assert!(measure("for 1s think 1ms every 8 drained").is_ok());
        assert!(measure("bursts 2s every 10s times 3").is_ok());
        let refused = |pauses: &str| match measure(pauses) {
            Err(Error::Unsupported { message, hint }) => (message, hint.unwrap_or_default()),
            other => panic!("{pauses}: not refused: {}", other.is_ok()),
        };
        let (why, hint) = refused("for 1s think 1ms every 8");
        assert!(why.contains("fio's thinktime waits for every I/O in flight"), "{why}");
        assert!(hint.contains("add `drained`"), "{hint}");
        let (why, hint) = refused("think 1ms every 8 drained bursts 2s every 10s times 3");
        assert!(why.contains("fio has one thinktime"), "{why}");
        assert!(hint.contains("not both"), "{hint}");
    }

    /// `verify` runs on many hosts where fio's own verify checks what
    /// methodic would: a fill, or writes until an amount, in one block
    /// size; a timed step, reads and several block sizes are refused,
    /// each saying why.
    #[test]
    fn verify_runs_on_many_hosts_where_fios_own_verify_checks_the_writes() {
        let with = |workload: &str, step: &str| {
            let src = format!("methodology \"h\" version \"1\"\nworkload v {{ {workload} }}\n{step}\n");
            check_plan(&methodic_compiler::compile(&src, &Default::default()).expect("compiles").plan)
        };
        let writes = "sequential; block 128KiB; read 0%";
        assert!(with(writes, "fill v verify").is_ok());
        assert!(with(writes, "measure v qd 4 until written 1GiB verify").is_ok());
        let refused = |workload: &str, step: &str| match with(workload, step) {
            Err(Error::Unsupported { message, hint }) => format!("{message} / {}", hint.unwrap_or_default()),
            other => panic!("{step}: not refused: {}", other.is_ok()),
        };
        let why = refused(writes, "measure v qd 4 for 10s verify");
        assert!(why.contains("fio verifies a time-based job by whole passes only"), "{why}");
        let why = refused("random; block 4KiB; read 70%", "measure v qd 4 until written 1GiB verify");
        assert!(why.contains("which reads or trims") && why.contains("`read 0%`"), "{why}");
        let why = refused("random; blocks { 4KiB: 50%, 64KiB: 50% }; read 0%", "fill v verify");
        assert!(why.contains("of several block sizes"), "{why}");
    }

    /// Bursts need fio 3.34 or later on every host: an older one, or one
    /// of a version not said, is named; a plan without bursts runs on any.
    #[test]
    fn bursts_need_fio_3_34_on_every_host() {
        assert_eq!(fio_release("fio-3.33"), Some((3, 33)));
        assert_eq!(fio_release("fio-3.36-12-gabc123"), Some((3, 36)));
        assert_eq!(fio_release("3.4"), Some((3, 4)));
        assert_eq!(fio_release("fio"), None);
        let note = |host: &str, version: Option<&str>| HostNote {
            host: host.into(),
            target: "/dev/sdb".into(),
            hostname: None,
            os: None,
            arch: None,
            fio_version: version.map(String::from),
            kernel: None,
            cpu: None,
            disks: Vec::new(),
        };
        let notes = [note("a", Some("fio-3.36")), note("b", Some("fio-3.33")), note("c", None)];
        let bursts = plan_of("measure r qd 4 bursts 2s every 10s times 3");
        let Err(Error::Unsupported { message, hint }) = check_fio_versions(&bursts, &notes) else {
            panic!("old fio ran bursts")
        };
        assert!(
            message.contains(
                "need fio 3.34 or later on every host, and 2 hosts run an older one: b (fio-3.33), c \
                              (fio of unknown version)"
            ),
            "{message}"
        );
        assert!(hint.unwrap_or_default().contains("or leave the bursts out"));
        assert!(check_fio_versions(&bursts, &notes[..1]).is_ok());
        assert!(check_fio_versions(&plan_of("measure r qd 4 for 1s"), &notes).is_ok());
    }

    /// A sweep's timed measurements and a repeat's go to the hosts in one
    /// session, as many as fit the batch time; a step that takes from the
    /// ones before it (a share of one's rate), a verify, an amount, a cache
    /// drop between them, another sweep, or a step in neither, goes alone
    /// or ends the batch.
    #[test]
    fn a_sweep_or_a_repeat_is_one_batch_as_far_as_its_timed_measurements_fit() {
        let sweep = plan_of("sweep r qd [1, 2, 4] ramp 1s record 2s\nsweep r qd [8, 16] ramp 1s record 2s");
        assert_eq!(batch(&sweep, 0, DEFAULT_BATCH_MS), 0..3, "another sweep is another batch");
        assert_eq!(batch(&sweep, 1, DEFAULT_BATCH_MS), 1..3, "a resume from its middle");
        assert_eq!(batch(&sweep, 3, DEFAULT_BATCH_MS), 3..5);
        assert_eq!(batch(&sweep, 0, 6000), 0..2, "as many as fit 6 s");
        assert_eq!(batch(&sweep, 0, 1000), 0..1, "a step longer than the batch time goes alone");
        assert_eq!(batch(&sweep, 0, 0), 0..1);
        assert_eq!(
            batch_words(&sweep, &(0..3)),
            "steps 1 to 3 (a sweep's 3 measurements, 9s of ramp and record)"
        );
        let repeat = plan_of("repeat 3 { measure r qd 1 for 1s }");
        assert_eq!(batch(&repeat, 0, DEFAULT_BATCH_MS), 0..3);
        let alone = |src: &str| batch(&plan_of(src), 0, DEFAULT_BATCH_MS);
        assert_eq!(alone("measure r qd 1 for 1s\nmeasure r qd 2 for 1s"), 0..1, "in no sweep or repeat");
        assert_eq!(alone("repeat 2 { measure r qd 1 for 1s; drop_caches }"), 0..1);
        assert_eq!(alone("repeat 2 { measure r qd 1 until transferred 1MiB }"), 0..1);
        let share =
            plan_of("measure r qd 1 for 1s as peak\nrepeat 2 { measure r qd 1 rate 50% of peak for 1s }");
        assert_eq!(batch(&share, 1, DEFAULT_BATCH_MS), 1..2);
    }

    /// The start margin is each run's own: a host that began late widens
    /// its run's margin for the run's later I/O runs, and another run at
    /// the same time in the same process (as tests and programs using the
    /// library have) keeps its own `--start-margin`, or 1.5 s.
    #[test]
    fn a_late_host_widens_its_own_runs_start_margin_only() {
        let hosts = [
            HostSpec { client: "ip:127.0.0.1,8765".into(), target: "/t".into() },
            HostSpec { client: "ip:127.0.0.2,8765".into(), target: "/t".into() },
        ];
        let opts = |ms| RunOptions { start_margin_ms: ms, ..RunOptions::default() };
        let (late, other) = (OnHosts::new(&opts(Some(100))), OnHosts::new(&opts(Some(100))));
        // Due at 1000; one host began 400ms late: the margin grows by that
        // and 100ms, and the skew said is that run's margin as it was.
        let skew = starts_seen(&hosts, &[Some(1000), Some(1400)], 1000, &late.margin_ms);
        assert_eq!(skew, Some((0.4, "ip:127.0.0.2,8765".to_string(), 100)));
        assert_eq!(late.margin_ms.get(), 600);
        assert_eq!(other.margin_ms.get(), 100, "another run's margin is its own");
        assert_eq!(OnHosts::new(&opts(None)).margin_ms.get(), 1500, "a new run starts from the default");
        // On time (within 100ms): the margin stays.
        starts_seen(&hosts, &[Some(1000), Some(1050)], 1000, &other.margin_ms);
        assert_eq!(other.margin_ms.get(), 100);
        // Never past 10 s however late.
        starts_seen(&hosts, &[Some(1000), Some(60_000)], 1000, &late.margin_ms);
        assert_eq!(late.margin_ms.get(), MAX_START_MARGIN_MS);
    }
}
