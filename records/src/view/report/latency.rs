//! Latency distributions: for each phase's sweeps a chart a sweep line
//! (a workload), a line a queue depth, for each rounds step a chart with
//! a line a measurement (its cells, over all its rounds), and for a
//! phase's other measurements a chart with a line a step; each line the share of the step's I/Os
//! (reads, writes and trims together) that took at least each latency,
//! from the median to the slowest I/O, read from the step's HdrHistogram
//! latency log (`crate::hlog`). Where a line crosses 0.01% is its
//! p99.99, the "99.99% QoS" figure reviewers quote: each line's legend
//! gives it, where the step had the 10,000 I/Os it needs.

use std::collections::BTreeMap;

use hdrhistogram::Histogram;
use methodic_compiler::plan::Action;

use super::charts::{PlotView, unreadable_words};
use crate::hlog::Latencies;
use crate::manifest::Loaded;
use crate::step_files::StepFiles;
use crate::svg::{Exceedance, Series};

/// The most lines a chart draws (the palette's colours); a group with
/// more gets more charts.
const LINES: usize = 8;

/// The fewest I/Os a step's p99.99 is read from: one in 10,000 slower.
const FOR_P9999: u64 = 10_000;

/// Each phase's measurements' latency distributions, a chart a sweep line
/// (its queue depths) and one for the phase's other measurements (its
/// steps), in plan order. A step whose latency log could not be read, or
/// that recorded no I/O, has no line: the chart's note says so.
pub fn distributions(run: &Loaded, files: &StepFiles) -> Vec<PlotView> {
    groups(run, files)
        .into_iter()
        .flat_map(|g| {
            let note = format!(
                "Each line: the share of the step's I/Os (reads, writes and trims together) that took at least \
                 each latency, from the median (50%) to the slowest I/O, from its HdrHistogram latency log. Where \
                 a line crosses 0.01% is its p99.99, the \"99.99% QoS\" latency, in its legend where the step \
                 had the 10,000 I/Os it needs.{}",
                g.missing.iter().map(|u| format!(" No line: {u}")).collect::<String>()
            );
            let what = g.what;
            let charts = if g.lines.is_empty() { vec![Vec::new()] } else { shared_out(g.lines) };
            let n = charts.len();
            let missing = !g.missing.is_empty();
            charts.into_iter().enumerate().filter_map(move |(k, series)| {
                if series.is_empty() && !missing {
                    return None;
                }
                let title = if n > 1 { format!("{what} ({} of {n})", k + 1) } else { what.clone() };
                let svgs = if series.is_empty() {
                    Vec::new()
                } else {
                    vec![Exceedance { title: &title, series, styles: Vec::new() }.render()]
                };
                Some(PlotView::new(title, note.clone(), svgs))
            })
        })
        .collect()
}

/// `lines` on as few charts as hold them (the palette's 8 colours a
/// chart), shared out evenly: 9 queue depths make charts of 5 and 4, not
/// 8 and 1.
pub(crate) fn shared_out(lines: Vec<Series>) -> Vec<Vec<Series>> {
    if lines.is_empty() {
        return Vec::new();
    }
    let per = lines.len().div_ceil(lines.len().div_ceil(LINES));
    let mut lines = lines.into_iter().peekable();
    let mut out = Vec::new();
    while lines.peek().is_some() {
        out.push(lines.by_ref().take(per).collect());
    }
    out
}

/// A chart's worth of latency distributions before it is drawn: what it
/// shows (`measure: rnd4k_read, latency by queue depth`), a line a step,
/// and why some steps have none (a latency log that could not be read, a
/// step that recorded no I/O). The page draws them, as do the workbook's
/// charts.
#[derive(Default)]
pub(crate) struct Distributions {
    pub what: String,
    pub lines: Vec<Series>,
    pub missing: Vec<String>,
}

/// Each phase's latency distributions: a group a sweep line (its queue
/// depths), and one for the phase's other measurements (its steps), in
/// plan order.
pub(crate) fn groups(run: &Loaded, files: &StepFiles) -> Vec<Distributions> {
    let mut groups: BTreeMap<GroupKey, Distributions> = BTreeMap::new();
    for r in run.steps.iter().filter(|r| r.error.is_none()) {
        let Some(step) = run.plan_step(r) else { continue };
        let phase = r.phase.clone().unwrap_or_else(|| "steps".into());
        // Each line's label and the part of the log it reads (none: the
        // step's own I/Os; `cell3.`: a rounds step's third cell's).
        let (key, lines): (Lines, Vec<(String, Option<String>)>) = match &step.action {
            Action::Measure { workload, qd, .. } => match step.sweep {
                Some(sweep) => {
                    (Lines::Sweep(sweep, workload.name.clone()), vec![(format!("QD {}", qd.total), None)])
                }
                None => (Lines::Steps, vec![(r.id.clone(), None)]),
            },
            Action::Rounds { cells, .. } => (
                Lines::Rounds(r.id.clone()),
                cells
                    .iter()
                    .enumerate()
                    .map(|(k, c)| {
                        (format!("{} QD {}", c.workload.name, c.qd.total), Some(format!("cell{}.", k + 1)))
                    })
                    .collect(),
            ),
            Action::Erase { .. }
            | Action::Fill { .. }
            | Action::Precondition { .. }
            | Action::Together { .. }
            | Action::Qos(_)
            | Action::Copy { .. }
            | Action::Probe(_)
            | Action::DropCaches
            | Action::Idle { .. }
            | Action::LimitRam { .. } => continue,
        };
        let first = groups.keys().find(|(_, p, k)| *p == phase && *k == key).map_or(r.index, |k| k.0);
        let group = groups.entry((first, phase, key)).or_default();
        match files.latencies(r) {
            Ok(Some(l)) => {
                for (label, part) in lines {
                    match line(&label, l, part.as_deref()) {
                        Ok(line) => group.lines.push(line),
                        Err(why) => group.missing.push(format!("{why}.")),
                    }
                }
            }
            Ok(None) => {}
            Err(u) => group.missing.push(unreadable_words(u)),
        }
    }
    groups
        .into_iter()
        .map(|((_, phase, key), mut g)| {
            g.what = match &key {
                Lines::Sweep(_, workload) => format!("{phase}: {workload}, latency by queue depth"),
                Lines::Rounds(id) => {
                    format!("{id}: latency distribution of each measurement, over all its rounds")
                }
                Lines::Steps => format!("{phase}: latency distribution of each measurement"),
            };
            g
        })
        .collect()
}

/// A chart's group: its first step (for plan order), its phase, and what
/// its lines are.
type GroupKey = (usize, String, Lines);

/// What a group's lines are: a sweep's queue depths (its number and
/// workload), a rounds step's measurements, or a phase's other
/// measurements.
#[derive(PartialEq, Eq, PartialOrd, Ord)]
enum Lines {
    Sweep(u32, String),
    Rounds(String),
    Steps,
}

/// Step `label`'s line from its latency log `l`: every I/O of the step
/// (its tags `read`, `write`, `trim`), or of its `part` (`cell3.`: a
/// rounds step's third cell, its tags `cell3.read` and so on); why there
/// is none (`QD 256 recorded no I/O`) where it has fewer than the two
/// I/Os a median and a slowest need.
pub(crate) fn line(label: &str, l: &Latencies, part: Option<&str>) -> Result<Series, String> {
    let mut all: Option<Histogram<u64>> = None;
    let ours = |t: &&str| match part {
        Some(prefix) => t.strip_prefix(prefix).is_some_and(|rest| !rest.contains('.')),
        None => !t.contains('.'),
    };
    for tag in l.tags().filter(ours) {
        let Some(h) = l.of(tag) else { continue };
        match all.as_mut() {
            Some(sum) => sum.add(h).map_err(|e| format!("{label}'s latencies do not add up ({e})"))?,
            None => {
                let mut sum = h.clone();
                sum.auto(true);
                all = Some(sum);
            }
        }
    }
    let n = all.as_ref().map_or(0, Histogram::len);
    match n {
        0 => return Err(format!("{label} recorded no I/O")),
        1 => return Err(format!("{label} recorded 1 I/O, too few to draw")),
        _ => {}
    }
    let Some(h) = all else { return Err(format!("{label} recorded no I/O")) };
    let points = exceedance(&h);
    let name = if n >= FOR_P9999 {
        format!(
            "{label}: p99.99 {} µs",
            crate::units::thousands(Some(h.value_at_quantile(0.9999) as f64 / 1000.0), 0)
        )
    } else {
        format!("{label} ({n} I/Os)")
    };
    Ok(Series { name, points })
}

/// The exceedance of the latencies in `h` (ns): at shares of 50% and ten
/// steps a decade under it, down to one I/O in all of them, the latency
/// (µs) that share of the I/Os took at least; then the slowest I/O, at
/// one I/O's share.
pub(crate) fn exceedance(h: &Histogram<u64>) -> Vec<(f64, f64)> {
    let n = h.len();
    if n == 0 {
        return Vec::new();
    }
    let one = 1.0 / n as f64;
    let mut out = Vec::new();
    for k in 0.. {
        let share = 0.5 * 10f64.powf(-f64::from(k) / 10.0);
        if share < one {
            break;
        }
        out.push((h.value_at_quantile(1.0 - share) as f64 / 1000.0, share));
    }
    out.push((h.max() as f64 / 1000.0, one));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A million I/Os: 999,000 at 100 us, 900 at 1 ms, 100 at 10 ms. The
    /// median and p99.5 are 100 us, p99.95 1 ms, p99.995 10 ms; the line
    /// ends at the slowest, at one I/O in a million.
    #[test]
    fn the_exceedance_reads_each_percentile_where_its_share_is() {
        let mut h = Histogram::<u64>::new_with_bounds(1, 60_000_000_000, 3).unwrap();
        h.record_n(100_000, 999_000).unwrap();
        h.record_n(1_000_000, 900).unwrap();
        h.record_n(10_000_000, 100).unwrap();
        let pts = exceedance(&h);
        let at =
            |share: f64| pts.iter().find(|(_, s)| (s - share).abs() < share * 1e-9).map(|(v, _)| *v).unwrap();
        let near = |a: f64, b: f64| (a - b).abs() / b < 0.01;
        assert!(near(at(0.5), 100.0) && near(at(0.005), 100.0), "p50, p99.5: {pts:?}");
        assert!(near(at(0.0005), 1000.0), "p99.95: {pts:?}");
        assert!(near(at(0.00005), 10000.0), "p99.995: {pts:?}");
        assert_eq!(pts.last().map(|p| p.1), Some(1e-6));
        assert!(near(pts.last().unwrap().0, 10000.0));
        // Falling shares, rising latencies.
        assert!(pts.windows(2).all(|w| w[1].1 < w[0].1 && w[1].0 >= w[0].0), "{pts:?}");
    }

    /// Two I/Os draw a line from the median to the slowest; one, or none,
    /// is said, not drawn (a rehearsal's deepest steps may record that
    /// few).
    #[test]
    fn a_step_of_fewer_than_two_ios_has_no_line_and_says_why() {
        let log = |n: u64| {
            let dir = std::env::temp_dir().join(format!("methodic-latency-line-{}-{n}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            let path = dir.join("s.hlog");
            let mut w =
                crate::hlog::Writer::create(&path, "s", std::time::UNIX_EPOCH, "1970-01-01T00:00:00Z")
                    .unwrap();
            let mut h = Histogram::<u64>::new_with_bounds(1, 60_000_000_000, 3).unwrap();
            for k in 0..n {
                h.record(1000 * (k + 1)).unwrap();
            }
            w.interval("read", &h, std::time::Duration::ZERO, std::time::Duration::from_secs(1)).unwrap();
            w.flush().unwrap();
            let l = Latencies::read(&path).unwrap();
            std::fs::remove_dir_all(&dir).unwrap();
            l
        };
        assert_eq!(
            line("QD 8", &log(1), None).err().as_deref(),
            Some("QD 8 recorded 1 I/O, too few to draw")
        );
        let Ok(two) = line("QD 8", &log(2), None) else { panic!("two I/Os draw a line") };
        assert_eq!(two.points.len(), 2, "{:?}", two.points);
        assert_eq!(two.name, "QD 8 (2 I/Os)");
    }

    /// A rounds step's measurement reads only its cell's I/Os (`cell2.`:
    /// `cell2.read`, not `cell12.read`), and the step's own line none of
    /// its cells'.
    #[test]
    fn a_cell_s_line_reads_its_own_tags_only() {
        let dir = std::env::temp_dir().join(format!("methodic-latency-cells-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("s.hlog");
        let mut w =
            crate::hlog::Writer::create(&path, "s", std::time::UNIX_EPOCH, "1970-01-01T00:00:00Z").unwrap();
        for (tag, n) in [("read", 3), ("cell2.read", 5), ("cell2.write", 4), ("cell12.read", 7)] {
            let mut h = Histogram::<u64>::new_with_bounds(1, 60_000_000_000, 3).unwrap();
            for k in 0..n {
                h.record(1000 * (k + 1)).unwrap();
            }
            w.interval(tag, &h, std::time::Duration::ZERO, std::time::Duration::from_secs(1)).unwrap();
        }
        w.flush().unwrap();
        let l = Latencies::read(&path).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        let name = |part: Option<&str>| line("x", &l, part).map(|s| s.name);
        assert_eq!(name(None).as_deref(), Ok("x (3 I/Os)"));
        assert_eq!(name(Some("cell2.")).as_deref(), Ok("x (9 I/Os)"));
        assert_eq!(name(Some("cell12.")).as_deref(), Ok("x (7 I/Os)"));
        assert_eq!(name(Some("cell3.")).err().as_deref(), Some("x recorded no I/O"));
    }
}
