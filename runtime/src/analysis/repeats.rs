//! Repeated runs of a step: each run's value and, for buffered I/O, the
//! bytes it read from the device go in; their mean, standard deviation,
//! median and coefficient of variation, the value the methodology's
//! aggregate gives, and a warning come out. The warning is about the
//! page-cache trap: a buffered test whose data fits in free RAM reads the
//! drive once and the cache after. It rests on the kernel's counts where
//! they can be read (a run that read less than a tenth of its data from the
//! device was served from the page cache, and the warning names the runs
//! and the bytes), and on timing only where no counter answers (run 1
//! standing apart from runs 2..N, with the data's size against free RAM);
//! it says which it used.

use methodic_compiler::plan::{Aggregate, Percent, UntilCv};
use methodic_results::analysis::{Evidence, PageCache, RepeatSummary, run_list};

use super::{mean, median, sd};
use methodic_results::device_io::{Counter, DeviceIo};
use methodic_results::units::human;

/// One successful run of a repeated step.
#[derive(Debug, Clone, Copy)]
pub struct Run<'a> {
    /// Which run, from 1.
    pub number: u32,
    pub value: f64,
    /// What reached the device, for buffered steps.
    pub device_io: Option<&'a DeviceIo>,
}

/// What a warning needs to know about caching.
#[derive(Debug, Clone, Copy, Default)]
pub struct CacheContext {
    /// The I/O went through the page cache.
    pub buffered: bool,
    /// The step is a copy: its reads are the data set's.
    pub copy: bool,
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

/// The coefficient of variation of `values` in percent: their sample
/// standard deviation over their mean, as a [`RepeatSummary`]'s `cv`.
/// `None` for fewer than 2 values (one value has no spread) or a mean
/// that is not above 0.
pub fn cv_percent(values: &[f64]) -> Option<f64> {
    let m = mean(values);
    (values.len() >= 2 && m > 0.0 && m.is_finite()).then(|| 100.0 * sd(values) / m)
}

/// Whether each step's values meet a cv limit of `limit`: every step
/// (the values of one step of the block, runs 1..k, failed runs left out)
/// has a cv, and it is at most the limit. The largest cv when they do; no
/// step at all meets nothing.
pub fn spread_within(steps: &[Vec<f64>], limit: Percent) -> Option<f64> {
    let mut worst: Option<f64> = None;
    for v in steps {
        let cv = cv_percent(v).filter(|&c| c <= limit.as_f64())?;
        worst = Some(worst.map_or(cv, |w: f64| w.max(cv)));
    }
    worst
}

/// Whether a `repeat N..M until cv P%` (`rule`, with M `runs`) stops after
/// run `k`, runs 1..k made: never before run N, never at or after run M
/// (there is nothing left to stop), and only when every step of the block
/// that has a value has a cv at most P ([`spread_within`]). The largest of
/// their cvs, in percent, when it stops.
pub fn stops_after(k: u32, rule: UntilCv, runs: u32, steps: &[Vec<f64>]) -> Option<f64> {
    if k < rule.min_runs || k >= runs {
        return None;
    }
    spread_within(steps, rule.cv)
}

/// The statistics of `runs`, the successful runs in order; run 1 is
/// judged against the others only when it is among them.
pub fn summarize(runs: &[Run<'_>], unit: &str, aggregate: Aggregate, ctx: &CacheContext) -> RepeatSummary {
    let values: Vec<f64> = runs.iter().map(|r| r.value).collect();
    let (m, s, med) = (mean(&values), sd(&values), median(&values));
    let value = match aggregate {
        Aggregate::Mean => m,
        Aggregate::Median => med,
        Aggregate::Max => values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        Aggregate::Min => values.iter().copied().fold(f64::INFINITY, f64::min),
    };
    let judge_first = runs.first().is_some_and(|r| r.number == 1);
    let apart = judge_first && first_run_apart(&values);
    let page_cache = ctx.buffered.then(|| page_cache(runs, ctx));
    let warning = match &page_cache {
        Some(pc) if pc.decided_by == Evidence::Counters => by_counters(runs, unit, ctx, apart, pc),
        _ => apart.then(|| by_timing(runs, unit, ctx, page_cache.as_ref())),
    };
    RepeatSummary {
        runs: values,
        unit: unit.to_string(),
        mean: m,
        sd: s,
        median: med,
        cv: if m != 0.0 { s / m } else { f64::NAN },
        aggregate,
        value,
        first_run_apart: apart,
        warning,
        page_cache,
        until: None,
    }
}

/// What answers the page-cache question for these runs: the counters when
/// every run counted its reads on a device (or in /proc/self/io), RAM when
/// every run read from a file system in RAM, else timing.
fn page_cache(runs: &[Run<'_>], ctx: &CacheContext) -> PageCache {
    let flows: Option<Vec<_>> = runs.iter().map(|r| r.device_io.map(|d| &d.read)).collect();
    let timing =
        |why: String| PageCache { decided_by: Evidence::Timing, source: why, served_runs: Vec::new() };
    let Some(flows) = flows.filter(|f| !f.is_empty()) else {
        return if ctx.source_in_ram {
            PageCache { decided_by: Evidence::Ram, source: "tmpfs".into(), served_runs: Vec::new() }
        } else {
            timing("the runs carry no counts of the bytes that reached the device".into())
        };
    };
    if flows.iter().all(|f| f.counter == Counter::Ram) {
        return PageCache {
            decided_by: Evidence::Ram,
            source: flows[0].source.clone(),
            served_runs: Vec::new(),
        };
    }
    if flows.iter().all(|f| f.asked.0 == 0) {
        return timing(
            "the step reads nothing, so no count says whether reads came from the page cache".into(),
        );
    }
    if let Some(f) = flows.iter().find(|f| !f.counted() || f.asked.0 == 0) {
        return timing(format!(
            "not every run's reads could be counted ({})",
            f.note.as_deref().unwrap_or("a run read nothing")
        ));
    }
    let mut sources: Vec<&str> = Vec::new();
    for f in &flows {
        if !sources.contains(&f.source.as_str()) {
            sources.push(&f.source);
        }
    }
    PageCache {
        decided_by: Evidence::Counters,
        source: sources.join(", "),
        served_runs: runs
            .iter()
            .zip(&flows)
            .filter(|(_, f)| f.served_from_cache())
            .map(|(r, _)| r.number)
            .collect(),
    }
}

/// `run 1 (400.0 MB/s) stands apart from runs 2..5 (mean 2112.5 MB/s, CV 1.2%)`.
fn apart_head(runs: &[Run<'_>], unit: &str) -> String {
    let rest: Vec<f64> = runs[1..].iter().map(|r| r.value).collect();
    format!(
        "run 1 ({:.1} {unit}) stands apart from {} (mean {:.1} {unit}, CV {:.1}%)",
        runs[0].value,
        run_list(&runs[1..].iter().map(|r| r.number).collect::<Vec<_>>()),
        mean(&rest),
        100.0 * sd(&rest) / mean(&rest)
    )
}

/// The warning the kernel's counts give: the runs served from the page
/// cache, with every run's bytes; or, when none was and run 1 stands
/// apart, a warm-up.
fn by_counters(
    runs: &[Run<'_>],
    unit: &str,
    ctx: &CacheContext,
    apart: bool,
    pc: &PageCache,
) -> Option<String> {
    let verb = if ctx.copy { "copied" } else { "read" };
    let counts = runs
        .iter()
        .filter_map(|r| Some(format!("run {}: {}", r.number, r.device_io?.read_words(verb)?)))
        .collect::<Vec<_>>()
        .join("; ");
    let head = if apart { format!("{}; ", apart_head(runs, unit)) } else { String::new() };
    if pc.served_runs.is_empty() {
        return apart.then(|| {
            format!(
                "{head}the kernel's counts show every run read its data from {} ({counts}), not from the page \
                 cache; look for a warm-up effect instead (the drive's own cache, an SLC area, power states): a \
                 ramp or a discarded first run helps",
                pc.source
            )
        });
    }
    let who = if pc.served_runs.len() == runs.len() {
        "every run was".to_string()
    } else {
        format!("{} {}", run_list(&pc.served_runs), if pc.served_runs.len() == 1 { "was" } else { "were" })
    };
    let fits = match ctx.data_bytes {
        Some(d) if d < ctx.free_ram => {
            format!(": the data ({}) fits in the {} of free RAM", human(d), human(ctx.free_ram))
        }
        _ => String::new(),
    };
    let remedy = if ctx.caches_dropped {
        "A drop_caches ran before each run and did not empty the cache: it needs root".to_string()
    } else if let Some(limit) = ctx.ram_limit {
        format!(
            "The RAM limit ({}) did not keep the data out of the cache: limit RAM below the data's size",
            human(limit)
        )
    } else {
        "Drop caches before each run (drop_caches inside the repeat) or limit RAM (limit_ram) below the data's \
         size"
            .to_string()
    };
    Some(format!(
        "{head}{who} served from the page cache, not the drive, by the kernel's counts ({counts}){fits}. {remedy}"
    ))
}

/// The warning timing gives when run 1 stands apart: the page cache when
/// the data fits in free RAM and nothing kept it out, else a warm-up; with
/// why no counter answered, when the page cache was in play.
fn by_timing(runs: &[Run<'_>], unit: &str, ctx: &CacheContext, pc: Option<&PageCache>) -> String {
    let head = apart_head(runs, unit);
    let source_in_ram = ctx.source_in_ram || pc.is_some_and(|p| p.decided_by == Evidence::Ram);
    let fits = ctx.data_bytes.is_some_and(|d| d < ctx.free_ram);
    let how = match pc {
        Some(p) if p.decided_by == Evidence::Timing => format!(" (decided by timing: {})", p.source),
        _ => String::new(),
    };
    match ctx.data_bytes {
        Some(d) if ctx.buffered && fits && !ctx.caches_dropped && !source_in_ram => format!(
            "{head}: the data ({}) fits in the {} of free RAM, so {} likely came from the page cache, not the \
             drive{how}. Drop caches before each run (drop_caches inside the repeat) or limit RAM (limit_ram) \
             below the data's size",
            human(d),
            human(ctx.free_ram),
            run_list(&runs[1..].iter().map(|r| r.number).collect::<Vec<_>>()),
        ),
        _ => format!(
            "{head}: {}; look for a warm-up effect instead (the drive's own cache, an SLC area, power states): a \
             ramp or a discarded first run helps",
            if source_in_ram {
                format!("the source is in RAM ({}) for every run", pc.map_or("tmpfs", |p| p.source.as_str()))
            } else if !ctx.buffered {
                "the I/O bypassed the page cache".to_string()
            } else if ctx.caches_dropped {
                format!("caches were dropped before each run{how}")
            } else {
                format!(
                    "the data ({}) does not fit in the {} of free RAM{how}",
                    ctx.data_bytes.map_or("of unknown size".into(), human),
                    human(ctx.free_ram)
                )
            }
        ),
    }
}

#[cfg(test)]
mod tests {
    use methodic_compiler::plan::{Bytes, Percent};

    use super::*;
    use methodic_results::device_io::Flow;

    const CACHED: CacheContext = CacheContext {
        buffered: true,
        copy: true,
        data_bytes: Some(1 << 30),
        free_ram: 8 << 30,
        caches_dropped: false,
        ram_limit: None,
        source_in_ram: false,
    };

    /// Runs 1.. with `values` and no counts.
    fn timed(values: &[f64]) -> Vec<Run<'static>> {
        values
            .iter()
            .enumerate()
            .map(|(i, &value)| Run { number: i as u32 + 1, value, device_io: None })
            .collect()
    }

    /// A copy of 256MiB that read `from_device` bytes from vda.
    fn counted(from_device: u64) -> DeviceIo {
        let asked = 256u64 << 20;
        let read = Flow {
            asked: Bytes(asked),
            counter: Counter::Device,
            source: "vda".into(),
            reached: Some(Bytes(from_device)),
            device_bytes: Some(Bytes(from_device)),
            process_bytes: Some(Bytes(from_device)),
            cached: Some(Percent::from_hundredths(
                (asked.saturating_sub(from_device) * 10_000 / asked) as u32,
            )),
            note: None,
        };
        let write = Flow {
            counter: Counter::Ram,
            source: "tmpfs".into(),
            reached: None,
            device_bytes: None,
            process_bytes: Some(Bytes(asked)),
            cached: None,
            ..read.clone()
        };
        DeviceIo { read, write }
    }

    fn with_io<'a>(values: &[f64], io: &'a [DeviceIo]) -> Vec<Run<'a>> {
        values
            .iter()
            .zip(io)
            .enumerate()
            .map(|(i, (&value, d))| Run { number: i as u32 + 1, value, device_io: Some(d) })
            .collect()
    }

    const RULE: UntilCv = UntilCv { min_runs: 3, cv: Percent::from_hundredths(300) };

    #[test]
    fn the_cv_is_the_sample_sd_over_the_mean() {
        // sd of [10, 12, 11, 13] (n - 1) is 1.291, their mean 11.5.
        assert!((cv_percent(&[10.0, 12.0, 11.0, 13.0]).unwrap() - 11.226).abs() < 1e-3);
        assert_eq!(cv_percent(&[5.0, 5.0, 5.0]), Some(0.0));
        assert_eq!(cv_percent(&[5.0]), None, "one value has no spread");
        assert_eq!(cv_percent(&[0.0, 0.0]), None, "a mean of 0 has no cv");
        let s = summarize(&timed(&[10.0, 12.0, 11.0, 13.0]), "MB/s", Aggregate::Mean, &CACHED);
        assert!(
            (s.cv * 100.0 - cv_percent(&s.runs).unwrap()).abs() < 1e-9,
            "the summary's cv, one statistic"
        );
    }

    #[test]
    fn a_repeat_stops_at_k_when_every_step_is_within_the_limit() {
        // Two steps, runs 1..4: cvs 1.0% and 2.2%, both within 3%.
        let tight = vec![vec![100.0, 101.0, 99.0, 100.0], vec![50.0, 51.0, 49.0, 48.5]];
        let worst = stops_after(4, RULE, 10, &tight).unwrap();
        assert!((worst - cv_percent(&tight[1]).unwrap()).abs() < 1e-9 && worst < 3.0, "{worst}");
        assert!(stops_after(3, RULE, 10, &[vec![100.0, 101.0, 99.0]]).is_some(), "at N itself");
    }

    #[test]
    fn a_repeat_goes_on_while_one_step_spreads_too_much() {
        let one_wide = vec![vec![100.0, 101.0, 99.0, 100.0], vec![50.0, 60.0, 40.0, 55.0]];
        assert_eq!(stops_after(4, RULE, 10, &one_wide), None);
        // A step with one value (its other runs failed) has no cv yet.
        assert_eq!(stops_after(4, RULE, 10, &[vec![100.0, 100.0, 100.0], vec![7.0]]), None);
        // A block with no value to judge never stops early.
        assert_eq!(stops_after(4, RULE, 10, &[]), None);
        // A mean of 0 has no cv.
        assert_eq!(stops_after(4, RULE, 10, &[vec![0.0, 0.0, 0.0, 0.0]]), None);
        // Exactly at the limit stops: at most P.
        let at = [vec![97.0, 100.0, 103.0]];
        let limit = UntilCv { min_runs: 2, cv: Percent::whole(3) };
        assert_eq!(stops_after(3, limit, 10, &at), Some(3.0));
    }

    #[test]
    fn a_repeat_never_stops_before_n_nor_at_or_after_m() {
        let equal = vec![vec![100.0; 10]];
        assert_eq!(stops_after(2, RULE, 10, &equal), None, "before N = 3");
        assert_eq!(stops_after(10, RULE, 10, &equal), None, "at M nothing is left to stop");
        assert_eq!(stops_after(11, RULE, 10, &equal), None);
        assert_eq!(stops_after(9, RULE, 10, &equal), Some(0.0));
        assert_eq!(stops_after(3, UntilCv { min_runs: 3, cv: Percent::whole(1) }, 3, &equal), None, "N = M");
    }

    #[test]
    fn statistics_of_the_runs() {
        let s = summarize(&timed(&[10.0, 12.0, 11.0, 13.0]), "MB/s", Aggregate::Median, &CACHED);
        assert_eq!((s.mean, s.median, s.value), (11.5, 11.5, 11.5));
        assert!((s.sd - 1.2910).abs() < 1e-3, "{}", s.sd);
        assert!((s.cv - 0.1123).abs() < 1e-3);
        assert!(!s.first_run_apart && s.warning.is_none());
        assert_eq!(summarize(&timed(&[1.0, 3.0, 2.0]), "IOPS", Aggregate::Max, &CACHED).value, 3.0);
        assert_eq!(summarize(&timed(&[1.0, 3.0, 2.0]), "IOPS", Aggregate::Min, &CACHED).value, 1.0);
    }

    /// The runs this machine gave (tests/e2e/cache.rs, issue 13): the cached
    /// runs vary too much among themselves for run 1 to stand apart by
    /// timing; the counts say what happened.
    #[test]
    fn runs_that_read_nothing_from_the_device_were_served_from_the_page_cache() {
        let io = [counted(256 << 20), counted(0), counted(0), counted(0)];
        let values = [207.9, 1585.0, 2274.0, 1977.0];
        assert!(!first_run_apart(&values), "timing alone misses it");
        let s = summarize(&with_io(&values, &io), "MB/s", Aggregate::Mean, &CACHED);
        let pc = s.page_cache.clone().unwrap();
        assert_eq!(
            (pc.decided_by, pc.source.as_str(), pc.served_runs),
            (Evidence::Counters, "vda", vec![2, 3, 4])
        );
        let w = s.warning.unwrap();
        assert!(
            w.starts_with("runs 2..4 were served from the page cache, not the drive, by the kernel's counts"),
            "{w}"
        );
        assert!(w.contains("run 1: 256.0 MiB copied, 256.0 MiB read from vda; "), "{w}");
        assert!(w.contains("run 2: 256.0 MiB copied, 0 B read from vda: served from the page cache"), "{w}");
        assert!(w.contains("fits in the 8.0 GiB of free RAM") && w.contains("drop_caches"), "{w}");
        // Run 1 cached as well (the data was in the cache before it).
        let io = [counted(0), counted(0), counted(1 << 20)];
        let s = summarize(&with_io(&[2000.0, 2100.0, 2050.0], &io), "MB/s", Aggregate::Mean, &CACHED);
        assert!(s.warning.unwrap().starts_with("every run was served from the page cache"));
    }

    #[test]
    fn runs_that_read_from_the_device_blame_no_cache() {
        let io = [counted(256 << 20), counted(255 << 20), counted(257 << 20), counted(256 << 20)];
        let ctx = CacheContext { caches_dropped: true, ..CACHED };
        let agree = summarize(&with_io(&[800.0, 810.0, 790.0, 805.0], &io), "MB/s", Aggregate::Mean, &ctx);
        assert_eq!(agree.warning, None);
        assert_eq!(agree.page_cache.unwrap().served_runs, Vec::<u32>::new());
        let apart = summarize(&with_io(&[400.0, 2100.0, 2150.0, 2080.0], &io), "MB/s", Aggregate::Mean, &ctx);
        let w = apart.warning.unwrap();
        assert!(w.starts_with("run 1 (400.0 MB/s) stands apart from runs 2..4"), "{w}");
        assert!(w.contains("every run read its data from vda") && w.contains("warm-up"), "{w}");
        assert!(!w.contains("served from the page cache,"), "{w}");
        // Half from the device: not served from the cache, but said.
        let io = [counted(256 << 20), counted(128 << 20), counted(128 << 20)];
        let s = summarize(&with_io(&[400.0, 2100.0, 2150.0], &io), "MB/s", Aggregate::Mean, &ctx);
        assert!(s.warning.unwrap().contains("128.0 MiB read from vda: 50% served from the page cache"));
    }

    #[test]
    fn a_cache_that_drop_caches_did_not_empty_is_named() {
        let io = [counted(256 << 20), counted(0), counted(0)];
        let ctx = CacheContext { caches_dropped: true, ..CACHED };
        let w = summarize(&with_io(&[800.0, 2000.0, 2100.0], &io), "MB/s", Aggregate::Mean, &ctx)
            .warning
            .unwrap();
        assert!(w.contains("did not empty the cache: it needs root"), "{w}");
    }

    #[test]
    fn without_counts_timing_decides_and_says_so() {
        let s = summarize(&timed(&[400.0, 2100.0, 2150.0, 2080.0, 2120.0]), "MB/s", Aggregate::Mean, &CACHED);
        assert!(s.first_run_apart);
        assert_eq!(s.page_cache.unwrap().decided_by, Evidence::Timing);
        let w = s.warning.unwrap();
        assert!(w.starts_with("run 1 (400.0 MB/s) stands apart from runs 2..5"), "{w}");
        assert!(
            w.contains("the data (1.0 GiB) fits in the 8.0 GiB of free RAM")
                && w.contains("runs 2..5 likely came from the page cache")
                && w.contains("(decided by timing: the runs carry no counts")
                && w.contains("drop_caches"),
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
            let w = summarize(&timed(&[400.0, 2100.0, 2150.0, 2080.0]), "MB/s", Aggregate::Mean, &ctx)
                .warning
                .unwrap();
            assert!(w.contains("warm-up") && !w.contains("likely came from the page cache"), "{w}");
        }
        assert_eq!(
            summarize(
                &timed(&[1.0, 2.0, 3.0]),
                "IOPS",
                Aggregate::Mean,
                &CacheContext { buffered: false, ..CACHED }
            )
            .page_cache,
            None,
            "direct I/O: no page-cache question"
        );
    }

    #[test]
    fn a_source_in_ram_is_not_the_page_cache_trap() {
        let mut io = counted(0);
        io.read =
            Flow { counter: Counter::Ram, source: "tmpfs".into(), reached: None, cached: None, ..io.read };
        let io = [io.clone(), io.clone(), io];
        let s = summarize(&with_io(&[400.0, 2100.0, 2150.0], &io), "MB/s", Aggregate::Mean, &CACHED);
        assert_eq!(s.page_cache.unwrap().decided_by, Evidence::Ram);
        let w = s.warning.unwrap();
        assert!(w.contains("the source is in RAM (tmpfs) for every run") && w.contains("warm-up"), "{w}");
    }

    #[test]
    fn runs_that_agree_or_scatter_raise_nothing() {
        assert!(!first_run_apart(&[100.0, 101.0, 99.0, 100.5]), "all agree");
        assert!(!first_run_apart(&[100.0, 60.0, 140.0, 90.0]), "all scatter: run 1 is not apart");
        assert!(first_run_apart(&[130.0, 100.0, 101.0, 99.0]), "29% apart while the rest agree");
        assert!(first_run_apart(&[999.0, 2300.0, 2534.0, 2533.0]), "far outside a 10% spread");
        assert!(!first_run_apart(&[130.0, 100.0]), "two runs cannot tell");
        let mut failed_first = timed(&[400.0, 2100.0, 2150.0, 2080.0]);
        failed_first.iter_mut().for_each(|r| r.number += 1);
        let failed_first = summarize(&failed_first, "MB/s", Aggregate::Mean, &CACHED);
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
