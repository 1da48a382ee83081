//! The differences of paired steps that can explain a gap: each field of
//! the manifest's checklist (span, drive state, queue depth counting, cache
//! policy, data pattern, value kind, steady state, engine) and of the load
//! (open-loop rate, arrival process, the jobs run at once) compared step by
//! step and grouped by the pair of values. A drive state names its
//! preconditions by what they do, so a renamed but identical precondition
//! is the same drive state; jobs are named by what they do too, so renamed
//! or reordered jobs are the same load.

use std::collections::BTreeMap;

use methodic_compiler::plan::{Action, IoKey, IoMode, Job, QdCounting, Rate, RateAmount, Step};

use super::{Difference, letter};
use crate::manifest::{Checklist, Condition, Loaded, ManifestStep};
use crate::units::human;

/// What the step differences compare: a short value (of a step of the
/// run given), and what to say.
struct Field {
    name: &'static str,
    get: fn(&Loaded, &ManifestStep) -> Option<String>,
    sentence: &'static str,
}

fn checklist(s: &ManifestStep) -> &Checklist {
    &s.checklist
}

const FIELDS: &[Field] = &[
    Field {
        name: "span",
        get: |_, s| {
            checklist(s).span.as_ref().map(|sp| match sp.capacity {
                0 => format!("{} (of a target whose size is not stated)", human(sp.bytes)),
                _ => format!("{} ({}% of {})", human(sp.bytes), sp.percent_of_capacity, human(sp.capacity)),
            })
        },
        sentence: "the span is how much of the drive the I/O covers: a small span leaves spare area free and fits \
                   in caches, so random writes and reads look faster than over the whole drive",
    },
    Field {
        name: "drive state",
        get: |run, s| {
            checklist(s).drive_state.as_ref().map(|d| {
                let steady = match d.steady {
                    Some(st) if st.reached => ", steady",
                    Some(_) => ", not steady",
                    None => "",
                };
                let mut parts = Vec::new();
                if d.erased.is_some() {
                    parts.push("erased".to_string());
                }
                if d.fill_passes > 0 {
                    parts.push(format!("filled {}x", d.fill_passes));
                }
                if d.preconditions_by_io.len() == d.preconditions.len() {
                    parts.extend(d.preconditions_by_io.iter().cloned());
                } else {
                    // Written before the runtime named preconditions by what they do.
                    parts.extend(d.preconditions.iter().map(|p| precondition_by_io(run, p)));
                }
                let condition = match d.condition {
                    Condition::AsFound => "as found",
                    Condition::Fresh => "fresh",
                    Condition::Filled => "filled",
                    Condition::Preconditioned => "preconditioned",
                    Condition::Steady => "steady",
                };
                if parts.is_empty() {
                    format!("{condition}{steady}")
                } else {
                    format!("{condition}{steady} ({})", parts.join(", then "))
                }
            })
        },
        sentence: "a fresh (erased) or lightly written drive writes far faster than one in steady state, reads of \
                   never-written blocks may not touch the flash at all, and a precondition of another length or \
                   workload leaves the drive in another state",
    },
    Field {
        name: "queue depth counting",
        get: |_, s| {
            checklist(s).queue_depth.as_ref().map(|q| {
                let counted = match q.counted {
                    QdCounting::Total => "total",
                    QdCounting::PerWorker => "per worker",
                };
                format!(
                    "{} workers x {} on {} devices (counted {counted})",
                    q.workers, q.per_worker, q.devices
                )
            })
        },
        sentence: "the same total queue depth spread over more workers or devices is another job: more threads \
                   submit in parallel, and per-worker counting multiplies the outstanding I/Os",
    },
    Field {
        name: "cache policy",
        get: |_, s| {
            let c = &checklist(s).cache;
            let io = match c.io {
                Some(IoMode::Direct) => "direct",
                Some(IoMode::Buffered) => "buffered",
                None => "-",
            };
            Some(format!(
                "{io}, caches {}dropped, RAM {}",
                if c.caches_dropped { "" } else { "not " },
                c.ram_limit.map_or("not limited".into(), |r| format!("limited to {}", human(r)))
            ))
        },
        sentence: "buffered I/O and data that fits in RAM are served by the page cache, not the drive; dropping \
                   caches or limiting RAM takes the cache out",
    },
    Field {
        name: "data pattern",
        get: |_, s| checklist(s).data_pattern.map(|d| d.to_string()),
        sentence: "drives that compress or deduplicate write zeros and compressible data faster than random data",
    },
    Field {
        name: "value kind",
        get: |_, s| {
            let v = &checklist(s).value_kind;
            Some(format!("{}: {}", v.kind.words(), v.computed))
        },
        sentence: "the value is made another way (record time, ramp, repeats, statistic): a short record time \
                   catches a drive's burst rather than its sustained rate; where only the kind differs (a peak \
                   against an average), the pairs above already compare one kind on both sides",
    },
    Field {
        name: "steady state",
        get: |_, s| {
            s.steady
                .as_ref()
                .map(|st| if st.reached { "reached".to_string() } else { "not reached".to_string() })
        },
        sentence: "a step whose steady-state rule was not met reports values that were still moving: they \
                   depend on when the step gave up",
    },
    Field {
        name: "rate",
        get: |run, s| match &plan_step(run, s)?.action {
            Action::Measure { rate, .. } => {
                Some(rate.map_or("closed loop".into(), |r| amount_words(run, &r)))
            }
            Action::Together { jobs, .. } => {
                // The open-loop jobs' rates: a closed-loop job added or
                // taken away is another set of jobs, said once there.
                let mut rates: Vec<String> = jobs
                    .iter()
                    .filter_map(|j| Some(format!("{}: {}", job_words(j), amount_words(run, &j.rate?))))
                    .collect();
                rates.sort();
                Some(if rates.is_empty() { "every job closed loop".into() } else { rates.join("; ") })
            }
            // A QoS search looks for its rate: the rate is its result.
            Action::Qos(_)
            | Action::Erase { .. }
            | Action::Fill { .. }
            | Action::Precondition { .. }
            | Action::Rounds { .. }
            | Action::DropCaches
            | Action::Idle { .. }
            | Action::LimitRam { .. }
            | Action::Copy { .. }
            | Action::Probe(_) => None,
        },
        sentence: "the open-loop rate is the load: latency at a lower rate is lower, a rate the target cannot keep \
                   makes latency grow with the backlog, and a closed loop runs as fast as the target goes",
    },
    Field {
        name: "arrivals",
        get: |run, s| match &plan_step(run, s)?.action {
            Action::Measure { rate: Some(r), .. } => Some(r.arrivals.words().to_string()),
            Action::Qos(q) => Some(q.arrivals.words().to_string()),
            Action::Together { jobs, .. } => {
                let mut each: Vec<String> = jobs
                    .iter()
                    .filter_map(|j| Some(format!("{}: {}", job_words(j), j.rate?.arrivals.words())))
                    .collect();
                each.sort();
                (!each.is_empty()).then(|| each.join("; "))
            }
            Action::Measure { rate: None, .. }
            | Action::Erase { .. }
            | Action::Fill { .. }
            | Action::Precondition { .. }
            | Action::Rounds { .. }
            | Action::DropCaches
            | Action::Idle { .. }
            | Action::LimitRam { .. }
            | Action::Copy { .. }
            | Action::Probe(_) => None,
        },
        sentence: "Poisson arrivals bunch I/Os where uniform ones space them evenly: at the same rate, Poisson \
                   arrivals queue more and show longer tail latencies",
    },
    Field {
        name: "jobs at once",
        get: |run, s| match &plan_step(run, s)?.action {
            Action::Together { jobs, .. } => {
                let mut each: Vec<String> = jobs.iter().map(job_words).collect();
                each.sort();
                Some(each.join(" + "))
            }
            Action::Erase { .. }
            | Action::Fill { .. }
            | Action::Precondition { .. }
            | Action::Measure { .. }
            | Action::Qos(_)
            | Action::Rounds { .. }
            | Action::DropCaches
            | Action::Idle { .. }
            | Action::LimitRam { .. }
            | Action::Copy { .. }
            | Action::Probe(_) => None,
        },
        sentence: "jobs that run at once share the target: each job's numbers depend on what runs beside it, so \
                   another job beside it (or one fewer) is another load",
    },
    Field {
        name: "engine",
        get: |_, s| s.io.as_ref().map(|io| format!("{} {}x{}", io.engine.name(), io.threads, io.depth)),
        sentence: "another engine or thread layout submits the same queue depth with other overhead",
    },
];

/// What a difference shows for a field a file does not state.
const NOT_STATED: &str = "not stated";

/// Whether a step's run states `field`: every field of a methodic run;
/// of an imported result, those neither the run's nor the step's
/// `not_stated` names.
fn stated(run: &Loaded, s: &ManifestStep, field: &str) -> bool {
    let run_wide = run.manifest.imported.as_ref().is_some_and(|n| n.not_stated.iter().any(|f| f == field));
    !run_wide && !s.not_stated.iter().any(|f| f == field)
}

/// The plan step a manifest step records.
fn plan_step<'a>(run: &'a Loaded, s: &ManifestStep) -> Option<&'a Step> {
    run.manifest.plan.steps.get(s.index.wrapping_sub(1)).filter(|p| p.id == s.id)
}

/// A job by what it does, not by its name: `4KiB random, 100% read at QD 4`.
fn job_words(j: &Job) -> String {
    format!("{} at QD {}", j.workload.describe(), j.qd.total)
}

/// `50000 IOPS`, `100MB/s`, `25% of the IOPS of maximum/rnd4k_read-qd32`:
/// a rate's amount, a share named by the step it is a share of (not its
/// place in the plan, which another plan may move).
fn amount_words(run: &Loaded, r: &Rate) -> String {
    match r.amount {
        RateAmount::Iops(n) => format!("{n} IOPS"),
        RateAmount::Bandwidth(b) => format!("{b}/s"),
        RateAmount::Share { share, of } => {
            let step =
                run.manifest.plan.steps.get(of as usize).map_or(format!("step {}", of + 1), |s| s.id.clone());
            format!("{share} of the IOPS of {step}")
        }
    }
}

/// A precondition of a drive state, named by what it does rather than by
/// its workload's name: `4KiB random, 0% read at QD 32 for 6h` for the
/// runtime's `w4 (4KiB random, 0% read) at QD 32 for 6h`, so that a
/// renamed but identical precondition is the same drive state (as `methodic
/// diff` says it is). The runtime writes a precondition as its workload's
/// label, ` at QD ` and the depth, then its length: the run's own plan says
/// which precondition step a note is of. A note of no precondition step in
/// the plan (the rounds' own rounds) stays as written.
fn precondition_by_io(run: &Loaded, note: &str) -> String {
    let by_io = run
        .manifest
        .plan
        .steps
        .iter()
        .filter_map(|s| match &s.action {
            Action::Precondition { workload, qd, .. } => {
                let written = format!("{} at QD {} ", workload.label(), qd.total);
                let rest = note.strip_prefix(&written)?;
                Some((written.len(), IoKey::of_step(s).into_iter().next()?, rest))
            }
            Action::Erase { .. }
            | Action::Fill { .. }
            | Action::Measure { .. }
            | Action::Together { .. }
            | Action::Qos(_)
            | Action::Rounds { .. }
            | Action::DropCaches
            | Action::Idle { .. }
            | Action::LimitRam { .. }
            | Action::Copy { .. }
            | Action::Probe(_) => None,
        })
        // Of labels that are prefixes of one another, the longest is the step's.
        .max_by_key(|(len, _, _)| *len);
    match by_io {
        Some((_, key, rest)) => format!("{} {rest}", key.describe()),
        None => note.to_string(),
    }
}

/// Differences in the checklists of paired steps, grouped by field and
/// by the pair of values.
pub(super) fn step_differences(
    (run_a, run_b): (&Loaded, &Loaded),
    steps: &[(&ManifestStep, &ManifestStep)],
    j: usize,
) -> Vec<Difference> {
    let mut out = Vec::new();
    for f in FIELDS {
        let mut groups: BTreeMap<(String, String), Vec<&str>> = BTreeMap::new();
        let mut unstated: BTreeMap<(String, String), Vec<&str>> = BTreeMap::new();
        for (a, b) in steps {
            // An imported result's engine is its run's, compared once there.
            if f.name == "engine" && (run_a.manifest.imported.is_some() || run_b.manifest.imported.is_some())
            {
                continue;
            }
            // Another value kind is the run's convention, said once for the
            // run; the pairs compare one kind on both sides.
            if f.name == "value kind" && a.checklist.value_kind.kind != b.checklist.value_kind.kind {
                continue;
            }
            let (sa, sb) = (stated(run_a, a, f.name), stated(run_b, b, f.name));
            if !sa || !sb {
                // A field an imported file does not state: the gap can be
                // neither explained nor excluded there, whatever the other
                // side says.
                let show = |s: bool, run: &Loaded, m: &ManifestStep| match s {
                    false => NOT_STATED.to_string(),
                    true => (f.get)(run, m).unwrap_or_else(|| "-".into()),
                };
                unstated.entry((show(sa, run_a, a), show(sb, run_b, b))).or_default().push(&a.id);
                continue;
            }
            let (va, vb) = ((f.get)(run_a, a), (f.get)(run_b, b));
            // Open loop on one side only is a rate difference, said once.
            if f.name == "arrivals" && (va.is_none() || vb.is_none()) {
                continue;
            }
            if va != vb {
                let show = |v: Option<String>| v.unwrap_or_else(|| "-".into());
                groups.entry((show(va), show(vb))).or_default().push(&a.id);
            }
        }
        let l = letter(j);
        let said = groups.into_iter().map(|(k, ids)| (k, ids, f.sentence.to_string())).chain(
            unstated.into_iter().map(|((va, vb), ids)| {
                let who = match (va == NOT_STATED, vb == NOT_STATED) {
                    (true, true) => format!("neither A nor {l} states"),
                    (true, false) => "A does not state".to_string(),
                    _ => format!("{l} does not state"),
                };
                let sentence = format!(
                    "{who} the {}: the gap cannot be explained or excluded on that count ({})",
                    f.name, f.sentence
                );
                ((va, vb), ids, sentence)
            }),
        );
        for ((va, vb), ids, sentence) in said {
            let example = if ids.len() > 3 {
                format!("{}, {}, ... {}", ids[0], ids[1], ids[ids.len() - 1])
            } else {
                ids.join(", ")
            };
            out.push(Difference {
                field: f.name.into(),
                runs: format!("A vs {l}"),
                scope: format!("{} of {} paired steps ({example})", ids.len(), steps.len()),
                a: va,
                b: vb,
                sentence,
            });
        }
    }
    out
}
