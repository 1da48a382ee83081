//! The step kinds, one module each, and the one match that hands a plan
//! step to its kind. Each kind is one function of the same shape: the
//! executor, the step that runs with its record ([`StepRun`]; `idle` has
//! nothing to record), and the action's own fields. A function a kind
//! rather than a trait: `Action` is the compiler's enum, and a trait would
//! need an object a variant only to dispatch the same match. A new step
//! kind is a module here and an arm in [`run`].

mod copy;
mod erase;
mod fill;
pub(super) mod measure;
mod precondition;
mod probe;
mod qos;
mod rounds;
pub(super) mod system;
mod together;

use std::path::Path;

use methodic_compiler::plan::{Action, IoMode, PreconditionStop, Step};
use methodic_results::health::StepHealth;
use methodic_results::record::StepResult;

use crate::error::Result;
use crate::exec::Observer;
use crate::exec::step::{Executor, StepRun};

/// Runs `step`, filling in `out`: what it measured, and what it did.
pub(super) fn run(
    x: &mut Executor<'_>,
    step: &Step,
    out: &mut StepResult,
    observer: &mut dyn Observer,
) -> Result<()> {
    system::apply_ram_limit(x, step.ram_limit, out)?;
    let settings = step.target.unwrap_or(x.plan.target);
    // Buffered steps that finish_io ends count the bytes that reach
    // the device from here.
    let ended_by_finish_io = matches!(
        step.action,
        Action::Fill { .. }
            | Action::Measure { .. }
            | Action::Precondition { stop: PreconditionStop::Time(_), .. }
    );
    // The targets the step's workers use.
    let used = x.targets.len().min(settings.devices.max(1) as usize);
    x.meter = (settings.io == IoMode::Buffered && ended_by_finish_io).then(|| {
        let paths: Vec<&Path> = x.targets[..used].iter().map(|t| t.path.as_path()).collect();
        crate::devio::Meter::start(&paths, &paths)
    });
    // The drive's own counters around the step (NVMe and SATA drives, by
    // the interface that reaches them; not partitions).
    let drives: Vec<(usize, crate::drive::HealthReader)> = (0..used)
        .filter_map(|i| {
            let t = &x.targets[i];
            Some((i, crate::drive::HealthReader::new(t.file(false), crate::drive::interface(t))?))
        })
        .collect();
    let before: Vec<_> = drives.iter().map(|(i, r)| r.read(x.targets[*i].file(false))).collect();
    let s = &mut StepRun { step, settings, out };
    let done = dispatch(x, s, observer);
    for ((i, reader), before) in drives.iter().zip(before) {
        let t = &x.targets[*i];
        if let (Some(before), Some(after)) = (before, reader.read(t.file(false))) {
            s.out.health.push(StepHealth::new(t.path.display().to_string(), before, after));
        }
    }
    done
}

/// Hands the step to its kind.
fn dispatch(x: &mut Executor<'_>, s: &mut StepRun<'_>, observer: &mut dyn Observer) -> Result<()> {
    let step = s.step;
    let site = x.site;
    if site.run_step(x, s, observer)? {
        return Ok(());
    }
    match &step.action {
        Action::Erase { method } => erase::run(x, s, *method, observer),
        Action::Fill { workload, qd, passes } => fill::run(x, s, workload, *qd, *passes),
        Action::Together { jobs, ramp, stop, series } => together::run(x, s, jobs, *ramp, stop, *series),
        Action::Qos(q) => qos::run(x, s, q),
        Action::Measure { .. } => measure::run(x, s),
        Action::Precondition { workload, qd, stop: PreconditionStop::Time(d), series } => {
            precondition::for_time(x, s, workload, *qd, *d, *series)
        }
        Action::Precondition { workload, qd, stop: PreconditionStop::Steady { round, rule }, series } => {
            precondition::until_steady(x, s, workload, *qd, *round, rule, *series)
        }
        Action::Rounds { cells, track, rule } => rounds::run(x, s, cells, *track as usize, rule),
        Action::DropCaches => system::drop_caches(x, s),
        Action::Idle { time } => system::idle(x, *time),
        Action::LimitRam { .. } => system::limit_ram(x, s),
        Action::Copy { dataset } => copy::run(x, s, dataset),
        Action::Probe(p) => probe::run(x, s, p),
    }
}
