//! Open-loop load and jobs that run together: a rate at which a
//! measurement starts its I/Os and how they arrive ([`Rate`]), whatever
//! the target does, so that latency is counted from when each I/O was due
//! (no coordinated omission); and the named jobs of a `together` step
//! ([`Job`]), each with its own workload, queue depth, rate and device.

use serde::{Deserialize, Serialize};

pub use methodic_grammar::ast::Arrivals;

use super::{Bytes, Percent, Qd, Workload};

/// I/Os started at a fixed rate, over all the step's workers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rate {
    pub amount: RateAmount,
    pub arrivals: Arrivals,
}

/// How many I/Os a second, or bytes a second.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RateAmount {
    Iops(u64),
    /// Bytes a second: I/Os start at this over the workload's mean block.
    Bandwidth(Bytes),
    /// A share of the IOPS an earlier measurement of the plan did (`rate
    /// 25% of peak_read`): `of` is that step's index in the plan, from 0.
    /// The runtime reads it from the step's results before this one runs.
    Share {
        share: Percent,
        of: u32,
    },
}

impl Rate {
    /// I/Os a second over all workers, for `workload`: a bandwidth over the
    /// mean of its block sizes weighted by their shares. A share of another
    /// step is known only once that step has run: `None` until the runtime
    /// has made it IOPS.
    pub fn iops(&self, workload: &Workload) -> Option<f64> {
        Some(match self.amount {
            RateAmount::Iops(n) => n as f64,
            RateAmount::Share { .. } => return None,
            RateAmount::Bandwidth(b) => {
                let mean: f64 =
                    workload.blocks.iter().map(|s| s.size.0 as f64 * s.share.as_f64() / 100.0).sum();
                if mean > 0.0 { b.0 as f64 / mean } else { 0.0 }
            }
        })
    }

    /// `50000 IOPS, uniform arrivals` or `200MB/s, Poisson arrivals`.
    pub fn describe(&self) -> String {
        let amount = match self.amount {
            RateAmount::Iops(n) => format!("{n} IOPS"),
            RateAmount::Bandwidth(b) => format!("{b}/s"),
            RateAmount::Share { share, of } => format!("{share} of the IOPS of step {}", of + 1),
        };
        format!("{amount}, {} arrivals", self.arrivals.words())
    }
}

/// One of the jobs a `together` step runs at the same time as the others.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Job {
    /// Its name in the methodology, unique in the step.
    pub name: String,
    pub workload: Workload,
    pub qd: Qd,
    /// The workers the job declares (`workers N`), else the target's: its
    /// queue depth is spread over them (fewer when the depth is smaller).
    pub workers: u32,
    /// Open loop at this rate; `None`: closed loop (a new I/O as one
    /// completes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    /// Which of the run's targets the job's workers use, from 0 (`device
    /// 1` in the language is the first `--target`).
    pub device: u32,
}
