//! Iometer's test types run by run, as Iometer itself steps through them
//! (iometer-org/iometer @ 7243b4d, `src/GalileoView.cpp`): before the
//! runs of a specification index `InitAccessSpecRun` (lines 749-760) sets
//! every cycling value to its start and every target inactive; then each
//! call of the test type's function (`SetActiveTargets`, lines 684-716)
//! marks targets active and sets queue depths, and returns whether another
//! run follows. A run is the state after each call that said yes, as
//! `CalcRunCount` (lines 2233-2285) counts them.
//!
//! The functions below are Iometer's, one manager's worth (a methodology
//! runs on one host: a second manager is refused before this), including
//! its quirks: `CycleWorkersTargets` steps the target count linearly when
//! the *worker* step is 1 (line 1764).

use super::model::{Cycling, TestType};
use super::setup::advance;

/// The most runs a specification may make here.
pub(super) const MAX_RUNS: usize = 4096;

/// A worker as the cycling sees it: how many targets it has, and its
/// outstanding I/Os.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Worker {
    pub(super) targets: u64,
    pub(super) qd: u64,
}

/// One run: for each worker, in order, how many of its first targets are
/// active (0: the worker sits out) and its queue depth.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct RunState {
    pub(super) active: Vec<u64>,
    pub(super) qd: Vec<u64>,
}

/// The three cycling settings, as `CheckData` leaves them before a run
/// (starts, steps and the queue end at least 1).
#[derive(Debug, Clone, Copy)]
pub(super) struct Cyclings {
    pub(super) workers: Cycling,
    pub(super) targets: Cycling,
    pub(super) queue: Cycling,
}

impl Cyclings {
    pub(super) fn new(workers: Cycling, targets: Cycling, queue: Cycling) -> Cyclings {
        let fix = |c: Cycling| Cycling {
            start: c.start.max(1),
            step: c.step.max(1),
            end: c.end.map(|e| e.max(1)),
            exponential: c.exponential,
        };
        Cyclings { workers: fix(workers), targets: fix(targets), queue: fix(queue) }
    }
}

/// Iometer's cycling state for one specification index.
struct Galileo<'a> {
    c: Cyclings,
    targets: &'a [u64],
    active: Vec<u64>,
    qd: Vec<u64>,
    workers_to_run: u64,
    targets_to_run: u64,
    queue_depth_to_run: u64,
    worker_exponent: u32,
    target_exponent: u32,
    queue_exponent: u32,
}

/// `start * step^k` or `+ step` past `u64`: more than any count here.
fn next(c: Cycling, value: u64, exponent: &mut u32) -> u64 {
    advance(c, value, exponent).unwrap_or(u64::MAX)
}

impl Galileo<'_> {
    /// `Worker::SetActiveTargets`: the first `n` targets active, the rest
    /// not; how many are.
    fn set(&mut self, w: usize, n: u64) -> u64 {
        self.active[w] = n.min(self.targets[w]);
        self.active[w]
    }

    fn count(&self) -> u64 {
        self.active.iter().sum()
    }

    fn clear(&mut self) {
        self.active.iter_mut().for_each(|a| *a = 0);
    }

    /// Lines 2007-2030.
    fn normal(&mut self) -> bool {
        let old = self.count();
        let new: u64 = (0..self.active.len()).map(|w| self.set(w, u64::MAX)).sum();
        new > old
    }

    /// Lines 1617-1659.
    fn cycle_targets(&mut self) -> bool {
        let old = self.count();
        let new: u64 = (0..self.active.len()).map(|w| self.set(w, self.targets_to_run)).sum();
        self.targets_to_run = next(self.c.targets, self.targets_to_run, &mut self.target_exponent);
        new > old
    }

    /// Lines 1667-1715.
    fn cycle_workers(&mut self) -> bool {
        let old = self.count();
        let n = usize::try_from(self.workers_to_run).unwrap_or(usize::MAX);
        let new: u64 = (0..self.active.len().min(n)).map(|w| self.set(w, u64::MAX)).sum();
        self.workers_to_run = next(self.c.workers, self.workers_to_run, &mut self.worker_exponent);
        new > old
    }

    /// Lines 1721-1783: how many workers ran, 0 when none.
    fn cycle_workers_targets(&mut self) -> usize {
        let old = self.count();
        let n = usize::try_from(self.workers_to_run).unwrap_or(usize::MAX);
        let workers = self.active.len().min(n);
        let new: u64 = (0..workers).map(|w| self.set(w, self.targets_to_run)).sum();
        if new == 0 {
            return 0;
        }
        if new > old {
            // Iometer tests the worker step here, not the target step: an
            // exponential target step of 1 then stays at its start.
            let t = self.c.targets;
            self.targets_to_run = if !t.exponential || self.c.workers.step == 1 {
                self.targets_to_run.saturating_add(t.step)
            } else {
                let p = t.step.checked_pow(self.target_exponent).unwrap_or(u64::MAX);
                self.target_exponent += 1;
                t.start.saturating_mul(p)
            };
            return workers;
        }
        self.clear();
        self.targets_to_run = self.c.targets.start;
        self.target_exponent = 1;
        self.workers_to_run = next(self.c.workers, self.workers_to_run, &mut self.worker_exponent);
        usize::from(self.cycle_workers_targets() > workers)
    }

    /// Lines 1793-1885 (parallel and serial are one with one manager).
    fn increment_targets(&mut self) -> bool {
        let old = self.count();
        let mut remaining = self.targets_to_run;
        let mut new = 0;
        for w in 0..self.active.len() {
            let set = self.set(w, remaining);
            new += set;
            remaining -= set;
        }
        self.targets_to_run = next(self.c.targets, self.targets_to_run, &mut self.target_exponent);
        new > old
    }

    /// Lines 1893-1942.
    fn cycle_queue(&mut self) -> bool {
        if self.queue_depth_to_run > self.c.queue.end.unwrap_or(32) {
            return false;
        }
        for w in 0..self.active.len() {
            self.qd[w] = self.queue_depth_to_run;
            self.set(w, u64::MAX);
        }
        self.queue_depth_to_run = next(self.c.queue, self.queue_depth_to_run, &mut self.queue_exponent);
        !self.active.is_empty()
    }

    /// Lines 1950-1999.
    fn cycle_targets_queue(&mut self) -> bool {
        if self.cycle_queue() {
            self.clear();
            let saved = (self.targets_to_run, self.target_exponent);
            self.cycle_targets();
            (self.targets_to_run, self.target_exponent) = saved;
            return true;
        }
        self.cycle_targets();
        let saved = (self.targets_to_run, self.target_exponent);
        if !self.cycle_targets() {
            return false;
        }
        (self.targets_to_run, self.target_exponent) = saved;
        self.queue_exponent = 1;
        self.queue_depth_to_run = self.c.queue.start;
        self.cycle_queue();
        self.clear();
        self.cycle_targets();
        (self.targets_to_run, self.target_exponent) = saved;
        true
    }

    /// `SetActiveTargets`, lines 684-716.
    fn call(&mut self, test: TestType) -> bool {
        match test {
            TestType::Normal => self.normal(),
            TestType::CycleTargets => self.cycle_targets(),
            TestType::CycleWorkers => self.cycle_workers(),
            TestType::CycleWorkersAndTargets => self.cycle_workers_targets() > 0,
            TestType::IncrementTargetsParallel | TestType::IncrementTargetsSerial => self.increment_targets(),
            TestType::CycleOutstandingIos => self.cycle_queue(),
            TestType::CycleOutstandingIosAndTargets => self.cycle_targets_queue(),
        }
    }
}

/// The runs of one specification index of `test` on `workers` (those
/// whose specification at that index is not Idle, in order); `None` when
/// there would be more than [`MAX_RUNS`].
pub(super) fn runs(test: TestType, c: Cyclings, workers: &[Worker]) -> Option<Vec<RunState>> {
    let targets: Vec<u64> = workers.iter().map(|w| w.targets).collect();
    let mut g = Galileo {
        c,
        targets: &targets,
        active: vec![0; workers.len()],
        qd: workers.iter().map(|w| w.qd).collect(),
        workers_to_run: c.workers.start,
        targets_to_run: c.targets.start,
        queue_depth_to_run: c.queue.start,
        worker_exponent: 1,
        target_exponent: 1,
        queue_exponent: 1,
    };
    let mut out = Vec::new();
    while g.call(test) {
        if out.len() == MAX_RUNS {
            return None;
        }
        out.push(RunState { active: g.active.clone(), qd: g.qd.clone() });
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::iometer::setup::cycle;

    fn c(start: u64, step: u64, exponential: bool) -> Cycling {
        Cycling { start, end: None, step, exponential }
    }

    fn q(start: u64, end: u64, step: u64, exponential: bool) -> Cycling {
        Cycling { start, end: Some(end), step, exponential }
    }

    fn workers(targets: &[u64]) -> Vec<Worker> {
        targets.iter().map(|t| Worker { targets: *t, qd: 4 }).collect()
    }

    fn runs_of(test: TestType, c: Cyclings, targets: &[u64]) -> Vec<RunState> {
        runs(test, c, &workers(targets)).unwrap()
    }

    /// The active counts of each run.
    fn active(test: TestType, c: Cyclings, targets: &[u64]) -> Vec<Vec<u64>> {
        runs_of(test, c, targets).into_iter().map(|r| r.active).collect()
    }

    #[test]
    fn increment_targets_hands_targets_down_the_workers() {
        let cy = Cyclings::new(c(1, 1, false), c(1, 1, false), q(1, 32, 2, true));
        assert_eq!(
            active(TestType::IncrementTargetsParallel, cy, &[2, 1, 2]),
            [vec![1, 0, 0], vec![2, 0, 0], vec![2, 1, 0], vec![2, 1, 1], vec![2, 1, 2]]
        );
        // 2, 4, 8 targets down the workers.
        let cy = Cyclings::new(c(1, 1, false), c(2, 2, true), q(1, 32, 2, true));
        assert_eq!(
            active(TestType::IncrementTargetsSerial, cy, &[2, 1, 2]),
            [vec![2, 0, 0], vec![2, 1, 1], vec![2, 1, 2]]
        );
    }

    #[test]
    fn cycle_workers_and_targets_grows_targets_then_workers() {
        let cy = Cyclings::new(c(1, 1, false), c(1, 1, false), q(1, 32, 2, true));
        assert_eq!(
            active(TestType::CycleWorkersAndTargets, cy, &[2, 2]),
            [vec![1, 0], vec![2, 0], vec![1, 1], vec![2, 2]]
        );
        // Workers 1, 2, 4 (exponential) on 3 workers: 1, 2, then all 3.
        let cy = Cyclings::new(c(1, 2, true), c(1, 1, false), q(1, 32, 2, true));
        assert_eq!(
            active(TestType::CycleWorkersAndTargets, cy, &[1, 1, 1]),
            [vec![1, 0, 0], vec![1, 1, 0], vec![1, 1, 1]]
        );
    }

    #[test]
    fn cycle_workers_and_targets_steps_targets_by_the_worker_step() {
        // Targets start 1, step 2, exponential: with a worker step of 1
        // Iometer adds 2 (1, 3); with a worker step of 2, multiplies (1, 2, 4).
        let cy = Cyclings::new(c(1, 1, false), c(1, 2, true), q(1, 32, 2, true));
        assert_eq!(active(TestType::CycleWorkersAndTargets, cy, &[4]), [vec![1], vec![3], vec![4]]);
        let cy = Cyclings::new(c(1, 2, false), c(1, 2, true), q(1, 32, 2, true));
        assert_eq!(active(TestType::CycleWorkersAndTargets, cy, &[4]), [vec![1], vec![2], vec![4]]);
    }

    #[test]
    fn cycle_queue_and_targets_sweeps_depths_at_each_target_count() {
        let cy = Cyclings::new(c(1, 1, false), c(1, 1, false), q(1, 4, 2, true));
        let r = runs(TestType::CycleOutstandingIosAndTargets, cy, &workers(&[2, 1])).unwrap();
        let got: Vec<(Vec<u64>, u64)> = r.iter().map(|r| (r.active.clone(), r.qd[0])).collect();
        assert_eq!(
            got,
            [
                (vec![1, 1], 1),
                (vec![1, 1], 2),
                (vec![1, 1], 4),
                (vec![2, 1], 1),
                (vec![2, 1], 2),
                (vec![2, 1], 4)
            ]
        );
        assert!(r.iter().all(|r| r.qd[0] == r.qd[1]), "every worker at the cycled depth");
    }

    /// CYCLE_WORKERS runs again only while the count of workers grows.
    #[test]
    fn worker_cycling_runs_while_the_count_grows() {
        let counts = |rule: Cycling| -> Vec<u64> {
            let cy = Cyclings::new(rule, c(1, 1, false), q(1, 32, 2, true));
            active(TestType::CycleWorkers, cy, &[1, 1, 1, 1])
                .iter()
                .map(|a| a.iter().filter(|n| **n > 0).count() as u64)
                .collect()
        };
        assert_eq!(counts(c(1, 2, false)), [1, 3, 4]);
        assert_eq!(counts(c(1, 2, true)), [1, 2, 4]);
        assert_eq!(counts(c(8, 1, false)), [4]);
    }

    /// CYCLE_TARGETS gives every worker its first t targets while some
    /// worker's count grows; CYCLE_OUTSTANDING_IOS runs the depths `cycle`
    /// lists (which the export shares); NORMAL is every target at once.
    #[test]
    fn the_plain_types_step_as_iometer_counts() {
        for start in 1..4 {
            for step in 1..4 {
                for exponential in [false, true] {
                    let rule = c(start, step, exponential);
                    for targets in [vec![1], vec![3], vec![2, 5], vec![4, 1, 3]] {
                        let cy = Cyclings::new(rule, rule, q(start, 64, step, exponential));
                        let runs = active(TestType::CycleTargets, cy, &targets);
                        for (k, a) in runs.iter().enumerate() {
                            let t = *a.iter().max().unwrap();
                            assert!(a.iter().zip(&targets).all(|(n, most)| *n == t.min(*most)), "{a:?}");
                            assert!(k == 0 || t > *runs[k - 1].iter().max().unwrap(), "{rule:?} {runs:?}");
                        }
                        assert_eq!(runs.last().unwrap(), &targets, "the last run has every target");
                        let depths: Vec<u64> = runs_of(TestType::CycleOutstandingIos, cy, &targets)
                            .iter()
                            .map(|r| r.qd[0])
                            .collect();
                        assert_eq!(Some(depths), cycle(start, 64, step, exponential));
                        assert_eq!(active(TestType::Normal, cy, &targets), std::slice::from_ref(&targets));
                    }
                }
            }
        }
    }

    #[test]
    fn too_many_runs_are_none() {
        let cy = Cyclings::new(c(1, 1, false), c(1, 1, false), q(1, 256, 1, false));
        assert!(runs(TestType::CycleOutstandingIosAndTargets, cy, &workers(&[17])).is_none());
        assert!(runs(TestType::CycleOutstandingIosAndTargets, cy, &workers(&[16])).is_some());
    }
}
