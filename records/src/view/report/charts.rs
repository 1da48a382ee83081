//! The HTML report's charts, as views the template draws: IOPS
//! and latency against queue depth for each phase's sweeps, each fill,
//! precondition and sustained write over time (the drive's temperature
//! under the throughput where the series has it), and each page probe's
//! latency by offset. Steady-state rounds (of rounds steps and of
//! preconditions until steady) are drawn in `super::pts`, matrices (read
//! share x queue depth among them) in `super::matrix`. The charts are
//! inline SVG (`crate::svg`). A chart whose file could not be read is
//! not drawn: its note names the file and says what is wrong with it.

use std::collections::BTreeMap;

use methodic_compiler::plan::{Action, Units};
use serde::Serialize;

use crate::manifest::Loaded;
use crate::step_files::{StepFiles, Unreadable};
use crate::svg::{Bar, Bars, Chart, Series};
use crate::view::points::{Point, kind_short, rate_unit, step_of};

#[derive(Serialize)]
pub struct SweepView {
    title: String,
    note: String,
    iops_svg: String,
    latency_svg: String,
}

/// A plot or a few on one subject: what the template draws under a title,
/// with a sentence saying what they show.
#[derive(Serialize)]
pub struct PlotView {
    pub(crate) title: String,
    pub(crate) note: String,
    pub(crate) svgs: Vec<String>,
}

impl PlotView {
    pub(crate) fn new(title: String, note: String, svgs: Vec<String>) -> PlotView {
        PlotView { title, note, svgs }
    }

    /// A plot that is not drawn because its file could not be read: its
    /// note, then which file and what is wrong with it.
    pub(crate) fn unreadable(title: String, note: &str, file: &Unreadable) -> PlotView {
        let no_chart = format!("No chart: {}", unreadable_words(file));
        let note = if note.is_empty() { no_chart } else { format!("{note} {no_chart}") };
        PlotView { title, note, svgs: Vec::new() }
    }
}

/// `series/fill.csv could not be read (line 4 is not a series row: ...)`:
/// a file that could not be read, in a sentence of a chart's note.
pub(crate) fn unreadable_words(file: &Unreadable) -> String {
    format!("{} could not be read ({}).", file.path.display(), file.error)
}

/// The lines of one phase's charts: (sweep, line) to its points.
type Lines<'a> = BTreeMap<(u32, usize), Vec<&'a Point>>;

/// Each phase's sweep lines, in plan order: a line for each sweep and
/// workload (a sweep over read shares gives a line a share), its points
/// by QD. What the page's sweep charts and the workbook's draw.
pub(crate) fn sweep_lines(pts: &[Point]) -> Vec<(String, Vec<Vec<&Point>>)> {
    let mut groups: BTreeMap<(usize, String), Lines> = BTreeMap::new();
    for p in pts.iter().filter(|p| p.kind == "measure" && p.error.is_none()) {
        let (Some(sweep), Some(_), Some(w)) = (p.sweep, p.qd, &p.workload) else { continue };
        let phase = p.phase.clone().unwrap_or_else(|| "steps".into());
        // Keep phases in plan order: key by the first step of the phase.
        let first = pts.iter().find(|q| q.phase == p.phase).map_or(0, |q| q.step);
        let lines = groups.entry((first, phase)).or_default();
        let same = |q: &&Point| q.workload.as_ref().is_some_and(|v| v.name == w.name && v.same_io(w));
        let line =
            lines.iter().find(|((s, _), l)| *s == sweep && l.first().is_some_and(same)).map(|(k, _)| *k);
        let key = line.unwrap_or((sweep, lines.len()));
        lines.entry(key).or_default().push(p);
    }
    groups
        .into_iter()
        .map(|((_, phase), lines)| {
            let lines = lines
                .into_values()
                .map(|mut points| {
                    points.sort_by_key(|p| p.qd.map_or(0, |q| q.total));
                    points
                })
                .collect();
            (phase, lines)
        })
        .collect()
}

/// IOPS and latency against QD for each phase's sweeps: one line a sweep.
pub fn sweeps(run: &Loaded, pts: &[Point]) -> Vec<SweepView> {
    let units = run.manifest.plan.conventions.units;
    let kind = run.manifest.plan.conventions.value;
    let iops_label = format!("IOPS ({})", kind_short(kind));
    sweep_lines(pts)
        .into_iter()
        .map(|(phase, sweeps)| {
            let mut iops = Vec::new();
            let mut lat = Vec::new();
            let mut names = Vec::new();
            let many = sweeps.len() > 6;
            for points in &sweeps {
                let name = points[0].workload.as_ref().map_or("?".into(), |w| w.name.clone());
                let xy = |f: &dyn Fn(&Point) -> Option<f64>| -> Vec<(f64, f64)> {
                    points.iter().filter_map(|p| Some((p.qd?.total as f64, f(p)?))).collect()
                };
                iops.push(Series { name: name.clone(), points: xy(&|p| p.iops) });
                lat.push(Series { name: format!("{name} mean"), points: xy(&|p| p.mean_latency_us) });
                // Many lines: the means alone keep the chart readable.
                if !many {
                    lat.push(Series { name: format!("{name} p99"), points: xy(&|p| p.p99_latency_us) });
                }
                let w = points[0].workload.as_ref().map_or(String::new(), |w| w.label());
                names.push(w);
            }
            let first = sweeps.first().and_then(|v| v.first()).and_then(|p| step_of(run, p));
            let qd_note = first.and_then(|s| s.checklist.queue_depth.as_ref()).map_or(String::new(), |q| {
                match q.counted {
                    methodic_compiler::plan::QdCounting::Total => {
                        "QD counts outstanding I/Os over all workers".into()
                    }
                    methodic_compiler::plan::QdCounting::PerWorker => {
                        "QD counts outstanding I/Os in each worker".to_string()
                    }
                }
            });
            let state = first
                .and_then(|s| s.checklist.drive_state.as_ref())
                .map_or(String::new(), |d| d.description.clone());
            let title_iops = format!("{phase}: IOPS by queue depth ({})", kind.words());
            let title_lat = format!("{phase}: latency by queue depth");
            SweepView {
                title: phase.clone(),
                note: format!(
                    "{}. {qd_note}. Drive state before the first sweep: {state}. Rates in {}.",
                    names.join("; "),
                    rate_unit(units)
                ),
                iops_svg: Chart {
                    title: &title_iops,
                    x_label: "queue depth (outstanding I/Os)",
                    y_label: &iops_label,
                    log2_x: true,
                    series: iops,
                    band: None,
                    rules: Vec::new(),
                }
                .render(),
                latency_svg: Chart {
                    title: &title_lat,
                    x_label: "queue depth (outstanding I/Os)",
                    y_label: "latency (µs)",
                    log2_x: true,
                    series: lat,
                    band: None,
                    rules: Vec::new(),
                }
                .render(),
            }
        })
        .collect()
}

/// What a step's series is drawn by over time, on the page and in the
/// workbook.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum OverTime {
    /// A fill's or a sustained write's rate.
    Rate,
    /// A precondition's IOPS.
    Iops,
}

/// How `action`'s series is drawn over time; `None` for a step whose
/// series is not drawn so (a measurement's is its point; rounds are drawn
/// by `super::pts`).
pub(crate) fn over_time(action: &Action) -> Option<OverTime> {
    match action {
        Action::Measure { stop, .. } if stop.written.is_some() => Some(OverTime::Rate),
        Action::Fill { .. } => Some(OverTime::Rate),
        Action::Precondition { .. } => Some(OverTime::Iops),
        Action::Measure { .. }
        | Action::Erase { .. }
        | Action::Together { .. }
        | Action::Qos(_)
        | Action::Rounds { .. }
        | Action::DropCaches
        | Action::Idle { .. }
        | Action::LimitRam { .. }
        | Action::Copy { .. }
        | Action::Probe(_) => None,
    }
}

/// Each repeated step (where its last run summed them up): each run's
/// value as a bar, then their mean with ± one standard deviation as an
/// error bar.
pub fn repeats(run: &Loaded) -> Vec<PlotView> {
    run.steps
        .iter()
        .filter_map(|r| {
            let rep = run.final_repeats(r)?;
            let n = rep.runs.len();
            let text = crate::units::figure;
            let mut bars: Vec<Bar> = rep
                .runs
                .iter()
                .enumerate()
                .map(|(k, v)| Bar {
                    label: (k + 1).to_string(),
                    value: Some(*v),
                    value_text: text(*v),
                    note: String::new(),
                    color: crate::svg::color(0),
                    faded: false,
                    spread: None,
                })
                .collect();
            bars.push(Bar {
                label: "mean".into(),
                value: Some(rep.mean),
                value_text: text(rep.mean),
                note: format!("± {}", text(rep.sd)),
                color: crate::svg::color(1),
                faded: false,
                spread: Some(rep.sd),
            });
            let title = format!("{}: {n} runs", r.id);
            let note = format!(
                "Each run's {unit} (its step average), then their mean, ± one standard deviation (the error bar): \
                 CV {:.1}%; the methodology reports their {} ({} {unit}).",
                rep.cv * 100.0,
                methodic_compiler::plan::aggregate_word(rep.aggregate),
                text(rep.value),
                unit = rep.unit,
            );
            let svg = Bars { title: &title, y_label: &rep.unit, bars }.render();
            Some(PlotView::new(title, note, vec![svg]))
        })
        .collect()
}

/// Each page probe's latency by offset, with its estimate.
pub fn probes(run: &Loaded, files: &StepFiles) -> Vec<PlotView> {
    run.steps
        .iter()
        .filter_map(|r| {
            let p = r.probe.as_ref()?;
            r.series.as_ref()?;
            let verdict = p.pages.as_ref().map_or("no estimate".into(), |e| e.verdict.clone());
            let note = format!(
                "{} offsets, {} of {} repeats each, made durable with {}. {verdict}.",
                p.offsets, "the statistic", p.repeats, p.durable
            );
            let rows = match files.probe(r) {
                Ok(rows) => rows,
                Err(u) => return Some(PlotView::unreadable(r.id.clone(), &note, u)),
            };
            let pts: Vec<(f64, f64)> =
                rows.iter().map(|row| (row.offset.0 as f64 / 1024.0, row.latency_us)).collect();
            let title = format!("{}: write latency by offset", r.id);
            let svg = Chart {
                title: &title,
                x_label: "offset (KiB)",
                y_label: "latency (µs)",
                log2_x: false,
                series: vec![Series { name: "latency".into(), points: pts }],
                band: None,
                rules: Vec::new(),
            }
            .render();
            Some(PlotView { title: r.id.clone(), note, svgs: vec![svg] })
        })
        .collect()
}

/// Each fill and precondition step: its per-second series and, for a
/// precondition until steady, the tracked value by round with the window
/// shaded. Rounds steps are drawn by `super::pts` (their convergence and
/// measurement window), not here. A series that could not be read gives
/// a plot with no chart, whose note says why.
pub fn preparation(run: &Loaded, files: &StepFiles) -> Vec<PlotView> {
    let units = run.manifest.plan.conventions.units;
    let mut out = Vec::new();
    for r in &run.steps {
        let Some(step) = run.plan_step(r) else { continue };
        let Some(drawn) = over_time(&step.action) else { continue };
        let mut svgs = Vec::new();
        let rows = match files.series(r) {
            Ok(rows) => rows,
            Err(u) => {
                out.push(PlotView::unreadable(r.id.clone(), &format!("{}.", step.describe()), u));
                continue;
            }
        };
        let (column, y_label) = match drawn {
            OverTime::Rate => {
                (if units == Units::Binary { "mib_s" } else { "mb_s" }, rate_unit(units).to_string())
            }
            OverTime::Iops => ("iops", "IOPS".to_string()),
        };
        let pts: Vec<(f64, f64)> = rows.iter().filter_map(|r| Some((r.t, r.column(column)?))).collect();
        // The cliff of a sustained write: the lower plateau shaded.
        let band = |label: bool| {
            r.cliff.as_ref().filter(|c| c.found).and_then(|c| {
                let end = pts.last()?.0;
                let words = if label {
                    format!("after the cliff: {:.0} MB/s", c.after_mb_s?)
                } else {
                    "after the cliff".into()
                };
                Some((c.at_seconds?, end, words))
            })
        };
        if !pts.is_empty() {
            let title = format!("{}: {y_label} each interval", r.id);
            svgs.push(
                Chart {
                    title: &title,
                    x_label: "time (s)",
                    y_label: &y_label,
                    log2_x: false,
                    series: vec![Series { name: y_label.clone(), points: pts.clone() }],
                    band: band(true),
                    rules: Vec::new(),
                }
                .render(),
            );
        }
        // The drive's temperature under it, on the same time axis, where
        // the series has it (NVMe targets).
        let temps: Vec<(f64, f64)> = rows.iter().filter_map(|r| Some((r.t, r.temperature_c?))).collect();
        if !temps.is_empty() {
            let title = format!("{}: drive temperature each interval", r.id);
            svgs.push(
                Chart {
                    title: &title,
                    x_label: "time (s)",
                    y_label: "temperature (°C)",
                    log2_x: false,
                    series: vec![Series { name: "temperature".into(), points: temps }],
                    band: band(false),
                    rules: Vec::new(),
                }
                .render(),
            );
        }
        let mut note = step.describe();
        if let Some(c) = &r.cliff {
            note.push_str(&format!(". {}.", c.finding(rows, r.throttle_events())));
        }
        // Its rounds are drawn by `super::pts::window`, with the rule's limits.
        if let Some(st) = &r.steady {
            note.push_str(&if st.reached {
                format!(". Steady state reached at round {}.", st.rounds)
            } else {
                format!(". Steady state not reached in {} rounds.", st.rounds)
            });
        }
        if !svgs.is_empty() {
            out.push(PlotView { title: r.id.clone(), note, svgs });
        }
    }
    out
}
