//! The numbers of a results directory as points: one for each step that
//! measured something (a measure, fill or precondition, a copy, a QoS
//! search: its probe at the rate found), one for each measurement of a
//! rounds step and one for each job of a `together` step, each with the
//! workload and queue depth that made it (and an open-loop step's rate,
//! kept or not; a run on many hosts: each host's share). `report` tabulates and charts them; `compare` pairs
//! them across runs. Each point's headline value is the one the run's
//! `conventions { value }` names (docs/RESULTS.md, "Value kinds"), with the
//! step average and the peak kept beside it.

use methodic_compiler::plan::{
    Action, Cell, Dataset, IoKey, Job, Metric, PreconditionStop, Qd, Qos, QosAxis, RepeatRun, Step, Units,
    ValueKind, Workload, fine_name,
};
use schemars::JsonSchema;
use serde::Serialize;

use crate::manifest::{Loaded, ManifestStep};
use crate::numbers::Summary;
use crate::record::{
    BurstResult, CellResult, CopyResult, HostRates, OpenLoopResult, QosResult, Spread, SteadyResult,
    StepResult,
};

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Point {
    /// The step's number in the plan, from 1.
    pub step: usize,
    pub id: String,
    pub phase: Option<String>,
    /// `measure`, `rounds`, `precondition`, `fill`, `copy`, `together` (a
    /// job), `qos`.
    pub kind: String,
    /// What the step (a rounds step's cell) did, with no name in it: what
    /// pairs the point with its counterpart in another run.
    #[serde(skip)]
    pub io: IoKey,
    pub workload: Option<Workload>,
    pub qd: Option<Qd>,
    pub sweep: Option<u32>,
    pub repeat: Option<RepeatRun>,
    /// `rnd4k_read QD 32`, `copy games`, `rnd4k_read QD 32 at 50000 IOPS`
    /// (open loop), `reads: rnd4k_read QD 4 (with writes)` (a job),
    /// `rnd4k_read QD 32: p99.99 under 1ms` (a QoS search).
    pub label: String,
    /// A `together` step's job: its name, device and the jobs beside it.
    pub job: Option<JobPoint>,
    /// The other jobs of its `together` step by what they do (sorted):
    /// pairing keeps a job with the same company first.
    #[serde(skip)]
    pub beside: Vec<IoKey>,
    /// Open loop: the rate asked, the rate kept and how late I/Os started.
    pub open_loop: Option<OpenLoopResult>,
    /// A QoS search: its verdict and every probe.
    pub qos: Option<QosResult>,
    /// The reported IOPS: the value the run's convention names, or the
    /// step average where the step has no value of that kind (`value`
    /// says which).
    pub iops: Option<f64>,
    /// Decimal megabytes a second, reported as `rate_value` says (NaN,
    /// written as null, when the step recorded no time: see `Rates`).
    #[schemars(with = "Option<f64>")]
    pub mb_s: f64,
    /// Binary mebibytes a second.
    #[schemars(with = "Option<f64>")]
    pub mib_s: f64,
    /// What `iops` is (for a copy, which has no IOPS: what its rate is).
    pub value: ValueKind,
    /// What `mb_s` and `mib_s` are: as `value`, but for a precondition
    /// until steady whose rule tracks one rate only.
    pub rate_value: ValueKind,
    /// Why a reported value is not of the convention's kind, where the kind
    /// of step does not say it: no peak in results written before peaks
    /// were kept, a steady-state rule that tracks another metric.
    pub value_note: Option<String>,
    /// The step average (a rounds measurement's: the average of its
    /// window's rounds), whatever the convention.
    pub average_iops: Option<f64>,
    #[schemars(with = "Option<f64>")]
    pub average_mb_s: f64,
    #[schemars(with = "Option<f64>")]
    pub average_mib_s: f64,
    /// The steady-state average: a rounds measurement's window average, or
    /// a precondition until steady's last window (of the metric its rule
    /// tracks: the other is `None`).
    pub steady_iops: Option<f64>,
    pub steady_mb_s: Option<f64>,
    /// The peak: the best series interval of the record window (a rounds
    /// measurement's best round); `None` for copies, and for results
    /// written before peaks were kept.
    pub peak_iops: Option<f64>,
    pub peak_mb_s: Option<f64>,
    pub peak_mib_s: Option<f64>,
    /// The series interval the peak is the best of, in seconds; `None` for
    /// a rounds measurement, whose peak is its best round.
    pub peak_interval_s: Option<f64>,
    pub mean_latency_us: Option<f64>,
    pub p99_latency_us: Option<f64>,
    /// The longest I/O: of the step, or of a rounds cell's window (SNIA
    /// PTS's maximum response time).
    pub max_latency_us: Option<f64>,
    pub seconds: f64,
    pub error: Option<String>,
    /// How its I/O spread over devices and workers, where it ran on
    /// several workers (a rounds measurement: its last round).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spread: Option<Spread>,
    /// Each burst of its record window, with `bursts ON every PERIOD`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub bursts: Vec<BurstResult>,
    /// The step's trims apart, where it trimmed (the IOPS above count
    /// them with its reads and writes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trim: Option<TrimPoint>,
    /// A step with `verify`: what it checked and found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verify: Option<crate::record::VerifyResult>,
    /// A run on many hosts: each host's share of the point's I/O (a rounds
    /// measurement: of its last round); the point's own numbers are all
    /// hosts together. Empty for a run on one machine.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hosts: Vec<HostRates>,
}

/// A step's trims: how many a second, and their latency.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct TrimPoint {
    #[schemars(with = "Option<f64>")]
    pub iops: f64,
    pub mean_latency_us: f64,
    pub p99_latency_us: f64,
}

impl TrimPoint {
    fn of(r: Option<&crate::numbers::Rates>) -> Option<TrimPoint> {
        r.map(|t| TrimPoint {
            iops: t.iops,
            mean_latency_us: t.latency_us.mean,
            p99_latency_us: t.latency_us.p99,
        })
    }

    /// `trims 1234 IOPS, 56.7 us mean, 89.0 us p99`.
    pub fn words(&self) -> String {
        format!(
            "trims {:.0} IOPS, {:.1} us mean, {:.1} us p99",
            self.iops, self.mean_latency_us, self.p99_latency_us
        )
    }
}

/// A job of a `together` step.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct JobPoint {
    pub name: String,
    /// The target it ran on, by path.
    pub device: String,
    /// The names of the jobs that ran beside it, in the step's order.
    pub with: Vec<String>,
}

impl Point {
    /// The open-loop rate was asked and not kept: the numbers are what the
    /// target did while falling behind, not a result at the rate asked.
    pub fn missed_rate(&self) -> bool {
        self.open_loop.as_ref().is_some_and(|o| !o.kept)
    }

    /// MB/s or MiB/s, as the methodology's units say.
    pub fn rate(&self, units: Units) -> f64 {
        if units == Units::Binary { self.mib_s } else { self.mb_s }
    }

    /// The IOPS of one value kind, where the step has a value of that kind.
    pub fn iops_as(&self, kind: ValueKind) -> Option<f64> {
        match kind {
            ValueKind::StepAverage => self.average_iops,
            ValueKind::SteadyStateAverage => self.steady_iops,
            ValueKind::Peak => self.peak_iops,
        }
    }

    /// MB/s or MiB/s (as `units` says) of one value kind, where the step
    /// has a value of that kind.
    pub fn rate_as(&self, kind: ValueKind, units: Units) -> Option<f64> {
        let mb_s = match kind {
            ValueKind::StepAverage => Some(self.average_mb_s),
            ValueKind::SteadyStateAverage => self.steady_mb_s,
            ValueKind::Peak => self.peak_mb_s,
        };
        mb_s.map(|v| if units == Units::Binary { mib(v) } else { v })
    }
}

fn mib(mb_s: f64) -> f64 {
    mb_s * 1e6 / 1_048_576.0
}

/// `avg`, `steady`, `peak`: a value kind in a column header.
pub fn kind_short(kind: ValueKind) -> &'static str {
    match kind {
        ValueKind::StepAverage => "avg",
        ValueKind::SteadyStateAverage => "steady",
        ValueKind::Peak => "peak",
    }
}

/// `1s`, `0.263s`: a series interval.
pub fn interval_words(seconds: f64) -> String {
    let s = format!("{seconds:.3}");
    format!("{}s", s.trim_end_matches('0').trim_end_matches('.'))
}

/// The rate's unit name.
pub fn rate_unit(units: Units) -> &'static str {
    if units == Units::Binary { "MiB/s" } else { "MB/s" }
}

/// Every point of a loaded run, in step order.
pub fn points(run: &Loaded) -> Vec<Point> {
    let convention = run.manifest.plan.conventions.value;
    let mut out = Vec::new();
    for r in &run.steps {
        let Some(step) = run.plan_step(r) else { continue };
        let rec = Record { r, step, keys: IoKey::of_step(step), convention };
        match &step.action {
            Action::Together { jobs, .. } => out.extend(together_points(&rec, jobs)),
            Action::Measure { workload, qd, .. }
            | Action::Fill { workload, qd, .. }
            | Action::Precondition { workload, qd, .. } => {
                out.extend(r.summary.as_ref().map(|s| one_io_point(&rec, workload, qd, None, s)));
            }
            Action::Qos(q) => {
                out.extend(r.summary.as_ref().map(|s| one_io_point(&rec, &q.workload, &q.qd, Some(q), s)));
            }
            Action::Rounds { cells, .. } => {
                if let Some(results) = &r.cells {
                    out.extend(rounds_points(&rec, cells, results));
                }
            }
            Action::Copy { dataset } => out.extend(r.copy.as_ref().map(|c| copy_point(&rec, dataset, c))),
            // No point: the step measures nothing, or (a probe) what it
            // measures is drawn on its own (`view::report::charts`).
            Action::Erase { .. }
            | Action::DropCaches
            | Action::Idle { .. }
            | Action::LimitRam { .. }
            | Action::Probe(_) => {}
        }
    }
    out
}

/// A step's record and what its points are made with: its plan step, what
/// each of its parts did (`IoKey::of_step`: a job or cell each, else one)
/// and the run's value convention.
struct Record<'a> {
    r: &'a StepResult,
    step: &'a Step,
    keys: Vec<IoKey>,
    convention: ValueKind,
}

impl Record<'_> {
    /// A point of the step that did `io`, named `label`, with none of its
    /// numbers yet.
    fn base(
        &self,
        kind: &str,
        io: &IoKey,
        workload: Option<&Workload>,
        qd: Option<&Qd>,
        label: String,
    ) -> Point {
        let (r, step) = (self.r, self.step);
        Point {
            step: r.index,
            id: r.id.clone(),
            phase: r.phase.clone(),
            kind: kind.to_string(),
            io: io.clone(),
            workload: workload.cloned(),
            qd: qd.copied(),
            sweep: step.sweep,
            repeat: step.repeat,
            label,
            job: None,
            beside: Vec::new(),
            open_loop: None,
            qos: None,
            iops: None,
            mb_s: 0.0,
            mib_s: 0.0,
            value: ValueKind::StepAverage,
            rate_value: ValueKind::StepAverage,
            value_note: None,
            average_iops: None,
            average_mb_s: 0.0,
            average_mib_s: 0.0,
            steady_iops: None,
            steady_mb_s: None,
            peak_iops: None,
            peak_mb_s: None,
            peak_mib_s: None,
            peak_interval_s: None,
            mean_latency_us: None,
            p99_latency_us: None,
            max_latency_us: None,
            seconds: r.seconds,
            error: r.error.clone(),
            spread: None,
            bursts: Vec::new(),
            trim: None,
            verify: r.verify.clone(),
            hosts: Vec::new(),
        }
    }

    /// The spread of a part of the step: a job by name, a rounds cell from
    /// 1, or the step's own I/O.
    fn spread_of(&self, job: Option<&str>, cell: Option<u32>) -> Option<Spread> {
        self.r.spread.iter().find(|s| s.job.as_deref() == job && s.cell == cell).cloned()
    }

    /// The bursts of a job by name, or of the step's own I/O.
    fn bursts_of(&self, job: Option<&str>) -> Vec<BurstResult> {
        self.r.bursts.iter().filter(|b| b.job.as_deref() == job).cloned().collect()
    }

    /// Each host's share of the step's one I/O run, or of a rounds cell
    /// from 1 (a `together` job has none: a host's share is of the step).
    fn hosts_of(&self, cell: Option<u32>) -> Vec<HostRates> {
        self.r.hosts.iter().filter(|h| h.cell == cell).cloned().collect()
    }
}

/// A point a job of a `together` step, of the jobs its record has: named
/// with the jobs beside it, its step average (a job keeps no peak).
fn together_points(rec: &Record, jobs: &[Job]) -> Vec<Point> {
    let (r, keys) = (rec.r, &rec.keys);
    let mut out = Vec::new();
    for (i, job) in jobs.iter().enumerate() {
        let Some(jr) = r.jobs.iter().find(|j| j.name == job.name) else { continue };
        let with: Vec<String> = jobs.iter().filter(|j| j.name != job.name).map(|j| j.name.clone()).collect();
        let asked = jr.io.as_ref().and_then(|io| io.rate.as_ref());
        let rate = asked.map_or(String::new(), |o| format!(" at {}", asked_words(o)));
        let mut p = rec.base(
            "together",
            &keys[i],
            Some(&job.workload),
            Some(&job.qd),
            format!(
                "{}: {} QD {}{rate} (with {})",
                job.name,
                job.workload.name,
                job.qd.total,
                if with.is_empty() { "nothing".into() } else { with.join(", ") }
            ),
        );
        let mut beside: Vec<IoKey> =
            keys.iter().enumerate().filter(|(k, _)| *k != i).map(|(_, k)| k.clone()).collect();
        beside.sort();
        p.beside = beside;
        p.job = Some(JobPoint { name: job.name.clone(), device: jr.device.clone(), with });
        p.spread = rec.spread_of(Some(&job.name), None);
        p.bursts = rec.bursts_of(Some(&job.name));
        let s = &jr.summary;
        p.average_iops = Some(s.total.iops);
        p.average_mb_s = s.total.mb_s;
        p.average_mib_s = s.total.mib_s;
        if rec.convention == ValueKind::Peak {
            add_note(&mut p, "a job keeps no peak of its own: its step average".into());
        }
        open_loop(&mut p, asked);
        headline(&mut p, rec.convention);
        latencies(&mut p, s);
        out.push(p);
    }
    out
}

/// The point of a step that ran one workload at one queue depth (a
/// measure, fill, precondition, or a QoS search: its probe at the rate
/// found), from its summary: its average, its peak, a precondition's
/// steady-state window, an open-loop rate or the QoS search.
fn one_io_point(rec: &Record, workload: &Workload, qd: &Qd, qos: Option<&Qos>, s: &Summary) -> Point {
    let (r, convention) = (rec.r, rec.convention);
    let mut label = format!("{} QD {}", workload.name, qd.total);
    let rate = r.io.as_ref().and_then(|io| io.rate.as_ref());
    if let Some(q) = qos.filter(|q| q.by == QosAxis::Qd) {
        // The plan's depth is the search's ceiling.
        label = format!(
            "{} QD up to {}: {} under {}, by queue depth",
            workload.name,
            qd.total,
            q.percentile_name(),
            q.limit_name()
        );
    } else if let Some(q) = qos {
        label.push_str(&format!(": {} under {}", q.percentile_name(), q.limit_name()));
    } else if let Some(o) = rate {
        label.push_str(&format!(" at {}", asked_words(o)));
    }
    let mut p = rec.base(&r.kind, &rec.keys[0], Some(workload), Some(qd), label);
    p.spread = rec.spread_of(None, None);
    p.bursts = rec.bursts_of(None);
    p.hosts = rec.hosts_of(None);
    p.average_iops = Some(s.total.iops);
    p.average_mb_s = s.total.mb_s;
    p.average_mib_s = s.total.mib_s;
    if let Some(k) = &r.peak {
        p.peak_iops = Some(k.iops);
        p.peak_mb_s = Some(k.mb_s);
        p.peak_mib_s = Some(k.mib_s());
        p.peak_interval_s = Some(k.interval_s);
    }
    // A precondition until steady: its last window, of the metric its rule
    // tracks.
    let until_steady =
        matches!(rec.step.action, Action::Precondition { stop: PreconditionStop::Steady { .. }, .. });
    if let Some(st) = r.steady.as_ref().filter(|_| until_steady) {
        steady_window(&mut p, st, convention);
    }
    if convention == ValueKind::Peak && r.peak.is_none() {
        p.value_note = Some(
            "no peak recorded (results from before peaks were kept, or a step cut short): the step average"
                .into(),
        );
    }
    if let Some(q) = &r.qos {
        if q.found_nothing() {
            let (what, probe) = match q.by {
                QosAxis::Qd => ("no queue depth", "depth-1 probe's"),
                QosAxis::Rate => ("no rate", "closed-loop probe's"),
            };
            add_note(
                &mut p,
                format!(
                    "{what} kept {} under {}: the numbers are the {probe}",
                    q.percentile,
                    limit_words(q.limit_us)
                ),
            );
        }
        p.qos = Some(q.clone());
        p.open_loop = rate.cloned();
    } else {
        open_loop(&mut p, rate);
    }
    headline(&mut p, convention);
    latencies(&mut p, s);
    p
}

/// A precondition's last steady-state window on its point: the average of
/// the metric its rule tracks, and under a steady-state convention, what
/// the other numbers are.
fn steady_window(p: &mut Point, st: &SteadyResult, convention: ValueKind) {
    match (st.metric, &st.window) {
        (Metric::Iops, Some(w)) => p.steady_iops = Some(w.average),
        (Metric::Bandwidth, Some(w)) => p.steady_mb_s = Some(w.average),
        _ => {}
    }
    if convention == ValueKind::SteadyStateAverage {
        p.value_note = match (st.metric, &st.window) {
            (_, None) => {
                Some(format!("fewer rounds ({}) than the steady-state window: the step average", st.rounds))
            }
            (Metric::Iops, _) => Some("the rule tracks IOPS: MB/s is the step average".into()),
            (Metric::Bandwidth, _) => Some("the rule tracks bandwidth: IOPS is the step average".into()),
            (Metric::Latency, _) => {
                Some("the rule tracks mean latency: IOPS and MB/s are the step average".into())
            }
        };
    }
}

/// A point a measurement of a rounds step, of the cells its record has:
/// its window's average (the steady-state value too), its best round, and
/// the window's latencies.
fn rounds_points(rec: &Record, cells: &[Cell], results: &[CellResult]) -> Vec<Point> {
    let convention = rec.convention;
    let mut out = Vec::new();
    for c in results {
        let Some(i) =
            // The workers too (0 in results written before they were
            // kept): T2Q4 and T1Q8 have one total.
            cells.iter().position(|k| {
                k.workload.name == c.workload
                    && k.qd.total == c.qd
                    && (c.workers == 0 || k.qd.workers == c.workers)
            })
        else {
            continue;
        };
        let cell = &cells[i];
        let mut p = rec.base(
            "rounds",
            &rec.keys[i],
            Some(&cell.workload),
            Some(&cell.qd),
            format!("{} QD {}", c.workload, c.qd),
        );
        p.spread = rec.spread_of(None, Some(i as u32 + 1));
        p.hosts = rec.hosts_of(Some(i as u32 + 1));
        p.average_iops = Some(c.window_iops);
        p.average_mb_s = c.window_mb_s;
        p.average_mib_s = mib(c.window_mb_s);
        p.steady_iops = Some(c.window_iops);
        p.steady_mb_s = Some(c.window_mb_s);
        // Results written before peaks were kept read 0 for both.
        if c.peak_iops > 0.0 || c.peak_mb_s > 0.0 {
            p.peak_iops = Some(c.peak_iops);
            p.peak_mb_s = Some(c.peak_mb_s);
            p.peak_mib_s = Some(mib(c.peak_mb_s));
        } else if convention == ValueKind::Peak {
            p.value_note = Some(
                "no best round recorded (results written before peaks were kept): the window average".into(),
            );
        }
        headline(&mut p, convention);
        p.mean_latency_us = Some(c.window_mean_latency_us);
        // The window's own distribution where it was kept (results from
        // before it was kept have only the last round's).
        let window = Some(&c.window_latency_us).filter(|l| l.max > 0.0);
        p.p99_latency_us = Some(window.map_or(c.last.total.latency_us.p99, |l| l.p99));
        p.max_latency_us = Some(window.map_or(c.last.total.latency_us.max, |l| l.max));
        // The last round's trims: the window keeps no trims apart.
        p.trim = TrimPoint::of(c.last.trim.as_ref());
        out.push(p);
    }
    out
}

/// The point of a copy: its rate (a copy has no IOPS) over its own time.
fn copy_point(rec: &Record, dataset: &Dataset, c: &CopyResult) -> Point {
    let mut p = rec.base("copy", &rec.keys[0], None, None, format!("copy {}", dataset.name));
    p.average_mb_s = c.mb_s;
    p.average_mib_s = c.mib_s;
    headline(&mut p, rec.convention);
    p.seconds = c.seconds;
    p
}

/// `50000 IOPS`, `100.0 MB/s`: the rate an open-loop step asked.
pub fn asked_words(o: &OpenLoopResult) -> String {
    match o.asked_bytes_s {
        Some(b) => format!("{:.1} MB/s", b as f64 / 1e6),
        None => format!("{:.0} IOPS", o.asked_iops),
    }
}

/// `1ms`, `500us`: a latency limit in microseconds, in its shortest unit.
pub fn limit_words(us: f64) -> String {
    fine_name((us * 1e3).round() as u64)
}

/// Another note on how a point's value was made, after any it has.
fn add_note(p: &mut Point, note: String) {
    p.value_note = Some(match p.value_note.take() {
        Some(before) => format!("{before}; {note}"),
        None => note,
    });
}

/// A point's latencies and record time, from the summary it reports.
fn latencies(p: &mut Point, s: &Summary) {
    p.mean_latency_us = Some(s.total.latency_us.mean);
    p.p99_latency_us = Some(s.total.latency_us.p99);
    p.max_latency_us = Some(s.total.latency_us.max);
    p.seconds = s.seconds;
    p.trim = TrimPoint::of(s.trim.as_ref());
}

/// Keeps an open-loop step's rate on its point and, when the rate was not
/// kept, says so beside its value: a missed rate is not a result at it.
fn open_loop(p: &mut Point, rate: Option<&OpenLoopResult>) {
    let Some(o) = rate else { return };
    if !o.kept {
        add_note(p, format!("rate not kept ({}): not a result at the rate asked", o.words()));
    }
    p.open_loop = Some(o.clone());
}

/// Sets a point's reported values from the values it keeps: the
/// convention's kind where the step has it, else the step average.
fn headline(p: &mut Point, convention: ValueKind) {
    let has = |v: Option<f64>| v.is_some();
    p.value = if has(p.iops_as(convention))
        || (p.average_iops.is_none() && has(p.rate_as(convention, Units::Decimal)))
    {
        convention
    } else {
        ValueKind::StepAverage
    };
    p.rate_value =
        if has(p.rate_as(convention, Units::Decimal)) { convention } else { ValueKind::StepAverage };
    p.iops = p.iops_as(p.value);
    p.mb_s = p.rate_as(p.rate_value, Units::Decimal).unwrap_or(p.average_mb_s);
    p.mib_s = p.rate_as(p.rate_value, Units::Binary).unwrap_or(p.average_mib_s);
}

/// The best step of each sweep, a workload at a time (a sweep over read
/// shares has a line a share), by the reported IOPS: what review charts
/// show as a sweep's number. Failed steps and sweeps of one step are left
/// out; in plan order.
pub fn sweep_bests(pts: &[Point]) -> Vec<&Point> {
    let mut groups: Vec<((u32, &str), Vec<&Point>)> = Vec::new();
    for p in pts.iter().filter(|p| p.kind == "measure" && p.error.is_none() && p.iops.is_some()) {
        let (Some(sweep), Some(w)) = (p.sweep, &p.workload) else { continue };
        match groups.iter_mut().find(|(k, _)| *k == (sweep, w.name.as_str())) {
            Some((_, g)) => g.push(p),
            None => groups.push(((sweep, w.name.as_str()), vec![p])),
        }
    }
    groups
        .into_iter()
        .filter(|(_, g)| g.len() > 1)
        .filter_map(|(_, g)| {
            g.into_iter()
                .reduce(|best, p| if p.iops.unwrap_or(0.0) > best.iops.unwrap_or(0.0) { p } else { best })
        })
        .collect()
}

/// The manifest step a point came from.
pub fn step_of<'a>(run: &'a Loaded, p: &Point) -> Option<&'a ManifestStep> {
    run.manifest.steps.get(p.step.wrapping_sub(1)).filter(|s| s.id == p.id)
}

#[cfg(test)]
/// For tests: a measurement of 100 IOPS at 0.4096 MB/s on average, nothing else kept.
pub(crate) fn sample() -> Point {
    Point {
        step: 1,
        id: "m".into(),
        phase: None,
        kind: "measure".into(),
        io: IoKey::Other("measure"),
        workload: None,
        qd: None,
        sweep: None,
        repeat: None,
        label: "m".into(),
        job: None,
        beside: Vec::new(),
        open_loop: None,
        qos: None,
        iops: None,
        mb_s: 0.0,
        mib_s: 0.0,
        value: ValueKind::StepAverage,
        rate_value: ValueKind::StepAverage,
        value_note: None,
        average_iops: Some(100.0),
        average_mb_s: 0.4096,
        average_mib_s: mib(0.4096),
        steady_iops: None,
        steady_mb_s: None,
        peak_iops: None,
        peak_mb_s: None,
        peak_mib_s: None,
        peak_interval_s: None,
        mean_latency_us: None,
        p99_latency_us: None,
        max_latency_us: None,
        seconds: 1.0,
        error: None,
        spread: None,
        bursts: Vec::new(),
        trim: None,
        verify: None,
        hosts: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reported_value_is_the_conventions_where_the_step_has_it_else_the_step_average() {
        use ValueKind::{Peak, SteadyStateAverage as Steady, StepAverage as Average};
        let mut p = sample();
        headline(&mut p, Peak);
        assert_eq!((p.iops, p.value, p.mb_s), (Some(100.0), Average, 0.4096), "no peak: the average");
        (p.peak_iops, p.peak_mb_s, p.peak_mib_s) = (Some(150.0), Some(0.6144), Some(mib(0.6144)));
        headline(&mut p, Peak);
        assert_eq!((p.iops, p.value, p.mb_s, p.rate_value), (Some(150.0), Peak, 0.6144, Peak));
        assert_eq!(p.mib_s, 0.6144e6 / 1_048_576.0);
        headline(&mut p, Average);
        assert_eq!((p.iops, p.mb_s), (Some(100.0), 0.4096));
        assert_eq!((p.iops_as(Peak), p.rate_as(Peak, Units::Decimal)), (Some(150.0), Some(0.6144)), "kept");
        // A precondition whose rule tracks IOPS: its window's IOPS, the
        // step average's rate.
        p.steady_iops = Some(120.0);
        headline(&mut p, Steady);
        assert_eq!((p.iops, p.value, p.mb_s, p.rate_value), (Some(120.0), Steady, 0.4096, Average));
        // A copy has no IOPS: its rate says what it is.
        let mut c = sample();
        c.average_iops = None;
        headline(&mut c, Peak);
        assert_eq!((c.iops, c.value, c.mb_s), (None, Average, 0.4096));
        assert_eq!(interval_words(1.0), "1s");
        assert_eq!(interval_words(0.263), "0.263s");
        assert_eq!(interval_words(0.5), "0.5s");
    }
}
