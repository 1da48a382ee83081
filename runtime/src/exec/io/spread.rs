//! A run's spread over devices and workers, and its bursts: each worker's
//! own record (its target, recorder, record time and I/Os a series
//! interval) in; out the records' [`Spread`] (each device's rates, its
//! workers' I/Os merged and its latency from their merged histograms, and
//! each worker's, each with its noise against its group) and each
//! burst's [`BurstResult`]. A run on one worker has no spread: its summary
//! is the worker's.

use methodic_compiler::plan::Bursts;
use methodic_results::record::{BurstResult, DeviceRates, Noise, Spread, WorkerRates};

use crate::stats::Recorder;
use crate::target::Target;
use crate::worker::BurstTally;

/// One worker's own record of a run.
pub(crate) struct WorkerRun {
    /// Its target: an index into the targets the run was given.
    pub(crate) target: usize,
    pub(crate) recorder: Recorder,
    /// I/Os recorded in each series interval of its record window.
    pub(crate) intervals: Vec<u64>,
    /// Its record time: the run's when timed, else to its last recorded
    /// completion.
    pub(crate) seconds: f64,
}

impl WorkerRun {
    /// Its whole intervals of `interval_s`, those it recorded nothing in
    /// counted as 0.
    fn whole(&self, interval_s: f64) -> Vec<u64> {
        let n = whole_intervals(self.seconds, interval_s);
        let mut out = self.intervals.clone();
        out.resize(n, 0);
        out
    }
}

/// The whole intervals of `interval_s` in `seconds`.
fn whole_intervals(seconds: f64, interval_s: f64) -> usize {
    if interval_s > 0.0 { (seconds / interval_s + 1e-9).floor().max(0.0) as usize } else { 0 }
}

/// Each worker of several runs of one I/O (a precondition's rounds) as
/// one: recorders merged, record times added, whole intervals one run's
/// after another's.
pub(crate) fn absorb(into: &mut Vec<WorkerRun>, next: Vec<WorkerRun>, interval_s: f64) {
    if into.is_empty() {
        into.extend(next.into_iter().map(|w| WorkerRun { intervals: w.whole(interval_s), ..w }));
        return;
    }
    for (a, b) in into.iter_mut().zip(next) {
        a.recorder.merge(&b.recorder);
        a.intervals.extend(b.whole(interval_s));
        a.seconds += b.seconds;
    }
}

/// Where a run's spread belongs in its step, and where its targets are
/// among the run's.
pub(crate) struct Part {
    /// A `together` job's name.
    pub(crate) job: Option<String>,
    /// A rounds cell, from 1.
    pub(crate) cell: Option<u32>,
    /// The run's first target among the step's targets (a job's device).
    pub(crate) first: usize,
}

impl Part {
    /// The step's own I/O, on the step's targets.
    pub(crate) const STEP: Part = Part { job: None, cell: None, first: 0 };
}

/// How far apart the hosts of a run on many hosts began recording, in
/// words for the step's actions: `on 8 hosts, started together at a set
/// time on each host's clock, 1.5 s after the jobs were sent: the record
/// windows began within 15 ms of each other (ip:10.0.0.7,8765 last)`.
pub(crate) fn skew_words(skew: Option<&(f64, String, u64)>, hosts: usize) -> Option<String> {
    let (s, last, margin) = skew?;
    Some(format!(
        "on {hosts} hosts, started together at a set time on each host's clock, {:.1} s after the jobs were sent: \
         the record windows began within {:.0} ms of each other ({last} last)",
        *margin as f64 / 1000.0,
        s * 1000.0
    ))
}

/// Keeps in `widest` the wider of it and `skew`.
pub(crate) fn widest(widest: &mut Option<(f64, String, u64)>, skew: Option<(f64, String, u64)>) {
    if let Some(s) = skew
        && widest.as_ref().is_none_or(|w| s.0 > w.0)
    {
        *widest = Some(s);
    }
}

/// The spread of `workers` (see `IoRun::spread`).
pub(crate) fn spread_of(
    workers: &[WorkerRun],
    interval_s: f64,
    targets: &[Target],
    part: Part,
) -> Option<Spread> {
    if workers.len() < 2 {
        return None;
    }
    let target_of = |w: &WorkerRun| part.first + w.target;
    let path_of = |t: usize| targets.get(t).map(|t| t.path.clone()).unwrap_or_default();
    let mut used: Vec<usize> = workers.iter().map(target_of).collect();
    used.sort_unstable();
    used.dedup();
    // Each worker's noise against the others on its device; each device's
    // series, its workers' intervals added.
    let mut noise: Vec<Option<Noise>> = vec![None; workers.len()];
    let mut series: Vec<Vec<u64>> = Vec::with_capacity(used.len());
    for &t in &used {
        let on: Vec<usize> = (0..workers.len()).filter(|i| target_of(&workers[*i]) == t).collect();
        let whole: Vec<Vec<u64>> = on.iter().map(|i| workers[*i].whole(interval_s)).collect();
        for (i, n) in on.iter().zip(Noise::of_group(&whole, interval_s)) {
            noise[*i] = Some(n);
        }
        let seconds = on.iter().map(|i| workers[*i].seconds).fold(0.0, f64::max);
        let mut sum = vec![0u64; whole_intervals(seconds, interval_s)];
        for w in &whole {
            for (s, n) in sum.iter_mut().zip(w) {
                *s += n;
            }
        }
        series.push(sum);
    }
    let worker_rows: Vec<WorkerRates> = workers
        .iter()
        .zip(noise)
        .enumerate()
        .map(|(i, (w, noise))| WorkerRates {
            worker: i as u32 + 1,
            target: target_of(w) as u32 + 1,
            path: path_of(target_of(w)),
            seconds: w.seconds,
            rates: w.recorder.summary(w.seconds).total,
            noise: noise.expect("every worker is on a device"),
        })
        .collect();
    let devices = if used.len() < 2 {
        Vec::new()
    } else {
        used.iter()
            .zip(Noise::of_group(&series, interval_s))
            .map(|(&t, noise)| {
                let on: Vec<(usize, &WorkerRun)> =
                    workers.iter().enumerate().filter(|(_, w)| target_of(w) == t).collect();
                let mut merged = Recorder::default();
                for (_, w) in &on {
                    merged.merge(&w.recorder);
                }
                let seconds = on.iter().map(|(_, w)| w.seconds).fold(0.0, f64::max);
                DeviceRates {
                    target: t as u32 + 1,
                    path: path_of(t),
                    workers: on.iter().map(|(i, _)| *i as u32 + 1).collect(),
                    seconds,
                    rates: merged.summary(seconds).total,
                    noise,
                }
            })
            .collect()
    };
    Some(Spread { job: part.job, cell: part.cell, devices, workers: worker_rows })
}

/// A run's bursts: what its workers' I/Os started in each burst came to.
pub(crate) struct BurstRun {
    bursts: Bursts,
    tallies: Vec<BurstTally>,
    pub(crate) from_ramp: u64,
}

impl BurstRun {
    pub(crate) fn new(bursts: Bursts) -> BurstRun {
        BurstRun { bursts, tallies: Vec::new(), from_ramp: 0 }
    }

    /// Adds one worker's bursts.
    pub(crate) fn add(&mut self, tallies: &[BurstTally], from_ramp: u64) {
        if self.tallies.len() < tallies.len() {
            self.tallies.resize(tallies.len(), BurstTally::default());
        }
        for (sum, t) in self.tallies.iter_mut().zip(tallies) {
            sum.ios += t.ios;
            sum.latency_ns = sum.latency_ns.saturating_add(t.latency_ns);
        }
        self.from_ramp += from_ramp;
    }

    /// Every burst that starts in a record window of `seconds` (and any
    /// later one that recorded I/Os, were the window's end uneven across
    /// workers), in order.
    pub(crate) fn results(&self, seconds: f64, job: Option<&str>) -> Vec<BurstResult> {
        let period = self.bursts.every.as_millis() as f64 / 1e3;
        let on = self.bursts.on.as_millis() as f64 / 1e3;
        if period <= 0.0 {
            return Vec::new();
        }
        let in_window = (seconds / period - 1e-9).ceil().max(0.0) as usize;
        let n = in_window.max(self.tallies.len());
        (0..n)
            .map(|i| {
                let t = self.tallies.get(i).copied().unwrap_or_default();
                let start_s = i as f64 * period;
                let on_s = on.min((seconds - start_s).max(0.0));
                BurstResult {
                    job: job.map(str::to_string),
                    index: i as u32,
                    start_s,
                    on_s,
                    ios: t.ios,
                    iops: if on_s > 0.0 { t.ios as f64 / on_s } else { 0.0 },
                    mean_latency_us: (t.ios > 0).then(|| t.latency_ns as f64 / t.ios as f64 / 1e3),
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use methodic_compiler::plan::Duration;

    use super::*;
    use crate::workload::Op;

    fn worker(target: usize, ios: u64, intervals: Vec<u64>, seconds: f64) -> WorkerRun {
        let mut recorder = Recorder::default();
        for k in 0..ios {
            recorder.record(Op::Read, 4096, 1000 + k * 10);
        }
        WorkerRun { target, recorder, intervals, seconds }
    }

    /// Four workers on two devices, round robin: each device is its
    /// workers' I/Os, its series their intervals added; the devices add up
    /// to the whole; a worker's missing intervals count as 0.
    #[test]
    fn a_device_is_its_workers_merged() {
        let workers = vec![
            worker(0, 40, vec![10, 10, 10, 10], 4.0),
            worker(1, 8, vec![2, 2, 2, 2], 4.0),
            worker(0, 36, vec![9, 9, 9, 9], 4.0),
            worker(1, 6, vec![2, 2, 2], 4.0),
        ];
        let s = spread_of(&workers, 1.0, &[], Part::STEP).expect("four workers");
        assert_eq!(s.workers.len(), 4);
        assert_eq!(s.workers.iter().map(|w| w.target).collect::<Vec<_>>(), [1, 2, 1, 2]);
        let [a, b] = s.devices.as_slice() else { panic!("two devices: {:?}", s.devices) };
        assert_eq!((a.target, a.workers.as_slice()), (1, &[1, 3][..]));
        assert_eq!((b.target, b.workers.as_slice()), (2, &[2, 4][..]));
        assert_eq!((a.rates.ios, b.rates.ios), (76, 14));
        assert_eq!(a.rates.iops, 19.0);
        assert_eq!(a.noise.intervals, 4);
        // Device 1 ran 19 an interval, device 2 4 then 2 (its fourth
        // worker's last interval is 0): each interval's ln(n + 1) against
        // their mean, opposite for two.
        let expect = (3.0 * (4.0f64).ln() / 2.0 + (20.0f64 / 3.0).ln() / 2.0) / 4.0;
        assert!((a.noise.vs_group - expect).abs() < 1e-12, "{:?}", a.noise);
        assert!((a.noise.vs_group + b.noise.vs_group).abs() < 1e-12, "two devices: opposite");
        assert_eq!((a.noise.sd_iops, b.noise.sd_iops), (0.0, 1.0));
        assert!(a.noise.vs_group_se.is_some());
        // Workers against the others on their device: 10 against 9.
        assert!(s.workers[0].noise.vs_group > 0.0 && s.workers[2].noise.vs_group < 0.0);
        // Latency from the merged histograms: the slowest of either worker.
        assert_eq!(a.rates.latency_us.max, s.workers[0].rates.latency_us.max);
        let one = spread_of(&workers[..1], 1.0, &[], Part::STEP);
        assert!(one.is_none(), "one worker: no spread");
        let same = spread_of(&[worker(0, 1, vec![1], 1.0), worker(0, 1, vec![1], 1.0)], 1.0, &[], Part::STEP)
            .unwrap();
        assert!(same.devices.is_empty() && same.workers.len() == 2, "one device: workers only");
    }

    #[test]
    fn rounds_add_up_worker_by_worker() {
        let mut all = Vec::new();
        absorb(&mut all, vec![worker(0, 4, vec![2, 2, 1], 2.0), worker(1, 2, vec![1], 2.0)], 1.0);
        absorb(&mut all, vec![worker(0, 4, vec![2, 2], 2.0), worker(1, 2, vec![1, 1], 2.0)], 1.0);
        assert_eq!(all[0].intervals, [2, 2, 2, 2], "whole intervals only, one round after the other");
        assert_eq!(all[1].intervals, [1, 0, 1, 1]);
        assert_eq!((all[0].recorder.ios(), all[0].seconds), (8, 4.0));
    }

    /// Bursts of 100ms every 300ms over 1.2 s: four, each over its 100ms;
    /// a window that ends inside a burst cuts its `on`.
    #[test]
    fn bursts_cover_the_record_window() {
        let mut b =
            BurstRun::new(Bursts { on: Duration::from_millis(100), every: Duration::from_millis(300) });
        b.add(&[BurstTally { ios: 10, latency_ns: 10_000 }, BurstTally { ios: 20, latency_ns: 60_000 }], 3);
        b.add(&[BurstTally { ios: 10, latency_ns: 30_000 }], 0);
        let r = b.results(1.2, None);
        assert_eq!(r.len(), 4);
        assert_eq!(r.iter().map(|b| b.ios).collect::<Vec<_>>(), [20, 20, 0, 0]);
        assert_eq!((r[0].iops, r[0].mean_latency_us), (200.0, Some(2.0)));
        assert_eq!((r[1].start_s, r[1].mean_latency_us), (0.3, Some(3.0)));
        assert_eq!(r[3].mean_latency_us, None);
        assert_eq!(b.from_ramp, 3);
        let cut = b.results(0.95, Some("j"));
        assert_eq!(cut.len(), 4);
        assert!((cut[3].on_s - 0.05).abs() < 1e-9, "{}", cut[3].on_s);
        assert_eq!(cut[0].job.as_deref(), Some("j"));
    }
}
