//! Measure steps: a workload at a queue depth after a ramp, for a time or
//! until an amount is written or transferred; its summary, series and latency log come
//! out, and for `until written` the write cliff found in its series; with
//! `verify`, what its writes read back as, or what its reads held.

use std::path::PathBuf;

use methodic_compiler::plan::{Action, Qd, Rate, Step, Target as Settings};

use crate::error::{Error, Result};
use crate::exec::io::spread::Part;
use crate::exec::io::{At, IoSpec, StepVerify, std_duration};
use crate::exec::step::{Executor, StepRun};
use crate::worker::Counts;

/// Runs `measure workload qd qd` with its ramp, stop and series interval,
/// open loop at its rate when it has one (a share of an earlier step's
/// IOPS read from that step's results), with its pauses.
pub(super) fn run(x: &mut Executor<'_>, s: &mut StepRun<'_>) -> Result<()> {
    let Action::Measure { workload, qd, ramp, stop, rate, at, .. } = &s.step.action else {
        return Err(Error::unsupported(format!("step {} is not a measurement", s.step.id)));
    };
    let qd = match at {
        Some(point) => x.resolve_point(s.step, point, &mut s.out.actions)?,
        None => *qd,
    };
    let rate = x.resolve_rate(s.step, *rate, &mut s.out.actions)?;
    let csv = x.results.series_path(&s.step.id, "")?;
    let verify = x.step_verify(s.step, workload);
    let run = x.io(s.step, spec(x, s.step, s.settings, qd, rate, csv.clone(), verify.as_ref())?)?;
    if stop.written.is_some() {
        let rows: Vec<(f64, f64)> = run.rows.iter().map(|r| (r.t, r.mb_s)).collect();
        s.out.cliff = Some(crate::analysis::cliff::detect(&rows, run.info.bytes_written));
    }
    run.keep_spread(&x.targets, Part::STEP, s.out);
    x.finish_io(s, run, &csv)?;
    x.finish_verify(s, verify)?;
    nothing_after_the_ramp(s, *ramp, stop.amount().map(|(a, _)| a))
}

/// The I/O of measurement `step` (a `measure` action) on `settings`, at
/// `qd` and `rate` (resolved where the step takes them from earlier
/// steps), its series written to `csv`, stamped as `verify` says: its
/// workload, ramp, stop, series interval and pauses as the step has them.
/// Where a site runs several measurements at once (many hosts: a sweep in
/// one fio session) it makes theirs here too.
pub(crate) fn spec<'a>(
    x: &Executor<'_>,
    step: &'a Step,
    settings: Settings,
    qd: Qd,
    rate: Option<Rate>,
    csv: PathBuf,
    verify: Option<&'a StepVerify>,
) -> Result<IoSpec<'a>> {
    let Action::Measure { workload, ramp, stop, series, pauses, .. } = &step.action else {
        return Err(Error::unsupported(format!("step {} is not a measurement", step.id)));
    };
    let budget = stop.amount().map(|(amount, reads_count)| {
        (x.bytes_of(amount, settings), if reads_count { Counts::Everything } else { Counts::Writes })
    });
    Ok(IoSpec {
        workload,
        qd,
        settings,
        ramp: std_duration(*ramp),
        record: stop.time.map(std_duration),
        passes: None,
        budget,
        series: Some((std_duration(*series), Some(csv))),
        at: At::ONCE,
        rate,
        pauses: *pauses,
        verify,
    })
}

/// A step that stops by an amount but recorded no I/O did its amount
/// within its ramp: its zeros would read as a measurement, so it fails,
/// saying so (what the ramp wrote is kept in its record and counted in
/// the drive's state).
fn nothing_after_the_ramp(
    s: &StepRun<'_>,
    ramp: methodic_compiler::plan::Duration,
    amount: Option<methodic_compiler::plan::Extent>,
) -> Result<()> {
    let (Some(amount), false) = (amount, ramp.is_zero()) else { return Ok(()) };
    if s.out.summary.as_ref().is_some_and(|sum| sum.total.ios > 0) {
        return Ok(());
    }
    Err(Error::NothingRecorded {
        message: format!(
            "step {} moved its {amount} within its {ramp} ramp: nothing was left to record",
            s.step.id
        ),
        hint: "shorten the ramp or give the step a larger amount".into(),
    })
}
