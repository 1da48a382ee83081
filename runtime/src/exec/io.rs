//! Running a step's I/O: an [`IoSpec`] (a workload at a queue depth on
//! the targets, for a time, a number of passes or bytes) goes in; workers
//! are laid out over the targets' regions, each with its engine and
//! random stream, and what they did comes out merged as an [`IoRun`]
//! (the recorder, the seconds measured, the I/O facts, the series rows;
//! open loop, the rate kept).
//! Chooses the engine for a queue ([`Workers::engine_for`]); the step
//! kinds and the host ceiling run their I/O through here. Each worker's
//! own record is kept beside the merged one, for the run's spread over
//! devices and workers and its bursts ([`spread`]). Also the CSV writer
//! the steady-state loops share.

pub(crate) mod spread;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Barrier, Mutex};
use std::time::{Duration as StdDuration, Instant, SystemTime};

use methodic_compiler::plan::{Bytes, IoMode, Pauses, Qd, Rate, RateAmount, Target as Settings, Workload};
use methodic_results::host::TargetKind;
use methodic_results::record::{BurstResult, IoErrors, IoInfo, OpenLoopResult, Spread, StepResult};

use self::spread::{Part, skew_words, spread_of};
use super::options::EngineChoice;
use crate::engine::EngineFactory;
use crate::error::{Error, Result};
use crate::failure::IoFailed;
use crate::hlog::HistogramLog;
use crate::region::{Region, step_region, worker_regions};
use crate::rng::{Stream, stream_seed};
use crate::series::{self, Message};
use crate::stats::Recorder;
use crate::target::Target;
use crate::verify::{Findings, Stamping, Tracker};
use crate::worker::pace::{OpenOutcome, OpenRate};
use crate::worker::{self, Counts, Job, SeriesLink, SharedBudget, Timing, WorkerVerify};
use methodic_results::engine::EngineKind;
use methodic_results::series::Row;

/// The most threads psync uses to keep a queue depth; deeper queues use
/// io_uring.
pub(crate) const MAX_PSYNC_THREADS: u32 = 128;

/// How a run's workers run, whatever they run on: the engine asked for
/// and whether io_uring is there, the seed every stream derives from,
/// pinning, latency recording, the stop flag, and the factory that makes
/// each worker's engine.
#[derive(Debug, Clone)]
pub(crate) struct Workers {
    pub(crate) engine: EngineChoice,
    /// io_uring can be used (it is available, and not refused by `--engine psync`).
    pub(crate) uring: bool,
    pub(crate) seed: u64,
    pub(crate) pin: bool,
    pub(crate) latency: bool,
    pub(crate) stop: Arc<AtomicBool>,
    pub(crate) engines: Arc<dyn EngineFactory>,
}

/// What an I/O run is asked to do.
#[derive(Clone)]
pub(crate) struct IoSpec<'w> {
    pub(crate) workload: &'w Workload,
    pub(crate) qd: Qd,
    pub(crate) settings: Settings,
    pub(crate) ramp: StdDuration,
    pub(crate) record: Option<StdDuration>,
    /// Fill: this many passes over each worker's stripe.
    pub(crate) passes: Option<u32>,
    /// Until written or transferred: this many bytes over all workers, of
    /// what the budget counts.
    pub(crate) budget: Option<(Bytes, Counts)>,
    /// The series interval, and the CSV to write (or only rows to keep).
    pub(crate) series: Option<(StdDuration, Option<PathBuf>)>,
    /// Which round and cell of the step this is: each draws its own
    /// random stream.
    pub(crate) at: At,
    /// Open loop: I/Os start at this rate over all workers, whatever the
    /// target does; `None`: closed loop.
    pub(crate) rate: Option<Rate>,
    /// Pauses between a worker's I/Os: think time, bursts.
    pub(crate) pauses: Pauses,
    /// A step with `verify`: its stamps, and where what its workers wrote
    /// or found is kept over its I/O runs.
    pub(crate) verify: Option<&'w StepVerify>,
}

/// A step with `verify` while it runs: how it stamps, whether it writes
/// (and is read back at its end) or only reads (and checks each read),
/// and, for each target, what was written whole or what the checks found.
pub(crate) struct StepVerify {
    pub(crate) stamping: Stamping,
    /// The step's workload writes or trims.
    pub(crate) writes: bool,
    /// A tracker a target, made when the step's first I/O lays its
    /// workers out over the target's region.
    pub(crate) trackers: Mutex<Vec<Option<Arc<Tracker>>>>,
    /// What the read checks found, a target's.
    pub(crate) found: Mutex<Vec<Findings>>,
    /// On many hosts: what fio's own verify found, an I/O run's.
    pub(crate) by_fio: Mutex<Vec<crate::hosts::FioVerified>>,
}

impl StepVerify {
    pub(crate) fn new(stamping: Stamping, writes: bool) -> StepVerify {
        StepVerify {
            stamping,
            writes,
            trackers: Mutex::default(),
            found: Mutex::default(),
            by_fio: Mutex::default(),
        }
    }
}

/// A round and a cell of a step, from 1; both 1 for steps without rounds.
#[derive(Debug, Clone, Copy)]
pub(crate) struct At {
    pub(crate) round: u32,
    pub(crate) cell: u32,
}

impl At {
    pub(crate) const ONCE: At = At { round: 1, cell: 1 };
}

pub(crate) struct IoRun {
    pub(crate) recorder: Recorder,
    pub(crate) seconds: f64,
    /// The series interval of `rows`, in seconds.
    pub(crate) interval_s: f64,
    /// When recording began (the first worker's end of ramp).
    pub(crate) record_start: SystemTime,
    pub(crate) info: IoInfo,
    pub(crate) rows: Vec<Row>,
    /// Each worker's own record, in worker order.
    pub(crate) workers: Vec<spread::WorkerRun>,
    /// With bursts: each burst's I/Os over all workers.
    pub(crate) bursts: Option<spread::BurstRun>,
    /// A run on many hosts: each host's share (the step's own I/O run:
    /// no cell yet).
    pub(crate) hosts: Vec<methodic_results::record::HostRates>,
    /// A run on many hosts: how far apart the hosts' record windows
    /// began, in seconds, the host that began last, and the start margin
    /// the run had, in milliseconds.
    pub(crate) host_skew: Option<(f64, String, u64)>,
    /// Open loop: how late every I/O started in the window, ns.
    pub(crate) lateness: Option<hdrhistogram::Histogram<u64>>,
    /// Open loop: the host's pacing floor runs against RAM beside this
    /// run (`super::floor`), each one's latencies.
    pub(crate) floor: Vec<Recorder>,
    /// A run on many hosts sent in one fio session with other steps'
    /// (`remote::batch`): when it began and how long it ran, and what its
    /// step's record says of it.
    pub(crate) batched: Option<Batched>,
}

/// An I/O run that went to the hosts in one fio session with other
/// steps' runs: its step's record takes its start and length from the
/// run, not from when the executor came to the step.
#[derive(Debug, Clone)]
pub(crate) struct Batched {
    /// When its ramp began on the first host, Unix seconds.
    pub(crate) started: f64,
    pub(crate) seconds: f64,
    pub(crate) words: String,
}

pub(crate) fn std_duration(d: methodic_compiler::plan::Duration) -> StdDuration {
    StdDuration::from_millis(d.as_millis())
}

impl Workers {
    /// The engine for a step whose workers keep `qd` in flight on the
    /// first `devices` of `targets`, and why.
    pub(crate) fn engine_for(
        &self,
        targets: &[Target],
        qd: &Qd,
        devices: usize,
    ) -> (EngineKind, &'static str) {
        let inline = targets.iter().take(devices).all(|t| t.inline_completion);
        match self.engine {
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

    /// Runs workers on `targets` as `spec` says, named by `id`, and merges
    /// what they did; each worker draws the random stream of `id`, repeat
    /// run `run`, the spec's round and cell, and its own index. A series
    /// CSV named in an I/O failure is named as given, not relative to the
    /// results.
    pub(crate) fn run(&self, targets: &[Target], id: &str, run: u32, spec: IoSpec<'_>) -> Result<IoRun> {
        let l = self.lay_out(targets, id, &spec)?;
        let trackers = trackers(&spec, &l);
        let (tx, collector) = start_series(targets, &spec, &l)?;
        let shared = Shared {
            start: Arc::new(Barrier::new(l.threads)),
            abort: Arc::new(AtomicBool::new(false)),
            budget: spec.budget.map(|(target, counts)| SharedBudget {
                issued: Arc::new(AtomicU64::new(0)),
                target,
                counts,
            }),
            series: tx,
            trackers,
        };
        let (mono0, wall0) = (Instant::now(), SystemTime::now());
        let seed0 = self.seed_of(id, run, spec.at, 0);
        // The run's own sender goes with `shared`: the collector ends once
        // every worker has sent its last interval.
        let jobs = self.jobs(targets, id, run, &spec, &l, shared);
        let outcomes = run_workers(jobs);
        let rows = series_rows(collector, &spec)?;
        let mut m = merge(outcomes, targets, id, &l, &spec)?;
        let cut_short = self.stop.load(Ordering::SeqCst) || spec.budget.is_some() || !m.failures.is_empty();
        let (seconds, workers) = m.lengths(spec.record, cut_short);
        let errors = m.errors(targets);
        let (open_loop, lateness) = spec
            .rate
            .zip(l.asked_iops)
            .map(|(r, asked)| open_loop_result(r, asked, &m.open, m.recorder.ios(), seconds))
            .unzip();
        if let Some(v) = spec.verify.filter(|v| !v.writes) {
            keep_findings(v, std::mem::take(&mut m.found), l.devices);
        }
        let run = IoRun {
            recorder: m.recorder,
            seconds,
            interval_s: spec.series.as_ref().map_or(worker::UNSERIED_INTERVAL, |s| s.0).as_secs_f64(),
            record_start: wall0 + m.from.map_or(StdDuration::ZERO, |f| f.saturating_duration_since(mono0)),
            info: IoInfo {
                engine: l.engine,
                engine_reason: l.engine_reason.to_string(),
                threads: l.threads as u32,
                depth: l.depth,
                mean_inflight: m.inflight,
                registered_buffers: l.engine == EngineKind::IoUring && m.fixed,
                forced_async: m.forced_async,
                latency_recorded: self.latency,
                bytes_written: m.written,
                seed: seed0,
                errors,
                rate: open_loop,
            },
            rows,
            workers,
            bursts: m.bursts,
            hosts: Vec::new(),
            host_skew: None,
            lateness,
            floor: Vec::new(),
            batched: None,
        };
        if run.info.errors.is_some() {
            let series = spec.series.as_ref().and_then(|(_, p)| p.clone());
            return Err(Error::IoFailed(Box::new(IoFailed {
                step: id.to_string(),
                summary: run.recorder.summary(run.seconds),
                info: run.info,
                series,
            })));
        }
        Ok(run)
    }

    /// How a run of `spec` on `targets` is laid out: its engine, threads
    /// and depth, the devices they spread over, the rate it asks for
    /// (refused unless above 0), and each device's region with the
    /// stripes of the threads on it. `id` names the step in errors.
    fn lay_out(&self, targets: &[Target], id: &str, spec: &IoSpec<'_>) -> Result<Layout> {
        let device_count = (spec.settings.devices.max(1) as usize).min(targets.len());
        let (engine, engine_reason) = self.engine_for(targets, &spec.qd, device_count);
        // psync keeps one I/O in flight a thread: the queue depth is kept
        // with one thread per outstanding I/O (the ceiling's shapes use the
        // same mapping).
        let (threads, depth) = methodic_results::ceiling::threads_and_depth(engine, &spec.qd);
        let threads = threads as usize;
        let devices = device_count.min(threads);
        let asked_iops = asked_iops(id, spec)?;
        let largest = spec.workload.largest_block();
        // Each device's region, and the stripes of the threads on it.
        let mut places: Vec<(usize, Region, Region)> = Vec::with_capacity(threads);
        for (d, t) in targets.iter().enumerate().take(devices) {
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
                places.push((i, region, stripes[k]));
            }
        }
        places.sort_by_key(|l| l.0);
        Ok(Layout { engine, engine_reason, threads, depth, devices, asked_iops, places })
    }

    /// The seed of worker `worker`'s random stream in repeat run `run`
    /// of the step `id`, at `at`.
    fn seed_of(&self, id: &str, run: u32, at: At, worker: u32) -> u64 {
        stream_seed(self.seed, &Stream { step: id, run, round: at.round, cell: at.cell, worker })
    }

    /// Each worker's job, as `l` lays them out; every job holds what
    /// the workers share.
    fn jobs(
        &self,
        targets: &[Target],
        id: &str,
        run: u32,
        spec: &IoSpec<'_>,
        l: &Layout,
        shared: Shared,
    ) -> Vec<Job> {
        let direct = spec.settings.io == IoMode::Direct;
        // Pinned round robin over the CPUs the process may use (a taskset or
        // cgroup mask), not CPU 0..n.
        let cpus = crate::host::allowed_cpus();
        let (threads, devices) = (l.threads, l.devices);
        l.places
            .iter()
            .map(|&(i, region, stripe)| Job {
                fd: {
                    use std::os::unix::io::AsRawFd;
                    targets[i % devices].file(direct).as_raw_fd()
                },
                engine: l.engine,
                // Block devices without nowait get every request punted to
                // a kernel worker anyway; files write faster inline (tmpfs).
                force_async: {
                    let t = &targets[i % devices];
                    t.kind == TargetKind::BlockDevice && !t.nowait
                },
                depth: l.depth,
                pauses: spec.pauses,
                rate: spec.rate.zip(l.asked_iops).map(|(r, total)| OpenRate {
                    iops: total / threads as f64,
                    arrivals: r.arrivals,
                    phase: i as f64 / threads as f64,
                }),
                workload: spec.workload.clone(),
                area: region,
                stripe,
                seed: self.seed_of(id, run, spec.at, i as u32),
                data: spec.settings.data,
                timing: Timing { ramp: spec.ramp, record: spec.record },
                start: shared.start.clone(),
                quota: spec.passes.map(|p| Bytes(stripe.len * p as u64)),
                budget: shared.budget.clone(),
                series: shared.series.as_ref().map(|tx| SeriesLink {
                    tx: tx.clone(),
                    worker: i,
                    interval: spec.series.as_ref().map_or(StdDuration::from_secs(1), |s| s.0),
                }),
                stop: self.stop.clone(),
                abort: shared.abort.clone(),
                cpu: self.pin.then_some(cpus[i % cpus.len()]),
                latency: self.latency,
                engines: Arc::clone(&self.engines),
                target: i % devices,
                verify: spec.verify.map(|v| WorkerVerify {
                    stamping: v.stamping,
                    worker: i as u32,
                    tracker: shared.trackers.get(i % devices).cloned().flatten(),
                    check_reads: !v.writes,
                }),
                #[cfg(test)]
                each_stamp: None,
            })
            .collect()
    }
}

/// One I/O run laid out before its workers start: the engine and why,
/// the threads and the depth each keeps, the devices they spread over,
/// the rate asked, and each thread's place.
struct Layout {
    engine: EngineKind,
    engine_reason: &'static str,
    threads: usize,
    depth: u32,
    /// Thread `i` drives target `i % devices`.
    devices: usize,
    /// Open loop: the step's rate over all its threads, in I/Os a second.
    asked_iops: Option<f64>,
    /// Each thread's index, its device's region and its own stripe of
    /// that region, in thread order.
    places: Vec<(usize, Region, Region)>,
}

/// What every worker of one I/O run shares: the barrier they start at,
/// the flag one that fails raises, the byte budget, the series channel,
/// and (a step with `verify` that writes) each target's tracker.
struct Shared {
    start: Arc<Barrier>,
    abort: Arc<AtomicBool>,
    budget: Option<SharedBudget>,
    series: Option<Sender<Message>>,
    trackers: Vec<Option<Arc<Tracker>>>,
}

/// Open loop: the rate `spec` asks for over all its workers, in I/Os a
/// second; refused when it is still a share of another step's IOPS, or
/// not above 0. `None`: closed loop.
fn asked_iops(id: &str, spec: &IoSpec<'_>) -> Result<Option<f64>> {
    let asked_iops = match spec.rate.map(|r| r.iops(spec.workload)) {
        Some(None) => {
            return Err(Error::unsupported(format!(
                "step {id}: its rate is a share of another step's IOPS, not yet read from that step's results"
            )));
        }
        other => other.flatten(),
    };
    if let Some(r) = asked_iops.filter(|r| !(*r > 0.0 && r.is_finite())) {
        return Err(Error::unsupported(format!(
            "step {id} asks for a rate of {r} I/Os a second: an open-loop rate must be above 0"
        )));
    }
    Ok(asked_iops)
}

/// Verify: a step that writes keeps a tracker a target, over its region,
/// for all its I/O runs (a precondition's rounds); those of the targets
/// `l` lays workers on, made where the step has none yet. Empty for a
/// step that does not write.
fn trackers(spec: &IoSpec<'_>, l: &Layout) -> Vec<Option<Arc<Tracker>>> {
    let Some(v) = spec.verify.filter(|v| v.writes) else {
        return Vec::new();
    };
    let mut kept = v.trackers.lock().expect("the trackers are not poisoned");
    let n = l.devices.max(kept.len());
    kept.resize(n, None);
    for &(i, region, _) in &l.places {
        let d = i % l.devices;
        if kept[d].is_none() {
            kept[d] = Some(Arc::new(Tracker::new(region, v.stamping.interval)));
        }
    }
    kept.clone()
}

/// The series collector of a run that keeps a series (with the drives'
/// health beside its CSV), and the sender its workers report to.
fn start_series(
    targets: &[Target],
    spec: &IoSpec<'_>,
    l: &Layout,
) -> Result<(Option<Sender<Message>>, Option<series::Collector>)> {
    let Some((interval, path)) = &spec.series else {
        return Ok((None, None));
    };
    let health = path.as_ref().map(|p| p.with_extension("health.csv"));
    let thermometer = series::drive_thermometer(&targets[..l.devices], health.as_deref());
    let (tx, h) = series::collector(path.as_deref(), l.threads, interval.as_secs_f64(), thermometer)
        .map_err(|e| Error::io("cannot start the series", e))?;
    Ok((Some(tx), Some(h)))
}

/// Runs each job on a thread of its own and waits for all of them; each
/// worker's outcome, in job order (a worker that panicked as an error).
fn run_workers(jobs: Vec<Job>) -> Vec<std::io::Result<worker::Outcome>> {
    std::thread::scope(|s| {
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
    })
}

/// The series rows the collector kept, once every worker has reported
/// (none without a series).
fn series_rows(collector: Option<series::Collector>, spec: &IoSpec<'_>) -> Result<Vec<Row>> {
    let Some(h) = collector else {
        return Ok(Vec::new());
    };
    h.join().map_err(|_| Error::unsupported("the series collector panicked"))?.map_err(|e| {
        let path = spec.series.as_ref().and_then(|(_, p)| p.as_deref()).unwrap_or(Path::new("series"));
        Error::io(format!("cannot write {}", path.display()), e)
    })
}

/// What the workers of one run did, added up: their recorders merged,
/// counts and flags over all of them, each target's findings, and each
/// worker's own record with its own recorded time.
struct Merged {
    recorder: Recorder,
    inflight: f64,
    written: u64,
    fixed: bool,
    forced_async: bool,
    /// The first worker's record start, and the last recorded completion.
    from: Option<Instant>,
    last: Option<Instant>,
    failed: u64,
    completed: u64,
    /// Each failed worker's first failure, with its target.
    failures: Vec<(usize, worker::IoFailure)>,
    open: Vec<OpenOutcome>,
    /// What the read checks found, a target's.
    found: Vec<Findings>,
    each: Vec<(spread::WorkerRun, f64)>,
    bursts: Option<spread::BurstRun>,
}

/// The workers' outcomes, in worker order, added up as `l` laid them
/// out; a worker that could not run fails the run, named by step `id`
/// and its target.
fn merge(
    outcomes: Vec<std::io::Result<worker::Outcome>>,
    targets: &[Target],
    id: &str,
    l: &Layout,
    spec: &IoSpec<'_>,
) -> Result<Merged> {
    let mut m = Merged {
        recorder: Recorder::default(),
        inflight: 0.0,
        written: 0,
        fixed: true,
        forced_async: false,
        from: None,
        last: None,
        failed: 0,
        completed: 0,
        failures: Vec::new(),
        open: Vec::new(),
        found: vec![Findings::default(); l.devices],
        each: Vec::with_capacity(l.threads),
        bursts: spec.pauses.bursts.map(spread::BurstRun::new),
    };
    for (k, o) in outcomes.into_iter().enumerate() {
        // Worker k drives target k % devices (see `Layout`).
        let on = k % l.devices;
        let mut o = o.map_err(|e| Error::io(format!("step {id} on {}", targets[on].path.display()), e))?;
        if let Some(f) = o.verify.take() {
            m.found[on].merge(f);
        }
        m.failed += o.errors;
        m.completed += o.completed;
        if let Some(f) = o.first_error {
            m.failures.push((on, f));
        }
        m.recorder.merge(&o.recorder);
        m.inflight += o.mean_inflight;
        m.written += o.written_bytes;
        m.open.extend(o.open);
        m.fixed &= o.fixed_buffers || l.engine == EngineKind::Psync;
        m.forced_async |= o.force_async;
        m.from = Some(m.from.map_or(o.record_from, |f: Instant| f.min(o.record_from)));
        m.last = match (m.last, o.last_recorded) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        if let Some(b) = m.bursts.as_mut() {
            b.add(&o.bursts, o.bursts_from_ramp);
        }
        let own = o.last_recorded.map_or(0.0, |t| t.saturating_duration_since(o.record_from).as_secs_f64());
        m.each.push((
            spread::WorkerRun { target: on, recorder: o.recorder, intervals: o.interval_ios, seconds: 0.0 },
            own,
        ));
    }
    Ok(m)
}

impl Merged {
    /// The seconds the run lasted, and each worker's own record with the
    /// seconds it lasted (`cut_short`: stopped before its `record` time
    /// was up).
    fn lengths(&mut self, record: Option<StdDuration>, cut_short: bool) -> (f64, Vec<spread::WorkerRun>) {
        let measured = match (self.from, self.last) {
            (Some(f), Some(l)) => l.saturating_duration_since(f).as_secs_f64(),
            _ => 0.0,
        };
        // A timed step records completions inside its record time, so that
        // is its length; a step that stops by bytes lasts as long as it took.
        // A timed step stopped early by a signal, or by its byte budget
        // (`for T until written N`), lasted as long as it ran.
        // A step that failed lasted until its failure.
        let seconds = match record {
            Some(r) if !cut_short => r.as_secs_f64(),
            Some(r) => measured.min(r.as_secs_f64()),
            None => measured,
        };
        // Each worker's own time: the step's when timed, else from its
        // record start to its last recorded completion.
        let workers = std::mem::take(&mut self.each)
            .into_iter()
            .map(|(w, own)| spread::WorkerRun {
                seconds: match record {
                    Some(_) if !cut_short => seconds,
                    Some(r) => own.min(r.as_secs_f64()),
                    None => own,
                },
                ..w
            })
            .collect();
        (seconds, workers)
    }

    /// The run's failed I/Os, if any: how many failed and completed, the
    /// first failure, and the other targets where I/Os failed.
    fn errors(&self, targets: &[Target]) -> Option<IoErrors> {
        self.failures.first().map(|(on, f)| {
            let mut also_on: Vec<PathBuf> = Vec::new();
            for (t, _) in &self.failures {
                let p = &targets[*t].path;
                if *t != *on && !also_on.contains(p) {
                    also_on.push(p.clone());
                }
            }
            IoErrors {
                failed: self.failed,
                completed: self.completed,
                first: f.record(&targets[*on].path),
                also_on,
            }
        })
    }
}

/// A step that only reads, with `verify`: what its checks found on each
/// of `devices` targets, added to what its earlier I/O runs found.
fn keep_findings(v: &StepVerify, found: Vec<Findings>, devices: usize) {
    let mut kept = v.found.lock().expect("the findings are not poisoned");
    let n = devices.max(kept.len());
    kept.resize(n, Findings::default());
    for (d, f) in found.into_iter().enumerate() {
        kept[d].merge(f);
    }
}

/// What an open-loop run kept of its `rate` (`asked` I/Os a second), from
/// its workers' counts over the `seconds` recorded, `completed` I/Os
/// recorded. Kept: the workers started at least 99% of the I/Os due in the
/// window (the schedules' own count: for uniform arrivals the rate times
/// the time to within an I/O a worker, for Poisson arrivals the count the
/// draws made, which varies around it by its square root), and the backlog
/// left when the window ended (due a gap or more before it, never started)
/// is at most 1% of the I/Os due: a thread the machine delayed across the
/// window's end leaves a few, a target that could not keep up (or a backlog
/// from the ramp it never cleared) leaves more. Started I/Os above those
/// due (a ramp's backlog cleared in the window) show as late ones.
fn open_loop_result(
    rate: Rate,
    asked: f64,
    open: &[OpenOutcome],
    completed: u64,
    seconds: f64,
) -> (OpenLoopResult, hdrhistogram::Histogram<u64>) {
    let sum = |f: fn(&OpenOutcome) -> u64| open.iter().map(f).sum::<u64>();
    let (due, started, late) = (sum(|o| o.due), sum(|o| o.started), sum(|o| o.late));
    let (never_started, backlog) = (sum(|o| o.never_started), sum(|o| o.backlog));
    let late_ns: u128 = open.iter().map(|o| o.late_ns).sum();
    let mut lateness = crate::stats::histogram(3);
    for o in open {
        // Both histograms have the same bounds, so adding cannot fail.
        let _ = lateness.add(&o.lateness);
    }
    let per_s = |n: u64| if seconds > 0.0 { n as f64 / seconds } else { 0.0 };
    let us = |ns: f64| ns / 1000.0;
    let gap = open.first().map_or(0.0, |o| o.gap_ns);
    let max_ns = open.iter().map(|o| o.max_late_ns).max().unwrap_or(0);
    // The histogram keeps 3 significant digits: a quantile can read a
    // little over the exact maximum, which no percentile may exceed.
    let quantile =
        |q: f64| if lateness.is_empty() { 0.0 } else { us(lateness.value_at_quantile(q).min(max_ns) as f64) };
    let result = OpenLoopResult {
        asked_iops: asked,
        asked_bytes_s: match rate.amount {
            RateAmount::Bandwidth(b) => Some(b.0),
            RateAmount::Iops(_) | RateAmount::Share { .. } => None,
        },
        arrivals: rate.arrivals,
        due,
        started,
        completed,
        started_iops: per_s(started),
        completed_iops: per_s(completed),
        kept: started as f64 >= 0.99 * due as f64 && backlog as f64 <= 0.01 * due as f64,
        late,
        late_percent: if started > 0 { late as f64 / started as f64 * 100.0 } else { 0.0 },
        late_after_us: if gap.is_finite() { us(gap) } else { 0.0 },
        lateness_mean_us: if late > 0 { us(late_ns as f64 / late as f64) } else { 0.0 },
        lateness_p50_us: quantile(0.5),
        lateness_p99_us: quantile(0.99),
        lateness_max_us: us(max_ns as f64),
        never_started,
        backlog,
        floor: None,
        floor_warning: None,
    };
    (result, lateness)
}

impl IoRun {
    /// Writes the run's histograms into `log` as one interval, its record
    /// window, their tags after `prefix`.
    pub(crate) fn log_into(&self, log: &mut HistogramLog, prefix: &str) -> Result<()> {
        log.interval(&self.recorder, self.record_start, StdDuration::from_secs_f64(self.seconds), prefix)
    }
}

impl IoRun {
    /// How the run spread over its devices and workers, its targets from
    /// `part.first` of `targets`; `None` with one worker.
    pub(crate) fn spread(&self, targets: &[Target], part: Part) -> Option<Spread> {
        spread_of(&self.workers, self.interval_s, targets, part)
    }

    /// Each burst of the record window (none without bursts), named by
    /// `job` for a together job.
    pub(crate) fn burst_results(&self, job: Option<&str>) -> Vec<BurstResult> {
        self.bursts.as_ref().map_or(Vec::new(), |b| b.results(self.seconds, job))
    }

    /// Recorded I/Os started in the ramp, in no burst.
    pub(crate) fn bursts_from_ramp(&self) -> u64 {
        self.bursts.as_ref().map_or(0, |b| b.from_ramp)
    }

    /// Adds the run's spread, bursts and hosts to the step's record, as
    /// `part` of it.
    pub(crate) fn keep_spread(&self, targets: &[Target], part: Part, out: &mut StepResult) {
        let job = part.job.clone();
        out.bursts.extend(self.burst_results(job.as_deref()));
        out.bursts_from_ramp += self.bursts_from_ramp();
        let cell = part.cell;
        out.spread.extend(self.spread(targets, part));
        out.hosts.extend(
            self.host_rates(cell)
                .into_iter()
                .map(|h| methodic_results::record::HostRates { job: job.clone(), ..h }),
        );
        if let Some(words) = skew_words(self.host_skew.as_ref(), self.hosts.len()) {
            out.actions.push(match &job {
                Some(name) => format!("job {name}: {words}"),
                None => words,
            });
        }
    }

    /// Each host's share of a run on many hosts, as `cell` of its step.
    pub(crate) fn host_rates(&self, cell: Option<u32>) -> Vec<methodic_results::record::HostRates> {
        self.hosts.iter().map(|h| methodic_results::record::HostRates { cell, ..h.clone() }).collect()
    }
}
