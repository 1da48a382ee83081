//! `validate`: a plan read from disk goes in, the list of rules it breaks
//! comes out. A plan may have been edited by hand or written by another
//! tool; before the runtime trusts it, every rule the compiler enforces is
//! checked again (through `rules`), and every estimate is recomputed.

use std::collections::HashSet;

use methodic_grammar::{Code, Diagnostic, Diagnostics};

use crate::estimate;
use crate::plan::*;
use crate::rules::{self, Problem};

/// Checks a plan; an empty result means the runtime may run it.
pub fn validate(plan: &Plan) -> Diagnostics {
    let mut v = Validator { out: Vec::new() };
    if !(PLAN_SCHEMA_OLDEST..=PLAN_SCHEMA).contains(&plan.schema) {
        v.plan(
            Code::PlanSchema,
            format!("schema version {} is not one of {PLAN_SCHEMA_OLDEST} to {PLAN_SCHEMA}", plan.schema),
        );
    }
    if plan.methodology.name.trim().is_empty() {
        v.plan(Code::PlanInvalid, "the methodology has no name".to_string());
    }
    for p in rules::target(&plan.target) {
        v.problem("the target defaults", p);
    }
    let mut ids = HashSet::new();
    for step in &plan.steps {
        if step.id.is_empty() {
            v.plan(Code::PlanInvalid, "a step has an empty id".to_string());
        } else if !ids.insert(step.id.as_str()) {
            v.plan(Code::PlanInvalid, format!("the id `{}` is used by two steps", step.id));
        }
        v.step(plan, step);
    }
    let expected = estimate::plan(&plan.steps, plan.estimate.capacity);
    if expected != plan.estimate {
        v.plan(
            Code::PlanInvalid,
            format!(
                "the plan's estimate ({}) is not the sum of its steps ({})",
                plan.estimate.time.human(),
                expected.time.human()
            ),
        );
    }
    Diagnostics(v.out)
}

struct Validator {
    out: Vec<Diagnostic>,
}

impl Validator {
    fn plan(&mut self, code: Code, message: String) {
        self.out.push(
            Diagnostic::unplaced(code, message).with_hint(
                "compile the methodology again with `methodic compile` rather than editing the plan",
            ),
        );
    }

    fn problem(&mut self, whose: &str, p: Problem) {
        let mut d = Diagnostic::unplaced(p.code, format!("{whose}: {}", p.message));
        if let Some(h) = p.hint {
            d = d.with_hint(h);
        }
        self.out.push(d);
    }

    fn fail(&mut self, step: &Step, message: impl std::fmt::Display) {
        self.plan(Code::PlanInvalid, format!("step `{}`: {message}", step.id));
    }

    /// The checks of one step: the settings every step has, then those of
    /// its kind ([`Validator::action`]), then what follows from its action
    /// (local, drive state, estimate).
    fn step(&mut self, plan: &Plan, step: &Step) {
        let whose = format!("step `{}`", step.id);
        match (&step.target, step.action.touches_target()) {
            (None, true) => self.fail(step, "it touches the target but has no target settings"),
            (Some(_), false) => self.fail(step, "it has target settings but does not touch the target"),
            _ => {}
        }
        let target = step.target.unwrap_or_default();
        if step.target.is_some() {
            for p in rules::target(&target) {
                self.problem(&whose, p);
            }
        }
        if plan.methodology.non_destructive && step.action.writes() {
            self.out.push(Diagnostic::unplaced(
                Code::Destructive,
                format!("{whose}: the step writes, but the methodology is non_destructive"),
            ));
        }
        if let Some(limit) = step.ram_limit
            && let Some(p) = rules::ram_limit(limit)
        {
            self.problem(&whose, p);
        }
        if let Some(r) = step.repeat {
            if r.run == 0 || r.run > r.runs {
                self.fail(step, format!("run {} of {} is not a run of its repeat", r.run, r.runs));
            }
            if let Some(u) = r.until {
                if u.min_runs < 2 || u.min_runs > r.runs {
                    self.fail(
                        step,
                        format!("its repeat judges the spread from run {} of {}", u.min_runs, r.runs),
                    );
                }
                if u.cv == crate::plan::Percent::ZERO || u.cv >= crate::plan::Percent::HUNDRED {
                    self.fail(step, format!("its repeat's cv limit {} is not above 0% and below 100%", u.cv));
                }
            }
        }
        self.action(plan, step, &target);
        if step.local && !step.action.may_be_local() {
            self.fail(
                step,
                format!("it is marked local, but a {} step runs on every host", step.action.kind()),
            );
        }
        let establishes = step.action.establishes_state();
        if establishes != step.establishes_state {
            self.fail(step, format!("establishes_state should be {establishes}"));
        }
        let expected = estimate::step(&step.action, step.target.as_ref());
        if expected != step.estimate {
            self.fail(step, "its estimate does not follow from its action");
        }
    }

    /// The checks of a step's kind, with `target` the settings it runs
    /// with. One arm a kind, so that a new kind is checked here or does not
    /// compile.
    fn action(&mut self, plan: &Plan, step: &Step, target: &Target) {
        let whose = format!("step `{}`", step.id);
        let target = *target;
        let counted = plan.conventions.queue_depth;
        match &step.action {
            Action::Erase { .. } | Action::DropCaches => {}
            Action::Fill { workload, qd, passes } => {
                self.io(step, workload, qd, counted, &target);
                if *passes == 0 {
                    self.fail(step, "a fill of 0 passes");
                }
                if workload.read != Percent::ZERO {
                    self.out.push(Diagnostic::unplaced(
                        Code::FillReads,
                        format!("{whose}: the fill's workload reads {} of the time", workload.read),
                    ));
                }
            }
            Action::Precondition { workload, qd, stop, series } => {
                self.io(step, workload, qd, counted, &target);
                self.precondition_stop(step, stop, *series);
            }
            Action::Measure { workload, qd, stop, series, rate, at, .. } => {
                match at {
                    // The queue depth is chosen at run time; the plan's is a placeholder.
                    Some(point) => {
                        self.workload(&format!("step `{}`", step.id), workload, &target);
                        self.point(plan, step, point);
                    }
                    None => self.io(step, workload, qd, counted, &target),
                }
                self.rate(plan, step, rate.as_ref());
                self.measure_stop(step, stop, *series, "a measurement");
            }
            Action::Together { jobs, stop, series, .. } => {
                if jobs.is_empty() {
                    self.fail(step, "a together step with no job");
                }
                for (i, job) in jobs.iter().enumerate() {
                    if jobs[..i].iter().any(|j| j.name == job.name) {
                        self.fail(step, format!("two jobs are called `{}`", job.name));
                    }
                    let own = Target { workers: job.workers, devices: 1, ..target };
                    self.io(step, &job.workload, &job.qd, counted, &own);
                    self.rate(plan, step, job.rate.as_ref());
                }
                self.measure_stop(step, stop, *series, "a together step");
            }
            Action::Qos(q) => {
                self.io(step, &q.workload, &q.qd, counted, &target);
                self.nonzero(step, q.probe, "probe time");
                if q.percentile_ppm == 0 || q.percentile_ppm >= 1_000_000 || q.under_ns == 0 {
                    self.fail(step, "its latency limit is not a percentile under a latency");
                }
                if q.precision == Percent::ZERO || q.precision >= Percent::whole(50) {
                    self.fail(step, format!("a precision of {} cannot narrow the search", q.precision));
                }
                // The compiler refuses both with `by qd` (M0517); a plan
                // edited by hand may not.
                if q.by == QosAxis::Qd
                    && (q.precision != Percent::whole(5) || q.arrivals != Arrivals::Uniform)
                {
                    self.fail(
                        step,
                        "a search by queue depth with a precision or arrivals of a search by rate",
                    );
                }
            }
            Action::Rounds { cells, track, rule } => {
                if cells.is_empty() {
                    self.fail(step, "rounds with no measurement");
                }
                if *track as usize >= cells.len() {
                    self.fail(step, format!("it tracks measurement {track} of {}", cells.len()));
                }
                for p in rules::steady(rule) {
                    self.problem(&whose, p);
                }
                for cell in cells {
                    // A cell may run on its own workers (`measure W qd N workers T`).
                    let own = Target { workers: cell.qd.workers.max(1), ..target };
                    self.io(step, &cell.workload, &cell.qd, counted, &own);
                    self.nonzero(step, cell.record, "record time");
                }
            }
            Action::Idle { time } => self.nonzero(step, *time, "idle time"),
            Action::LimitRam { limit } => {
                if *limit != step.ram_limit {
                    self.fail(step, "its limit differs from the RAM limit the step records");
                }
            }
            Action::Copy { dataset } => self.dataset(step, dataset),
            Action::Probe(p) => {
                for problem in rules::probe(p, target.io) {
                    self.problem(&whose, problem);
                }
                let offsets = rules::probe_offsets(p.io, p.step, p.range);
                if offsets != p.offsets {
                    self.fail(step, format!("the probe visits {offsets} offsets, not {}", p.offsets));
                }
            }
        }
    }

    /// A precondition's stop rule and its series interval, no longer than
    /// its time or a round.
    fn precondition_stop(&mut self, step: &Step, stop: &PreconditionStop, series: Duration) {
        self.series(
            step,
            series,
            Some(match stop {
                PreconditionStop::Time(d) => *d,
                PreconditionStop::Steady { round, .. } => *round,
            }),
        );
        match stop {
            PreconditionStop::Time(d) => self.nonzero(step, *d, "precondition time"),
            PreconditionStop::Steady { round, rule } => {
                self.nonzero(step, *round, "round");
                for p in rules::steady(rule) {
                    self.problem(&format!("step `{}`", step.id), p);
                }
            }
        }
    }

    /// A recording step's series interval and stop rule: a time, an
    /// amount written, or both. `what` names the step: `a measurement`.
    fn measure_stop(&mut self, step: &Step, stop: &MeasureStop, series: Duration, what: &str) {
        self.series(step, series, stop.time);
        if stop.written.is_some() && stop.transferred.is_some() {
            self.fail(step, format!("{what} stops both after bytes written and after bytes transferred"));
        }
        match (stop.time, stop.amount()) {
            (None, None) => self.fail(step, format!("{what} with no stop rule")),
            (Some(t), _) => self.nonzero(step, t, "record time"),
            _ => {}
        }
    }

    /// A rate that is a share of another step's IOPS names a closed-loop
    /// measurement that runs before this step.
    fn rate(&mut self, plan: &Plan, step: &Step, rate: Option<&Rate>) {
        let Some(Rate { amount: RateAmount::Share { of, .. }, .. }) = rate else { return };
        let here = plan.steps.iter().position(|s| std::ptr::eq(s, step)).unwrap_or(usize::MAX);
        let ok = (*of as usize) < here
            && matches!(plan.steps[*of as usize].action, Action::Measure { rate: None, .. });
        if !ok {
            self.fail(
                step,
                format!(
                    "its rate is a share of step {}, which is not a closed-loop measurement before it",
                    of + 1
                ),
            );
        }
    }

    /// An operating point chooses from earlier measure or rounds steps.
    fn point(&mut self, plan: &Plan, step: &Step, point: &Point) {
        let here = plan.steps.iter().position(|s| std::ptr::eq(s, step)).unwrap_or(plan.steps.len());
        if point.of.is_empty() {
            self.fail(step, format!("its operating point chooses from no measurement of {}", point.name));
        }
        for of in &point.of {
            let ok = (*of as usize) < here
                && matches!(
                    plan.steps[*of as usize].action,
                    Action::Measure { at: None, .. } | Action::Rounds { .. }
                );
            if !ok {
                self.fail(
                    step,
                    format!(
                        "its operating point chooses from step {}, which is no earlier measurement",
                        of + 1
                    ),
                );
            }
        }
    }

    /// A workload and its queue depth, on the target.
    fn io(&mut self, step: &Step, w: &Workload, qd: &Qd, counted: QdCounting, target: &Target) {
        self.workload(&format!("step `{}`", step.id), w, target);
        self.qd(step, qd, counted, target);
    }

    fn series(&mut self, step: &Step, series: Duration, length: Option<Duration>) {
        self.nonzero(step, series, "series interval");
        if let Some(p) = rules::series(series, length) {
            self.problem(&format!("step `{}`", step.id), p);
        }
    }

    fn workload(&mut self, whose: &str, w: &Workload, target: &Target) {
        let mut problems = rules::workload(w);
        if target.io == IoMode::Direct {
            problems.extend(rules::direct_io(w));
        }
        problems.extend(rules::fits_span(w, target.span));
        if w.blocks.windows(2).any(|pair| pair[0].size >= pair[1].size) {
            self.out.push(Diagnostic::unplaced(
                Code::PlanInvalid,
                format!("{whose}: block sizes of `{}` are not listed smallest first", w.name),
            ));
        }
        for p in problems {
            self.problem(whose, p);
        }
    }

    fn qd(&mut self, step: &Step, qd: &Qd, counted: QdCounting, target: &Target) {
        if qd.counted != counted {
            self.fail(step, "its queue depth is counted differently from the plan's convention");
            return;
        }
        let value = match counted {
            QdCounting::Total => qd.total,
            QdCounting::PerWorker => qd.per_worker,
        };
        match rules::split_qd(value as u64, counted, target) {
            Ok((expected, _)) if expected == *qd => {}
            Ok((expected, _)) => self.fail(
                step,
                format!(
                    "its queue depth reads total {} as {} worker(s) x {}; counted {}, that is total {} as {} worker(s) x {}",
                    qd.total,
                    qd.workers,
                    qd.per_worker,
                    match counted {
                        QdCounting::Total => "in total",
                        QdCounting::PerWorker => "per worker",
                    },
                    expected.total,
                    expected.workers,
                    expected.per_worker
                ),
            ),
            Err(p) => self.problem(&format!("step `{}`", step.id), p),
        }
    }

    fn nonzero(&mut self, step: &Step, d: Duration, what: &str) {
        if d.is_zero() {
            self.out.push(Diagnostic::unplaced(
                Code::ZeroDuration,
                format!("step `{}`: a {what} of zero", step.id),
            ));
        }
    }

    fn dataset(&mut self, step: &Step, d: &Dataset) {
        if d.size_min.0 == 0 || d.size_min > d.size_max || d.files == 0 {
            self.fail(step, format!("dataset `{}` cannot be generated", d.name));
            return;
        }
        let mut count = 0u64;
        let mut sum = 0u64;
        for size in d.file_sizes() {
            count += 1;
            sum = sum.saturating_add(size);
        }
        if count != d.files || sum != d.total.0 {
            self.fail(
                step,
                format!("dataset `{}` does not make {} files of {} in all", d.name, d.files, d.total),
            );
        }
        if d.size_min != d.size_max
            && crate::plan::size_draws(d.size_min, d.size_max, d.seed)
                .take((d.files - 1) as usize)
                .sum::<u64>()
                >= d.total.0
        {
            self.fail(step, format!("dataset `{}` reaches its total before its last file", d.name));
        }
    }
}
