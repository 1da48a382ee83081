//! The HTML report's charts and maps, as views the template draws: IOPS
//! and latency against queue depth for each phase's sweeps, each fill,
//! precondition and rounds step over time (with the steady-state window
//! shaded, and the drive's temperature under the throughput where the
//! series has it), each page probe's latency by offset, and read share x queue
//! depth maps. The charts are inline SVG (`crate::svg`).

use std::collections::BTreeMap;
use std::path::Path;

use methodic_compiler::plan::{Action, Units};
use serde::Serialize;

use crate::manifest::Loaded;
use crate::svg::{Chart, Series};
use crate::view::points::{Point, kind_short, rate_unit, step_of};

#[derive(Serialize)]
pub struct SweepView {
    title: String,
    note: String,
    iops_svg: String,
    latency_svg: String,
}

#[derive(Serialize)]
pub struct PlotView {
    title: String,
    note: String,
    svgs: Vec<String>,
}

#[derive(Serialize)]
pub struct MapView {
    title: String,
    units: String,
    qds: Vec<u32>,
    rows: Vec<MapRow>,
}

#[derive(Serialize)]
pub struct MapRow {
    read: String,
    cells: Vec<MapCell>,
}

#[derive(Serialize)]
pub struct MapCell {
    value: String,
    shade: String,
}

/// The lines of one phase's charts: (sweep, line) to its points.
type Lines<'a> = BTreeMap<(u32, usize), Vec<&'a Point>>;

/// IOPS and latency against QD for each phase's sweeps: one line a sweep.
pub fn sweeps(run: &Loaded, pts: &[Point]) -> Vec<SweepView> {
    // A line for each sweep and workload (a sweep over read shares gives a
    // line a share), in plan order, its points by QD.
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
    for lines in groups.values_mut() {
        for points in lines.values_mut() {
            points.sort_by_key(|p| p.qd.map_or(0, |q| q.total));
        }
    }
    let units = run.manifest.plan.conventions.units;
    let kind = run.manifest.plan.conventions.value;
    let iops_label = format!("IOPS ({})", kind_short(kind));
    groups
        .into_iter()
        .map(|((_, phase), sweeps)| {
            let mut iops = Vec::new();
            let mut lat = Vec::new();
            let mut names = Vec::new();
            let many = sweeps.len() > 6;
            for points in sweeps.values() {
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
            let first = sweeps.values().next().and_then(|v| v.first()).and_then(|p| step_of(run, p));
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

/// Each page probe's latency by offset, with its estimate.
pub fn probes(run: &Loaded) -> Vec<PlotView> {
    run.steps
        .iter()
        .filter_map(|r| {
            let p = r.probe.as_ref()?;
            let path = run.dir.join(r.series.as_ref()?);
            let pts: Vec<(f64, f64)> = read_columns(&path, "offset_bytes", "latency_us")
                .into_iter()
                .map(|(x, y)| (x / 1024.0, y))
                .collect();
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
            let verdict = p.pages.as_ref().map_or("no estimate".into(), |e| e.verdict.clone());
            Some(PlotView {
                title: r.id.clone(),
                note: format!(
                    "{} offsets, {} of {} repeats each, made durable with {}. {verdict}.",
                    p.offsets, "the statistic", p.repeats, p.durable
                ),
                svgs: vec![svg],
            })
        })
        .collect()
}

/// Two columns of a CSV with a header (a probe's offsets and latencies):
/// `x` and `column`.
fn read_columns(path: &Path, x: &str, column: &str) -> Vec<(f64, f64)> {
    let Ok(text) = std::fs::read_to_string(path) else { return Vec::new() };
    let mut lines = text.lines();
    let Some(head) = lines.next() else { return Vec::new() };
    let cols: Vec<&str> = head.split(',').collect();
    let (Some(t), Some(c)) = (cols.iter().position(|c| *c == x), cols.iter().position(|c| *c == column))
    else {
        return Vec::new();
    };
    lines
        .filter_map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            Some((f.get(t)?.parse().ok()?, f.get(c)?.parse().ok()?))
        })
        .collect()
}

/// Each fill, precondition and rounds step: its per-second series and, for
/// the steady-state rule, the tracked value by round with the window shaded.
pub fn preparation(run: &Loaded) -> Vec<PlotView> {
    let units = run.manifest.plan.conventions.units;
    let mut out = Vec::new();
    for r in &run.steps {
        let Some(step) = run.plan_step(r) else { continue };
        let sustained = matches!(&step.action, Action::Measure { stop, .. } if stop.written.is_some());
        if !sustained
            && !matches!(
                step.action,
                Action::Fill { .. } | Action::Precondition { .. } | Action::Rounds { .. }
            )
        {
            continue;
        }
        let mut svgs = Vec::new();
        let rows = super::findings::step_series(run, r);
        if !matches!(step.action, Action::Rounds { .. }) {
            let (column, y_label) = if sustained || matches!(step.action, Action::Fill { .. }) {
                (if units == Units::Binary { "mib_s" } else { "mb_s" }, rate_unit(units).to_string())
            } else {
                ("iops", "IOPS".to_string())
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
        }
        let mut note = step.describe();
        if let Some(c) = &r.cliff {
            note.push_str(&format!(". {}.", c.finding(&rows, r.throttle_events())));
        }
        if let Some(st) = &r.steady {
            let metric = match st.metric {
                methodic_compiler::plan::Metric::Iops => "IOPS".to_string(),
                methodic_compiler::plan::Metric::Bandwidth => rate_unit(units).to_string(),
                methodic_compiler::plan::Metric::Latency => "mean latency (µs)".to_string(),
            };
            let band = st.window.as_ref().map(|w| {
                let label = if w.steady {
                    format!("steady-state window, rounds {}-{}", w.first, w.last)
                } else {
                    format!("last window checked, rounds {}-{} (not steady)", w.first, w.last)
                };
                (w.first as f64, w.last as f64, label)
            });
            let mut series = vec![Series {
                name: metric.clone(),
                points: st.values.iter().enumerate().map(|(i, v)| ((i + 1) as f64, *v)).collect(),
            }];
            if let Some(w) = st.window.as_ref() {
                series.push(Series {
                    name: "window average".into(),
                    points: vec![(w.first as f64, w.average), (w.last as f64, w.average)],
                });
            }
            let title = format!("{}: {metric} each round", r.id);
            svgs.push(
                Chart {
                    title: &title,
                    x_label: "round",
                    y_label: &metric,
                    log2_x: false,
                    series,
                    band,
                    rules: Vec::new(),
                }
                .render(),
            );
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

/// Read share x QD maps: where one phase measured the same block sizes at
/// two or more read shares and two or more queue depths.
pub fn maps(run: &Loaded, pts: &[Point]) -> Vec<MapView> {
    let units = run.manifest.plan.conventions.units;
    let mut groups: BTreeMap<(usize, String), Vec<&Point>> = BTreeMap::new();
    for p in pts.iter().filter(|p| matches!(p.kind.as_str(), "measure" | "rounds") && p.error.is_none()) {
        let (Some(w), Some(_)) = (&p.workload, p.qd) else { continue };
        let blocks: Vec<String> = w.blocks.iter().map(|b| format!("{}", b.size)).collect();
        let first = pts.iter().find(|q| q.phase == p.phase).map_or(0, |q| q.step);
        let key = format!(
            "{}: {} {}",
            p.phase.clone().unwrap_or_else(|| "steps".into()),
            blocks.join("/"),
            if w.random.as_f64() >= 100.0 { "random".to_string() } else { format!("{} random", w.random) }
        );
        groups.entry((first, key)).or_default().push(p);
    }
    let mut out = Vec::new();
    for ((_, title), points) in groups {
        let mut reads: Vec<(u32, String)> = points
            .iter()
            .filter_map(|p| {
                p.workload.as_ref().map(|w| ((w.read.as_f64() * 100.0) as u32, w.read.to_string()))
            })
            .collect();
        reads.sort();
        reads.dedup();
        let mut qds: Vec<u32> = points.iter().filter_map(|p| p.qd.map(|q| q.total)).collect();
        qds.sort();
        qds.dedup();
        if reads.len() < 2 || qds.len() < 2 {
            continue;
        }
        let max = points.iter().filter_map(|p| p.iops).fold(0.0f64, f64::max);
        let rows = reads
            .iter()
            .rev()
            .map(|(key, label)| MapRow {
                read: label.clone(),
                cells: qds
                    .iter()
                    .map(|qd| {
                        let v = points
                            .iter()
                            .rev()
                            .filter(|p| {
                                p.qd.is_some_and(|q| q.total == *qd)
                                    && p.workload
                                        .as_ref()
                                        .is_some_and(|w| (w.read.as_f64() * 100.0) as u32 == *key)
                            })
                            .find_map(|p| p.iops);
                        MapCell {
                            value: v.map_or("-".into(), |v| format!("{v:.0}")),
                            shade: v.map_or("0".into(), |v| {
                                format!("{:.2}", if max > 0.0 { 0.08 + 0.5 * v / max } else { 0.0 })
                            }),
                        }
                    })
                    .collect(),
            })
            .collect();
        out.push(MapView {
            title,
            units: format!(
                "IOPS ({}) at each read share (rows) and queue depth (columns); rates elsewhere in {}.",
                run.manifest.plan.conventions.value.words(),
                rate_unit(units)
            ),
            qds,
            rows,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn series_columns_are_found_by_name() {
        let p = std::env::temp_dir().join(format!("methodic-report-series-{}.csv", std::process::id()));
        std::fs::write(&p, "t_s,iops,mb_s\n1.0,100,0.4\n2.0,200,0.8\n").unwrap();
        assert_eq!(read_columns(&p, "t_s", "iops"), vec![(1.0, 100.0), (2.0, 200.0)]);
        assert_eq!(read_columns(&p, "t_s", "nope"), vec![]);
        std::fs::remove_file(&p).unwrap();
    }
}
