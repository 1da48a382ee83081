//! Rounds steps: cells of workloads run in turn, round after round, until
//! the tracked cell is steady; what each cell did over the steady window
//! comes out. Also what both steady-state loops (this and a precondition
//! until steady) report: the tracked values and the window.

use std::sync::atomic::Ordering;
use std::time::SystemTime;

use methodic_compiler::plan::{Cell, Metric, SteadyRule, Step, Target as Settings};
use methodic_results::analysis::Window;
use methodic_results::csv_file::Writer;
use methodic_results::record::{CellResult, HostRates, IoInfo, Spread, SteadyResult};
use methodic_results::rounds::CellRound;

use crate::error::{Error, Result};
use crate::exec::io::spread::{self, Part};
use crate::exec::io::{At, IoRun, IoSpec, std_duration};
use crate::exec::step::{Executor, StepRun};
use crate::hlog::HistogramLog;
use crate::stats::Recorder;
use crate::steady;
use methodic_results::numbers::{Latency, Summary};

/// `rounds { ... } until steady { ... }`: each round runs every cell in
/// turn; the tracked cell's metric decides when the rounds are steady.
/// A row a cell a round in `<step>.rounds.csv`; each cell's numbers over
/// the last window, its latency merged over those rounds.
pub(super) fn run(
    x: &mut Executor<'_>,
    s: &mut StepRun<'_>,
    cells: &[Cell],
    track: usize,
    rule: &SteadyRule,
) -> Result<()> {
    let csv = x.results.series_path(&s.step.id, ".rounds")?;
    let mut out = Rounds {
        csv: Writer::create(&csv)?,
        log: x.latency_log(s.step, SystemTime::now())?,
        kept: Kept::new(cells.len(), rule.window as usize),
    };
    // As for a precondition: an error keeps the rounds before it.
    let outcome = out.until_steady(x, (s.step, s.settings), cells, track, rule);
    let Rounds { log, mut kept, .. } = out;
    if let Err(Error::IoFailed(f)) = &outcome {
        kept.info = Some(f.info.clone());
    }
    if kept.per_cell.iter().all(Vec::is_empty) {
        return outcome;
    }
    s.out.cells = Some(kept.cell_results(cells, rule.window as usize));
    s.out.io = kept.info;
    s.out.spread.extend(kept.spreads.into_iter().flatten());
    let on = kept.hosts.first().map_or(0, Vec::len);
    s.out.hosts.extend(kept.hosts.into_iter().flatten());
    s.out.actions.extend(spread::skew_words(kept.skew.as_ref(), on));
    s.out.series = Some(x.relative(&csv));
    s.out.latency_log = log.as_ref().map(|l| x.relative(l.path()));
    s.out.steady = Some(steady_result(rule, kept.values, kept.window));
    outcome
}

/// Where a rounds step's rounds go as they run: their CSV, the latency
/// log, and what the step's record is made of at the end.
struct Rounds {
    csv: Writer<CellRound>,
    log: Option<HistogramLog>,
    kept: Kept,
}

/// What a rounds step keeps of its rounds for its record.
struct Kept {
    /// Each cell's summary of each round it ran.
    per_cell: Vec<Vec<Summary>>,
    /// Each cell's last `window` rounds of latencies, to merge into the
    /// window's distribution at the end.
    tails: Vec<RecentRecorders>,
    /// Each cell's last round's spread over devices and workers.
    spreads: Vec<Option<Spread>>,
    /// On many hosts: each cell's last round on each host.
    hosts: Vec<Vec<HostRates>>,
    /// On many hosts: the widest start of the hosts' record windows.
    skew: Option<(f64, String, u64)>,
    /// The tracked cell's metric each round, and the last window checked.
    values: Vec<f64>,
    window: Option<Window>,
    /// The last run's I/O facts (a failed run's, when one failed).
    info: Option<IoInfo>,
}

impl Rounds {
    /// Round after round of every cell in turn, until the tracked cell is
    /// steady, the rule's last round has run, or the run is stopped.
    fn until_steady(
        &mut self,
        x: &Executor<'_>,
        (step, settings): (&Step, Settings),
        cells: &[Cell],
        track: usize,
        rule: &SteadyRule,
    ) -> Result<()> {
        let stopped = || x.workers.stop.load(Ordering::Relaxed);
        for r in 1..=rule.max_rounds {
            // A round's cells need no decision between them: the site may
            // send them at once.
            let specs: Vec<IoSpec<'_>> = cells
                .iter()
                .enumerate()
                .map(|(k, cell)| cell_spec(settings, cell, At { round: r, cell: k as u32 + 1 }))
                .collect();
            let mut k = 0;
            x.io_each(step, specs, &mut |run| {
                let summary = self.cell(x, &cells[k], At { round: r, cell: k as u32 + 1 }, run)?;
                if k == track {
                    self.kept.values.push(metric_of(&summary, rule.metric));
                }
                self.kept.per_cell[k].push(summary);
                k += 1;
                Ok(())
            })?;
            self.kept.window = steady::check(&self.kept.values, rule);
            if self.kept.window.as_ref().is_some_and(|w| w.steady) || stopped() {
                break;
            }
        }
        Ok(())
    }

    /// What `cell` ran as `at` (its round, and its place from 1) did: its
    /// row of the rounds and its intervals of the latency log written, its
    /// latencies, spread and hosts kept; its summary.
    fn cell(&mut self, x: &Executor<'_>, cell: &Cell, at: At, run: IoRun) -> Result<Summary> {
        let summary = run.recorder.summary(run.seconds);
        self.csv.row(&CellRound::of(at.round, at.cell, &cell.workload.name, cell.qd.total, &summary))?;
        if let Some(log) = self.log.as_mut() {
            run.log_into(log, &format!("cell{}.", at.cell))?;
        }
        let (k, kept) = (at.cell as usize - 1, &mut self.kept);
        kept.tails[k].push(&run.recorder);
        kept.spreads[k] = run.spread(&x.targets, Part { job: None, cell: Some(at.cell), first: 0 });
        kept.hosts[k] = run.host_rates(Some(at.cell));
        spread::widest(&mut kept.skew, run.host_skew.clone());
        kept.info = Some(run.info);
        Ok(summary)
    }
}

/// The I/O run of `cell` as `at`: its workload at its queue depth, ramp
/// and record time, closed loop.
fn cell_spec(settings: Settings, cell: &Cell, at: At) -> IoSpec<'_> {
    IoSpec {
        workload: &cell.workload,
        qd: cell.qd,
        settings,
        ramp: std_duration(cell.ramp),
        record: Some(std_duration(cell.record)),
        passes: None,
        budget: None,
        series: None,
        at,
        rate: None,
        pauses: Default::default(),
        verify: None,
    }
}

impl Kept {
    fn new(cells: usize, window: usize) -> Kept {
        Kept {
            per_cell: vec![Vec::new(); cells],
            tails: vec![RecentRecorders::new(window); cells],
            spreads: vec![None; cells],
            hosts: vec![Vec::new(); cells],
            skew: None,
            values: Vec::new(),
            window: None,
            info: None,
        }
    }

    /// Each cell that ran: its numbers averaged over its last `window`
    /// rounds, its latency over them merged, its peaks and its last round.
    fn cell_results(&self, cells: &[Cell], window: usize) -> Vec<CellResult> {
        cells
            .iter()
            .zip(&self.per_cell)
            .zip(&self.tails)
            .filter(|((_, runs), _)| !runs.is_empty())
            .map(|((cell, runs), tail_latency)| {
                let tail = &runs[runs.len().saturating_sub(window)..];
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
            .collect()
    }
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
pub(super) fn steady_result(rule: &SteadyRule, values: Vec<f64>, window: Option<Window>) -> SteadyResult {
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
