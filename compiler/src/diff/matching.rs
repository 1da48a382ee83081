//! Steps matched across two plans, by what they do and where rather than
//! by id, and the drive state each step depends on (the steps since the
//! last erase that set it). Also which matched steps moved.

use std::collections::BTreeMap;

use crate::plan::{Action, IoKey, Plan, Step};

/// What a step does ([`IoKey`]), without names, lengths or settings that
/// a change can alter while it stays "the same step".
pub(super) fn content_key(s: &Step) -> Vec<IoKey> {
    IoKey::of_step(s)
}

/// The queue depth the fourth pass of [`match_steps`] matches by: a
/// fill's, a precondition's or a measurement's; `None` for the other kinds.
fn qd_total(s: &Step) -> Option<u32> {
    match &s.action {
        Action::Fill { qd, .. } | Action::Precondition { qd, .. } | Action::Measure { qd, .. } => {
            Some(qd.total)
        }
        Action::Erase { .. }
        | Action::Rounds { .. }
        | Action::Together { .. }
        | Action::Qos(_)
        | Action::DropCaches
        | Action::Idle { .. }
        | Action::LimitRam { .. }
        | Action::Copy { .. }
        | Action::Probe(_) => None,
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

/// The plan's phases in the order they first come.
fn phase_order(plan: &Plan) -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    for st in &plan.steps {
        let p = st.phase.clone().unwrap_or_default();
        if !v.contains(&p) {
            v.push(p);
        }
    }
    v
}

/// Matches steps across versions: pairs (old index, new index), in passes
/// from the strictest key to the loosest. The strictest also asks for the
/// same drive preparation before the step, so that two identical
/// measurements around a precondition pair with their own counterparts.
/// The loosest passes compare phases through the renames the earlier
/// passes found.
pub(super) fn match_steps(
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
        let (phases_old, phases_new) = (phase_order(old), phase_order(new));
        for (k, pa) in phases_old.iter().enumerate() {
            if renames.contains_key(pa) {
                continue;
            }
            if let Some(pb) = phases_new.get(k)
                && !renames.values().any(|v| v == pb)
                && !phases_old.contains(pb)
            {
                renames.insert(pa.clone(), pb.clone());
            }
        }
    }
    pairs.sort();
    pairs
}

/// For each step, the steps before it that its drive state depends on
/// ([`affects_state`]), since the last erase (the erase included), in order.
pub(super) fn dependencies(plan: &Plan) -> Vec<Vec<usize>> {
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
/// writes an amount (until written or transferred), or lets the drive
/// recover (idle).
pub(super) fn affects_state(s: &Step) -> bool {
    s.establishes_state
        || matches!(s.action, Action::Idle { .. })
        || matches!(&s.action, Action::Measure { stop, workload, .. } if stop.amount().is_some() && workload.writes())
}

/// New-plan indices of matched steps that are out of order: those not in a
/// longest run of matched steps whose order is kept.
pub(super) fn moved_steps(pairs: &[(usize, usize)]) -> Vec<usize> {
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
