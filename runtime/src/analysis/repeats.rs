//! Repeated runs of a step: each run's value, their mean, standard
//! deviation, median and coefficient of variation, the value the
//! methodology's aggregate gives, and a warning when run 1 stands apart
//! from runs 2..N. That is the page-cache trap: a buffered test whose data
//! fits in free RAM reads the drive once and the cache after; the warning
//! says how much RAM was free and how large the data was, and what to do.

use methodic_compiler::plan::Aggregate;
use serde::{Deserialize, Serialize};

use super::{mean, median, sd};
use crate::target::human;

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
    #[serde(deserialize_with = "crate::stats::nullable")]
    pub cv: f64,
    pub aggregate: Aggregate,
    /// The methodology's aggregate of the runs: what it reports.
    pub value: f64,
    /// Run 1 stands apart from runs 2..N.
    pub first_run_apart: bool,
    pub warning: Option<String>,
}

/// What a warning needs to know about caching.
#[derive(Debug, Clone, Copy, Default)]
pub struct CacheContext {
    /// The I/O went through the page cache.
    pub buffered: bool,
    /// Bytes the step reads or writes (a data set, a span), when known.
    pub data_bytes: Option<u64>,
    /// Free (available) RAM when the runs ended, bytes.
    pub free_ram: u64,
    /// A drop_caches ran before each run.
    pub caches_dropped: bool,
    /// A RAM limit was in force, bytes.
    pub ram_limit: Option<u64>,
    /// The data is in RAM anyway (a copy's source on tmpfs): no cache to
    /// flatter later runs.
    pub source_in_ram: bool,
}

/// Whether run 1 stands apart from runs 2..N: it lies outside their
/// range by more than twice that range and by more than 10% of their mean;
/// or, where there are at least 4 of runs 2..N to estimate their spread
/// from, it is more than 3 of their standard deviations and 5% away.
pub fn first_run_apart(values: &[f64]) -> bool {
    if values.len() < 3 {
        return false;
    }
    let rest = &values[1..];
    let (m, s) = (mean(rest), sd(rest));
    if m <= 0.0 || !m.is_finite() {
        return false;
    }
    let lo = rest.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = rest.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let outside = (lo - values[0]).max(values[0] - hi).max(0.0);
    let by_range = outside > 2.0 * (hi - lo) && outside > 0.1 * m;
    let by_sd = rest.len() >= 4 && (values[0] - m).abs() > 0.05 * m && (values[0] - m).abs() > 3.0 * s;
    by_range || by_sd
}

/// The statistics of `values`, one a successful run in order; run 1 is
/// judged against the others only when `judge_first` (run 1 succeeded).
pub fn summarize(
    values: &[f64],
    unit: &str,
    aggregate: Aggregate,
    ctx: &CacheContext,
    judge_first: bool,
) -> RepeatSummary {
    let (m, s, med) = (mean(values), sd(values), median(values));
    let value = match aggregate {
        Aggregate::Mean => m,
        Aggregate::Median => med,
        Aggregate::Max => values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        Aggregate::Min => values.iter().copied().fold(f64::INFINITY, f64::min),
    };
    let apart = judge_first && first_run_apart(values);
    let warning = apart.then(|| {
        let rest = &values[1..];
        let head = format!(
            "run 1 ({:.1} {unit}) stands apart from runs 2..{} (mean {:.1} {unit}, CV {:.1}%)",
            values[0],
            values.len(),
            mean(rest),
            100.0 * sd(rest) / mean(rest)
        );
        let fits = ctx.data_bytes.is_some_and(|d| d < ctx.free_ram);
        match ctx.data_bytes {
            Some(d) if ctx.buffered && fits && !ctx.caches_dropped && !ctx.source_in_ram => format!(
                "{head}: the data ({}) fits in the {} of free RAM, so runs 2..{} likely came from the page cache, \
                 not the drive. Drop caches before each run (drop_caches inside the repeat) or limit RAM \
                 (limit_ram) below the data's size",
                human(d),
                human(ctx.free_ram),
                values.len()
            ),
            _ => format!(
                "{head}: {}; look for a warm-up effect instead (the drive's own cache, an SLC area, power \
                 states): a ramp or a discarded first run helps",
                if ctx.source_in_ram {
                    "the source is in RAM (tmpfs) for every run".to_string()
                } else if !ctx.buffered {
                    "the I/O bypassed the page cache".to_string()
                } else if ctx.caches_dropped {
                    "caches were dropped before each run".to_string()
                } else {
                    format!(
                        "the data ({}) does not fit in the {} of free RAM",
                        ctx.data_bytes.map_or("of unknown size".into(), human),
                        human(ctx.free_ram)
                    )
                }
            ),
        }
    });
    RepeatSummary {
        runs: values.to_vec(),
        unit: unit.to_string(),
        mean: m,
        sd: s,
        median: med,
        cv: if m != 0.0 { s / m } else { f64::NAN },
        aggregate,
        value,
        first_run_apart: apart,
        warning,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CACHED: CacheContext = CacheContext {
        buffered: true,
        data_bytes: Some(1 << 30),
        free_ram: 8 << 30,
        caches_dropped: false,
        ram_limit: None,
        source_in_ram: false,
    };

    #[test]
    fn statistics_of_the_runs() {
        let s = summarize(&[10.0, 12.0, 11.0, 13.0], "MB/s", Aggregate::Median, &CACHED, true);
        assert_eq!((s.mean, s.median, s.value), (11.5, 11.5, 11.5));
        assert!((s.sd - 1.2910).abs() < 1e-3, "{}", s.sd);
        assert!((s.cv - 0.1123).abs() < 1e-3);
        assert!(!s.first_run_apart && s.warning.is_none());
        assert_eq!(summarize(&[1.0, 3.0, 2.0], "IOPS", Aggregate::Max, &CACHED, true).value, 3.0);
        assert_eq!(summarize(&[1.0, 3.0, 2.0], "IOPS", Aggregate::Min, &CACHED, true).value, 1.0);
    }

    #[test]
    fn a_slow_first_run_over_cached_data_names_the_page_cache() {
        let s = summarize(&[400.0, 2100.0, 2150.0, 2080.0, 2120.0], "MB/s", Aggregate::Mean, &CACHED, true);
        assert!(s.first_run_apart);
        let w = s.warning.unwrap();
        assert!(w.starts_with("run 1 (400.0 MB/s) stands apart from runs 2..5"), "{w}");
        assert!(
            w.contains("the data (1.0 GiB) fits in the 8.0 GiB of free RAM") && w.contains("drop_caches"),
            "{w}"
        );
    }

    #[test]
    fn without_the_cache_in_play_the_warning_says_warm_up() {
        for ctx in [
            CacheContext { buffered: false, ..CACHED },
            CacheContext { caches_dropped: true, ..CACHED },
            CacheContext { data_bytes: Some(32 << 30), ..CACHED },
            CacheContext { source_in_ram: true, ..CACHED },
        ] {
            let w = summarize(&[400.0, 2100.0, 2150.0, 2080.0], "MB/s", Aggregate::Mean, &ctx, true)
                .warning
                .unwrap();
            assert!(w.contains("warm-up") && !w.contains("likely came from the page cache"), "{w}");
        }
    }

    #[test]
    fn runs_that_agree_or_scatter_raise_nothing() {
        assert!(!first_run_apart(&[100.0, 101.0, 99.0, 100.5]), "all agree");
        assert!(!first_run_apart(&[100.0, 60.0, 140.0, 90.0]), "all scatter: run 1 is not apart");
        assert!(first_run_apart(&[130.0, 100.0, 101.0, 99.0]), "29% apart while the rest agree");
        assert!(first_run_apart(&[999.0, 2300.0, 2534.0, 2533.0]), "far outside a 10% spread");
        assert!(!first_run_apart(&[130.0, 100.0]), "two runs cannot tell");
        let failed_first =
            summarize(&[400.0, 2100.0, 2150.0, 2080.0], "MB/s", Aggregate::Mean, &CACHED, false);
        assert!(
            !failed_first.first_run_apart && failed_first.warning.is_none(),
            "run 1 failed: run 2 is not run 1"
        );
        assert!(
            !first_run_apart(&[727.0, 830.0, 787.0, 837.0]),
            "11% off three runs: too few to trust their spread"
        );
        assert!(first_run_apart(&[880.0, 1000.0, 1010.0, 990.0, 1005.0, 995.0]), "12% off five tight runs");
    }
}
