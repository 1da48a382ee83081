//! The load a step puts on its target: its queue depth ([`Qd`]), kept
//! full in a closed loop; or a rate at which a measurement starts its I/Os
//! and how they arrive ([`Rate`]), whatever the target does, so that
//! latency is counted from when each I/O was due (no coordinated
//! omission); pauses between I/Os ([`Pauses`]); a latency QoS search
//! ([`Qos`]); and the named jobs of a `together` step ([`Job`]), each with
//! its own workload, queue depth, rate and device.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use methodic_grammar::ast::{Arrivals, QosAxis};

use super::words::{fine_name, plural};
use super::workload::Workload;
use super::{Bytes, Duration, Percent, QdCounting};

/// A queue depth as the methodology counts it and as it is spread.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Qd {
    /// Outstanding I/Os over all workers.
    pub total: u32,
    /// Outstanding I/Os in each active worker.
    pub per_worker: u32,
    /// Workers active in this step: the declared workers, or fewer when a
    /// total queue depth is below the worker count.
    pub workers: u32,
    /// How the methodology counted it.
    pub counted: QdCounting,
}

/// I/Os started at a fixed rate, over all the step's workers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Rate {
    pub amount: RateAmount,
    pub arrivals: Arrivals,
}

/// How many I/Os a second, or bytes a second.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
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

/// Pauses a worker takes between its I/Os: `think` after every `every`
/// I/Os it starts, and `bursts` (I/Os start only in the first `on` of
/// every `every`), as fio's thinktime and vdbench's bursts give them.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize, JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct Pauses {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub think: Option<Think>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bursts: Option<Bursts>,
}

impl Pauses {
    pub fn is_none(&self) -> bool {
        self.think.is_none() && self.bursts.is_none()
    }

    /// `think 100us every 16, bursts of 2s every 10s`.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(t) = self.think {
            parts.push(format!(
                "think {} every {}{}",
                fine_name(t.pause_ns),
                plural(t.every as u64, "I/O", "I/Os"),
                if t.drained { " once those in flight complete" } else { "" }
            ));
        }
        if let Some(b) = self.bursts {
            parts.push(format!("bursts of {} every {}", b.on.human(), b.every.human()));
        }
        parts.join(", ")
    }
}

/// A pause of `pause_ns` after every `every` I/Os a worker starts, drained
/// or not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Think {
    pub pause_ns: u64,
    pub every: u32,
    /// The pause starts once every I/O in flight has completed, and no I/O
    /// starts before (fio's thinktime, which quiesces first). Plans from
    /// before it have none.
    #[serde(default, skip_serializing_if = "is_false")]
    pub drained: bool,
}

/// I/Os start during the first `on` of every `every`; none start in the rest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Bursts {
    pub on: Duration,
    pub every: Duration,
}

/// A latency QoS search. By rate (the default): the highest open-loop
/// rate at which a latency percentile of `workload` at `qd` stays under a
/// limit. The search is stated: a closed-loop probe first (the most the
/// target does at this depth, `M`); then open-loop probes at `M/2`,
/// halving until one meets the limit (at most [`Qos::HALVINGS`] times);
/// then bisection between the highest rate that met it and the lowest
/// that did not, until they are within `precision` of the latter. A probe
/// meets the limit when the rate was kept and its percentile is under the
/// limit.
///
/// By queue depth (`by qd`): the deepest queue depth per worker, up to
/// `qd`'s, at which the percentile stays under the limit, closed loop.
/// Probes start at depth 1 and double while they meet the limit (capped
/// at the ceiling), then bisect between the deepest depth that met it and
/// the shallowest that did not, until the two are adjacent; `precision`
/// and `arrivals` do not apply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Qos {
    pub workload: Workload,
    pub qd: Qd,
    /// The percentile in parts per million: p99.99 is 999,900.
    pub percentile_ppm: u32,
    /// The latency it must stay under, in nanoseconds.
    pub under_ns: u64,
    /// Each probe's ramp (not recorded) and record time.
    pub ramp: Duration,
    pub probe: Duration,
    pub precision: Percent,
    pub arrivals: Arrivals,
    /// What the search steps; plans from before it was a choice searched
    /// by rate.
    #[serde(default, skip_serializing_if = "QosAxis::is_rate")]
    pub by: QosAxis,
}

impl Qos {
    /// Halvings below `M/2` before the search gives up: 1/2048 of `M`.
    pub const HALVINGS: u32 = 10;

    /// Bisection probes to bring a bracket of a factor of 2 within
    /// `precision`.
    pub fn bisections(&self) -> u32 {
        let p = (self.precision.as_f64() / 100.0).clamp(1e-6, 0.5);
        (0.5 / p).log2().ceil().max(0.0) as u32
    }

    /// The fewest and the most probes the search takes, the closed-loop
    /// one included (by rate).
    pub fn probes(&self) -> (u32, u32) {
        match self.by {
            QosAxis::Rate => (2 + self.bisections(), 2 + Self::HALVINGS + self.bisections()),
            QosAxis::Qd => depth_probes(self.qd.per_worker),
        }
    }

    /// What the step does, in words: `qos rnd4k_read (4KiB random, 100%
    /// read): the highest rate with p99.99 under 1ms (1min probes, within
    /// 2%)`, or the deepest queue depth by queue depth.
    pub fn describe(&self) -> String {
        match self.by {
            QosAxis::Qd => format!(
                "qos {}: the deepest queue depth up to {} per worker with {} under {} ({} probes)",
                self.workload.label(),
                self.qd.per_worker,
                self.percentile_name(),
                self.limit_name(),
                self.probe.human()
            ),
            QosAxis::Rate => format!(
                "qos {}: the highest rate with {} under {} ({} probes, within {})",
                self.workload.label(),
                self.percentile_name(),
                self.limit_name(),
                self.probe.human(),
                self.precision
            ),
        }
    }

    /// `p99.99`.
    pub fn percentile_name(&self) -> String {
        let p = format!("{:.4}", self.percentile_ppm as f64 / 10_000.0);
        format!("p{}", p.trim_end_matches('0').trim_end_matches('.'))
    }

    /// `500us`, `1ms`, `1.5ms`.
    pub fn limit_name(&self) -> String {
        fine_name(self.under_ns)
    }
}

/// The fewest and the most probes of a search by queue depth up to
/// `ceiling`: one when depth 1 fails; at most, the doublings up to a
/// failure and the bisection of the bracket it leaves, `ceil(log2)` of
/// the bracket's width, at the failure that makes the most of them (or
/// every doubling up to the ceiling, when it met the limit).
pub fn depth_probes(ceiling: u32) -> (u32, u32) {
    let ceiling = ceiling.max(1);
    let bisections = |width: u32| width.next_power_of_two().trailing_zeros();
    let (mut most, mut probed, mut depth) = (1, 1, 1u32);
    while depth < ceiling {
        let next = depth.saturating_mul(2).min(ceiling);
        probed += 1;
        // A failure here leaves the bracket depth..next to bisect.
        most = most.max(probed + bisections(next - depth));
        depth = next;
    }
    (1, most.max(probed))
}

/// The search by queue depth, as a rule over the probes' outcomes (the
/// runtime runs the probes; [`depth_probes`] counts them): depth 1 first;
/// while a depth meets the limit, double it (capped at the ceiling); after
/// the first failure, bisect between the deepest depth that met the limit
/// and the shallowest that did not, until they are adjacent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DepthSearch {
    ceiling: u32,
    /// The deepest depth that met the limit so far.
    met: Option<u32>,
    /// The shallowest depth that did not.
    failed: Option<u32>,
}

impl DepthSearch {
    /// A search up to `ceiling` (at least 1).
    pub fn new(ceiling: u32) -> Self {
        DepthSearch { ceiling: ceiling.max(1), met: None, failed: None }
    }

    /// The next depth to probe; `None` once the search is over: depth 1
    /// failed, the ceiling met the limit, or the bracket is adjacent.
    pub fn next(&self) -> Option<u32> {
        match (self.met, self.failed) {
            (None, None) => Some(1),
            (None, Some(_)) => None,
            (Some(m), None) if m >= self.ceiling => None,
            (Some(m), None) => Some(m.saturating_mul(2).min(self.ceiling)),
            (Some(m), Some(f)) if f - m <= 1 => None,
            (Some(m), Some(f)) => Some(m + (f - m) / 2),
        }
    }

    /// Records whether the probe at `depth` met the limit.
    pub fn record(&mut self, depth: u32, met: bool) {
        if met {
            self.met = Some(self.met.map_or(depth, |m| m.max(depth)));
        } else {
            self.failed = Some(self.failed.map_or(depth, |f| f.min(depth)));
        }
    }

    /// The deepest depth that met the limit; `None` when depth 1 did not.
    pub fn met(&self) -> Option<u32> {
        self.met
    }

    /// The shallowest depth that did not meet it; `None` when the ceiling did.
    pub fn failed(&self) -> Option<u32> {
        self.failed
    }
}

/// One of the jobs a `together` step runs at the same time as the others.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
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
    /// Pauses between the job's I/Os.
    #[serde(default, skip_serializing_if = "Pauses::is_none")]
    pub pauses: Pauses,
    /// Which of the run's targets the job's workers use, from 0 (`device
    /// 1` in the language is the first `--target`).
    pub device: u32,
}

/// For serde: a flag written only when set.
fn is_false(b: &bool) -> bool {
    !*b
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs the search against a target whose depths up to `limit` meet
    /// the limit: the depth found and the probes taken.
    fn search(ceiling: u32, limit: u32) -> (Option<u32>, u32) {
        let mut s = DepthSearch::new(ceiling);
        let mut probes = 0;
        while let Some(d) = s.next() {
            assert!((1..=ceiling).contains(&d), "depth {d} outside 1..={ceiling}");
            probes += 1;
            s.record(d, d <= limit);
        }
        (s.met(), probes)
    }

    /// For every ceiling and every depth where the target stops meeting
    /// the limit, the search finds that depth, in as many probes as
    /// `depth_probes` allows, and the most it allows is reached.
    #[test]
    fn the_depth_search_finds_the_deepest_depth_within_its_estimate() {
        for ceiling in 1..=300 {
            let (fewest, most) = depth_probes(ceiling);
            let mut seen_most = 0;
            for limit in 0..=ceiling {
                let (found, probes) = search(ceiling, limit);
                assert_eq!(found, (limit > 0).then_some(limit), "ceiling {ceiling}, limit {limit}");
                assert!(
                    (fewest..=most).contains(&probes),
                    "ceiling {ceiling}, limit {limit}: {probes} probes"
                );
                seen_most = seen_most.max(probes);
            }
            assert_eq!(seen_most, most, "ceiling {ceiling}");
            assert_eq!(search(ceiling, 0).1, fewest);
        }
    }

    #[test]
    fn the_depth_search_doubles_then_bisects() {
        let mut s = DepthSearch::new(128);
        let mut probed = Vec::new();
        while let Some(d) = s.next() {
            probed.push(d);
            s.record(d, d <= 55);
        }
        assert_eq!(probed, [1, 2, 4, 8, 16, 32, 64, 48, 56, 52, 54, 55]);
        assert_eq!((s.met(), s.failed()), (Some(55), Some(56)));
    }
}
