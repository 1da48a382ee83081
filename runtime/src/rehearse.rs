//! Rehearsal: a plan goes in, the same plan scaled down comes out, so that
//! any methodology runs end to end in seconds on a small scratch file
//! before a drive spends a day on it. Every duration shrinks by one factor
//! (with a floor: 40ms a measurement, 100ms a series interval; no ramp
//! on a step that stops by an amount), spans and amounts shrink to the scratch file, datasets
//! and probes shrink, and steady-state rules stop after `window`
//! rounds. Results of a rehearsal are marked as such, never as measurements.

use methodic_compiler::estimate;
use methodic_compiler::plan::*;

/// The size of the scratch file a rehearsal runs on.
pub const CAPACITY: u64 = 128 << 20;

/// About how long the timed steps of a rehearsal take together.
const BUDGET_MS: u64 = 5_000;

/// The shortest a measurement (or round cell) lasts in a rehearsal.
const MIN_RECORD_MS: u64 = 40;

/// `plan` scaled down. `on_device`: the rehearsal runs on the given
/// targets rather than a scratch file: spans in shares of the target
/// become the same shares of `CAPACITY`, so that a rehearsal on a 4TB
/// drive writes what it would on the scratch file, not 8TB for a 2x fill.
pub fn rehearse(plan: &Plan, on_device: bool) -> Plan {
    let mut p = plan.clone();
    for step in &mut p.steps {
        cap(step);
        if let (true, Some(t)) = (on_device, step.target.as_mut()) {
            t.span = scratch_share(t.span);
        }
    }
    if on_device {
        p.target.span = scratch_share(p.target.span);
    }
    let total = p
        .steps
        .iter()
        .map(|s| estimate::step(&s.action, s.target.as_ref()).time.max.as_millis())
        .sum::<u64>();
    let factor = if total > BUDGET_MS { BUDGET_MS as f64 / total as f64 } else { 1.0 };
    for step in &mut p.steps {
        scale(step, factor);
        step.estimate = estimate::step(&step.action, step.target.as_ref());
    }
    p.estimate = estimate::plan(&p.steps, None);
    p.target = shrink_target(p.target);
    p
}

/// Limits that do not depend on the scaling factor.
fn cap(step: &mut Step) {
    if let Some(t) = step.target.as_mut() {
        *t = shrink_target(*t);
    }
    match &mut step.action {
        Action::Precondition { stop: PreconditionStop::Steady { rule, .. }, .. }
        | Action::Rounds { rule, .. } => {
            rule.max_rounds = rule.max_rounds.min(rule.window);
        }
        // A plan may stop a together step by what its jobs wrote, as a
        // measurement: both are capped alike.
        Action::Measure { stop, .. } | Action::Together { stop, .. } => {
            let capped = |w: Extent| match w {
                Extent::Bytes(b) => Extent::Bytes(Bytes(b.0.min(2 * CAPACITY))),
                Extent::Percent(p) => Extent::Percent(p.min(Percent::whole(200))),
            };
            stop.written = stop.written.map(capped);
            stop.transferred = stop.transferred.map(capped);
        }
        Action::Copy { dataset } => {
            let max = dataset.size_max.min(Bytes(1 << 20));
            let min = dataset.size_min.min(max);
            *dataset = Dataset::of_files(&dataset.name, min, max, dataset.files.min(32), dataset.seed);
        }
        Action::Probe(p) => {
            p.range = p.range.min(Bytes((64 << 10).max(p.io.0)));
            p.repeats = p.repeats.min(3);
            p.offsets = (p.range.0 - p.io.0).checked_div(p.step.0).map_or(0, |n| n + 1);
        }
        Action::Erase { .. }
        | Action::Fill { .. }
        | Action::Precondition { .. }
        | Action::Qos(_)
        | Action::DropCaches
        | Action::Idle { .. }
        | Action::LimitRam { .. } => {}
    }
}

/// A share of the target as the same share of [`CAPACITY`], in whole MiB
/// (at least one) so that direct I/O stays aligned.
fn scratch_share(span: Extent) -> Extent {
    match span {
        Extent::Percent(p) => Extent::Bytes(Bytes((p.of(CAPACITY) >> 20).max(1) << 20)),
        bytes => bytes,
    }
}

fn shrink_target(mut t: Target) -> Target {
    if let Extent::Bytes(b) = t.span {
        t.span = Extent::Bytes(Bytes(b.0.min(CAPACITY)));
    }
    t
}

fn scale(step: &mut Step, factor: f64) {
    let by = |d: Duration, floor: u64| {
        if d.is_zero() {
            return d;
        }
        let ms = ((d.as_millis() as f64 * factor) as u64).max(floor).min(d.as_millis());
        Duration::from_millis(ms)
    };
    // A series interval no longer than what the step records.
    let series_for = |series: Duration, record: Duration| {
        Duration::from_millis(by(series, 100).as_millis().min(record.as_millis().max(1)))
    };
    match &mut step.action {
        Action::Precondition { stop, series, .. } => {
            let length = match stop {
                PreconditionStop::Time(d) => {
                    *d = by(*d, MIN_RECORD_MS);
                    *d
                }
                PreconditionStop::Steady { round, .. } => {
                    *round = by(*round, MIN_RECORD_MS);
                    *round
                }
            };
            *series = series_for(*series, length);
        }
        Action::Qos(q) => {
            q.ramp = by(q.ramp, 0);
            q.probe = by(q.probe, MIN_RECORD_MS);
        }
        Action::Measure { ramp, stop, series, pauses, .. } => {
            // A shrunk amount could be done within a ramp on a fast scratch
            // file, which fails the step: a step that stops by an amount
            // rehearses without one.
            *ramp = if stop.amount().is_some() { Duration::ZERO } else { by(*ramp, 0) };
            let before = stop.time;
            if let Some(t) = stop.time.as_mut() {
                *t = by(*t, MIN_RECORD_MS);
            }
            *series = series_for(*series, stop.time.unwrap_or(*series));
            if let (Some(b), Some(old), Some(new)) = (pauses.bursts.as_mut(), before, stop.time) {
                *b = rehearsed_bursts(*b, old, new);
            }
        }
        Action::Together { ramp, stop, series, jobs } => {
            *ramp = if stop.amount().is_some() { Duration::ZERO } else { by(*ramp, 0) };
            let before = stop.time;
            if let Some(t) = stop.time.as_mut() {
                *t = by(*t, MIN_RECORD_MS);
            }
            *series = series_for(*series, stop.time.unwrap_or(*series));
            for job in jobs {
                if let (Some(b), Some(old), Some(new)) = (job.pauses.bursts.as_mut(), before, stop.time) {
                    *b = rehearsed_bursts(*b, old, new);
                }
            }
        }
        Action::Rounds { cells, .. } => {
            for c in cells {
                c.ramp = by(c.ramp, 0);
                c.record = by(c.record, MIN_RECORD_MS / 2);
            }
        }
        Action::Idle { time } => *time = by(*time, 10),
        Action::Erase { .. }
        | Action::Fill { .. }
        | Action::DropCaches
        | Action::LimitRam { .. }
        | Action::Copy { .. }
        | Action::Probe(_) => {}
    }
}

/// Bursts of a measurement whose record time went from `old` to `new`:
/// the same share of each period on, in at most 4 periods of the new
/// time (as many as before when fewer), so that a rehearsal of 360 bursts
/// of 5s every 10s shows bursts and pauses, not one cut burst.
fn rehearsed_bursts(b: Bursts, old: Duration, new: Duration) -> Bursts {
    let periods = (old.as_millis() / b.every.as_millis().max(1)).clamp(1, 4);
    let every = (new.as_millis() / periods).max(2);
    let on = (every as u128 * b.on.as_millis() as u128 / b.every.as_millis().max(1) as u128) as u64;
    Bursts { on: Duration::from_millis(on.clamp(1, every - 1)), every: Duration::from_millis(every) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bursts_shrink_with_their_measurement_and_keep_their_share() {
        let b = Bursts { on: Duration::from_secs(5), every: Duration::from_secs(10) };
        let r = rehearsed_bursts(b, Duration::from_secs(3600), Duration::from_millis(400));
        assert_eq!((r.on.as_millis(), r.every.as_millis()), (50, 100), "4 periods of 100ms, half on");
        let few = Bursts { on: Duration::from_secs(5), every: Duration::from_secs(55) };
        let r = rehearsed_bursts(few, Duration::from_secs(110), Duration::from_millis(220));
        assert_eq!((r.on.as_millis(), r.every.as_millis()), (10, 110), "2 periods as before");
    }

    #[test]
    fn a_rehearsal_shrinks_the_bursts_of_measurements_and_of_jobs_alike() {
        let src = "methodology \"b\" version \"1\"\nworkload w { random; block 4KiB; read 0% }\n\
                   measure w qd 4 bursts 5s every 10s times 360\n\
                   together for 1h { job a w qd 4 bursts 5s every 10s }\n";
        let plan = rehearse(&methodic_compiler::compile(src, &Default::default()).unwrap().plan, false);
        let bursts: Vec<Bursts> = plan
            .steps
            .iter()
            .flat_map(|s| match &s.action {
                Action::Measure { pauses, .. } => vec![pauses.bursts.unwrap()],
                Action::Together { jobs, .. } => jobs.iter().map(|j| j.pauses.bursts.unwrap()).collect(),
                _ => Vec::new(),
            })
            .collect();
        assert_eq!(bursts.len(), 2);
        for b in bursts {
            let half_on = (b.on.as_millis() * 2).abs_diff(b.every.as_millis()) <= 1;
            assert!(b.every.as_millis() < 10_000 && half_on, "{b:?}");
        }
    }

    #[test]
    fn a_rehearsal_caps_what_a_together_step_writes_as_a_measurements() {
        // The language gives a together step a time only; a plan written
        // by hand (or by another tool) may stop it by bytes written.
        let src = "methodology \"w\" version \"1\"\nworkload w { random; block 4KiB; read 0% }\n\
                   measure w qd 4 until written 4TB\n\
                   together for 1h { job a w qd 4 }\n";
        let mut plan = methodic_compiler::compile(src, &Default::default()).unwrap().plan;
        if let Action::Together { stop, .. } = &mut plan.steps[1].action {
            stop.written = Some(Extent::Bytes(Bytes(4 << 40)));
        }
        let plan = rehearse(&plan, false);
        let written: Vec<Option<Extent>> = plan
            .steps
            .iter()
            .map(|s| match &s.action {
                Action::Measure { stop, .. } | Action::Together { stop, .. } => stop.written,
                _ => None,
            })
            .collect();
        let capped = Some(Extent::Bytes(Bytes(2 * CAPACITY)));
        assert_eq!(written, [capped, capped], "both stop after twice the scratch file");
    }

    #[test]
    fn a_step_that_stops_by_an_amount_rehearses_without_its_ramp() {
        let src = "methodology \"r\" version \"1\"\nworkload w { random; block 4KiB; read 0% }\n\
                   measure w qd 4 until written 1GB ramp 1min\n\
                   measure w qd 4 for 10min ramp 1min\n";
        let plan = rehearse(&methodic_compiler::compile(src, &Default::default()).unwrap().plan, false);
        let ramps: Vec<u64> = plan
            .steps
            .iter()
            .map(|s| match &s.action {
                Action::Measure { ramp, .. } => ramp.as_millis(),
                _ => unreachable!(),
            })
            .collect();
        assert_eq!(ramps[0], 0, "its shrunk amount could be done within the ramp");
        assert!(ramps[1] > 0, "a timed step keeps a ramp: {ramps:?}");
    }

    #[test]
    fn every_spec_rehearses_within_budget_and_stays_valid() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../specs");
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let src = std::fs::read_to_string(&path).unwrap();
            let plan = methodic_compiler::compile(&src, &Default::default()).unwrap().plan;
            let r = rehearse(&plan, false);
            let problems = methodic_compiler::validate(&r);
            assert!(problems.is_empty(), "{}: {problems}", path.display());
            assert!(
                r.estimate.time.max.as_millis() <= 30_000,
                "{}: {}",
                path.display(),
                r.estimate.time.human()
            );
            assert_eq!(r.steps.len(), plan.steps.len());
        }
    }
}

#[cfg(test)]
mod device_tests {
    use super::*;

    /// On a device, shares of the span become shares of the scratch size;
    /// on a scratch file they stay shares (of that file).
    #[test]
    fn a_rehearsal_on_a_device_works_in_the_scratch_files_size() {
        let src = "methodology \"t\" version \"1\"\nworkload s { sequential; block 1MiB; read 0% }\n\
                   phase \"p\" { erase purge fill s passes 2 }\nphase \"q\" { target { span 25% } fill s }\n";
        let plan = methodic_compiler::compile(src, &Default::default()).unwrap().plan;
        let spans = |p: &Plan| p.steps.iter().map(|s| s.target.unwrap().span).collect::<Vec<_>>();
        let on_device = rehearse(&plan, true);
        assert_eq!(
            spans(&on_device),
            [
                Extent::Bytes(Bytes(CAPACITY)),
                Extent::Bytes(Bytes(CAPACITY)),
                Extent::Bytes(Bytes(CAPACITY / 4))
            ]
        );
        assert_eq!(on_device.target.span, Extent::Bytes(Bytes(CAPACITY)));
        assert!(methodic_compiler::validate(&on_device).is_empty());
        assert_eq!(spans(&rehearse(&plan, false))[2], Extent::Percent(Percent::whole(25)));
    }
}
