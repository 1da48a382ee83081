//! `run`: a validated plan, its targets and the run's options go in; each
//! step is executed in order and its numbers come out, appended to the
//! results directory before the next step starts. This module starts a
//! run: where its I/O runs is chosen once a session (in `session`: this
//! machine's targets, or fio on many hosts, `remote`), the checks in `checks`
//! pass, and the results directory and manifest are made; then the
//! session (`session`) runs the steps and ends the run. The run's options
//! and observer are `options`'; its signals `signals`'; the host ceiling
//! `ceiling`'s. A step's work is `step`'s and its kind's module in
//! `kinds` (`fill`, `measure`, `precondition`, `rounds`, `copy`, `probe`,
//! `erase`, `system`, ...); the workers' I/O is `io`'s.

mod ceiling;
mod checks;
mod floor;
mod io;
mod kinds;
mod options;
pub(crate) mod remote;
mod session;
mod signals;
mod step;
pub(crate) mod until;

use methodic_compiler::plan::{Action, Plan};
use methodic_results::dir::ResultsDir;
use methodic_results::manifest::EngineNote;
use methodic_results::record::RunReport;

pub use self::ceiling::calibrate;
use self::checks::{check_alignment, check_erases, check_space, check_trims, open_targets};
pub(crate) use self::checks::{devices, open_options};
use self::io::MAX_PSYNC_THREADS;
pub use self::options::{EngineChoice, Observer, Quiet, RunOptions};
pub(crate) use self::session::{Session, execute};
pub use self::signals::stop_requested;
use crate::error::{Error, Result};
use crate::manifest::{self};
use crate::{rehearse, time};
use methodic_results::manifest::DriveTracker;

/// Runs a plan. The results directory is written as the run goes; the
/// report is returned (and written as `results.json`) however it ends.
pub fn run(plan: &Plan, opts: &RunOptions, observer: &mut dyn Observer) -> Result<RunReport> {
    let session = if opts.hosts.is_empty() {
        start_here(plan, opts, observer)?
    } else {
        start_on_hosts(plan, opts, observer)?
    };
    execute(session, observer)
}

/// Starts a run on this machine's targets: the targets opened and checked
/// (a run that cannot start leaves nothing behind), the engine chosen,
/// the results directory and manifest made.
fn start_here(plan: &Plan, opts: &RunOptions, observer: &mut dyn Observer) -> Result<Session> {
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
        manifest.datasets = Some(methodic_results::manifest::DatasetsNote {
            file_system: crate::host::file_system(&dir),
            dir: std::fs::canonicalize(&dir).unwrap_or(dir),
        });
    }
    if let Err(e) = manifest.save(&results.path, time::rfc3339(time::unix_now())) {
        results.discard();
        return Err(e.into());
    }
    let drive = DriveTracker::new(targets.iter().all(|t| t.created));
    Ok(Session {
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
    })
}

/// Starts a run on `opts.hosts`: the plan checked for steps fio cannot
/// run, every host probed (nothing is written anywhere until all
/// answer), then the run's results directory and manifest.
fn start_on_hosts(plan: &Plan, opts: &RunOptions, observer: &mut dyn Observer) -> Result<Session> {
    let started = time::unix_now();
    let original = plan;
    let plan = if opts.rehearse { rehearse::rehearse(plan, true) } else { plan.clone() };
    remote::check_plan(&plan)?;
    let notes = remote::probe(opts, observer)?;
    remote::check_fio_versions(&plan, &notes)?;
    let results = ResultsDir::create(&opts.out, &original.to_ron(), opts.source.as_deref())?;
    if opts.rehearse {
        std::fs::write(results.path.join("rehearsal-plan.ron"), plan.to_ron())
            .map_err(|e| Error::io("cannot write the rehearsal plan", e))?;
    }
    let engine = remote::engine_note(opts);
    let plan_ron = original.to_ron();
    let mut manifest = manifest::start(manifest::Start {
        plan: &plan,
        plan_ron: &plan_ron,
        targets: &[],
        host: crate::host::read(),
        engine: engine.clone(),
        rehearsal: opts.rehearse,
        seed: opts.seed,
        started: time::rfc3339(started),
    });
    manifest.hosts = notes;
    if let Err(e) = manifest.save(&results.path, time::rfc3339(time::unix_now())) {
        results.discard();
        return Err(e.into());
    }
    Ok(Session {
        original: original.clone(),
        plan,
        opts: opts.clone(),
        results,
        manifest,
        targets: Vec::new(),
        engine,
        first: 0,
        earlier: Vec::new(),
        // The hosts' targets are theirs: their state is unknown.
        drive: DriveTracker::new(false),
        seconds_before: 0.0,
        measure_ceiling: false,
        ram: None,
    })
}

#[cfg(test)]
mod tests;
