//! The loads of a run beyond one closed-loop job: its records in, out the
//! views every report format draws: each `together` step's jobs (a row a
//! job, then all of them), each open-loop measurement's rate (asked,
//! achieved, late), and each latency QoS search (its verdict, a row a
//! probe, and for the HTML page a chart of latency percentiles against
//! the IOPS achieved, the limit and the rate found marked).

use methodic_compiler::plan::{Action, QosAxis};
use serde::Serialize;

use crate::manifest::Loaded;
use crate::numbers::Latency;
use crate::record::{QosPoint, QosResult, StepResult};
use crate::svg::{Chart, Rule, Series};
use crate::units::num;
use crate::view::points::{limit_words, rate_unit};

/// A `together` step: a row a job, then a row for all of them.
#[derive(Serialize)]
pub struct TogetherView {
    pub step: usize,
    pub id: String,
    /// `together: 2 jobs at once (reads, writes): 30s ramp, 5min record`.
    pub describe: String,
    pub columns: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

/// An open-loop measurement: its rate asked and what was kept.
#[derive(Serialize)]
pub struct OpenLoopView {
    pub step: usize,
    pub id: String,
    pub kept: bool,
    /// `asked 50000 IOPS (Poisson), kept 31250 (62.5%); ...`.
    pub words: String,
    /// What a missed rate means for the step's numbers, said the same in
    /// every format; `None` when the rate was kept.
    pub missed: Option<&'static str>,
    /// The step's p99 latency is within reach of the host's pacing floor
    /// (its warning is the end of `words`).
    pub host_bound: bool,
}

/// What every format says of a step whose rate was not kept.
pub const MISSED: &str = "rate not kept: its numbers are not a result at the rate asked";

/// A QoS search: its verdict, a row a probe, and its chart (HTML).
#[derive(Serialize)]
pub struct QosView {
    pub step: usize,
    pub id: String,
    pub verdict: String,
    pub columns: Vec<String>,
    pub rows: Vec<Vec<String>>,
    /// Inline SVG: latency percentiles against the IOPS achieved.
    pub svg: String,
}

/// Every load view of a run, in step order.
#[derive(Serialize, Default)]
pub struct Loads {
    pub together: Vec<TogetherView>,
    pub open_loop: Vec<OpenLoopView>,
    pub qos: Vec<QosView>,
}

impl Loads {
    pub fn is_empty(&self) -> bool {
        self.together.is_empty() && self.open_loop.is_empty() && self.qos.is_empty()
    }
}

/// The load views of `run`; the QoS charts are drawn only when `charts`.
pub fn loads(run: &Loaded, charts: bool) -> Loads {
    let mut out = Loads::default();
    for r in &run.steps {
        let Some(step) = run.plan_step(r) else { continue };
        match &step.action {
            Action::Together { .. } if !r.jobs.is_empty() => {
                out.together.push(together(run, r, step.describe()));
            }
            Action::Qos(_) => {
                if let Some(q) = &r.qos {
                    out.qos.push(qos(r, q, charts));
                }
            }
            Action::Measure { .. } => {
                if let Some(o) = r.io.as_ref().and_then(|io| io.rate.as_ref()) {
                    out.open_loop.push(OpenLoopView {
                        step: r.index,
                        id: r.id.clone(),
                        kept: o.kept,
                        words: o.words(),
                        missed: (!o.kept).then_some(MISSED),
                        host_bound: o.floor_warning.is_some(),
                    });
                }
            }
            // A together step whose record has no jobs, or a step with
            // none of these loads.
            Action::Erase { .. }
            | Action::Fill { .. }
            | Action::Precondition { .. }
            | Action::Together { .. }
            | Action::Rounds { .. }
            | Action::DropCaches
            | Action::Idle { .. }
            | Action::LimitRam { .. }
            | Action::Copy { .. }
            | Action::Probe(_) => {}
        }
    }
    out
}

/// The columns of a `together` step's table, the rate in the run's units.
fn job_columns(run: &Loaded) -> Vec<String> {
    let rate = rate_unit(run.manifest.plan.conventions.units);
    ["job", "workload", "QD", "IOPS", rate, "mean us", "p99 us", "max us", "load"]
        .iter()
        .map(|c| c.to_string())
        .collect()
}

fn together(run: &Loaded, r: &StepResult, describe: String) -> TogetherView {
    let binary = run.manifest.plan.conventions.units == methodic_compiler::plan::Units::Binary;
    let row = |name: String, workload: String, qd: String, s: &crate::numbers::Summary, load: String| {
        let l = &s.total.latency_us;
        vec![
            name,
            workload,
            qd,
            num(Some(s.total.iops), 0),
            num(Some(if binary { s.total.mib_s } else { s.total.mb_s }), 1),
            num(Some(l.mean), 1),
            num(Some(l.p99), 1),
            num(Some(l.max), 1),
            load,
        ]
    };
    let mut rows: Vec<Vec<String>> = r
        .jobs
        .iter()
        .map(|j| {
            // On many hosts fio paced the job and kept no lateness: the
            // plan's rate says what was asked.
            let asked = || {
                let Some(Action::Together { jobs, .. }) = run.plan_step(r).map(|s| &s.action) else {
                    return None;
                };
                let rate = jobs.iter().find(|p| p.name == j.name)?.rate?;
                Some(format!("open loop at {} (fio's rate_iops on the hosts)", rate.describe()))
            };
            let load = match j.io.as_ref().and_then(|io| io.rate.as_ref()) {
                Some(o) => o.words(),
                None => asked().unwrap_or_else(|| "closed loop".into()),
            };
            row(j.name.clone(), j.workload.clone(), j.qd.to_string(), &j.summary, load)
        })
        .collect();
    if let Some(s) = &r.summary {
        let qd: u32 = r.jobs.iter().map(|j| j.qd).sum();
        rows.push(row("all jobs".into(), "-".into(), qd.to_string(), s, "every job's I/Os merged".into()));
    }
    TogetherView { step: r.index, id: r.id.clone(), describe, columns: job_columns(run), rows }
}

/// The latency of one of a probe's percentiles, by its name (`p99.9`).
fn percentile(l: &Latency, name: &str) -> Option<f64> {
    Some(match name {
        "p50" => l.p50,
        "p90" => l.p90,
        "p99" => l.p99,
        "p99.9" => l.p99_9,
        "p99.99" => l.p99_99,
        "p99.999" => l.p99_999,
        "p99.9999" => l.p99_9999,
        _ => return None,
    })
}

/// The probe whose numbers are the step's (see [`QosResult::found_probe`]).
fn found_probe(q: &QosResult) -> Option<&QosPoint> {
    q.found_probe()
}

fn qos(r: &StepResult, q: &QosResult, charts: bool) -> QosView {
    let name = &q.percentile;
    let asked = if q.by == QosAxis::Qd { "QD per worker" } else { "rate asked (IOPS)" };
    let columns: Vec<String> = [
        "probe",
        asked,
        "achieved IOPS",
        "rate kept",
        &format!("{name} us"),
        "p50 us",
        "p99 us",
        "max us",
        &format!("late {name} us"),
        &format!("host floor {name} us"),
        &format!("under {}", limit_words(q.limit_us)),
    ]
    .iter()
    .map(|c| c.to_string())
    .collect();
    let found = found_probe(q);
    let rows = q
        .points
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let is_found = found.is_some_and(|f| std::ptr::eq(f, p));
            vec![
                format!("{}{}", i + 1, if is_found { " (found)" } else { "" }),
                match (p.qd, p.rate_iops) {
                    (Some(qd), _) => qd.to_string(),
                    (None, Some(r)) => format!("{r:.0}"),
                    (None, None) => "closed loop".into(),
                },
                num(Some(p.achieved_iops), 0),
                if p.rate_iops.is_none() {
                    "-".into()
                } else if p.kept {
                    "yes".into()
                } else {
                    "no".into()
                },
                num(p.percentile_us, 1),
                num(Some(p.latency_us.p50), 1),
                num(Some(p.latency_us.p99), 1),
                num(Some(p.latency_us.max), 1),
                num(p.lateness_us, 1),
                num(p.floor_us, 1),
                if p.met {
                    "met".into()
                } else if p.host_limited {
                    "cannot judge (the host)".into()
                } else {
                    "not met".into()
                },
            ]
        })
        .collect();
    QosView {
        step: r.index,
        id: r.id.clone(),
        verdict: q.verdict.clone(),
        columns,
        rows,
        svg: if charts { qos_chart(&r.id, q, found) } else { String::new() },
    }
}

/// Latency percentiles (p50, p99, p99.9 and the searched one) against the
/// IOPS each probe achieved, the limit across and the rate found marked.
fn qos_chart(id: &str, q: &QosResult, found: Option<&QosPoint>) -> String {
    let mut probes: Vec<&QosPoint> = q.points.iter().collect();
    probes.sort_by(|a, b| a.achieved_iops.total_cmp(&b.achieved_iops));
    let line = |name: &str, f: &dyn Fn(&QosPoint) -> f64| Series {
        name: name.to_string(),
        points: probes.iter().map(|p| (p.achieved_iops, f(p))).collect(),
    };
    let mut series = vec![
        line("p50", &|p| p.latency_us.p50),
        line("p99", &|p| p.latency_us.p99),
        line("p99.9", &|p| p.latency_us.p99_9),
    ];
    if !["p50", "p99", "p99.9"].contains(&q.percentile.as_str()) {
        series.push(line(&format!("{} (searched)", q.percentile), &|p| {
            percentile(&p.latency_us, &q.percentile).or(p.percentile_us).unwrap_or(0.0)
        }));
    }
    let mut rules =
        vec![Rule::AtY(q.limit_us, format!("limit: {} under {}", q.percentile, limit_words(q.limit_us)))];
    if let Some(f) = found {
        let what = match f.qd {
            Some(qd) => format!("found: QD {qd} per worker, {:.0} IOPS", f.achieved_iops),
            None => format!("found: {:.0} IOPS", q.found_iops.unwrap_or(0.0)),
        };
        rules.push(Rule::AtX(f.achieved_iops, what));
    }
    let title = format!("{id}: latency by IOPS achieved, each probe");
    Chart {
        title: &title,
        x_label: "IOPS achieved",
        y_label: "latency (µs)",
        log2_x: false,
        series,
        band: None,
        rules,
    }
    .render()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn probe(rate: Option<f64>, achieved: f64, p9999: f64, met: bool) -> QosPoint {
        let latency_us = Latency {
            p50: 100.0,
            p99: 400.0,
            p99_9: 700.0,
            p99_99: p9999,
            max: p9999 + 1.0,
            ..Latency::default()
        };
        QosPoint {
            rate_iops: rate,
            qd: None,
            achieved_iops: achieved,
            kept: true,
            percentile_us: Some(p9999),
            latency_us,
            met,
            lateness_us: None,
            floor_us: None,
            host_limited: false,
        }
    }

    fn search() -> QosResult {
        QosResult {
            percentile: "p99.99".into(),
            limit_us: 1000.0,
            by: QosAxis::Rate,
            closed_loop_iops: 4000.0,
            found_iops: Some(1500.4),
            failed_iops: Some(2000.0),
            found_qd: None,
            failed_qd: None,
            points: vec![
                probe(None, 4000.0, 3000.0, false),
                probe(Some(2000.0), 2000.0, 1500.0, false),
                probe(Some(1000.0), 1000.0, 800.0, true),
                probe(Some(1500.0), 1490.0, 950.0, true),
            ],
            verdict: "p99.99 under 1ms up to 1500 IOPS".into(),
        }
    }

    #[test]
    fn the_probe_found_is_the_last_that_met_the_limit_at_the_rate_found() {
        let q = search();
        let f = found_probe(&q).expect("a probe at 1500");
        assert_eq!((f.rate_iops, f.achieved_iops), (Some(1500.0), 1490.0));
        let none = QosResult { found_iops: None, ..search() };
        assert!(found_probe(&none).is_none());
        assert_eq!(percentile(&q.points[0].latency_us, "p99.99"), Some(3000.0));
        assert_eq!(percentile(&q.points[0].latency_us, "p42"), None);
    }

    #[test]
    fn the_qos_chart_draws_four_percentiles_the_limit_and_the_rate_found() {
        let q = search();
        let svg = qos_chart("qos", &q, found_probe(&q));
        assert_eq!(svg.matches("<path ").count(), 4, "p50, p99, p99.9 and p99.99: {svg}");
        assert!(svg.contains(">p99.99 (searched)<"), "{svg}");
        assert!(svg.contains(">limit: p99.99 under 1ms<") && svg.contains(">found: 1500 IOPS<"), "{svg}");
        // Each line has a point a probe.
        assert_eq!(svg.matches("<circle ").count(), 16);
    }

    /// A search by queue depth: probes at depths 1, 2, 4 (not met), 3; the
    /// probe found is the one at depth 3, and the rows give each depth.
    fn by_depth() -> QosResult {
        let at = |qd: u32, achieved: f64, p9999: f64, met: bool| QosPoint {
            qd: Some(qd),
            ..probe(None, achieved, p9999, met)
        };
        QosResult {
            by: QosAxis::Qd,
            closed_loop_iops: 4000.0,
            found_iops: None,
            failed_iops: None,
            found_qd: Some(3),
            failed_qd: Some(4),
            points: vec![
                at(1, 1000.0, 300.0, true),
                at(2, 2000.0, 600.0, true),
                at(4, 4000.0, 1500.0, false),
                at(3, 3000.0, 900.0, true),
            ],
            ..search()
        }
    }

    #[test]
    fn a_search_by_queue_depth_shows_each_probes_depth_and_the_depth_found() {
        let q = by_depth();
        assert_eq!(found_probe(&q).and_then(|p| p.qd), Some(3));
        assert!(found_probe(&QosResult { found_qd: None, ..by_depth() }).is_none());
        let svg = qos_chart("qos", &q, found_probe(&q));
        assert!(svg.contains(">found: QD 3 per worker, 3000 IOPS<"), "{svg}");
    }
}
