//! What `methodic plan` shows: a compiled plan goes in; out comes
//! [`PlanSteps`], a row a step (its number, id, what it does, queue depth,
//! time and writes, in `HEADERS`' order) and the plan's phases and
//! totals. The exporters (`crate::export`) write it as a table, CSV or JSON
//! lines.

use methodic_compiler::plan::Plan;

/// What `methodic plan` prints: a plan's steps, each with its time and
/// writes, and its phases.
pub struct PlanSteps {
    pub(crate) plan: Plan,
}

impl PlanSteps {
    /// The plan to show.
    pub fn new(plan: Plan) -> PlanSteps {
        PlanSteps { plan }
    }

    /// A row a step, in `HEADERS`' order.
    pub(crate) fn rows(&self) -> Vec<[String; 6]> {
        let plan = &self.plan;
        plan.steps
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let time = if s.estimate.device_bound {
                    if s.estimate.time.is_zero() {
                        "device-bound".to_string()
                    } else {
                        format!("{} + device-bound", s.estimate.time.human())
                    }
                } else {
                    s.estimate.time.human()
                };
                [
                    (i + 1).to_string(),
                    s.id.clone(),
                    s.describe(),
                    s.qd().unwrap_or_else(|| "-".into()),
                    time,
                    s.estimate.written.human(plan.conventions.units),
                ]
            })
            .collect()
    }
}

/// The columns of a step's row.
pub(crate) const HEADERS: [&str; 6] = ["#", "step", "what", "qd", "time", "writes"];

#[cfg(test)]
mod tests {
    use methodic_compiler::Options;

    use super::*;
    use crate::export::{Exports, Format};

    fn plan(src: &str) -> PlanSteps {
        PlanSteps::new(methodic_compiler::compile(src, &Options::default()).unwrap().plan)
    }

    const TWO: &str = "methodology \"two\" version \"1\"\n\
                       target { span 1GiB }\n\
                       workload r { random; block 4KiB; read 100% }\n\
                       workload w { sequential; block 128KiB; read 0% }\n\
                       measure r qd 4 for 2s\n\
                       fill w passes 1\n";

    #[test]
    fn each_format_has_a_row_a_step() {
        let p = plan(TWO);
        assert_eq!(p.rows().len(), 2);
        assert_eq!(p.rows()[0][0], "1");
        assert_eq!(p.rows()[0][3], "4");
        assert_eq!(p.rows()[1][4], "device-bound");
        let csv = p.export(Format::Csv).unwrap();
        assert_eq!(csv.lines().next(), Some("#,step,what,qd,time,writes"));
        assert_eq!(csv.lines().count(), 3);
        let json = p.export(Format::Json).unwrap();
        let lines: Vec<serde_json::Value> = json.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0]["qd"], "4");
        assert_eq!(lines[1]["device_bound"], true);
        let table = p.export(Format::Table).unwrap();
        assert!(table.starts_with("two version 1\n"), "{table}");
        assert!(table.contains("1 step depends on the device's speed"), "{table}");
        assert!(p.export(Format::Html).is_err());
    }
}
