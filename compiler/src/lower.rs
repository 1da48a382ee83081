//! `lower`: the AST and its resolved definitions go in, the plan's flat
//! list of steps comes out. Evaluates every value (lets, loop variables,
//! ranges, workloads), expands `for`, `repeat` and `sweep`, applies scoped
//! `target` and `limit_ram` settings, spreads queue depths over workers,
//! and checks each step as it is made, reporting problems at the span of
//! the value that causes them.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::rc::Rc;

use methodic_grammar::ast::*;
use methodic_grammar::units::{Bytes, Duration, Percent};
use methodic_grammar::{Code, Diagnostic, did_you_mean, is_reserved};

use crate::estimate;
use crate::plan::{
    Action, BlockShare, Cell, DataPattern, Dataset, Extent, MeasureStop, PreconditionStop, Probe, Qd,
    RepeatRun, SteadyRule, Step, Target, Workload,
};
use crate::resolve::{Def, Defs};
use crate::rules::{self, Field, Problem};
use crate::stdlib;

/// The most steps (and round measurements) a methodology may lower to.
/// Real methodologies have thousands; the limit stops a typo in nested
/// loops from filling the memory.
pub(crate) const MAX_STEPS: usize = 1_000_000;

/// The most runs a `repeat` makes.
const MAX_REPEATS: u64 = 10_000;

/// What an expression evaluates to.
#[derive(Debug, Clone)]
enum Value {
    Int(u64),
    Size(Bytes),
    Duration(Duration),
    Percent(Percent),
    Workload(Rc<Wl>),
    Dataset(Rc<Dataset>),
    List(Vec<Val>),
}

/// A value and the span of the literal or name it came from, so that a
/// problem with one value of a list points at that value.
#[derive(Debug, Clone)]
struct Val {
    value: Value,
    span: Span,
}

/// A workload with the spans of its properties.
#[derive(Debug)]
struct Wl {
    w: Workload,
    spans: WlSpans,
}

#[derive(Debug, Clone)]
struct WlSpans {
    whole: Span,
    blocks: Span,
    /// One span per entry of `Workload::blocks` (sorted by size).
    block: Vec<Span>,
    read: Span,
    random: Span,
    align: Span,
    offset: Span,
    /// Defined in `std.mixes`: its spans are not in the user's file.
    from_std: bool,
}

impl WlSpans {
    /// Where to point for a problem with `field`; `at` is where the
    /// workload is used, for standard mixes whose source the user does not
    /// see.
    fn of(&self, field: Field, at: Span) -> Span {
        if self.from_std {
            return at;
        }
        match field {
            Field::Blocks => self.blocks,
            Field::Block(i) => self.block.get(i).copied().unwrap_or(self.blocks),
            Field::Read => self.read,
            Field::Random => self.random,
            Field::Align => self.align,
            Field::Offset => self.offset,
            _ => self.whole,
        }
    }
}

/// The target settings in effect, with where each was set.
#[derive(Debug, Clone, Default)]
struct TargetState {
    t: Target,
    span_at: Option<Span>,
    workers_at: Option<Span>,
    devices_at: Option<Span>,
    io_at: Option<Span>,
    data_at: Option<Span>,
}

/// What holds where a statement stands.
#[derive(Debug, Clone)]
struct Scope {
    phase: Option<String>,
    target: TargetState,
    ram_limit: Option<Bytes>,
    repeat: Option<RepeatRun>,
    vars: Vec<(String, Val)>,
    /// Directly at the top level (phases may start here only).
    top: bool,
}

/// The options of one step, each at most once.
#[derive(Default)]
struct Opts<'o> {
    passes: Option<&'o Expr>,
    qd: Option<&'o Expr>,
    read: Option<&'o Expr>,
    ramp: Option<&'o Expr>,
    record: Option<&'o Expr>,
    series: Option<&'o Expr>,
    for_: Option<&'o Expr>,
    written: Option<&'o Expr>,
    steady: Option<(Option<&'o Vec<SteadySetting>>, Span)>,
}

/// The steps of a methodology, with the target defaults they started from.
pub(crate) struct Lowered {
    pub target: Target,
    pub steps: Vec<Step>,
}

pub(crate) fn lower(ast: &Methodology, defs: &Defs<'_>, diags: &mut Vec<Diagnostic>) -> Lowered {
    let mut l = Lowerer {
        defs,
        diags: Vec::new(),
        steps: Vec::new(),
        ids: HashSet::new(),
        suffixes: HashMap::new(),
        made: 0,
        too_many: false,
        sweeps: 0,
        repeats: 0,
        phases: HashMap::new(),
        used: HashSet::new(),
        workloads: HashMap::new(),
        datasets: HashMap::new(),
        lets: HashMap::new(),
        evaluating: Vec::new(),
    };
    let mut defaults = TargetState::default();
    let settings: Vec<TargetSetting> = defs.target.iter().map(|s| (*s).clone()).collect();
    l.apply_target(&mut defaults, &settings, &[]);
    let mut scope = Scope {
        phase: None,
        target: defaults.clone(),
        ram_limit: None,
        repeat: None,
        vars: Vec::new(),
        top: true,
    };
    for item in &ast.items {
        match &item.kind {
            // The top-level target block sets the defaults, wherever it is.
            ItemKind::Stmt(Stmt { kind: StmtKind::Target(_), .. }) => {}
            ItemKind::Stmt(stmt) => l.stmt(stmt, &mut scope),
            _ => {}
        }
    }
    // Definitions no step uses are checked too; the warning that they are
    // unused is noise while errors stop the methodology.
    let unused = l.unused();
    let clean = l.error_count() == 0 && !diags.iter().any(|d| d.is_error());
    if clean {
        for (span, name, kind) in unused {
            let d = Diagnostic::new(Code::Unused, span, format!("{kind} `{name}` is never used"))
                .with_hint("remove it, or use it in a step");
            l.error(d);
        }
    }
    if l.steps.is_empty() && clean {
        let at = ast.items.first().map_or(Span::new(0, 0), |i| i.span);
        l.diags.push(
            Diagnostic::new(Code::NoSteps, at, "this methodology has no steps")
                .with_hint("add a phase with steps, such as `measure rnd4k qd 32 for 60s`"),
        );
    }
    diags.extend(l.diags);
    Lowered { target: defaults.t, steps: l.steps }
}

struct Lowerer<'d, 'a> {
    defs: &'d Defs<'a>,
    diags: Vec<Diagnostic>,
    steps: Vec<Step>,
    ids: HashSet<String>,
    suffixes: HashMap<String, u32>,
    /// Steps and round cells made so far, against [`MAX_STEPS`].
    made: usize,
    /// [`MAX_STEPS`] was passed: lowering stops.
    too_many: bool,
    sweeps: u32,
    repeats: u32,
    /// Phases by the slug their step ids start with: name and span.
    phases: HashMap<String, (String, Span)>,
    used: HashSet<String>,
    workloads: HashMap<String, Option<Rc<Wl>>>,
    datasets: HashMap<String, Option<Rc<Dataset>>>,
    lets: HashMap<String, Option<Val>>,
    evaluating: Vec<String>,
}

impl Lowerer<'_, '_> {
    fn error(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    fn error_count(&self) -> usize {
        self.diags.iter().filter(|d| d.is_error()).count()
    }

    /// A problem from `rules`, at `span`.
    fn problem(&mut self, p: Problem, span: Span) -> Diagnostic {
        let mut d = Diagnostic::new(p.code, span, p.message);
        if let Some(h) = p.hint {
            d = d.with_hint(h);
        }
        d
    }

    // ------------------------------------------------------------ statements

    fn block(&mut self, stmts: &[Stmt], scope: &mut Scope) {
        for stmt in stmts {
            if self.too_many {
                return;
            }
            self.stmt(stmt, scope);
        }
    }

    /// Counts one more step or round cell; past [`MAX_STEPS`] reports the
    /// methodology as too large, once, and stops lowering.
    fn room(&mut self, span: Span) -> bool {
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

    fn stmt(&mut self, stmt: &Stmt, scope: &mut Scope) {
        match &stmt.kind {
            StmtKind::Phase { name, body } => {
                if !scope.top || scope.phase.is_some() {
                    let d =
                        Diagnostic::new(Code::Misplaced, stmt.span, "a phase cannot be inside another block")
                            .with_label("this phase is nested")
                            .with_hint(
                                "phases go at the top level; a `for` or `repeat` can go inside a phase",
                            );
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
            StmtKind::For { var, list, body } => {
                let Some(values) = self.loop_values(var, list, scope) else {
                    return;
                };
                for v in values {
                    let mut inner = scope.clone();
                    inner.top = false;
                    inner.vars.push((var.node.clone(), v));
                    self.block(&body.stmts, &mut inner);
                    if self.too_many {
                        break;
                    }
                }
            }
            StmtKind::Repeat { count, aggregate, body } => {
                if scope.repeat.is_some() {
                    let d = Diagnostic::new(
                        Code::Misplaced,
                        stmt.span,
                        "a repeat cannot be inside another repeat",
                    )
                    .with_hint("repeat the outer block more times instead");
                    self.error(d);
                    return;
                }
                let Some((runs, _)) = self.expect_count(count, &scope.vars, "`repeat`") else {
                    return;
                };
                if runs == 0 {
                    let d = Diagnostic::new(Code::ZeroCount, count.span, "`repeat 0` runs nothing")
                        .with_hint("repeat at least once; 5 runs are usual to see run-to-run variation");
                    self.error(d);
                    return;
                }
                if runs > MAX_REPEATS {
                    let d = Diagnostic::new(
                        Code::TooLarge,
                        count.span,
                        format!("`repeat {runs}` is more than the {MAX_REPEATS} runs methodic makes"),
                    )
                    .with_hint("5 runs are usual; repeat fewer times");
                    self.error(d);
                    return;
                }
                let runs = runs as u32;
                self.repeats += 1;
                let group = self.repeats;
                let aggregate = aggregate.as_ref().map_or(Aggregate::Mean, |a| a.node);
                for run in 1..=runs {
                    let mut inner = scope.clone();
                    inner.top = false;
                    inner.repeat = Some(RepeatRun { group, run, runs, aggregate });
                    self.block(&body.stmts, &mut inner);
                    if self.too_many {
                        break;
                    }
                }
            }
            StmtKind::Rounds { body, rule } => self.rounds(stmt, body, rule, scope),
            StmtKind::Target(settings) => {
                let vars = scope.vars.clone();
                self.apply_target(&mut scope.target, settings, &vars);
            }
            StmtKind::LimitRam(limit) => {
                let limit = match limit {
                    None => None,
                    Some(e) => {
                        let Some((b, span)) = self.expect_size(e, &scope.vars, "`limit_ram`") else {
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
            StmtKind::Fill { workload, opts } => self.fill(stmt.span, workload, opts, scope),
            StmtKind::Precondition { workload, opts } => self.precondition(stmt.span, workload, opts, scope),
            StmtKind::Sweep { workload, opts } => self.sweep(stmt.span, workload, opts, scope),
            StmtKind::Measure { workload, opts } => self.measure(stmt.span, workload, opts, scope),
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

    /// The values a `for` loops over, once its variable is known not to
    /// hide another name.
    fn loop_values(&mut self, var: &Spanned<String>, list: &Expr, scope: &Scope) -> Option<Vec<Val>> {
        let def = self.defs.names.get(&var.node);
        if def.is_some() || scope.vars.iter().any(|(n, _)| *n == var.node) {
            let what = match def {
                Some(def) => format!("the {} `{}`", def.kind(), var.node),
                None => format!("the loop variable `{}` of an outer loop", var.node),
            };
            let mut d =
                Diagnostic::new(Code::Shadowing, var.span, format!("this loop variable hides {what}"))
                    .with_hint(format!("name the loop variable something else, such as `each_{}`", var.node));
            if let Some(def) = def {
                if !matches!(def, Def::Workload { from_std: true, .. }) {
                    d = d.with_secondary(def.name_span(), "defined here");
                }
            }
            self.error(d);
            return None;
        }
        self.expect_list(list, &scope.vars, "`for`")
    }

    fn opts<'o>(&mut self, opts: &'o [StepOpt]) -> Opts<'o> {
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
                StepOptKind::Steady(rule) => {
                    out.steady = Some((rule.as_ref(), opt.span));
                    "until steady"
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

    fn missing(&mut self, span: Span, step: &str, what: &str, example: &str) {
        let d = Diagnostic::new(Code::MissingOption, span, format!("`{step}` needs {what}"))
            .with_hint(format!("add it, as in `{example}`"));
        self.error(d);
    }

    fn fill(&mut self, span: Span, workload: &WorkloadRef, opts: &[StepOpt], scope: &Scope) {
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

    fn precondition(&mut self, span: Span, workload: &WorkloadRef, opts: &[StepOpt], scope: &Scope) {
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
    fn steady_rule(
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
                        .expect_percent(e, &scope.vars, "`excursion`")
                        .map(|(p, _)| rule.excursion = p)
                        .is_some();
                    "excursion"
                }
                SteadySettingKind::Slope(e) => {
                    ok &=
                        self.expect_percent(e, &scope.vars, "`slope`").map(|(p, _)| rule.slope = p).is_some();
                    "slope"
                }
                SteadySettingKind::Metric(m) => {
                    rule.metric = m.node;
                    "metric"
                }
                SteadySettingKind::Track(_) => {
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

    fn sweep(&mut self, span: Span, workload: &WorkloadRef, opts: &[StepOpt], scope: &Scope) {
        let o = self.opts(opts);
        let points = self.sweep_points(span, workload, &o, scope);
        let record = points.as_ref().map(|(_, _, record)| *record);
        let series = self.series(o.series, scope, record);
        let (Some((points, ramp, record)), Some(series)) = (points, series) else {
            return;
        };
        self.sweeps += 1;
        let sweep = self.sweeps;
        for (workload, qd) in points {
            let stop = MeasureStop { time: Some(record), written: None };
            self.emit(scope, Action::Measure { workload, qd, ramp, stop, series }, span, Some(sweep));
            if self.too_many {
                return;
            }
        }
    }

    /// What a sweep measures: a (workload, queue depth) pair per point,
    /// read shares outside and queue depths inside, with its ramp and
    /// record time. Shared by sweeps as steps and sweeps in rounds.
    fn sweep_points(
        &mut self,
        span: Span,
        workload: &WorkloadRef,
        o: &Opts<'_>,
        scope: &Scope,
    ) -> Option<(Vec<(Workload, Qd)>, Duration, Duration)> {
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
    fn read_variants(&mut self, wl: &Wl, reads: Option<Vec<Val>>) -> Option<Vec<Workload>> {
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

    fn measure(&mut self, span: Span, workload: &WorkloadRef, opts: &[StepOpt], scope: &Scope) {
        let o = self.opts(opts);
        // Checked against the target at once, so that its problems show
        // even when another option of the step is wrong.
        let wl =
            self.workload_ref(workload, scope).filter(|w| self.check_workload_at(w, workload.span(), scope));
        let qd = match o.qd {
            Some(e) => self.qd(e, scope),
            None => {
                self.missing(span, "measure", "a queue depth", "measure w qd 32 for 60s");
                None
            }
        };
        let time = match o.for_ {
            Some(e) => self.expect_nonzero_duration(e, &scope.vars, "`for`").map(|(d, _)| Some(d)),
            None => Some(None),
        };
        let written = match o.written {
            Some(e) => self.written(e, scope).map(Some),
            None => Some(None),
        };
        if o.for_.is_none() && o.written.is_none() {
            self.missing(
                span,
                "measure",
                "`for` a time or `until written` a size",
                "measure w qd 32 for 60s",
            );
            return;
        }
        let ramp = self.ramp(o.ramp, scope);
        let series = self.series(o.series, scope, time.flatten());
        let (Some(wl), Some(qd), Some(time), Some(written), Some(ramp), Some(series)) =
            (wl, qd, time, written, ramp, series)
        else {
            return;
        };
        if written.is_some() && !wl.w.writes() {
            let d = Diagnostic::new(
                Code::ConflictingOption,
                workload.span(),
                format!("`until written` never ends: `{}` only reads", wl.w.name),
            )
            .with_hint("use `for` a time, or a workload that writes");
            self.error(d);
            return;
        }
        let stop = MeasureStop { time, written };
        self.emit(scope, Action::Measure { workload: wl.w.clone(), qd, ramp, stop, series }, span, None);
    }

    fn written(&mut self, e: &Expr, scope: &Scope) -> Option<Extent> {
        let (x, span) = self.expect_extent(e, &scope.vars, "`until written`")?;
        let zero = match x {
            Extent::Percent(p) => p == Percent::ZERO,
            Extent::Bytes(b) => b.0 == 0,
        };
        if zero {
            let d = Diagnostic::new(Code::ZeroSize, span, "`until written` nothing stops at once").with_hint(
                "give the amount to write, such as `until written 300GB` or `until written 400%` of the span",
            );
            self.error(d);
            return None;
        }
        Some(x)
    }

    fn ramp(&mut self, e: Option<&Expr>, scope: &Scope) -> Option<Duration> {
        match e {
            None => Some(Duration::ZERO),
            Some(e) => self.expect_duration(e, &scope.vars, "`ramp`").map(|(d, _)| d),
        }
    }

    /// The interval of the per-second series; 1s unless given, and no
    /// longer than `length`, the time the step records (or a round).
    fn series(&mut self, e: Option<&Expr>, scope: &Scope, length: Option<Duration>) -> Option<Duration> {
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

    fn rounds(&mut self, stmt: &Stmt, body: &Block, rule: &[SteadySetting], scope: &Scope) {
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
        let track = rule.iter().find_map(|s| match &s.kind {
            SteadySettingKind::Track(w) => Some((w, s.span)),
            _ => None,
        });
        let index = match track {
            None if cells.len() == 1 => 0,
            None => {
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
                return;
            }
            Some((w, span)) => {
                let Some(tracked) = self.workload_ref(w, scope) else {
                    return;
                };
                let matches: Vec<usize> = cells
                    .iter()
                    .enumerate()
                    .filter(|(_, (c, _))| c.workload.same_io(&tracked.w))
                    .map(|(i, _)| i)
                    .collect();
                match matches.as_slice() {
                    [one] => *one,
                    [] => {
                        let d = Diagnostic::new(
                            Code::BadTrack,
                            span,
                            format!("`{}` is none of the measurements of these rounds", tracked.w.name),
                        )
                        .with_hint("track a workload that the rounds measure, written the same way");
                        self.error(d);
                        return;
                    }
                    many => {
                        let qds: Vec<String> =
                            many.iter().map(|i| cells[*i].0.qd.total.to_string()).collect();
                        let d = Diagnostic::new(
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
                            "track needs exactly one measurement; measure the tracked workload once a round",
                        );
                        self.error(d);
                        return;
                    }
                }
            }
        };
        let cells = cells.into_iter().map(|(c, _)| c).collect();
        self.emit(scope, Action::Rounds { cells, track: index as u32, rule: steady }, stmt.span, None);
    }

    /// The measurements of a `rounds` body.
    fn cells(&mut self, stmts: &[Stmt], scope: &Scope, out: &mut Vec<(Cell, Span)>) {
        for stmt in stmts {
            if self.too_many {
                return;
            }
            match &stmt.kind {
                StmtKind::For { var, list, body } => {
                    let Some(values) = self.loop_values(var, list, scope) else {
                        continue;
                    };
                    for v in values {
                        let mut inner = scope.clone();
                        inner.vars.push((var.node.clone(), v));
                        self.cells(&body.stmts, &inner, out);
                        if self.too_many {
                            break;
                        }
                    }
                }
                StmtKind::Measure { workload, opts } => {
                    let o = self.opts(opts);
                    if o.written.is_some() || o.series.is_some() {
                        let d = Diagnostic::new(
                            Code::Misplaced,
                            stmt.span,
                            "a measurement in rounds runs for a fixed time and records one value a round",
                        )
                        .with_hint("use `for` a time, without `until written` or `series`");
                        self.error(d);
                        continue;
                    }
                    // Checked against the target at once, so that its problems show
                    // even when another option of the step is wrong.
                    let wl = self
                        .workload_ref(workload, scope)
                        .filter(|w| self.check_workload_at(w, workload.span(), scope));
                    let qd = match o.qd {
                        Some(e) => self.qd(e, scope),
                        None => {
                            self.missing(stmt.span, "measure", "a queue depth", "measure w qd 32 for 1min");
                            None
                        }
                    };
                    let record = match o.for_ {
                        Some(e) => self.expect_nonzero_duration(e, &scope.vars, "`for`").map(|(d, _)| d),
                        None => {
                            self.missing(stmt.span, "measure", "`for` a time", "measure w qd 32 for 1min");
                            None
                        }
                    };
                    let ramp = self.ramp(o.ramp, scope);
                    let (Some(wl), Some(qd), Some(record), Some(ramp)) = (wl, qd, record, ramp) else {
                        continue;
                    };
                    if !self.room(stmt.span) {
                        return;
                    }
                    out.push((Cell { workload: wl.w.clone(), qd, ramp, record }, stmt.span));
                }
                StmtKind::Sweep { workload, opts } => {
                    let o = self.opts(opts);
                    if o.series.is_some() {
                        let d = Diagnostic::new(
                            Code::Misplaced,
                            stmt.span,
                            "a measurement in rounds records one value a round, not a series",
                        )
                        .with_hint("remove `series`");
                        self.error(d);
                        continue;
                    }
                    let Some((points, ramp, record)) = self.sweep_points(stmt.span, workload, &o, scope)
                    else {
                        continue;
                    };
                    for (workload, qd) in points {
                        if !self.room(stmt.span) {
                            return;
                        }
                        out.push((Cell { workload, qd, ramp, record }, stmt.span));
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

    fn probe(&mut self, span: Span, settings: &[ProbeSetting], scope: &Scope) {
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
                    io = self.expect_size(e, &scope.vars, "`io`").map(|(b, _)| b);
                    ok &= io.is_some();
                    "io"
                }
                ProbeSettingKind::Step(e) => {
                    step = self.expect_size(e, &scope.vars, "`step`").map(|(b, _)| b);
                    ok &= step.is_some();
                    "step"
                }
                ProbeSettingKind::Range(e) => {
                    range = self.expect_size(e, &scope.vars, "`range`").map(|(b, _)| b);
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
            if let Some(first) = at.get(name) {
                let d = Diagnostic::new(Code::DuplicateSetting, s.span, format!("`{name}` is given twice"))
                    .with_secondary(*first, "first given here");
                self.error(d);
                ok = false;
            }
            at.insert(name, s.span);
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
                if d.code == Code::Unaligned {
                    if let Some(io_at) = scope.target.io_at {
                        d = d.with_secondary(io_at, "io direct is set here");
                    }
                }
                self.error(d);
            }
            return;
        }
        self.emit(scope, Action::Probe(p), span, None);
    }

    // ------------------------------------------------------------ target

    fn apply_target(&mut self, state: &mut TargetState, settings: &[TargetSetting], vars: &[(String, Val)]) {
        let mut seen: Vec<(&'static str, Span)> = Vec::new();
        let mut set_here: Vec<Field> = Vec::new();
        for s in settings {
            let name = match &s.kind {
                TargetSettingKind::Span(e) => {
                    if let Some((x, _)) = self.expect_extent(e, vars, "`span`") {
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
                TargetSettingKind::Data(d) => {
                    let pattern = match d {
                        DataPatternExpr::Random => Some(DataPattern::Random),
                        DataPatternExpr::Zeros => Some(DataPattern::Zeros),
                        DataPatternExpr::Compressible(e) => self
                            .expect_percent(e, vars, "`compressible`")
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
            if d.code == Code::WorkerLayout {
                if let Some(dev) = state.devices_at {
                    d = d.with_secondary(dev, "devices set here");
                }
            }
            self.error(d);
        }
    }

    /// Checks a workload against the target it runs on: sector alignment
    /// under `io direct`, and a span in bytes that must hold its blocks.
    fn check_workload_at(&mut self, wl: &Wl, at: Span, scope: &Scope) -> bool {
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

    fn qd(&mut self, e: &Expr, scope: &Scope) -> Option<Qd> {
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

    fn qd_val(&mut self, v: &Val, scope: &Scope) -> Option<Qd> {
        let Value::Int(n) = v.value else {
            let d = expected(Code::ExpectedCount, "a queue depth (a whole number such as 32)", "`qd`", v);
            self.error(d);
            return None;
        };
        self.split_qd(n, v.span, scope)
    }

    fn split_qd(&mut self, value: u64, span: Span, scope: &Scope) -> Option<Qd> {
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

    // ------------------------------------------------------------ steps

    fn emit(&mut self, scope: &Scope, action: Action, span: Span, sweep: Option<u32>) {
        if !self.room(span) {
            return;
        }
        if action.writes() {
            if let Some(nd) = self.defs.non_destructive {
                let d = Diagnostic::new(
                    Code::Destructive,
                    span,
                    format!(
                        "this {} writes to the target, but the methodology is non_destructive",
                        action.kind()
                    ),
                )
                .with_secondary(nd, "declared non_destructive here")
                .with_hint("remove `non_destructive`, or make the step read only");
                self.error(d);
                return;
            }
        }
        let target = action.touches_target().then_some(scope.target.t);
        let establishes_state = action.establishes_state();
        let id = self.unique_id(step_id(scope.phase.as_deref(), &action, scope.repeat.as_ref()));
        let estimate = estimate::step(&action, target.as_ref());
        self.steps.push(Step {
            id,
            phase: scope.phase.clone(),
            action,
            target,
            ram_limit: scope.ram_limit,
            repeat: scope.repeat,
            sweep,
            establishes_state,
            estimate,
        });
    }

    /// `base`, or `base-2`, `base-3`, ... when taken. The next suffix to
    /// try is kept per base, so that many repeats of one step stay linear.
    fn unique_id(&mut self, base: String) -> String {
        let next = self.suffixes.entry(base.clone()).or_insert(1);
        let mut id = if *next == 1 { base.clone() } else { format!("{base}-{next}") };
        while self.ids.contains(&id) {
            *next += 1;
            id = format!("{base}-{next}");
        }
        *next += 1;
        self.ids.insert(id.clone());
        id
    }

    /// The definitions no step uses, checked as if they were used.
    fn unused(&mut self) -> Vec<(Span, String, &'static str)> {
        let mut unused: Vec<(Span, String, &'static str)> = Vec::new();
        for (name, def) in &self.defs.names {
            if matches!(def, Def::Workload { from_std: true, .. }) || self.used.contains(name) {
                continue;
            }
            unused.push((def.name_span(), name.clone(), def.kind()));
        }
        for (span, name, _) in &unused {
            self.lookup(name, *span, &[]);
        }
        unused
    }

    // ------------------------------------------------------------ values

    fn eval(&mut self, e: &Expr, vars: &[(String, Val)]) -> Option<Val> {
        let value = match &e.kind {
            ExprKind::Int(n) => Value::Int(*n),
            ExprKind::Size(b) => Value::Size(*b),
            ExprKind::Duration(d) => Value::Duration(*d),
            ExprKind::Percent(p) => Value::Percent(*p),
            ExprKind::Ident(name) => return self.lookup(name, e.span, vars),
            ExprKind::List(items) => {
                let mut out: Vec<Val> = Vec::with_capacity(items.len());
                for item in items {
                    let v = self.eval(item, vars)?;
                    if let Value::List(_) = v.value {
                        let d =
                            Diagnostic::new(Code::ExpectedList, item.span, "a list cannot hold another list")
                                .with_hint("write the values in one list");
                        self.error(d);
                        return None;
                    }
                    if let Some(first) = out.first() {
                        if kind_name(&v.value) != kind_name(&first.value) {
                            let d = Diagnostic::new(
                                Code::MixedList,
                                item.span,
                                format!(
                                    "this list mixes {} and {}",
                                    plural(kind_name(&first.value)),
                                    plural(kind_name(&v.value))
                                ),
                            )
                            .with_secondary(first.span, "the list starts with this")
                            .with_hint("a list holds values of one kind");
                            self.error(d);
                            return None;
                        }
                    }
                    out.push(v);
                }
                Value::List(out)
            }
            ExprKind::Range { from, to, step } => {
                return self.range(from, to, step.as_ref(), e.span, vars);
            }
        };
        Some(Val { value, span: e.span })
    }

    fn lookup(&mut self, name: &str, span: Span, vars: &[(String, Val)]) -> Option<Val> {
        if let Some((_, v)) = vars.iter().rev().find(|(n, _)| n == name) {
            return Some(v.clone());
        }
        let Some(def) = self.defs.names.get(name).copied() else {
            let mut candidates: Vec<&str> = vars.iter().map(|(n, _)| n.as_str()).collect();
            candidates.extend(self.defs.names.keys().map(String::as_str));
            let mut d = Diagnostic::new(Code::UnknownName, span, format!("`{name}` is not defined"));
            let std_mix = stdlib::mixes()
                .items
                .iter()
                .any(|i| matches!(&i.kind, ItemKind::Workload { name: n, .. } if n.node == name));
            if std_mix && !self.defs.uses.iter().any(|u| u == "std.mixes") {
                d = d.with_hint(format!("`{name}` is a standard mix: add `use std.mixes` to bring it in"));
            } else if let Some(s) = did_you_mean(name, candidates.iter().copied()) {
                d = d.with_hint(format!("did you mean `{s}`?"));
            } else if is_reserved(name) {
                d = d.with_hint(format!("`{name}` is a keyword"));
            } else {
                d = d.with_hint("define it with `workload`, `dataset` or `let`");
            }
            self.error(d);
            return None;
        };
        self.used.insert(name.to_string());
        match def {
            Def::Let { value, .. } => {
                if let Some(cached) = self.lets.get(name) {
                    return cached.clone();
                }
                if self.evaluating.iter().any(|n| n == name) {
                    let d = Diagnostic::new(
                        Code::CyclicLet,
                        span,
                        format!("`{name}` is defined in terms of itself"),
                    )
                    .with_secondary(def.name_span(), "defined here")
                    .with_hint("give the variable a value that does not refer back to it");
                    self.error(d);
                    return None;
                }
                self.evaluating.push(name.to_string());
                let v = self.eval(value, &[]);
                self.evaluating.pop();
                self.lets.insert(name.to_string(), v.clone());
                v
            }
            Def::Workload { body, from_std, .. } => {
                if let Some(cached) = self.workloads.get(name) {
                    return cached.clone().map(|w| Val { value: Value::Workload(w), span });
                }
                let w = self.workload_body(Some(name), body, &[], from_std).map(Rc::new);
                self.workloads.insert(name.to_string(), w.clone());
                w.map(|w| Val { value: Value::Workload(w), span })
            }
            Def::Dataset { settings, span: def_span, .. } => {
                if let Some(cached) = self.datasets.get(name) {
                    return cached.clone().map(|d| Val { value: Value::Dataset(d), span });
                }
                let d = self.dataset(name, settings, def_span).map(Rc::new);
                self.datasets.insert(name.to_string(), d.clone());
                d.map(|d| Val { value: Value::Dataset(d), span })
            }
        }
    }

    fn range(
        &mut self,
        from: &Expr,
        to: &Expr,
        step: Option<&RangeStep>,
        span: Span,
        vars: &[(String, Val)],
    ) -> Option<Val> {
        let a = self.eval(from, vars)?;
        let b = self.eval(to, vars)?;
        let raw = |v: &Value| -> Option<u64> {
            match v {
                Value::Int(n) => Some(*n),
                Value::Size(b) => Some(b.0),
                Value::Duration(d) => Some(d.as_millis()),
                Value::Percent(p) => Some(p.hundredths() as u64),
                _ => None,
            }
        };
        let (Some(lo), Some(hi)) = (raw(&a.value), raw(&b.value)) else {
            let d = Diagnostic::new(
                Code::BadRange,
                span,
                "a range runs between numbers, sizes, durations or shares",
            )
            .with_hint("write a range such as `1..256 step x2` or `0%..100% step 10%`");
            self.error(d);
            return None;
        };
        if kind_name(&a.value) != kind_name(&b.value) {
            let d = Diagnostic::new(
                Code::BadRange,
                span,
                format!("this range runs from {} to {}", describe(&a.value), describe(&b.value)),
            )
            .with_hint("both ends of a range are of one kind: `1..256`, `0%..100%`");
            self.error(d);
            return None;
        }
        if lo > hi {
            let d = Diagnostic::new(
                Code::BadRange,
                span,
                format!("this range counts down from {} to {}", show(&a.value), show(&b.value)),
            )
            .with_hint(format!("ranges count up: `{}..{}`", show(&b.value), show(&a.value)));
            self.error(d);
            return None;
        }
        enum Next {
            Add(u64),
            Mul(u64),
        }
        let next = match step {
            None if matches!(a.value, Value::Int(_)) => Next::Add(1),
            None => {
                let d = Diagnostic::new(
                    Code::BadRange,
                    span,
                    format!("a range of {} needs a step", plural(kind_name(&a.value))),
                )
                .with_hint("add one, such as `step 10%` or `step x2`");
                self.error(d);
                return None;
            }
            Some(RangeStep::Mul(f)) => {
                if f.node < 2 {
                    let d =
                        Diagnostic::new(Code::BadRange, f.span, format!("`step x{}` never grows", f.node))
                            .with_hint("multiply by 2 or more: `step x2`");
                    self.error(d);
                    return None;
                }
                if lo == 0 {
                    let d = Diagnostic::new(
                        Code::BadRange,
                        from.span,
                        "a range from 0 cannot grow by multiplying",
                    )
                    .with_hint("start at 1: `1..256 step x2`");
                    self.error(d);
                    return None;
                }
                Next::Mul(f.node)
            }
            Some(RangeStep::Add(e)) => {
                let s = self.eval(e, vars)?;
                if kind_name(&s.value) != kind_name(&a.value) {
                    let d = Diagnostic::new(
                        Code::BadRange,
                        e.span,
                        format!(
                            "a range of {} cannot step by {}",
                            plural(kind_name(&a.value)),
                            describe(&s.value)
                        ),
                    )
                    .with_hint(format!(
                        "step by {} such as `{}`",
                        article(kind_name(&a.value)),
                        show(&a.value)
                    ));
                    self.error(d);
                    return None;
                }
                match raw(&s.value) {
                    Some(0) | None => {
                        let d = Diagnostic::new(Code::BadRange, e.span, "a step of zero never ends")
                            .with_hint("step by more than zero");
                        self.error(d);
                        return None;
                    }
                    Some(n) => Next::Add(n),
                }
            }
        };
        const MAX_VALUES: usize = 1_000_000;
        let mut values = Vec::new();
        let mut x = lo;
        loop {
            if values.len() >= MAX_VALUES {
                let d = Diagnostic::new(
                    Code::BadRange,
                    span,
                    format!("this range has more than {MAX_VALUES} values"),
                )
                .with_hint("use a larger step");
                self.error(d);
                return None;
            }
            let value = match a.value {
                Value::Int(_) => Value::Int(x),
                Value::Size(_) => Value::Size(Bytes(x)),
                Value::Duration(_) => Value::Duration(Duration::from_millis(x)),
                _ => Value::Percent(Percent::from_hundredths(x.min(u32::MAX as u64) as u32)),
            };
            values.push(Val { value, span });
            let n = match next {
                Next::Add(s) => x.checked_add(s),
                Next::Mul(f) => x.checked_mul(f),
            };
            match n {
                Some(n) if n <= hi => x = n,
                _ => break,
            }
        }
        Some(Val { value: Value::List(values), span })
    }

    // ------------------------------------------------------------ typed values

    fn expect_duration(&mut self, e: &Expr, vars: &[(String, Val)], what: &str) -> Option<(Duration, Span)> {
        let v = self.scalar(e, vars, what)?;
        match v.value {
            Value::Duration(d) => Some((d, v.span)),
            Value::Int(n) => {
                let d = expected(Code::ExpectedDuration, "a duration such as 30s or 5min", what, &v)
                    .with_hint(format!("add a unit: {n}s, {n}min or {n}h"));
                self.error(d);
                None
            }
            _ => {
                let d = expected(Code::ExpectedDuration, "a duration such as 30s or 5min", what, &v);
                self.error(d);
                None
            }
        }
    }

    fn expect_nonzero_duration(
        &mut self,
        e: &Expr,
        vars: &[(String, Val)],
        what: &str,
    ) -> Option<(Duration, Span)> {
        let (d, span) = self.expect_duration(e, vars, what)?;
        if d.is_zero() {
            let diag = Diagnostic::new(Code::ZeroDuration, span, format!("{what} of zero lets no time pass"))
                .with_hint("give a duration of more than zero, such as 30s");
            self.error(diag);
            return None;
        }
        Some((d, span))
    }

    fn expect_size(&mut self, e: &Expr, vars: &[(String, Val)], what: &str) -> Option<(Bytes, Span)> {
        let v = self.scalar(e, vars, what)?;
        match v.value {
            Value::Size(b) => Some((b, v.span)),
            Value::Int(n) => {
                let d = expected(Code::ExpectedSize, "a size such as 4KiB or 16GB", what, &v).with_hint(
                    format!("add a unit: {n}B for bytes, or a larger unit such as {n}KiB or {n}GB"),
                );
                self.error(d);
                None
            }
            _ => {
                let d = expected(Code::ExpectedSize, "a size such as 4KiB or 16GB", what, &v);
                self.error(d);
                None
            }
        }
    }

    fn expect_percent(&mut self, e: &Expr, vars: &[(String, Val)], what: &str) -> Option<(Percent, Span)> {
        let v = self.scalar(e, vars, what)?;
        match v.value {
            Value::Percent(p) => Some((p, v.span)),
            Value::Int(n) => {
                let d = expected(Code::ExpectedPercent, "a share such as 67%", what, &v)
                    .with_hint(format!("write {n}%"));
                self.error(d);
                None
            }
            _ => {
                let d = expected(Code::ExpectedPercent, "a share such as 67%", what, &v);
                self.error(d);
                None
            }
        }
    }

    fn expect_count(&mut self, e: &Expr, vars: &[(String, Val)], what: &str) -> Option<(u64, Span)> {
        let v = self.scalar(e, vars, what)?;
        match v.value {
            Value::Int(n) => Some((n, v.span)),
            _ => {
                let d = expected(Code::ExpectedCount, "a whole number", what, &v);
                self.error(d);
                None
            }
        }
    }

    /// A whole number that fits a u32 (counts of workers, rounds, passes).
    fn expect_u32(&mut self, e: &Expr, vars: &[(String, Val)], what: &str) -> Option<(u32, Span)> {
        let (n, span) = self.expect_count(e, vars, what)?;
        match u32::try_from(n) {
            Ok(n) => Some((n, span)),
            Err(_) => {
                self.error(Diagnostic::new(Code::TooLarge, span, format!("{n} is too large for {what}")));
                None
            }
        }
    }

    fn expect_extent(&mut self, e: &Expr, vars: &[(String, Val)], what: &str) -> Option<(Extent, Span)> {
        let v = self.scalar(e, vars, what)?;
        match v.value {
            Value::Percent(p) => Some((Extent::Percent(p), v.span)),
            Value::Size(b) => Some((Extent::Bytes(b), v.span)),
            Value::Int(n) => {
                let d =
                    expected(Code::ExpectedSpan, "a share such as 100% or a size such as 16GiB", what, &v)
                        .with_hint(format!("write {n}% for a share of the target, or a size such as {n}GiB"));
                self.error(d);
                None
            }
            _ => {
                let d =
                    expected(Code::ExpectedSpan, "a share such as 100% or a size such as 16GiB", what, &v);
                self.error(d);
                None
            }
        }
    }

    /// One value, not a list.
    fn scalar(&mut self, e: &Expr, vars: &[(String, Val)], what: &str) -> Option<Val> {
        let v = self.eval(e, vars)?;
        if let Value::List(items) = &v.value {
            let d = Diagnostic::new(
                Code::ExpectedList,
                e.span,
                format!("expected one value for {what}, found a list of {} values", items.len()),
            )
            .with_hint("give a single value here");
            self.error(d);
            return None;
        }
        Some(v)
    }

    /// A list, or one value standing for a list of one.
    fn expect_values(&mut self, e: &Expr, vars: &[(String, Val)], what: &str) -> Option<Vec<Val>> {
        let v = self.eval(e, vars)?;
        match v.value {
            Value::List(items) if items.is_empty() => {
                let d = Diagnostic::new(Code::EmptyList, e.span, format!("{what} has an empty list"))
                    .with_hint("list at least one value");
                self.error(d);
                None
            }
            Value::List(items) => Some(items),
            _ => Some(vec![v]),
        }
    }

    /// A list for `for`: a single value is refused, as it is most likely a
    /// mistake.
    fn expect_list(&mut self, e: &Expr, vars: &[(String, Val)], what: &str) -> Option<Vec<Val>> {
        let v = self.eval(e, vars)?;
        match v.value {
            Value::List(items) if items.is_empty() => {
                let d = Diagnostic::new(
                    Code::EmptyList,
                    e.span,
                    format!("{what} over an empty list does nothing"),
                )
                .with_hint("list at least one value");
                self.error(d);
                None
            }
            Value::List(items) => Some(items),
            other => {
                let d = Diagnostic::new(
                    Code::ExpectedList,
                    e.span,
                    format!("{what} needs a list, found {}", describe(&other)),
                )
                .with_hint(format!("write `[{}]` to loop over one value", show(&other)));
                self.error(d);
                None
            }
        }
    }

    // ------------------------------------------------------------ workloads

    fn workload_ref(&mut self, w: &WorkloadRef, scope: &Scope) -> Option<Rc<Wl>> {
        match w {
            WorkloadRef::Inline(body) => self.workload_body(None, body, &scope.vars, false).map(Rc::new),
            WorkloadRef::Named(name) => {
                let e = Expr { kind: ExprKind::Ident(name.node.clone()), span: name.span };
                let v = self.eval(&e, &scope.vars)?;
                match v.value {
                    Value::Workload(w) => Some(w),
                    other => {
                        let d = Diagnostic::new(
                            Code::ExpectedWorkload,
                            name.span,
                            format!("expected a workload, but `{}` is {}", name.node, describe(&other)),
                        )
                        .with_hint(
                            "name a workload, or write one in place: `{ random; block 4KiB; read 0% }`",
                        );
                        self.error(d);
                        None
                    }
                }
            }
        }
    }

    fn workload_body(
        &mut self,
        name: Option<&str>,
        body: &WorkloadBody,
        vars: &[(String, Val)],
        from_std: bool,
    ) -> Option<Wl> {
        let mut random: Option<(Percent, Span)> = None;
        let mut blocks: Option<(Vec<(Bytes, Percent, Span)>, Span)> = None;
        let mut read: Option<(Percent, Span)> = None;
        let mut align: Option<(Bytes, Span)> = None;
        let mut offset: Option<(Bytes, Span)> = None;
        let mut ok = true;
        // (word, what it sets, span): `random` and `sequential` both set the
        // access pattern, `block` and `blocks` both the block size.
        let mut seen: Vec<(&'static str, &'static str, Span)> = Vec::new();
        for p in &body.props {
            let (word, key) = match &p.kind {
                WorkloadPropKind::Random(_) => ("random", "access"),
                WorkloadPropKind::Sequential => ("sequential", "access"),
                WorkloadPropKind::Block(_) => ("block", "block"),
                WorkloadPropKind::Blocks(_) => ("blocks", "block"),
                WorkloadPropKind::Read(_) => ("read", "read"),
                WorkloadPropKind::Align(_) => ("align", "align"),
                WorkloadPropKind::Offset(_) => ("offset", "offset"),
            };
            if let Some((first_word, _, first)) = seen.iter().find(|(_, k, _)| *k == key) {
                let d = if *first_word == word {
                    Diagnostic::new(Code::DuplicateSetting, p.span, format!("`{word}` is given twice"))
                        .with_hint("keep one of them")
                } else {
                    let what = if key == "access" { "the access pattern" } else { "the block size" };
                    Diagnostic::new(
                        Code::ConflictingProperty,
                        p.span,
                        format!("`{first_word}` and `{word}` both set {what}"),
                    )
                    .with_hint("keep one of them")
                };
                self.error(d.with_secondary(*first, "first given here"));
                ok = false;
                continue;
            }
            seen.push((word, key, p.span));
            match &p.kind {
                WorkloadPropKind::Random(None) => random = Some((Percent::HUNDRED, p.span)),
                WorkloadPropKind::Random(Some(e)) => match self.expect_percent(e, vars, "`random`") {
                    Some((v, _)) => random = Some((v, p.span)),
                    None => ok = false,
                },
                WorkloadPropKind::Sequential => random = Some((Percent::ZERO, p.span)),
                WorkloadPropKind::Block(e) => match self.expect_size(e, vars, "`block`") {
                    Some((b, s)) => blocks = Some((vec![(b, Percent::HUNDRED, s)], p.span)),
                    None => ok = false,
                },
                WorkloadPropKind::Blocks(entries) => {
                    let mut out = Vec::new();
                    for entry in entries {
                        let size = self.expect_size(&entry.size, vars, "a block size");
                        let share = self.expect_percent(&entry.share, vars, "a block share");
                        match (size, share) {
                            (Some((b, _)), Some((s, _))) => out.push((b, s, entry.span)),
                            _ => ok = false,
                        }
                    }
                    if entries.is_empty() {
                        let d = Diagnostic::new(Code::EmptyList, p.span, "`blocks` lists no block size")
                            .with_hint("list sizes with their shares: `blocks { 4KiB: 70%, 64KiB: 30% }`");
                        self.error(d);
                        ok = false;
                    }
                    blocks = Some((out, p.span));
                }
                WorkloadPropKind::Read(e) => match self.expect_percent(e, vars, "`read`") {
                    Some((v, _)) => read = Some((v, p.span)),
                    None => ok = false,
                },
                WorkloadPropKind::Align(e) => match self.expect_size(e, vars, "`align`") {
                    Some((v, _)) => align = Some((v, p.span)),
                    None => ok = false,
                },
                WorkloadPropKind::Offset(e) => match self.expect_size(e, vars, "`offset`") {
                    Some((v, _)) => offset = Some((v, p.span)),
                    None => ok = false,
                },
            }
        }
        let mut missing = Vec::new();
        if random.is_none() && !seen.iter().any(|(_, k, _)| *k == "access") {
            missing.push("an access pattern (`random` or `sequential`)");
        }
        if blocks.is_none() && !seen.iter().any(|(_, k, _)| *k == "block") {
            missing.push("a block size (`block 4KiB`)");
        }
        if read.is_none() && !seen.iter().any(|(_, k, _)| *k == "read") {
            missing.push("a read share (`read 0%` writes only)");
        }
        if !missing.is_empty() {
            let who = name.map_or("this workload".to_string(), |n| format!("workload `{n}`"));
            let d = Diagnostic::new(Code::MissingProperty, body.span, format!("{who} is missing {}", join_and(&missing)))
                .with_hint("a workload says how it accesses, what block size and how much it reads: `{ random; block 4KiB; read 70% }`");
            self.error(d);
            return None;
        }
        if !ok {
            return None;
        }
        let (Some((random, random_span)), Some((mut split, blocks_span)), Some((read, read_span))) =
            (random, blocks, read)
        else {
            return None;
        };
        split.sort_by_key(|(b, _, _)| *b);
        let smallest = split.first().map_or(Bytes(0), |(b, _, _)| *b);
        let mut w = Workload {
            name: String::new(),
            blocks: split.iter().map(|(size, share, _)| BlockShare { size: *size, share: *share }).collect(),
            read,
            random,
            align: align.map_or(smallest, |(a, _)| a),
            offset: offset.map_or(Bytes(0), |(o, _)| o),
        };
        w.name = name.map_or_else(|| w.describe(), str::to_string);
        let spans = WlSpans {
            whole: body.span,
            blocks: blocks_span,
            block: split.iter().map(|(_, _, s)| *s).collect(),
            read: read_span,
            random: random_span,
            align: align.map_or(blocks_span, |(_, s)| s),
            offset: offset.map_or(body.span, |(_, s)| s),
            from_std,
        };
        let problems = rules::workload(&w);
        if !problems.is_empty() {
            for p in problems {
                let at = spans.of(p.field, body.span);
                let d = self.problem(p, at);
                self.error(d);
            }
            return None;
        }
        Some(Wl { w, spans })
    }

    // ------------------------------------------------------------ datasets

    fn dataset(&mut self, name: &str, settings: &[DatasetSetting], span: Span) -> Option<Dataset> {
        let mut files: Option<(u64, Span)> = None;
        let mut size: Option<(Bytes, Bytes, Span)> = None;
        let mut total: Option<(Bytes, Span)> = None;
        let mut seed = 0u64;
        let mut ok = true;
        let mut seen: BTreeMap<&'static str, Span> = BTreeMap::new();
        for s in settings {
            let key = match s.key.node {
                DatasetKey::Files => "files",
                DatasetKey::Size => "size",
                DatasetKey::Total => "total",
                DatasetKey::Seed => "seed",
            };
            if let Some(first) = seen.get(key) {
                let d = Diagnostic::new(Code::DuplicateSetting, s.span, format!("`{key}` is given twice"))
                    .with_secondary(*first, "first given here");
                self.error(d);
                ok = false;
                continue;
            }
            seen.insert(key, s.span);
            match s.key.node {
                DatasetKey::Files => match self.expect_count(&s.value, &[], "`files`") {
                    Some((0, at)) => {
                        self.error(Diagnostic::new(
                            Code::ZeroCount,
                            at,
                            "a dataset of 0 files copies nothing",
                        ));
                        ok = false;
                    }
                    Some((n, at)) => files = Some((n, at)),
                    None => ok = false,
                },
                DatasetKey::Size => {
                    if let ExprKind::Range { from, to, step } = &s.value.kind {
                        if step.is_some() {
                            let d = Diagnostic::new(
                                Code::BadRange,
                                s.value.span,
                                "a size range for files takes no step",
                            )
                            .with_hint("file sizes are drawn between the two ends: `size 16KiB..2MiB`");
                            self.error(d);
                            ok = false;
                            continue;
                        }
                        let lo = self.expect_size(from, &[], "the smallest file size");
                        let hi = self.expect_size(to, &[], "the largest file size");
                        match (lo, hi) {
                            (Some((a, _)), Some((b, _))) if a > b => {
                                let d = Diagnostic::new(
                                    Code::BadDataset,
                                    s.value.span,
                                    format!("the smallest file size {a} is larger than the largest, {b}"),
                                )
                                .with_hint(format!("write the range smallest first: `{b}..{a}`"));
                                self.error(d);
                                ok = false;
                            }
                            (Some((a, _)), Some((b, _))) => size = Some((a, b, s.value.span)),
                            _ => ok = false,
                        }
                    } else {
                        match self.expect_size(&s.value, &[], "`size`") {
                            Some((b, at)) => size = Some((b, b, at)),
                            None => ok = false,
                        }
                    }
                }
                DatasetKey::Total => match self.expect_size(&s.value, &[], "`total`") {
                    Some((b, at)) => total = Some((b, at)),
                    None => ok = false,
                },
                DatasetKey::Seed => match self.expect_count(&s.value, &[], "`seed`") {
                    Some((n, _)) => seed = n,
                    None => ok = false,
                },
            }
        }
        if !ok {
            return None;
        }
        let bad = |message: String, at: Span, hint: &str| {
            Diagnostic::new(Code::BadDataset, at, message).with_hint(hint.to_string())
        };
        let Some((min, max, size_span)) = size else {
            self.error(bad(
                format!("dataset `{name}` has no file size"),
                span,
                "give a fixed size or a range: `size 1MiB` or `size 16KiB..2MiB`",
            ));
            return None;
        };
        if min.0 == 0 {
            self.error(bad("files of 0B cannot make a dataset".into(), size_span, "file sizes start at 1B"));
            return None;
        }
        const MAX_FILES: u64 = 10_000_000;
        let (files, total) = match (files, total) {
            (None, None) => {
                self.error(bad(
                    format!("dataset `{name}` has no file count or total size"),
                    span,
                    "give `files N` or `total SIZE` to say how many files to make",
                ));
                return None;
            }
            (Some((n, _)), None) => {
                if n > MAX_FILES {
                    self.error(bad(
                        format!("{n} files are more than methodic makes ({MAX_FILES})"),
                        span,
                        "use fewer, larger files",
                    ));
                    return None;
                }
                (n, Dataset::of_files(name, min, max, n, seed).total)
            }
            (None, Some((t, t_span))) => {
                if t < min {
                    self.error(bad(
                        format!("a total of {t} is less than one file of at least {min}"),
                        t_span,
                        "make the total larger than the smallest file, or the files smaller",
                    ));
                    return None;
                }
                let mut sum = 0u64;
                let mut n = 0u64;
                for s in crate::plan::size_draws(min, max, seed) {
                    if sum >= t.0 {
                        break;
                    }
                    if n >= MAX_FILES {
                        self.error(bad(
                            format!(
                                "a total of {t} in files of {min}..{max} makes more than {MAX_FILES} files"
                            ),
                            t_span,
                            "use larger files or a smaller total",
                        ));
                        return None;
                    }
                    sum += s;
                    n += 1;
                }
                if n == 0 {
                    self.error(bad("a total of 0B makes no files".into(), t_span, "give a total above 0B"));
                    return None;
                }
                (n, t)
            }
            (Some((n, n_span)), Some((t, t_span))) => {
                if min != max {
                    self.error(
                        bad(
                            "with a range of file sizes, give `files` or `total`, not both".into(),
                            t_span,
                            "the count follows from the total, or the total from the count",
                        )
                        .with_secondary(n_span, "files given here"),
                    );
                    return None;
                }
                if n.saturating_mul(min.0) != t.0 {
                    self.error(
                        bad(
                            format!("{n} files of {min} make {}, not {t}", Bytes(n.saturating_mul(min.0))),
                            t_span,
                            "give two of `files`, `size` and `total`, or make them agree",
                        )
                        .with_secondary(n_span, "files given here"),
                    );
                    return None;
                }
                (n, t)
            }
        };
        if min == max && total.0 % min.0 != 0 {
            self.error(bad(
                format!("a total of {total} is not a whole number of {min} files"),
                size_span,
                "make the total a multiple of the file size, or give `files` instead",
            ));
            return None;
        }
        let files = if min == max { total.0 / min.0 } else { files };
        Some(Dataset { name: name.to_string(), size_min: min, size_max: max, files, total, seed })
    }
}

// ---------------------------------------------------------------- ids

/// A step's id: `phase-slug/what`, from the step's content.
fn step_id(phase: Option<&str>, action: &Action, repeat: Option<&RepeatRun>) -> String {
    let what = match action {
        Action::Erase { method } => {
            format!("erase-{}", if *method == EraseMethod::Secure { "secure" } else { "discard" })
        }
        Action::Fill { workload, .. } => format!("fill-{}", slug(&workload.name)),
        Action::Precondition { workload, qd, .. } => {
            format!("precondition-{}-qd{}", slug(&workload.name), qd.total)
        }
        Action::Measure { workload, qd, .. } => format!("{}-qd{}", slug(&workload.name), qd.total),
        Action::Rounds { cells, track, .. } => {
            let tracked = cells.get(*track as usize).map_or("none".to_string(), |c| slug(&c.workload.name));
            format!("rounds-{tracked}")
        }
        Action::DropCaches => "drop-caches".to_string(),
        Action::Idle { time } => format!("idle-{time}"),
        Action::LimitRam { limit: Some(b) } => format!("limit-ram-{}", slug(&b.to_string())),
        Action::LimitRam { limit: None } => "limit-ram-none".to_string(),
        Action::Copy { dataset } => format!("copy-{}", slug(&dataset.name)),
        Action::Probe(_) => "probe-pages".to_string(),
    };
    let mut id = match phase {
        Some(p) => format!("{}/{what}", slug(p)),
        None => what,
    };
    if let Some(r) = repeat {
        id.push_str(&format!("-run{}", r.run));
    }
    id
}

/// Lower case letters (of any script), digits, `_` and `.`, with `-` for
/// anything else.
fn slug(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_alphanumeric() || c == '_' || c == '.' {
            out.extend(c.to_lowercase());
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_matches('-').to_string()
}

// ---------------------------------------------------------------- words

fn kind_name(v: &Value) -> &'static str {
    match v {
        Value::Int(_) => "number",
        Value::Size(_) => "size",
        Value::Duration(_) => "duration",
        Value::Percent(_) => "share",
        Value::Workload(_) => "workload",
        Value::Dataset(_) => "dataset",
        Value::List(_) => "list",
    }
}

fn plural(kind: &str) -> String {
    format!("{kind}s")
}

fn article(kind: &str) -> String {
    format!("a {kind}")
}

/// A value as written: `32`, `4KiB`, `the workload rnd4k`.
fn show(v: &Value) -> String {
    match v {
        Value::Int(n) => n.to_string(),
        Value::Size(b) => b.to_string(),
        Value::Duration(d) => d.to_string(),
        Value::Percent(p) => p.to_string(),
        Value::Workload(w) => w.w.name.clone(),
        Value::Dataset(d) => d.name.clone(),
        Value::List(items) => {
            let parts: Vec<String> = items.iter().map(|v| show(&v.value)).collect();
            format!("[{}]", parts.join(", "))
        }
    }
}

/// A value described for a message: `the size 4KiB`.
fn describe(v: &Value) -> String {
    match v {
        Value::Workload(w) => format!("the workload `{}`", w.w.name),
        Value::Dataset(d) => format!("the dataset `{}`", d.name),
        Value::List(items) => format!("a list of {} values", items.len()),
        other => format!("the {} {}", kind_name(other), show(other)),
    }
}

/// "expected a duration such as 30s for `ramp`, found the number 30".
fn expected(code: Code, what: &str, for_: &str, found: &Val) -> Diagnostic {
    Diagnostic::new(code, found.span, format!("expected {what} for {for_}, found {}", describe(&found.value)))
        .with_label(format!("expected {what}"))
}

fn join_and(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => one.to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

#[cfg(test)]
#[path = "lower_tests.rs"]
mod tests;
