//! Precondition steps: a workload written until the drive is in the
//! state a measurement needs, for a time ([`for_time`]) or until the
//! tracked metric is steady ([`until_steady`]), with the round-by-round
//! record that shows it; with `verify`, what its writes read back as.

use std::sync::atomic::Ordering;
use std::time::{Duration as StdDuration, SystemTime};

use methodic_compiler::plan::{Duration, Qd, SteadyRule, Workload};
use methodic_results::record::SteadyResult;

use super::rounds::{metric_of, steady_result};
use crate::error::{Error, Result};
use crate::exec::io::{At, IoSpec, spread, std_duration};
use crate::exec::step::{Executor, StepRun};
use crate::stats::Recorder;
use crate::steady;
use methodic_results::csv_file::Writer;
use methodic_results::rounds::SteadyRound;
use methodic_results::series::Row;

/// `precondition W qd N for T`: the workload for a time, as a measure
/// without a ramp.
pub(super) fn for_time(
    x: &mut Executor<'_>,
    s: &mut StepRun<'_>,
    workload: &Workload,
    qd: Qd,
    time: Duration,
    series: Duration,
) -> Result<()> {
    let csv = x.results.series_path(&s.step.id, "")?;
    let verify = x.step_verify(s.step, workload);
    let run = x.io(
        s.step,
        IoSpec {
            workload,
            qd,
            settings: s.settings,
            ramp: StdDuration::ZERO,
            record: Some(std_duration(time)),
            passes: None,
            budget: None,
            series: Some((std_duration(series), Some(csv.clone()))),
            at: At::ONCE,
            rate: None,
            pauses: Default::default(),
            verify: verify.as_ref(),
        },
    )?;
    run.keep_spread(&x.targets, spread::Part::STEP, s.out);
    x.finish_io(s, run, &csv)?;
    x.finish_verify(s, verify)
}

/// `precondition W qd N until steady { ... }`: rounds of `round` each
/// until the tracked metric is steady over the rule's window or
/// `max_rounds` have run; a row a round in `<step>.rounds.csv` with the
/// window's numbers, and the series of every round, one after another.
pub(super) fn until_steady(
    x: &mut Executor<'_>,
    s: &mut StepRun<'_>,
    workload: &Workload,
    qd: Qd,
    round: Duration,
    rule: &SteadyRule,
    series: Duration,
) -> Result<()> {
    let (step, settings) = (s.step, s.settings);
    let csv = x.results.series_path(&step.id, "")?;
    let rounds_csv = x.results.series_path(&step.id, ".rounds")?;
    let mut series_out = Writer::<Row>::create(&csv)?;
    let mut rounds_out = Writer::<SteadyRound>::create(&rounds_csv)?;
    let mut values = Vec::new();
    let mut window = None;
    let mut all = Recorder::default();
    let mut info = None;
    let mut seconds = 0.0;
    let mut latencies = Vec::new();
    let mut rows = Vec::new();
    // Each worker over every round, for the step's spread.
    let mut workers = Vec::new();
    // On many hosts: each host's share of the last round.
    let mut hosts = Vec::new();
    let mut skew = None;
    let interval_s = std_duration(series).as_secs_f64();
    let mut log = x.latency_log(step, SystemTime::now())?;
    // Verify: the rounds' writes are kept together, and read back once
    // the last round ends.
    let verify = x.step_verify(step, workload);
    // An error in a round ends the loop, but the rounds before it are
    // kept in the step's record.
    let mut gather = || -> Result<()> {
        for r in 1..=rule.max_rounds {
            let run = x.io(
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
                    rate: None,
                    pauses: Default::default(),
                    verify: verify.as_ref(),
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
                series_out.row(&Row { t: seconds + row.t, ..*row })?;
            }
            seconds += run.seconds;
            all.merge(&run.recorder);
            hosts = run.host_rates(None);
            spread::widest(&mut skew, run.host_skew.clone());
            info = Some(run.info);
            spread::absorb(&mut workers, run.workers, interval_s);
            window = steady::check(&values, rule);
            rounds_out.row(&SteadyRound::new(r, value, window.as_ref()))?;
            if window.as_ref().is_some_and(|w| w.steady) || x.workers.stop.load(Ordering::Relaxed) {
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
        s.out.summary = Some(all.summary(seconds));
        s.out.io = info;
        s.out.series = Some(x.relative(&csv));
        s.out.latency_log = log.as_ref().map(|l| x.relative(l.path()));
        s.out.steady =
            Some(SteadyResult { rounds_latency_us: latencies, ..steady_result(rule, values, window) });
        s.out.peak = crate::analysis::peak::of(&rows, interval_s);
        s.out.spread.extend(spread::spread_of(&workers, interval_s, &x.targets, spread::Part::STEP));
        s.out.actions.extend(spread::skew_words(skew.as_ref(), hosts.len()));
        s.out.hosts = hosts;
    }
    outcome?;
    x.finish_verify(s, verify)
}
