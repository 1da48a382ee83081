//! Rounds steps: cells of workloads run in turn, round after round, until
//! the tracked cell is steady; what each cell did over the steady window
//! comes out. Also what both steady-state loops (this and a precondition
//! until steady) report: the tracked values and the window.

use std::sync::atomic::Ordering;
use std::time::SystemTime;

use methodic_compiler::plan::{Cell, Metric, SteadyRule};
use methodic_results::csv_file::Writer;
use methodic_results::record::{CellResult, Spread, SteadyResult};
use methodic_results::rounds::CellRound;

use crate::error::{Error, Result};
use crate::exec::io::spread::Part;
use crate::exec::io::{At, IoSpec, std_duration};
use crate::exec::step::{Executor, StepRun};
use crate::stats::Recorder;
use crate::steady;
use methodic_results::numbers::{Latency, Summary};

/// `rounds { ... } until steady { ... }`: each round runs every cell in
/// turn; the tracked cell's metric decides when the rounds are steady.
/// A row a cell a round in `<step>.rounds.csv`; each cell's numbers over
/// the last window, its latency merged over those rounds.
#[expect(
    clippy::too_many_lines,
    reason = "not split yet: a PTS test's rounds, its cells and its steady-state verdict"
)]
pub(super) fn run(
    x: &mut Executor<'_>,
    s: &mut StepRun<'_>,
    cells: &[Cell],
    track: usize,
    rule: &SteadyRule,
) -> Result<()> {
    let (step, settings) = (s.step, s.settings);
    let csv = x.results.series_path(&step.id, ".rounds")?;
    let mut rounds_out = Writer::<CellRound>::create(&csv)?;
    let mut per_cell: Vec<Vec<Summary>> = vec![Vec::new(); cells.len()];
    // Each cell's last `window` rounds of latencies, to merge into the
    // window's distribution at the end.
    let mut tails: Vec<RecentRecorders> = vec![RecentRecorders::new(rule.window as usize); cells.len()];
    let mut log = x.latency_log(step, SystemTime::now())?;
    let mut values = Vec::new();
    let mut window = None;
    let mut info = None;
    // Each cell's last round's spread over devices and workers.
    let mut spreads: Vec<Option<Spread>> = vec![None; cells.len()];
    // On many hosts: each cell's last round on each host.
    let mut hosts: Vec<Vec<methodic_results::record::HostRates>> = vec![Vec::new(); cells.len()];
    // On many hosts: the widest start of the hosts' record windows.
    let mut skew: Option<(f64, String, u64)> = None;
    // As for a precondition: an error keeps the rounds before it.
    let mut gather = || -> Result<()> {
        for r in 1..=rule.max_rounds {
            for (k, cell) in cells.iter().enumerate() {
                let run = x.io(
                    step,
                    IoSpec {
                        workload: &cell.workload,
                        qd: cell.qd,
                        settings,
                        ramp: std_duration(cell.ramp),
                        record: Some(std_duration(cell.record)),
                        passes: None,
                        budget: None,
                        series: None,
                        at: At { round: r, cell: k as u32 + 1 },
                        rate: None,
                        pauses: Default::default(),
                        verify: None,
                    },
                )?;
                let s = run.recorder.summary(run.seconds);
                rounds_out.row(&CellRound::of(r, k as u32 + 1, &cell.workload.name, cell.qd.total, &s))?;
                if let Some(log) = log.as_mut() {
                    run.log_into(log, &format!("cell{}.", k + 1))?;
                }
                tails[k].push(&run.recorder);
                let part = Part { job: None, cell: Some(k as u32 + 1), first: 0 };
                spreads[k] = run.spread(&x.targets, part);
                hosts[k] = run.host_rates(Some(k as u32 + 1));
                crate::exec::io::spread::widest(&mut skew, run.host_skew.clone());
                if k == track {
                    values.push(metric_of(&s, rule.metric));
                }
                per_cell[k].push(s);
                info = Some(run.info);
                if x.workers.stop.load(Ordering::Relaxed) {
                    break;
                }
            }
            window = steady::check(&values, rule);
            if window.as_ref().is_some_and(|w| w.steady) || x.workers.stop.load(Ordering::Relaxed) {
                break;
            }
        }
        Ok(())
    };
    let outcome = gather();
    if let Err(Error::IoFailed(f)) = &outcome {
        info = Some(f.info.clone());
    }
    if per_cell.iter().all(Vec::is_empty) {
        return outcome;
    }
    let w = rule.window as usize;
    s.out.cells = Some(
        cells
            .iter()
            .zip(&per_cell)
            .zip(&tails)
            .filter(|((_, runs), _)| !runs.is_empty())
            .map(|((cell, runs), tail_latency)| {
                let tail = &runs[runs.len().saturating_sub(w)..];
                let avg = |f: &dyn Fn(&Summary) -> f64| tail.iter().map(f).sum::<f64>() / tail.len() as f64;
                CellResult {
                    workload: cell.workload.name.clone(),
                    qd: cell.qd.total,
                    workers: cell.qd.workers,
                    window_iops: avg(&|s| s.total.iops),
                    window_mb_s: avg(&|s| s.total.mb_s),
                    window_mean_latency_us: avg(&|s| s.total.latency_us.mean),
                    window_latency_us: tail_latency.merged(),
                    rounds_latency_us: runs.iter().map(|s| s.total.latency_us.clone()).collect(),
                    peak_iops: runs.iter().map(|s| s.total.iops).fold(0.0, f64::max),
                    peak_mb_s: runs.iter().map(|s| s.total.mb_s).fold(0.0, f64::max),
                    last: runs[runs.len() - 1].clone(),
                }
            })
            .collect(),
    );
    s.out.io = info;
    s.out.spread.extend(spreads.into_iter().flatten());
    let on = hosts.first().map_or(0, Vec::len);
    s.out.hosts.extend(hosts.into_iter().flatten());
    s.out.actions.extend(crate::exec::io::spread::skew_words(skew.as_ref(), on));
    s.out.series = Some(x.relative(&csv));
    s.out.latency_log = log.as_ref().map(|l| x.relative(l.path()));
    s.out.steady = Some(steady_result(rule, values, window));
    outcome
}

/// A cell's latency histograms of its last `keep` rounds, kept compressed
/// (a few KiB a round instead of the histogram's few hundred).
#[derive(Clone)]
struct RecentRecorders {
    keep: usize,
    rounds: std::collections::VecDeque<[Vec<u8>; 2]>,
}

impl RecentRecorders {
    fn new(keep: usize) -> RecentRecorders {
        RecentRecorders { keep: keep.max(1), rounds: std::collections::VecDeque::new() }
    }

    fn push(&mut self, rec: &Recorder) {
        use hdrhistogram::serialization::{Serializer, V2DeflateSerializer};
        let mut ser = V2DeflateSerializer::new();
        let mut pack = |h: &hdrhistogram::Histogram<u64>| {
            let mut bytes = Vec::new();
            // Serializing into memory fails only on a histogram too large to encode.
            ser.serialize(h, &mut bytes).map(|_| bytes).unwrap_or_default()
        };
        if self.rounds.len() == self.keep {
            self.rounds.pop_front();
        }
        self.rounds.push_back([pack(&rec.read.lat), pack(&rec.write.lat)]);
    }

    /// The latency of every I/O of the kept rounds, reads and writes together.
    fn merged(&self) -> Latency {
        let mut all = crate::stats::histogram(3);
        let mut de = hdrhistogram::serialization::Deserializer::new();
        for bytes in self.rounds.iter().flatten().filter(|b| !b.is_empty()) {
            if let Ok(h) = de.deserialize::<u64, _>(&mut bytes.as_slice()) {
                let _ = all.add(&h);
            }
        }
        crate::stats::latency_of(&all)
    }
}

/// What a steady-state loop reports: the tracked values and the last window.
pub(super) fn steady_result(
    rule: &SteadyRule,
    values: Vec<f64>,
    window: Option<methodic_results::analysis::Window>,
) -> SteadyResult {
    SteadyResult {
        metric: rule.metric,
        reached: window.as_ref().is_some_and(|w| w.steady),
        rounds: values.len() as u32,
        values,
        window,
        rounds_latency_us: Vec::new(),
    }
}

pub(super) fn metric_of(s: &Summary, m: Metric) -> f64 {
    match m {
        Metric::Iops => s.total.iops,
        Metric::Bandwidth => s.total.mb_s,
        Metric::Latency => s.total.latency_us.mean,
    }
}
