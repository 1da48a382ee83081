//! The matrices a SNIA PTS report and a review print, recognised from the
//! plan (never from the methodology's name): the cells of `rounds` steps
//! (their steady-state window averages) as a matrix of what their
//! workloads vary in (read/write mix down, block size across, as the PTS
//! "measurement window tabular data"; threads down and queue depth across
//! for a thread x queue-depth matrix), one for the metric the steady-state
//! rule tracks (IOPS, throughput, or average and maximum response time);
//! and each phase's queue-depth sweeps, a line a row and a queue depth a
//! column. Cells that did the same I/O in several rounds steps (one block
//! size a phase, as the PTS throughput test runs) join one matrix. Each
//! matrix says the drive state once, and rounds matrices come with a
//! grouped bar chart (`crate::svg::GroupedBars`).

use methodic_compiler::plan::{Action, Metric, Percent, Units};
use serde::Serialize;

use crate::manifest::Loaded;
use crate::units::thousands;
use crate::view::points::{Point, rate_unit, step_of};

/// One matrix: what the template and the terminal draw.
#[derive(Debug, Serialize)]
pub struct Matrix {
    /// `IOPS: steady-state window averages, 4 threads x QD 32`.
    pub title: String,
    /// What the rows and columns are, the unit, and the drive state, once.
    pub note: String,
    /// The head of the label column: `R/W mix (% read/% write)`.
    pub corner: String,
    /// The column heads: `1MiB`, `128KiB`, ... or `QD 1`, `QD 2`, ...
    pub columns: Vec<String>,
    pub rows: Vec<MatrixRow>,
    /// The unit of every cell: `IOPS`, `MiB/s`, `µs`.
    pub unit: String,
    /// The same values as a grouped bar chart (rounds matrices).
    pub svg: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct MatrixRow {
    pub label: String,
    pub cells: Vec<MatrixCell>,
}

#[derive(Debug, Serialize)]
pub struct MatrixCell {
    /// The value with thousands separated, or `-`.
    pub text: String,
    /// Its value, for a reader that wants the number.
    pub value: Option<f64>,
    /// How dark to shade it: 0 to 0.58, its share of the matrix's largest.
    pub shade: String,
}

/// Every matrix of the run: the rounds steps' first, then each phase's sweeps.
pub fn matrices(run: &Loaded, pts: &[Point]) -> Vec<Matrix> {
    let mut out = rounds_matrices(run, pts);
    out.extend(sweep_matrices(run, pts));
    out
}

/// What a cell's workload is along the matrix's axes.
#[derive(Clone, PartialEq)]
struct Axes {
    read: Percent,
    workers: u32,
    block: String,
    per_worker: u32,
}

/// The values a rounds matrix can show.
#[derive(Clone, Copy, PartialEq)]
enum Value {
    Iops,
    Rate,
    MeanLatency,
    MaxLatency,
}

impl Value {
    fn of(self, p: &Point, units: Units) -> Option<f64> {
        match self {
            Value::Iops => p.iops,
            Value::Rate => Some(p.rate(units)).filter(|v| v.is_finite()),
            Value::MeanLatency => p.mean_latency_us,
            Value::MaxLatency => p.max_latency_us,
        }
    }

    fn decimals(self) -> usize {
        match self {
            Value::Iops => 0,
            _ => 1,
        }
    }
}

/// A rounds cell with what its step's rule tracks.
struct Cell<'a> {
    point: &'a Point,
    axes: Axes,
    /// What the workload does apart from the matrix's axes: `random`,
    /// `sequential`, `70% random`, with its access distribution.
    rest: String,
    metric: Metric,
}

fn cell<'a>(run: &Loaded, p: &'a Point) -> Option<Cell<'a>> {
    let (w, qd) = (p.workload.as_ref()?, p.qd?);
    let step = run.manifest.plan.steps.get(p.step.checked_sub(1)?)?;
    let Action::Rounds { rule, .. } = &step.action else { return None };
    // A block-size split has no one size: its label is the split.
    let block = match w.blocks.as_slice() {
        [one] => one.size.to_string(),
        many => many.iter().map(|b| format!("{} {}", b.size, b.share)).collect::<Vec<_>>().join(" "),
    };
    let rest = w.pattern();
    Some(Cell {
        point: p,
        axes: Axes { read: w.read, workers: qd.workers, block, per_worker: qd.per_worker },
        rest,
        metric: rule.metric,
    })
}

/// `100/0`: a read share as the PTS writes a mix, read then write.
fn mix(read: Percent) -> String {
    let r = read.as_f64();
    let fmt = |v: f64| if v.fract() == 0.0 { format!("{v:.0}") } else { format!("{v}") };
    format!("{}/{}", fmt(r), fmt(100.0 - r))
}

/// The distinct values, in the order they first come.
fn distinct<T: PartialEq>(values: impl IntoIterator<Item = T>) -> Vec<T> {
    let mut out: Vec<T> = Vec::new();
    for v in values {
        if !out.contains(&v) {
            out.push(v);
        }
    }
    out
}

/// The rounds cells as matrices: the cells grouped by what they do apart
/// from the matrices' axes and by the metric their rule tracks, and each
/// group of two cells or more laid out as one matrix a value.
fn rounds_matrices(run: &Loaded, pts: &[Point]) -> Vec<Matrix> {
    let cells: Vec<Cell> =
        pts.iter().filter(|p| p.kind == "rounds" && p.error.is_none()).filter_map(|p| cell(run, p)).collect();
    // Groups: what the cells do apart from the axes, and the metric tracked.
    let mut groups: Vec<(String, Metric, Vec<&Cell>)> = Vec::new();
    for c in &cells {
        match groups.iter_mut().find(|(rest, metric, _)| *rest == c.rest && *metric == c.metric) {
            Some(g) => g.2.push(c),
            None => groups.push((c.rest.clone(), c.metric, vec![c])),
        }
    }
    groups
        .into_iter()
        .filter(|(_, _, group)| group.len() >= 2)
        .flat_map(|(rest, metric, group)| group_matrices(run, &rest, metric, &group))
        .collect()
}

/// The matrices of one group of rounds cells: one for each value the
/// metric its rule tracks is shown by (IOPS; throughput; the average and
/// the maximum response time).
fn group_matrices(run: &Loaded, rest: &str, metric: Metric, group: &[&Cell]) -> Vec<Matrix> {
    let units = run.manifest.plan.conventions.units;
    let layout = Layout::of(rest, group);
    let values: &[(Value, &str, String)] = &match metric {
        Metric::Iops => vec![(Value::Iops, "IOPS", "IOPS".to_string())],
        Metric::Bandwidth => vec![(Value::Rate, "throughput", rate_unit(units).to_string())],
        Metric::Latency => vec![
            (Value::MeanLatency, "average response time", "µs".to_string()),
            (Value::MaxLatency, "maximum response time", "µs".to_string()),
        ],
    };
    let points: Vec<&Point> = group.iter().map(|c| c.point).collect();
    let state = states(run, &points);
    values
        .iter()
        .map(|(value, what, unit)| {
            let grid: Vec<Vec<Option<f64>>> = layout
                .rows
                .iter()
                .map(|r| {
                    layout
                        .columns
                        .iter()
                        .map(|col| {
                            group
                                .iter()
                                .rev()
                                .find(|c| layout.row(&c.axes) == *r && layout.column(&c.axes) == *col)
                                .and_then(|c| value.of(c.point, units))
                        })
                        .collect()
                })
                .collect();
            layout.matrix((what, unit), value.decimals(), &grid, &state)
        })
        .collect()
}

/// How a group of rounds cells is laid out: rows by read/write mix, else
/// (or also) by threads; columns by block size, else (or also) by queue
/// depth a thread; the labels of each, and what every cell shares.
struct Layout {
    by_mix: bool,
    by_threads: bool,
    by_block: bool,
    by_depth: bool,
    rows: Vec<String>,
    columns: Vec<String>,
    /// What every cell shares: `random, 4 threads, QD 32 a thread`.
    fixed: String,
}

impl Layout {
    /// The layout of `group`, whose cells all do `rest` apart from the axes.
    fn of(rest: &str, group: &[&Cell]) -> Layout {
        let reads = distinct(group.iter().map(|c| c.axes.read));
        let workers = distinct(group.iter().map(|c| c.axes.workers));
        let blocks = distinct(group.iter().map(|c| c.axes.block.clone()));
        let depths = distinct(group.iter().map(|c| c.axes.per_worker));
        let mut layout = Layout {
            by_mix: reads.len() > 1 || workers.len() == 1,
            by_threads: workers.len() > 1,
            by_block: blocks.len() > 1 || depths.len() == 1,
            by_depth: depths.len() > 1,
            rows: Vec::new(),
            columns: Vec::new(),
            fixed: String::new(),
        };
        layout.rows = distinct(group.iter().map(|c| layout.row(&c.axes)));
        layout.columns = distinct(group.iter().map(|c| layout.column(&c.axes)));
        let mut fixed = vec![rest.to_string()];
        if workers.len() == 1 {
            fixed.push(format!("{} thread{}", workers[0], if workers[0] == 1 { "" } else { "s" }));
        }
        if depths.len() == 1 {
            fixed.push(format!("QD {} a thread", depths[0]));
        }
        if blocks.len() == 1 && !layout.columns.contains(&blocks[0]) {
            fixed.push(blocks[0].clone());
        }
        layout.fixed = fixed.join(", ");
        layout
    }

    /// A cell's row label: `70/30`, `T4`, `70/30 T4`.
    fn row(&self, a: &Axes) -> String {
        let mut parts = Vec::new();
        if self.by_mix {
            parts.push(mix(a.read));
        }
        if self.by_threads {
            parts.push(format!("T{}", a.workers));
        }
        parts.join(" ")
    }

    /// A cell's column label: `4KiB`, `Q32`, `4KiB Q32`.
    fn column(&self, a: &Axes) -> String {
        let mut parts = Vec::new();
        if self.by_block {
            parts.push(a.block.clone());
        }
        if self.by_depth {
            parts.push(format!("Q{}", a.per_worker));
        }
        parts.join(" ")
    }

    /// What the rows are.
    fn corner(&self) -> &'static str {
        match (self.by_mix, self.by_threads) {
            (true, true) => "R/W mix (% read/% write), threads",
            (false, true) => "threads",
            _ => "R/W mix (% read/% write)",
        }
    }

    /// What the columns are.
    fn across(&self) -> &'static str {
        match (self.by_block, self.by_depth) {
            (true, true) => "block size and queue depth a thread",
            (false, true) => "queue depth a thread",
            _ => "block size",
        }
    }

    /// The matrix of one value (`what`, in `unit`) of the cells, `grid` a
    /// row of values a row label, with its grouped bar chart and its note
    /// (`state`: the drive state before the cells' steps).
    fn matrix(
        &self,
        (what, unit): (&str, &str),
        decimals: usize,
        grid: &[Vec<Option<f64>>],
        state: &str,
    ) -> Matrix {
        let (corner, across) = (self.corner(), self.across());
        let title = format!("{}: steady-state window averages, {}", capitalized(what), self.fixed);
        let svg = crate::svg::GroupedBars {
            title: &title,
            y_label: &if what == unit { unit.to_string() } else { format!("{what} ({unit})") },
            groups: self.columns.clone(),
            series: self
                .rows
                .iter()
                .zip(grid)
                .map(|(label, row)| crate::svg::BarSeries {
                    name: label.clone(),
                    values: row.clone(),
                    texts: row.iter().map(|v| thousands(*v, decimals)).collect(),
                })
                .collect(),
        }
        .render();
        Matrix {
            title,
            note: format!(
                "Each cell: its {}, averaged over its steady-state window's rounds (over \
                 the last window checked, where steady state was not reached). Rows: {corner}; columns: \
                 {across}. Drive state before: {state}.",
                if what == unit { what.to_string() } else { format!("{what} in {unit}") }
            ),
            corner: format!("{corner} \\ {across}"),
            columns: self.columns.clone(),
            rows: shaded(&self.rows, grid, decimals),
            unit: unit.to_string(),
            svg: Some(svg),
        }
    }
}

fn capitalized(s: &str) -> String {
    let mut c = s.chars();
    c.next().map_or(String::new(), |f| f.to_uppercase().chain(c).collect())
}

/// The drive state before the points' steps, said once: the first
/// step's, then each other state the steps were set to (an erase or fill
/// among them), and what the steps themselves wrote. The steps of a sweep
/// each write, so each one's state before it has more written since;
/// those are one state, not one a step.
pub(crate) fn states(run: &Loaded, points: &[&Point]) -> String {
    let numbers = distinct(points.iter().map(|p| p.step));
    let steps: Vec<&crate::manifest::ManifestStep> = numbers
        .iter()
        .filter_map(|n| points.iter().find(|p| p.step == *n).and_then(|p| step_of(run, p)))
        .collect();
    let states: Vec<Option<&crate::manifest::DriveState>> =
        steps.iter().map(|s| s.checklist.drive_state.as_ref()).collect();
    let Some(Some(first)) = states.first() else { return "not recorded".into() };
    let mut said = vec![first.description.clone()];
    let mut set = first.as_set();
    for s in &states[1..] {
        match s {
            Some(d) if d.as_set() != set => {
                set = d.as_set();
                said.push(format!("then {}", d.description));
            }
            Some(_) => {}
            None => said.push("then not recorded".into()),
        }
    }
    let wrote: u64 = steps.iter().filter_map(|s| s.io.as_ref()).map(|io| io.bytes_written).sum();
    if wrote > 0 {
        said.push(format!("these steps themselves wrote {}", crate::units::human(wrote)));
    }
    said.join("; ")
}

/// A cell's shade: 0.08 to 0.58 by its share of `max` (the comparison
/// page's maps are shaded the same way).
pub(crate) fn shade(v: f64, max: f64) -> String {
    format!("{:.2}", if max > 0.0 { 0.08 + 0.5 * v / max } else { 0.0 })
}

/// The rows with each cell's text and shade (its share of the largest).
fn shaded(labels: &[String], grid: &[Vec<Option<f64>>], decimals: usize) -> Vec<MatrixRow> {
    let max = grid.iter().flatten().flatten().fold(0.0f64, |m, v| m.max(*v));
    labels
        .iter()
        .zip(grid)
        .map(|(label, row)| MatrixRow {
            label: label.clone(),
            cells: row
                .iter()
                .map(|v| MatrixCell {
                    text: thousands(*v, decimals),
                    value: *v,
                    shade: v.map_or("0".into(), |v| shade(v, max)),
                })
                .collect(),
        })
        .collect()
}

/// Each phase's sweeps as a matrix: a line a row (a workload, or a read
/// share where the lines differ only in it), a queue depth a column, the
/// value the run's convention names.
fn sweep_matrices(run: &Loaded, pts: &[Point]) -> Vec<Matrix> {
    let c = &run.manifest.plan.conventions;
    let mut phases: Vec<(Option<String>, Vec<&Point>)> = Vec::new();
    for p in pts.iter().filter(|p| p.kind == "measure" && p.sweep.is_some() && p.error.is_none()) {
        if p.workload.is_none() || p.qd.is_none() {
            continue;
        }
        match phases.iter_mut().find(|(phase, _)| *phase == p.phase) {
            Some(g) => g.1.push(p),
            None => phases.push((p.phase.clone(), vec![p])),
        }
    }
    let mut out = Vec::new();
    for (phase, points) in phases {
        // A line: the sweep and what its workload does.
        let line = |p: &Point| {
            let w = p.workload.as_ref().expect("kept above");
            (p.sweep.unwrap_or(0), w.name.clone(), w.read)
        };
        let lines: Vec<(u32, String, Percent)> = distinct(points.iter().map(|p| line(p)));
        let mut depths: Vec<u32> = points.iter().filter_map(|p| p.qd.map(|q| q.total)).collect();
        depths.sort_unstable();
        depths.dedup();
        if depths.len() < 2 {
            continue;
        }
        let labels: Vec<String> = lines.iter().map(|l| l.1.clone()).collect();
        let grid: Vec<Vec<Option<f64>>> = lines
            .iter()
            .map(|l| {
                depths
                    .iter()
                    .map(|d| {
                        points
                            .iter()
                            .rev()
                            .find(|p| line(p) == *l && p.qd.is_some_and(|q| q.total == *d))
                            .and_then(|p| p.iops)
                    })
                    .collect()
            })
            .collect();
        let phase_name = phase.clone().unwrap_or_else(|| "steps".into());
        let described: Vec<String> = lines
            .iter()
            .filter_map(|l| points.iter().find(|p| line(p) == *l))
            .filter_map(|p| p.workload.as_ref().map(|w| format!("{}: {}", w.name, w.describe())))
            .collect();
        out.push(Matrix {
            title: format!("{phase_name}: IOPS ({}) by workload and queue depth", c.value.words()),
            note: format!(
                "IOPS ({}) of each sweep step. Rows: workload ({}); columns: queue depth ({}). Drive state \
                 before: {}.",
                c.value.words(),
                described.join("; "),
                match c.queue_depth {
                    methodic_compiler::plan::QdCounting::Total => "outstanding I/Os over all workers",
                    methodic_compiler::plan::QdCounting::PerWorker => "outstanding I/Os in each worker",
                },
                states(run, &points)
            ),
            corner: "workload \\ QD".into(),
            columns: depths.iter().map(|d| d.to_string()).collect(),
            rows: shaded(&labels, &grid, 0),
            unit: "IOPS".into(),
            svg: None,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::CellResult;
    use crate::view::points::points;
    use crate::view::testing::{of_source, rates, summary};

    /// A run of `source` whose rounds step's cells measured `iops(k)` (k
    /// from 0, in plan order), and its matrices.
    fn matrices_of(source: &str, iops: impl Fn(usize) -> f64) -> Vec<Matrix> {
        let mut run = of_source(source, std::env::temp_dir().join("methodic-matrix-test"));
        let i =
            run.manifest.plan.steps.iter().position(|s| matches!(s.action, Action::Rounds { .. })).unwrap();
        let Action::Rounds { cells, .. } = &run.manifest.plan.steps[i].action else { unreachable!() };
        run.steps[i].cells = Some(
            cells
                .iter()
                .enumerate()
                .map(|(k, c)| CellResult {
                    workload: c.workload.name.clone(),
                    qd: c.qd.total,
                    workers: c.qd.workers,
                    window_iops: iops(k),
                    window_mb_s: iops(k) * 4096.0 / 1e6,
                    window_mean_latency_us: 10.0 + k as f64,
                    window_latency_us: Default::default(),
                    rounds_latency_us: Vec::new(),
                    peak_iops: iops(k),
                    peak_mb_s: iops(k) * 4096.0 / 1e6,
                    last: summary(1.0, rates(iops(k), 1.0, [1.0, 2.0, 3.0, 4.0]), false),
                })
                .collect(),
        );
        let pts = points(&run);
        matrices(&run, &pts)
    }

    fn texts(m: &Matrix) -> Vec<Vec<String>> {
        m.rows.iter().map(|r| r.cells.iter().map(|c| c.text.clone()).collect()).collect()
    }

    #[test]
    fn a_thread_by_queue_depth_rounds_step_is_a_matrix_of_threads_and_depths() {
        // T1Q8 and T2Q4 have one total queue depth: each keeps its own cell.
        let m = matrices_of(
            "methodology \"t\" version \"1\"\n\
             conventions { queue_depth per_worker; value steady_state_average }\n\
             rounds {\n\
               for t in [1, 2] { for q in [1, 4, 8] { measure { random; block 4KiB; read 0% } qd q workers t for 1s } }\n\
             } until steady { window 2; max_rounds 3; track { random; block 4KiB; read 0% } qd 1 workers 1 }\n",
            |k| 1000.0 * (k + 1) as f64,
        );
        assert_eq!(m.len(), 1, "one matrix: {m:?}");
        let m = &m[0];
        assert_eq!(m.rows.iter().map(|r| r.label.as_str()).collect::<Vec<_>>(), ["T1", "T2"]);
        assert_eq!(m.columns, ["Q1", "Q4", "Q8"]);
        assert_eq!(
            texts(m),
            [["1,000", "2,000", "3,000"], ["4,000", "5,000", "6,000"]].map(|r| r.map(String::from).to_vec())
        );
        assert!(m.title.starts_with("IOPS: steady-state window averages, random, 4KiB"), "{}", m.title);
        assert_eq!(m.svg.as_ref().unwrap().matches("class=\"bar\"").count(), 6, "a bar a cell");
    }

    #[test]
    fn a_latency_rule_gives_average_and_maximum_matrices_of_mixes_and_blocks() {
        let m = matrices_of(
            "methodology \"t\" version \"1\"\n\
             rounds {\n\
               for rw in [100%, 0%] { for bs in [8KiB, 4KiB] { measure { random; block bs; read rw } qd 1 for 1s } }\n\
             } until steady { window 2; max_rounds 3; metric latency; track { random; block 4KiB; read 0% } }\n",
            |k| 100.0 + k as f64,
        );
        let titles: Vec<&str> = m.iter().map(|m| m.title.as_str()).collect();
        assert_eq!(titles.len(), 2, "{titles:?}");
        assert!(
            titles[0].starts_with("Average response time") && titles[1].starts_with("Maximum response time")
        );
        assert_eq!(m[0].rows.iter().map(|r| r.label.as_str()).collect::<Vec<_>>(), ["100/0", "0/100"]);
        assert_eq!(m[0].columns, ["8KiB", "4KiB"]);
        // The window's mean latency, cell by cell in plan order.
        assert_eq!(texts(&m[0]), [["10.0", "11.0"], ["12.0", "13.0"]].map(|r| r.map(String::from).to_vec()));
        assert_eq!(m[0].unit, "µs");
    }

    #[test]
    fn mixes_are_written_read_then_write() {
        assert_eq!(mix(Percent::HUNDRED), "100/0");
        assert_eq!(mix(Percent::from_hundredths(6500)), "65/35");
        assert_eq!(mix(Percent::from_hundredths(0)), "0/100");
    }
}
