//! Statements: a block's statements and the scope they stand in go in
//! (phases, `for`, `repeat`, `sweep`, `target` and `limit_ram` blocks);
//! each step statement comes out handed to its builder in `steps`, with
//! its options read once each, and `local` checked to stand on a step
//! that may run on the conductor.

use super::*;

impl Lowerer<'_, '_> {
    pub(super) fn block(&mut self, stmts: &[Stmt], scope: &mut Scope) {
        for stmt in stmts {
            if self.too_many {
                return;
            }
            self.stmt(stmt, scope);
        }
    }

    /// Counts one more step or round cell; past [`MAX_STEPS`] reports the
    /// methodology as too large, once, and stops lowering.
    pub(super) fn room(&mut self, span: Span) -> bool {
        if self.made >= MAX_STEPS {
            if !self.too_many {
                let d = Diagnostic::new(
                    Code::TooLarge,
                    span,
                    format!("this methodology lowers to more than {MAX_STEPS} steps and round measurements"),
                )
                .with_hint("loops multiply: check the lists and ranges of nested `for` and `sweep`");
                self.error(d);
            }
            self.too_many = true;
            return false;
        }
        self.made += 1;
        true
    }

    /// After the first time round a loop (`what`, at `span`) that goes
    /// round `times` times, having made `made` steps by then from `before`:
    /// whether the rest may be made. A loop that would pass [`MAX_STEPS`]
    /// at that many steps each time round is reported too large now,
    /// before the rest is made (a million times round a measurement:
    /// refused at once, not after 14 s and 1.4 GB).
    pub(super) fn projected(&mut self, what: &str, span: Span, before: usize, times: usize) -> bool {
        let each = self.made.saturating_sub(before);
        let total = before.saturating_add(each.saturating_mul(times));
        if self.too_many || total <= MAX_STEPS {
            return !self.too_many;
        }
        let d = Diagnostic::new(
            Code::TooLarge,
            span,
            format!(
                "this methodology would lower to more than the {MAX_STEPS} steps and round measurements a \
                 methodology may have: this {what} makes {each} each time round, {times} times"
            ),
        )
        .with_label(format!("{times} times round"))
        .with_hint("loops multiply: check the lists and ranges of nested `for`, `sweep` and `repeat`, or split the study into several methodologies");
        self.error(d);
        self.too_many = true;
        false
    }

    /// One statement; a `local` one emits its step marked local, and
    /// `local` on a step that runs on every host is refused (M0518) while
    /// the step is still checked.
    pub(super) fn stmt(&mut self, stmt: &Stmt, scope: &mut Scope) {
        self.local = self.local_of(stmt);
        self.stmt_kind(stmt, scope);
        self.local = false;
    }

    /// Whether the statement is a `local` step; `local` on a step that
    /// runs on every host is reported (M0518) and does not count.
    pub(super) fn local_of(&mut self, stmt: &Stmt) -> bool {
        let Some(at) = stmt.local else { return false };
        let Some(kind) = runs_on_every_host(&stmt.kind) else { return true };
        let what = if matches!(stmt.kind, StmtKind::Idle(_)) { " waits" } else { "'s I/O runs" };
        let d = Diagnostic::new(
            Code::NotLocal,
            at,
            format!("{kind} cannot be `local`: it runs on every host"),
        )
        .with_label("`local` here")
        .with_hint(format!(
            "`local` marks a step fio cannot run (erase, drop_caches, limit_ram, copy, probe) to run on the \
                 conductor of a run on many hosts; this step{what} on every host"
        ));
        self.error(d);
        false
    }

    /// One statement, by its kind: a scope, a loop or a step.
    fn stmt_kind(&mut self, stmt: &Stmt, scope: &mut Scope) {
        match &stmt.kind {
            StmtKind::Phase { name, body } => self.phase(stmt, name, body, scope),
            StmtKind::For { var, list, body } => {
                let Some(values) = self.loop_values(var, list, scope) else {
                    return;
                };
                let (times, before) = (values.len(), self.made);
                for (k, v) in values.into_iter().enumerate() {
                    let mut inner = scope.clone();
                    inner.top = false;
                    inner.vars.push((var.node.clone(), v));
                    self.block(&body.stmts, &mut inner);
                    if self.too_many || (k == 0 && !self.projected("`for`", stmt.span, before, times)) {
                        break;
                    }
                }
            }
            StmtKind::Repeat { count, until_cv, aggregate, body } => {
                self.repeat(stmt, count, until_cv.as_ref(), aggregate.as_ref(), body, scope)
            }
            StmtKind::Rounds { body, rule, name } => self.rounds(stmt, body, rule, name.as_ref(), scope),
            StmtKind::Target(settings) => {
                let vars = scope.vars.clone();
                self.apply_target(&mut scope.target, settings, &vars, false);
            }
            StmtKind::LimitRam(limit) => {
                let limit = match limit {
                    None => None,
                    Some(e) => {
                        let Some((b, span)) = self.expect::<Bytes>(e, &scope.vars, "`limit_ram`") else {
                            return;
                        };
                        if let Some(p) = rules::ram_limit(b) {
                            let d = self.problem(p, span);
                            self.error(d);
                            return;
                        }
                        Some(b)
                    }
                };
                scope.ram_limit = limit;
                self.emit(scope, Action::LimitRam { limit }, stmt.span, None);
            }
            StmtKind::Erase(method) => {
                self.emit(scope, Action::Erase { method: method.node }, stmt.span, None);
            }
            StmtKind::Fill { workload, opts } => {
                self.verify = verifies(opts);
                self.fill(stmt.span, workload, opts, scope);
                self.verify = false;
            }
            StmtKind::Precondition { workload, opts } => {
                self.verify = verifies(opts);
                self.precondition(stmt.span, workload, opts, scope);
                self.verify = false;
            }
            StmtKind::Sweep { workload, opts } => {
                self.verify = verifies(opts);
                self.sweep(stmt.span, workload, opts, scope);
                self.verify = false;
            }
            StmtKind::Measure { workload, opts } => {
                self.verify = verifies(opts);
                self.measure(stmt.span, workload, opts, scope);
                self.verify = false;
            }
            StmtKind::Together { opts, jobs } => self.together(stmt.span, opts, jobs, scope),
            StmtKind::Qos { workload, qd, settings } => self.qos(stmt.span, workload, qd, settings, scope),
            StmtKind::DropCaches => self.emit(scope, Action::DropCaches, stmt.span, None),
            StmtKind::Idle(e) => {
                let Some((time, _)) = self.expect_nonzero_duration(e, &scope.vars, "`idle`") else {
                    return;
                };
                self.emit(scope, Action::Idle { time }, stmt.span, None);
            }
            StmtKind::Copy(name) => {
                let e = Expr { kind: ExprKind::Ident(name.node.clone()), span: name.span };
                let Some(v) = self.eval(&e, &scope.vars) else {
                    return;
                };
                match v.value {
                    Value::Dataset(d) => {
                        let dataset = (*d).clone();
                        self.emit(scope, Action::Copy { dataset }, stmt.span, None);
                    }
                    other => {
                        let d = Diagnostic::new(
                            Code::ExpectedDataset,
                            name.span,
                            format!("`copy` needs a dataset, but `{}` is {}", name.node, describe(&other)),
                        )
                        .with_hint("define one with `dataset NAME { files 1000; size 64KiB..1MiB }`");
                        self.error(d);
                    }
                }
            }
            StmtKind::Probe(settings) => self.probe(stmt.span, settings, scope),
        }
    }

    /// A phase: at the top level only, with a name that makes step ids of
    /// its own; its body lowered in its scope.
    fn phase(&mut self, stmt: &Stmt, name: &Spanned<String>, body: &Block, scope: &Scope) {
        if !scope.top || scope.phase.is_some() {
            let d = Diagnostic::new(Code::Misplaced, stmt.span, "a phase cannot be inside another block")
                .with_label("this phase is nested")
                .with_hint("phases go at the top level; a `for` or `repeat` can go inside a phase");
            self.error(d);
            return;
        }
        let key = slug(&name.node);
        if key.is_empty() {
            let d = Diagnostic::new(
                Code::BadName,
                name.span,
                format!("the phase name \"{}\" has no letter or digit", name.node),
            )
            .with_hint("step ids are made from phase names; name the phase in words");
            self.error(d);
            return;
        }
        if let Some((first_name, first)) = self.phases.get(&key) {
            let (message, hint) = if *first_name == name.node {
                (format!("there are two phases \"{}\"", name.node), "give each phase its own name")
            } else {
                (
                    format!(
                        "phases \"{first_name}\" and \"{}\" would give their steps the same ids ({key}/...)",
                        name.node
                    ),
                    "name the phases so that they differ in letters or digits, not only in case or punctuation",
                )
            };
            let d = Diagnostic::new(Code::DuplicateName, name.span, message)
                .with_secondary(*first, "the first is here")
                .with_hint(hint);
            self.error(d);
            return;
        }
        self.phases.insert(key, (name.node.clone(), name.span));
        let mut inner = scope.clone();
        inner.phase = Some(name.node.clone());
        inner.top = false;
        self.block(&body.stmts, &mut inner);
    }

    /// `repeat N aggregate A { ... }` (or `repeat N..M until cv P%`): the
    /// body lowered once a run (M runs for a range), each run's steps
    /// marked with it; not inside another repeat.
    fn repeat(
        &mut self,
        stmt: &Stmt,
        count: &Expr,
        until_cv: Option<&Spanned<Expr>>,
        aggregate: Option<&Spanned<Aggregate>>,
        body: &Block,
        scope: &Scope,
    ) {
        if scope.repeat.is_some() {
            let d = Diagnostic::new(Code::Misplaced, stmt.span, "a repeat cannot be inside another repeat")
                .with_hint("repeat the outer block more times instead");
            self.error(d);
            return;
        }
        let Some((runs, until)) = self.repeat_runs(count, until_cv, scope) else {
            return;
        };
        self.repeats += 1;
        let group = self.repeats;
        let aggregate = aggregate.map_or(Aggregate::Mean, |a| a.node);
        let before = self.made;
        for run in 1..=runs {
            let mut inner = scope.clone();
            inner.top = false;
            inner.repeat = Some(RepeatRun { group, run, runs, aggregate, until });
            self.block(&body.stmts, &mut inner);
            if self.too_many || (run == 1 && !self.projected("`repeat`", stmt.span, before, runs as usize)) {
                break;
            }
        }
    }

    /// How many runs a repeat holds, and its `until cv` rule: `N`, or
    /// `N..M` with `until cv P%` (M runs in the plan, checked: N at least
    /// 2 and at most M, P above 0% and below 100%).
    fn repeat_runs(
        &mut self,
        count: &Expr,
        until_cv: Option<&Spanned<Expr>>,
        scope: &Scope,
    ) -> Option<(u32, Option<UntilCv>)> {
        let rule = |span: Span, msg: String, hint: &str| {
            Diagnostic::new(Code::BadRepeatRule, span, msg).with_hint(hint.to_string())
        };
        let (min, runs) = match (&count.kind, until_cv) {
            (ExprKind::Range { from, to, step: None }, Some(_)) => {
                let from = self.expect::<u64>(from, &scope.vars, "the least runs of `repeat`");
                let to = self.expect::<u64>(to, &scope.vars, "the most runs of `repeat`");
                (Some(from?.0), to?.0)
            }
            (ExprKind::Range { .. }, None) => {
                self.error(rule(
                    count.span,
                    "a range of runs needs a rule that says when to stop".into(),
                    "add `until cv 3%` after the range (`repeat 3..10 until cv 3% { ... }`), or repeat a fixed \
                     number of times (`repeat 5 { ... }`)",
                ));
                return None;
            }
            (ExprKind::Range { step: Some(_), .. }, Some(_)) => {
                self.error(rule(
                    count.span,
                    "the runs of `repeat ... until cv` are a range without a step".into(),
                    "write the least and the most runs: `repeat 3..10 until cv 3%`",
                ));
                return None;
            }
            (_, Some(cv)) => {
                let (n, _) = self.expect::<u64>(count, &scope.vars, "`repeat`")?;
                self.error(rule(
                    cv.span,
                    format!("`repeat {n}` always makes {n} runs: `until cv` cannot stop it earlier"),
                    "give the least and the most runs, `repeat 3..10 until cv 3%`, or leave out `until cv`",
                ));
                return None;
            }
            (_, None) => (None, self.expect::<u64>(count, &scope.vars, "`repeat`")?.0),
        };
        if runs == 0 {
            let d = Diagnostic::new(Code::ZeroCount, count.span, "`repeat 0` runs nothing")
                .with_hint("repeat at least once; 5 runs are usual to see run-to-run variation");
            self.error(d);
            return None;
        }
        if runs > MAX_REPEATS {
            let d = Diagnostic::new(
                Code::TooLarge,
                count.span,
                format!("`repeat {runs}` is more than the {MAX_REPEATS} runs methodic makes"),
            )
            .with_hint("5 runs are usual; repeat fewer times");
            self.error(d);
            return None;
        }
        let (Some(min), Some(cv)) = (min, until_cv) else {
            return Some((runs as u32, None));
        };
        self.until_cv(count.span, min, runs, cv, scope).map(|u| (runs as u32, Some(u)))
    }

    /// The rule of `repeat N..M until cv P%`, once M is known to be a
    /// count of runs methodic makes.
    fn until_cv(
        &mut self,
        at: Span,
        min: u64,
        runs: u64,
        cv: &Spanned<Expr>,
        scope: &Scope,
    ) -> Option<UntilCv> {
        let limit = self.expect::<Percent>(&cv.node, &scope.vars, "`until cv`");
        let mut ok = true;
        if min < 2 {
            let d = Diagnostic::new(
                Code::BadRepeatRule,
                at,
                format!("`repeat {min}..{runs} until cv` would judge the spread of fewer than 2 runs"),
            )
            .with_hint("one run has no spread: start the range at 2 runs or more (`repeat 3..10`)");
            self.error(d);
            ok = false;
        } else if min > runs {
            let d = Diagnostic::new(
                Code::BadRepeatRule,
                at,
                format!("`repeat {min}..{runs}` asks for at least {min} runs but at most {runs}"),
            )
            .with_hint("write the least runs first: `repeat 3..10`");
            self.error(d);
            ok = false;
        }
        let (limit, span) = limit?;
        if limit == Percent::ZERO || limit >= Percent::HUNDRED {
            let d = Diagnostic::new(
                Code::BadRepeatRule,
                span,
                format!("a cv limit of {limit} cannot be used: it must be above 0% and below 100%"),
            )
            .with_hint("the Phoronix Test Suite reruns a test while its cv is above 3%");
            self.error(d);
            ok = false;
        }
        ok.then_some(UntilCv { min_runs: min as u32, cv: limit })
    }

    /// The values a `for` loops over, once its variable is known not to
    /// hide another name.
    pub(super) fn loop_values(
        &mut self,
        var: &Spanned<String>,
        list: &Expr,
        scope: &Scope,
    ) -> Option<Vec<Val>> {
        let def = self.defs.names.get(&var.node);
        if def.is_some() || scope.vars.iter().any(|(n, _)| *n == var.node) {
            let what = match def {
                Some(def) => format!("the {} `{}`", def.kind(), var.node),
                None => format!("the loop variable `{}` of an outer loop", var.node),
            };
            let mut d =
                Diagnostic::new(Code::Shadowing, var.span, format!("this loop variable hides {what}"))
                    .with_hint(format!("name the loop variable something else, such as `each_{}`", var.node));
            if let Some(def) = def
                && !matches!(def, Def::Workload { from_std: true, .. })
            {
                d = d.with_secondary(def.name_span(), "defined here");
            }
            self.error(d);
            return None;
        }
        self.expect_list(list, &scope.vars, "`for`")
    }

    pub(super) fn opts<'o>(&mut self, opts: &'o [StepOpt]) -> Opts<'o> {
        let mut out = Opts::default();
        let mut seen: Vec<(&'static str, Span)> = Vec::new();
        for opt in opts {
            fn set<'o>(slot: &mut Option<&'o Expr>, e: &'o Expr, name: &'static str) -> &'static str {
                *slot = Some(e);
                name
            }
            let name = match &opt.kind {
                StepOptKind::Passes(e) => set(&mut out.passes, e, "passes"),
                StepOptKind::Qd(e) => set(&mut out.qd, e, "qd"),
                StepOptKind::Read(e) => set(&mut out.read, e, "read"),
                StepOptKind::Ramp(e) => set(&mut out.ramp, e, "ramp"),
                StepOptKind::Record(e) => set(&mut out.record, e, "record"),
                StepOptKind::Series(e) => set(&mut out.series, e, "series"),
                StepOptKind::For(e) => set(&mut out.for_, e, "for"),
                StepOptKind::Written(e) => set(&mut out.written, e, "until written"),
                StepOptKind::Transferred(e) => set(&mut out.transferred, e, "until transferred"),
                StepOptKind::Steady(rule) => {
                    out.steady = Some((rule.as_ref(), opt.span));
                    "until steady"
                }
                StepOptKind::Rate { amount, unit, arrivals } => {
                    let arrivals = arrivals.as_ref().map(|a| a.node);
                    out.rate = Some(RateOpt { amount, unit, arrivals });
                    "rate"
                }
                StepOptKind::Workers(e) => set(&mut out.workers, e, "workers"),
                StepOptKind::Device(e) => set(&mut out.device, e, "device"),
                StepOptKind::As(name) => {
                    out.as_ = Some(name);
                    "as"
                }
                StepOptKind::Think { pause, every, drained } => {
                    out.think = Some((pause, every.as_ref(), *drained));
                    "think"
                }
                StepOptKind::Bursts { on, every, times } => {
                    out.bursts = Some((on, every, times.as_ref()));
                    "bursts"
                }
                StepOptKind::Verify => {
                    out.verify = Some(opt.span);
                    "verify"
                }
                StepOptKind::At { pick, of, under } => {
                    out.at = Some(AtOpt {
                        pick: pick.node,
                        name: of,
                        under: under.as_ref().map(|u| u.node),
                        span: opt.span,
                    });
                    "at"
                }
            };
            if let Some((_, first)) = seen.iter().find(|(n, _)| *n == name) {
                let d = Diagnostic::new(Code::DuplicateSetting, opt.span, format!("`{name}` is given twice"))
                    .with_secondary(*first, "first given here")
                    .with_hint("keep one of them");
                self.error(d);
            } else {
                seen.push((name, opt.span));
            }
        }
        out
    }

    /// Notes setting `name` given at `span` in `at`; false (and an error
    /// pointing at the first) when it was given before.
    pub(super) fn given_once(
        &mut self,
        at: &mut HashMap<&'static str, Span>,
        name: &'static str,
        span: Span,
    ) -> bool {
        if let Some(first) = at.get(name) {
            let d = Diagnostic::new(Code::DuplicateSetting, span, format!("`{name}` is given twice"))
                .with_secondary(*first, "first given here");
            self.error(d);
            return false;
        }
        at.insert(name, span);
        true
    }

    pub(super) fn missing(&mut self, span: Span, step: &str, what: &str, example: &str) {
        let d = Diagnostic::new(Code::MissingOption, span, format!("`{step}` needs {what}"))
            .with_hint(format!("add it, as in `{example}`"));
        self.error(d);
    }
}

/// A statement, in words, that runs on every host of a run on many hosts
/// and so cannot be `local`; `None` for the steps fio cannot run, which
/// may be (as `Action::may_be_local` says of their plan steps).
fn runs_on_every_host(kind: &StmtKind) -> Option<&'static str> {
    match kind {
        StmtKind::Erase(_)
        | StmtKind::DropCaches
        | StmtKind::LimitRam(_)
        | StmtKind::Copy(_)
        | StmtKind::Probe(_) => None,
        StmtKind::Fill { .. } => Some("a fill"),
        StmtKind::Precondition { .. } => Some("a precondition"),
        StmtKind::Sweep { .. } => Some("a sweep"),
        StmtKind::Measure { .. } => Some("a measurement"),
        StmtKind::Rounds { .. } => Some("a rounds step"),
        StmtKind::Together { .. } => Some("a together step"),
        StmtKind::Qos { .. } => Some("a qos search"),
        StmtKind::Idle(_) => Some("an idle"),
        // The grammar takes `local` on no block; said for completeness.
        StmtKind::Phase { .. } => Some("a phase"),
        StmtKind::For { .. } => Some("a `for` loop"),
        StmtKind::Repeat { .. } => Some("a repeat"),
        StmtKind::Target(_) => Some("a target block"),
    }
}

/// Whether a step's options include `verify`.
fn verifies(opts: &[StepOpt]) -> bool {
    opts.iter().any(|o| matches!(o.kind, StepOptKind::Verify))
}
