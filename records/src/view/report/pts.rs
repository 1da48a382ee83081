//! The charts of a SNIA PTS report, recognised from the plan's shape
//! (never from the methodology's name): a run in, `PlotView`s out. Each
//! rounds step's steady-state convergence (the tracked mix's metric each
//! round, a line a block size) and, for it and each precondition until
//! steady, its steady-state measurement window (the window shaded, its
//! average, its least-squares line, the data-excursion and slope limits
//! drawn from the rule, and the PTS numbers in the note); and each
//! measurement that stops on data written (write saturation): IOPS against
//! time and against data written in multiples of the capacity. The rounds
//! and series are the run's files as `StepFiles` read them; one that could
//! not be read is named in the note of the chart it would have drawn.

use methodic_compiler::plan::{
    Action, Cell, Metric, Percent, PreconditionStop, Qd, SteadyRule, Units, Workload,
};

use super::charts::{PlotView, unreadable_words};
use crate::manifest::Loaded;
use crate::record::SteadyResult;
use crate::series::Row;
use crate::step_files::{StepFiles, Unreadable};
use crate::svg::{Chart, Rule, Series, Style, color};
use crate::units::{human, thousands};
use crate::view::points::rate_unit;

/// A steady-state metric as the charts show it: its words on an axis and
/// in a sentence, its unit, and the factor from the recorded value (the
/// runtime records bandwidth in MB/s whatever the run's units) to it.
struct Shown {
    /// `IOPS`, `throughput (MiB/s)`, `mean latency (µs)`.
    axis: String,
    /// After a number: `IOPS`, `MiB/s`, `µs`.
    unit: &'static str,
    scale: f64,
    decimals: usize,
}

impl Shown {
    fn of(metric: Metric, units: Units) -> Shown {
        match metric {
            Metric::Iops => Shown { axis: "IOPS".into(), unit: "IOPS", scale: 1.0, decimals: 0 },
            Metric::Bandwidth => Shown {
                axis: format!("throughput ({})", rate_unit(units)),
                unit: rate_unit(units),
                scale: if units == Units::Binary { 1e6 / 1_048_576.0 } else { 1.0 },
                decimals: 1,
            },
            Metric::Latency => {
                Shown { axis: "mean latency (µs)".into(), unit: "µs", scale: 1.0, decimals: 1 }
            }
        }
    }

    /// `150,050 IOPS`, `1,365.6 MiB/s`.
    fn words(&self, v: f64) -> String {
        format!("{} {}", thousands(Some(v), self.decimals), self.unit)
    }
}

/// Whether two cells do the same I/O but for their block sizes (and the
/// alignment that follows them): the same read, random and trim shares,
/// access, offset, queue depth and workers.
fn same_but_blocks(a: &Cell, b: &Cell) -> bool {
    let (x, y) = (&a.workload, &b.workload);
    x.read == y.read
        && x.random == y.random
        && x.trim == y.trim
        && x.access == y.access
        && x.offset == y.offset
        && a.qd.total == b.qd.total
        && a.qd.workers == b.qd.workers
}

/// `4KiB`, or `512B..64KiB split` for a mix of sizes.
fn blocks_word(w: &Workload) -> String {
    match w.blocks.as_slice() {
        [one] => one.size.to_string(),
        [first, .., last] => format!("{}..{} split", first.size, last.size),
        [] => "no blocks".into(),
    }
}

/// `random`, `sequential`, `50% random`.
fn access_words(w: &Workload) -> String {
    if w.random == Percent::HUNDRED {
        "random".into()
    } else if w.random == Percent::ZERO {
        "sequential".into()
    } else {
        format!("{} random", w.random)
    }
}

/// The mix without its block size, as a title gives it: `0% read` (random
/// goes without saying), `sequential, 0% read`, `50% random, 65% read`.
fn mix_words(w: &Workload) -> String {
    if w.random == Percent::HUNDRED {
        format!("{} read", w.read)
    } else {
        format!("{}, {} read", access_words(w), w.read)
    }
}

/// `QD 128 (4 workers x 32)`, `QD 1`.
fn qd_words(qd: &methodic_compiler::plan::Qd) -> String {
    if qd.workers > 1 {
        format!("QD {} ({} workers x {})", qd.total, qd.workers, qd.per_worker)
    } else {
        format!("QD {}", qd.total)
    }
}

/// The window band of a steady result: `steady-state window, rounds 3-7`,
/// or the last one checked.
fn window_band(st: &SteadyResult) -> Option<(f64, f64, String)> {
    st.window.as_ref().map(|w| {
        let label = if w.steady {
            format!("steady-state window, rounds {}-{}", w.first, w.last)
        } else {
            format!("last window checked, rounds {}-{} (not steady)", w.first, w.last)
        };
        (w.first as f64, w.last as f64, label)
    })
}

/// `Steady state reached at round 9.`, or not in so many rounds.
fn reached_words(st: &SteadyResult, rule: &SteadyRule) -> String {
    if st.reached {
        format!("Steady state reached at round {}.", st.rounds)
    } else {
        format!("Steady state not reached in {} rounds (at most {}).", st.rounds, rule.max_rounds)
    }
}

/// The PTS steady-state convergence plot of each rounds step: the
/// tracked metric each round of every cell whose workload is the tracked
/// cell's but for its block size, a line a block size, the window shaded.
/// The values are the rounds' record (`series`, read in `files`); when
/// the step kept none or it cannot be read (which the note says), the
/// tracked cell alone, from the step's record.
pub fn convergence(run: &Loaded, files: &StepFiles) -> Vec<PlotView> {
    let units = run.manifest.plan.conventions.units;
    run.steps
        .iter()
        .filter_map(|r| {
            let step = run.plan_step(r)?;
            let Action::Rounds { cells, track, rule } = &step.action else { return None };
            let tracked = cells.get(*track as usize)?;
            let shown = Shown::of(rule.metric, units);
            let (rows, unreadable) = match files.rounds(r) {
                Ok(rows) => (rows, None),
                Err(u) => (&[][..], Some(u)),
            };
            let mix: Vec<(usize, &Cell)> =
                cells.iter().enumerate().filter(|(_, c)| same_but_blocks(c, tracked)).collect();
            let mut series: Vec<Series> = mix
                .iter()
                .map(|(k, c)| Series {
                    name: blocks_word(&c.workload),
                    points: rows
                        .iter()
                        .filter(|row| row.cell as usize == k + 1)
                        .map(|row| (row.round as f64, row.value(rule.metric) * shown.scale))
                        .collect(),
                })
                .filter(|s| !s.points.is_empty())
                .collect();
            let from_record = series.is_empty();
            if from_record {
                let Some(st) = r.steady.as_ref() else {
                    // Nothing to draw from the record either: a rounds
                    // record that could not be read still says so.
                    let title = format!("{}: steady-state convergence", r.id);
                    return unreadable.map(|u| PlotView::unreadable(title, "", u));
                };
                series.push(Series {
                    name: blocks_word(&tracked.workload),
                    points: st.values.iter().enumerate().map(|(i, v)| ((i + 1) as f64, v * shown.scale)).collect(),
                });
            }
            let mix_text = mix_words(&tracked.workload);
            let title = if series.len() > 1 {
                format!("{}: steady-state convergence, {mix_text}, each block size", r.id)
            } else {
                format!("{}: steady-state convergence, {}, {mix_text}", r.id, blocks_word(&tracked.workload))
            };
            let sizes: Vec<&str> = series.iter().map(|s| s.name.as_str()).collect();
            let w = &tracked.workload;
            let mut note = if sizes.len() > 1 {
                format!(
                    "{} each round, a line a block size ({}), of every cell that does the tracked mix, {}, {} \
                     read at {}; the rule tracks the {} one.",
                    capitalized(&shown.axis),
                    sizes.join(", "),
                    access_words(w),
                    w.read,
                    qd_words(&tracked.qd),
                    blocks_word(w)
                )
            } else {
                format!(
                    "{} each round of the tracked cell, {} at {}{}.",
                    capitalized(&shown.axis),
                    w.describe(),
                    qd_words(&tracked.qd),
                    if mix.len() == 1 { ", the one block size of its mix" } else { "" }
                )
            };
            if from_record {
                note.push_str(&from_record_words(unreadable));
            }
            if let Some(st) = &r.steady {
                note.push_str(&steady_words(st, rule));
            }
            // The chart's title without `steady-state`, to fit its width.
            let chart_title = title.replacen(": steady-state convergence", ": convergence", 1);
            let svg = Chart {
                title: &chart_title,
                x_label: "round",
                y_label: &shown.axis,
                log2_x: false,
                series,
                band: r.steady.as_ref().and_then(window_band),
                rules: Vec::new(),
            }
            .render();
            Some(PlotView::new(title, note, vec![svg]))
        })
        .collect()
}

/// Why a convergence is drawn from the step's record: its rounds'
/// record could not be read (which, and what is wrong with it).
fn from_record_words(unreadable: Option<&Unreadable>) -> String {
    match unreadable {
        Some(u) => format!(
            " The rounds' record, {} The tracked block size alone, from the step record.",
            unreadable_words(u)
        ),
        // No record names one (the runtime always writes it): the words
        // the page has always had.
        None => " The rounds' record could not be read: the tracked block size alone, from the step record."
            .to_string(),
    }
}

/// ` Steady state reached at round 9. The window is rounds 5-9, shaded.`
fn steady_words(st: &SteadyResult, rule: &SteadyRule) -> String {
    let mut words = format!(" {}", reached_words(st, rule));
    if let Some(w) = &st.window {
        words.push_str(&format!(
            " {} rounds {}-{}, shaded.",
            if w.steady { "The window is" } else { "The last window checked is" },
            w.first,
            w.last
        ));
    }
    words
}

fn capitalized(s: &str) -> String {
    let mut c = s.chars();
    c.next().map_or(String::new(), |f| f.to_uppercase().chain(c).collect())
}

/// The numbers of one measurement window: its rounds, the average, the
/// data excursion and the least-squares line through it (x the round
/// number), as `runtime/src/steady.rs` (`steady::check`) judges them: the
/// data excursion is max - min of the window's values, within
/// `excursion` of the average; the slope excursion is |slope| x (last -
/// first), the change of the least-squares line from the window's first
/// round to its last, within `slope` of the average (the runtime counts x
/// from 0 in the window; the slope is the same). The line passes through
/// (the middle round, the average), so its change is within `slope` of
/// the average exactly when both its ends are within average x (1 ±
/// slope/2): the band the chart draws.
#[derive(Debug, Clone, PartialEq)]
struct Fit {
    first: u32,
    last: u32,
    average: f64,
    /// Max - min.
    range: f64,
    /// The least-squares line: `slope` a round, through `intercept` at round 0.
    slope: f64,
    intercept: f64,
    /// |slope| x (last - first).
    change: f64,
}

impl Fit {
    /// Over rounds `first..=last` (from 1) of `values`; `None` when the
    /// values do not reach `last` or the window is empty.
    fn of(values: &[f64], first: u32, last: u32) -> Option<Fit> {
        if first == 0 || last < first || values.len() < last as usize {
            return None;
        }
        let window = &values[first as usize - 1..last as usize];
        let n = window.len() as f64;
        let average = window.iter().sum::<f64>() / n;
        let max = window.iter().copied().fold(f64::MIN, f64::max);
        let min = window.iter().copied().fold(f64::MAX, f64::min);
        let x_mean = (first + last) as f64 / 2.0;
        let (mut sxy, mut sxx) = (0.0, 0.0);
        for (i, y) in window.iter().enumerate() {
            let dx = (first as usize + i) as f64 - x_mean;
            sxy += dx * (y - average);
            sxx += dx * dx;
        }
        let slope = if sxx > 0.0 { sxy / sxx } else { 0.0 };
        Some(Fit {
            first,
            last,
            average,
            range: max - min,
            slope,
            intercept: average - slope * x_mean,
            change: slope.abs() * (last - first) as f64,
        })
    }

    fn at(&self, round: u32) -> f64 {
        self.intercept + self.slope * round as f64
    }

    /// A share of the average, in percent (0 for an average of 0).
    fn percent(&self, v: f64) -> f64 {
        if self.average.abs() > 0.0 { v / self.average.abs() * 100.0 } else { 0.0 }
    }

    /// Whether `v` is within `limit` percent of the average, with the
    /// runtime's tolerance (a value exactly at the limit is within it);
    /// no I/O (an average of 0 or less) is never steady.
    fn within(&self, v: f64, limit: f64) -> bool {
        let eps = 1e-9 * self.average.abs().max(1.0);
        self.average > 0.0 && v <= limit / 100.0 * self.average.abs() + eps
    }
}

/// `110`, `107.5`: a percentage without trailing zeros.
fn pct(v: f64) -> String {
    let s = format!("{v:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The PTS steady-state measurement window plot of each rounds step and
/// each precondition until steady: the tracked metric each round, the
/// window's rounds shaded, the window average over them, the least-squares
/// line through them (see `Fit`), the data-excursion limits as dashed
/// rules at average x (1 ± excursion/2) and the slope limits as the band
/// average x (1 ± slope/2); the note gives the window's numbers against
/// the rule's limits, as a PTS report does.
pub fn window(run: &Loaded) -> Vec<PlotView> {
    let units = run.manifest.plan.conventions.units;
    run.steps
        .iter()
        .filter_map(|r| {
            let (rule, workload, qd) = tracked(&run.plan_step(r)?.action)?;
            let st = r.steady.as_ref()?;
            let tracked = format!("{} at {}", workload.describe(), qd_words(qd));
            Some(window_plot(&r.id, &tracked, st, rule, Shown::of(rule.metric, units)))
        })
        .collect()
}

/// A steady-state rule and the workload and queue depth it tracks: a
/// rounds step's tracked cell, or a precondition until steady; `None` for
/// any other step.
fn tracked(action: &Action) -> Option<(&SteadyRule, &Workload, &Qd)> {
    match action {
        Action::Rounds { cells, track, rule } => {
            let c = cells.get(*track as usize)?;
            Some((rule, &c.workload, &c.qd))
        }
        Action::Precondition { workload, qd, stop: PreconditionStop::Steady { rule, .. }, .. } => {
            Some((rule, workload, qd))
        }
        Action::Precondition { stop: PreconditionStop::Time(_), .. }
        | Action::Erase { .. }
        | Action::Fill { .. }
        | Action::Measure { .. }
        | Action::Together { .. }
        | Action::Qos(_)
        | Action::DropCaches
        | Action::Idle { .. }
        | Action::LimitRam { .. }
        | Action::Copy { .. }
        | Action::Probe(_) => None,
    }
}

/// The measurement window plot of step `id`, whose rule watched `tracked`
/// (`4KiB random, 0% read at QD 32`): the metric each round, and where
/// there are rounds enough for the window, its fit drawn and judged.
fn window_plot(id: &str, tracked: &str, st: &SteadyResult, rule: &SteadyRule, shown: Shown) -> PlotView {
    let values: Vec<f64> = st.values.iter().map(|v| v * shown.scale).collect();
    let n = values.len() as u32;
    let (first, last) = st
        .window
        .as_ref()
        .map(|w| (w.first, w.last))
        .unwrap_or((n.saturating_sub(rule.window.max(2)) + 1, n));
    let title = format!("{id}: steady-state measurement window");
    let mut note = format!("Tracked: {tracked}, its {} each round.", shown.axis);
    let mut series = vec![Series {
        name: shown.axis.clone(),
        points: values.iter().enumerate().map(|(i, v)| ((i + 1) as f64, *v)).collect(),
    }];
    let mut rules = Vec::new();
    let mut band = None;
    match Fit::of(&values, first, last) {
        Some(f) => {
            let (excursion, slope) = (rule.excursion.as_f64(), rule.slope.as_f64());
            let steady = f.within(f.range, excursion) && f.within(f.change, slope);
            series.extend(f.lines());
            rules = f.limits(excursion, slope);
            band = Some((
                f.first as f64,
                f.last as f64,
                if steady {
                    format!("measurement window, rounds {}-{}", f.first, f.last)
                } else {
                    format!("last window checked, rounds {}-{} (not steady)", f.first, f.last)
                },
            ));
            note.push_str(&f.judged(n, (excursion, slope), &shown));
            if st.window.as_ref().is_some_and(|w| w.steady != steady) {
                note.push_str(&format!(
                    " The run judged this window {}.",
                    if steady { "not steady" } else { "steady" }
                ));
            }
        }
        None => note
            .push_str(&format!(" {n} rounds, fewer than the window of {}: no window to judge.", rule.window)),
    }
    note.push(' ');
    note.push_str(&reached_words(st, rule));
    let styles = [
        Style { color: color(0), dash: None },
        Style { color: color(3), dash: None },
        Style { color: color(2), dash: Some("6 3") },
    ];
    let svg =
        Chart { title: &title, x_label: "round", y_label: &shown.axis, log2_x: false, series, band, rules }
            .render_fitted(&styles);
    PlotView::new(title, note, vec![svg])
}

impl Fit {
    /// The window average and the least-squares line, over the window.
    fn lines(&self) -> [Series; 2] {
        let (first, last) = (self.first as f64, self.last as f64);
        [
            Series {
                name: "window average".into(),
                points: vec![(first, self.average), (last, self.average)],
            },
            Series {
                name: "least-squares line".into(),
                points: vec![(first, self.at(self.first)), (last, self.at(self.last))],
            },
        ]
    }

    /// The data-excursion limits, dashed at average x (1 ± excursion/2),
    /// and the slope limits, the band average x (1 ± slope/2).
    fn limits(&self, excursion: f64, slope: f64) -> Vec<Rule> {
        vec![
            Rule::AtY(
                self.average * (1.0 + excursion / 200.0),
                format!("{}% of average", pct(100.0 + excursion / 2.0)),
            ),
            Rule::AtY(
                self.average * (1.0 - excursion / 200.0),
                format!("{}% of average", pct(100.0 - excursion / 2.0)),
            ),
            Rule::BandY(
                self.average * (1.0 - slope / 200.0),
                self.average * (1.0 + slope / 200.0),
                format!(
                    "slope limits: {}% to {}% of average",
                    pct(100.0 - slope / 2.0),
                    pct(100.0 + slope / 2.0)
                ),
            ),
        ]
    }

    /// The window's numbers against the rule's limits, as a PTS report
    /// gives them: its rounds of `n`, its average, its data excursion and
    /// its slope excursion, each passing or failing.
    fn judged(&self, n: u32, (excursion, slope): (f64, f64), shown: &Shown) -> String {
        let verdict = |ok: bool| if ok { "passes" } else { "fails" };
        format!(
            " Measurement window: rounds {}-{} of {n}. Average {}. Data excursion: max - min {}, {}% of the \
             average, limit {}%: {}. Slope excursion: the least-squares line (slope {} a round) changes by {} \
             over the window, {}% of the average, limit {}%: {}.",
            self.first,
            self.last,
            shown.words(self.average),
            shown.words(self.range),
            thousands(Some(self.percent(self.range)), 1),
            pct(excursion),
            verdict(self.within(self.range, excursion)),
            shown.words(self.slope),
            shown.words(self.change),
            thousands(Some(self.percent(self.change)), 1),
            pct(slope),
            verdict(self.within(self.change, slope)),
        )
    }
}

/// Each interval's end and the data written by then, in multiples of
/// `capacity`: the bytes of each row (its MB/s times its length) added up.
fn written_points(rows: &[Row], capacity: u64) -> Vec<(f64, f64)> {
    let mut bytes = 0.0;
    rows.iter()
        .map(|row| {
            bytes += row.mb_s * 1e6 * row.seconds;
            (bytes / capacity as f64, row.iops)
        })
        .collect()
}

/// The PTS write saturation plots of each measurement that stops on data
/// written: IOPS each series interval against time (in minutes when the
/// series is longer than 10 minutes) and against the data written, in
/// multiples of the capacity of the step's span (the manifest's
/// checklist); without a capacity, against time alone. A series that
/// could not be read gives a plot with no chart, whose note says why.
pub fn saturation(run: &Loaded, files: &StepFiles) -> Vec<PlotView> {
    run.steps
        .iter()
        .filter_map(|r| {
            let step = run.plan_step(r)?;
            let Action::Measure { stop, series: interval, .. } = &step.action else { return None };
            stop.written?;
            let title = format!("{}: write saturation", r.id);
            let rows = match files.series(r) {
                Ok(rows) => rows,
                Err(u) => return Some(PlotView::unreadable(title, &format!("{}.", step.describe()), u)),
            };
            let end = rows.last()?.t;
            let (per, x_label) = if end > 600.0 { (60.0, "time (min)") } else { (1.0, "time (s)") };
            let by_time = format!("{}: IOPS against time", r.id);
            let iops = |points| vec![Series { name: "IOPS".into(), points }];
            let mut svgs = vec![
                Chart {
                    title: &by_time,
                    x_label,
                    y_label: "IOPS",
                    log2_x: false,
                    series: iops(rows.iter().map(|row| (row.t / per, row.iops)).collect()),
                    band: None,
                    rules: Vec::new(),
                }
                .render(),
            ];
            let total: f64 = rows.iter().map(|row| row.mb_s * 1e6 * row.seconds).sum();
            let span = run.step_of(r).and_then(|s| s.checklist.span.as_ref()).filter(|s| s.capacity > 0);
            let mut note = format!("{}. IOPS each {} interval.", step.describe(), interval.human());
            match span {
                Some(span) => {
                    let by_written = format!("{}: IOPS against data written", r.id);
                    let x_label = format!("data written (x capacity, {})", human(span.capacity));
                    svgs.push(
                        Chart {
                            title: &by_written,
                            x_label: &x_label,
                            y_label: "IOPS",
                            log2_x: false,
                            series: iops(written_points(rows, span.capacity)),
                            band: None,
                            rules: Vec::new(),
                        }
                        .render(),
                    );
                    note.push_str(&format!(
                        " {} written in {}: {:.2} x the capacity ({}).",
                        human(total.round() as u64),
                        time_words(end),
                        total / span.capacity as f64,
                        human(span.capacity)
                    ));
                }
                None => note.push_str(&format!(
                    " {} written in {}; the step's capacity is not recorded, so no chart against data written.",
                    human(total.round() as u64),
                    time_words(end)
                )),
            }
            Some(PlotView::new(title, note, svgs))
        })
        .collect()
}

/// `3.5s`, `12.0 min`.
fn time_words(seconds: f64) -> String {
    if seconds > 600.0 { format!("{:.1} min", seconds / 60.0) } else { format!("{}s", pct(seconds)) }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::analysis::Window;
    use crate::manifest::SpanFacts;
    use crate::view::testing;

    /// Rounds of two mixes x three block sizes until the 4KiB random
    /// writes are steady, then a write saturation measurement.
    const SOURCE: &str = "methodology \"pts\" version \"1.0\"\n\
        target { span 1GiB }\n\
        workload rnd4k_write { random; block 4KiB; read 0% }\n\
        phase \"rounds\" {\n  rounds {\n    for rw in [100%, 0%] {\n      \
        for bs in [8KiB, 4KiB, 512B] { measure { random; block bs; read rw } qd 4 for 10s }\n    }\n  } \
        until steady { window 3; excursion 20%; slope 10%; max_rounds 5; metric iops; \
        track { random; block 4KiB; read 0% } }\n}\n\
        phase \"wsat\" { measure rnd4k_write qd 4 for 1min until written 200% series 1s }\n";

    /// The tracked 4KiB writes each round: steady over rounds 3-5.
    const TRACKED: [f64; 5] = [100.0, 200.0, 96.0, 100.0, 104.0];

    /// A folder of this test's own under the temporary directory.
    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("methodic-pts-{}-{name}", std::process::id()));
        std::fs::create_dir_all(d.join("series")).unwrap();
        d
    }

    /// The run, its rounds record written when `csv`: each cell's IOPS
    /// each round (cell k: 1000 k + the round; the tracked cell: `TRACKED`).
    fn run(name: &str, csv: bool) -> Loaded {
        let mut run = testing::of_source(SOURCE, dir(name));
        let i = run.manifest.plan.steps.iter().position(|s| s.action.kind() == "rounds").unwrap();
        let Action::Rounds { cells, track, .. } = &run.manifest.plan.steps[i].action else { unreachable!() };
        assert_eq!((cells.len(), *track), (6, 4), "cells 1-3 read, 4-6 write; the 4KiB writes tracked");
        if csv {
            let mut text = String::from(
                "round,cell,workload,qd,iops,mb_s,mean_latency_us,p99_latency_us,p99_99_latency_us,max_latency_us\n",
            );
            for round in 1..=5u32 {
                for cell in 1..=6u32 {
                    let iops = if cell == 5 {
                        TRACKED[round as usize - 1]
                    } else {
                        1000.0 * cell as f64 + round as f64
                    };
                    text.push_str(&format!("{round},{cell},w{cell},4,{iops:.1},1.0,50.0,90.0,99.0,120.0\n"));
                }
            }
            std::fs::write(run.dir.join("series/rounds.csv"), text).unwrap();
            run.steps[i].series = Some("series/rounds.csv".into());
        }
        run.steps[i].steady = Some(SteadyResult {
            metric: Metric::Iops,
            reached: true,
            rounds: 5,
            values: TRACKED.to_vec(),
            window: Some(Window {
                first: 3,
                last: 5,
                average: 100.0,
                range: 8.0,
                range_limit: 20.0,
                slope: 4.0,
                change: 8.0,
                change_limit: 10.0,
                steady: true,
            }),
            rounds_latency_us: Vec::new(),
        });
        run
    }

    #[test]
    fn convergence_draws_one_line_a_block_size_of_the_tracked_mix() {
        let run = run("convergence", true);
        let plots = convergence(&run, &StepFiles::every(&run));
        assert_eq!(plots.len(), 1);
        let p = &plots[0];
        assert_eq!(
            p.title,
            "rounds/rounds-4kib-random-0-read: steady-state convergence, 0% read, each block size"
        );
        let svg = &p.svgs[0];
        assert_eq!(svg.matches("<path ").count(), 3, "8KiB, 4KiB and 512B of 0% read: {svg}");
        for size in ["8KiB", "4KiB", "512B"] {
            assert!(svg.contains(&format!("<title>{size}</title>")), "{size}");
        }
        // The writes' rounds, not the reads' (cells 1-3: 1001 and up).
        assert!(svg.contains("<title>4KiB: 96 at 3</title>"), "{svg}");
        assert!(svg.contains("<title>8KiB: 4001 at 1</title>") && !svg.contains(": 1001 at 1<"), "{svg}");
        assert!(p.note.contains("a line a block size (8KiB, 4KiB, 512B)"), "{}", p.note);
        assert!(p.note.contains("random, 0% read at QD 4; the rule tracks the 4KiB one"), "{}", p.note);
        assert!(p.note.contains("Steady state reached at round 5") && p.note.contains("rounds 3-5"));
        std::fs::remove_dir_all(&run.dir).unwrap();
    }

    #[test]
    fn convergence_without_the_rounds_record_draws_the_tracked_cell_from_the_step() {
        let run = run("convergence-record", false);
        let p = &convergence(&run, &StepFiles::every(&run))[0];
        assert_eq!(p.svgs[0].matches("<path ").count(), 1);
        assert!(p.svgs[0].contains("<title>4KiB: 200 at 2</title>"), "{}", p.svgs[0]);
        assert!(
            p.note.contains("The rounds' record could not be read: the tracked block size alone"),
            "{}",
            p.note
        );
        std::fs::remove_dir_all(&run.dir).unwrap();
    }

    /// A rounds record that cannot be read: the tracked cell from the
    /// step's record, and the note names the file and what is wrong.
    #[test]
    fn convergence_says_which_rounds_record_could_not_be_read() {
        let run = run("convergence-damaged", true);
        let path = run.dir.join("series/rounds.csv");
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, text.replacen("\n1,2,w2,", "\n1,2,w2,x", 1)).unwrap();
        let files = StepFiles::every(&run);
        assert_eq!(files.unreadable().len(), 1);
        let p = &convergence(&run, &files)[0];
        assert_eq!(p.svgs[0].matches("<path ").count(), 1, "the tracked cell alone");
        assert!(
            p.note.contains(
                "The rounds' record, series/rounds.csv could not be read (line 3 is not a row of a cell in a \
                 round: `1,2,w2,x4,2001.0,1.0,50.0,90.0,99.0,120.0`). The tracked block size alone"
            ),
            "{}",
            p.note
        );
        std::fs::remove_dir_all(&run.dir).unwrap();
    }

    #[test]
    fn the_fit_follows_the_runtime_s_steady_state_definition() {
        // Rounds 3-5: 96, 100, 104: the average 100, max - min 8, a line
        // rising 4 a round, 8 over the window.
        let f = Fit::of(&TRACKED, 3, 5).unwrap();
        assert!((f.average - 100.0).abs() < 1e-9 && (f.range - 8.0).abs() < 1e-9);
        assert!((f.slope - 4.0).abs() < 1e-9 && (f.change - 8.0).abs() < 1e-9, "{f:?}");
        assert!((f.at(3) - 96.0).abs() < 1e-9 && (f.at(5) - 104.0).abs() < 1e-9);
        // steady.rs's edge: a line changing by exactly 10% of the average
        // is within a 10% slope limit, a steeper one is not.
        let line = [95.0, 97.5, 100.0, 102.5, 105.0];
        let f = Fit::of(&line, 1, 5).unwrap();
        assert!((f.change - 10.0).abs() < 1e-9 && f.within(f.change, 10.0));
        let f = Fit::of(&[94.9, 97.45, 100.0, 102.55, 105.1], 1, 5).unwrap();
        assert!(!f.within(f.change, 10.0) && f.within(f.range, 20.0));
        assert!(!Fit::of(&[0.0; 3], 1, 3).unwrap().within(0.0, 20.0), "no I/O is not steady");
        assert!(Fit::of(&TRACKED, 4, 6).is_none());
    }

    #[test]
    fn the_window_chart_gives_the_numbers_and_the_limits_from_the_rule() {
        let mut run = run("window", false);
        let p = &window(&run)[0];
        assert_eq!(p.title, "rounds/rounds-4kib-random-0-read: steady-state measurement window");
        for words in [
            "rounds 3-5 of 5",
            "Average 100 IOPS",
            "max - min 8 IOPS, 8.0% of the average, limit 20%: passes",
            "(slope 4 IOPS a round) changes by 8 IOPS over the window, 8.0% of the average, limit 10%: passes",
        ] {
            assert!(p.note.contains(words), "{words}: {}", p.note);
        }
        let svg = &p.svgs[0];
        assert!(svg.contains(">110% of average<") && svg.contains(">90% of average<"), "{svg}");
        assert!(svg.contains(">slope limits: 95% to 105% of average<"));
        assert_eq!(svg.matches("class=\"rule\"").count(), 2);
        assert_eq!(svg.matches("class=\"yband\"").count(), 1);
        assert_eq!(svg.matches("<path ").count(), 3, "the rounds, the average, the least-squares line");
        assert!(svg.contains("<title>least-squares line: 104 at 5</title>"), "{svg}");
        // A looser rule: its own limits, and an excursion of 8% fails a 5% one.
        let i = run.steps.iter().position(|r| r.kind == "rounds").unwrap();
        let Action::Rounds { rule, .. } = &mut run.manifest.plan.steps[i].action else { unreachable!() };
        rule.excursion = Percent::whole(5);
        rule.slope = Percent::whole(30);
        let p = &window(&run)[0];
        assert!(p.svgs[0].contains(">102.5% of average<") && p.svgs[0].contains(">97.5% of average<"));
        assert!(p.svgs[0].contains(">slope limits: 85% to 115% of average<"));
        assert!(p.note.contains("limit 5%: fails") && p.note.contains("limit 30%: passes"), "{}", p.note);
        assert!(p.note.contains("The run judged this window steady."), "{}", p.note);
        std::fs::remove_dir_all(&run.dir).unwrap();
    }

    #[test]
    fn saturation_plots_iops_against_data_written_in_capacities() {
        let mut run = run("saturation", false);
        let i = run.steps.iter().position(|r| r.kind == "measure").unwrap();
        let capacity = 400_000_000u64;
        run.manifest.steps[i].checklist.span = Some(SpanFacts {
            declared: "100%".into(),
            bytes: capacity,
            capacity,
            percent_of_capacity: 100.0,
        });
        // The last interval is cut short: half a second.
        let mut text = format!("{}\n", crate::series::HEADER);
        let mut t = 0.0;
        for (len, mb_s, iops) in
            [(1.0, 100.0, 900.0), (1.0, 200.0, 800.0), (1.0, 300.0, 700.0), (0.5, 400.0, 600.0)]
        {
            t += len;
            let row = Row {
                t,
                seconds: len,
                iops,
                read_iops: 0.0,
                write_iops: iops,
                mb_s,
                mean_latency_us: 10.0,
                p99_latency_us: 20.0,
                temperature_c: None,
            };
            text.push_str(&format!("{}\n", row.csv_line()));
        }
        std::fs::write(run.dir.join("series/wsat.csv"), text).unwrap();
        run.steps[i].series = Some("series/wsat.csv".into());
        let files = StepFiles::every(&run);
        let rows = files.series(&run.steps[i]).unwrap();
        let written: f64 = rows.iter().map(|r| r.mb_s * 1e6 * r.seconds).sum();
        let points = written_points(rows, capacity);
        assert_eq!(points.len(), 4);
        assert!((points[3].0 - written / capacity as f64).abs() < 1e-12 && (points[3].0 - 2.0).abs() < 1e-9);
        let plots = saturation(&run, &files);
        assert_eq!(plots.len(), 1, "only the measurement that stops on data written");
        let p = &plots[0];
        assert_eq!(p.svgs.len(), 2);
        assert!(p.svgs[0].contains(">time (s)<") && p.svgs[0].contains("<title>IOPS: 600 at 3.5</title>"));
        let x_label = format!(">data written (x capacity, {})<", human(capacity));
        assert!(p.svgs[1].contains(&x_label), "{}", p.svgs[1]);
        assert!(p.svgs[1].contains("<title>IOPS: 600 at 2</title>"), "{}", p.svgs[1]);
        assert!(p.note.contains("2.00 x the capacity"), "{}", p.note);
        // Its series gone: no chart, and the note says why.
        std::fs::remove_file(run.dir.join("series/wsat.csv")).unwrap();
        let p = &saturation(&run, &StepFiles::every(&run))[0];
        assert!(p.svgs.is_empty());
        assert!(p.note.ends_with("No chart: series/wsat.csv could not be read (is missing)."), "{}", p.note);
        std::fs::remove_dir_all(&run.dir).unwrap();
    }
}
