//! What the runtime's analyses conclude, as results record it: a step's
//! peak interval, a sustained write's cache cliff, the steady-state
//! window, the statistics of repeated runs, and a probe's page size. The
//! analyses themselves (runtime/src/analysis, steady.rs) make these.

use methodic_compiler::plan::Aggregate;
use serde::{Deserialize, Serialize};

use crate::numbers::nullable;

/// A step's best series interval.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Peak {
    /// The series interval the peak is taken over, in seconds.
    pub interval_s: f64,
    /// How many intervals it was chosen from.
    pub intervals: u32,
    pub iops: f64,
    /// When the best IOPS interval ended, in seconds after recording began.
    pub iops_at_s: f64,
    /// Decimal megabytes a second.
    pub mb_s: f64,
    pub mb_s_at_s: f64,
}

impl Peak {
    /// Binary mebibytes a second.
    pub fn mib_s(&self) -> f64 {
        self.mb_s * 1e6 / 1_048_576.0
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cliff {
    /// Whether a cliff was found.
    pub found: bool,
    /// The interval the lower plateau starts at, seconds from the start of recording.
    pub at_seconds: Option<f64>,
    /// Bytes written before the cliff.
    pub bytes_before: Option<u64>,
    /// The mean rate before and after, MB/s (decimal).
    pub before_mb_s: Option<f64>,
    pub after_mb_s: Option<f64>,
    /// `fast for 12.3 GB at 1450 MB/s, then 480 MB/s`, or `no cliff within 40 GB`.
    pub verdict: String,
}

/// The steady-state calculation over one window.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Window {
    /// Rounds in the window, counted from 1: `first..=last`.
    pub first: u32,
    pub last: u32,
    pub average: f64,
    /// Maximum minus minimum.
    pub range: f64,
    /// `excursion` of the average: the most `range` may be.
    pub range_limit: f64,
    /// The least-squares slope per round.
    pub slope: f64,
    /// |slope| times (window - 1): the line's change across the window.
    pub change: f64,
    /// `slope` of the average: the most `change` may be.
    pub change_limit: f64,
    pub steady: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RepeatSummary {
    /// The value of each run, in order.
    pub runs: Vec<f64>,
    /// `MB/s` or `IOPS`.
    pub unit: String,
    pub mean: f64,
    pub sd: f64,
    pub median: f64,
    /// sd / mean (NaN, written as null, when the mean is 0).
    #[serde(deserialize_with = "nullable")]
    pub cv: f64,
    pub aggregate: Aggregate,
    /// The methodology's aggregate of the runs: what it reports.
    pub value: f64,
    /// Run 1 stands apart from runs 2..N.
    pub first_run_apart: bool,
    pub warning: Option<String>,
    /// For buffered I/O: how the page-cache question was answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_cache: Option<PageCache>,
}

/// How the page-cache question of a buffered repeat was answered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageCache {
    pub decided_by: Evidence,
    /// What was counted (`vda`, `/proc/self/io`), the file system in RAM
    /// (`tmpfs`), or, for timing, why no counter answers.
    pub source: String,
    /// The runs (from 1) that the counters show served from the page
    /// cache: less than a tenth of their reads reached the device.
    pub served_runs: Vec<u32>,
}

/// `run 1`, `runs 2..5`, `runs 1, 3`: runs of a repeat by number (from 1),
/// as the findings and the runtime's repeat warnings name them.
pub fn run_list(numbers: &[u32]) -> String {
    match numbers {
        [one] => format!("run {one}"),
        [first, .., last] if numbers.windows(2).all(|w| w[1] == w[0] + 1) => format!("runs {first}..{last}"),
        _ => format!("runs {}", numbers.iter().map(|n| n.to_string()).collect::<Vec<_>>().join(", ")),
    }
}

/// What decided whether runs came from the page cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Evidence {
    /// Each run's bytes read from the device, counted by the kernel.
    Counters,
    /// The data lives in RAM (tmpfs) for every run: no device to read.
    Ram,
    /// No counter answers: run 1's value against the others', and the
    /// data's size against free RAM.
    Timing,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PageEstimate {
    /// The page size found, bytes; `None` when no periodic structure was.
    pub page_bytes: Option<u64>,
    /// Where the first boundary lies, bytes from the start of the probe.
    pub first_boundary: Option<u64>,
    /// The score of the best spacing, 0 to 1.
    pub confidence: f64,
    /// Clusters of slow offsets found.
    pub spikes: usize,
    /// The latency above which an offset counts as slow, µs (NaN, written
    /// as null, when too few offsets were probed).
    #[serde(deserialize_with = "nullable")]
    pub threshold_us: f64,
    /// `page size 100 KiB (confidence 0.97, 40 boundaries)`.
    pub verdict: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_are_listed_as_a_range_when_they_follow_each_other() {
        assert_eq!(run_list(&[1]), "run 1");
        assert_eq!(run_list(&[2, 3, 4, 5]), "runs 2..5");
        assert_eq!(run_list(&[1, 3]), "runs 1, 3");
    }
}
