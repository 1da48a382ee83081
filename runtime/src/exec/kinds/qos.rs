//! Latency QoS searches, by the search the plan states ([`Qos`]). By
//! rate: the highest open-loop rate at which a latency percentile stays
//! under a limit: a closed-loop probe for the most the target does,
//! open-loop probes from half of it down by halves until one meets the
//! limit, then bisection to the plan's precision. By queue depth: the
//! deepest closed-loop depth per worker, up to the step's, at which it
//! stays under the limit ([`DepthSearch`]: from depth 1, doubling, then
//! bisecting to adjacent depths). Every probe is recorded.

use methodic_compiler::plan::{DepthSearch, Duration, Qd, Qos, QosAxis, Rate, RateAmount};
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
    // The closed-loop probe: the most the target does at this depth. One
    // that completed nothing (a rehearsal's probe of a few milliseconds
    // on a busy host) runs again for twice as long, until one completes
    // or the probe is longer than a second.
    let mut record = q.probe;
    let mut k = 1;
    let mut closed = probes.probe(x, s, Load::Closed, k, record)?;
    while closed.achieved_iops < 1.0
        && record.as_millis() < CLOSED_RETRY_UNDER_MS
        && !x.workers.stop.load(std::sync::atomic::Ordering::SeqCst)
    {
        record = Duration::from_millis(record.as_millis() * 2);
        k += 1;
        closed = probes.probe(x, s, Load::Closed, k, record)?;
    }
    let max = closed.achieved_iops;
    if max < 1.0 {
        return Err(Error::unsupported(format!(
            "the closed-loop probe of step {} completed {max:.1} I/Os a second{}: nothing to search below",
            s.step.id,
            if k > 1 { format!(" (its last of {k} tries recorded for {})", record) } else { String::new() }
        )));
    }
    let (met, failed) = search(x, s, &mut probes, max, k + 1)?;
    let points: Vec<&QosPoint> = probes.points.iter().map(|(p, _)| p).collect();
    let mut verdict = verdict(q, met, failed, max, &closed, &points);
    if k > 1 {
        verdict.push_str(&format!(
            "; the closed-loop probe ran {k} times, until one completed I/Os (for {})",
            record
        ));
    }
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
        verdict,
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
    /// Runs the step's `k`th probe under `load`, recording for `record`,
    /// and keeps it; its point says whether it met the limit, and whether
    /// the host's pacing floor alone was over [`QosResult::HOST_SHARE`]
    /// of the limit.
    fn probe(
        &mut self,
        x: &Executor<'_>,
        s: &StepRun<'_>,
        load: Load,
        k: u32,
        record: Duration,
    ) -> Result<QosPoint> {
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
            record: Some(std_duration(record)),
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
        // whether the rate was kept (see io.rate.kept). fio on many hosts
        // counts neither: there, the I/Os completed say it.
        let kept = match (&run.info.rate, rate) {
            (Some(r), _) => r.kept,
            (None, Some(asked)) => completed_kept(asked, run.seconds, summary.total.ios, qd.total),
            (None, None) => true,
        };
        // None when no I/O completed in the probe (a rate so low that none
        // was due, or a target that served none): it does not meet the limit.
        let percentile_us = run.recorder.percentile_ns(q.percentile_ppm).map(|ns| ns as f64 / 1000.0);
        let quantile = q.percentile_ppm as f64 / 1e6;
        // The histogram's 3 digits can read over the exact maximum.
        let late_max_us = run.info.rate.as_ref().map_or(f64::INFINITY, |r| r.lateness_max_us);
        let lateness_us = run
            .lateness
            .as_ref()
            .filter(|h| !h.is_empty())
            .map(|h| (h.value_at_quantile(quantile) as f64 / 1000.0).min(late_max_us));
        let floor_us = run
            .floor
            .iter()
            .filter_map(|r| r.percentile_ns(q.percentile_ppm))
            .max()
            .map(|ns| ns as f64 / 1000.0);
        let met = kept && percentile_us.is_some_and(|p| p <= self.limit_us);
        let point = QosPoint {
            rate_iops: rate.map(|r| r.round().max(1.0)),
            qd: depth,
            achieved_iops: achieved,
            kept,
            percentile_us,
            latency_us: summary.total.latency_us.clone(),
            met,
            lateness_us,
            floor_us,
            host_limited: !met && floor_us.is_some_and(|f| f > QosResult::HOST_SHARE * self.limit_us),
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
        // Else the last closed-loop probe (by rate: the one that
        // completed I/Os), or depth 1's.
        let chosen = self
            .points
            .iter()
            .rposition(|(p, _)| p.met && Some((p.rate_iops, p.qd)) == found)
            .or_else(|| self.points.iter().rposition(|(p, _)| p.rate_iops.is_none() && p.qd.is_none()))
            .unwrap_or(0);
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
    mut k: u32,
) -> Result<(Option<f64>, Option<f64>)> {
    // Bracketing: from half the maximum down by halves until one meets it.
    let (mut met, mut failed): (Option<f64>, Option<f64>) = (None, Some(max));
    let mut rate = max / 2.0;
    let record = probes.q.probe;
    for _ in 0..=Qos::HALVINGS {
        let p = probes.probe(x, s, Load::Rate(rate), k, record)?;
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
            let p = probes.probe(x, s, Load::Rate(mid), k, record)?;
            k += 1;
            if p.met { lo = mid } else { hi = mid }
        }
        met = Some(lo);
        failed = Some(hi);
    }
    Ok((met, failed))
}

/// Whether a probe at `asked` I/Os a second kept its rate by the I/Os it
/// `completed` in `seconds`, where nothing counted the I/Os due and
/// started (fio on many hosts): at least 99% of those asked, less the
/// `depth` I/Os that may still be in flight when the record ends.
fn completed_kept(asked: f64, seconds: f64, completed: u64, depth: u32) -> bool {
    completed as f64 + f64::from(depth) >= 0.99 * asked.round().max(1.0) * seconds
}

/// The most a QoS search runs its closed-loop probe for, doubling, while
/// it completes nothing.
const CLOSED_RETRY_UNDER_MS: u64 = 1000;

/// The search's outcome in words: the rate found and its neighbours, or
/// that no rate met the limit; `closed` is the closed-loop probe's point;
/// with what the host's pacing floor says of the probes (`points`) that
/// missed the limit.
fn verdict(
    q: &Qos,
    met: Option<f64>,
    failed: Option<f64>,
    max: f64,
    closed: &QosPoint,
    points: &[&QosPoint],
) -> String {
    let name = q.percentile_name();
    let limit_us = q.under_ns as f64 / 1000.0;
    let host = points.iter().filter(|p| p.host_limited).collect::<Vec<_>>();
    // No rate met the limit: the lowest rate whose floor was measured (the
    // lowest rates may have had no I/O in their floor's windows) says
    // whether the host or the drive kept the probes over it.
    let lowest = points
        .iter()
        .filter(|p| p.rate_iops.is_some() && p.floor_us.is_some())
        .min_by(|a, b| a.rate_iops.unwrap_or(0.0).total_cmp(&b.rate_iops.unwrap_or(0.0)));
    if let (None, Some(p)) = (met, lowest.filter(|p| p.host_limited)) {
        let rates = points.iter().filter(|p| p.rate_iops.is_some()).count();
        let those = match host.len() {
            n if n == rates => "all of those probes were".to_string(),
            1 => "1 of those probes was".to_string(),
            n => format!("{n} of those probes were"),
        };
        return format!(
            "cannot judge here: {name} stayed over {} down to {:.0} IOPS, and {those} limited by the host's \
             scheduling, not the drive (at {:.0} IOPS the host's pacing floor alone reached {name} {:.0} us, over \
             {:.0}% of the limit); closed loop {max:.0} IOPS",
            q.limit_name(),
            failed.unwrap_or(max),
            p.rate_iops.unwrap_or(0.0),
            p.floor_us.unwrap_or(0.0),
            QosResult::HOST_SHARE * 100.0
        );
    }
    let mut out = verdict_words(q, met, failed, max, closed);
    if met.is_none() && !host.is_empty() {
        // The host limited the higher rates only: the drive missed it lower.
        let from = host.iter().filter_map(|p| p.rate_iops).fold(f64::INFINITY, f64::min);
        out.push_str(&format!(
            "; the host's pacing floor took over {:.0}% of the limit at {from:.0} IOPS and above, not below",
            QosResult::HOST_SHARE * 100.0
        ));
        return out;
    }
    // The bracket's failed rate missed the limit because of the host.
    if let Some(p) = failed
        .and_then(|f| host.iter().find(|p| p.rate_iops.is_some_and(|r| (r - f.round().max(1.0)).abs() < 0.5)))
    {
        out.push_str(&format!(
            "; the host, not the drive, may have limited it: at {:.0} IOPS the host's pacing floor alone \
             reached {name} {:.0} us, over {:.0}% of the {:.0} us limit",
            p.rate_iops.unwrap_or(0.0),
            p.floor_us.unwrap_or(0.0),
            QosResult::HOST_SHARE * 100.0,
            limit_us
        ));
    }
    out
}

/// The search's outcome in words: the rate found and its neighbours, or
/// that no rate met the limit.
fn verdict_words(q: &Qos, met: Option<f64>, failed: Option<f64>, max: f64, closed: &QosPoint) -> String {
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
        let p = probes.probe(x, s, Load::Depth(depth), k, q.probe)?;
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
                lateness_us: None,
                floor_us: None,
                host_limited: false,
            });
        }
        (search, points)
    }

    /// Where only completions are counted (fio on many hosts), a rate is
    /// kept when 99% of the I/Os asked completed, less the queue's depth.
    #[test]
    fn a_rate_counted_by_completions_is_kept_at_99_percent_less_the_queue() {
        // 1000 IOPS for 2 s: 1980 asked at least, 8 may be in flight.
        assert!(completed_kept(1000.0, 2.0, 1972, 8));
        assert!(!completed_kept(1000.0, 2.0, 1971, 8));
        assert!(completed_kept(1000.0, 2.0, 2000, 0));
        // A fraction of an I/O a second asks for at least one.
        assert!(!completed_kept(0.2, 10.0, 0, 0) && completed_kept(0.2, 10.0, 10, 0));
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

    fn rate_point(rate: Option<f64>, p: f64, floor: Option<f64>, limit: f64) -> QosPoint {
        let met = p <= limit;
        QosPoint {
            rate_iops: rate,
            qd: None,
            achieved_iops: rate.unwrap_or(10_000.0),
            kept: true,
            percentile_us: Some(p),
            latency_us: Latency::default(),
            met,
            lateness_us: None,
            floor_us: floor,
            host_limited: !met && floor.is_some_and(|f| f > QosResult::HOST_SHARE * limit),
        }
    }

    #[test]
    fn the_rate_verdict_says_when_the_host_not_the_drive_missed_the_limit() {
        let mut q = qos(32);
        q.by = QosAxis::Rate;
        q.percentile_ppm = 990_000;
        let closed = rate_point(None, 900.0, None, 2000.0);
        // 5000 IOPS missed the limit with a host floor of 1.5ms (over half
        // of 2ms); 2500 met it.
        let failed = rate_point(Some(5000.0), 2500.0, Some(1500.0), 2000.0);
        let met = rate_point(Some(2500.0), 1200.0, Some(300.0), 2000.0);
        let points = [&closed, &failed, &met];
        assert_eq!(
            verdict(&q, Some(2500.0), Some(5000.0), 10_000.0, &closed, &points),
            "p99 under 2ms up to 2500 IOPS (2500 met it, 5000 did not; closed loop 10000 IOPS, p99 900.0 us); \
             the host, not the drive, may have limited it: at 5000 IOPS the host's pacing floor alone reached \
             p99 1500 us, over 50% of the 2000 us limit"
        );
        // A floor under half the limit: the drive missed it.
        let drive = rate_point(Some(5000.0), 2500.0, Some(900.0), 2000.0);
        let v = verdict(&q, Some(2500.0), Some(5000.0), 10_000.0, &closed, &[&closed, &drive, &met]);
        assert!(!v.contains("host"), "{v}");
        // None met, and the host limited every probe: cannot judge.
        let low = rate_point(Some(2500.0), 2100.0, Some(1800.0), 2000.0);
        assert_eq!(
            verdict(&q, None, Some(2500.0), 10_000.0, &closed, &[&closed, &failed, &low]),
            "cannot judge here: p99 stayed over 2ms down to 2500 IOPS, and all of those probes were limited by \
             the host's scheduling, not the drive (at 2500 IOPS the host's pacing floor alone reached p99 1800 \
             us, over 50% of the limit); closed loop 10000 IOPS"
        );
        // A lowest probe with no I/O in its floor's windows does not count;
        // one of two limited reads in the singular.
        let empty = rate_point(Some(1250.0), 2100.0, None, 2000.0);
        let v = verdict(&q, None, Some(1250.0), 10_000.0, &closed, &[&closed, &low, &empty]);
        assert!(
            v.starts_with("cannot judge here:") && v.contains(", and 1 of those probes was limited"),
            "{v}"
        );
        // The host limited the higher rate only; the drive missed the lower.
        let drive_low = rate_point(Some(2500.0), 2100.0, Some(400.0), 2000.0);
        assert_eq!(
            verdict(&q, None, Some(2500.0), 10_000.0, &closed, &[&closed, &failed, &drive_low]),
            "p99 stayed over 2ms at every rate down to 2500 IOPS (closed loop 10000 IOPS); the host's pacing floor \
             took over 50% of the limit at 5000 IOPS and above, not below"
        );
    }
}
