//! `repeat N..M until cv P%` at run time: a plan and the records of the
//! steps done go in; whether a step is not run, because its repeat stopped
//! after an earlier run once its spread was small, comes out. It rests on
//! the records alone, so that a run and its resume (`--resume`) come to
//! the same decision.

use std::collections::BTreeMap;

use methodic_compiler::plan::{Percent, Plan, UntilCv};
use methodic_results::record::StepResult;

use crate::analysis::repeats::stops_after;

/// Where a repeat stopped: after run `after` of its `runs`, every step of
/// its block that has a value within the `limit` (the largest cv, in
/// percent, is `cv`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Stop {
    pub group: u32,
    pub after: u32,
    pub runs: u32,
    pub cv: f64,
    pub limit: Percent,
}

impl Stop {
    /// `repeat 1 stops after 4 of 10 runs: cv 1.8% is under 3%`.
    pub(crate) fn words(&self) -> String {
        let rel = if self.cv < self.limit.as_f64() { "under" } else { "at" };
        format!(
            "repeat {} stops after {} of {} runs: cv {:.1}% is {rel} {}",
            self.group, self.after, self.runs, self.cv, self.limit
        )
    }
}

/// The value a repeat's statistics are of, from a step's record: a copy's
/// MB/s, else its IOPS; `None` for a step that failed or measured nothing.
pub(crate) fn value(s: &StepResult) -> Option<f64> {
    if s.error.is_some() {
        return None;
    }
    s.copy.as_ref().map(|c| c.mb_s).or_else(|| s.summary.as_ref().map(|x| x.total.iops))
}

/// Why step `i` (from 0) is not run: its repeat stopped after a run
/// before the step's, by `done`, the records of the steps before it in
/// plan order. `None` for a step that runs.
pub(crate) fn skipped(plan: &Plan, i: usize, done: &[StepResult]) -> Option<Stop> {
    let r = plan.steps.get(i)?.repeat?;
    let rule = r.until?;
    if r.run <= rule.min_runs {
        return None;
    }
    stopped(plan, r.group, rule, r.runs, r.run - 1, done)
}

/// The first run `k` of repeat `group` (up to run `upto`) after which it
/// stops: runs 1..k all recorded and their spread small enough
/// ([`stops_after`]). A run not wholly recorded stops the search: nothing
/// after it was decided yet.
fn stopped(
    plan: &Plan,
    group: u32,
    rule: UntilCv,
    runs: u32,
    upto: u32,
    done: &[StepResult],
) -> Option<Stop> {
    // Each run's steps, by their index in the plan, in order.
    let mut by_run: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    for (n, s) in plan.steps.iter().enumerate() {
        if let Some(q) = s.repeat.filter(|q| q.group == group) {
            by_run.entry(q.run).or_default().push(n);
        }
    }
    // Records are kept in plan order: found by their index (from 1).
    let record = |n: usize| done.binary_search_by_key(&(n + 1), |r| r.index).ok().map(|k| &done[k]);
    let mut values: Vec<Vec<f64>> = vec![Vec::new(); by_run.get(&1)?.len()];
    for k in 1..=upto.min(runs) {
        for (place, &n) in by_run.get(&k)?.iter().enumerate() {
            let v = value(record(n)?);
            if let (Some(v), Some(vs)) = (v, values.get_mut(place)) {
                vs.push(v);
            }
        }
        // The steps that have a value: a drop_caches or idle has none.
        let valued: Vec<Vec<f64>> = values.iter().filter(|v| !v.is_empty()).cloned().collect();
        if let Some(cv) = stops_after(k, rule, runs, &valued) {
            return Some(Stop { group, after: k, runs, cv, limit: rule.cv });
        }
    }
    None
}
