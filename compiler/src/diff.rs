//! What changed between two plans, and whether old results stay
//! comparable. Works on plans, not text: a renamed workload, reordered
//! definitions, new comments or layout change nothing; a mix's read share
//! does.
//!
//! Steps are matched by what they do and where, not by id, in passes:
//! the same phase, kind, workload I/O, queue depth and repeat run; then the
//! same but in any phase (a phase renamed or moved); then the same phase,
//! kind and queue depth (a workload changed); then the same phase and kind
//! (a fill's workload or a precondition's QD changed). Inserting a step
//! therefore leaves the others matched. Each change gets a class and a
//! sentence, and names the steps whose results it touches; a change to a
//! step that sets the drive's state touches every later step that depends
//! on that state (until the next erase).

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::plan::{
    Action, IoKey, IoMode, OnError, Plan, PreconditionStop, QdCounting, Step, Target, Units, ValueKind,
    Workload,
};

/// How a change bears on comparing results, most serious first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Class {
    /// Old and new results of the affected steps measure different things.
    BreaksComparability,
    /// Steps only one version has.
    AddsRemovesSteps,
    /// The same thing measured with more or less precision.
    ShiftsPrecision,
    /// Names, descriptions, units of display, what the run does after a
    /// failed step: no number changes.
    PresentationOnly,
}

impl Class {
    pub fn word(self) -> &'static str {
        match self {
            Class::BreaksComparability => "breaks comparability",
            Class::AddsRemovesSteps => "adds or removes steps",
            Class::ShiftsPrecision => "shifts precision",
            Class::PresentationOnly => "presentation only",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Change {
    pub class: Class,
    /// `span`, `record time`, `step added`.
    pub what: String,
    pub old: String,
    pub new: String,
    /// Why the class, in a sentence.
    pub reason: String,
    /// The steps whose results the change touches: ids in the new plan
    /// (in the old one for removed steps), in plan order.
    pub steps: Vec<String>,
    /// Those steps in words: `all 10 buffered copy steps`.
    pub affected: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct PlanDiff {
    /// `consumer-copy 1.0`.
    pub old: String,
    pub new: String,
    /// Steps matched across the versions.
    pub matched: usize,
    /// Steps of the new plan whose results stay comparable with the old
    /// plan's: matched, and touched by no breaking change.
    pub comparable: Vec<String>,
    pub changes: Vec<Change>,
}

impl PlanDiff {
    pub fn breaking(&self) -> bool {
        self.changes.iter().any(|c| c.class == Class::BreaksComparability)
    }

    /// 0 no change, 1 only changes that keep results comparable, 2 a change
    /// that breaks comparability.
    pub fn exit_code(&self) -> u8 {
        if self.breaking() {
            2
        } else if self.changes.is_empty() {
            0
        } else {
            1
        }
    }

    /// `2 changes break comparability (9 of 12 steps), 1 adds or removes steps`.
    pub fn summary(&self, new_steps: usize) -> String {
        if self.changes.is_empty() {
            return format!("{} -> {}: no change; every result stays comparable", self.old, self.new);
        }
        let mut counts: BTreeMap<Class, usize> = BTreeMap::new();
        for c in &self.changes {
            *counts.entry(c.class).or_default() += 1;
        }
        let parts: Vec<String> = counts
            .iter()
            .map(|(class, n)| match class {
                Class::BreaksComparability => format!("{n} breaking"),
                Class::AddsRemovesSteps => format!("{n} adding or removing steps"),
                Class::ShiftsPrecision => format!("{n} shifting precision"),
                Class::PresentationOnly => format!("{n} presentation only"),
            })
            .collect();
        format!(
            "{} -> {}: {} {} ({}); results of {} of {} steps stay comparable",
            self.old,
            self.new,
            self.changes.len(),
            if self.changes.len() == 1 { "change" } else { "changes" },
            parts.join(", "),
            self.comparable.len(),
            new_steps
        )
    }
}

/// What a step does ([`IoKey`]), without names, lengths or settings that
/// a change can alter while it stays "the same step".
fn content_key(s: &Step) -> Vec<IoKey> {
    IoKey::of_step(s)
}

fn qd_total(s: &Step) -> Option<u32> {
    match &s.action {
        Action::Fill { qd, .. } | Action::Precondition { qd, .. } | Action::Measure { qd, .. } => {
            Some(qd.total)
        }
        _ => None,
    }
}

/// What a pass of [`match_steps`] matches steps by: the fields it leaves
/// `None` do not count.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord)]
struct MatchKey {
    phase: Option<String>,
    content: Option<Vec<IoKey>>,
    kind: Option<&'static str>,
    qd: Option<Option<u32>>,
    run: Option<u32>,
    /// The content of the steps the drive state depends on.
    context: Option<Vec<Vec<IoKey>>>,
}

/// Matches steps across versions: pairs (old index, new index), in passes
/// from the strictest key to the loosest. The strictest also asks for the
/// same drive preparation before the step, so that two identical
/// measurements around a precondition pair with their own counterparts.
/// The loosest passes compare phases through the renames the earlier
/// passes found.
fn match_steps(
    old: &Plan,
    new: &Plan,
    deps_old: &[Vec<usize>],
    deps_new: &[Vec<usize>],
) -> Vec<(usize, usize)> {
    let run = |s: &Step| s.repeat.map_or(0, |r| r.run);
    let context = |plan: &Plan, deps: &[Vec<usize>]| -> Vec<Vec<Vec<IoKey>>> {
        deps.iter().map(|deps| deps.iter().map(|d| content_key(&plan.steps[*d])).collect()).collect()
    };
    let (ctx_old, ctx_new) = (context(old, deps_old), context(new, deps_new));
    let mut used_old = vec![false; old.steps.len()];
    let mut used_new = vec![false; new.steps.len()];
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    let mut renames: BTreeMap<String, String> = BTreeMap::new();
    for pass in 0..5 {
        // A step's key in this pass; `is_old` maps old phase names through
        // the renames found so far.
        let key = |s: &Step, ctx: &[Vec<IoKey>], is_old: bool| {
            let phase = s.phase.clone().unwrap_or_default();
            let phase = if is_old { renames.get(&phase).cloned().unwrap_or(phase) } else { phase };
            let kind = s.action.kind();
            match pass {
                0 => MatchKey {
                    phase: Some(phase),
                    content: Some(content_key(s)),
                    run: Some(run(s)),
                    context: Some(ctx.to_vec()),
                    ..MatchKey::default()
                },
                1 => MatchKey {
                    phase: Some(phase),
                    content: Some(content_key(s)),
                    run: Some(run(s)),
                    ..MatchKey::default()
                },
                2 => MatchKey { content: Some(content_key(s)), run: Some(run(s)), ..MatchKey::default() },
                3 => MatchKey {
                    phase: Some(phase),
                    kind: Some(kind),
                    qd: Some(qd_total(s)),
                    run: Some(run(s)),
                    ..MatchKey::default()
                },
                _ => MatchKey { phase: Some(phase), kind: Some(kind), ..MatchKey::default() },
            }
        };
        let keyed = |steps: &[Step], ctx: &[Vec<Vec<IoKey>>], used: &[bool], is_old: bool| {
            let mut seen: BTreeMap<MatchKey, usize> = BTreeMap::new();
            let mut out: BTreeMap<(MatchKey, usize), usize> = BTreeMap::new();
            for (i, s) in steps.iter().enumerate().filter(|(i, _)| !used[*i]) {
                let k = key(s, &ctx[i], is_old);
                let n = seen.entry(k.clone()).or_default();
                *n += 1;
                out.insert((k, *n), i);
            }
            out
        };
        let a = keyed(&old.steps, &ctx_old, &used_old, true);
        let b = keyed(&new.steps, &ctx_new, &used_new, false);
        for (k, i) in &a {
            if let Some(j) = b.get(k) {
                used_old[*i] = true;
                used_new[*j] = true;
                pairs.push((*i, *j));
            }
        }
        // Each old phase goes to the new phase most of its matched steps went to.
        let mut votes: BTreeMap<(String, String), usize> = BTreeMap::new();
        for &(i, j) in &pairs {
            let (pa, pb) = (
                old.steps[i].phase.clone().unwrap_or_default(),
                new.steps[j].phase.clone().unwrap_or_default(),
            );
            *votes.entry((pa, pb)).or_default() += 1;
        }
        renames.clear();
        let mut best: BTreeMap<String, (usize, String)> = BTreeMap::new();
        for ((pa, pb), n) in votes {
            let e = best.entry(pa).or_insert((0, String::new()));
            if n > e.0 {
                *e = (n, pb);
            }
        }
        renames.extend(best.into_iter().map(|(pa, (_, pb))| (pa, pb)));
        // A phase none of whose steps matched takes the name of the new
        // phase in its place, if that one is nobody's yet.
        let order = |plan: &Plan| {
            let mut v: Vec<String> = Vec::new();
            for st in &plan.steps {
                let p = st.phase.clone().unwrap_or_default();
                if !v.contains(&p) {
                    v.push(p);
                }
            }
            v
        };
        let (phases_old, phases_new) = (order(old), order(new));
        for (k, pa) in phases_old.iter().enumerate() {
            if renames.contains_key(pa) {
                continue;
            }
            if let Some(pb) = phases_new.get(k) {
                if !renames.values().any(|v| v == pb) && !phases_old.contains(pb) {
                    renames.insert(pa.clone(), pb.clone());
                }
            }
        }
    }
    pairs.sort();
    pairs
}

/// For each step, the steps before it that its drive state depends on
/// ([`affects_state`]), since the last erase (the erase included), in order.
fn dependencies(plan: &Plan) -> Vec<Vec<usize>> {
    let mut current: Vec<usize> = Vec::new();
    plan.steps
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let before = current.clone();
            if matches!(s.action, Action::Erase { .. }) {
                current = vec![i];
            } else if affects_state(s) {
                current.push(i);
            }
            before
        })
        .collect()
}

/// Whether later results depend on this step having run as it did: it
/// sets the drive's state (erase, fill, a writing precondition or rounds),
/// writes an amount (until written), or lets the drive recover (idle).
fn affects_state(s: &Step) -> bool {
    s.establishes_state
        || matches!(s.action, Action::Idle { .. })
        || matches!(&s.action, Action::Measure { stop, workload, .. } if stop.written.is_some() && workload.writes())
}

/// Changes group by class, what, old, new, reason and which plan their
/// steps are in.
type GroupKey = (Class, String, String, String, String, bool);

/// A raw change before grouping.
struct Raw {
    class: Class,
    what: String,
    old: String,
    new: String,
    reason: String,
    /// Indices in the new plan (or the old one when `in_old`).
    steps: Vec<usize>,
    in_old: bool,
}

fn raw(class: Class, what: &str, old: String, new: String, reason: &str, steps: Vec<usize>) -> Raw {
    Raw { class, what: what.into(), old, new, reason: reason.into(), steps, in_old: false }
}

/// Changes to a step that alter what it leaves on the drive.
const DRIVE: &[&str] = &[
    "erase method",
    "fill passes",
    "precondition length or stop rule",
    "workload",
    "queue depth",
    "workers",
    "span",
    "data pattern",
    "devices",
    "until written",
    "record time",
    "idle time",
    "steady-state rule",
    "rounds measurements",
];

const PREPARATION: &str =
    "the drive is prepared differently, so it is in another state when the measurements run";
const WORKLOAD: &str =
    "the I/O itself is different: other block sizes, read or random share measure other things";
const SPAN: &str =
    "a different span covers another share of the drive; a small span leaves spare area and fits caches";
const CACHE: &str =
    "the page cache serves a different share of the I/O: results measure more or less of the drive";

fn io_word(io: IoMode) -> String {
    match io {
        IoMode::Direct => "direct".into(),
        IoMode::Buffered => "buffered".into(),
    }
}

/// The differences of one matched pair of steps (old `a`, new `b`; `j` is
/// b's index), besides drive state and cache flags.
fn step_changes(old: &Plan, new: &Plan, a: &Step, b: &Step, j: usize, out: &mut Vec<Raw>) {
    use Class::*;
    let ta = a.target.unwrap_or(old.target);
    let tb = b.target.unwrap_or(new.target);
    let here = vec![j];
    if a.action.touches_target() {
        target_changes(ta, tb, &here, out);
    }
    if a.ram_limit != b.ram_limit {
        let show = |r: Option<crate::plan::Bytes>| r.map_or("not limited".into(), |b| b.to_string());
        out.push(raw(
            BreaksComparability,
            "RAM limit",
            show(a.ram_limit),
            show(b.ram_limit),
            CACHE,
            here.clone(),
        ));
    }
    if a.phase != b.phase {
        let show = |p: &Option<String>| p.clone().unwrap_or_else(|| "(none)".into());
        out.push(raw(
            PresentationOnly,
            "phase name",
            show(&a.phase),
            show(&b.phase),
            "the phase is named differently; its steps are the same",
            here.clone(),
        ));
    }
    match (a.repeat, b.repeat) {
        (Some(x), Some(y)) => {
            if x.runs != y.runs {
                out.push(raw(
                    ShiftsPrecision,
                    "repeat count",
                    x.runs.to_string(),
                    y.runs.to_string(),
                    "more or fewer runs of the same test: the aggregate is more or less certain",
                    here.clone(),
                ));
            }
            if x.aggregate != y.aggregate {
                out.push(raw(
                    ShiftsPrecision,
                    "aggregate",
                    crate::plan::aggregate_word(x.aggregate).into(),
                    crate::plan::aggregate_word(y.aggregate).into(),
                    "the runs are summed up by another statistic",
                    here.clone(),
                ));
            }
        }
        (None, None) => {}
        (x, y) => out.push(raw(
            ShiftsPrecision,
            "repeat count",
            x.map_or("1".into(), |r| r.runs.to_string()),
            y.map_or("1".into(), |r| r.runs.to_string()),
            "more or fewer runs of the same test: the aggregate is more or less certain",
            here.clone(),
        )),
    }
    let dur = |d: crate::plan::Duration| d.human();
    match (&a.action, &b.action) {
        (Action::Erase { method: x }, Action::Erase { method: y }) if x != y => out.push(raw(
            BreaksComparability,
            "erase method",
            x.keyword().to_string(),
            y.keyword().to_string(),
            PREPARATION,
            here.clone(),
        )),
        (
            Action::Fill { workload: wa, qd: qa, passes: pa },
            Action::Fill { workload: wb, qd: qb, passes: pb },
        ) => {
            if pa != pb {
                out.push(raw(
                    BreaksComparability,
                    "fill passes",
                    pa.to_string(),
                    pb.to_string(),
                    PREPARATION,
                    here.clone(),
                ));
            }
            workload_changes(wa, wb, PREPARATION, &here, out);
            qd_changes(qa, qb, &here, out);
        }
        (
            Action::Precondition { workload: wa, qd: qa, stop: sa, series: ra },
            Action::Precondition { workload: wb, qd: qb, stop: sb, series: rb },
        ) => {
            workload_changes(wa, wb, PREPARATION, &here, out);
            qd_changes(qa, qb, &here, out);
            if sa != sb {
                let show = |s: &PreconditionStop| match s {
                    PreconditionStop::Time(d) => format!("for {}", dur(*d)),
                    PreconditionStop::Steady { round, rule } => format!(
                        "until steady: rounds of {}, window {}, excursion {}, slope {}, max {}",
                        dur(*round),
                        rule.window,
                        rule.excursion,
                        rule.slope,
                        rule.max_rounds
                    ),
                };
                out.push(raw(
                    BreaksComparability,
                    "precondition length or stop rule",
                    show(sa),
                    show(sb),
                    PREPARATION,
                    here.clone(),
                ));
            }
            if ra != rb {
                out.push(raw(
                    ShiftsPrecision,
                    "series interval",
                    dur(*ra),
                    dur(*rb),
                    "the time series is sampled more or less often; the step's numbers do not change",
                    here.clone(),
                ));
            }
        }
        (
            Action::Measure { workload: wa, qd: qa, ramp: ra, stop: sa, series: ea },
            Action::Measure { workload: wb, qd: qb, ramp: rb, stop: sb, series: eb },
        ) => {
            workload_changes(wa, wb, WORKLOAD, &here, out);
            qd_changes(qa, qb, &here, out);
            if ra != rb {
                out.push(raw(
                    ShiftsPrecision,
                    "ramp time",
                    dur(*ra),
                    dur(*rb),
                    "a longer or shorter warm-up before recording: the same I/O, settled more or less",
                    here.clone(),
                ));
            }
            if sa.time != sb.time && (sa.written.is_some() || sb.written.is_some()) {
                let show = |t: Option<crate::plan::Duration>| t.map_or("none".into(), dur);
                out.push(raw(
                    BreaksComparability,
                    "record time",
                    show(sa.time),
                    show(sb.time),
                    "a time limit on a step that writes until an amount changes how much it writes",
                    here.clone(),
                ));
            } else if sa.time != sb.time {
                let show = |t: Option<crate::plan::Duration>| t.map_or("none".into(), dur);
                out.push(raw(ShiftsPrecision, "record time", show(sa.time), show(sb.time), "the same I/O recorded for longer or shorter: the average is more or less certain (a short record may catch a burst)", here.clone()));
            }
            if sa.written != sb.written {
                let show = |w: Option<crate::plan::Extent>| w.map_or("none".into(), |w| w.to_string());
                out.push(raw(BreaksComparability, "until written", show(sa.written), show(sb.written), "the step writes another amount: a sustained write measures more or less of what follows the drive's cache", here.clone()));
            }
            if ea != eb {
                out.push(raw(
                    ShiftsPrecision,
                    "series interval",
                    dur(*ea),
                    dur(*eb),
                    "the time series is sampled more or less often; the step's numbers do not change",
                    here.clone(),
                ));
            }
        }
        (
            Action::Rounds { cells: ca, track: ka, rule: ra },
            Action::Rounds { cells: cb, track: kb, rule: rb },
        ) => {
            if ra != rb || ka != kb {
                out.push(raw(
                    BreaksComparability,
                    "steady-state rule",
                    format!("window {}, excursion {}, slope {}, max {}", ra.window, ra.excursion, ra.slope, ra.max_rounds),
                    format!("window {}, excursion {}, slope {}, max {}", rb.window, rb.excursion, rb.slope, rb.max_rounds),
                    "the rule that decides when the drive is steady differs: the values are taken from another state",
                    here.clone(),
                ));
            }
            for (x, y) in ca.iter().zip(cb) {
                workload_changes(&x.workload, &y.workload, WORKLOAD, &here, out);
                qd_changes(&x.qd, &y.qd, &here, out);
                if x.ramp != y.ramp {
                    out.push(raw(
                        ShiftsPrecision,
                        "ramp time",
                        dur(x.ramp),
                        dur(y.ramp),
                        "a longer or shorter warm-up before recording: the same I/O, settled more or less",
                        here.clone(),
                    ));
                }
                if x.record != y.record {
                    out.push(raw(
                        ShiftsPrecision,
                        "record time",
                        dur(x.record),
                        dur(y.record),
                        "the same I/O recorded for longer or shorter: the average is more or less certain",
                        here.clone(),
                    ));
                }
            }
            if ca.len() != cb.len() {
                out.push(raw(
                    BreaksComparability,
                    "rounds measurements",
                    ca.len().to_string(),
                    cb.len().to_string(),
                    "each round measures other cells, so the drive's state between them differs",
                    here.clone(),
                ));
            }
        }
        (Action::Idle { time: x }, Action::Idle { time: y }) if x != y => out.push(raw(
            BreaksComparability,
            "idle time",
            dur(*x),
            dur(*y),
            "a drive recovers while idle (garbage collection): the steps after it meet another state",
            here.clone(),
        )),
        (Action::Copy { dataset: x }, Action::Copy { dataset: y }) if content_key(a) != content_key(b) => out
            .push(raw(
                BreaksComparability,
                "copy data set",
                format!("{} files, {}..{}", x.files, x.size_min, x.size_max),
                format!("{} files, {}..{}", y.files, y.size_min, y.size_max),
                "other files are copied: file count and sizes set a copy's speed",
                here.clone(),
            )),
        (Action::Probe(x), Action::Probe(y)) => {
            if (x.io, x.step, x.range) != (y.io, y.step, y.range) {
                out.push(raw(
                    BreaksComparability,
                    "probe",
                    format!("{} every {} over {}", x.io, x.step, x.range),
                    format!("{} every {} over {}", y.io, y.step, y.range),
                    "the probe writes other sizes at other offsets",
                    here.clone(),
                ));
            }
            if (x.repeats, x.statistic) != (y.repeats, y.statistic) {
                out.push(raw(
                    ShiftsPrecision,
                    "probe repeats",
                    format!("{} of {}", crate::plan::aggregate_word(x.statistic), x.repeats),
                    format!("{} of {}", crate::plan::aggregate_word(y.statistic), y.repeats),
                    "each offset is timed more or fewer times",
                    here.clone(),
                ));
            }
        }
        _ => {}
    }
}

fn target_changes(ta: Target, tb: Target, here: &[usize], out: &mut Vec<Raw>) {
    use Class::BreaksComparability as B;
    if ta.span != tb.span {
        out.push(raw(B, "span", ta.span.to_string(), tb.span.to_string(), SPAN, here.to_vec()));
    }
    if ta.io != tb.io {
        out.push(raw(B, "io mode", io_word(ta.io), io_word(tb.io), CACHE, here.to_vec()));
    }
    if ta.data != tb.data {
        out.push(raw(
            B,
            "data pattern",
            ta.data.to_string(),
            tb.data.to_string(),
            "drives that compress or deduplicate write other data at other speeds",
            here.to_vec(),
        ));
    }
    if ta.devices != tb.devices {
        out.push(raw(
            B,
            "devices",
            ta.devices.to_string(),
            tb.devices.to_string(),
            "the I/O is spread over another number of devices",
            here.to_vec(),
        ));
    }
}

fn workload_changes(a: &Workload, b: &Workload, reason: &str, here: &[usize], out: &mut Vec<Raw>) {
    if !a.same_io(b) {
        // The short description, or every field where that hides the change.
        let (da, db) = if a.describe() != b.describe() {
            (a.describe(), b.describe())
        } else {
            (a.io().in_full(), b.io().in_full())
        };
        out.push(raw(Class::BreaksComparability, "workload", da, db, reason, here.to_vec()));
    }
}

fn qd_changes(a: &crate::plan::Qd, b: &crate::plan::Qd, here: &[usize], out: &mut Vec<Raw>) {
    use Class::BreaksComparability as B;
    if a.total != b.total {
        out.push(raw(
            B,
            "queue depth",
            a.total.to_string(),
            b.total.to_string(),
            "another number of outstanding I/Os",
            here.to_vec(),
        ));
    }
    // How the methodology counts the queue depth moves nothing by itself:
    // the depth as it runs (total, workers, per worker) is compared too.
    if a.counted != b.counted {
        let w = |c: QdCounting| if c == QdCounting::Total { "in total" } else { "per worker" }.to_string();
        out.push(raw(
            Class::PresentationOnly,
            "QD counting",
            w(a.counted),
            w(b.counted),
            "the same outstanding I/Os are counted another way",
            here.to_vec(),
        ));
    }
    if (a.workers, a.per_worker) != (b.workers, b.per_worker) && a.total == b.total {
        out.push(raw(
            B,
            "workers",
            format!("{} x {}", a.workers, a.per_worker),
            format!("{} x {}", b.workers, b.per_worker),
            "the same queue depth kept by another number of threads is another job",
            here.to_vec(),
        ));
    }
}

/// A step in a few words, for lists of drive preparation and for added
/// and removed steps: `erase secure`, `fill 2x seq128k_write`,
/// `precondition rnd4k_write QD 256 for 6h`.
fn brief(s: &Step) -> String {
    match &s.action {
        Action::Erase { method } => format!("erase {}", method.keyword()),
        Action::Fill { workload, passes, .. } => format!("fill {passes}x {}", workload.name),
        Action::Precondition { workload, qd, stop, .. } => {
            let how = match stop {
                PreconditionStop::Time(d) => format!("for {}", d.human()),
                PreconditionStop::Steady { round, .. } => format!("until steady ({} rounds)", round.human()),
            };
            format!("precondition {} QD {} {how}", workload.name, qd.total)
        }
        Action::Rounds { cells, track, .. } => {
            let tracked = cells.get(*track as usize).map_or("?", |c| c.workload.name.as_str());
            format!("rounds until {tracked} is steady")
        }
        _ => s.describe(),
    }
}

pub fn diff(old: &Plan, new: &Plan) -> PlanDiff {
    use Class::*;
    // What each step's drive state depends on: matching and the drive-state
    // comparison both use it.
    let deps_a = dependencies(old);
    let deps_b = dependencies(new);
    let pairs = match_steps(old, new, &deps_a, &deps_b);
    let new_of_old: BTreeMap<usize, usize> = pairs.iter().copied().collect();
    let old_of_new: BTreeMap<usize, usize> = pairs.iter().map(|(a, b)| (*b, *a)).collect();
    let mut out: Vec<Raw> = Vec::new();

    // Conventions and the methodology's own words.
    let (ca, cb) = (&old.conventions, &new.conventions);
    let measured: Vec<usize> = new
        .steps
        .iter()
        .enumerate()
        .filter(|(_, s)| {
            matches!(
                s.action,
                Action::Measure { .. } | Action::Rounds { .. } | Action::Copy { .. } | Action::Probe(_)
            )
        })
        .map(|(i, _)| i)
        .collect();
    if ca.units != cb.units {
        let u = |u: Units| if u == Units::Decimal { "decimal (MB)" } else { "binary (MiB)" }.to_string();
        out.push(raw(
            PresentationOnly,
            "units",
            u(ca.units),
            u(cb.units),
            "the same numbers shown in other units (MB and MiB differ by 4.9%)",
            measured.clone(),
        ));
    }
    if ca.value != cb.value {
        let v = |v: ValueKind| v.words().to_string();
        out.push(raw(
            BreaksComparability,
            "value kind",
            v(ca.value),
            v(cb.value),
            "a peak, a step average and a steady-state average of the same run are different numbers",
            measured.clone(),
        ));
    }
    let (ma, mb) = (&old.methodology, &new.methodology);
    if ma.description != mb.description {
        let d = |d: &Option<String>| d.clone().unwrap_or_else(|| "(none)".into());
        out.push(raw(
            PresentationOnly,
            "description",
            d(&ma.description),
            d(&mb.description),
            "the methodology is described differently",
            Vec::new(),
        ));
    }
    if ma.name != mb.name {
        out.push(raw(
            PresentationOnly,
            "methodology name",
            ma.name.clone(),
            mb.name.clone(),
            "the methodology is named differently",
            Vec::new(),
        ));
    }
    // A run-level change: the steps that run are the same and measure the
    // same; only a run with a failed step goes further under one of them.
    if ma.on_error != mb.on_error {
        let w = |o: OnError| format!("on_error {}", o.word());
        out.push(raw(
            PresentationOnly,
            "on error",
            w(ma.on_error),
            w(mb.on_error),
            "what the run does after a failed step (end there, or go on to the next): every step that runs \
             measures the same",
            Vec::new(),
        ));
    }
    // Target defaults show in the steps that use them (a default no step
    // uses changes no result).
    // Matched steps.
    let dropped_a = old.caches_dropped();
    let dropped_b = new.caches_dropped();
    for &(i, j) in &pairs {
        let (a, b) = (&old.steps[i], &new.steps[j]);
        let before = out.len();
        step_changes(old, new, a, b, j, &mut out);
        if dropped_a[i] != dropped_b[j] && b.action.touches_target() {
            let w = |d: bool| if d { "dropped before the step" } else { "not dropped" }.to_string();
            out.push(raw(
                BreaksComparability,
                "caches dropped",
                w(dropped_a[i]),
                w(dropped_b[j]),
                CACHE,
                vec![j],
            ));
        }
        // Cache policy moves no number of a step that bypasses the cache.
        let buffered =
            b.target.unwrap_or(new.target).io == IoMode::Buffered || matches!(b.action, Action::Copy { .. });
        for r in &mut out[before..] {
            if !buffered && matches!(r.what.as_str(), "caches dropped" | "RAM limit") {
                r.class = PresentationOnly;
                r.reason =
                    "the step bypasses the page cache (direct I/O), so the cache policy does not change its \
                            numbers"
                        .into();
            }
        }
        // A change to what a step does to the drive touches the steps that
        // depend on it.
        if affects_state(a) || affects_state(b) {
            let later: Vec<usize> = (j + 1..new.steps.len()).filter(|k| deps_b[*k].contains(&j)).collect();
            for r in &mut out[before..] {
                if r.class == BreaksComparability && DRIVE.contains(&r.what.as_str()) {
                    r.steps.extend(later.iter().copied());
                }
            }
        }
    }
    // Drive state: the steps each matched step's drive state depends on,
    // in order, compared through the matching.
    for &(i, j) in &pairs {
        let was: Vec<String> = deps_a[i]
            .iter()
            .map(|d| new_of_old.get(d).map_or(format!("old {d}"), |n| format!("{n}")))
            .collect();
        let is: Vec<String> = deps_b[j].iter().map(|d| format!("{d}")).collect();
        if was == is {
            continue;
        }
        let gone: Vec<String> = deps_a[i]
            .iter()
            .zip(&was)
            .filter(|(_, w)| !is.contains(w))
            .map(|(d, _)| format!("- {}", brief(&old.steps[*d])))
            .collect();
        let came: Vec<String> = deps_b[j]
            .iter()
            .zip(&is)
            .filter(|(_, w)| !was.contains(w))
            .map(|(d, _)| format!("+ {}", brief(&new.steps[*d])))
            .collect();
        let (old_v, new_v) = if gone.is_empty() && came.is_empty() {
            let order = |plan: &Plan, deps: &[usize]| {
                deps.iter().map(|d| brief(&plan.steps[*d])).collect::<Vec<_>>().join(", then ")
            };
            (order(old, &deps_a[i]), order(new, &deps_b[j]))
        } else {
            (
                if gone.is_empty() { "-".into() } else { gone.join("; ") },
                if came.is_empty() { "-".into() } else { came.join("; ") },
            )
        };
        out.push(raw(
            BreaksComparability,
            "drive state before the step",
            old_v,
            new_v,
            "other steps prepare the drive before it (or the same in another order): it is in another state",
            vec![j],
        ));
    }
    // Order of matched steps: a step whose order changed relative to the
    // others, when no state depends on it, is a change of presentation.
    let moved = moved_steps(&pairs);
    if !moved.is_empty() {
        out.push(raw(
            PresentationOnly,
            "step order",
            "as before".into(),
            "moved".into(),
            "the same steps run in another order; where the order changes a drive state it is listed above",
            moved,
        ));
    }
    // Added and removed steps.
    for (j, s) in new.steps.iter().enumerate().filter(|(j, _)| !old_of_new.contains_key(j)) {
        out.push(raw(
            AddsRemovesSteps,
            "step added",
            "-".into(),
            brief(s),
            "the new version runs a step the old one did not",
            vec![j],
        ));
    }
    for (i, s) in old.steps.iter().enumerate().filter(|(i, _)| !new_of_old.contains_key(i)) {
        let mut r = raw(
            AddsRemovesSteps,
            "step removed",
            brief(s),
            "-".into(),
            "the old version ran a step the new one does not",
            vec![i],
        );
        r.in_old = true;
        out.push(r);
    }

    // Group: one change for each class, what, old, new and reason.
    let mut groups: BTreeMap<GroupKey, BTreeSet<usize>> = BTreeMap::new();
    for r in out {
        // Added and removed steps stay one a line.
        let key_old =
            if r.class == AddsRemovesSteps { format!("{:06} {}", r.steps[0], r.old) } else { r.old };
        groups.entry((r.class, r.what, key_old, r.new, r.reason, r.in_old)).or_default().extend(r.steps);
    }
    let mut breaking: BTreeSet<usize> = BTreeSet::new();
    let mut changes = Vec::new();
    for ((class, what, old_v, new_v, reason, in_old), steps) in groups {
        let old_v = if class == AddsRemovesSteps { old_v[7..].to_string() } else { old_v };
        let plan = if in_old { old } else { new };
        if class == BreaksComparability {
            breaking.extend(steps.iter().copied());
        }
        let steps: Vec<usize> = steps.into_iter().collect();
        changes.push(Change {
            class,
            what,
            old: old_v,
            new: new_v,
            reason,
            affected: affected(plan, &steps),
            steps: steps.iter().map(|k| plan.steps[*k].id.clone()).collect(),
        });
    }
    changes.sort_by_key(|c| {
        (c.class, c.steps.first().and_then(|id| new.steps.iter().position(|s| &s.id == id)).unwrap_or(0))
    });
    let comparable =
        pairs.iter().filter(|(_, j)| !breaking.contains(j)).map(|(_, j)| new.steps[*j].id.clone()).collect();
    PlanDiff {
        old: format!("{} {}", old.methodology.name, old.methodology.version),
        new: format!("{} {}", new.methodology.name, new.methodology.version),
        matched: pairs.len(),
        comparable,
        changes,
    }
}

/// New-plan indices of matched steps that are out of order: those not in a
/// longest run of matched steps whose order is kept.
fn moved_steps(pairs: &[(usize, usize)]) -> Vec<usize> {
    // pairs are sorted by old index; find the longest increasing
    // subsequence of new indices (patience sorting).
    let news: Vec<usize> = pairs.iter().map(|p| p.1).collect();
    let mut tails: Vec<usize> = Vec::new();
    let mut prev: Vec<Option<usize>> = vec![None; news.len()];
    let mut tail_idx: Vec<usize> = Vec::new();
    for (k, &v) in news.iter().enumerate() {
        let pos = tails.partition_point(|&t| t < v);
        if pos > 0 {
            prev[k] = Some(tail_idx[pos - 1]);
        }
        if pos == tails.len() {
            tails.push(v);
            tail_idx.push(k);
        } else {
            tails[pos] = v;
            tail_idx[pos] = k;
        }
    }
    let mut keep = vec![false; news.len()];
    let mut k = tail_idx.last().copied();
    while let Some(i) = k {
        keep[i] = true;
        k = prev[i];
    }
    let mut moved: Vec<usize> = news.iter().zip(keep).filter(|(_, kept)| !kept).map(|(v, _)| *v).collect();
    moved.sort();
    moved
}

/// Steps in words: `every step`, `all 10 buffered copy steps`, `all 9 steps
/// of phase "4KiB random"`, or their ids.
fn affected(plan: &Plan, steps: &[usize]) -> String {
    if steps.is_empty() {
        return "the methodology".into();
    }
    let n = steps.len();
    if n == plan.steps.len() {
        return format!("every step ({n})");
    }
    let set: BTreeSet<usize> = steps.iter().copied().collect();
    let kinds: BTreeSet<&str> = steps.iter().map(|k| plan.steps[*k].action.kind()).collect();
    if kinds.len() == 1 {
        let kind = *kinds.iter().next().expect("one kind");
        let io = |s: &Step| s.target.unwrap_or(plan.target).io;
        let ios: BTreeSet<String> = steps.iter().map(|k| io_word(io(&plan.steps[*k]))).collect();
        let all_kind: BTreeSet<usize> =
            plan.steps.iter().enumerate().filter(|(_, s)| s.action.kind() == kind).map(|(i, _)| i).collect();
        if all_kind == set && n > 1 {
            let all_kind_io = ios.len() == 1;
            return if all_kind_io && kind == "copy" {
                format!("all {n} {} copy steps", ios.iter().next().expect("one"))
            } else {
                format!("all {n} {kind} steps")
            };
        }
    }
    let phases: BTreeSet<Option<&String>> = steps.iter().map(|k| plan.steps[*k].phase.as_ref()).collect();
    if phases.len() == 1 {
        if let Some(Some(p)) = phases.iter().next() {
            let all_phase: BTreeSet<usize> = plan
                .steps
                .iter()
                .enumerate()
                .filter(|(_, s)| s.phase.as_ref() == Some(*p))
                .map(|(i, _)| i)
                .collect();
            if all_phase == set && n > 1 {
                return format!("all {n} steps of phase \"{p}\"");
            }
        }
    }
    let ids: Vec<&str> = steps.iter().map(|k| plan.steps[*k].id.as_str()).collect();
    if n <= 3 {
        ids.join(", ")
    } else {
        format!(
            "{}: {}, {} ... {}",
            crate::plan::plural(n as u64, "step", "steps"),
            ids[0],
            ids[1],
            ids[n - 1]
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(body: &str) -> Plan {
        let src = format!(
            "methodology \"t\" version \"1\"\n\
             workload r {{ random; block 4KiB; read 100% }}\n\
             workload w {{ random; block 4KiB; read 0% }}\n\
             workload s {{ sequential; block 128KiB; read 0% }}\n{body}"
        );
        crate::compile(&src, &Default::default()).unwrap_or_else(|d| panic!("{d:?}")).plan
    }

    const BASE: &str = "phase \"prep\" { erase discard\n fill s passes 2\n precondition w qd 32 for 1h }\n\
                        phase \"a\" { sweep r qd [1, 4] ramp 5s record 1min }\n\
                        phase \"b\" { sweep w qd [1, 4] ramp 5s record 1min }\n";

    fn classes(d: &PlanDiff) -> Vec<(Class, &str)> {
        d.changes.iter().map(|c| (c.class, c.what.as_str())).collect()
    }

    #[test]
    fn the_same_plan_is_no_change() {
        let d = diff(&plan(BASE), &plan(BASE));
        assert!(d.changes.is_empty(), "{:?}", d.changes);
        assert_eq!((d.exit_code(), d.matched, d.comparable.len()), (0, 7, 7));
    }

    #[test]
    fn a_renamed_workload_is_no_change() {
        let renamed = BASE.replace("sweep r ", "sweep rr ");
        let p = plan(&format!("workload rr {{ random; block 4KiB; read 100% }}\n{renamed}"));
        assert!(diff(&plan(BASE), &p).changes.is_empty());
    }

    #[test]
    fn a_read_share_breaks_the_steps_that_use_it() {
        let p = plan(&format!(
            "workload r2 {{ random; block 4KiB; read 70% }}\n{}",
            BASE.replace("sweep r ", "sweep r2 ")
        ));
        let d = diff(&plan(BASE), &p);
        assert_eq!(classes(&d), [(Class::BreaksComparability, "workload")]);
        assert_eq!(d.changes[0].steps, ["a/r2-qd1", "a/r2-qd4"]);
        assert_eq!(d.changes[0].old, "4KiB random, 100% read");
        assert_eq!(d.changes[0].new, "4KiB random, 70% read");
        assert_eq!(d.exit_code(), 2);
    }

    #[test]
    fn record_and_ramp_times_shift_precision() {
        let d = diff(&plan(BASE), &plan(&BASE.replace("ramp 5s record 1min", "ramp 10s record 30s")));
        assert_eq!(
            classes(&d),
            [(Class::ShiftsPrecision, "ramp time"), (Class::ShiftsPrecision, "record time")]
        );
        assert_eq!(d.changes[1].affected, "all 4 measure steps");
        assert_eq!((d.exit_code(), d.comparable.len()), (1, 7));
    }

    #[test]
    fn a_longer_precondition_breaks_every_step_after_it() {
        let d = diff(&plan(BASE), &plan(&BASE.replace("for 1h", "for 6h")));
        assert_eq!(classes(&d), [(Class::BreaksComparability, "precondition length or stop rule")]);
        let c = &d.changes[0];
        assert_eq!((c.old.as_str(), c.new.as_str()), ("for 1h", "for 6h"));
        assert_eq!(c.steps.len(), 5, "the precondition and the 4 measurements: {:?}", c.steps);
        assert_eq!(d.comparable, ["prep/erase-discard", "prep/fill-s"]);
    }

    #[test]
    fn span_io_and_cache_policy_break_comparability() {
        let span = diff(&plan(BASE), &plan(&format!("target {{ span 25% }}\n{BASE}")));
        assert!(span.changes.iter().all(|c| c.class == Class::BreaksComparability && c.what == "span"));
        assert_eq!(span.changes[0].affected, "every step (7)");
        let io = diff(&plan(BASE), &plan(&format!("target {{ io buffered }}\n{BASE}")));
        assert_eq!(classes(&io), [(Class::BreaksComparability, "io mode")]);
        let buffered = format!("target {{ io buffered }}\n{BASE}");
        let dropped = plan(&buffered.replace("phase \"a\" { sweep", "phase \"a\" { drop_caches\n sweep"));
        let d = diff(&plan(&buffered), &dropped);
        assert_eq!(
            classes(&d),
            [(Class::BreaksComparability, "caches dropped"), (Class::AddsRemovesSteps, "step added")]
        );
        assert_eq!(d.changes[0].steps, ["a/r-qd1"], "only the step right after the drop");
        // Direct I/O bypasses the cache: the same drop moves no number.
        let direct = diff(
            &plan(BASE),
            &plan(&BASE.replace("phase \"a\" { sweep", "phase \"a\" { drop_caches\n sweep")),
        );
        assert_eq!(
            classes(&direct),
            [(Class::AddsRemovesSteps, "step added"), (Class::PresentationOnly, "caches dropped")]
        );
    }

    #[test]
    fn an_inserted_step_leaves_the_others_matched() {
        let p = plan(&BASE.replace("phase \"b\" {", "phase \"b\" { measure r qd 8 for 1min\n"));
        let d = diff(&plan(BASE), &p);
        assert_eq!(classes(&d), [(Class::AddsRemovesSteps, "step added")]);
        assert_eq!(d.changes[0].steps, ["b/r-qd8"]);
        assert_eq!((d.matched, d.exit_code()), (7, 1));
    }

    #[test]
    fn a_deleted_step_is_named_from_the_old_plan() {
        let p = plan(&BASE.replace("sweep w qd [1, 4]", "sweep w qd [4]"));
        let d = diff(&plan(BASE), &p);
        assert_eq!(classes(&d), [(Class::AddsRemovesSteps, "step removed")]);
        assert_eq!(d.changes[0].steps, ["b/w-qd1"]);
        assert_eq!(d.matched, 6);
    }

    #[test]
    fn reordered_phases_match_and_only_the_order_changes() {
        let swapped = "phase \"prep\" { erase discard\n fill s passes 2\n precondition w qd 32 for 1h }\n\
                       phase \"b\" { sweep w qd [1, 4] ramp 5s record 1min }\n\
                       phase \"a\" { sweep r qd [1, 4] ramp 5s record 1min }\n";
        let d = diff(&plan(BASE), &plan(swapped));
        assert_eq!(d.matched, 7);
        assert_eq!(classes(&d), [(Class::PresentationOnly, "step order")]);
        assert_eq!(d.exit_code(), 1);
        // Moving the precondition after the sweeps changes their drive state.
        let late = "phase \"prep\" { erase discard\n fill s passes 2 }\n\
                    phase \"a\" { sweep r qd [1, 4] ramp 5s record 1min }\n\
                    phase \"b\" { sweep w qd [1, 4] ramp 5s record 1min }\n\
                    phase \"prep2\" { precondition w qd 32 for 1h }\n";
        let d = diff(&plan(BASE), &plan(late));
        let state = d.changes.iter().find(|c| c.what == "drive state before the step").expect("drive state");
        assert_eq!(state.steps.len(), 4, "{:?}", state.steps);
        assert!(state.old.contains("precondition w QD 32 for 1h") && !state.new.contains("precondition"));
        assert_eq!(d.exit_code(), 2);
    }

    #[test]
    fn on_error_is_a_run_level_change_that_keeps_every_result_comparable() {
        let d = diff(&plan(BASE), &plan(&format!("on_error continue\n{BASE}")));
        assert_eq!(classes(&d), [(Class::PresentationOnly, "on error")]);
        let c = &d.changes[0];
        assert_eq!((c.old.as_str(), c.new.as_str()), ("on_error stop", "on_error continue"));
        assert!(c.steps.is_empty(), "no step's numbers change: {:?}", c.steps);
        assert_eq!((d.exit_code(), d.comparable.len()), (1, 7));
        // Spelling out the default is no change.
        assert!(diff(&plan(BASE), &plan(&format!("on_error stop\n{BASE}"))).changes.is_empty());
    }

    #[test]
    fn repeats_units_and_descriptions() {
        let a = plan(&format!("conventions {{ units decimal }}\n{BASE}"));
        let b = plan(&format!("conventions {{ units binary }}\ndescribe \"x\"\n{BASE}"));
        let d = diff(&a, &b);
        assert_eq!(
            classes(&d),
            [(Class::PresentationOnly, "description"), (Class::PresentationOnly, "units")]
        );
        assert_eq!(d.exit_code(), 1);
    }

    #[test]
    fn swapped_preparation_steps_change_the_drive_state_of_what_follows() {
        let swapped = BASE.replace(
            " fill s passes 2\n precondition w qd 32 for 1h }",
            " precondition w qd 32 for 1h\n fill s passes 2 }",
        );
        let d = diff(&plan(BASE), &plan(&swapped));
        let flagged: Vec<&String> = d
            .changes
            .iter()
            .filter(|c| c.what == "drive state before the step")
            .flat_map(|c| &c.steps)
            .collect();
        assert!(flagged.contains(&&"a/r-qd1".to_string()), "{flagged:?}");
        assert!(!d.comparable.contains(&"a/r-qd1".to_string()));
        assert_eq!(d.exit_code(), 2);
    }

    #[test]
    fn a_renamed_phase_with_a_changed_workload_still_breaks() {
        let p = plan(&format!(
            "workload r70 {{ random; block 4KiB; read 70% }}\n{}",
            BASE.replace("phase \"a\" { sweep r ", "phase \"4KiB random\" { sweep r70 ")
        ));
        let d = diff(&plan(BASE), &p);
        assert!(
            d.changes.iter().any(|c| c.what == "workload" && c.class == Class::BreaksComparability),
            "{:?}",
            classes(&d)
        );
        assert!(d.changes.iter().any(|c| c.what == "phase name"));
        assert!(!d.changes.iter().any(|c| c.class == Class::AddsRemovesSteps), "{:?}", classes(&d));
        assert_eq!(d.exit_code(), 2);
    }

    #[test]
    fn idle_and_sustained_writes_count_as_drive_state() {
        let idle = diff(&plan(BASE), &plan(&BASE.replace("phase \"a\" {", "phase \"a\" { idle 1h\n")));
        assert_eq!(idle.exit_code(), 2, "{:?}", classes(&idle));
        let longer = diff(
            &plan(&BASE.replace("phase \"a\" {", "phase \"a\" { idle 1s\n")),
            &plan(&BASE.replace("phase \"a\" {", "phase \"a\" { idle 1h\n")),
        );
        let c = longer.changes.iter().find(|c| c.what == "idle time").unwrap();
        assert!(c.steps.len() > 1, "the steps after the idle: {:?}", c.steps);
        let capped = diff(
            &plan("measure s qd 32 until written 400%\n"),
            &plan("measure s qd 32 for 1min until written 400%\n"),
        );
        assert_eq!(classes(&capped), [(Class::BreaksComparability, "record time")]);
    }

    #[test]
    fn identical_steps_pair_by_their_drive_state() {
        let old =
            "erase discard\nmeasure r qd 1 for 1min\nprecondition w qd 32 for 1h\nmeasure r qd 1 for 1min\n";
        let new = "erase discard\nprecondition w qd 32 for 1h\nmeasure r qd 1 for 1min\n";
        let d = diff(&plan(old), &plan(new));
        assert_eq!(classes(&d), [(Class::AddsRemovesSteps, "step removed")], "{:?}", d.changes);
        assert_eq!(d.changes[0].steps, [plan(old).steps[1].id.clone()]);
        assert_eq!(d.exit_code(), 1);
    }

    #[test]
    fn counting_the_same_queue_depth_another_way_is_presentation() {
        let a = plan("conventions { queue_depth total }\ntarget { workers 4 }\nmeasure r qd 128 for 1min\n");
        let b =
            plan("conventions { queue_depth per_worker }\ntarget { workers 4 }\nmeasure r qd 32 for 1min\n");
        let d = diff(&a, &b);
        assert_eq!(classes(&d), [(Class::PresentationOnly, "QD counting")]);
        let one = diff(
            &plan("measure r qd 1 for 1min\n"),
            &plan("target { workers 4 }\nmeasure r qd 1 for 1min\n"),
        );
        assert!(one.changes.is_empty(), "QD 1 runs on one worker either way: {:?}", one.changes);
    }
}
