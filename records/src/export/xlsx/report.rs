//! A report as a workbook: `Run` (the header: platform, device, setup),
//! `Results` (a row a result, numbers with units in the heads), `Sweeps`
//! (each phase's sweeps by queue depth, charted), `Matrices` (the PTS and
//! sweep matrices, charted as bars), `Series` (fills, preconditions and
//! sustained writes over time, charted), `Latency` (each measurement's
//! latency distribution, charted on log axes), `Repeats` (each repeated
//! step's runs, its mean charted with ± one standard deviation) and
//! `Checklist` (how each result was made). A sheet with nothing to show
//! is left out, but for `Run` and `Results`.

use rust_xlsxwriter::{
    ChartErrorBars, ChartErrorBarsType, ChartRange, ChartType, ColNum, RowNum, Workbook, Worksheet, XlsxError,
};

use super::sheet::{CHART_ROWS, Cell, Placed, Sheet, book, chart, distribution};
use crate::manifest::Loaded;
use crate::step_files::StepFiles;
use crate::view::points::{Point, kind_short, rate_unit};
use crate::view::report::charts::{OverTime, over_time, sweep_lines};
use crate::view::report::header::{header, status_word, subtitle, title};
use crate::view::report::latency::{groups, shared_out};
use crate::view::report::matrix::matrices;
use crate::view::report::{CHECKLIST, Report, beside, checklist, unreadable_line, value_line};

pub(super) fn workbook(r: &Report) -> Result<Workbook, XlsxError> {
    let (run, pts, files) = (&r.run, r.pts.as_slice(), &r.files);
    let mut sheets = vec![run_sheet(r)?, results(run, pts)?];
    sheets.extend(sweeps(run, pts)?);
    sheets.extend(matrix_sheet(run, pts)?);
    sheets.extend(series(run, files)?);
    sheets.extend(latency(run, files)?);
    sheets.extend(repeats(run)?);
    sheets.push(checklist_sheet(run, pts)?);
    Ok(book(sheets))
}

/// The run's header: what ran, where, how it ended, and the files that
/// could not be read.
fn run_sheet(r: &Report) -> Result<Worksheet, XlsxError> {
    let m = &r.run.manifest;
    let mut s = Sheet::new("Run", 3)?;
    s.heading(&title(m))?;
    s.note(&subtitle(m))?;
    let mut rows = vec![
        vec![Cell::text("status"), Cell::text(status_word(m.status))],
        vec![Cell::text("results"), Cell::text(r.run.dir.display().to_string())],
        vec![Cell::text("made by"), Cell::text(format!("{} {}", m.tool.name, m.tool.version))],
    ];
    if let Some(e) = &m.error {
        rows.push(vec![Cell::text("error"), Cell::text(e)]);
    }
    s.table(&["".into(), "".into()], &rows)?;
    if !r.unreadable().is_empty() {
        s.heading(&format!(
            "Incomplete: {}",
            unreadable_line(r.unreadable().len(), "this run", "this workbook")
        ))?;
        let rows: Vec<Vec<Cell>> = r
            .unreadable()
            .iter()
            .map(|u| {
                vec![
                    Cell::text(u.path.display().to_string()),
                    Cell::text(format!("{} of step {}", u.holds, u.step)),
                    Cell::text(&u.error),
                ]
            })
            .collect();
        s.table(&["file".into(), "holds".into(), "what is wrong".into()], &rows)?;
    }
    for (name, pairs) in header(m) {
        s.heading(&name)?;
        let rows: Vec<Vec<Cell>> =
            pairs.into_iter().map(|(k, v)| vec![Cell::Text(k), Cell::Text(v)]).collect();
        s.table(&["".into(), "".into()], &rows)?;
    }
    s.done()
}

/// A row a result: what made it, and its numbers.
fn results(run: &Loaded, pts: &[Point]) -> Result<Worksheet, XlsxError> {
    let c = &run.manifest.plan.conventions;
    let other = beside(c.value);
    let (kind, also, rate) = (kind_short(c.value), kind_short(other), rate_unit(c.units));
    let head: Vec<String> = [
        "#".into(),
        "step".into(),
        "phase".into(),
        "kind".into(),
        "workload".into(),
        "QD".into(),
        format!("IOPS ({kind})"),
        format!("{rate} ({kind})"),
        format!("IOPS ({also})"),
        format!("{rate} ({also})"),
        "mean latency (µs)".into(),
        "p99 latency (µs)".into(),
        "max latency (µs)".into(),
        "time (s)".into(),
        "error".into(),
    ]
    .into();
    let rows: Vec<Vec<Cell>> = pts
        .iter()
        .map(|p| {
            vec![
                Cell::Number(p.step as f64),
                Cell::text(&p.id),
                Cell::text(p.phase.clone().unwrap_or_default()),
                Cell::text(&p.kind),
                p.workload.as_ref().map_or(Cell::Empty, |w| Cell::text(&w.name)),
                Cell::num(p.qd.map(|q| f64::from(q.total))),
                Cell::num(p.iops),
                Cell::num(Some(p.rate(c.units))),
                Cell::num(p.iops_as(other)),
                Cell::num(p.rate_as(other, c.units)),
                Cell::num(p.mean_latency_us),
                Cell::num(p.p99_latency_us),
                Cell::num(p.max_latency_us),
                Cell::num(Some(p.seconds)),
                p.error.as_ref().map_or(Cell::Empty, Cell::text),
            ]
        })
        .collect();
    let mut s = Sheet::new("Results", 0)?;
    s.note(&format!("{}.", value_line(run, pts)))?;
    s.table(&head, &rows)?;
    s.ws.set_freeze_panes(2, 2)?;
    s.done()
}

/// Each phase's sweeps: a table a sweep line (its queue depths), and two
/// charts a phase, IOPS and mean latency by queue depth, a line a sweep,
/// the queue depth on a log2 axis.
fn sweeps(run: &Loaded, pts: &[Point]) -> Result<Option<Worksheet>, XlsxError> {
    let phases = sweep_lines(pts);
    if phases.is_empty() {
        return Ok(None);
    }
    let c = &run.manifest.plan.conventions;
    let (kind, rate) = (kind_short(c.value), rate_unit(c.units));
    let mut s = Sheet::new("Sweeps", 7)?;
    for (phase, lines) in phases {
        s.heading(&format!("{phase}: IOPS and latency by queue depth"))?;
        let top = s.row;
        let mut placed: Vec<(String, Placed)> = Vec::new();
        for points in lines {
            let name = points[0].workload.as_ref().map_or("?".into(), |w| w.name.clone());
            let head = [
                "QD".to_string(),
                format!("{name} IOPS ({kind})"),
                format!("{name} {rate} ({kind})"),
                format!("{name} mean latency (µs)"),
                format!("{name} p99 latency (µs)"),
            ];
            let rows: Vec<Vec<Cell>> = points
                .iter()
                .map(|p| {
                    vec![
                        Cell::num(p.qd.map(|q| f64::from(q.total))),
                        Cell::num(p.iops),
                        Cell::num(Some(p.rate(c.units))),
                        Cell::num(p.mean_latency_us),
                        Cell::num(p.p99_latency_us),
                    ]
                })
                .collect();
            placed.push((name, s.table(&head, &rows)?));
            s.row += 1;
        }
        for (k, y) in [(1, format!("IOPS ({kind})")), (3, "mean latency (µs)".to_string())] {
            let mut ch = chart(
                ChartType::ScatterStraightWithMarkers,
                &format!("{phase}: {y} by queue depth"),
                "queue depth (outstanding I/Os)",
                &y,
            );
            ch.x_axis().set_log_base(2);
            for (_, p) in &placed {
                ch.add_series()
                    .set_name(p.head(s.name, k))
                    .set_categories(p.column(s.name, 0))
                    .set_values(p.column(s.name, k));
            }
            s.chart(&ch, top)?;
        }
    }
    s.done().map(Some)
}

/// The PTS and sweep matrices, each as a table and as a bar chart (a bar
/// a cell, grouped by row).
fn matrix_sheet(run: &Loaded, pts: &[Point]) -> Result<Option<Worksheet>, XlsxError> {
    let all = matrices(run, pts);
    if all.is_empty() {
        return Ok(None);
    }
    let mut s = Sheet::new("Matrices", 0)?;
    for m in &all {
        s.heading(&format!("{} ({})", m.title, m.unit))?;
        s.note(&m.note)?;
        let mut head = vec![m.corner.clone()];
        head.extend(m.columns.iter().cloned());
        let rows: Vec<Vec<Cell>> = m
            .rows
            .iter()
            .map(|r| {
                let mut row = vec![Cell::text(&r.label)];
                row.extend(r.cells.iter().map(|c| match c.value {
                    Some(v) if v.is_finite() => Cell::Number(v),
                    _ => Cell::text(&c.text),
                }));
                row
            })
            .collect();
        let placed = s.table(&head, &rows)?;
        let mut ch = chart(ChartType::Column, &m.title, &m.corner, &m.unit);
        for k in 1..head.len() as ColNum {
            ch.add_series()
                .set_name(placed.head(s.name, k))
                .set_categories(placed.column(s.name, 0))
                .set_values(placed.column(s.name, k));
        }
        // Under its table: a matrix may be as wide as the sheet's view.
        s.row += 1;
        s.ws.insert_chart(s.row, 0, &ch)?;
        s.row += CHART_ROWS;
    }
    s.done().map(Some)
}

/// Fills, preconditions and sustained writes over time: a table a step
/// (time, IOPS, rate, mean latency), side by side, and a chart of each
/// step's rate (a precondition: its IOPS) over time, one under another
/// to their right.
fn series(run: &Loaded, files: &StepFiles) -> Result<Option<Worksheet>, XlsxError> {
    let units = run.manifest.plan.conventions.units;
    let rate = rate_unit(units);
    let mut tables: Vec<(String, ColNum, Vec<Vec<Cell>>)> = Vec::new();
    for r in &run.steps {
        let Some(step) = run.plan_step(r) else { continue };
        // The column charted: the rate (2) or IOPS (1).
        let charted = match over_time(&step.action) {
            Some(OverTime::Rate) => 2,
            Some(OverTime::Iops) => 1,
            None => continue,
        };
        let Ok(rows) = files.series(r) else { continue };
        let rows = rows
            .iter()
            .map(|x| {
                let v = if units == methodic_compiler::plan::Units::Binary { x.mib_s() } else { x.mb_s };
                vec![
                    Cell::Number(x.t),
                    Cell::Number(x.iops),
                    Cell::Number(v),
                    Cell::Number(x.mean_latency_us),
                ]
            })
            .collect();
        tables.push((r.id.clone(), charted, rows));
    }
    if tables.is_empty() {
        return Ok(None);
    }
    let mut s = Sheet::new("Series", 5 * tables.len() as ColNum)?;
    s.note("Each step's series: a row an interval, its end in seconds from the start of recording.")?;
    let top = s.row;
    for (k, (id, charted, rows)) in tables.iter().enumerate() {
        s.row = top;
        let col = 5 * k as ColNum;
        s.ws.write_string_with_format(top, col, id, &s.bold)?;
        s.row = top + 1;
        let head = ["time (s)".to_string(), "IOPS".into(), rate.into(), "mean latency (µs)".into()];
        let placed = s.table_at(col, &head, rows)?;
        let y = &head[*charted as usize];
        // Markers where there are few intervals (one would not show).
        let kind =
            if rows.len() > 60 { ChartType::ScatterStraight } else { ChartType::ScatterStraightWithMarkers };
        let mut ch = chart(kind, &format!("{id}: {y} each interval"), "time (s)", y);
        ch.legend().set_hidden();
        ch.add_series()
            .set_name(placed.head(s.name, *charted))
            .set_categories(placed.column(s.name, 0))
            .set_values(placed.column(s.name, *charted));
        s.chart(&ch, top)?;
    }
    s.done().map(Some)
}

/// Each measurement's latency distribution: a table a chart's group
/// (each line's latency and the share of I/Os that took at least that
/// long), and a chart with log10 axes, as the report's page draws them.
fn latency(run: &Loaded, files: &StepFiles) -> Result<Option<Worksheet>, XlsxError> {
    let all = groups(run, files);
    if all.iter().all(|g| g.lines.is_empty()) {
        return Ok(None);
    }
    let mut s = Sheet::new("Latency", 0)?;
    s.note(
        "Each line: the share of the step's I/Os (reads, writes and trims together) that took at least each \
         latency, from the median to the slowest I/O; where it crosses 0.0001 (0.01%) is its p99.99.",
    )?;
    for g in all.into_iter().filter(|g| !g.lines.is_empty()) {
        let charts = shared_out(g.lines);
        let n = charts.len();
        for (k, lines) in charts.iter().enumerate() {
            let what = if n > 1 { format!("{} ({} of {n})", g.what, k + 1) } else { g.what.clone() };
            let missing = if k == 0 { g.missing.as_slice() } else { &[] };
            distribution(&mut s, &what, &lines.iter().collect::<Vec<_>>(), missing)?;
        }
    }
    s.done().map(Some)
}

/// Each repeated step: its runs' values, their mean, standard deviation
/// and coefficient of variation, and a chart of the means with ± one
/// standard deviation as error bars.
fn repeats(run: &Loaded) -> Result<Option<Worksheet>, XlsxError> {
    let mut summed: Vec<_> = run.steps.iter().filter_map(|r| Some((r, run.final_repeats(r)?))).collect();
    if summed.is_empty() {
        return Ok(None);
    }
    // A unit's steps together, for a chart a unit.
    summed.sort_by(|a, b| a.1.unit.cmp(&b.1.unit).then(a.0.index.cmp(&b.0.index)));
    let most = summed.iter().map(|(_, s)| s.runs.len()).max().unwrap_or(0);
    let mut head: Vec<String> =
        ["step", "unit", "runs", "mean", "standard deviation", "cv (%)", "reported", "aggregate"]
            .map(String::from)
            .into();
    head.extend((1..=most).map(|k| format!("run {k}")));
    let rows: Vec<Vec<Cell>> = summed
        .iter()
        .map(|(r, sum)| {
            let mut row = vec![
                Cell::text(&r.id),
                Cell::text(&sum.unit),
                Cell::Number(sum.runs.len() as f64),
                Cell::num(Some(sum.mean)),
                Cell::num(Some(sum.sd)),
                Cell::num(Some(sum.cv * 100.0)),
                Cell::num(Some(sum.value)),
                Cell::text(methodic_compiler::plan::aggregate_word(sum.aggregate)),
            ];
            row.extend(sum.runs.iter().map(|v| Cell::num(Some(*v))));
            row
        })
        .collect();
    let mut s = Sheet::new("Repeats", head.len() as ColNum + 1)?;
    s.note("Each repeated step over its runs: the mean, with ± one standard deviation drawn as error bars.")?;
    let placed = s.table(&head, &rows)?;
    let mut from = 0;
    while from < summed.len() {
        let unit = &summed[from].1.unit;
        let to = from + summed[from..].iter().take_while(|(_, x)| x.unit == *unit).count();
        let (first, last) = (placed.first + from as RowNum, placed.first + to as RowNum - 1);
        let range = |k: ColNum| (s.name, first, k, last, k);
        let mut ch = chart(
            ChartType::Column,
            &format!("Repeated steps: mean {unit} ± one standard deviation"),
            "step",
            unit,
        );
        let sd = ChartRange::new_from_range(s.name, first, 4, last, 4);
        ch.add_series()
            .set_name(placed.head(s.name, 3))
            .set_categories(range(0))
            .set_values(range(3))
            .set_y_error_bars(ChartErrorBars::new().set_type(ChartErrorBarsType::Custom(sd.clone(), sd)));
        ch.legend().set_hidden();
        s.chart(&ch, placed.head)?;
        from = to;
    }
    s.done().map(Some)
}

/// How each result was made: the page's checklist, a row a result.
fn checklist_sheet(run: &Loaded, pts: &[Point]) -> Result<Worksheet, XlsxError> {
    let mut s = Sheet::new("Checklist", 0)?;
    let mut rows = checklist(run, pts);
    rows.dedup();
    let rows: Vec<Vec<Cell>> = rows
        .into_iter()
        .map(|r| {
            let mut cells: Vec<Cell> = r.into_iter().map(Cell::Text).collect();
            if let Some(n) = match &cells[0] {
                Cell::Text(t) => t.parse::<f64>().ok(),
                Cell::Number(_) | Cell::Empty => None,
            } {
                cells[0] = Cell::Number(n);
            }
            cells
        })
        .collect();
    s.table(&CHECKLIST.map(String::from), &rows)?;
    s.done()
}
