//! What `methodic run` and `methodic calibrate` show when they end. A run's
//! report and its units go in; out comes [`Ran`] (a row a step: IOPS, rate,
//! mean and p99 latency, and notes: how it ran, a failure, steady state,
//! a probe, cells). The host ceilings measured go in; out comes
//! [`HostCeilings`]. [`step_line`] says a finished step in one line for the
//! run's progress, in the same words as the table. The exporters
//! (`crate::export`) write them as a table or JSON.

use methodic_compiler::plan::Units;
use schemars::JsonSchema;
use serde::Serialize;

use crate::ceiling::Ceilings;
use crate::record::{ProbeResult, RunReport, StepResult};
use crate::view::points::rate_unit;

/// What `methodic calibrate` prints: the host ceilings measured.
#[derive(Serialize, JsonSchema)]
#[serde(transparent)]
pub struct HostCeilings(pub Ceilings);

/// What `methodic run` prints when the run ends: its report, and the
/// plan's units (for the rate column). As JSON, the report alone.
#[derive(Serialize, JsonSchema)]
#[serde(transparent)]
pub struct Ran {
    pub(crate) report: RunReport,
    #[serde(skip)]
    pub(crate) units: Units,
}

impl Ran {
    /// A run's report, with rates in the plan's `units`.
    pub fn new(report: RunReport, units: Units) -> Ran {
        Ran { report, units }
    }

    /// The report shown.
    pub fn report(&self) -> &RunReport {
        &self.report
    }
}

/// A finished step in a few words, for the run's progress: its numbers or
/// its failure, an open loop's rate kept or not, steady state, copy, probe
/// and what its actions did.
pub fn step_line(r: &StepResult, units: Units) -> String {
    if let Some(e) = &r.error {
        return failure_words(e);
    }
    let binary = units == Units::Binary;
    let unit = rate_unit(units);
    let mut parts = Vec::new();
    if let Some(s) = &r.summary {
        let rate = if binary { s.total.mib_s } else { s.total.mb_s };
        let mean = s.total.latency_us.mean;
        parts.push(format!("{:.0} IOPS, {rate:.1} {unit}, {mean:.1} us mean", s.total.iops));
        if let Some(t) = &s.trim {
            parts.push(trim_words(t));
        }
    }
    if let Some(open) = r.io.as_ref().and_then(|io| io.rate.as_ref()) {
        parts.push(open.words());
    }
    if let Some(st) = &r.steady {
        let how = if st.reached { "steady after" } else { "not steady after" };
        parts.push(format!("{how} {} rounds", st.rounds));
    }
    if let Some(c) = &r.copy {
        let rate = if binary { c.mib_s } else { c.mb_s };
        parts.push(format!("copied {} files at {rate:.1} {unit}", c.files));
    }
    if let Some(p) = &r.probe {
        parts.push(probe_words(p));
    }
    if let Some(q) = &r.qos {
        parts.push(q.verdict.clone());
    }
    if let Some(v) = &r.verify {
        parts.push(v.words());
    }
    for j in &r.jobs {
        let t = &j.summary.total;
        let rate = if binary { t.mib_s } else { t.mb_s };
        parts.push(format!(
            "{}: {:.0} IOPS, {rate:.1} {unit}, {:.1} us mean",
            j.name, t.iops, t.latency_us.mean
        ));
    }
    if r.jobs.is_empty() {
        parts.extend(r.actions.iter().cloned());
    }
    if parts.is_empty() {
        parts.push(format!("done in {:.1}s", r.seconds));
    }
    parts.join("; ")
}

/// `of which trims 1234 IOPS, 56.7 us mean`: a step's trims, apart.
pub(crate) fn trim_words(t: &crate::numbers::Rates) -> String {
    format!("of which trims {:.0} IOPS, {:.1} us mean", t.iops, t.latency_us.mean)
}

/// A step's error: `failed: ...`, or the interruption as it was said.
pub(crate) fn failure_words(error: &str) -> String {
    if error.starts_with("interrupted") { error.to_string() } else { format!("failed: {error}") }
}

/// `4096 offsets, median 81.3 us`.
pub(crate) fn probe_words(p: &ProbeResult) -> String {
    format!("{} offsets, median {:.1} us", p.offsets, p.median_us)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::{Exports, Format};

    /// A completed run of two steps: an erase, and a step cut off.
    fn ran(units: Units) -> Ran {
        let report: RunReport = serde_json::from_value(serde_json::json!({
            "methodology": { "name": "t", "version": "2", "source_hash": "" },
            "rehearsal": true,
            "status": "interrupted",
            "error": "interrupted",
            "seconds": 1.25,
            "results": "/r",
            "steps": [
                { "index": 1, "id": "erase", "phase": null, "kind": "erase", "rehearsal": true,
                  "started": "", "seconds": 0.5, "error": null, "actions": ["punched holes"] },
                { "index": 2, "id": "m", "phase": null, "kind": "measure", "rehearsal": true,
                  "started": "", "seconds": 0.25, "error": "interrupted by SIGINT" },
                { "index": 3, "id": "b", "phase": null, "kind": "measure", "rehearsal": true,
                  "started": "", "seconds": 0.25, "error": "no space" }
            ]
        }))
        .unwrap();
        Ran::new(report, units)
    }

    #[test]
    fn a_step_reads_the_same_in_the_progress_and_the_table() {
        let r = ran(Units::Binary);
        let steps = &r.report().steps;
        assert_eq!(step_line(&steps[0], Units::Binary), "punched holes");
        assert_eq!(step_line(&steps[1], Units::Binary), "interrupted by SIGINT");
        assert_eq!(step_line(&steps[2], Units::Binary), "failed: no space");
        let table = r.export(Format::Table).unwrap();
        assert!(table.starts_with("REHEARSAL: "), "{table}");
        assert!(table.contains("t version 2: 3 steps in 1.2s, interrupted\n"), "{table}");
        assert!(table.contains("MiB/s") && !table.contains("MB/s"), "{table}");
        assert!(
            table.contains("│ interrupted by SIGINT │") && table.contains("│ failed: no space"),
            "{table}"
        );
        assert!(table.ends_with("methodic compare /r OTHER_RESULTS\n"), "{table}");
        assert!(ran(Units::Decimal).export(Format::Table).unwrap().contains("MB/s"));
        let json: serde_json::Value = serde_json::from_str(&r.export(Format::Json).unwrap()).unwrap();
        assert_eq!(json["status"], "interrupted");
        assert_eq!(json["steps"].as_array().unwrap().len(), 3);
    }

    /// An open-loop step says in words whether its rate was kept: asked,
    /// kept and its share, how many I/Os started late and by up to how
    /// much, how many never started; in the progress line and the table.
    #[test]
    fn an_open_loop_step_says_whether_its_rate_was_kept() {
        let rate = |kept: bool, late: u64, never: u64, bytes: Option<u64>| {
            serde_json::json!({
                "asked_iops": 50000.0, "asked_bytes_s": bytes, "arrivals": "poisson", "due": 500000,
                "started": 312500, "completed": 312492, "started_iops": 31250.0, "completed_iops": 31249.2,
                "kept": kept, "late": late, "late_percent": late as f64 / 3125.0, "late_after_us": 20.0,
                "lateness_mean_us": 610000.0, "lateness_p99_us": 1200000.0, "lateness_max_us": 1240000.0,
                "never_started": never, "backlog": never
            })
        };
        let step = |rate: serde_json::Value| -> StepResult {
            serde_json::from_value(serde_json::json!({
                "index": 1, "id": "w", "phase": null, "kind": "measure", "rehearsal": false, "started": "",
                "seconds": 10.0, "error": null,
                "io": { "engine": "io_uring", "engine_reason": "", "threads": 1, "depth": 32,
                        "mean_inflight": 32.0, "registered_buffers": true, "forced_async": false,
                        "latency_recorded": true, "bytes_written": 0, "seed": 1, "rate": rate }
            }))
            .unwrap()
        };
        let not_kept = step(rate(false, 253125, 187500, None));
        let words = not_kept.io.as_ref().unwrap().rate.as_ref().unwrap().words();
        assert_eq!(
            words,
            "asked 50000 IOPS (Poisson), kept 31250 (62.5%); 81% of I/Os started late, by up to 1.24 s; \
             187500 never started"
        );
        assert!(
            step_line(&not_kept, Units::Decimal).ends_with(&words),
            "{}",
            step_line(&not_kept, Units::Decimal)
        );
        let mut report = ran(Units::Decimal).report;
        report.steps = vec![not_kept];
        let table = Ran::new(report, Units::Decimal).export(Format::Table).unwrap();
        assert!(table.contains("kept 31250 (62.5%)"), "{table}");
        let kept = step(rate(true, 9, 0, Some(200_000_000)));
        assert_eq!(
            kept.io.unwrap().rate.unwrap().words(),
            "at 200.0 MB/s (Poisson): kept; 0.003% of I/Os started late, by up to 1.24 s"
        );
        // A closed-loop step's record has no rate, and writes none.
        let closed = step(serde_json::Value::Null);
        assert!(closed.io.as_ref().unwrap().rate.is_none());
        let json = serde_json::to_string(&closed).unwrap();
        assert!(!json.contains("\"rate\""), "{json}");
    }
}
