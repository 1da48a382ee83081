//! What every step kind works with: the [`Executor`] (what the run holds
//! while its steps run: the plan, the open targets, the results
//! directory, how workers run, the RAM limit and copies in force), the
//! step that runs with its record ([`StepRun`]), and the helpers every
//! I/O step shares (running its I/O, its latency log, its summary and
//! device counters). The kinds themselves are in `kinds/`.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use methodic_compiler::plan::{
    Bytes, Extent, IoMode, Pick, Plan, Point, Qd, Rate, RateAmount, Step, Target as Settings, fine_name,
    plural,
};
use methodic_results::dir::ResultsDir;
use methodic_results::record::StepResult;

use super::io::{IoRun, IoSpec, StepVerify, Workers};
use super::options::{Observer, RunOptions};
use crate::ceiling::{self};
use crate::error::{Error, Result};
use crate::hlog::HistogramLog;
use crate::system::RamLimit;
use crate::target::Target;
use crate::verify::{Findings, Stamping};
use methodic_results::ceiling::Shape;
use methodic_results::engine::EngineKind;
use methodic_results::record::{VerifyResult, VerifyWay};

/// Where a run's I/O runs: on this machine's targets ([`Local`]) or by
/// fio on the hosts (`remote::OnHosts`). Chosen once, when the run's
/// session starts; the step kinds ask it and never decide themselves.
pub(super) trait Site {
    /// Runs a step's I/O as `spec` says and merges what it did.
    fn io(&self, x: &Executor<'_>, step: &Step, spec: IoSpec<'_>) -> Result<IoRun>;

    /// Runs the step in the site's own way where it has one, and says
    /// whether it did (`false`: the step's kind runs it); what the run's
    /// user should know before the step runs goes to `observer`.
    fn run_step(&self, x: &Executor<'_>, s: &mut StepRun<'_>, observer: &mut dyn Observer) -> Result<bool>;

    /// Runs several I/O runs of a step that need no decision between them
    /// (a round's cells), in turn, handing each one's result to `each`.
    /// Here one after another, stopping after the run that was stopped;
    /// a site may send them at once (many hosts: one fio session).
    fn io_each(
        &self,
        x: &Executor<'_>,
        step: &Step,
        specs: Vec<IoSpec<'_>>,
        each: &mut dyn FnMut(IoRun) -> Result<()>,
    ) -> Result<()> {
        one_by_one(self, x, step, specs, each)
    }

    /// Runs the jobs of a `together` step at once; each one's result, or
    /// why it failed, in the jobs' order (a failure of them all: its
    /// error alone).
    fn io_at_once(&self, x: &Executor<'_>, step: &Step, jobs: Vec<AtOnce<'_>>) -> Vec<Result<IoRun>>;
}

/// One job of a `together` step: the device it runs on (from 0), the id
/// its random stream is drawn by, and its I/O.
pub(super) struct AtOnce<'w> {
    pub(super) device: usize,
    pub(super) stream: String,
    pub(super) spec: IoSpec<'w>,
}

/// `specs` run one after another by `site`, each handed to `each`; none
/// after the one in which the run was stopped.
pub(super) fn one_by_one<S: Site + ?Sized>(
    site: &S,
    x: &Executor<'_>,
    step: &Step,
    specs: Vec<IoSpec<'_>>,
    each: &mut dyn FnMut(IoRun) -> Result<()>,
) -> Result<()> {
    for spec in specs {
        each(site.io(x, step, spec)?)?;
        if x.workers.stop.load(std::sync::atomic::Ordering::Relaxed) {
            break;
        }
    }
    Ok(())
}

/// The run's own targets, by its workers.
pub(super) struct Local;

impl Site for Local {
    fn io(&self, x: &Executor<'_>, step: &Step, spec: IoSpec<'_>) -> Result<IoRun> {
        let run = step.repeat.map_or(1, |r| r.run);
        let io = |spec| x.workers.run(&x.targets, &step.id, run, spec);
        let ran = if x.opts.skip_floor { io(spec) } else { x.floor.beside(&x.workers, &x.targets, spec, io) };
        ran.map_err(|e| match e {
            Error::IoFailed(mut f) => {
                f.series = f.series.map(|p| x.relative(&p));
                Error::IoFailed(f)
            }
            e => e,
        })
    }

    fn run_step(&self, _: &Executor<'_>, _: &mut StepRun<'_>, _: &mut dyn Observer) -> Result<bool> {
        Ok(false)
    }

    /// Each job on its own workers on scoped threads, all started at
    /// once, waited for together; the open-loop jobs' floors run at once
    /// before and after them ([`Floor::beside_jobs`](super::floor::Floor::beside_jobs)).
    fn io_at_once(&self, x: &Executor<'_>, step: &Step, jobs: Vec<AtOnce<'_>>) -> Vec<Result<IoRun>> {
        let run = step.repeat.map_or(1, |r| r.run);
        let (workers, targets) = (&x.workers, &x.targets);
        let floors: Vec<(usize, IoSpec<'_>)> = if x.opts.skip_floor {
            Vec::new()
        } else {
            jobs.iter().map(|j| (j.device, j.spec.clone())).collect()
        };
        let ran = || {
            std::thread::scope(|scope| {
                let handles: Vec<_> = jobs
                    .into_iter()
                    .map(|j| {
                        scope
                            .spawn(move || workers.run(&targets[j.device..=j.device], &j.stream, run, j.spec))
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().unwrap_or_else(|_| Err(Error::unsupported("a job's workers panicked"))))
                    .collect()
            })
        };
        super::floor::Floor::beside_jobs(workers, targets, &floors, ran)
    }
}

/// What a run holds while its steps run.
pub(super) struct Executor<'a> {
    pub(super) plan: &'a Plan,
    /// Where the I/O runs.
    pub(super) site: &'a dyn Site,
    pub(super) opts: &'a RunOptions,
    pub(super) targets: Vec<Target>,
    pub(super) results: &'a mut ResultsDir,
    pub(super) workers: Workers,
    pub(super) ram: Option<RamLimit>,
    /// Copy destinations to remove at the end.
    pub(super) copies: Vec<PathBuf>,
    /// Datasets this run has copied from (kept: they are reused).
    pub(super) datasets_seen: Vec<PathBuf>,
    /// The device counters at the start of a buffered step that
    /// `finish_io` ends.
    pub(super) meter: Option<crate::devio::Meter>,
    /// The IOPS of each step that finished (this session's and, on a
    /// resume, the earlier sessions'), by plan index: what `rate P% of
    /// NAME` is a share of.
    pub(super) done_iops: std::collections::HashMap<usize, f64>,
    /// The operating points (queue depth and IOPS) of each measurement or
    /// rounds step that finished, by plan index: what `at max of NAME`
    /// picks from.
    pub(super) done_points: std::collections::HashMap<usize, Vec<OperatingPoint>>,
    /// How the run's steps with `verify` stamp: the run's identity and
    /// the interval, one for the whole run so that a step can check what
    /// another wrote.
    pub(super) stamping: Stamping,
    /// The host's pacing floor beside each open-loop run: its file in RAM.
    pub(super) floor: super::floor::Floor,
}

/// A finished measurement (or rounds cell) an operating point can be
/// chosen from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct OperatingPoint {
    pub qd: Qd,
    pub iops: f64,
    pub mean_latency_us: f64,
}

/// The step that runs: the plan's step, the target settings in effect
/// for it, and its record, which the step's kind fills in.
pub(super) struct StepRun<'s> {
    pub(super) step: &'s Step,
    pub(super) settings: Settings,
    pub(super) out: &'s mut StepResult,
}

impl Executor<'_> {
    /// The engine a step's I/O gets for a queue on that many devices.
    fn engine_of(&self) -> impl Fn(&Qd, usize) -> EngineKind + '_ {
        move |qd, devices| self.workers.engine_for(&self.targets, qd, devices.min(self.targets.len())).0
    }

    /// The distinct I/O shapes of the plan's steps, with the engine each
    /// will run with on these targets.
    pub(super) fn shapes(&self) -> Vec<Shape> {
        ceiling::plan_shapes(self.plan, &self.engine_of())
    }

    /// The I/Os `step` does, each with its shape.
    pub(super) fn uses<'p>(&self, step: &'p Step) -> Vec<ceiling::Use<'p>> {
        ceiling::step_uses(step, self.plan.target, &self.engine_of())
    }

    /// Runs the step's I/O where the run's I/O runs ([`Site`]) and merges
    /// what it did.
    pub(super) fn io(&self, step: &Step, spec: IoSpec<'_>) -> Result<IoRun> {
        self.site.io(self, step, spec)
    }

    /// Runs a `together` step's jobs at once ([`Site::io_at_once`]).
    pub(super) fn io_at_once(&self, step: &Step, jobs: Vec<AtOnce<'_>>) -> Vec<Result<IoRun>> {
        self.site.io_at_once(self, step, jobs)
    }

    /// Runs I/O runs of a step that need no decision between them, each
    /// one's result handed to `each` ([`Site::io_each`]).
    pub(super) fn io_each(
        &self,
        step: &Step,
        specs: Vec<IoSpec<'_>>,
        each: &mut dyn FnMut(IoRun) -> Result<()>,
    ) -> Result<()> {
        self.site.io_each(self, step, specs, each)
    }

    /// `rate` with a share of an earlier step's IOPS made that many IOPS,
    /// saying so in `actions`; other rates as they are.
    pub(super) fn resolve_rate(
        &self,
        step: &Step,
        rate: Option<Rate>,
        actions: &mut Vec<String>,
    ) -> Result<Option<Rate>> {
        let Some(Rate { amount: RateAmount::Share { share, of }, arrivals }) = rate else {
            return Ok(rate);
        };
        let other = self.plan.steps.get(of as usize).map_or("?", |s| s.id.as_str());
        let Some(&iops) = self.done_iops.get(&(of as usize)) else {
            return Err(Error::unsupported(format!(
                "step {}: its rate is {share} of the IOPS of step {} ({other}), which has no result to take it from",
                step.id,
                of + 1
            ))
            .with_hint("run the methodology from the start, or resume it from before that step"));
        };
        let n = (share.as_f64() / 100.0 * iops).round().max(1.0) as u64;
        actions.push(format!("rate {share} of step {} ({other}): {iops:.0} IOPS there, so {n} IOPS", of + 1));
        Ok(Some(Rate { amount: RateAmount::Iops(n), arrivals }))
    }

    /// The queue depth and workers of `point`: of the measurements it
    /// names (their results, this session's or an earlier one's) whose
    /// mean latency was under its limit, the one with the most IOPS, the
    /// fewest, or the IOPS nearest halfway; fewer workers, then a lower
    /// queue depth, win a tie. What was chosen, and why, goes into the
    /// step's actions.
    pub(super) fn resolve_point(&self, step: &Step, point: &Point, actions: &mut Vec<String>) -> Result<Qd> {
        let mut candidates: Vec<OperatingPoint> = Vec::new();
        for of in &point.of {
            match self.done_points.get(&(*of as usize)) {
                Some(points) => candidates.extend(points.iter().copied()),
                None => {
                    let other = self.plan.steps.get(*of as usize).map_or("?", |s| s.id.as_str());
                    return Err(Error::unsupported(format!(
                        "step {}: its queue depth is {}, but step {} ({other}) has no result to take it from",
                        step.id,
                        point.describe(),
                        of + 1
                    ))
                    .with_hint("run the methodology from the start, or resume it from before that step"));
                }
            }
        }
        let measured = candidates.len();
        if let Some(ns) = point.under_ns {
            candidates.retain(|c| c.mean_latency_us * 1000.0 < ns as f64);
        }
        let Some(chosen) = pick_point(&candidates, point.pick) else {
            return Err(Error::unsupported(format!(
                "step {}: none of the {measured} measurements of {} had a mean latency under {}",
                step.id,
                point.name,
                fine_name(point.under_ns.unwrap_or(0))
            ))
            .with_hint("the target is slower than the limit at every point measured; raise the limit"));
        };
        let OperatingPoint { qd, iops, mean_latency_us } = chosen;
        let within = match point.under_ns {
            Some(ns) => format!(", {} of {measured} under {}", candidates.len(), fine_name(ns)),
            None => String::new(),
        };
        actions.push(format!(
            "queue depth {} ({} x QD {}): {}; there {iops:.0} IOPS at a mean latency of {mean_latency_us:.0} us \
             ({} measured{within})",
            qd.total,
            plural(qd.workers as u64, "worker", "workers"),
            qd.per_worker,
            point.describe(),
            plural(measured as u64, "point", "points"),
        ));
        Ok(qd)
    }

    /// Bytes of an `until written` amount: a size, or a share of the span.
    pub(super) fn bytes_of(&self, w: Extent, settings: Settings) -> Bytes {
        match w {
            Extent::Bytes(b) => b,
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
                Bytes(p.of(span))
            }
        }
    }

    /// Saves a step's latency histograms as an HdrHistogram interval log:
    /// one interval, its record window.
    fn save_latency(&self, s: &mut StepRun<'_>, run: &IoRun) -> Result<()> {
        s.out.peak = crate::analysis::peak::of(&run.rows, run.interval_s);
        let Some(mut log) = self.latency_log(s.step, run.record_start)? else { return Ok(()) };
        run.log_into(&mut log, "")?;
        s.out.latency_log = Some(self.relative(log.path()));
        Ok(())
    }

    /// The step's interval log, made anew, its times counted from `base`;
    /// `None` when latencies are not recorded.
    pub(super) fn latency_log(&self, step: &Step, base: SystemTime) -> Result<Option<HistogramLog>> {
        if self.opts.no_latency {
            return Ok(None);
        }
        HistogramLog::create(&self.results.histogram_path(&step.id)?, &step.id, base).map(Some)
    }

    /// `path` relative to the results directory.
    pub(super) fn relative(&self, path: &Path) -> PathBuf {
        path.strip_prefix(&self.results.path).unwrap_or(path).to_path_buf()
    }

    /// Records the one I/O run of a step as the step's: its peak and
    /// latency log, summary, I/O facts and series; syncs buffered writes;
    /// and the bytes that reached the device.
    pub(super) fn finish_io(&mut self, s: &mut StepRun<'_>, mut run: IoRun, series: &Path) -> Result<()> {
        self.save_latency(s, &run)?;
        let out = &mut *s.out;
        if let Some(b) = run.batched.take() {
            out.started = crate::time::rfc3339(b.started);
            out.seconds = b.seconds;
            out.actions.push(b.words);
        }
        out.summary = Some(run.recorder.summary(run.seconds));
        out.io = Some(run.info);
        out.series = Some(self.relative(series));
        if s.settings.io == IoMode::Buffered && s.step.action.writes() {
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
}

impl Executor<'_> {
    /// What a step with `verify` keeps while it runs `workload`: a step
    /// that writes or trims is read back at its end, one that only reads
    /// checks each read. `None` without `verify`.
    pub(super) fn step_verify(
        &self,
        step: &Step,
        workload: &methodic_compiler::plan::Workload,
    ) -> Option<StepVerify> {
        let writes = workload.read < methodic_compiler::plan::Percent::HUNDRED;
        step.verify.then(|| StepVerify::new(self.stamping, writes))
    }

    /// Ends a step with `verify`: a step that wrote reads back every
    /// interval it wrote whole, from each target, timed apart from its
    /// numbers (after buffered writes were synced, from the device: the
    /// page cache's copies are dropped first); a step that read gathers
    /// what its reads' checks found. The step's `verify` record says what
    /// was checked and every mismatch; a mismatch fails the step, its
    /// numbers kept. Nothing to do without `verify`.
    pub(super) fn finish_verify(&mut self, s: &mut StepRun<'_>, verify: Option<StepVerify>) -> Result<()> {
        let Some(v) = verify else { return Ok(()) };
        // Interrupted: the step is recorded as such, without a read-back.
        if self.workers.stop.load(std::sync::atomic::Ordering::SeqCst) {
            return Ok(());
        }
        let mut result = VerifyResult {
            how: if v.writes { VerifyWay::ReadBack } else { VerifyWay::AsRead },
            interval_bytes: v.stamping.interval as u64,
            run: format!("{:016x}", v.stamping.run),
            written: 0,
            left_out: 0,
            checked: 0,
            mismatches: 0,
            first: Vec::new(),
            seconds: 0.0,
            by_fio: false,
        };
        let by_fio = v.by_fio.into_inner().expect("fio's findings are not poisoned");
        if !by_fio.is_empty() {
            // On many hosts: fio's own verify, its interval the block.
            result.by_fio = true;
            result.run = String::new();
            for f in by_fio {
                result.interval_bytes = f.block;
                result.written += f.written;
                result.checked += f.checked;
                result.mismatches += f.mismatches;
                let room = VerifyResult::LISTED.saturating_sub(result.first.len());
                result.first.extend(f.first.into_iter().take(room));
                result.seconds = result.seconds.max(f.seconds);
            }
            return self.keep_verify(s, result);
        }
        let add = |result: &mut VerifyResult, f: Findings, target: &Path| {
            result.checked += f.checked;
            result.mismatches += f.mismatches;
            let room = VerifyResult::LISTED.saturating_sub(result.first.len());
            result.first.extend(f.listed(&target.display().to_string()).into_iter().take(room));
        };
        if v.writes {
            let clock = std::time::Instant::now();
            let trackers = v.trackers.into_inner().expect("the trackers are not poisoned");
            for (d, tracker) in trackers.iter().enumerate() {
                let (Some(tracker), Some(t)) = (tracker, self.targets.get(d)) else { continue };
                let (written, left_out) = tracker.counts();
                result.written += written;
                result.left_out += left_out;
                let file = t.file(true);
                if !t.has_direct() {
                    use std::os::unix::io::AsRawFd;
                    // Written back already (finish_io synced): read from the device.
                    // SAFETY: posix_fadvise takes a descriptor and numbers, no pointer; `file`
                    // keeps the descriptor open for the call.
                    unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
                }
                let mut f = Findings::default();
                tracker.read_back(file, v.stamping, &mut f).map_err(|e| {
                    Error::io(
                        format!("step {}: reading back what it wrote to {}", s.step.id, t.path.display()),
                        e,
                    )
                })?;
                add(&mut result, f, &t.path);
            }
            result.seconds = clock.elapsed().as_secs_f64();
        } else {
            let found = v.found.into_inner().expect("the findings are not poisoned");
            for (d, f) in found.into_iter().enumerate() {
                let Some(t) = self.targets.get(d) else { continue };
                add(&mut result, f, &t.path);
            }
        }
        self.keep_verify(s, result)
    }

    /// Keeps `result` in the step's record; a mismatch fails the step.
    fn keep_verify(&self, s: &mut StepRun<'_>, result: VerifyResult) -> Result<()> {
        let failed = (result.mismatches > 0)
            .then(|| Error::Verify(format!("step {}: data verification: {}", s.step.id, result.words())));
        s.out.verify = Some(result);
        failed.map_or(Ok(()), Err)
    }
}

/// The operating point `pick` chooses of `candidates`: the most IOPS, the
/// fewest, or the IOPS nearest halfway between the two (SNIA PTS DIRTH's
/// MidIOPS); on a tie, fewer workers, then a lower queue depth. `None`
/// when there are none.
pub(super) fn pick_point(candidates: &[OperatingPoint], pick: Pick) -> Option<OperatingPoint> {
    let most = candidates.iter().map(|c| c.iops).fold(f64::NEG_INFINITY, f64::max);
    let fewest = candidates.iter().map(|c| c.iops).fold(f64::INFINITY, f64::min);
    let score = |iops: f64| match pick {
        Pick::Max => -iops,
        Pick::Min => iops,
        Pick::Mid => (iops - (most + fewest) / 2.0).abs(),
    };
    candidates.iter().copied().min_by(|a, b| {
        score(a.iops)
            .total_cmp(&score(b.iops))
            .then(a.qd.workers.cmp(&b.qd.workers))
            .then(a.qd.total.cmp(&b.qd.total))
    })
}

#[cfg(test)]
mod tests {
    use methodic_compiler::plan::QdCounting;

    use super::*;

    fn at(workers: u32, per_worker: u32, iops: f64, mean_latency_us: f64) -> OperatingPoint {
        let qd = Qd { total: workers * per_worker, per_worker, workers, counted: QdCounting::PerWorker };
        OperatingPoint { qd, iops, mean_latency_us }
    }

    /// MaxIOPS, MinIOPS and MidIOPS as SNIA's DIRTH picks them, ties to
    /// fewer workers then a lower queue depth, and nothing of nothing.
    #[test]
    fn the_most_the_fewest_and_the_middle_are_picked_with_ties_to_the_smaller_layout() {
        let points = [
            at(1, 1, 10_000.0, 90.0),
            at(4, 8, 400_000.0, 80.0),
            at(2, 4, 190_000.0, 40.0),
            at(8, 8, 400_000.0, 150.0),
            at(1, 8, 220_000.0, 35.0),
        ];
        let pick = |p| pick_point(&points, p).map(|c| (c.qd.workers, c.qd.per_worker));
        assert_eq!(pick(Pick::Max), Some((4, 8)), "400k twice: 4 workers before 8");
        assert_eq!(pick(Pick::Min), Some((1, 1)));
        // Halfway between 10k and 400k is 205k: 190k is 15k off, 220k 15k too; the one
        // with fewer workers wins.
        assert_eq!(pick(Pick::Mid), Some((1, 8)));
        assert_eq!(pick_point(&[], Pick::Max), None);
    }
}
