//! Latency QoS searches, by the search the plan states ([`Qos`]). By
//! rate: the highest open-loop rate at which a latency percentile stays
//! under a limit: a closed-loop probe for the most the target does,
//! open-loop probes from half of it down by halves until one meets the
//! limit, then bisection to the plan's precision. By queue depth: the
//! deepest closed-loop depth per worker, up to the step's, at which it
//! stays under the limit ([`DepthSearch`]: from depth 1, doubling, then
//! bisecting to adjacent depths). Every probe is recorded.

use methodic_compiler::plan::{DepthSearch, Qd, Qos, QosAxis, Rate, RateAmount};
use methodic_results::record::{QosPoint, QosResult};

use crate::error::{Error, Result};
use crate::exec::io::spread::Part;
use crate::exec::io::{At, IoRun, IoSpec, std_duration};
use crate::exec::step::{Executor, StepRun};
use crate::hlog::HistogramLog;

pub(super) fn run(x: &mut Executor<'_>, s: &mut StepRun<'_>, q: &Qos) -> Result<()> {
    let mut probes = Probes { q, limit_us: q.under_ns as f64 / 1000.0, log: None, points: Vec::new() };
    if q.by == QosAxis::Qd {
        return by_depth(x, s, probes);
    }
    // The closed-loop probe: the most the target does at this depth.
    let closed = probes.probe(x, s, Load::Closed, 1)?;
    let max = closed.achieved_iops;
    if max < 1.0 {
        return Err(Error::unsupported(format!(
            "the closed-loop probe of step {} completed {max:.1} I/Os a second: nothing to search below",
            s.step.id
        )));
    }
    let (met, failed) = search(x, s, &mut probes, max)?;
    let result = QosResult {
        percentile: q.percentile_name(),
        limit_us: probes.limit_us,
        closed_loop_iops: max,
        by: QosAxis::Rate,
        found_iops: met,
        failed_iops: failed,
        found_qd: None,
        failed_qd: None,
        points: Vec::new(),
        verdict: verdict(q, met, failed, max, &closed),
    };
    probes.record(x, s, result);
    Ok(())
}

/// What a probe runs: closed loop at the step's depth, open loop at a
/// rate (I/Os a second) at the step's depth, or closed loop at a depth
/// per worker over the step's workers.
#[derive(Clone, Copy)]
enum Load {
    Closed,
    Rate(f64),
    Depth(u32),
}

/// The probes of a search as they run: each one's point and I/O run, and
/// the step's latency log, made with the first.
struct Probes<'q> {
    q: &'q Qos,
    /// The latency limit, in microseconds.
    limit_us: f64,
    log: Option<HistogramLog>,
    points: Vec<(QosPoint, IoRun)>,
}

impl Probes<'_> {
    /// Runs the step's `k`th probe under `load` and keeps it; its point
    /// says whether it met the limit.
    fn probe(&mut self, x: &Executor<'_>, s: &StepRun<'_>, load: Load, k: u32) -> Result<QosPoint> {
        let q = self.q;
        let (rate, depth) = match load {
            Load::Closed => (None, None),
            Load::Rate(r) => (Some(r), None),
            Load::Depth(d) => (None, Some(d)),
        };
        let qd = depth.map_or(q.qd, |d| Qd { total: d.saturating_mul(q.qd.workers), per_worker: d, ..q.qd });
        let spec = IoSpec {
            workload: &q.workload,
            qd,
            settings: s.settings,
            ramp: std_duration(q.ramp),
            record: Some(std_duration(q.probe)),
            passes: None,
            budget: None,
            series: None,
            at: At { round: k, cell: 1 },
            pauses: Default::default(),
            verify: None,
            rate: rate
                .map(|r| Rate { amount: RateAmount::Iops(r.round().max(1.0) as u64), arrivals: q.arrivals }),
        };
        let run = x.io(s.step, spec)?;
        if self.log.is_none() {
            self.log = x.latency_log(s.step, run.record_start)?;
        }
        if let Some(log) = self.log.as_mut() {
            run.log_into(log, &format!("probe{k}."))?;
        }
        let summary = run.recorder.summary(run.seconds);
        let achieved = summary.total.iops;
        // Open loop: the workers' own count of I/Os due and started says
        // whether the rate was kept (see io.rate.kept).
        let kept = run.info.rate.as_ref().is_none_or(|r| r.kept);
        // None when no I/O completed in the probe (a rate so low that none
        // was due, or a target that served none): it does not meet the limit.
        let percentile_us = run.recorder.percentile_ns(q.percentile_ppm).map(|ns| ns as f64 / 1000.0);
        let point = QosPoint {
            rate_iops: rate.map(|r| r.round().max(1.0)),
            qd: depth,
            achieved_iops: achieved,
            kept,
            percentile_us,
            latency_us: summary.total.latency_us.clone(),
            met: kept && percentile_us.is_some_and(|p| p <= self.limit_us),
        };
        self.points.push((point.clone(), run));
        Ok(point)
    }

    /// The step's record: the probe at the rate or depth found as the
    /// step's numbers (else the first probe's: the closed loop's, or depth
    /// 1's), and every probe's point in `qos`.
    fn record(mut self, x: &Executor<'_>, s: &mut StepRun<'_>, mut qos: QosResult) {
        qos.points = self.points.iter().map(|(p, _)| p.clone()).collect();
        let found = qos.found_probe().map(|f| (f.rate_iops, f.qd));
        let chosen =
            self.points.iter().rposition(|(p, _)| p.met && Some((p.rate_iops, p.qd)) == found).unwrap_or(0);
        let (_, run) = self.points.swap_remove(chosen);
        run.keep_spread(&x.targets, Part::STEP, s.out);
        s.out.summary = Some(run.recorder.summary(run.seconds));
        s.out.io = Some(run.info);
        if let Some(log) = self.log {
            s.out.latency_log = Some(x.relative(log.path()));
        }
        s.out.qos = Some(qos);
    }
}

/// The search below the closed loop's `max` IOPS: from half of it down by
/// halves until a rate meets the limit, then bisection between the
/// highest that met it and the lowest that did not, to the plan's
/// precision (or until the run is stopped). The rate found, if any, and
/// the lowest that failed.
fn search(
    x: &Executor<'_>,
    s: &StepRun<'_>,
    probes: &mut Probes<'_>,
    max: f64,
) -> Result<(Option<f64>, Option<f64>)> {
    // Bracketing: from half the maximum down by halves until one meets it.
    let (mut met, mut failed): (Option<f64>, Option<f64>) = (None, Some(max));
    let mut rate = max / 2.0;
    let mut k = 2;
    for _ in 0..=Qos::HALVINGS {
        let p = probes.probe(x, s, Load::Rate(rate), k)?;
        k += 1;
        if p.met {
            met = Some(rate);
            break;
        }
        failed = Some(rate);
        rate /= 2.0;
    }
    // Bisection between the highest that met it and the lowest that did not.
    if let (Some(mut lo), Some(mut hi)) = (met, failed) {
        let precision = probes.q.precision.as_f64() / 100.0;
        while (hi - lo) / hi > precision && !x.workers.stop.load(std::sync::atomic::Ordering::SeqCst) {
            let mid = (lo + hi) / 2.0;
            let p = probes.probe(x, s, Load::Rate(mid), k)?;
            k += 1;
            if p.met { lo = mid } else { hi = mid }
        }
        met = Some(lo);
        failed = Some(hi);
    }
    Ok((met, failed))
}

/// The search's outcome in words: the rate found and its neighbours, or
/// that no rate met the limit; `closed` is the closed-loop probe's point.
fn verdict(q: &Qos, met: Option<f64>, failed: Option<f64>, max: f64, closed: &QosPoint) -> String {
    let name = q.percentile_name();
    match met {
        Some(found) => format!(
            "{name} under {} up to {found:.0} IOPS ({found:.0} met it, {:.0} did not; closed loop {max:.0} IOPS, {name} {})",
            q.limit_name(),
            failed.unwrap_or(max),
            closed.percentile_us.map_or("not measured".to_string(), |p| format!("{p:.1} us"))
        ),
        None => format!(
            "{name} stayed over {} at every rate down to {:.0} IOPS (closed loop {max:.0} IOPS)",
            q.limit_name(),
            failed.unwrap_or(max)
        ),
    }
}

/// The search by queue depth: closed-loop probes at the depths
/// [`DepthSearch`] asks for, until it is over or the run is stopped; the
/// step's numbers are the probe at the depth found.
fn by_depth(x: &mut Executor<'_>, s: &mut StepRun<'_>, mut probes: Probes<'_>) -> Result<()> {
    let q = probes.q;
    let mut search = DepthSearch::new(q.qd.per_worker);
    let mut k = 1;
    while let Some(depth) = search.next() {
        if k > 1 && x.workers.stop.load(std::sync::atomic::Ordering::SeqCst) {
            break;
        }
        let p = probes.probe(x, s, Load::Depth(depth), k)?;
        search.record(depth, p.met);
        k += 1;
    }
    let points: Vec<&QosPoint> = probes.points.iter().map(|(p, _)| p).collect();
    let result = QosResult {
        percentile: q.percentile_name(),
        limit_us: probes.limit_us,
        by: QosAxis::Qd,
        closed_loop_iops: points.iter().map(|p| p.achieved_iops).fold(0.0, f64::max),
        found_iops: None,
        failed_iops: None,
        found_qd: search.met(),
        failed_qd: search.failed(),
        points: Vec::new(),
        verdict: depth_verdict(q, &search, &points),
    };
    probes.record(x, s, result);
    Ok(())
}

/// A search by queue depth's outcome in words: the depth found and its
/// neighbour, that the ceiling met the limit (the target may meet it
/// deeper), or that depth 1 did not; with the IOPS and percentile of the
/// probe it names.
fn depth_verdict(q: &Qos, search: &DepthSearch, points: &[&QosPoint]) -> String {
    let name = q.percentile_name();
    let limit = q.limit_name();
    let at = |depth: u32| {
        points.iter().rev().find(|p| p.qd == Some(depth)).map_or(String::new(), |p| {
            let pct = p.percentile_us.map_or("not measured".to_string(), |v| format!("{v:.1} us"));
            format!("{:.0} IOPS at QD {depth}, {name} {pct}", p.achieved_iops)
        })
    };
    match (search.met(), search.failed()) {
        (Some(found), Some(failed)) => format!(
            "{name} under {limit} up to QD {found} per worker ({found} met it, {failed} did not; {})",
            at(found)
        ),
        (Some(found), None) if found >= q.qd.per_worker => format!(
            "{name} under {limit} at every depth up to the ceiling, QD {found} per worker (the target may \
             meet it deeper; {})",
            at(found)
        ),
        // The run was stopped before the search was over.
        (Some(found), None) => {
            format!(
                "{name} under {limit} up to QD {found} per worker, at least (search stopped; {})",
                at(found)
            )
        }
        (None, _) => format!("{name} stayed over {limit} even at QD 1: no depth met the limit ({})", at(1)),
    }
}

#[cfg(test)]
mod tests {
    use methodic_compiler::plan::{Arrivals, BlockShare, Bytes, Duration, Percent, QdCounting, Workload};
    use methodic_results::numbers::Latency;

    use super::*;

    fn qos(ceiling: u32) -> Qos {
        Qos {
            workload: Workload {
                name: "r".into(),
                blocks: vec![BlockShare { size: Bytes(4096), share: Percent::HUNDRED }],
                read: Percent::HUNDRED,
                random: Percent::HUNDRED,
                align: Bytes(4096),
                offset: Bytes(0),
                access: Default::default(),
                trim: Percent::ZERO,
                write_blocks: None,
            },
            qd: Qd { total: ceiling, per_worker: ceiling, workers: 1, counted: QdCounting::PerWorker },
            percentile_ppm: 999_000,
            under_ns: 2_000_000,
            ramp: Duration::ZERO,
            probe: Duration::from_secs(1),
            precision: Percent::whole(5),
            arrivals: Arrivals::Uniform,
            by: QosAxis::Qd,
        }
    }

    /// A search up to `ceiling` against a target whose depths up to
    /// `limit` meet the limit: the search and its probes' points.
    fn ran(ceiling: u32, limit: u32) -> (DepthSearch, Vec<QosPoint>) {
        let mut search = DepthSearch::new(ceiling);
        let mut points = Vec::new();
        while let Some(d) = search.next() {
            search.record(d, d <= limit);
            points.push(QosPoint {
                rate_iops: None,
                qd: Some(d),
                achieved_iops: 1000.0 * d as f64,
                kept: true,
                percentile_us: Some(if d <= limit { 1500.0 } else { 2500.0 }),
                latency_us: Latency::default(),
                met: d <= limit,
            });
        }
        (search, points)
    }

    #[test]
    fn the_depth_verdict_names_the_depth_found_the_ceiling_or_that_none_met_it() {
        let verdict = |ceiling: u32, limit: u32| {
            let (search, points) = ran(ceiling, limit);
            depth_verdict(&qos(ceiling), &search, &points.iter().collect::<Vec<_>>())
        };
        assert_eq!(
            verdict(16, 11),
            "p99.9 under 2ms up to QD 11 per worker (11 met it, 12 did not; 11000 IOPS at QD 11, p99.9 1500.0 us)"
        );
        assert!(
            verdict(16, 16).contains("at every depth up to the ceiling, QD 16 per worker (the target may")
        );
        assert_eq!(
            verdict(16, 0),
            "p99.9 stayed over 2ms even at QD 1: no depth met the limit (1000 IOPS at QD 1, p99.9 2500.0 us)"
        );
    }
}
