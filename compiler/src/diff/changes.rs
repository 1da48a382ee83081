//! The differences of the plans' own settings (conventions, write cache,
//! the methodology's words) and of one matched pair of steps (workload,
//! queue depth, target settings, lengths, stop rules, repeats, probes),
//! each with its class and a sentence saying why. Also a step in a few
//! words ([`brief`]).

use super::matching::content_key;
use super::result::Class;
use crate::plan::{
    Action, IoMode, MeasureStop, OnError, Plan, PreconditionStop, QdCounting, QosAxis, Step, Target, Units,
    ValueKind, Workload, plural,
};

/// A raw change before grouping.
pub(super) struct Raw {
    pub(super) class: Class,
    pub(super) what: String,
    pub(super) old: String,
    pub(super) new: String,
    pub(super) reason: String,
    /// Indices in the new plan (or the old one when `in_old`).
    pub(super) steps: Vec<usize>,
    pub(super) in_old: bool,
}

pub(super) fn raw(
    class: Class,
    what: &str,
    old: String,
    new: String,
    reason: &str,
    steps: Vec<usize>,
) -> Raw {
    Raw { class, what: what.into(), old, new, reason: reason.into(), steps, in_old: false }
}

/// Changes to a step that alter what it leaves on the drive.
pub(super) const DRIVE: &[&str] = &[
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
    "until transferred",
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
pub(super) const CACHE: &str =
    "the page cache serves a different share of the I/O: results measure more or less of the drive";

pub(super) fn io_word(io: IoMode) -> String {
    match io {
        IoMode::Direct => "direct".into(),
        IoMode::Buffered => "buffered".into(),
    }
}

/// The differences of the plans' own settings: conventions, the write
/// cache and the methodology's own words. A changed convention touches
/// every step that reports a value.
pub(super) fn plan_changes(old: &Plan, new: &Plan) -> Vec<Raw> {
    use Class::*;
    let mut out = Vec::new();
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
    if old.write_cache != new.write_cache {
        out.push(raw(
            BreaksComparability,
            "write cache",
            old.write_cache.keyword().to_string(),
            new.write_cache.keyword().to_string(),
            "with its volatile write cache on, a drive acknowledges writes from its DRAM: write latency and \
             IOPS are not the same numbers",
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
    out
}

/// The differences of one matched pair of steps (old `a`, new `b`; `j` is
/// b's index), besides drive state and cache flags.
pub(super) fn step_changes(old: &Plan, new: &Plan, a: &Step, b: &Step, j: usize, out: &mut Vec<Raw>) {
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
    if a.verify != b.verify {
        let show = |v: bool| if v { "verified" } else { "not verified" }.to_string();
        out.push(raw(
            BreaksComparability,
            "verification",
            show(a.verify),
            show(b.verify),
            "stamping every block and checking what is read back costs time the step's numbers include",
            here.clone(),
        ));
    }
    if a.local != b.local {
        let show = |l: bool| if l { "local" } else { "not local" }.to_string();
        out.push(raw(
            PresentationOnly,
            "local",
            show(a.local),
            show(b.local),
            "`local` says only where the step runs in a run on many hosts (on the conductor); \
             on one machine it runs as before",
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
    if let Some(c) = repeat_rule_change(a.repeat, b.repeat, &here) {
        out.push(c);
    }
    action_changes(a, b, &here, out);
}

/// A change of a repeat's `until cv` rule (its least runs N or its
/// limit P; the most runs M is the repeat count): said apart from the
/// count, so that 3 runs and `3..10 until cv 3%` are never taken for one
/// another. The runs' number then rests on their spread: the aggregate is
/// as certain as the rule makes it.
fn repeat_rule_change(
    a: Option<crate::plan::RepeatRun>,
    b: Option<crate::plan::RepeatRun>,
    here: &[usize],
) -> Option<Raw> {
    let until = |r: Option<crate::plan::RepeatRun>| r.and_then(|r| r.until.map(|u| (u, r.runs)));
    let (x, y) = (until(a), until(b));
    if x.map(|(u, _)| u) == y.map(|(u, _)| u) {
        return None;
    }
    let words = |r: Option<crate::plan::RepeatRun>| match r {
        Some(r) => r.until.map_or_else(|| plural(r.runs as u64, "run", "runs"), |u| u.words(r.runs)),
        None => "1 run".to_string(),
    };
    let why = match (x, y) {
        (Some(_), Some(_)) => "the runs stop at another spread or after another least number of runs",
        (None, Some(_)) => "the number of runs now rests on their spread: they stop once it is small",
        (Some(_), None) | (None, None) => "the number of runs no longer rests on their spread",
    };
    Some(raw(Class::ShiftsPrecision, "repeat rule", words(a), words(b), why, here.to_vec()))
}

/// The differences of the actions of one matched pair of steps: only a
/// pair of the same kind is compared here (a kind that changed is a
/// replaced step, found before).
fn action_changes(a: &Step, b: &Step, here: &[usize], out: &mut Vec<Raw>) {
    use Class::*;
    let here = here.to_vec();
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
        (Action::Precondition { .. }, Action::Precondition { .. }) => {
            precondition_changes(&a.action, &b.action, &here, out)
        }
        (Action::Measure { .. }, Action::Measure { .. }) => measure_changes(&a.action, &b.action, &here, out),
        (Action::Rounds { .. }, Action::Rounds { .. }) => rounds_changes(&a.action, &b.action, &here, out),
        (Action::Qos(x), Action::Qos(y)) if x != y => qos_changes(x, y, &here, out),
        (Action::Together { jobs: x, .. }, Action::Together { jobs: y, .. }) if !same_jobs(x, y) => {
            jobs_changes(x, y, &here, out)
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
        (Action::Probe(x), Action::Probe(y)) => probe_changes(x, y, &here, out),
        // A pair whose arm above found no change, a kind with nothing of
        // its own to compare (a drop_caches; a limit_ram's limit is the
        // step's RAM limit, compared before), or a kind that changed.
        (
            Action::Erase { .. }
            | Action::Fill { .. }
            | Action::Precondition { .. }
            | Action::Measure { .. }
            | Action::Together { .. }
            | Action::Qos(_)
            | Action::Rounds { .. }
            | Action::DropCaches
            | Action::Idle { .. }
            | Action::LimitRam { .. }
            | Action::Copy { .. }
            | Action::Probe(_),
            _,
        ) => {}
    }
}

/// The differences of two latency QoS searches: another question, or the
/// same one answered more or less finely.
fn qos_changes(x: &crate::plan::Qos, y: &crate::plan::Qos, here: &[usize], out: &mut Vec<Raw>) {
    use Class::*;
    let show = |q: &crate::plan::Qos| match q.by {
        QosAxis::Qd => format!(
            "{} under {}, by queue depth up to {} per worker, {} probes (ramp {})",
            q.percentile_name(),
            q.limit_name(),
            q.qd.per_worker,
            q.probe.human(),
            q.ramp.human()
        ),
        QosAxis::Rate => format!(
            "{} under {}, {} probes (ramp {}), within {}, {} arrivals",
            q.percentile_name(),
            q.limit_name(),
            q.probe.human(),
            q.ramp.human(),
            q.precision,
            q.arrivals.words()
        ),
    };
    let (class, why) = if x.by != y.by {
        (
            BreaksComparability,
            "a search by rate and a search by queue depth answer different questions: the highest \
             open-loop rate at one depth, or the deepest closed-loop depth",
        )
    } else if (x.percentile_ppm, x.under_ns, x.arrivals) != (y.percentile_ppm, y.under_ns, y.arrivals) {
        (
            BreaksComparability,
            "another latency limit or arrival process: the rate found answers another question",
        )
    } else {
        (
            ShiftsPrecision,
            "the same question, answered with longer or shorter probes or a finer or coarser search",
        )
    };
    out.push(raw(class, "latency QoS search", show(x), show(y), why, here.to_vec()))
}

/// The differences of two together steps that do not run the same jobs.
fn jobs_changes(x: &[crate::plan::Job], y: &[crate::plan::Job], here: &[usize], out: &mut Vec<Raw>) {
    let show = |jobs: &[crate::plan::Job]| {
        jobs.iter()
            .map(|j| {
                let rate = j.rate.map_or(String::new(), |r| format!(" at {}", r.describe()));
                format!("{} {} QD {}{rate}", j.name, j.workload.describe(), j.qd.total)
            })
            .collect::<Vec<_>>()
            .join("; ")
    };
    out.push(raw(
        Class::BreaksComparability,
        "jobs run together",
        show(x),
        show(y),
        "another mix of concurrent load: each job's numbers depend on what runs beside it",
        here.to_vec(),
    ))
}

/// The differences of two page-size probes.
fn probe_changes(x: &crate::plan::Probe, y: &crate::plan::Probe, here: &[usize], out: &mut Vec<Raw>) {
    if (x.io, x.step, x.range) != (y.io, y.step, y.range) {
        out.push(raw(
            Class::BreaksComparability,
            "probe",
            format!("{} every {} over {}", x.io, x.step, x.range),
            format!("{} every {} over {}", y.io, y.step, y.range),
            "the probe writes other sizes at other offsets",
            here.to_vec(),
        ));
    }
    if (x.repeats, x.statistic) != (y.repeats, y.statistic) {
        out.push(raw(
            Class::ShiftsPrecision,
            "probe repeats",
            format!("{} of {}", crate::plan::aggregate_word(x.statistic), x.repeats),
            format!("{} of {}", crate::plan::aggregate_word(y.statistic), y.repeats),
            "each offset is timed more or fewer times",
            here.to_vec(),
        ));
    }
}

/// The differences of two measurements.
fn measure_changes(x: &Action, y: &Action, here: &[usize], out: &mut Vec<Raw>) {
    use Class::*;
    let here = here.to_vec();
    let dur = |d: crate::plan::Duration| d.human();
    let (
        Action::Measure {
            workload: wa,
            qd: qa,
            ramp: ra,
            stop: sa,
            series: ea,
            rate: ta,
            pauses: pa,
            at: aa,
        },
        Action::Measure {
            workload: wb,
            qd: qb,
            ramp: rb,
            stop: sb,
            series: eb,
            rate: tb,
            pauses: pb,
            at: ab,
        },
    ) = (x, y)
    else {
        return;
    };
    workload_changes(wa, wb, WORKLOAD, &here, out);
    if aa != ab {
        let show = |p: &Option<crate::plan::Point>| p.as_ref().map_or("as planned".into(), |p| p.describe());
        out.push(raw(
            BreaksComparability,
            "operating point",
            show(aa),
            show(ab),
            "the queue depth and workers are chosen another way",
            here.clone(),
        ));
    } else {
        qd_changes(qa, qb, &here, out);
    }
    if pa != pb {
        let show = |p: &crate::plan::Pauses| if p.is_none() { "none".to_string() } else { p.describe() };
        out.push(raw(
            BreaksComparability,
            "pauses between I/Os",
            show(pa),
            show(pb),
            "think time and bursts change how hard the drive is driven and how long it rests",
            here.clone(),
        ));
    }
    if ta != tb {
        let show = |r: &Option<crate::plan::Rate>| r.map_or("closed loop".into(), |r| r.describe());
        out.push(raw(
            BreaksComparability,
            "rate",
            show(ta),
            show(tb),
            "another load: open-loop latency depends on the rate and on how I/Os arrive",
            here.clone(),
        ));
    }
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
    stop_changes(sa, sb, wa.writes() || wb.writes(), &here, out);
    series_changes(*ea, *eb, &here, out);
}

/// The differences of two measurements' stops: the time, and the amount
/// written or transferred. `writes`: either measurement's workload writes.
fn stop_changes(sa: &MeasureStop, sb: &MeasureStop, writes: bool, here: &[usize], out: &mut Vec<Raw>) {
    use Class::*;
    let here = here.to_vec();
    let dur = |d: crate::plan::Duration| d.human();
    if sa.time != sb.time && (sa.amount().is_some() || sb.amount().is_some()) {
        let show = |t: Option<crate::plan::Duration>| t.map_or("none".into(), dur);
        out.push(raw(
            BreaksComparability,
            "record time",
            show(sa.time),
            show(sb.time),
            "a time limit on a step that runs until an amount changes how much it does",
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
    if sa.transferred != sb.transferred {
        let show = |w: Option<crate::plan::Extent>| w.map_or("none".into(), |w| w.to_string());
        let (old, new) = (show(sa.transferred), show(sb.transferred));
        if writes {
            out.push(raw(BreaksComparability, "until transferred", old, new, "the step reads and writes another amount: what it writes measures more or less of what follows the drive's cache", here.clone()));
        } else {
            out.push(raw(
                ShiftsPrecision,
                "until transferred",
                old,
                new,
                "the same reads recorded over more or fewer bytes: the average is more or less certain",
                here.clone(),
            ));
        }
    }
}

/// The differences of two preconditions.
fn precondition_changes(x: &Action, y: &Action, here: &[usize], out: &mut Vec<Raw>) {
    use Class::*;
    let here = here.to_vec();
    let dur = |d: crate::plan::Duration| d.human();
    let (
        Action::Precondition { workload: wa, qd: qa, stop: sa, series: ra },
        Action::Precondition { workload: wb, qd: qb, stop: sb, series: rb },
    ) = (x, y)
    else {
        return;
    };
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
    series_changes(*ra, *rb, &here, out);
}

/// The differences of two rounds steps (PTS tests).
fn rounds_changes(x: &Action, y: &Action, here: &[usize], out: &mut Vec<Raw>) {
    use Class::*;
    let here = here.to_vec();
    let dur = |d: crate::plan::Duration| d.human();
    let (
        Action::Rounds { cells: ca, track: ka, rule: ra },
        Action::Rounds { cells: cb, track: kb, rule: rb },
    ) = (x, y)
    else {
        return;
    };
    if ra != rb || ka != kb {
        out.push(raw(
            BreaksComparability,
            "steady-state rule",
            format!(
                "window {}, excursion {}, slope {}, max {}",
                ra.window, ra.excursion, ra.slope, ra.max_rounds
            ),
            format!(
                "window {}, excursion {}, slope {}, max {}",
                rb.window, rb.excursion, rb.slope, rb.max_rounds
            ),
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

/// A measurement's or a precondition's series interval.
fn series_changes(a: crate::plan::Duration, b: crate::plan::Duration, here: &[usize], out: &mut Vec<Raw>) {
    if a != b {
        out.push(raw(
            Class::ShiftsPrecision,
            "series interval",
            a.human(),
            b.human(),
            "the time series is sampled more or less often; the step's numbers do not change",
            here.to_vec(),
        ));
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
pub(super) fn brief(s: &Step) -> String {
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
        Action::Measure { .. }
        | Action::Together { .. }
        | Action::Qos(_)
        | Action::DropCaches
        | Action::Idle { .. }
        | Action::LimitRam { .. }
        | Action::Copy { .. }
        | Action::Probe(_) => s.describe(),
    }
}

/// Whether two together steps run the same jobs: each job of one does
/// what a job of the other does (its workload's I/O, queue depth, workers,
/// rate, pauses and device), whatever the jobs and workloads are called
/// and in whatever order they are listed.
fn same_jobs(x: &[crate::plan::Job], y: &[crate::plan::Job]) -> bool {
    let io = |j: &crate::plan::Job| (j.workload.io(), j.qd, j.workers, j.rate, j.pauses, j.device);
    let mut left: Vec<_> = y.iter().map(io).collect();
    x.len() == y.len()
        && x.iter().all(|j| match left.iter().position(|k| *k == io(j)) {
            Some(i) => {
                left.swap_remove(i);
                true
            }
            None => false,
        })
}
