//! `lower`: the AST and its resolved definitions go in, the plan's flat
//! list of steps comes out. Evaluates every value (lets, loop variables,
//! ranges, workloads), expands `for`, `repeat` and `sweep`, applies scoped
//! `target` and `limit_ram` settings, spreads queue depths over workers,
//! and checks each step as it is made, reporting problems at the span of
//! the value that causes them.
//!
//! Split by job: `stmts` walks statements and scopes, `steps` builds
//! each kind of step, `load` reads rates and pauses and builds `together`
//! and `qos` steps, `target` applies target settings and spreads queue
//! depths, `eval` evaluates expressions and reads typed values,
//! `workloads` writes out workloads and datasets. This module holds what they share: the values, the scope
//! and the `Lowerer` with its diagnostics, ids and the step list.

mod eval;
mod load;
mod steps;
mod stmts;
mod target;
mod workloads;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::rc::Rc;

use methodic_grammar::ast::*;
use methodic_grammar::units::{Bytes, Duration, Percent};
use methodic_grammar::{Code, Diagnostic, did_you_mean, is_reserved};

use crate::estimate;
use crate::plan::{
    Access, Action, Band, BlockShare, Bursts, Cell, DataPattern, Dataset, Extent, Job, MeasureStop, Milli,
    Pauses, Pick, Point, PreconditionStop, Probe, Qd, Qos, Rate, RateAmount, RepeatRun, SteadyRule, Step,
    Target, Think, UntilCv, Workload,
};
use crate::resolve::{Def, Defs};
use crate::rules::{self, Field, Problem};
use crate::stdlib;

/// The most steps (and round measurements) a methodology may lower to.
/// Real methodologies have thousands (SNIA PTS-E's IOPS test at its most:
/// 1,400 round measurements); the limit stops a typo in nested loops
/// from filling the memory. 100,000 steps take about 0.7 s and 150 MB to
/// lower (a release build); a loop whose first time round says it would
/// pass the limit is refused then ([`Lowerer::projected`]), before the
/// rest is made.
pub(crate) const MAX_STEPS: usize = 100_000;

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
    /// `write_block` or `write_blocks`, or the whole body without one.
    write_blocks: Span,
    /// One span per entry of `Workload::blocks` (sorted by size).
    block: Vec<Span>,
    read: Span,
    random: Span,
    align: Span,
    offset: Span,
    access: Span,
    trim: Span,
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
            Field::Access => self.access,
            Field::Trim => self.trim,
            Field::WriteBlocks => self.write_blocks,
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
    /// Set only by the top-level target block.
    write_cache: WriteCache,
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
    transferred: Option<&'o Expr>,
    steady: Option<(Option<&'o Vec<SteadySetting>>, Span)>,
    /// `rate AMOUNT UNIT [ARRIVALS]`.
    rate: Option<RateOpt<'o>>,
    workers: Option<&'o Expr>,
    device: Option<&'o Expr>,
    /// `as NAME`.
    as_: Option<&'o Spanned<String>>,
    /// `think PAUSE [every N]`.
    think: Option<(&'o Spanned<u64>, Option<&'o Expr>, bool)>,
    /// `bursts ON every PERIOD [times N]`.
    bursts: Option<(&'o Expr, &'o Expr, Option<&'o Expr>)>,
    /// `verify`, where it was written.
    verify: Option<Span>,
    /// `at PICK of NAME`, and where it was written.
    at: Option<AtOpt<'o>>,
}

/// An `at PICK of NAME [under LIMIT]` option as written, and where.
#[derive(Clone, Copy)]
struct AtOpt<'o> {
    pick: PickExpr,
    name: &'o Spanned<String>,
    under: Option<u64>,
    span: Span,
}

/// A `rate` option as written.
#[derive(Clone, Copy)]
struct RateOpt<'o> {
    amount: &'o Expr,
    unit: &'o RateUnit,
    arrivals: Option<Arrivals>,
}

/// The steps of a methodology, with the target defaults they started from.
pub(crate) struct Lowered {
    pub target: Target,
    pub write_cache: WriteCache,
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
        named: HashMap::new(),
        points: HashMap::new(),
        verify: false,
        local: false,
    };
    let mut defaults = TargetState::default();
    let settings: Vec<TargetSetting> = defs.target.iter().map(|s| (*s).clone()).collect();
    l.apply_target(&mut defaults, &settings, &[], true);
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
    // A file of definitions alone (workloads for another file to `use`)
    // gets the one warning below, not one a definition.
    if clean && !l.steps.is_empty() {
        for (span, name, kind) in unused {
            let d = Diagnostic::new(Code::Unused, span, format!("{kind} `{name}` is never used"))
                .with_hint("remove it, or use it in a step");
            l.error(d);
        }
    }
    if l.steps.is_empty() && clean {
        let at = ast.items.first().map_or(Span::new(0, 0), |i| i.span);
        l.diags.push(Diagnostic::new(Code::NoSteps, at, "this methodology has no steps").with_hint(
            "add a phase with steps, such as `measure rnd4k qd 32 for 60s`; a file of workloads \
                     alone serves others that `use \"FILE\"` it",
        ));
    }
    diags.extend(l.diags);
    Lowered { target: defaults.t, write_cache: defaults.write_cache, steps: l.steps }
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
    /// Measurements, sweeps and rounds named `as NAME` so far, for `at
    /// max of NAME`: the indices of their steps (a loop adds to them).
    points: HashMap<String, (Vec<u32>, Span)>,
    /// `verify` of the step being emitted.
    verify: bool,
    /// `local` of the step being emitted (only ever set for a step that
    /// may be local).
    local: bool,
    /// Measurements named `as NAME` so far: the index of the step the name
    /// last stood for (a loop names a new one each time round), and where.
    named: HashMap<String, (u32, Span)>,
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

    // ------------------------------------------------------------ steps

    fn emit(&mut self, scope: &Scope, action: Action, span: Span, sweep: Option<u32>) {
        if !self.room(span) {
            return;
        }
        if action.writes()
            && let Some(nd) = self.defs.non_destructive
        {
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
            verify: self.verify,
            local: self.local,
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
}

// ---------------------------------------------------------------- ids

/// A step's id: `phase-slug/what`, from the step's content.
fn step_id(phase: Option<&str>, action: &Action, repeat: Option<&RepeatRun>) -> String {
    let what = match action {
        Action::Erase { method } => {
            format!("erase-{}", method.keyword().replace(' ', "-"))
        }
        Action::Fill { workload, .. } => format!("fill-{}", slug(&workload.name)),
        Action::Precondition { workload, qd, .. } => {
            format!("precondition-{}-qd{}", slug(&workload.name), qd.total)
        }
        Action::Measure { workload, at: Some(p), .. } => {
            format!("{}-at-{}-of-{}", slug(&workload.name), p.pick.word(), slug(&p.name))
        }
        Action::Measure { workload, qd, rate: None, .. } => {
            format!("{}-qd{}", slug(&workload.name), qd.total)
        }
        Action::Measure { workload, qd, rate: Some(r), .. } => {
            let amount = match r.amount {
                RateAmount::Iops(n) => format!("{n}iops"),
                RateAmount::Bandwidth(b) => format!("{}ps", slug(&b.to_string())),
                RateAmount::Share { share, of } => format!("{}-of-step{}", slug(&share.to_string()), of + 1),
            };
            format!("{}-qd{}-rate-{amount}", slug(&workload.name), qd.total)
        }
        Action::Qos(q) => format!(
            "qos-{}-qd{}-{}-under-{}{}",
            slug(&q.workload.name),
            q.qd.total,
            slug(&q.percentile_name()),
            slug(&q.limit_name()),
            if q.by == QosAxis::Qd { "-by-qd" } else { "" }
        ),
        Action::Together { jobs, .. } => {
            let names: Vec<String> = jobs.iter().map(|j| slug(&j.name)).collect();
            format!("together-{}", names.join("-"))
        }
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
mod tests;
