//! Open-loop rates and `together` steps: a `rate` option checked and made
//! a [`Rate`]; a `together` statement's jobs checked (names, queue depths,
//! workers, devices, rates) and made one step that runs them at once.

use super::*;

impl Lowerer<'_, '_> {
    /// The rate a `rate` option asks for; `Some(None)` without one, `None`
    /// after an error.
    pub(super) fn rate(&mut self, r: Option<RateOpt<'_>>, scope: &Scope) -> Option<Option<Rate>> {
        let Some(r) = r else {
            return Some(None);
        };
        let amount = match r.unit {
            RateUnit::Iops => {
                let (n, span) = self.expect::<u64>(r.amount, &scope.vars, "`rate ... iops`")?;
                if n == 0 {
                    let d = Diagnostic::new(Code::ZeroCount, span, "`rate 0 iops` never starts an I/O")
                        .with_hint("give the I/Os a second to start, such as `rate 50000 iops`");
                    self.error(d);
                    return None;
                }
                RateAmount::Iops(n)
            }
            RateUnit::Of(name) => {
                let (share, span) = self.expect::<Percent>(r.amount, &scope.vars, "`rate ... of`")?;
                if share == Percent::ZERO {
                    let d = Diagnostic::new(Code::ZeroCount, span, "a rate of 0% never starts an I/O")
                        .with_hint(
                            "give a share of the named measurement's IOPS, such as `rate 50% of peak`",
                        );
                    self.error(d);
                    return None;
                }
                let Some(&(of, _)) = self.named.get(&name.node) else {
                    let d = Diagnostic::new(
                        Code::UnknownName,
                        name.span,
                        format!("no measurement before this one is named `{}`", name.node),
                    )
                    .with_hint(format!(
                        "name a closed-loop measurement that runs first: `measure W qd 32 for 1min as {}`",
                        name.node
                    ));
                    self.error(d);
                    return None;
                };
                RateAmount::Share { share, of }
            }
            RateUnit::PerSecond => {
                let (b, span) = self.expect::<Bytes>(r.amount, &scope.vars, "`rate .../s`")?;
                if b.0 == 0 {
                    let d = Diagnostic::new(
                        Code::ZeroSize,
                        span,
                        "a rate of 0 bytes a second never starts an I/O",
                    )
                    .with_hint("give the bytes a second, such as `rate 200MB/s`");
                    self.error(d);
                    return None;
                }
                RateAmount::Bandwidth(b)
            }
        };
        Some(Some(Rate { amount, arrivals: r.arrivals.unwrap_or_default() }))
    }

    /// A step's `think` and `bursts` options; `None` after an error.
    pub(super) fn pauses(&mut self, o: &Opts<'_>, scope: &Scope) -> Option<Pauses> {
        let mut pauses = Pauses::default();
        if let Some((pause, every, drained)) = o.think {
            let every = match every {
                None => 1,
                Some(e) => match self.expect_u32(e, &scope.vars, "`think ... every`")? {
                    (0, s) => {
                        let d = Diagnostic::new(Code::ZeroCount, s, "`every 0` never pauses").with_hint(
                            "pause after every N I/Os a worker starts, such as `think 100us every 16`",
                        );
                        self.error(d);
                        return None;
                    }
                    (n, _) => n,
                },
            };
            pauses.think = Some(Think { pause_ns: pause.node, every, drained });
        }
        if let Some((on, every, _)) = o.bursts {
            let (on_d, on_span) = self.expect_nonzero_duration(on, &scope.vars, "`bursts`")?;
            let (every_d, _) = self.expect_nonzero_duration(every, &scope.vars, "`bursts ... every`")?;
            if on_d >= every_d {
                let d = Diagnostic::new(
                    Code::ConflictingOption,
                    on_span,
                    format!("bursts of {} every {} leave no pause", on_d.human(), every_d.human()),
                )
                .with_hint("a burst shorter than its period, such as `bursts 2s every 10s`");
                self.error(d);
                return None;
            }
            pauses.bursts = Some(Bursts { on: on_d, every: every_d });
        }
        Some(pauses)
    }

    /// `together for T [ramp R] [series S] { job ... }`.
    pub(super) fn together(&mut self, span: Span, opts: &[StepOpt], jobs: &[JobDef], scope: &Scope) {
        let o = self.opts(opts);
        let Some(for_) = o.for_ else {
            self.missing(span, "together", "`for` a time", "together for 60s { ... }");
            return;
        };
        let time = self.expect_nonzero_duration(for_, &scope.vars, "`for`").map(|(d, _)| d);
        if jobs.is_empty() {
            self.missing(span, "together", "a job", "together for 60s { job reads rnd4k_read qd 4 }");
            return;
        }
        let ramp = self.ramp(o.ramp, scope);
        let series = self.series(o.series, scope, time);
        let mut lowered = Vec::new();
        let mut ok = true;
        for (i, job) in jobs.iter().enumerate() {
            if let Some(first) = jobs[..i].iter().find(|j| j.name.node == job.name.node) {
                let d = Diagnostic::new(
                    Code::DuplicateName,
                    job.name.span,
                    format!("two jobs of this step are called `{}`", job.name.node),
                )
                .with_secondary(first.name.span, "first called so here")
                .with_hint("name each job for what it does, such as `reads` and `writes`");
                self.error(d);
                ok = false;
                continue;
            }
            match self.job(job, scope) {
                Some(j) => lowered.push(j),
                None => ok = false,
            }
        }
        let (Some(time), Some(ramp), Some(series), true) = (time, ramp, series, ok) else {
            return;
        };
        let stop = MeasureStop::timed(time);
        self.emit(scope, Action::Together { jobs: lowered, ramp, stop, series }, span, None);
    }

    /// One job: its workload, queue depth over its own workers (the
    /// target's unless `workers` says), rate and device.
    fn job(&mut self, job: &JobDef, scope: &Scope) -> Option<Job> {
        let o = self.opts(&job.opts);
        // A job's workers all use its one device.
        let mut own = scope.clone();
        own.target.t.devices = 1;
        let own = self.own_workers(o.workers, &own)?;
        let device = match o.device {
            None => 0,
            Some(e) => {
                let (n, s) = self.expect_u32(e, &scope.vars, "`device`")?;
                if n == 0 {
                    let d = Diagnostic::new(Code::ZeroCount, s, "devices are counted from 1")
                        .with_hint("`device 1` is the first `--target`, `device 2` the second");
                    self.error(d);
                    return None;
                }
                n - 1
            }
        };
        let wl = self
            .workload_ref(&job.workload, &own)
            .filter(|w| self.check_workload_at(w, job.workload.span(), &own));
        let qd = match o.qd {
            Some(e) => self.qd(e, &own),
            None => {
                let example = format!("job {} WORKLOAD qd 4", job.name.node);
                self.missing(job.span, "job", "a queue depth", &example);
                None
            }
        };
        let rate = self.rate(o.rate, &own);
        let pauses = self.pauses(&o, &own);
        let (Some(wl), Some(qd), Some(rate), Some(pauses)) = (wl, qd, rate, pauses) else {
            return None;
        };
        Some(Job {
            name: job.name.node.clone(),
            workload: wl.w.clone(),
            qd,
            workers: own.target.t.workers,
            rate,
            pauses,
            device,
        })
    }
}

impl Lowerer<'_, '_> {
    /// `qos W qd N { pNN under LATENCY; probe D; [ramp D]; [precision P%]; [uniform|poisson]; [by qd|rate] }`.
    pub(super) fn qos(
        &mut self,
        span: Span,
        workload: &WorkloadRef,
        qd: &StepOpt,
        settings: &[QosSetting],
        scope: &Scope,
    ) {
        let wl =
            self.workload_ref(workload, scope).filter(|w| self.check_workload_at(w, workload.span(), scope));
        let qd = match &qd.kind {
            StepOptKind::Qd(e) => self.qd(e, scope),
            _ => None,
        };
        let mut limit = None;
        let (mut probe, mut ramp, mut precision) = (None, Some(Duration::ZERO), Some(Percent::whole(5)));
        let mut arrivals = Arrivals::Uniform;
        let mut by = QosAxis::Rate;
        let mut at: HashMap<&'static str, Span> = HashMap::new();
        let mut ok = true;
        for s in settings {
            let name = match &s.kind {
                QosSettingKind::Limit { percentile, under } => {
                    limit = Some((percentile.node, under.node));
                    "latency limit"
                }
                QosSettingKind::Probe(e) => {
                    probe = self.expect_nonzero_duration(e, &scope.vars, "`probe`").map(|(d, _)| d);
                    ok &= probe.is_some();
                    "probe"
                }
                QosSettingKind::Ramp(e) => {
                    ramp = self.expect::<Duration>(e, &scope.vars, "`ramp`").map(|(d, _)| d);
                    ok &= ramp.is_some();
                    "ramp"
                }
                QosSettingKind::Precision(e) => {
                    precision = match self.expect::<Percent>(e, &scope.vars, "`precision`") {
                        Some((p, _)) if p > Percent::ZERO && p < Percent::whole(50) => Some(p),
                        Some((p, s)) => {
                            let d = Diagnostic::new(
                                Code::ShareRange,
                                s,
                                format!("a precision of {p} cannot narrow the search"),
                            )
                            .with_hint("a share above 0% and below 50%, such as `precision 2%`");
                            self.error(d);
                            None
                        }
                        None => None,
                    };
                    ok &= precision.is_some();
                    "precision"
                }
                QosSettingKind::Arrivals(a) => {
                    arrivals = a.node;
                    "arrivals"
                }
                QosSettingKind::By(a) => {
                    by = a.node;
                    "by"
                }
            };
            ok &= self.given_once(&mut at, name, s.span);
        }
        if by == QosAxis::Qd {
            ok &= self.rate_settings_refused(&at);
        }
        if limit.is_none() {
            self.missing(span, "qos", "a latency limit", "qos w qd 32 { p99.99 under 1ms; probe 30s }");
            ok = false;
        }
        if !at.contains_key("probe") {
            self.missing(span, "qos", "a probe time", "qos w qd 32 { p99.99 under 1ms; probe 30s }");
            ok = false;
        }
        let (
            Some(wl),
            Some(qd),
            Some((percentile_ppm, under_ns)),
            Some(probe),
            Some(ramp),
            Some(precision),
            true,
        ) = (wl, qd, limit, probe, ramp, precision, ok)
        else {
            return;
        };
        let q = Qos {
            workload: wl.w.clone(),
            qd,
            percentile_ppm,
            under_ns,
            ramp,
            probe,
            precision,
            arrivals,
            by,
        };
        self.emit(scope, Action::Qos(q), span, None);
    }

    /// A search by queue depth runs closed loop and ends when its bracket
    /// is two adjacent depths: `precision` and the arrivals of open-loop
    /// probes (given at `at`) have nothing to act on. False after an error.
    fn rate_settings_refused(&mut self, at: &HashMap<&'static str, Span>) -> bool {
        let mut ok = true;
        for (name, what) in [
            ("precision", "`precision` narrows a search by rate"),
            ("arrivals", "`uniform` and `poisson` space the I/Os of a search by rate"),
        ] {
            if let Some(&span) = at.get(name) {
                let d = Diagnostic::new(
                    Code::ConflictingOption,
                    span,
                    format!("{what}; a search `by qd` runs closed loop and stops at adjacent depths"),
                )
                .with_hint("leave it out with `by qd`, or search by rate without `by qd`");
                self.error(d);
                ok = false;
            }
        }
        ok
    }
}
