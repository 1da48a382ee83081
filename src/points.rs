//! The numbers of a results directory as points: one for each step that
//! measured something (a measure, fill or precondition, a copy) and one for
//! each measurement of a rounds step, each with the workload and queue
//! depth that made it. `report` tabulates and charts them; `compare` pairs
//! them across runs.

use methodic_compiler::plan::{Action, Qd, RepeatRun, Units, Workload};
use methodic_runtime::manifest::{Loaded, ManifestStep};
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub struct Point {
    /// The step's number in the plan, from 1.
    pub step: usize,
    pub id: String,
    pub phase: Option<String>,
    /// `measure`, `rounds`, `precondition`, `fill`, `copy`.
    pub kind: String,
    pub workload: Option<Workload>,
    pub qd: Option<Qd>,
    pub sweep: Option<u32>,
    pub repeat: Option<RepeatRun>,
    /// `rnd4k_read QD 32`, `copy games`.
    pub label: String,
    pub iops: Option<f64>,
    /// Decimal megabytes a second.
    pub mb_s: f64,
    /// Binary mebibytes a second.
    pub mib_s: f64,
    pub mean_latency_us: Option<f64>,
    pub p99_latency_us: Option<f64>,
    pub seconds: f64,
    pub error: Option<String>,
}

impl Point {
    /// MB/s or MiB/s, as the methodology's units say.
    pub fn rate(&self, units: Units) -> f64 {
        if units == Units::Binary { self.mib_s } else { self.mb_s }
    }

    /// What pairs a point with its counterpart in another run: the kind
    /// of step, what the I/O does (not the workload's name), and the total
    /// queue depth. Copies pair by data set.
    pub fn key(&self) -> String {
        match (&self.workload, &self.qd) {
            (Some(w), Some(qd)) => {
                let blocks: Vec<String> =
                    w.blocks.iter().map(|b| format!("{}:{}", b.size, b.share)).collect();
                format!(
                    "{} {} read {} random {} align {} qd {}",
                    self.kind,
                    blocks.join("+"),
                    w.read,
                    w.random,
                    w.align,
                    qd.total
                )
            }
            _ => format!("{} {}", self.kind, self.label),
        }
    }
}

/// The rate's unit name.
pub fn rate_unit(units: Units) -> &'static str {
    if units == Units::Binary { "MiB/s" } else { "MB/s" }
}

/// Every point of a loaded run, in step order.
pub fn points(run: &Loaded) -> Vec<Point> {
    let mut out = Vec::new();
    for r in &run.steps {
        let Some(step) = run.plan_step(r) else { continue };
        let base = |kind: &str, workload: Option<&Workload>, qd: Option<&Qd>, label: String| Point {
            step: r.index,
            id: r.id.clone(),
            phase: r.phase.clone(),
            kind: kind.to_string(),
            workload: workload.cloned(),
            qd: qd.copied(),
            sweep: step.sweep,
            repeat: step.repeat,
            label,
            iops: None,
            mb_s: 0.0,
            mib_s: 0.0,
            mean_latency_us: None,
            p99_latency_us: None,
            seconds: r.seconds,
            error: r.error.clone(),
        };
        match (&step.action, &r.summary, &r.cells, &r.copy) {
            (
                Action::Measure { workload, qd, .. }
                | Action::Fill { workload, qd, .. }
                | Action::Precondition { workload, qd, .. },
                Some(s),
                _,
                _,
            ) => {
                let mut p =
                    base(&r.kind, Some(workload), Some(qd), format!("{} QD {}", workload.name, qd.total));
                p.iops = Some(s.total.iops);
                p.mb_s = s.total.mb_s;
                p.mib_s = s.total.mib_s;
                p.mean_latency_us = Some(s.total.latency_us.mean);
                p.p99_latency_us = Some(s.total.latency_us.p99);
                p.seconds = s.seconds;
                out.push(p);
            }
            (Action::Rounds { cells, .. }, _, Some(results), _) => {
                for c in results {
                    let Some(cell) =
                        cells.iter().find(|k| k.workload.name == c.workload && k.qd.total == c.qd)
                    else {
                        continue;
                    };
                    let mut p = base(
                        "rounds",
                        Some(&cell.workload),
                        Some(&cell.qd),
                        format!("{} QD {}", c.workload, c.qd),
                    );
                    p.iops = Some(c.window_iops);
                    p.mb_s = c.window_mb_s;
                    p.mib_s = c.window_mb_s * 1e6 / 1_048_576.0;
                    p.mean_latency_us = Some(c.window_mean_latency_us);
                    p.p99_latency_us = Some(c.last.total.latency_us.p99);
                    out.push(p);
                }
            }
            (Action::Copy { dataset }, _, _, Some(c)) => {
                let mut p = base("copy", None, None, format!("copy {}", dataset.name));
                p.mb_s = c.mb_s;
                p.mib_s = c.mib_s;
                p.seconds = c.seconds;
                out.push(p);
            }
            _ => {}
        }
    }
    out
}

/// The manifest step a point came from.
pub fn step_of<'a>(run: &'a Loaded, p: &Point) -> Option<&'a ManifestStep> {
    run.manifest.steps.get(p.step.wrapping_sub(1)).filter(|s| s.id == p.id)
}
