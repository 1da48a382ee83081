//! A comparison as a workbook: `Runs` (each run's letter, directory,
//! methodology, status and drives), `Compared` (a row a paired step: each
//! run's value, each later run's ratio to A, each run's mean latency),
//! `Ranked` (each paired measurement's runs, highest first, charted as
//! bars with ± one standard deviation where the step was repeated) and
//! `Latency` (each paired measurement's latency distribution, a line a
//! run).

use rust_xlsxwriter::{
    ChartErrorBars, ChartErrorBarsType, ChartRange, ChartType, Workbook, Worksheet, XlsxError,
};

use super::sheet::{Cell, Sheet, book, chart, distribution};
use crate::svg::Series;
use crate::view::compare::charts::latency_lines;
use crate::view::compare::{Comparison, letter};
use crate::view::points::kind_short;

pub(super) fn workbook(c: &Comparison) -> Result<Workbook, XlsxError> {
    let mut sheets = vec![runs(c)?, compared(c)?];
    sheets.extend(ranked(c)?);
    sheets.extend(latency(c)?);
    Ok(book(sheets))
}

/// Each run: its letter, where its results are, what ran, how it ended,
/// and its drives.
fn runs(c: &Comparison) -> Result<Worksheet, XlsxError> {
    let mut s = Sheet::new("Runs", 0)?;
    s.heading(&format!("{} runs compared: ratios are to A's", c.runs.len()))?;
    let rows: Vec<Vec<Cell>> = c
        .runs
        .iter()
        .enumerate()
        .map(|(k, r)| {
            vec![
                Cell::text(&r.name),
                Cell::text(r.dir.display().to_string()),
                Cell::text(&r.methodology),
                Cell::text(&r.status),
                Cell::text(c.loaded.get(k).map_or(String::new(), crate::view::compare::drive_name)),
            ]
        })
        .collect();
    s.table(&["run", "results", "methodology", "status", "drives"].map(String::from), &rows)?;
    if let Some(note) = &c.values_note {
        s.note(note)?;
    }
    if !c.unreadable.is_empty() {
        s.heading("Incomplete: files of these runs that could not be read")?;
        let rows: Vec<Vec<Cell>> = c
            .unreadable
            .iter()
            .map(|u| {
                vec![
                    Cell::text(&u.run),
                    Cell::text(u.file.path.display().to_string()),
                    Cell::text(format!("{} of step {}", u.file.holds, u.file.step)),
                    Cell::text(&u.file.error),
                ]
            })
            .collect();
        s.table(&["run", "file", "holds", "what is wrong"].map(String::from), &rows)?;
    }
    s.done()
}

/// A row a paired step: its label, unit and value kind, each run's value
/// (a failed step or a missed rate said beside it), each later run's
/// ratio to A, and each run's mean latency.
fn compared(c: &Comparison) -> Result<Worksheet, XlsxError> {
    let n = c.runs.len();
    let mut head: Vec<String> = ["step", "kind", "unit"].map(String::from).into();
    head.extend((0..n).map(letter));
    head.extend((1..n).map(|k| format!("{} / A", letter(k))));
    head.extend((0..n).map(|k| format!("{} mean latency (µs)", letter(k))));
    head.push("notes".into());
    let rows: Vec<Vec<Cell>> = c
        .pairs
        .iter()
        .map(|p| {
            let unit = p.values.first().map_or("", |v| v.unit.as_str());
            let mut row = vec![
                Cell::text(&p.label),
                Cell::text(&p.kind),
                Cell::text(format!("{unit} ({})", kind_short(p.value_kind))),
            ];
            row.extend(p.values.iter().map(|v| Cell::num(v.value)));
            row.extend(p.ratios.iter().map(|r| Cell::num(*r)));
            row.extend(p.values.iter().map(|v| Cell::num(v.mean_latency_us)));
            let notes: Vec<String> = p
                .values
                .iter()
                .enumerate()
                .filter_map(|(k, v)| match (&v.error, &v.rate_missed) {
                    (Some(e), _) => Some(format!("{} failed: {e}", letter(k))),
                    (None, Some(m)) => Some(format!("{} missed its rate: {m}", letter(k))),
                    (None, None) => None,
                })
                .collect();
            row.push(Cell::text(notes.join("; ")));
            row
        })
        .collect();
    let mut s = Sheet::new("Compared", 0)?;
    s.note("Each paired step: each run's value, each later run's over A's, and each run's mean latency.")?;
    s.table(&head, &rows)?;
    s.ws.set_freeze_panes(2, 1)?;
    s.done()
}

/// Each paired measurement's runs ranked: a table (rank, run, drives,
/// value, ratio to A, standard deviation and runs of a repeated step) and
/// a bar chart of the values, with ± one standard deviation as error bars.
fn ranked(c: &Comparison) -> Result<Option<Worksheet>, XlsxError> {
    if c.rankings.is_empty() {
        return Ok(None);
    }
    let mut s = Sheet::new("Ranked", 8)?;
    s.note("Each paired measurement's runs from the highest value to the lowest; a repeated step: the aggregate of its runs, ± one standard deviation.")?;
    for r in &c.rankings {
        s.heading(&format!("{} ({}, {})", r.label, r.unit, r.value_kind))?;
        let rows: Vec<Vec<Cell>> = r
            .ranked
            .iter()
            .map(|e| {
                vec![
                    Cell::num(e.rank.map(|k| k as f64)),
                    Cell::text(&e.run),
                    Cell::text(&e.name),
                    Cell::num(e.value),
                    Cell::num(e.ratio),
                    Cell::num(e.sd),
                    Cell::num(e.repeats.map(|n| n as f64)),
                ]
            })
            .collect();
        let head =
            ["rank", "run", "drives", &r.unit, "ratio to A", "standard deviation", "runs"].map(String::from);
        let placed = s.table(&head, &rows)?;
        // A bar chart's value axis is its x axis (across), its runs the y.
        let mut ch = chart(ChartType::Bar, &r.label, &r.unit, "run");
        // Highest on top, as the table reads.
        ch.y_axis().set_reverse();
        ch.legend().set_hidden();
        let series = ch
            .add_series()
            .set_name(placed.head(s.name, 3))
            .set_categories(placed.column(s.name, 1))
            .set_values(placed.column(s.name, 3));
        if r.ranked.iter().any(|e| e.sd.is_some()) {
            let sd =
                ChartRange::new_from_range(s.name, placed.first, placed.col + 5, placed.last, placed.col + 5);
            series
                .set_x_error_bars(ChartErrorBars::new().set_type(ChartErrorBarsType::Custom(sd.clone(), sd)));
        }
        s.chart(&ch, placed.head)?;
    }
    s.done().map(Some)
}

/// Each paired measurement's latency distribution, a line a run.
fn latency(c: &Comparison) -> Result<Option<Worksheet>, XlsxError> {
    let all = latency_lines(&c.loaded, &c.files);
    if all.is_empty() {
        return Ok(None);
    }
    let mut s = Sheet::new("Latency", 0)?;
    s.note(
        "Each line: the share of the step's I/Os that took at least each latency, from the median to the slowest \
         I/O, a line a run; where it crosses 0.0001 (0.01%) is its p99.99.",
    )?;
    for l in &all {
        let lines: Vec<&Series> = l.lines.iter().map(|(_, s)| s).collect();
        let mut missing = l.notes.clone();
        if !l.lacking.is_empty() {
            missing.push(l.lacking.trim().to_string());
        }
        distribution(&mut s, &format!("{} ({}): latency distribution", l.id, l.phase), &lines, &missing)?;
    }
    s.done().map(Some)
}
