//! What the runtime's analyses conclude, as results record it: a step's
//! peak interval, a sustained write's cache cliff, the steady-state
//! window, the statistics of repeated runs, and a probe's page size. The
//! analyses themselves (runtime/src/analysis, steady.rs) make these; what a
//! cliff came with (a temperature rise, throttle events) is read here from
//! the series when a finding words it.

use methodic_compiler::plan::{Aggregate, Percent};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::numbers::nullable;
use crate::series::Row;

/// A step's best series interval.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
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
    /// The best whole interval of `rows` (a series of `interval_s`
    /// intervals), for IOPS and for bandwidth apart (the two may peak in
    /// different intervals); `None` when there is no row. Only whole
    /// intervals count: a last interval cut short holds too few I/Os for
    /// its rate to mean anything, unless the step lasted less than one.
    pub fn of(rows: &[crate::series::Row], interval_s: f64) -> Option<Peak> {
        let whole: Vec<&crate::series::Row> =
            rows.iter().filter(|r| r.seconds >= interval_s * 0.999).collect();
        let pool: Vec<&crate::series::Row> = if whole.is_empty() { rows.iter().collect() } else { whole };
        let best =
            |f: fn(&crate::series::Row) -> f64| pool.iter().copied().max_by(|a, b| f(a).total_cmp(&f(b)));
        let (by_iops, by_mb) = (best(|r| r.iops)?, best(|r| r.mb_s)?);
        Some(Peak {
            interval_s,
            intervals: pool.len() as u32,
            iops: by_iops.iops,
            iops_at_s: by_iops.t,
            mb_s: by_mb.mb_s,
            mb_s_at_s: by_mb.t,
        })
    }

    /// Binary mebibytes a second.
    pub fn mib_s(&self) -> f64 {
        self.mb_s * 1e6 / 1_048_576.0
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
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

/// How far the drive's temperature must rise over the minute before a
/// cliff for the drop to be read as throttling, °C.
pub const THROTTLE_RISE_C: f64 = 5.0;

/// How long before a cliff its temperature rise is looked for, seconds.
const RISE_WINDOW_S: f64 = 60.0;

impl Cliff {
    /// The cliff as a finding says it, with what the drop came with: the
    /// drive's temperature from `series` (the step's rows) and the throttle
    /// events its health log counted over the step (`None` when not
    /// known). A drop that came with a temperature rise of
    /// [`THROTTLE_RISE_C`] or more over the minute before, or with throttle
    /// events, reads `throttled (temperature rose from 48 C to 71 C): fast
    /// for ...`; one with the temperature known and flat reads `SLC cache
    /// exhausted (temperature 40-42 C, no rise): ...`; with neither known,
    /// the verdict alone.
    pub fn finding(&self, series: &[Row], throttle_events: Option<u32>) -> String {
        let Some(at) = self.at_seconds.filter(|_| self.found) else { return self.verdict.clone() };
        let events = throttle_events.filter(|n| *n > 0).map(|n| {
            format!(
                "the drive counted {}",
                methodic_compiler::plan::plural(n.into(), "throttle event", "throttle events")
            )
        });
        let heat = temperatures(series, at);
        let cause = match (heat, events) {
            (Some(h), events) if h.high - h.rise_from >= THROTTLE_RISE_C => Some(format!(
                "throttled (temperature rose from {:.0} C to {:.0} C{})",
                h.rise_from,
                h.high,
                events.map(|e| format!("; {e}")).unwrap_or_default()
            )),
            (_, Some(events)) => Some(format!(
                "throttled ({events}{})",
                heat.map(|h| format!("; temperature {}", h.span_words())).unwrap_or_default()
            )),
            (Some(h), None) => Some(format!("SLC cache exhausted (temperature {}, no rise)", h.span_words())),
            (None, None) => None,
        };
        match cause {
            Some(c) => format!("{c}: {}", self.verdict),
            None => self.verdict.clone(),
        }
    }
}

/// The temperatures around a cliff, °C.
#[derive(Clone, Copy)]
struct Heat {
    low: f64,
    high: f64,
    /// The lowest reading before the highest: what it rose from.
    rise_from: f64,
}

impl Heat {
    /// `42 C`, `40-42 C`.
    fn span_words(&self) -> String {
        if self.low.round() == self.high.round() {
            format!("{:.0} C", self.high)
        } else {
            format!("{:.0}-{:.0} C", self.low, self.high)
        }
    }
}

/// The temperatures a cliff at `at` seconds came with: those of the
/// minute before it to the end of the first interval after it (the drop
/// shows one interval after what caused it); `None` when the series has no
/// temperature there.
fn temperatures(series: &[Row], at: f64) -> Option<Heat> {
    let after = series.iter().find(|r| r.t > at).map_or(at, |r| r.t);
    let near: Vec<(f64, f64)> = series
        .iter()
        .filter(|r| r.t >= at - RISE_WINDOW_S && r.t <= after)
        .filter_map(|r| Some((r.t, r.temperature_c?)))
        .collect();
    // The hottest reading (the last of equals), and the coolest before it.
    let &(t_max, high) = near.iter().max_by(|a, b| a.1.total_cmp(&b.1))?;
    let low_before =
        |until: f64| near.iter().filter(|r| r.0 <= until).map(|r| r.1).fold(f64::INFINITY, f64::min);
    Some(Heat { low: low_before(f64::INFINITY), high, rise_from: low_before(t_max) })
}

/// The steady-state calculation over one window.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
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

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
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
    #[schemars(with = "Option<f64>")]
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
    /// `repeat N..M until cv P%`: the runs made against those planned,
    /// and this step's cv against the limit. Left out for a plain count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<SpreadCheck>,
}

/// A repeat `until cv`'s rule as it stood for one step when its summary
/// was made: a summary is made after each run from run N on (the
/// statistics the stop was decided on), and the last run's is the
/// step's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SpreadCheck {
    /// M: the runs the plan holds.
    pub planned: u32,
    /// The runs made so far: this step's run (k), failed runs included.
    pub ran: u32,
    /// N: the runs always made.
    pub min_runs: u32,
    /// P: the largest cv, in percent, that lets the runs stop.
    pub limit: Percent,
    /// This step's cv is at most the limit.
    pub met: bool,
}

impl SpreadCheck {
    /// `4 of 10 runs, cv 1.8% (limit 3%)`, for a summary's `cv` (a
    /// fraction, NaN when the mean was 0).
    pub fn words(&self, cv: f64) -> String {
        let cv = if cv.is_finite() { format!("{:.1}%", cv * 100.0) } else { "none".to_string() };
        let verdict = if self.met { "within" } else { "over" };
        format!("{} of {} runs, cv {cv} ({verdict} the {} asked)", self.ran, self.planned, self.limit)
    }

    /// `cv 5.2% after 10 runs, over the 3% asked`: the warning of a step
    /// that ran every planned run and still spread too much; `None`
    /// otherwise.
    pub fn warning(&self, cv: f64) -> Option<String> {
        if self.met || self.ran < self.planned {
            return None;
        }
        let cv =
            if cv.is_finite() { format!("{:.1}%", cv * 100.0) } else { "none (a mean of 0)".to_string() };
        Some(format!("cv {cv} after {} runs, over the {} asked", self.ran, self.limit))
    }
}

/// How the page-cache question of a buffered repeat was answered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
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

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
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
    #[schemars(with = "Option<f64>")]
    pub threshold_us: f64,
    /// `page size 100 KiB (confidence 0.97, 40 boundaries)`.
    pub verdict: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A minute and a half of a sustained write, one row a second: 1500
    /// MB/s for 60 s, then 450; the temperature by second from `temp`.
    fn write_series(temp: impl Fn(usize) -> Option<f64>) -> Vec<Row> {
        (1..=90)
            .map(|i| Row {
                t: i as f64,
                seconds: 1.0,
                iops: 0.0,
                read_iops: 0.0,
                write_iops: 0.0,
                mb_s: if i <= 60 { 1500.0 } else { 450.0 },
                mean_latency_us: 0.0,
                p99_latency_us: 0.0,
                temperature_c: temp(i),
            })
            .collect()
    }

    fn cliff_at_60() -> Cliff {
        Cliff {
            found: true,
            at_seconds: Some(60.0),
            bytes_before: Some(90_000_000_000),
            before_mb_s: Some(1500.0),
            after_mb_s: Some(450.0),
            verdict: "fast for 90.0 GB at 1500 MB/s, then 450 MB/s (from 60s)".into(),
        }
    }

    #[test]
    fn a_drop_with_a_temperature_rise_is_throttling() {
        // 45 C for the first half minute, then warming to 72 C at the drop.
        let rows = write_series(|i| Some(if i <= 30 { 45.0 } else { (45.0 + (i - 30) as f64).min(72.0) }));
        let text = cliff_at_60().finding(&rows, None);
        assert_eq!(
            text,
            "throttled (temperature rose from 45 C to 72 C): fast for 90.0 GB at 1500 MB/s, then 450 MB/s (from 60s)"
        );
        assert!(!text.contains("SLC"), "{text}");
        let text = cliff_at_60().finding(&rows, Some(3));
        assert!(
            text.starts_with(
                "throttled (temperature rose from 45 C to 72 C; the drive counted 3 throttle events): "
            ),
            "{text}"
        );
    }

    #[test]
    fn a_drop_at_a_flat_temperature_is_the_cache_running_out() {
        let rows = write_series(|i| Some(if i % 2 == 0 { 41.0 } else { 42.0 }));
        assert_eq!(
            cliff_at_60().finding(&rows, None),
            "SLC cache exhausted (temperature 41-42 C, no rise): fast for 90.0 GB at 1500 MB/s, then 450 MB/s (from \
             60s)"
        );
        // A rise of 4 C is within what a busy drive warms by: no throttling.
        let rows = write_series(|i| Some(if i < 50 { 40.0 } else { 44.0 }));
        assert!(
            cliff_at_60()
                .finding(&rows, Some(0))
                .starts_with("SLC cache exhausted (temperature 40-44 C, no rise)")
        );
        // A drive that cooled over the minute before did not throttle.
        let rows = write_series(|i| Some(if i < 10 { 70.0 } else { 40.0 }));
        assert!(
            cliff_at_60()
                .finding(&rows, None)
                .starts_with("SLC cache exhausted (temperature 40-70 C, no rise)")
        );
    }

    #[test]
    fn throttle_events_alone_say_throttled_and_no_data_leaves_the_verdict() {
        let flat = write_series(|_| Some(50.0));
        assert_eq!(
            cliff_at_60().finding(&flat, Some(1)),
            "throttled (the drive counted 1 throttle event; temperature 50 C): fast for 90.0 GB at 1500 MB/s, then \
             450 MB/s (from 60s)"
        );
        let none = write_series(|_| None);
        assert!(
            cliff_at_60()
                .finding(&none, Some(2))
                .starts_with("throttled (the drive counted 2 throttle events): ")
        );
        assert_eq!(cliff_at_60().finding(&none, None), cliff_at_60().verdict);
        let no_cliff = Cliff {
            found: false,
            at_seconds: None,
            verdict: "no cliff within 9.0 GB".into(),
            ..cliff_at_60()
        };
        assert_eq!(no_cliff.finding(&flat, Some(4)), "no cliff within 9.0 GB");
    }

    #[test]
    fn runs_are_listed_as_a_range_when_they_follow_each_other() {
        assert_eq!(run_list(&[1]), "run 1");
        assert_eq!(run_list(&[2, 3, 4, 5]), "runs 2..5");
        assert_eq!(run_list(&[1, 3]), "runs 1, 3");
    }
}
