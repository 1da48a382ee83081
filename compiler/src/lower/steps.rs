//! Step builders: a fill, precondition, sweep, measure, rounds or probe
//! statement and its scope go in; its checked steps come out, through
//! `emit`. Checks the rules of each kind of step (steady-state windows,
//! stop rules, probe ranges) at the span of the offending value.

use super::*;

/// A sweep's (workload, queue depth) pairs, its ramp and its record time.
type SweepPoints = (Vec<(Workload, Qd)>, Duration, Duration);

impl Lowerer<'_, '_> {
    pub(super) fn fill(&mut self, span: Span, workload: &WorkloadRef, opts: &[StepOpt], scope: &Scope) {
        let o = self.opts(opts);
        // Checked against the target at once, so that its problems show
        // even when another option of the step is wrong.
        let wl =
            self.workload_ref(workload, scope).filter(|w| self.check_workload_at(w, workload.span(), scope));
        let passes = match o.passes {
            None => Some(1),
            Some(e) => match self.expect_u32(e, &scope.vars, "`passes`") {
                Some((0, s)) => {
                    let d = Diagnostic::new(Code::ZeroCount, s, "`passes 0` fills nothing")
                        .with_hint("a fill writes the span at least once; 2 passes are usual");
                    self.error(d);
                    None
                }
                other => other.map(|(n, _)| n),
            },
        };
        let qd = match o.qd {
            Some(e) => self.qd(e, scope),
            None => {
                let value = rules::default_fill_qd(self.defs.conventions.queue_depth, &scope.target.t);
                self.split_qd(value, span, scope)
            }
        };
        let (Some(wl), Some(passes), Some(qd)) = (wl, passes, qd) else {
            return;
        };
        if wl.w.read != Percent::ZERO {
            let at = wl.spans.of(Field::Read, workload.span());
            let d = Diagnostic::new(
                Code::FillReads,
                at,
                format!("a fill writes, but `{}` reads {} of the time", wl.w.name, wl.w.read),
            )
            .with_secondary(workload.span(), "used in this fill")
            .with_hint("fill with a write-only workload, such as `{ sequential; block 128KiB; read 0% }`");
            self.error(d);
            return;
        }
        self.emit(scope, Action::Fill { workload: wl.w.clone(), qd, passes }, span, None);
    }

    pub(super) fn precondition(
        &mut self,
        span: Span,
        workload: &WorkloadRef,
        opts: &[StepOpt],
        scope: &Scope,
    ) {
        let o = self.opts(opts);
        // Checked against the target at once, so that its problems show
        // even when another option of the step is wrong.
        let wl =
            self.workload_ref(workload, scope).filter(|w| self.check_workload_at(w, workload.span(), scope));
        let qd = match o.qd {
            Some(e) => self.qd(e, scope),
            None => {
                self.missing(span, "precondition", "a queue depth", "precondition rnd4k_write qd 256 for 6h");
                None
            }
        };
        let stop = match (o.for_, o.steady) {
            (Some(_), Some((_, steady_span))) => {
                let d = Diagnostic::new(
                    Code::ConflictingOption,
                    steady_span,
                    "a precondition runs `for` a time or `until steady`, not both",
                )
                .with_hint("drop `for`: `max_rounds` bounds a steady-state precondition");
                self.error(d);
                None
            }
            (None, None) => {
                self.missing(
                    span,
                    "precondition",
                    "`for` a time or `until steady`",
                    "precondition w qd 256 for 6h",
                );
                None
            }
            (Some(e), None) => {
                self.expect_nonzero_duration(e, &scope.vars, "`for`").map(|(d, _)| PreconditionStop::Time(d))
            }
            (None, Some((rule, rule_span))) => {
                let settings: &[SteadySetting] = rule.map_or(&[], |r| r.as_slice());
                self.steady_rule(settings, rule_span, scope, true).map(|(rule, round)| {
                    PreconditionStop::Steady { round: round.unwrap_or(Duration::from_secs(60)), rule }
                })
            }
        };
        let length = match &stop {
            Some(PreconditionStop::Time(d)) => Some(*d),
            Some(PreconditionStop::Steady { round, .. }) => Some(*round),
            None => None,
        };
        let series = self.series(o.series, scope, length);
        let (Some(wl), Some(qd), Some(stop), Some(series)) = (wl, qd, stop, series) else {
            return;
        };
        self.emit(scope, Action::Precondition { workload: wl.w.clone(), qd, stop, series }, span, None);
    }

    /// A steady-state rule. `for_precondition`: `round` belongs here (and
    /// `track` does not); rounds take their length from their body.
    pub(super) fn steady_rule(
        &mut self,
        settings: &[SteadySetting],
        span: Span,
        scope: &Scope,
        for_precondition: bool,
    ) -> Option<(SteadyRule, Option<Duration>)> {
        let mut rule = SteadyRule::default();
        let mut round = None;
        let mut ok = true;
        // Where each setting was given, to point at it.
        let mut at: HashMap<&'static str, Span> = HashMap::new();
        for s in settings {
            let name = match &s.kind {
                SteadySettingKind::Round(e) => {
                    if !for_precondition {
                        let d = Diagnostic::new(
                            Code::ConflictingOption,
                            s.span,
                            "rounds take their length from the measurements in them",
                        )
                        .with_hint(
                            "remove `round`; it sets the round length of `precondition ... until steady`",
                        );
                        self.error(d);
                        ok = false;
                    } else {
                        round = self.expect_nonzero_duration(e, &scope.vars, "`round`").map(|(d, _)| d);
                        ok &= round.is_some();
                    }
                    "round"
                }
                SteadySettingKind::Window(e) => {
                    ok &= self.expect_u32(e, &scope.vars, "`window`").map(|(n, _)| rule.window = n).is_some();
                    "window"
                }
                SteadySettingKind::MaxRounds(e) => {
                    ok &= self
                        .expect_u32(e, &scope.vars, "`max_rounds`")
                        .map(|(n, _)| rule.max_rounds = n)
                        .is_some();
                    "max_rounds"
                }
                SteadySettingKind::Excursion(e) => {
                    ok &= self
                        .expect::<Percent>(e, &scope.vars, "`excursion`")
                        .map(|(p, _)| rule.excursion = p)
                        .is_some();
                    "excursion"
                }
                SteadySettingKind::Slope(e) => {
                    ok &= self
                        .expect::<Percent>(e, &scope.vars, "`slope`")
                        .map(|(p, _)| rule.slope = p)
                        .is_some();
                    "slope"
                }
                SteadySettingKind::Metric(m) => {
                    rule.metric = m.node;
                    "metric"
                }
                SteadySettingKind::Track { .. } => {
                    if for_precondition {
                        let d = Diagnostic::new(
                            Code::ConflictingOption,
                            s.span,
                            "a precondition watches its own workload; `track` is for rounds",
                        )
                        .with_hint("remove `track`");
                        self.error(d);
                        ok = false;
                    }
                    "track"
                }
            };
            if let Some(first) = at.get(name) {
                let d = Diagnostic::new(Code::DuplicateSetting, s.span, format!("`{name}` is given twice"))
                    .with_secondary(*first, "first given here");
                self.error(d);
                ok = false;
            } else {
                at.insert(name, s.span);
            }
        }
        for p in rules::steady(&rule) {
            let key = match p.field {
                Field::Window => "window",
                Field::MaxRounds => "max_rounds",
                Field::Excursion => "excursion",
                Field::Slope => "slope",
                _ => "",
            };
            let where_ = at.get(key).copied().unwrap_or(span);
            let d = self.problem(p, where_);
            self.error(d);
            ok = false;
        }
        ok.then_some((rule, round))
    }

    pub(super) fn sweep(&mut self, span: Span, workload: &WorkloadRef, opts: &[StepOpt], scope: &Scope) {
        let o = self.opts(opts);
        let Some(own) = self.own_workers(o.workers, scope) else { return };
        let scope = &own;
        let first = self.steps.len();
        let points = self.sweep_points(span, workload, &o, scope);
        let record = points.as_ref().map(|(_, _, record)| *record);
        let series = self.series(o.series, scope, record);
        let (Some((points, ramp, record)), Some(series)) = (points, series) else {
            return;
        };
        self.sweeps += 1;
        let sweep = self.sweeps;
        for (workload, qd) in points {
            let stop = MeasureStop::timed(record);
            self.emit(
                scope,
                Action::Measure {
                    workload,
                    qd,
                    ramp,
                    stop,
                    series,
                    rate: None,
                    pauses: Pauses::default(),
                    at: None,
                },
                span,
                Some(sweep),
            );
            if self.too_many {
                return;
            }
        }
        if let Some(name) = o.as_ {
            self.name_points(name, first);
        }
    }

    /// What a sweep measures: a (workload, queue depth) pair per point,
    /// read shares outside and queue depths inside, with its ramp and
    /// record time. Shared by sweeps as steps and sweeps in rounds.
    pub(super) fn sweep_points(
        &mut self,
        span: Span,
        workload: &WorkloadRef,
        o: &Opts<'_>,
        scope: &Scope,
    ) -> Option<SweepPoints> {
        // Checked against the target at once, so that its problems show
        // even when another option of the step is wrong.
        let wl =
            self.workload_ref(workload, scope).filter(|w| self.check_workload_at(w, workload.span(), scope));
        let qds = match o.qd {
            Some(e) => self.expect_values(e, &scope.vars, "`qd`"),
            None => {
                self.missing(span, "sweep", "queue depths", "sweep w qd [1, 2, 4, 8] ramp 30s record 300s");
                None
            }
        };
        let reads = match o.read {
            Some(e) => self.expect_values(e, &scope.vars, "`read`").map(Some),
            None => Some(None),
        };
        let record = match o.record {
            Some(e) => self.expect_nonzero_duration(e, &scope.vars, "`record`").map(|(d, _)| d),
            None => {
                self.missing(span, "sweep", "a record time", "sweep w qd [1, 32] ramp 30s record 300s");
                None
            }
        };
        let ramp = self.ramp(o.ramp, scope);
        let (wl, qds, reads, record, ramp) = (wl?, qds?, reads?, record?, ramp?);
        let variants = self.read_variants(&wl, reads)?;
        let mut points = Vec::with_capacity(variants.len() * qds.len());
        for w in variants {
            for q in &qds {
                if let Some(qd) = self.qd_val(q, scope) {
                    points.push((w.clone(), qd));
                }
            }
        }
        Some((points, ramp, record))
    }

    /// The workload once, or once per read share of a read-share sweep.
    pub(super) fn read_variants(&mut self, wl: &Wl, reads: Option<Vec<Val>>) -> Option<Vec<Workload>> {
        let Some(reads) = reads else {
            return Some(vec![wl.w.clone()]);
        };
        let mut out = Vec::new();
        for r in reads {
            let Value::Percent(p) = r.value else {
                let d = expected(Code::ExpectedPercent, "a read share such as 70%", "`read`", &r)
                    .with_hint("a read-share sweep lists shares: `read 0%..100% step 10%`");
                self.error(d);
                return None;
            };
            if p > Percent::HUNDRED {
                let d =
                    Diagnostic::new(Code::ShareRange, r.span, format!("a read share of {p} is over 100%"));
                self.error(d);
                return None;
            }
            let mut w = wl.w.clone();
            w.read = p;
            // A workload written in place is named by what it does.
            w.name =
                if wl.w.name == wl.w.describe() { w.describe() } else { format!("{} read {p}", wl.w.name) };
            out.push(w);
        }
        Some(out)
    }

    /// A measurement: its options read in the order the language lists
    /// them, then the ones that cannot go together.
    pub(super) fn measure(&mut self, span: Span, workload: &WorkloadRef, opts: &[StepOpt], scope: &Scope) {
        let o = self.opts(opts);
        let Some(own) = self.own_workers(o.workers, scope) else { return };
        let scope = &own;
        // Checked against the target at once, so that its problems show
        // even when another option of the step is wrong.
        let wl =
            self.workload_ref(workload, scope).filter(|w| self.check_workload_at(w, workload.span(), scope));
        let point = match o.at {
            Some(at) => match self.point(at, &o) {
                Some(p) => Some(p),
                None => return,
            },
            None => None,
        };
        let qd = match (o.qd, &point) {
            (_, Some((_, qd))) => Some(*qd),
            (Some(e), None) => self.qd(e, scope),
            (None, None) => {
                self.missing(span, "measure", "a queue depth", "measure w qd 32 for 60s");
                None
            }
        };
        let times = o.bursts.and_then(|(_, _, times)| times);
        let time = match (o.for_, times) {
            (Some(e), None) => self.expect_nonzero_duration(e, &scope.vars, "`for`").map(|(d, _)| Some(d)),
            (None, Some(n)) => self.bursts_time(o.bursts, n, scope).map(Some),
            (Some(e), Some(n)) => {
                let d = Diagnostic::new(
                    Code::ConflictingOption,
                    n.span,
                    "`times` says how long bursts run, and so does `for`",
                )
                .with_secondary(e.span, "`for` given here")
                .with_hint("keep one: `bursts 5s every 10s times 360`, or `for 1h`");
                self.error(d);
                return;
            }
            (None, None) => Some(None),
        };
        let written = match o.written {
            Some(e) => self.amount(e, scope, "written").map(Some),
            None => Some(None),
        };
        let transferred = match o.transferred {
            Some(e) => self.amount(e, scope, "transferred").map(Some),
            None => Some(None),
        };
        if o.for_.is_none() && o.written.is_none() && o.transferred.is_none() && times.is_none() {
            self.missing(
                span,
                "measure",
                "`for` a time, or `until written` or `until transferred` an amount",
                "measure w qd 32 for 60s",
            );
            return;
        }
        if let (Some(w), Some(t)) = (o.written, o.transferred) {
            let d = Diagnostic::new(
                Code::ConflictingOption,
                t.span,
                "`until transferred` counts the bytes written too: the step would stop twice by amount",
            )
            .with_secondary(w.span, "`until written` given here")
            .with_hint("keep one: `until written` counts writes, `until transferred` reads and writes");
            self.error(d);
            return;
        }
        let ramp = self.ramp(o.ramp, scope);
        let series = self.series(o.series, scope, time.flatten());
        let rate = self.rate(o.rate, scope);
        let pauses = self.pauses(&o, scope);
        let (
            Some(wl),
            Some(qd),
            Some(time),
            Some(written),
            Some(transferred),
            Some(ramp),
            Some(series),
            Some(rate),
            Some(pauses),
        ) = (wl, qd, time, written, transferred, ramp, series, rate, pauses)
        else {
            return;
        };
        if !self.measure_options_agree(&o, workload, &wl, written.is_some(), rate.is_some(), point.is_some())
        {
            return;
        }
        let stop = MeasureStop { time, written, transferred };
        let before = self.steps.len();
        let at = point.map(|(p, _)| p);
        self.emit(
            scope,
            Action::Measure { workload: wl.w.clone(), qd, ramp, stop, series, rate, pauses, at },
            span,
            None,
        );
        if let Some(name) = o.as_.filter(|_| self.steps.len() > before) {
            // A loop names a new measurement each time round: the latest
            // stands for the name from here.
            self.named.insert(name.node.clone(), (before as u32, name.span));
            self.name_points(name, before);
        }
    }

    /// Options of a measurement that cannot go together, checked once each
    /// has been read: `until written` with a workload that only reads, and
    /// a name (`as`) for an open-loop measurement or for one at an
    /// operating point. Reports the first; false when there is one.
    fn measure_options_agree(
        &mut self,
        o: &Opts<'_>,
        workload: &WorkloadRef,
        wl: &Wl,
        until_written: bool,
        open_loop: bool,
        at_point: bool,
    ) -> bool {
        if until_written && !wl.w.writes() {
            let d = Diagnostic::new(
                Code::ConflictingOption,
                workload.span(),
                format!("`until written` never ends: `{}` only reads", wl.w.name),
            )
            .with_hint("use `for` a time, or a workload that writes");
            self.error(d);
            return false;
        }
        if let Some(name) = o.as_.filter(|_| open_loop) {
            let d = Diagnostic::new(
                Code::ConflictingOption,
                name.span,
                format!(
                    "`{}` names an open-loop measurement: a share of it is a share of its own rate",
                    name.node
                ),
            )
            .with_hint("name the closed-loop measurement that finds what the drive can do");
            self.error(d);
            return false;
        }
        if let Some(name) = o.as_.filter(|_| at_point) {
            let d = Diagnostic::new(
                Code::ConflictingOption,
                name.span,
                format!("`{}` names a measurement whose queue depth is chosen from others", name.node),
            )
            .with_hint("name the measurements an operating point is chosen from, not the one at it");
            self.error(d);
            return false;
        }
        true
    }

    /// Adds the steps from `first` on to the operating points named
    /// `name`: a loop or a sweep adds all of its measurements.
    pub(super) fn name_points(&mut self, name: &Spanned<String>, first: usize) {
        let made: Vec<u32> = (first..self.steps.len()).map(|i| i as u32).collect();
        self.points.entry(name.node.clone()).or_insert_with(|| (Vec::new(), name.span)).0.extend(made);
    }

    /// `at max of NAME`: the point to choose at run time and, for the
    /// plan's estimates, the queue depth of the first measurement it
    /// chooses from. `None` after an error.
    fn point(&mut self, at: AtOpt<'_>, o: &Opts<'_>) -> Option<(Point, Qd)> {
        let AtOpt { pick, name, under, span: at } = at;
        if o.qd.is_some() || o.workers.is_some() || o.rate.is_some() {
            let what = if o.rate.is_some() {
                "`rate`"
            } else if o.qd.is_some() {
                "`qd`"
            } else {
                "`workers`"
            };
            let d = Diagnostic::new(
                Code::ConflictingOption,
                at,
                format!("`at` chooses the queue depth and workers, so {what} cannot be given too"),
            )
            .with_hint("remove the one or the other: `measure W at max of dirth for 10min`");
            self.error(d);
            return None;
        }
        let Some((of, _)) = self.points.get(&name.node).cloned() else {
            let d = Diagnostic::new(
                Code::UnknownName,
                name.span,
                format!("no measurement, sweep or rounds before this one is named `{}`", name.node),
            )
            .with_hint(format!(
                "name the measurements to choose from: `rounds {{ ... }} until steady {{ ... }} as {}`",
                name.node
            ));
            self.error(d);
            return None;
        };
        let pick = match pick {
            PickExpr::Max => Pick::Max,
            PickExpr::Mid => Pick::Mid,
            PickExpr::Min => Pick::Min,
        };
        let first = of.first().and_then(|i| self.steps.get(*i as usize)).and_then(|s| match &s.action {
            Action::Measure { qd, .. } => Some(*qd),
            Action::Rounds { cells, .. } => cells.first().map(|c| c.qd),
            // Only measurements and rounds are named as operating points.
            Action::Erase { .. }
            | Action::Fill { .. }
            | Action::Precondition { .. }
            | Action::Together { .. }
            | Action::Qos(_)
            | Action::DropCaches
            | Action::Idle { .. }
            | Action::LimitRam { .. }
            | Action::Copy { .. }
            | Action::Probe(_) => None,
        })?;
        Some((Point { pick, name: name.node.clone(), of, under_ns: under }, first))
    }

    /// How long `bursts ON every PERIOD times N` runs: N periods.
    fn bursts_time(
        &mut self,
        bursts: Option<(&Expr, &Expr, Option<&Expr>)>,
        n: &Expr,
        scope: &Scope,
    ) -> Option<Duration> {
        let (_, every, _) = bursts?;
        let (count, s) = self.expect_u32(n, &scope.vars, "`times`")?;
        if count == 0 {
            let d = Diagnostic::new(Code::ZeroCount, s, "`times 0` runs no burst")
                .with_hint("give how many periods of a burst and a pause to run, such as `times 360`");
            self.error(d);
            return None;
        }
        let (period, _) = self.expect_nonzero_duration(every, &scope.vars, "`bursts ... every`")?;
        Some(period.saturating_mul(count as u64))
    }

    /// The amount of `until written` or `until transferred` (`word`): bytes
    /// or a share of the span, never nothing.
    pub(super) fn amount(&mut self, e: &Expr, scope: &Scope, word: &str) -> Option<Extent> {
        let (x, span) = self.expect::<Extent>(e, &scope.vars, &format!("`until {word}`"))?;
        let zero = match x {
            Extent::Percent(p) => p == Percent::ZERO,
            Extent::Bytes(b) => b.0 == 0,
        };
        if zero {
            let d = Diagnostic::new(Code::ZeroSize, span, format!("`until {word}` nothing stops at once"))
                .with_hint(format!(
                    "give the amount, such as `until {word} 300GB` or `until {word} 400%` of the span"
                ));
            self.error(d);
            return None;
        }
        Some(x)
    }

    pub(super) fn ramp(&mut self, e: Option<&Expr>, scope: &Scope) -> Option<Duration> {
        match e {
            None => Some(Duration::ZERO),
            Some(e) => self.expect::<Duration>(e, &scope.vars, "`ramp`").map(|(d, _)| d),
        }
    }

    /// The interval of the per-second series; 1s unless given, and no
    /// longer than `length`, the time the step records (or a round).
    pub(super) fn series(
        &mut self,
        e: Option<&Expr>,
        scope: &Scope,
        length: Option<Duration>,
    ) -> Option<Duration> {
        let Some(e) = e else {
            return Some(Duration::from_secs(1));
        };
        let (d, span) = self.expect_nonzero_duration(e, &scope.vars, "`series`")?;
        if let Some(p) = rules::series(d, length) {
            let diag = self.problem(p, span);
            self.error(diag);
            return None;
        }
        Some(d)
    }

    /// Rounds of measurements until the tracked one is steady: the cells,
    /// the steady-state rule, and which cell the rule watches.
    pub(super) fn rounds(
        &mut self,
        stmt: &Stmt,
        body: &Block,
        rule: &[SteadySetting],
        name: Option<&Spanned<String>>,
        scope: &Scope,
    ) {
        let errors_before = self.error_count();
        let mut cells: Vec<(Cell, Span)> = Vec::new();
        self.cells(&body.stmts, scope, &mut cells);
        if self.too_many {
            return;
        }
        let rule_span = Span::new(body.span.end, stmt.span.end);
        let Some((steady, _)) = self.steady_rule(rule, rule_span, scope, false) else {
            return;
        };
        if cells.is_empty() {
            // Rounds whose measurements all failed were reported already.
            if self.error_count() == errors_before {
                let d = Diagnostic::new(Code::MissingOption, body.span, "these rounds hold no measurement")
                    .with_hint("put `measure W qd N for 1min` steps in the rounds");
                self.error(d);
            }
            return;
        }
        let Some(index) = self.tracked_cell(rule, &cells, rule_span, scope) else {
            return;
        };
        let cells = cells.into_iter().map(|(c, _)| c).collect();
        let first = self.steps.len();
        self.emit(scope, Action::Rounds { cells, track: index as u32, rule: steady }, stmt.span, None);
        if let Some(name) = name {
            self.name_points(name, first);
        }
    }

    /// Which of the rounds' cells the steady-state rule watches: the one
    /// `track` names (with its queue depth and workers when the workload
    /// is measured more than once), or the only one. `None` after an error.
    fn tracked_cell(
        &mut self,
        rule: &[SteadySetting],
        cells: &[(Cell, Span)],
        rule_span: Span,
        scope: &Scope,
    ) -> Option<usize> {
        let track = rule.iter().find_map(|s| match &s.kind {
            SteadySettingKind::Track { workload, opts } => Some((workload, opts, s.span)),
            _ => None,
        });
        let Some((w, opts, span)) = track else {
            if cells.len() == 1 {
                return Some(0);
            }
            let d = Diagnostic::new(
                Code::BadTrack,
                rule_span,
                format!(
                    "rounds of {} measurements need `track` to say which one the rule watches",
                    cells.len()
                ),
            )
            .with_hint(
                "add `track WORKLOAD`, such as the SNIA PTS's `track { random; block 4KiB; read 0% }`",
            );
            self.error(d);
            return None;
        };
        let tracked = self.workload_ref(w, scope)?;
        // `track W qd N workers N` picks one of several measurements of W.
        let o = self.opts(opts);
        let own = self.own_workers(o.workers, scope)?;
        let qd = match o.qd {
            Some(e) => Some(self.qd(e, &own)?),
            None => None,
        };
        let workers = o.workers.map(|_| own.target.t.workers);
        let matches: Vec<usize> = cells
            .iter()
            .enumerate()
            .filter(|(_, (c, _))| c.workload.same_io(&tracked.w))
            .filter(|(_, (c, _))| qd.is_none_or(|q| q.total == c.qd.total))
            .filter(|(_, (c, _))| workers.is_none_or(|n| n == c.qd.workers))
            .map(|(i, _)| i)
            .collect();
        let d = match matches.as_slice() {
            [one] => return Some(*one),
            [] => Diagnostic::new(
                Code::BadTrack,
                span,
                format!("`{}` is none of the measurements of these rounds", tracked.w.name),
            )
            .with_hint("track a workload that the rounds measure, written the same way"),
            many => {
                let qds: Vec<String> = many
                    .iter()
                    .map(|i| {
                        let q = cells[*i].0.qd;
                        if q.workers == 1 {
                            q.total.to_string()
                        } else {
                            format!("{} ({}x{})", q.total, q.workers, q.per_worker)
                        }
                    })
                    .collect();
                Diagnostic::new(
                    Code::BadTrack,
                    span,
                    format!(
                        "`{}` is measured {} times in these rounds (QD {})",
                        tracked.w.name,
                        many.len(),
                        qds.join(", ")
                    ),
                )
                .with_hint(
                    "track needs exactly one measurement: add its queue depth and workers, `track W qd 32 workers 4`",
                )
            }
        };
        self.error(d);
        None
    }

    /// The measurements of a `rounds` body.
    pub(super) fn cells(&mut self, stmts: &[Stmt], scope: &Scope, out: &mut Vec<(Cell, Span)>) {
        for stmt in stmts {
            if self.too_many {
                return;
            }
            // A measurement in rounds runs on every host, as the rounds do.
            self.local_of(stmt);
            match &stmt.kind {
                StmtKind::For { var, list, body } => {
                    let Some(values) = self.loop_values(var, list, scope) else {
                        continue;
                    };
                    let (times, before) = (values.len(), self.made);
                    for (k, v) in values.into_iter().enumerate() {
                        let mut inner = scope.clone();
                        inner.vars.push((var.node.clone(), v));
                        self.cells(&body.stmts, &inner, out);
                        if self.too_many || (k == 0 && !self.projected("`for`", stmt.span, before, times)) {
                            break;
                        }
                    }
                }
                StmtKind::Measure { workload, opts } => {
                    let Some(cell) = self.measure_cell(stmt.span, workload, opts, scope) else {
                        continue;
                    };
                    if !self.room(stmt.span) {
                        return;
                    }
                    out.push((cell, stmt.span));
                }
                StmtKind::Sweep { workload, opts } => {
                    let Some(cells) = self.sweep_cells(stmt.span, workload, opts, scope) else {
                        continue;
                    };
                    for cell in cells {
                        if !self.room(stmt.span) {
                            return;
                        }
                        out.push((cell, stmt.span));
                    }
                }
                _ => {
                    let d = Diagnostic::new(Code::Misplaced, stmt.span, "rounds hold measurements only")
                        .with_label("this cannot be part of a round")
                        .with_hint("put `measure`, `sweep` and `for` inside `rounds`; other steps go before or after");
                    self.error(d);
                }
            }
        }
    }

    /// A measurement in rounds: one workload at one queue depth, for a
    /// fixed time. `None` after an error.
    fn measure_cell(
        &mut self,
        span: Span,
        workload: &WorkloadRef,
        opts: &[StepOpt],
        scope: &Scope,
    ) -> Option<Cell> {
        let o = self.opts(opts);
        let refused = o.verify.or(o.at.map(|a| a.span)).or(o.as_.map(|n| n.span));
        if self.refused_in_rounds(
            refused,
            "a measurement in rounds cannot verify, be named or choose its own queue depth",
        ) {
            return None;
        }
        let own = self.own_workers(o.workers, scope)?;
        let scope = &own;
        if o.written.is_some() || o.transferred.is_some() || o.series.is_some() {
            let d = Diagnostic::new(
                Code::Misplaced,
                span,
                "a measurement in rounds runs for a fixed time and records one value a round",
            )
            .with_hint("use `for` a time, without `until written`, `until transferred` or `series`");
            self.error(d);
            return None;
        }
        // Checked against the target at once, so that its problems show
        // even when another option of the step is wrong.
        let wl =
            self.workload_ref(workload, scope).filter(|w| self.check_workload_at(w, workload.span(), scope));
        let qd = match o.qd {
            Some(e) => self.qd(e, scope),
            None => {
                self.missing(span, "measure", "a queue depth", "measure w qd 32 for 1min");
                None
            }
        };
        let record = match o.for_ {
            Some(e) => self.expect_nonzero_duration(e, &scope.vars, "`for`").map(|(d, _)| d),
            None => {
                self.missing(span, "measure", "`for` a time", "measure w qd 32 for 1min");
                None
            }
        };
        let ramp = self.ramp(o.ramp, scope);
        let (wl, qd, record, ramp) = (wl?, qd?, record?, ramp?);
        Some(Cell { workload: wl.w.clone(), qd, ramp, record })
    }

    /// A sweep in rounds: a measurement a point, each for a fixed time.
    /// `None` after an error.
    fn sweep_cells(
        &mut self,
        span: Span,
        workload: &WorkloadRef,
        opts: &[StepOpt],
        scope: &Scope,
    ) -> Option<Vec<Cell>> {
        let o = self.opts(opts);
        if self.refused_in_rounds(
            o.verify.or(o.as_.map(|n| n.span)),
            "a sweep in rounds cannot verify or be named",
        ) {
            return None;
        }
        let own = self.own_workers(o.workers, scope)?;
        let scope = &own;
        if o.series.is_some() {
            let d = Diagnostic::new(
                Code::Misplaced,
                span,
                "a measurement in rounds records one value a round, not a series",
            )
            .with_hint("remove `series`");
            self.error(d);
            return None;
        }
        let (points, ramp, record) = self.sweep_points(span, workload, &o, scope)?;
        Some(points.into_iter().map(|(workload, qd)| Cell { workload, qd, ramp, record }).collect())
    }

    /// An option a measurement in rounds cannot take (`verify`, `as`,
    /// `at`), at `at`: the error `message`, and true; false when none.
    fn refused_in_rounds(&mut self, at: Option<Span>, message: &str) -> bool {
        let Some(s) = at else { return false };
        let d = Diagnostic::new(Code::Misplaced, s, message)
            .with_hint("name the rounds (`} until steady { ... } as NAME`); verify in a step of its own");
        self.error(d);
        true
    }

    pub(super) fn probe(&mut self, span: Span, settings: &[ProbeSetting], scope: &Scope) {
        let mut io = None;
        let mut step = None;
        let mut range = None;
        let mut repeats = Some(20u32);
        let mut statistic = Aggregate::Median;
        let mut at: HashMap<&'static str, Span> = HashMap::new();
        let mut ok = true;
        for s in settings {
            let name = match &s.kind {
                ProbeSettingKind::Io(e) => {
                    io = self.expect::<Bytes>(e, &scope.vars, "`io`").map(|(b, _)| b);
                    ok &= io.is_some();
                    "io"
                }
                ProbeSettingKind::Step(e) => {
                    step = self.expect::<Bytes>(e, &scope.vars, "`step`").map(|(b, _)| b);
                    ok &= step.is_some();
                    "step"
                }
                ProbeSettingKind::Range(e) => {
                    range = self.expect::<Bytes>(e, &scope.vars, "`range`").map(|(b, _)| b);
                    ok &= range.is_some();
                    "range"
                }
                ProbeSettingKind::Repeats(e) => {
                    repeats = self.expect_u32(e, &scope.vars, "`repeats`").map(|(n, _)| n);
                    ok &= repeats.is_some();
                    "repeats"
                }
                ProbeSettingKind::Statistic(a) => {
                    statistic = a.node;
                    "statistic"
                }
            };
            ok &= self.given_once(&mut at, name, s.span);
        }
        for (name, value) in [("io", io.is_some()), ("step", step.is_some()), ("range", range.is_some())] {
            if !value && !at.contains_key(name) {
                self.missing(
                    span,
                    "probe pages",
                    &format!("`{name}`"),
                    "probe pages { io 512B; step 256B; range 4MiB }",
                );
                ok = false;
            }
        }
        let (true, Some(io), Some(step), Some(range), Some(repeats)) = (ok, io, step, range, repeats) else {
            return;
        };
        let p = Probe { io, step, range, repeats, statistic, offsets: rules::probe_offsets(io, step, range) };
        let problems = rules::probe(&p, scope.target.t.io);
        if !problems.is_empty() {
            for pr in problems {
                let key = match pr.field {
                    Field::Io => "io",
                    Field::Step => "step",
                    Field::Range => "range",
                    Field::Repeats => "repeats",
                    _ => "",
                };
                let mut d = self.problem(pr, at.get(key).copied().unwrap_or(span));
                if d.code == Code::Unaligned
                    && let Some(io_at) = scope.target.io_at
                {
                    d = d.with_secondary(io_at, "io direct is set here");
                }
                self.error(d);
            }
            return;
        }
        self.emit(scope, Action::Probe(p), span, None);
    }
}
