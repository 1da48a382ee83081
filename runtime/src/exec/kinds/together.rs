//! Together steps: several jobs at once, each on its own workers with its
//! own workload, queue depth, rate and device, all started in the same
//! moment. Each job is recorded as a measurement is (its summary, I/O
//! facts, series and latency log, under its own name), and the step's
//! summary is every job's I/O merged into one distribution.

use std::path::PathBuf;

use methodic_compiler::plan::{Duration, Job, MeasureStop, Rate, Target as Settings};
use methodic_results::record::JobResult;

use crate::error::{Error, Result};
use crate::exec::io::spread::Part;
use crate::exec::io::{At, IoRun, IoSpec, std_duration};
use crate::exec::step::{AtOnce, Executor, StepRun};
use crate::stats::Recorder;

/// Runs the jobs at once for the stop rule's time, after the ramp.
pub(super) fn run(
    x: &mut Executor<'_>,
    s: &mut StepRun<'_>,
    jobs: &[Job],
    ramp: Duration,
    stop: &MeasureStop,
    series: Duration,
) -> Result<()> {
    // On many hosts each host has its one target (`remote::check_plan`).
    if x.opts.hosts.is_empty()
        && let Some(job) = jobs.iter().find(|j| j.device as usize >= x.targets.len())
    {
        return Err(Error::unsupported(format!(
            "job {} of step {} runs on device {}, but the run has {} {}",
            job.name,
            s.step.id,
            job.device + 1,
            x.targets.len(),
            if x.targets.len() == 1 { "target" } else { "targets" }
        ))
        .with_hint("give one --target for each device the jobs use, in order"));
    }
    let mut rates = Vec::with_capacity(jobs.len());
    for job in jobs {
        rates.push(x.resolve_rate(s.step, job.rate, &mut s.out.actions)?);
    }
    let mut paths = Vec::with_capacity(jobs.len());
    for job in jobs {
        paths.push(x.results.series_path(&s.step.id, &format!("-{}", job.name))?);
    }
    let runs = run_jobs(x, s, jobs, &rates, &paths, Timing { ramp, stop, series });
    record(x, s, jobs, runs, &paths)?;
    s.out.actions.push(format!(
        "{} ran at once: {}",
        methodic_compiler::plan::plural(jobs.len() as u64, "job", "jobs"),
        jobs.iter().map(|j| j.name.as_str()).collect::<Vec<_>>().join(", ")
    ));
    Ok(())
}

/// The times every job of the step keeps: its ramp, its stop rule and its
/// series interval.
#[derive(Clone, Copy)]
struct Timing<'a> {
    ramp: Duration,
    stop: &'a MeasureStop,
    series: Duration,
}

/// Starts every job at once where the run's I/O runs (its rate in
/// `rates`, its series CSV in `paths`), and waits for all; each job's I/O
/// run, or why it failed, in the jobs' order.
fn run_jobs(
    x: &Executor<'_>,
    s: &StepRun<'_>,
    jobs: &[Job],
    rates: &[Option<Rate>],
    paths: &[PathBuf],
    timing: Timing<'_>,
) -> Vec<Result<IoRun>> {
    let settings = s.settings;
    let at_once = jobs
        .iter()
        .zip(paths)
        .zip(rates)
        .map(|((job, csv), rate)| AtOnce {
            device: job.device as usize,
            // Each job draws its own random stream: its name is in the id.
            stream: format!("{}/{}", s.step.id, job.name),
            spec: IoSpec {
                workload: &job.workload,
                qd: job.qd,
                settings: Settings { workers: job.workers, devices: 1, ..settings },
                ramp: std_duration(timing.ramp),
                record: timing.stop.time.map(std_duration),
                passes: None,
                budget: None,
                series: Some((std_duration(timing.series), Some(csv.clone()))),
                at: At::ONCE,
                rate: *rate,
                pauses: job.pauses,
                verify: None,
            },
        })
        .collect();
    x.io_at_once(s.step, at_once)
}

/// Each job's record (its summary, I/O facts, series, spread and its
/// share of the step's latency log), and the step's summary: every job's
/// I/O merged. A job that failed fails the step, once every job that ran
/// is recorded.
fn record(
    x: &Executor<'_>,
    s: &mut StepRun<'_>,
    jobs: &[Job],
    runs: Vec<Result<IoRun>>,
    paths: &[PathBuf],
) -> Result<()> {
    let mut total = Recorder::default();
    let mut seconds: f64 = 0.0;
    let mut log = match runs.iter().find_map(|r| r.as_ref().ok()) {
        Some(first) => x.latency_log(s.step, first.record_start)?,
        None => None,
    };
    let mut first_error = None;
    for ((job, r), csv) in jobs.iter().zip(runs).zip(paths) {
        let r = match r {
            Ok(r) => r,
            Err(e) => {
                first_error.get_or_insert(e);
                continue;
            }
        };
        total.merge(&r.recorder);
        seconds = seconds.max(r.seconds);
        if let Some(log) = log.as_mut() {
            r.log_into(log, &format!("{}.", job.name))?;
        }
        let part = Part { job: Some(job.name.clone()), cell: None, first: job.device as usize };
        r.keep_spread(&x.targets, part, s.out);
        s.out.jobs.push(JobResult {
            name: job.name.clone(),
            device: x
                .targets
                .get(job.device as usize)
                .map_or_else(|| "each host's target".to_string(), |t| t.path.display().to_string()),
            workload: job.workload.label(),
            qd: job.qd.total,
            summary: r.recorder.summary(r.seconds),
            io: Some(r.info),
            series: Some(x.relative(csv)),
        });
    }
    if let Some(e) = first_error {
        return Err(e);
    }
    if let Some(log) = log {
        s.out.latency_log = Some(x.relative(log.path()));
    }
    s.out.summary = Some(total.summary(seconds));
    Ok(())
}
