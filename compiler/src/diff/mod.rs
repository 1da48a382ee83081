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
//!
//! This module owns the one entry point, [`diff`], and what concerns more
//! than one pair of steps: cache policy, drive state, steps added and
//! removed, and grouping the changes and naming the steps they touch.
//! `result` holds what it returns ([`PlanDiff`], [`Change`], [`Class`]);
//! `matching` pairs steps across the plans and finds the drive state each
//! depends on; `changes` compares the plans' own settings and one matched
//! pair of steps, and words each difference.

use std::collections::{BTreeMap, BTreeSet};

use crate::plan::{Action, IoMode, Plan, Step};

mod changes;
mod matching;
mod result;
#[cfg(test)]
mod tests;

use self::changes::{CACHE, DRIVE, Raw, brief, io_word, plan_changes, raw, step_changes};
use self::matching::{affects_state, dependencies, match_steps, moved_steps};
pub use self::result::{Change, Class, PlanDiff};

/// Two plans to what changed between them: steps matched, each change
/// classed and worded, grouped, and the steps whose results stay comparable.
pub fn diff(old: &Plan, new: &Plan) -> PlanDiff {
    // What each step's drive state depends on: matching and the drive-state
    // comparison both use it.
    let deps_old = dependencies(old);
    let deps_new = dependencies(new);
    let pairs = match_steps(old, new, &deps_old, &deps_new);
    let mut out = plan_changes(old, new);
    matched_changes(old, new, &pairs, &deps_new, &mut out);
    drive_state_changes(old, new, &pairs, &deps_old, &deps_new, &mut out);
    // Order of matched steps: a step whose order changed relative to the
    // others, when no state depends on it, is a change of presentation.
    let moved = moved_steps(&pairs);
    if !moved.is_empty() {
        out.push(raw(
            Class::PresentationOnly,
            "step order",
            "as before".into(),
            "moved".into(),
            "the same steps run in another order; where the order changes a drive state it is listed above",
            moved,
        ));
    }
    added_and_removed(old, new, &pairs, &mut out);
    let (changes, breaking) = grouped(out, old, new);
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

/// The changes of each matched pair of steps (old index, new index): its
/// own, whether caches were dropped before it, and for a step that
/// bypasses the page cache, cache policy as presentation only. A change
/// to what a step does to the drive touches the later steps that depend
/// on it (`deps_new`).
fn matched_changes(
    old: &Plan,
    new: &Plan,
    pairs: &[(usize, usize)],
    deps_new: &[Vec<usize>],
    out: &mut Vec<Raw>,
) {
    let dropped_a = old.caches_dropped();
    let dropped_b = new.caches_dropped();
    for &(i, j) in pairs {
        let (a, b) = (&old.steps[i], &new.steps[j]);
        let before = out.len();
        step_changes(old, new, a, b, j, out);
        if dropped_a[i] != dropped_b[j] && b.action.touches_target() {
            let w = |d: bool| if d { "dropped before the step" } else { "not dropped" }.to_string();
            out.push(raw(
                Class::BreaksComparability,
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
                r.class = Class::PresentationOnly;
                r.reason =
                    "the step bypasses the page cache (direct I/O), so the cache policy does not change its \
                            numbers"
                        .into();
            }
        }
        // A change to what a step does to the drive touches the steps that
        // depend on it.
        if affects_state(a) || affects_state(b) {
            let later: Vec<usize> = (j + 1..new.steps.len()).filter(|k| deps_new[*k].contains(&j)).collect();
            for r in &mut out[before..] {
                if r.class == Class::BreaksComparability && DRIVE.contains(&r.what.as_str()) {
                    r.steps.extend(later.iter().copied());
                }
            }
        }
    }
}

/// Drive state: the steps each matched step's drive state depends on, in
/// order, compared through the matching.
fn drive_state_changes(
    old: &Plan,
    new: &Plan,
    pairs: &[(usize, usize)],
    deps_old: &[Vec<usize>],
    deps_new: &[Vec<usize>],
    out: &mut Vec<Raw>,
) {
    let new_of_old: BTreeMap<usize, usize> = pairs.iter().copied().collect();
    for &(i, j) in pairs {
        let was: Vec<String> = deps_old[i]
            .iter()
            .map(|d| new_of_old.get(d).map_or(format!("old {d}"), |n| format!("{n}")))
            .collect();
        let is: Vec<String> = deps_new[j].iter().map(|d| format!("{d}")).collect();
        if was == is {
            continue;
        }
        let gone: Vec<String> = deps_old[i]
            .iter()
            .zip(&was)
            .filter(|(_, w)| !is.contains(w))
            .map(|(d, _)| format!("- {}", brief(&old.steps[*d])))
            .collect();
        let came: Vec<String> = deps_new[j]
            .iter()
            .zip(&is)
            .filter(|(_, w)| !was.contains(w))
            .map(|(d, _)| format!("+ {}", brief(&new.steps[*d])))
            .collect();
        let (old_v, new_v) = if gone.is_empty() && came.is_empty() {
            let order = |plan: &Plan, deps: &[usize]| {
                deps.iter().map(|d| brief(&plan.steps[*d])).collect::<Vec<_>>().join(", then ")
            };
            (order(old, &deps_old[i]), order(new, &deps_new[j]))
        } else {
            (
                if gone.is_empty() { "-".into() } else { gone.join("; ") },
                if came.is_empty() { "-".into() } else { came.join("; ") },
            )
        };
        out.push(raw(
            Class::BreaksComparability,
            "drive state before the step",
            old_v,
            new_v,
            "other steps prepare the drive before it (or the same in another order): it is in another state",
            vec![j],
        ));
    }
}

/// Steps only the new plan runs, and steps only the old one ran.
fn added_and_removed(old: &Plan, new: &Plan, pairs: &[(usize, usize)], out: &mut Vec<Raw>) {
    let new_of_old: BTreeMap<usize, usize> = pairs.iter().copied().collect();
    let old_of_new: BTreeMap<usize, usize> = pairs.iter().map(|(a, b)| (*b, *a)).collect();
    for (j, s) in new.steps.iter().enumerate().filter(|(j, _)| !old_of_new.contains_key(j)) {
        out.push(raw(
            Class::AddsRemovesSteps,
            "step added",
            "-".into(),
            brief(s),
            "the new version runs a step the old one did not",
            vec![j],
        ));
    }
    for (i, s) in old.steps.iter().enumerate().filter(|(i, _)| !new_of_old.contains_key(i)) {
        let mut r = raw(
            Class::AddsRemovesSteps,
            "step removed",
            brief(s),
            "-".into(),
            "the old version ran a step the new one does not",
            vec![i],
        );
        r.in_old = true;
        out.push(r);
    }
}

/// Changes group by class, what, old, new, reason and which plan their
/// steps are in.
type GroupKey = (Class, String, String, String, String, bool);

/// The raw changes grouped, one change for each class, what, old, new and
/// reason, in order of class and first step; and the new plan's steps a
/// breaking change touches.
fn grouped(out: Vec<Raw>, old: &Plan, new: &Plan) -> (Vec<Change>, BTreeSet<usize>) {
    use Class::AddsRemovesSteps;
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
        if class == Class::BreaksComparability {
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
    (changes, breaking)
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
    if phases.len() == 1
        && let Some(Some(p)) = phases.iter().next()
    {
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
