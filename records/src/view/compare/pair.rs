//! Pairing the points of several runs: each run's points in, out the groups
//! (one point a run) that did the same thing, by what they did (`IoKey`:
//! workload I/O and queue depth, never a name or step id), and the groups
//! some run lacks; and a pair's values in, each later run's over the
//! first's out (`ratios`).

use std::collections::BTreeMap;

use methodic_compiler::plan::IoKey;

use crate::view::points::Point;

/// Groups of points, one a run, that did the same thing; and the groups
/// some run lacks. First pass: the same phase, workload I/O, QD, rate, jobs
/// beside (a `together` job) and repeat run (the nth such in each run);
/// second pass, for what is left: the same in any phase (a renamed or moved
/// phase); third pass: the same workload I/O and QD whatever the rate and
/// the jobs beside, so that a changed load pairs and compare names the
/// change. Pairs come in the first run's step order.
pub(super) fn pair_up(all: &[Vec<Point>]) -> (Vec<Vec<&Point>>, Vec<Vec<Option<&Point>>>) {
    let mut used: Vec<Vec<bool>> = all.iter().map(|pts| vec![false; pts.len()]).collect();
    let mut pairs: Vec<Vec<usize>> = Vec::new();
    // The phase (first pass only), what the point did, the jobs beside it
    // (not in the last pass), and its repeat run (first pass only).
    type Key = (Option<String>, IoKey, Option<Vec<IoKey>>, Option<Option<u32>>);
    let passes: [fn(&Point) -> Key; 3] = [
        |p| {
            let phase = Some(p.phase.clone().unwrap_or_default());
            (phase, p.io.clone(), Some(p.beside.clone()), Some(p.repeat.map(|r| r.run)))
        },
        |p| (None, p.io.clone(), Some(p.beside.clone()), None),
        |p| (None, without_rate(&p.io), None, None),
    ];
    let mut leftover: Vec<(Key, Vec<Option<usize>>)> = Vec::new();
    for (pass, key_of) in passes.iter().enumerate() {
        // Each unused point's key with its occurrence number in its run.
        let keyed: Vec<BTreeMap<(Key, usize), usize>> = all
            .iter()
            .zip(&used)
            .map(|(pts, used)| {
                let mut seen: BTreeMap<Key, usize> = BTreeMap::new();
                let mut out = BTreeMap::new();
                for (i, p) in pts.iter().enumerate().filter(|(i, _)| !used[*i]) {
                    let k = key_of(p);
                    let n = seen.entry(k.clone()).or_default();
                    *n += 1;
                    out.insert((k, *n), i);
                }
                out
            })
            .collect();
        let mut order: Vec<(usize, usize, (Key, usize))> = Vec::new();
        for (r, run) in keyed.iter().enumerate() {
            for (k, i) in run {
                order.push((r, *i, k.clone()));
            }
        }
        order.sort();
        let mut done = std::collections::BTreeSet::new();
        for (_, _, k) in order {
            if !done.insert(k.clone()) {
                continue;
            }
            let found: Vec<Option<usize>> = keyed.iter().map(|run| run.get(&k).copied()).collect();
            if found.iter().all(Option::is_some) {
                let idx: Vec<usize> = found.into_iter().flatten().collect();
                for (r, i) in idx.iter().enumerate() {
                    used[r][*i] = true;
                }
                pairs.push(idx);
            } else if pass == passes.len() - 1 {
                leftover.push((k.0, found));
            }
        }
    }
    pairs.sort_by_key(|idx| idx[0]);
    let paired = pairs.iter().map(|idx| idx.iter().enumerate().map(|(r, i)| &all[r][*i]).collect()).collect();
    let unpaired = leftover
        .into_iter()
        .map(|(_, f)| f.iter().enumerate().map(|(r, i)| i.map(|i| &all[r][i])).collect())
        .collect();
    (paired, unpaired)
}

/// What a point did, whatever its rate: the same I/O and queue depth open
/// loop at another rate, or closed loop.
fn without_rate(io: &IoKey) -> IoKey {
    match io {
        IoKey::Io { kind, io, qd, verify, .. } => {
            IoKey::Io { kind, io: io.clone(), qd: *qd, rate: None, verify: *verify }
        }
        other => other.clone(),
    }
}

/// Each later value over the first, where both are whole (no error) and
/// the first is above zero.
pub(super) fn ratios(values: &[(Option<f64>, bool)]) -> Vec<Option<f64>> {
    let base = values[0].0.filter(|_| values[0].1);
    values[1..]
        .iter()
        .map(|(v, whole)| match (base, v) {
            (Some(a), Some(b)) if a > 0.0 && *whole => Some(b / a),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::points::sample;

    fn at(phase: &str, io: &'static str, id: &str) -> Point {
        Point { phase: Some(phase.into()), io: IoKey::Other(io), id: id.into(), ..sample() }
    }

    fn ids<'a>(group: impl IntoIterator<Item = Option<&'a Point>>) -> Vec<&'a str> {
        group.into_iter().map(|p| p.map_or("-", |p| p.id.as_str())).collect()
    }

    #[test]
    fn a_ratio_needs_a_whole_baseline_above_zero_and_a_whole_value() {
        let r = ratios(&[(Some(100.0), true), (Some(150.0), true), (Some(50.0), false), (None, true)]);
        assert_eq!(r, [Some(1.5), None, None]);
        assert_eq!(ratios(&[(Some(0.0), true), (Some(1.0), true)]), [None]);
        assert_eq!(ratios(&[(Some(100.0), false), (Some(1.0), true)]), [None], "a failed baseline");
    }

    #[test]
    fn points_pair_in_their_phase_first_then_across_phases_and_the_rest_stay_apart() {
        let a = vec![at("one", "x", "a1"), at("one", "y", "a2"), at("two", "x", "a3")];
        let b = vec![at("two", "y", "b1"), at("two", "x", "b2"), at("one", "x", "b3"), at("one", "z", "b4")];
        let all = [a, b];
        let (pairs, unpaired) = pair_up(&all);
        let pairs: Vec<Vec<&str>> = pairs.into_iter().map(|g| ids(g.into_iter().map(Some))).collect();
        assert_eq!(pairs, [["a1", "b3"], ["a2", "b1"], ["a3", "b2"]], "in the first run's order");
        let unpaired: Vec<Vec<&str>> = unpaired.into_iter().map(ids).collect();
        assert_eq!(unpaired, [["-", "b4"]]);
    }

    #[test]
    fn the_nth_of_a_kind_pairs_with_the_nth() {
        let a = vec![at("p", "x", "a1"), at("p", "x", "a2")];
        let b = vec![at("p", "x", "b1"), at("p", "x", "b2"), at("p", "x", "b3")];
        let all = [a, b];
        let (pairs, unpaired) = pair_up(&all);
        let pairs: Vec<Vec<&str>> = pairs.into_iter().map(|g| ids(g.into_iter().map(Some))).collect();
        assert_eq!(pairs, [["a1", "b1"], ["a2", "b2"]]);
        assert_eq!(unpaired.into_iter().map(ids).collect::<Vec<_>>(), [["-", "b3"]]);
    }
}
