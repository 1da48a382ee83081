//! The comparison page's charts: the runs read back go in (the first is
//! the baseline), with their [`Comparison`]; out come views the HTML
//! template draws. A legend (a colour a run, named by its drive's model
//! and firmware, else its target and host, and its directory), then per
//! phase each run's curves on the same axes: IOPS and latency percentiles
//! against queue depth, read share x queue depth maps side by side on one
//! colour scale, steady-state rounds, and fill, precondition and
//! sustained-write series over time; then a bar chart per paired step.
//! Lines, maps and plots are matched across runs by what the steps did
//! (workload I/O, queue depth, the nth such step), never by step id, as
//! pairs are; a run that lacks one is named under it, not left to fail.
//! The charts are inline SVG (`crate::svg`).

use std::collections::BTreeMap;
use std::path::{Component, Path};

use methodic_compiler::plan::{Action, IoKey, Metric, Units, ValueKind, WorkloadIo};
use serde::Serialize;

use super::words::run_name;
use super::{Comparison, letter, plural_kind, status_name};
use crate::manifest::Loaded;
use crate::record::StepResult;
use crate::step_files::StepFiles;
use crate::svg::{Bar, Bars, Chart, Exceedance, PALETTE, Series, Style, color};
use crate::view::points::{Point, kind_short, points, rate_unit};
use crate::view::report::matrix::shade;

/// One run in the page's legend.
#[derive(Debug, Serialize)]
pub struct RunLegend {
    /// `A`.
    pub letter: String,
    pub color: &'static str,
    /// The drive's model and firmware, else the target and host.
    pub name: String,
    /// The shortest tail of its directory that no other run shares.
    pub dir: String,
    /// The whole directory, as given.
    pub full_dir: String,
    /// `quick 1.0, completed, rehearsal`.
    pub about: String,
    /// How many of its steps pair with no step of some other run.
    pub unpaired: usize,
}

/// One phase of the runs: its charts.
#[derive(Debug, Serialize)]
pub struct PhaseView {
    pub title: String,
    pub curves: Vec<CurveView>,
    pub maps: Vec<MapGroup>,
    pub rounds: Vec<PlotView>,
    pub series: Vec<PlotView>,
    pub latency: Vec<PlotView>,
}

/// A sweep's line in every run: IOPS, and latency percentiles, by QD.
#[derive(Debug, Serialize)]
pub struct CurveView {
    pub title: String,
    pub note: String,
    pub iops_svg: String,
    pub latency_svg: String,
}

/// A chart of one thing each run did, with a sentence under it.
#[derive(Debug, Serialize)]
pub struct PlotView {
    pub title: String,
    pub note: String,
    pub svg: String,
}

/// The read share x QD maps of one kind of I/O, one a run, on one scale.
#[derive(Debug, Serialize)]
pub struct MapGroup {
    pub title: String,
    pub units: String,
    pub qds: Vec<u32>,
    pub maps: Vec<RunMap>,
}

#[derive(Debug, Serialize)]
pub struct RunMap {
    pub run: String,
    pub color: &'static str,
    /// Each read share, highest first; empty where the run measured none.
    pub rows: Vec<MapRow>,
}

#[derive(Debug, Serialize)]
pub struct MapRow {
    pub read: String,
    pub cells: Vec<MapCell>,
}

#[derive(Debug, Serialize)]
pub struct MapCell {
    pub value: String,
    /// The cell's shade, 0 to 0.58, against the largest value of every run.
    pub shade: String,
}

/// A paired step's bar chart.
#[derive(Debug, Serialize)]
pub struct BarView {
    pub label: String,
    pub svg: String,
}

/// Everything the page draws.
#[derive(Debug, Serialize)]
pub struct Page {
    pub legend: Vec<RunLegend>,
    /// When there are more runs than colours: which share one.
    pub colors_note: Option<String>,
    pub phases: Vec<PhaseView>,
    pub bars: Vec<BarView>,
}

/// The page's charts of `runs`, compared as `c`.
pub fn page(c: &Comparison, runs: &[Loaded]) -> Page {
    let all: Vec<Vec<Point>> = runs.iter().map(points).collect();
    let mut phases: Vec<PhaseView> = Vec::new();
    // Phases in the order the runs first name them, the first run's first.
    for pts in &all {
        for p in pts {
            phase(&mut phases, &phase_of(p.phase.as_deref()));
        }
    }
    for (name, view) in curves(runs, &all) {
        phase(&mut phases, &name).curves.push(view);
    }
    for (name, view) in maps(runs, &all) {
        phase(&mut phases, &name).maps.push(view);
    }
    for (name, view) in rounds(runs) {
        phase(&mut phases, &name).rounds.push(view);
    }
    for (name, view) in series(runs, &c.files) {
        phase(&mut phases, &name).series.push(view);
    }
    for (name, view) in distributions(runs, &c.files) {
        phase(&mut phases, &name).latency.push(view);
    }
    phases.retain(|p| {
        !(p.curves.is_empty()
            && p.maps.is_empty()
            && p.rounds.is_empty()
            && p.series.is_empty()
            && p.latency.is_empty())
    });
    let colors_note = (runs.len() > PALETTE).then(|| {
        format!(
            "{} runs and {PALETTE} colours: from {} on, the colours are taken again from A, so a colour names \
             runs {PALETTE} letters apart (the legend says which)",
            runs.len(),
            letter(PALETTE)
        )
    });
    Page { legend: legend(c, runs), colors_note, phases, bars: bars(c) }
}

/// The phase named `name`, added at the end when it is not there yet.
fn phase<'a>(phases: &'a mut Vec<PhaseView>, name: &str) -> &'a mut PhaseView {
    let i = match phases.iter().position(|p| p.title == name) {
        Some(i) => i,
        None => {
            phases.push(PhaseView {
                title: name.to_string(),
                curves: Vec::new(),
                maps: Vec::new(),
                rounds: Vec::new(),
                series: Vec::new(),
                latency: Vec::new(),
            });
            phases.len() - 1
        }
    };
    &mut phases[i]
}

/// `steps` for a step in no phase.
fn phase_of(phase: Option<&str>) -> String {
    phase.unwrap_or("steps").to_string()
}

/// `A` drawn in its run's colour, solid.
fn style(run: usize) -> Style {
    Style { color: color(run), dash: None }
}

/// Each run in the legend.
fn legend(c: &Comparison, runs: &[Loaded]) -> Vec<RunLegend> {
    let dirs = short_dirs(&runs.iter().map(|r| r.dir.as_path()).collect::<Vec<_>>());
    runs.iter()
        .enumerate()
        .map(|(i, r)| {
            let m = &r.manifest;
            let mut about =
                format!("{} {}, {}", m.methodology.name, m.methodology.version, status_name(m.status));
            if m.rehearsal {
                about.push_str(", rehearsal");
            }
            about.push_str(&format!(", reports {}", plural_kind(m.plan.conventions.value)));
            RunLegend {
                letter: letter(i),
                color: color(i),
                name: run_name(r),
                dir: dirs[i].clone(),
                full_dir: r.dir.display().to_string(),
                about,
                unpaired: c.unpaired.iter().filter(|u| u.in_runs.contains(&letter(i))).count(),
            }
        })
        .collect()
}

/// Each directory by the fewest of its last components that no other
/// directory ends in: `a/results` and `b/results`, not `results` twice.
pub(crate) fn short_dirs(dirs: &[&Path]) -> Vec<String> {
    let parts: Vec<Vec<String>> = dirs
        .iter()
        .map(|d| {
            d.components()
                .filter(|c| matches!(c, Component::Normal(_)))
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect()
        })
        .collect();
    let tail = |p: &[String], n: usize| p[p.len().saturating_sub(n)..].join("/");
    parts
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let unique = (1..=p.len()).find(|n| {
                let mine = tail(p, *n);
                parts.iter().enumerate().all(|(j, q)| j == i || tail(q, *n) != mine || q == p)
            });
            match unique {
                Some(n) => tail(p, n),
                None => dirs[i].display().to_string(),
            }
        })
        .collect()
}

/// Items of several runs by key: each key in the order the runs first
/// give it (the first run's first), with each run's items under it.
fn by_key<K: Ord + Clone, T>(each: Vec<Vec<(K, T)>>) -> Vec<(K, Vec<Vec<T>>)> {
    let n = each.len();
    let mut order: Vec<K> = Vec::new();
    let mut found: BTreeMap<K, Vec<Vec<T>>> = BTreeMap::new();
    for (r, items) in each.into_iter().enumerate() {
        for (k, t) in items {
            let runs = found.entry(k.clone()).or_insert_with(|| {
                order.push(k.clone());
                (0..n).map(|_| Vec::new()).collect()
            });
            runs[r].push(t);
        }
    }
    order.into_iter().map(|k| (k.clone(), found.remove(&k).unwrap_or_default())).collect()
}

/// `B and C`, `C`: the runs at `indices`.
fn runs_words(indices: &[usize]) -> String {
    and_words(&indices.iter().map(|i| letter(*i)).collect::<Vec<_>>())
}

/// `A, B and C`.
pub(crate) fn and_words(names: &[String]) -> String {
    match names {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// The runs that have nothing under a key, in a sentence: `C has no such
/// step.` (or nothing when all have).
fn lacking(items: &[Vec<impl Sized>], what: &str) -> String {
    let missing: Vec<usize> = (0..items.len()).filter(|r| items[*r].is_empty()).collect();
    match missing.len() {
        0 => String::new(),
        1 => format!(" {} has no {what}.", runs_words(&missing)),
        _ => format!(" {} have no {what}.", runs_words(&missing)),
    }
}

/// The median of some values (the mean of the middle two of an even count).
fn median(mut v: Vec<f64>) -> Option<f64> {
    v.retain(|x| x.is_finite());
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    Some(if v.len() % 2 == 1 { v[m] } else { (v[m - 1] + v[m]) / 2.0 })
}

/// A latency percentile the curves draw, and its dash.
struct Percentile {
    name: &'static str,
    dash: Option<&'static str>,
    /// The dash in a word, for the note under the chart.
    drawn: &'static str,
}

const PERCENTILES: [Percentile; 3] = [
    Percentile { name: "mean", dash: None, drawn: "solid" },
    Percentile { name: "p99", dash: Some("6 4"), drawn: "dashed" },
    Percentile { name: "p99.99", dash: Some("2 3"), drawn: "dotted" },
];

/// One point of a curve: its QD, IOPS of each value kind the curve may
/// draw, and its latency percentiles (as [`PERCENTILES`]).
struct CurvePoint<'a> {
    qd: u32,
    point: &'a Point,
    latency: [Option<f64>; 3],
}

/// A curve's key: its phase, what its steps do, and which sweep of that
/// I/O in the phase it is (the first, the second...).
type CurveKey = (String, WorkloadIo, usize);

/// IOPS and latency by QD: a chart pair for each sweep of each phase
/// (matched across runs by phase and workload I/O), each run's line on
/// the same axes. Lines of one queue depth in every run are left out: the
/// bar charts show them.
fn curves(runs: &[Loaded], all: &[Vec<Point>]) -> Vec<(String, CurveView)> {
    let each: Vec<Vec<(CurveKey, CurvePoint)>> =
        runs.iter().zip(all).map(|(run, pts)| curve_points(run, pts)).collect();
    let baseline = runs[0].manifest.plan.conventions.value;
    by_key(each)
        .into_iter()
        .filter(|(_, lines)| lines.iter().any(|l| distinct_qds(l) > 1))
        .map(|((phase, _, _), lines)| (phase, curve_view(&lines, baseline)))
        .collect()
}

/// One run's points of its closed-loop sweeps (measurements that did not
/// fail, with no rate, QoS search or jobs beside them), each keyed by its
/// curve, with its p99.99 latency from its step's record.
fn curve_points<'a>(run: &Loaded, pts: &'a [Point]) -> Vec<(CurveKey, CurvePoint<'a>)> {
    let mut sweeps: BTreeMap<(String, WorkloadIo), Vec<Option<u32>>> = BTreeMap::new();
    pts.iter()
        .filter(|p| {
            p.kind == "measure"
                && p.error.is_none()
                && p.open_loop.is_none()
                && p.qos.is_none()
                && p.job.is_none()
        })
        .filter_map(|p| {
            let (w, qd) = (p.workload.as_ref()?, p.qd?);
            let at = (phase_of(p.phase.as_deref()), w.io());
            let seen = sweeps.entry(at.clone()).or_default();
            let nth = match seen.iter().position(|s| *s == p.sweep) {
                Some(n) => n,
                None => {
                    seen.push(p.sweep);
                    seen.len() - 1
                }
            };
            let total = run.steps.iter().find(|r| r.index == p.step && r.id == p.id);
            let p99_99 = total
                .and_then(|r| r.summary.as_ref())
                .map(|s| s.total.latency_us.p99_99)
                .filter(|v| *v > 0.0);
            let latency = [p.mean_latency_us, p.p99_latency_us, p99_99];
            Some(((at.0, at.1, nth), CurvePoint { qd: qd.total, point: p, latency }))
        })
        .collect()
}

/// The chart pair of one curve, a line a run: IOPS by QD of one value
/// kind (the baseline's where every point has it, else the step average),
/// and latency percentiles by QD.
fn curve_view(lines: &[Vec<CurvePoint>], baseline: ValueKind) -> CurveView {
    // One kind on every line: the baseline's where every point has it
    // (each keeps its step average beside what it reports).
    let kind = if lines.iter().flatten().all(|c| c.point.iops_as(baseline).is_some()) {
        baseline
    } else {
        ValueKind::StepAverage
    };
    let (iops, iops_styles, lat, lat_styles) = curve_series(lines, kind);
    let first = lines.iter().flatten().next().expect("a line of some run").point;
    let workload = first.workload.as_ref().map_or_else(|| first.label.clone(), |w| w.label());
    // The phase and workload head the charts on the page: the titles stay
    // short enough to fit above the plot.
    let title_iops = format!("IOPS by queue depth ({})", kind.words());
    let title_lat = "latency by queue depth".to_string();
    let drawn: Vec<String> = PERCENTILES
        .iter()
        .enumerate()
        .filter(|(k, _)| has_percentile(lines, *k))
        .map(|(_, p)| format!("{} {}", p.name, p.drawn))
        .collect();
    let note = format!(
        "Each run's line in its colour; latency {}.{}",
        drawn.join(", "),
        lacking(lines, "such sweep in this phase")
    );
    CurveView {
        title: workload,
        note,
        iops_svg: Chart {
            title: &title_iops,
            x_label: "queue depth (outstanding I/Os)",
            y_label: &format!("IOPS ({})", kind_short(kind)),
            log2_x: true,
            series: iops,
            band: None,
            rules: Vec::new(),
        }
        .render_styled(&iops_styles),
        latency_svg: Chart {
            title: &title_lat,
            x_label: "queue depth (outstanding I/Os)",
            y_label: "latency (µs)",
            log2_x: true,
            series: lat,
            band: None,
            rules: Vec::new(),
        }
        .render_styled(&lat_styles),
    }
}

/// Each run's lines of a curve, with their styles: its IOPS of `kind` (a
/// line a run, in its colour) and its latency percentiles (a line a
/// percentile it has, in its colour, dashed as [`PERCENTILES`]). A value
/// at a QD that several of a run's steps measured is their median.
fn curve_series(
    lines: &[Vec<CurvePoint>],
    kind: ValueKind,
) -> (Vec<Series>, Vec<Style>, Vec<Series>, Vec<Style>) {
    let mut iops = Vec::new();
    let mut iops_styles = Vec::new();
    let mut lat = Vec::new();
    let mut lat_styles = Vec::new();
    for (r, line) in lines.iter().enumerate().filter(|(_, l)| !l.is_empty()) {
        let mut by_qd: BTreeMap<u32, Vec<&CurvePoint>> = BTreeMap::new();
        for c in line {
            by_qd.entry(c.qd).or_default().push(c);
        }
        let xy = |f: &dyn Fn(&CurvePoint) -> Option<f64>| -> Vec<(f64, f64)> {
            by_qd
                .iter()
                .filter_map(|(qd, cs)| Some((*qd as f64, median(cs.iter().filter_map(|c| f(c)).collect())?)))
                .collect()
        };
        iops.push(Series { name: letter(r), points: xy(&|c| c.point.iops_as(kind)) });
        iops_styles.push(style(r));
        for (k, pc) in PERCENTILES.iter().enumerate() {
            let points = xy(&|c| c.latency[k]);
            if !points.is_empty() {
                lat.push(Series { name: format!("{} {}", letter(r), pc.name), points });
                lat_styles.push(Style { color: color(r), dash: pc.dash });
            }
        }
    }
    (iops, iops_styles, lat, lat_styles)
}

fn distinct_qds(line: &[CurvePoint]) -> usize {
    let mut qds: Vec<u32> = line.iter().map(|c| c.qd).collect();
    qds.sort();
    qds.dedup();
    qds.len()
}

fn has_percentile(lines: &[Vec<CurvePoint>], k: usize) -> bool {
    lines.iter().flatten().any(|c| c.latency[k].is_some())
}

/// `4KiB random`, `128KiB sequential`, `4KiB/64KiB 50% random`: what a
/// map's I/Os are, but their read share.
fn map_kind(p: &Point) -> Option<String> {
    let w = p.workload.as_ref()?;
    let blocks: Vec<String> = w.blocks.iter().map(|b| format!("{}", b.size)).collect();
    let access = match w.random.as_f64() {
        r if r >= 100.0 => "random".to_string(),
        r if r <= 0.0 => "sequential".to_string(),
        _ => format!("{} random", w.random),
    };
    Some(format!("{} {access}", blocks.join("/")))
}

/// Read share x QD maps where a phase measured one kind of I/O at two or
/// more read shares and two or more queue depths (in all runs together):
/// one map a run, side by side, shaded against the largest value of any.
fn maps(runs: &[Loaded], all: &[Vec<Point>]) -> Vec<(String, MapGroup)> {
    let each: Vec<Vec<((String, String), &Point)>> = all
        .iter()
        .map(|pts| {
            pts.iter()
                .filter(|p| {
                    matches!(p.kind.as_str(), "measure" | "rounds") && p.error.is_none() && p.qd.is_some()
                })
                .filter_map(|p| Some(((phase_of(p.phase.as_deref()), map_kind(p)?), p)))
                .collect()
        })
        .collect();
    let baseline = runs[0].manifest.plan.conventions.value;
    let units = runs[0].manifest.plan.conventions.units;
    let read_key = |p: &Point| p.workload.as_ref().map(|w| (w.read.as_f64() * 100.0) as u32);
    by_key(each)
        .into_iter()
        .filter_map(|((phase, kind_words), maps)| {
            let mut reads: Vec<(u32, String)> = maps
                .iter()
                .flatten()
                .filter_map(|p| Some((read_key(p)?, p.workload.as_ref()?.read.to_string())))
                .collect();
            reads.sort();
            reads.dedup_by_key(|r| r.0);
            let mut qds: Vec<u32> = maps.iter().flatten().filter_map(|p| p.qd.map(|q| q.total)).collect();
            qds.sort();
            qds.dedup();
            if reads.len() < 2 || qds.len() < 2 {
                return None;
            }
            let kind = if maps.iter().flatten().all(|p| p.iops_as(baseline).is_some()) {
                baseline
            } else {
                ValueKind::StepAverage
            };
            let max = maps.iter().flatten().filter_map(|p| p.iops_as(kind)).fold(0.0f64, f64::max);
            let run_maps = maps
                .iter()
                .enumerate()
                .map(|(r, points)| RunMap {
                    run: letter(r),
                    color: color(r),
                    rows: if points.is_empty() {
                        Vec::new()
                    } else {
                        reads
                            .iter()
                            .rev()
                            .map(|(key, label)| MapRow {
                                read: label.clone(),
                                cells: qds
                                    .iter()
                                    .map(|qd| {
                                        let v = median(
                                            points
                                                .iter()
                                                .filter(|p| {
                                                    p.qd.is_some_and(|q| q.total == *qd)
                                                        && read_key(p) == Some(*key)
                                                })
                                                .filter_map(|p| p.iops_as(kind))
                                                .collect(),
                                        );
                                        MapCell {
                                            value: v.map_or("-".into(), |v| format!("{v:.0}")),
                                            shade: v.map_or("0".into(), |v| shade(v, max)),
                                        }
                                    })
                                    .collect(),
                            })
                            .collect()
                    },
                })
                .collect();
            let units = format!(
                "IOPS ({}) at each read share (rows) and queue depth (columns), one map a run, shaded on one \
                 scale: the darkest cell is the largest value of any run. Rates elsewhere in {}.{}",
                kind.words(),
                rate_unit(units),
                lacking(&maps, "such measurements")
            );
            Some((
                phase.clone(),
                MapGroup { title: format!("{phase}: {kind_words}"), units, qds, maps: run_maps },
            ))
        })
        .collect()
}

/// A step's key across runs: its phase, what it did, and which such step
/// of the phase it is.
type StepKey = (String, Vec<IoKey>, usize);

/// Each step of a run that `keep` takes, keyed to be matched across runs.
fn steps_keyed(run: &Loaded, keep: impl Fn(&Action, &StepResult) -> bool) -> Vec<(StepKey, &StepResult)> {
    let mut seen: BTreeMap<(String, Vec<IoKey>), usize> = BTreeMap::new();
    run.steps
        .iter()
        .filter_map(|r| {
            let step = run.plan_step(r)?;
            if !keep(&step.action, r) {
                return None;
            }
            let at = (phase_of(r.phase.as_deref()), IoKey::of_step(step));
            let n = seen.entry(at.clone()).or_default();
            *n += 1;
            Some(((at.0, at.1, *n), r))
        })
        .collect()
}

/// Steady-state rounds: each step that tracked a steady-state rule, every
/// run's value each round on one chart.
fn rounds(runs: &[Loaded]) -> Vec<(String, PlotView)> {
    let each = runs.iter().map(|run| steps_keyed(run, |_, r| r.steady.is_some())).collect();
    let units = runs[0].manifest.plan.conventions.units;
    by_key(each)
        .into_iter()
        .map(|((phase, _, _), found)| {
            let first = found.iter().flatten().next().expect("a step of some run");
            let steady = first.steady.as_ref().expect("kept for its steady state");
            let metric = metric_words(steady.metric, units);
            let mut series = Vec::new();
            let mut styles = Vec::new();
            let mut notes = Vec::new();
            for (r, steps) in found.iter().enumerate() {
                let Some(st) = steps.first().and_then(|s| s.steady.as_ref()) else { continue };
                series.push(Series {
                    name: letter(r),
                    points: st.values.iter().enumerate().map(|(i, v)| ((i + 1) as f64, *v)).collect(),
                });
                styles.push(style(r));
                let mut note = if st.reached {
                    format!("{} steady at round {}", letter(r), st.rounds)
                } else {
                    format!("{} not steady in {} rounds", letter(r), st.rounds)
                };
                if st.metric != steady.metric {
                    note.push_str(&format!(" (tracking {})", metric_words(st.metric, units)));
                }
                notes.push(note);
            }
            let title = format!("{}: {metric} each round", first.id);
            let svg = Chart {
                title: &title,
                x_label: "round",
                y_label: &metric,
                log2_x: false,
                series,
                band: None,
                rules: Vec::new(),
            }
            .render_styled(&styles);
            let note = format!("{}.{}", notes.join("; "), lacking(&found, "such step"));
            (phase, PlotView { title: first.id.clone(), note, svg })
        })
        .collect()
}

/// `IOPS`, `MiB/s`, `mean latency (µs)`: what a steady-state rule tracks.
fn metric_words(metric: Metric, units: Units) -> String {
    match metric {
        Metric::Iops => "IOPS".to_string(),
        Metric::Bandwidth => rate_unit(units).to_string(),
        Metric::Latency => "mean latency (µs)".to_string(),
    }
}

/// Fills, preconditions and sustained writes: every run's series over
/// time on one chart (a rate for fills and sustained writes, IOPS for
/// preconditions), in the first run's units; a run whose series could not
/// be read (`files`, a run's each) is named under the chart with why.
fn series(runs: &[Loaded], files: &[StepFiles]) -> Vec<(String, PlotView)> {
    let each = runs
        .iter()
        .map(|run| {
            steps_keyed(run, |a, r| {
                r.series.is_some()
                    && (sustained(a) || matches!(a, Action::Fill { .. } | Action::Precondition { .. }))
            })
        })
        .collect();
    let units = runs[0].manifest.plan.conventions.units;
    by_key(each)
        .into_iter()
        .filter_map(|((phase, _, _), found)| {
            let (r0, first) = found.iter().enumerate().find_map(|(r, s)| Some((r, *s.first()?)))?;
            let action = &runs[r0].plan_step(first)?.action;
            let (column, y_label) = if matches!(action, Action::Precondition { .. }) {
                ("iops", "IOPS".to_string())
            } else {
                (if units == Units::Binary { "mib_s" } else { "mb_s" }, rate_unit(units).to_string())
            };
            let mut series = Vec::new();
            let mut styles = Vec::new();
            let mut notes = Vec::new();
            // A run whose series could not be read is said under the
            // chart, which is kept (without a line) even when no run's
            // could be.
            let mut unreadable = false;
            for (r, steps) in found.iter().enumerate() {
                let Some(step) = steps.first() else { continue };
                let rows = match files.get(r).map(|f| f.series(step)) {
                    Some(Ok(rows)) => rows,
                    Some(Err(u)) => {
                        notes.push(format!(
                            "{}'s series, {} could not be read ({})",
                            letter(r),
                            u.path.display(),
                            u.error
                        ));
                        unreadable = true;
                        continue;
                    }
                    None => &[][..],
                };
                let points: Vec<(f64, f64)> =
                    rows.iter().filter_map(|row| Some((row.t, row.column(column)?))).collect();
                if points.is_empty() {
                    notes.push(format!("{} kept no series", letter(r)));
                    continue;
                }
                if let Some(c) = &step.cliff {
                    notes.push(format!("{}: {}", letter(r), c.finding(rows, step.throttle_events())));
                }
                series.push(Series { name: letter(r), points });
                styles.push(style(r));
            }
            if series.is_empty() && !unreadable {
                return None;
            }
            let describe = runs[r0].plan_step(first).map_or(String::new(), |s| s.describe());
            let title = format!("{}: {y_label} each interval", first.id);
            let svg = if series.is_empty() {
                String::new()
            } else {
                Chart {
                    title: &title,
                    x_label: "time (s)",
                    y_label: &y_label,
                    log2_x: false,
                    series,
                    band: None,
                    rules: Vec::new(),
                }
                .render_styled(&styles)
            };
            let mut note = format!("{describe}.");
            if !notes.is_empty() {
                note.push_str(&format!(" {}.", notes.join("; ")));
            }
            note.push_str(&lacking(&found, "such step"));
            Some((phase, PlotView { title: first.id.clone(), note, svg }))
        })
        .collect()
}

/// Each measurement's latency distribution in every run, on one chart a
/// step, a line a run in its colour (`crate::view::report::latency`):
/// the share of its I/Os that took at least each latency, from the median
/// to the slowest, its p99.99 in the legend where it had 10,000 I/Os.
fn distributions(runs: &[Loaded], files: &[StepFiles]) -> Vec<(String, PlotView)> {
    latency_lines(runs, files)
        .into_iter()
        .map(|l| {
            let title = format!("{}: latency distribution", l.id);
            let (styles, series): (Vec<_>, Vec<_>) = l.lines.into_iter().map(|(r, s)| (style(r), s)).unzip();
            let svg = if series.is_empty() {
                String::new()
            } else {
                Exceedance { title: &title, series, styles }.render()
            };
            let mut note = "The share of the step's I/Os that took at least each latency, from the median to the \
                            slowest I/O, a line a run; where a line crosses 0.01% is its p99.99 (in the legend \
                            where the step had 10,000 I/Os)."
                .to_string();
            if !l.notes.is_empty() {
                note.push_str(&format!(" {}.", l.notes.join("; ")));
            }
            note.push_str(&l.lacking);
            (l.phase, PlotView { title: l.id, note, svg })
        })
        .collect()
}

/// A paired measurement's latency distributions before they are drawn:
/// its phase and step id (the first run's), a line a run that has one
/// (the run's place, from 0, and its line), why the others have none,
/// and which runs lack the step.
pub(crate) struct LatencyLines {
    pub phase: String,
    pub id: String,
    pub lines: Vec<(usize, Series)>,
    pub notes: Vec<String>,
    pub lacking: String,
}

/// Each paired measurement's latency distribution in every run: what the
/// page and the workbook draw.
pub(crate) fn latency_lines(runs: &[Loaded], files: &[StepFiles]) -> Vec<LatencyLines> {
    let each = runs
        .iter()
        .map(|run| steps_keyed(run, |a, r| matches!(a, Action::Measure { .. }) && r.latency_log.is_some()))
        .collect();
    by_key(each)
        .into_iter()
        .filter_map(|((phase, _, _), found)| {
            let first = found.iter().flatten().next()?;
            let mut lines = Vec::new();
            let mut notes = Vec::new();
            for (r, steps) in found.iter().enumerate() {
                let Some(step) = steps.first() else { continue };
                match files.get(r).map(|f| f.latencies(step)) {
                    Some(Ok(Some(l))) => match crate::view::report::latency::line(&letter(r), l, None) {
                        Ok(line) => lines.push((r, line)),
                        Err(why) => notes.push(why),
                    },
                    Some(Err(u)) => notes.push(format!(
                        "{}'s latency log, {} could not be read ({})",
                        letter(r),
                        u.path.display(),
                        u.error
                    )),
                    Some(Ok(None)) | None => {}
                }
            }
            if lines.is_empty() && notes.is_empty() {
                return None;
            }
            let id = first.id.clone();
            Some(LatencyLines { phase, id, lines, notes, lacking: lacking(&found, "such step") })
        })
        .collect()
}

/// A measurement that writes until it has written so much.
fn sustained(a: &Action) -> bool {
    matches!(a, Action::Measure { stop, .. } if stop.written.is_some())
}

/// `15234`, `0.85`: a value as the table prints it.
fn value_text(v: f64) -> String {
    if v >= 100.0 { format!("{v:.0}") } else { format!("{v:.2}") }
}

/// A bar chart for each paired step: a bar a run, with its value above it
/// and its ratio to the first run's under it.
fn bars(c: &Comparison) -> Vec<BarView> {
    c.pairs
        .iter()
        .map(|p| {
            let bars = p
                .values
                .iter()
                .enumerate()
                .map(|(r, v)| {
                    let text = match (v.value, &v.error) {
                        (_, Some(_)) => "failed".to_string(),
                        (Some(x), None) => value_text(x),
                        (None, None) => "-".to_string(),
                    };
                    let note = if r == 0 {
                        "baseline".to_string()
                    } else {
                        p.ratios[r - 1].map_or("no ratio".into(), |x| format!("{x:.2}x"))
                    };
                    Bar {
                        label: letter(r),
                        value: v.value,
                        value_text: text,
                        note,
                        color: color(r),
                        faded: v.error.is_some(),
                        spread: None,
                    }
                })
                .collect();
            let y_label = format!("{} ({})", p.values[0].unit, kind_short(p.value_kind));
            BarView {
                label: p.label.clone(),
                svg: Bars { title: &p.label, y_label: &y_label, bars }.render(),
            }
        })
        .collect()
}

/// A ranking where some run's step was repeated: its runs as bars, in
/// ranked order, each at its aggregate with ± one standard deviation of
/// its runs as an error bar, its ratio to A under it; none where no step
/// was repeated (the table says it all).
pub(crate) fn ranking_bars(c: &Comparison, r: &super::rank::Ranking) -> Option<String> {
    if r.ranked.iter().all(|e| e.sd.is_none()) {
        return None;
    }
    let bars = r
        .ranked
        .iter()
        .map(|e| Bar {
            label: e.run.clone(),
            value: e.value,
            value_text: e.value_text(),
            note: e.ratio.map_or("no ratio".into(), |x| format!("{x:.2}x")),
            color: color(c.runs.iter().position(|x| x.name == e.run).unwrap_or(0)),
            faded: false,
            spread: e.sd,
        })
        .collect();
    let y_label = format!("{} ({})", r.unit, r.value_kind);
    Some(Bars { title: &r.label, y_label: &y_label, bars }.render())
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use methodic_compiler::plan::{Percent, Qd, Workload};

    use super::*;
    use crate::view::compare::comparison;
    use crate::view::testing::run;

    /// The test run's first step's workload (4KiB random reads) and queue
    /// depth (32), to vary.
    fn measured() -> (Workload, Qd) {
        let r = run(false);
        let Action::Measure { workload, qd, .. } = &r.manifest.plan.steps[0].action else {
            panic!("the test run starts with a measurement")
        };
        (workload.clone(), *qd)
    }

    fn at_qd(qd: Qd, total: u32) -> Qd {
        Qd { total, per_worker: total, ..qd }
    }

    #[test]
    fn directories_are_named_by_the_fewest_last_components_that_tell_them_apart() {
        let dirs = [Path::new("/t/a/results"), Path::new("/t/b/results"), Path::new("/t/c/other")];
        assert_eq!(short_dirs(&dirs), ["a/results", "b/results", "other"]);
        let same = [Path::new("x/r"), Path::new("x/r")];
        assert_eq!(short_dirs(&same), ["r", "r"], "one directory twice is itself twice");
    }

    #[test]
    fn a_run_is_named_by_its_drive_else_by_its_target_and_host() {
        let mut r = run(false);
        r.manifest.targets[0].identity.model = None;
        r.manifest.host.hostname = Some("bench".into());
        let file = r.manifest.targets[0].path.file_name().unwrap().to_string_lossy().into_owned();
        assert_eq!(run_name(&r), format!("{} {file} on host bench", r.manifest.targets[0].kind.words()));
        r.manifest.targets[0].identity.model = Some("Samsung SSD 990 PRO 2TB ".into());
        r.manifest.targets[0].identity.firmware = Some("4B2QJXD7".into());
        let mut second = r.manifest.targets[0].clone();
        second.path = PathBuf::from("/dev/nvme1n1");
        r.manifest.targets.push(second);
        assert_eq!(run_name(&r), "2 x Samsung SSD 990 PRO 2TB, firmware 4B2QJXD7");
    }

    #[test]
    fn keys_keep_the_first_runs_order_and_each_runs_items() {
        let grouped = by_key(vec![vec![("x", 1), ("y", 2)], vec![("z", 3), ("x", 4), ("x", 5)]]);
        let keys: Vec<&str> = grouped.iter().map(|(k, _)| *k).collect();
        assert_eq!(keys, ["x", "y", "z"]);
        assert_eq!(grouped[0].1, [vec![1], vec![4, 5]]);
        assert_eq!(grouped[2].1, [vec![], vec![3]]);
        assert_eq!(lacking(&grouped[1].1, "such step"), " B has no such step.");
        assert_eq!(median(vec![4.0, 1.0, 2.0, f64::NAN]), Some(2.0));
        assert_eq!(median(vec![1.0, 2.0]), Some(1.5));
    }

    /// Two runs of one sweep, the second twice as fast: one chart, both
    /// lines, on axes that reach the faster run's top.
    #[test]
    fn curves_of_every_run_share_one_chart_and_its_axes() {
        let (w, q) = measured();
        let at = |qd: u32, iops: f64, step: usize| Point {
            step,
            id: format!("measure/rnd-qd{qd}"),
            phase: Some("measure".into()),
            workload: Some(w.clone()),
            qd: Some(at_qd(q, qd)),
            sweep: Some(1),
            iops: Some(iops),
            average_iops: Some(iops),
            mean_latency_us: Some(1e6 / iops),
            p99_latency_us: Some(2e6 / iops),
            ..crate::view::points::sample()
        };
        let slow = vec![at(1, 1000.0, 1), at(4, 3000.0, 2)];
        let fast = vec![at(1, 2000.0, 1), at(4, 9000.0, 2)];
        let runs = [run(false), run(false)];
        let views = curves(&runs, &[slow, fast]);
        assert_eq!(views.len(), 1, "one sweep, one chart pair");
        let (phase, v) = &views[0];
        assert_eq!(phase, "measure");
        assert_eq!(v.iops_svg.matches("<path ").count(), 2, "a line a run");
        assert!(v.iops_svg.contains(&format!("stroke=\"{}\"", color(0))));
        assert!(v.iops_svg.contains(&format!("stroke=\"{}\"", color(1))));
        assert!(v.iops_svg.contains(">10k<"), "the y axis reaches the faster run's 9000: {}", v.iops_svg);
        // Mean and p99 for each run: p99 dashed.
        assert_eq!(v.latency_svg.matches("<path ").count(), 4);
        assert_eq!(v.latency_svg.matches("stroke-width=\"2\" stroke-dasharray=\"6 4\"").count(), 2);
        assert!(!v.note.contains("has no"), "both runs have the sweep: {}", v.note);
        // A run without the sweep is named under the chart.
        let views = curves(&runs, &[vec![at(1, 1000.0, 1), at(4, 3000.0, 2)], Vec::new()]);
        assert!(views[0].1.note.ends_with(" B has no such sweep in this phase."), "{}", views[0].1.note);
    }

    /// The same IOPS in two runs gets the same shade: the scale is every
    /// run's largest value, not each map's own.
    #[test]
    fn maps_of_every_run_share_one_colour_scale() {
        let (w, q) = measured();
        let cell = |read: u32, qd: u32, iops: f64| Point {
            phase: Some("mixes".into()),
            workload: Some(Workload { read: Percent::from_hundredths(read * 100), ..w.clone() }),
            qd: Some(at_qd(q, qd)),
            iops: Some(iops),
            average_iops: Some(iops),
            ..crate::view::points::sample()
        };
        let a = vec![cell(0, 1, 100.0), cell(100, 1, 200.0), cell(0, 4, 300.0), cell(100, 4, 400.0)];
        let b = vec![cell(0, 1, 400.0), cell(100, 1, 800.0), cell(0, 4, 800.0), cell(100, 4, 800.0)];
        let runs = [run(false), run(false), run(false)];
        let groups = maps(&runs, &[a, b, Vec::new()]);
        assert_eq!(groups.len(), 1);
        let g = &groups[0].1;
        assert_eq!(g.qds, [1, 4]);
        let find = |r: usize, read: &str, col: usize| {
            let row = g.maps[r].rows.iter().find(|row| row.read == read).unwrap();
            (row.cells[col].value.clone(), row.cells[col].shade.clone())
        };
        // 400 IOPS: A's largest, half of B's; the same shade in both.
        assert_eq!(find(0, "100%", 1), ("400".into(), shade(400.0, 800.0)));
        assert_eq!(find(1, "0%", 0), ("400".into(), shade(400.0, 800.0)));
        assert_eq!(find(1, "100%", 1).1, "0.58", "the largest of any run: the darkest");
        assert!(
            g.maps[2].rows.is_empty() && g.units.ends_with(" C has no such measurements."),
            "{}",
            g.units
        );
    }

    #[test]
    fn eight_runs_have_eight_colours_and_a_ninth_is_said_to_share_one() {
        let runs: Vec<Loaded> = (0..9).map(|_| run(false)).collect();
        let p = page(&comparison(&runs[..8]), &runs[..8]);
        let mut colours: Vec<&str> = p.legend.iter().map(|l| l.color).collect();
        colours.sort();
        colours.dedup();
        assert_eq!(colours.len(), 8);
        assert!(p.colors_note.is_none());
        let p = page(&comparison(&runs), &runs);
        assert_eq!(p.legend[8].color, p.legend[0].color);
        let note = p.colors_note.unwrap();
        assert!(note.starts_with("9 runs and 8 colours: from I on"), "{note}");
    }

    #[test]
    fn each_paired_step_has_a_bar_a_run_with_its_ratio() {
        let mut other = run(false);
        other.dir = "/nonexistent/methodic-other".into();
        other.steps[0].summary.as_mut().unwrap().total.iops = 2500.0;
        let runs = [run(false), other];
        let c = comparison(&runs);
        let p = page(&c, &runs);
        assert_eq!(p.bars.len(), c.pairs.len());
        let first = &p.bars[0];
        assert_eq!(first.svg.matches("<rect class=\"bar\"").count(), 2, "{}", first.svg);
        let ratio = c.pairs[0].ratios[0].unwrap();
        assert_ne!(ratio, 1.0);
        assert!(first.svg.contains(&format!(">{ratio:.2}x<")), "{}", first.svg);
        assert_eq!(p.legend.len(), 2);
        assert_eq!(p.legend[1].dir, "methodic-other");
        assert!(p.colors_note.is_none());
    }
}
