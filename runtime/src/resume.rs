//! `methodic run --resume DIR`: goes on with a run that was interrupted,
//! failed or crashed. The plan must be the one the run started with (the
//! manifest's plan hash) and each target the device or file it ran on (its
//! identity). The run goes on from the first step not finished; when that
//! step was cut off while it changed the drive state (a fill, a
//! precondition, a write in a phase that establishes the state), it goes
//! back to the last step before it that establishes the drive state, and
//! says so. Records of steps run again move to `superseded.jsonl`, so
//! nothing recorded is lost.

use std::fs;
use std::path::Path;

use methodic_compiler::plan::{Action, Bytes, Plan};

use crate::error::{Error, Result};
use crate::exec::{self, EngineChoice, Observer, RunOptions, Session};
use crate::hosts::HostSpec;
use crate::target::Target;
use crate::{rehearse, time};
use methodic_results::dir::ResultsDir;
use methodic_results::dir::STEPS_FILE;
use methodic_results::host::TargetInfo;
use methodic_results::manifest::{DriveTracker, Manifest, ResumeNote, Tool};
use methodic_results::record::{RunReport, Status, StepResult};

/// Goes on with the run in `dir`. `given` is the methodology or plan the
/// user named, checked against the run's; `opts` gives the targets (where
/// they moved), `--destroy`, `--overwrite` and `--keep-scratch`: consent is
/// asked again. Everything else (seed, engine, rehearsal) is the run's.
pub fn resume(
    dir: &Path,
    given: Option<&Plan>,
    opts: &RunOptions,
    observer: &mut dyn Observer,
) -> Result<RunReport> {
    let session = prepare(dir, given, opts, observer)?;
    exec::execute(session, observer)
}

/// Each check that the run in `dir` can be resumed, in the order a reader
/// needs them, then the run readied to go on: the records of steps that
/// run again set aside, the manifest brought up to date and saved.
fn prepare(
    dir: &Path,
    given: Option<&Plan>,
    opts: &RunOptions,
    observer: &mut dyn Observer,
) -> Result<Session> {
    let manifest_path = methodic_results::manifest::manifest_path(dir)?;
    // The lock first: a run that is still going is not touched.
    let mut results = ResultsDir::reopen(dir)?;
    let mut m = methodic_results::manifest::read_manifest(&manifest_path)?;
    if m.status == Status::Completed {
        return Err(Error::results(dir, "holds a run that completed: there is nothing to resume")
            .with_hint("start a new run with `methodic run FILE`"));
    }
    let original = read_plan(dir, &m, given)?;
    // A run on many hosts: on the hosts' own targets.
    let on_hosts = !m.hosts.is_empty();
    let on_device = on_hosts || m.targets.iter().any(|t| !t.scratch);
    let plan = if m.rehearsal { rehearse::rehearse(&original, on_device) } else { original.clone() };
    let damaged = if plan != m.plan {
        Some("holds another plan than plan.ron")
    } else if m.steps.len() != plan.steps.len() {
        Some("lists another number of steps than its plan has")
    } else if !on_hosts && m.targets.len() != exec::devices(&plan) {
        Some("lists another number of targets than its plan spreads over")
    } else {
        None
    };
    if let Some(why) = damaged {
        return Err(Error::results(&manifest_path, why)
            .with_hint("the manifest was edited or damaged; the run cannot be resumed"));
    }
    let steps_path = dir.join(STEPS_FILE);
    let text = match fs::read_to_string(&steps_path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(Error::results(&steps_path, format!("cannot be read: {e}"))),
    };
    let (lines, torn) = records(&text);
    let done = step_records(&steps_path, &lines, &plan)?;
    let started = m
        .steps
        .get(finished_prefix(&plan, &done).0)
        .is_some_and(|st| st.status != methodic_results::manifest::StepStatus::Pending);
    let (mut first, mut reason) = restart_point(&plan, &done, started);

    // Every host answers before anything is moved or run again.
    let hosts = exec::remote::hosts_of(&m.hosts);
    if on_hosts {
        probe_hosts(&m, &hosts, opts, observer)?;
    }
    let (targets, removed) = reopen_targets(dir, &m, &plan, opts)?;
    if let Some(why) = removed {
        (first, reason) = (0, why);
    }
    let uring = crate::worker::io_uring_available();
    if let (true, Err(why), false) = (m.engine.io_uring, &uring, on_hosts) {
        return Err(Error::unsupported(format!("the run used io_uring, which is not available now: {why}"))
            .with_hint("resume on the machine (and kernel) the run started on"));
    }

    // The records before `first` are whole, finished and in order (see
    // restart_point): kept as they are.
    // (Steps a repeat `until cv` passed over have no record.)
    let first_kept = done.iter().take_while(|r| r.index <= first).count();
    let kept: Vec<StepResult> = done[..first_kept].to_vec();
    let aside = format!("superseded/{}", m.resumed.len() + 1);
    move_aside(&results, dir, &done[first_kept..], &aside)?;
    let superseded = supersede(&mut results, &lines, torn, first_kept, &aside)?;

    let mut drive = DriveTracker::new(!on_hosts && m.targets.iter().all(|t| t.scratch));
    for r in &kept {
        drive.after(&plan.steps[r.index - 1], r);
    }
    let ram = ram_in_force(&plan, first);
    // The records are the truth: a kill between a record and the manifest
    // leaves the manifest one step behind.
    for r in &kept {
        m.step_finished(r.index - 1, r, false);
    }
    for i in first..plan.steps.len() {
        m.reset_step(i);
    }
    mark_skipped(&mut m, &plan, first, &kept, observer);
    let now = time::rfc3339(time::unix_now());
    m.resumed.push(ResumeNote {
        at: now.clone(),
        tool: Tool::this(),
        from_step: first + 1,
        from_id: plan.steps.get(first).map_or_else(String::new, |s| s.id.clone()),
        reason: reason.clone(),
        superseded,
    });
    m.status = Status::Running;
    m.error = None;
    m.finished = None;
    for (info, t) in m.targets.iter_mut().zip(&targets) {
        info.path = t.path.clone();
    }
    m.save(dir, now)?;
    observer.note(&format!("resuming {}: {reason}", dir.display()));

    let run_opts = run_options(dir, &m, opts, &targets, hosts);
    Ok(Session {
        original,
        plan,
        opts: run_opts,
        results,
        engine: m.engine.clone(),
        seconds_before: m.seconds,
        manifest: m,
        targets,
        first,
        earlier: kept,
        drive,
        measure_ceiling: false,
        ram,
    })
}

/// The plan the run in `dir` started with (its `plan.ron`, checked
/// against the manifest's hash), and the plan the user named, if any,
/// checked to be the same.
fn read_plan(dir: &Path, m: &Manifest, given: Option<&Plan>) -> Result<Plan> {
    let plan_path = dir.join("plan.ron");
    let text = fs::read_to_string(&plan_path)
        .map_err(|e| Error::results(&plan_path, format!("cannot be read: {e}")))?;
    if methodic_compiler::source_hash(&text) != m.methodology.plan_hash {
        return Err(Error::results(
            &plan_path,
            "is not the plan the run started with (its hash is not the manifest's)",
        )
        .with_hint("put back the plan.ron the run wrote; a changed plan is a new run"));
    }
    let original = Plan::from_ron(&text)
        .map_err(|d| Error::results(&plan_path, format!("cannot be read: {}", d.message)))?;
    if let Some(g) = given
        && methodic_compiler::source_hash(&g.to_ron()) != m.methodology.plan_hash
    {
        return Err(Error::unsupported(format!(
            "the methodology given compiles to another plan than the one the run in {} started with",
            dir.display()
        ))
        .with_hint(format!(
            "`methodic diff {} FILE` says what changed; leave out FILE to go on with the run's own plan",
            plan_path.display()
        )));
    }
    Ok(original)
}

/// The step records in `lines` (of `steps_path`), each checked to be one
/// of `plan`'s steps.
fn step_records(steps_path: &Path, lines: &[&str], plan: &Plan) -> Result<Vec<StepResult>> {
    let mut done = Vec::new();
    for (n, line) in lines.iter().enumerate() {
        let r: StepResult = serde_json::from_str(line).map_err(|e| {
            Error::results(steps_path, format!("line {} is not a step record: {e}", n + 1))
                .with_hint("the file is damaged or was edited; the run cannot be resumed")
        })?;
        if plan.steps.get(r.index.wrapping_sub(1)).is_none_or(|s| s.id != r.id) {
            return Err(Error::results(
                steps_path,
                format!("line {} records step {} ({}), which is not the plan's", n + 1, r.index, r.id),
            )
            .with_hint("the file is damaged or was edited; the run cannot be resumed"));
        }
        done.push(r);
    }
    Ok(done)
}

/// Asks every host of a run on many hosts (`hosts`) whether it can run
/// again, and says where a host's fio changed since the run started.
fn probe_hosts(
    m: &Manifest,
    hosts: &[HostSpec],
    opts: &RunOptions,
    observer: &mut dyn Observer,
) -> Result<()> {
    let asked = RunOptions { hosts: hosts.to_vec(), fio: opts.fio.clone(), ..RunOptions::default() };
    let now = exec::remote::probe(&asked, observer)?;
    for (was, is) in m.hosts.iter().zip(now) {
        if was.fio_version != is.fio_version {
            observer.note(&format!(
                "{}: fio {} now, {} when the run started",
                was.host,
                is.fio_version.as_deref().unwrap_or("of unknown version"),
                was.fio_version.as_deref().unwrap_or("of unknown version")
            ));
        }
    }
    Ok(())
}

/// The run's targets opened again (where `--target` moved them, a
/// scratch file made again where it was removed), each checked to be
/// the one the run started on; and, when a scratch file was removed,
/// why the run starts again from its first step.
fn reopen_targets(
    dir: &Path,
    m: &Manifest,
    plan: &Plan,
    opts: &RunOptions,
) -> Result<(Vec<Target>, Option<String>)> {
    let open = exec::open_options(plan, opts)?;
    let mut targets = Vec::new();
    let mut removed = None;
    for (i, was) in m.targets.iter().enumerate() {
        let path = match opts.targets.get(i) {
            Some(p) => p.clone(),
            // A scratch file is where the results are, wherever they moved.
            None if was.scratch => dir.join(was.path.file_name().unwrap_or_default()),
            None => was.path.clone(),
        };
        let mut open = open.clone();
        if was.scratch && !path.exists() {
            open.create_size = Some(was.capacity);
            removed = Some(format!(
                "the scratch file {} was removed, and the drive state with it: the run starts again from step 1",
                path.display()
            ));
        }
        let mut t = Target::open_with_results(&path, &open, Some(dir))?;
        // The run's own scratch file stays the run's: removed when it
        // completes. A file named with --target is never removed.
        t.created |= was.scratch && opts.targets.get(i).is_none();
        let differences = differences(was, &t);
        if !differences.is_empty() {
            return Err(Error::target(
                &path,
                format!("is not the target the run started on: {}", differences.join("; ")),
            )
            .with_hint(format!("give the run's target ({}) with --target", was.describe())));
        }
        targets.push(t);
    }
    Ok((targets, removed))
}

/// Steps run again write their series anew: the old series and latency
/// logs of the steps of `again` move aside, under `aside` in `dir`
/// (`superseded/N/`).
fn move_aside(results: &ResultsDir, dir: &Path, again: &[StepResult], aside: &str) -> Result<()> {
    for r in again {
        for from in [
            results.series_path(&r.id, "")?,
            results.series_path(&r.id, ".rounds")?,
            results.series_path(&r.id, ".health")?,
            results.histogram_path(&r.id)?,
        ] {
            if from.exists() {
                let rel = from.strip_prefix(dir).unwrap_or(&from);
                let to = dir.join(aside).join(rel);
                if let Some(parent) = to.parent() {
                    fs::create_dir_all(parent)
                        .map_err(|e| Error::io(format!("cannot create {}", parent.display()), e))?;
                }
                fs::rename(&from, &to)
                    .map_err(|e| Error::io(format!("cannot move {} aside", from.display()), e))?;
            }
        }
    }
    Ok(())
}

/// Keeps the first `first_kept` records of `steps.jsonl` (its `lines`)
/// and moves the rest, and a `torn` last line, to the superseded
/// records, those moved pointing at their series moved `aside`; how
/// many moved.
fn supersede(
    results: &mut ResultsDir,
    lines: &[&str],
    torn: Option<&str>,
    first_kept: usize,
    aside: &str,
) -> Result<usize> {
    let mut superseded: Vec<String> = lines[first_kept..]
        .iter()
        .map(|l| {
            l.replacen("\"series\":\"series/", &format!("\"series\":\"{aside}/series/"), 1).replacen(
                "\"latency_log\":\"series/",
                &format!("\"latency_log\":\"{aside}/series/"),
                1,
            )
        })
        .collect();
    superseded.extend(torn.map(str::to_string));
    let superseded: Vec<&str> = superseded.iter().map(String::as_str).collect();
    results.supersede_steps(&lines[..first_kept], &superseded)?;
    Ok(superseded.len())
}

/// The RAM limit in force when the run goes on at step `first`: the last
/// `limit_ram` before it.
fn ram_in_force(plan: &Plan, first: usize) -> Option<Bytes> {
    plan.steps[..first]
        .iter()
        .rev()
        .find_map(|s| match s.action {
            Action::LimitRam { limit } => Some(limit),
            Action::Erase { .. }
            | Action::Fill { .. }
            | Action::Precondition { .. }
            | Action::Measure { .. }
            | Action::Together { .. }
            | Action::Qos(_)
            | Action::Rounds { .. }
            | Action::DropCaches
            | Action::Idle { .. }
            | Action::Copy { .. }
            | Action::Probe(_) => None,
        })
        .flatten()
}

/// The options the resumed run runs with: the run's own (seed, engine,
/// rehearsal, latency recording) from its manifest `m`, on `targets` and
/// `hosts`, with the consent and choices `opts` gives again.
fn run_options(
    dir: &Path,
    m: &Manifest,
    opts: &RunOptions,
    targets: &[Target],
    hosts: Vec<HostSpec>,
) -> RunOptions {
    let engine = match m.engine.choice.as_str() {
        // `iouring`: as manifests before 2026-12 spelled it.
        "io-uring" | "iouring" => EngineChoice::IoUring,
        "psync" => EngineChoice::Psync,
        _ => EngineChoice::Auto,
    };
    RunOptions {
        targets: targets.iter().map(|t| t.path.clone()).collect(),
        out: dir.to_path_buf(),
        rehearse: m.rehearsal,
        engine,
        destroy: opts.destroy.clone(),
        keep_scratch: opts.keep_scratch,
        seed: m.seed,
        pin: m.engine.pinned,
        source: None,
        no_latency: !m.engine.latency_recorded,
        skip_ceiling: true,
        skip_floor: opts.skip_floor,
        overwrite: opts.overwrite,
        datasets: m.datasets.as_ref().map(|d| d.dir.clone()),
        engines: opts.engines.clone(),
        hosts,
        fio: opts.fio.clone(),
        start_margin_ms: opts.start_margin_ms,
        batch_ms: opts.batch_ms,
    }
}

/// The steps before `first` that a repeat `until cv` passed over, marked
/// skipped again (a kill right after a repeat's last run left them
/// pending), and each stop said once.
fn mark_skipped(
    m: &mut Manifest,
    plan: &Plan,
    first: usize,
    kept: &[StepResult],
    observer: &mut dyn Observer,
) {
    let mut stops = Vec::new();
    for i in 0..first {
        if let Some(stop) = exec::until::skipped(plan, i, kept) {
            m.step_skipped(i, &stop.words());
            if !stops.contains(&stop) {
                observer.note(&stop.words());
                stops.push(stop);
            }
        }
    }
}

/// The whole lines of `steps.jsonl`, and a last line cut off by a crash.
fn records(text: &str) -> (Vec<&str>, Option<&str>) {
    let (whole, torn) = match text.rfind('\n') {
        Some(end) => (&text[..end], &text[end + 1..]),
        None => ("", text),
    };
    let lines = whole.split('\n').filter(|l| !l.trim().is_empty()).collect();
    (lines, Some(torn).filter(|t| !t.trim().is_empty()))
}

/// The first step not finished (from 0), and how many records come
/// before it: the records from step 1 on, whole and in order, passing
/// over the steps of runs a repeat `until cv` stopped before (they have
/// none, and are decided from the records before them as the run
/// decided them).
pub(crate) fn finished_prefix(plan: &Plan, done: &[StepResult]) -> (usize, usize) {
    let (mut f, mut kept) = (0, 0);
    while f < plan.steps.len() {
        match done.get(kept) {
            Some(r) if r.index == f + 1 && r.error.is_none() => kept += 1,
            _ if exec::until::skipped(plan, f, &done[..kept]).is_some() => {}
            _ => break,
        }
        f += 1;
    }
    (f, kept)
}

/// Where a run goes on, and why there: the first step not finished, or,
/// when that step was cut off while it changed the drive state, the last
/// step up to it that establishes the drive state.
///
/// `started` says whether that step began at all (its manifest entry left
/// pending): one that never started changed nothing.
pub(crate) fn restart_point(plan: &Plan, done: &[StepResult], started: bool) -> (usize, String) {
    let (f, _) = finished_prefix(plan, done);
    let Some(step) = plan.steps.get(f) else {
        return (f, "every step is recorded; the run had only not been marked finished".into());
    };
    let named = |i: usize| format!("step {} ({})", i + 1, plan.steps[i].id);
    let writes =
        |s: &methodic_compiler::plan::Step| s.action.writes() && !matches!(s.action, Action::Copy { .. });
    // A write in a phase that establishes the drive state is part of
    // establishing it.
    let establishing_phase =
        step.phase.is_some() && plan.steps.iter().any(|s| s.phase == step.phase && s.establishes_state);
    let changed_state = step.establishes_state || (writes(step) && establishing_phase);
    // Under on_error continue, steps after a failed one ran and may have
    // written: the drive is not where the failed step expects it.
    let later_wrote = done.iter().any(|r| r.index > f + 1 && plan.steps.get(r.index - 1).is_some_and(writes));
    let cut_off = started || done.iter().any(|r| r.index == f + 1);
    let changed_state = changed_state && cut_off;
    if !changed_state && !later_wrote {
        return (f, format!("{} is the first step not finished", named(f)));
    }
    if !changed_state {
        let to = (0..=f).rev().find(|&j| plan.steps[j].establishes_state);
        return match to {
            Some(s) => (
                s,
                format!(
                    "{} failed and later steps wrote to the drive (on_error continue): going back to {}, the \
                     last step up to it that establishes the drive state",
                    named(f),
                    named(s)
                ),
            ),
            None => (f, format!("{} is the first step not finished", named(f))),
        };
    }
    match (0..=f).rev().find(|&j| plan.steps[j].establishes_state) {
        Some(s) if s == f => (
            f,
            format!(
                "{} was cut off while it established the drive state: it runs again from its start",
                named(f)
            ),
        ),
        Some(s) => (
            s,
            format!(
                "{} was cut off while it wrote, so the drive is not in the state the plan set: going back to {}, \
                 the last step before it that establishes the drive state",
                named(f),
                named(s)
            ),
        ),
        None => (
            f,
            format!(
                "{} was cut off while it wrote, and no step before it establishes the drive state: it runs again \
                 on the state it left",
                named(f)
            ),
        ),
    }
}

/// How an opened target differs from the one the run started on.
fn differences(was: &TargetInfo, now: &Target) -> Vec<String> {
    let mut out = Vec::new();
    if was.kind != now.kind {
        out.push(format!("it was a {}, now a {}", was.kind.words(), now.kind.words()));
    }
    if was.capacity != now.capacity {
        out.push(format!("it held {} bytes, now {}", was.capacity, now.capacity));
    }
    let (a, b) = (&was.identity, &now.identity);
    for (what, before, after) in [
        ("serial", &a.serial, &b.serial),
        ("model", &a.model, &b.model),
        ("firmware", &a.firmware, &b.firmware),
        ("backing file", &a.backing_file, &b.backing_file),
    ] {
        if before != after {
            let show = |v: &Option<String>| v.clone().unwrap_or_else(|| "none".into());
            out.push(format!("its {what} was {}, now {}", show(before), show(after)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan() -> Plan {
        let src = "methodology \"r\" version \"1\"\ntarget { span 64MiB }\n\
                   workload seq { sequential; block 1MiB; read 0% }\n\
                   workload r { random; block 4KiB; read 100% }\n\
                   workload w { random; block 4KiB; read 0% }\n\
                   phase \"state\" {\n  erase discard\n  fill seq passes 1\n  measure w qd 4 for 1s\n  measure r qd 1 for 1s\n}\n\
                   phase \"sweep\" {\n  measure r qd 4 for 1s\n  measure w qd 4 for 1s\n}\n";
        methodic_compiler::compile(src, &Default::default()).unwrap().plan
    }

    /// Records of the first `n` steps, the last one cut off when `cut`.
    fn done(plan: &Plan, n: usize, cut: bool) -> Vec<StepResult> {
        (0..n)
            .map(|i| {
                let mut r = StepResult::new(i, &plan.steps[i], false, String::new());
                if cut && i + 1 == n {
                    r.error = Some("interrupted by SIGTERM".into());
                }
                r
            })
            .collect()
    }

    /// A record of step `i` measuring `iops`.
    fn measured(plan: &Plan, i: usize, iops: f64) -> StepResult {
        use methodic_results::numbers::{Latency, Rates, Summary};
        let mut r = StepResult::new(i, &plan.steps[i], false, String::new());
        let total =
            Rates { ios: 1, bytes: 4096, iops, mb_s: 0.0, mib_s: 0.0, latency_us: Latency::default() };
        r.summary = Some(Summary { seconds: 1.0, total, read: None, write: None, trim: None });
        r
    }

    /// Runs 3 and 4 of a `repeat 2..4 until cv 3%` whose runs 1 and 2
    /// agreed were passed over: a resume passes over them again, from
    /// the records alone, and keeps the step after them.
    #[test]
    fn a_resume_passes_over_the_runs_a_repeat_until_cv_did_not_need() {
        let src = "methodology \"r\" version \"1\"\nworkload r { random; block 4KiB; read 100% }\n\
                   repeat 2..4 until cv 3% { measure r qd 1 for 1s }\nmeasure r qd 2 for 1s\nidle 1s\n";
        let p = methodic_compiler::compile(src, &Default::default()).unwrap().plan;
        assert_eq!(p.steps.len(), 6);
        let agreed = vec![measured(&p, 0, 1000.0), measured(&p, 1, 1001.0), measured(&p, 4, 50.0)];
        assert_eq!(finished_prefix(&p, &agreed), (5, 3));
        let (at, why) = restart_point(&p, &agreed, false);
        assert_eq!(at, 5, "{why}");
        assert!(why.contains("step 6"), "{why}");
        // Killed right after run 2: runs 3 and 4 are passed over all the same.
        assert_eq!(finished_prefix(&p, &agreed[..2]), (4, 2));
        let stop = crate::exec::until::skipped(&p, 2, &agreed[..2]).unwrap();
        assert_eq!(stop.words(), "repeat 1 stops after 2 of 4 runs: cv 0.1% is under 3%");
        // Runs that spread: run 3 is run.
        let spread = vec![measured(&p, 0, 1000.0), measured(&p, 1, 1500.0)];
        assert_eq!(finished_prefix(&p, &spread), (2, 2));
        assert_eq!(crate::exec::until::skipped(&p, 2, &spread), None);
    }

    #[test]
    fn a_run_goes_on_from_the_first_step_not_finished() {
        let p = plan();
        let ids: Vec<&str> = p.steps.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(ids.len(), 6, "{ids:?}");
        // Nothing recorded: from the start.
        assert_eq!(restart_point(&p, &[], false).0, 0);
        // A read in the state phase, and any step of the sweep, run again alone.
        assert_eq!(restart_point(&p, &done(&p, 3, false), true).0, 3);
        assert_eq!(restart_point(&p, &done(&p, 4, true), true).0, 3);
        let (at, why) = restart_point(&p, &done(&p, 5, true), true);
        assert_eq!(at, 4, "a write outside a state-setting phase runs again on its own: {why}");
        assert!(why.contains("first step not finished"), "{why}");
        assert_eq!(restart_point(&p, &done(&p, 6, false), false).0, 6);
    }

    #[test]
    fn a_step_cut_off_while_setting_the_drive_state_goes_back_to_what_sets_it() {
        let p = plan();
        // The fill was cut off: it runs again from its start.
        let (at, why) = restart_point(&p, &done(&p, 2, true), true);
        assert_eq!(at, 1, "{why}");
        assert!(why.contains("while it established the drive state"), "{why}");
        // A write in the state phase was cut off: back to the fill.
        let (at, why) = restart_point(&p, &done(&p, 3, true), true);
        assert_eq!(at, 1, "{why}");
        assert!(why.contains("going back to step 2 (") && why.contains("cut off while it wrote"), "{why}");
        // With no record at all of the write (a crash), the same.
        assert_eq!(restart_point(&p, &done(&p, 2, false), true).0, 1);
        // A write step that never started (the run stopped between steps)
        // changed nothing: it runs, without going back.
        assert_eq!(restart_point(&p, &done(&p, 2, false), false).0, 2);
    }

    #[test]
    fn a_failed_step_that_later_writes_followed_goes_back_to_what_set_the_state() {
        let p = plan();
        // on_error continue: step 4 (a read) failed, steps 5 and 6 (a
        // write) ran after it.
        let mut records = done(&p, 6, false);
        records[3].error = Some("EIO".into());
        let (at, why) = restart_point(&p, &records, true);
        assert_eq!(at, 1, "{why}");
        assert!(why.contains("later steps wrote to the drive (on_error continue)"), "{why}");
        // Only reads after it: the failed step runs again alone.
        let mut records = done(&p, 5, false);
        records[3].error = Some("EIO".into());
        assert_eq!(restart_point(&p, &records, true).0, 3);
    }

    #[test]
    fn torn_last_lines_are_set_apart() {
        assert_eq!(records("a\nb\n"), (vec!["a", "b"], None));
        assert_eq!(records("a\nb\n{\"index\": 3"), (vec!["a", "b"], Some("{\"index\": 3")));
        assert_eq!(records(""), (vec![], None));
        assert_eq!(records("{\"in"), (vec![], Some("{\"in")));
    }
}
