//! Target scopes: `target` settings go in and change the settings in
//! effect (span, workers, devices, io mode, data); a workload is checked
//! against the target it runs on (direct I/O alignment); a queue depth is
//! spread evenly over the workers.

use super::*;

impl Lowerer<'_, '_> {
    pub(super) fn apply_target(
        &mut self,
        state: &mut TargetState,
        settings: &[TargetSetting],
        vars: &[(String, Val)],
        top: bool,
    ) {
        let mut seen: Vec<(&'static str, Span)> = Vec::new();
        let mut set_here: Vec<Field> = Vec::new();
        for s in settings {
            let name = match &s.kind {
                TargetSettingKind::Span(e) => {
                    if let Some((x, _)) = self.expect::<Extent>(e, vars, "`span`") {
                        state.t.span = x;
                        state.span_at = Some(s.span);
                        set_here.push(Field::Span);
                    }
                    "span"
                }
                TargetSettingKind::Workers(e) => {
                    if let Some((n, _)) = self.expect_u32(e, vars, "`workers`") {
                        state.t.workers = n;
                        state.workers_at = Some(s.span);
                        set_here.push(Field::Workers);
                    }
                    "workers"
                }
                TargetSettingKind::Devices(e) => {
                    if let Some((n, _)) = self.expect_u32(e, vars, "`devices`") {
                        state.t.devices = n;
                        state.devices_at = Some(s.span);
                        set_here.push(Field::Devices);
                    }
                    "devices"
                }
                TargetSettingKind::Io(m) => {
                    state.t.io = m.node;
                    state.io_at = Some(s.span);
                    "io"
                }
                TargetSettingKind::WriteCache(m) => {
                    if top {
                        state.write_cache = m.node;
                    } else {
                        let d = Diagnostic::new(
                            Code::Misplaced,
                            s.span,
                            "`write_cache` holds for the whole run: it is set in the top-level target block only",
                        )
                        .with_hint("move it to the `target { ... }` block outside the phases");
                        self.error(d);
                    }
                    "write_cache"
                }
                TargetSettingKind::Data(d) => {
                    let pattern = match d {
                        DataPatternExpr::Random => Some(DataPattern::Random),
                        DataPatternExpr::Zeros => Some(DataPattern::Zeros),
                        DataPatternExpr::Compressible(e) => self
                            .expect::<Percent>(e, vars, "`compressible`")
                            .map(|(p, _)| DataPattern::Compressible(p)),
                    };
                    if let Some(p) = pattern {
                        state.t.data = p;
                        state.data_at = Some(s.span);
                        set_here.push(Field::Data);
                    }
                    "data"
                }
            };
            if let Some((_, first)) = seen.iter().find(|(n, _)| *n == name) {
                let d = Diagnostic::new(Code::DuplicateSetting, s.span, format!("`{name}` is given twice"))
                    .with_secondary(*first, "first given here")
                    .with_hint("keep one of them");
                self.error(d);
            } else {
                seen.push((name, s.span));
            }
        }
        for p in rules::target(&state.t) {
            // Only what this block set: an inherited problem was reported where it was set.
            let here = set_here.contains(&p.field)
                || (p.code == Code::WorkerLayout && set_here.contains(&Field::Devices));
            if !here {
                continue;
            }
            let at = match p.field {
                Field::Span => state.span_at,
                Field::Workers => state.workers_at,
                Field::Devices => state.devices_at,
                Field::Data => state.data_at,
                _ => None,
            };
            let Some(at) = at else { continue };
            let mut d = self.problem(p, at);
            if d.code == Code::WorkerLayout
                && let Some(dev) = state.devices_at
            {
                d = d.with_secondary(dev, "devices set here");
            }
            self.error(d);
        }
    }

    /// The scope a step runs in with its own `workers N` (a job, a
    /// measurement, a sweep): the target's workers replaced, checked
    /// against its devices. `None` after an error.
    pub(super) fn own_workers(&mut self, workers: Option<&Expr>, scope: &Scope) -> Option<Scope> {
        let mut own = scope.clone();
        let Some(e) = workers else { return Some(own) };
        let (n, s) = self.expect_u32(e, &scope.vars, "`workers`")?;
        if n == 0 {
            let d = Diagnostic::new(Code::ZeroCount, s, "`workers 0` runs nothing")
                .with_hint("a step runs on one worker or more");
            self.error(d);
            return None;
        }
        own.target.t.workers = n;
        own.target.workers_at = Some(s);
        if let Some(p) = rules::target(&own.target.t).into_iter().find(|p| p.code == Code::WorkerLayout) {
            let mut d = self.problem(p, s);
            if let Some(dev) = own.target.devices_at {
                d = d.with_secondary(dev, "devices set here");
            }
            self.error(d);
            return None;
        }
        Some(own)
    }

    /// Checks a workload against the target it runs on: sector alignment
    /// under `io direct`, and a span in bytes that must hold its blocks.
    pub(super) fn check_workload_at(&mut self, wl: &Wl, at: Span, scope: &Scope) -> bool {
        let mut ok = true;
        if scope.target.t.io == IoMode::Direct {
            for p in rules::direct_io(&wl.w) {
                let mut d = self.problem(p.clone(), wl.spans.of(p.field, at));
                if !wl.spans.from_std && at != wl.spans.whole {
                    d = d.with_secondary(at, "used here with io direct");
                }
                self.error(d);
                ok = false;
            }
        }
        if let Some(p) = rules::fits_span(&wl.w, scope.target.t.span) {
            let mut d = self.problem(p, at);
            if let Some(s) = scope.target.span_at {
                d = d.with_secondary(s, "span set here");
            }
            self.error(d);
            ok = false;
        }
        ok
    }

    // ------------------------------------------------------------ queue depths

    pub(super) fn qd(&mut self, e: &Expr, scope: &Scope) -> Option<Qd> {
        let v = self.eval(e, &scope.vars)?;
        if let Value::List(items) = &v.value {
            let d = Diagnostic::new(
                Code::ExpectedList,
                e.span,
                format!("expected one queue depth for `qd`, found a list of {} values", items.len()),
            )
            .with_hint("use `sweep` to run a list of queue depths");
            self.error(d);
            return None;
        }
        self.qd_val(&v, scope)
    }

    pub(super) fn qd_val(&mut self, v: &Val, scope: &Scope) -> Option<Qd> {
        let Value::Int(n) = v.value else {
            let d = expected(Code::ExpectedCount, "a queue depth (a whole number such as 32)", "`qd`", v);
            self.error(d);
            return None;
        };
        self.split_qd(n, v.span, scope)
    }

    pub(super) fn split_qd(&mut self, value: u64, span: Span, scope: &Scope) -> Option<Qd> {
        match rules::split_qd(value, self.defs.conventions.queue_depth, &scope.target.t) {
            Ok((qd, warning)) => {
                if let Some(w) = warning {
                    let mut d = self.problem(w, span);
                    if let Some(at) = scope.target.workers_at {
                        d = d.with_secondary(at, "workers set here");
                    }
                    self.error(d);
                }
                Some(qd)
            }
            Err(p) => {
                let mut d = self.problem(p, span);
                if let Some(at) = scope.target.workers_at {
                    d = d.with_secondary(at, "workers set here");
                }
                self.error(d);
                None
            }
        }
    }
}
