//! How a workbook's sheets are laid out, for the report's and the
//! comparison's alike: a cell's value ([`Cell`]), a sheet written from
//! the top ([`Sheet`]: headings, wrapped notes, tables, charts to their
//! right), a chart with its titles ([`chart`]), a chart's worth of
//! latency distributions ([`distribution`]), and the workbook of sheets
//! ([`book`]).

use rust_xlsxwriter::{
    Chart, ChartType, ColNum, Format as CellFormat, RowNum, Workbook, Worksheet, XlsxError,
};

use crate::svg::Series;

/// A cell's value: a number stays a number, for the spreadsheet to
/// chart and sum.
pub(super) enum Cell {
    Text(String),
    Number(f64),
    Empty,
}

impl Cell {
    /// A number where there is a finite one, else an empty cell.
    pub(super) fn num(v: Option<f64>) -> Cell {
        v.filter(|v| v.is_finite()).map_or(Cell::Empty, Cell::Number)
    }

    pub(super) fn text(s: impl Into<String>) -> Cell {
        Cell::Text(s.into())
    }
}

/// The rows of a table's data written on a sheet, for a chart's ranges:
/// its head's row, its first and last data rows, and its first column.
#[derive(Clone, Copy)]
pub(super) struct Placed {
    pub(super) head: RowNum,
    pub(super) first: RowNum,
    pub(super) last: RowNum,
    pub(super) col: ColNum,
}

impl Placed {
    /// Column `k` of the table (from its first), its data rows: a chart's
    /// values or categories.
    pub(super) fn column<'a>(&self, sheet: &'a str, k: ColNum) -> (&'a str, RowNum, ColNum, RowNum, ColNum) {
        (sheet, self.first, self.col + k, self.last, self.col + k)
    }

    /// The head of column `k`: a chart series' name.
    pub(super) fn head<'a>(&self, sheet: &'a str, k: ColNum) -> (&'a str, RowNum, ColNum) {
        (sheet, self.head, self.col + k)
    }
}

/// The columns a note is written over, and about the characters a line
/// of it holds there.
const NOTE_COLUMNS: ColNum = 10;
const NOTE_CHARS: usize = 110;

/// The rows a chart takes on a sheet (its default 288 pixels, at 20 a
/// row), and a gap under it.
pub(super) const CHART_ROWS: RowNum = 16;

/// A sheet laid out from the top: headings, notes and tables one under
/// another, each table's charts to the right of the tables, one under
/// another; widths kept so each column fits its widest text.
pub(super) struct Sheet {
    pub(super) ws: Worksheet,
    pub(super) name: &'static str,
    pub(super) row: RowNum,
    /// The row under the last chart.
    pub(super) chart_row: RowNum,
    /// The column charts go in.
    pub(super) chart_col: ColNum,
    widths: Vec<usize>,
    pub(super) bold: CellFormat,
    wrap: CellFormat,
    /// Figures of 100 and more, and whole numbers, with thousands
    /// separated and no decimals (the cell keeps every digit); figures
    /// from 1 with two.
    whole: CellFormat,
    two: CellFormat,
}

impl Sheet {
    pub(super) fn new(name: &'static str, chart_col: ColNum) -> Result<Sheet, XlsxError> {
        let mut ws = Worksheet::new();
        ws.set_name(name)?;
        Ok(Sheet {
            ws,
            name,
            row: 0,
            chart_row: 0,
            chart_col,
            widths: Vec::new(),
            bold: CellFormat::new().set_bold(),
            wrap: CellFormat::new().set_text_wrap().set_align(rust_xlsxwriter::FormatAlign::Top),
            whole: CellFormat::new().set_num_format("#,##0"),
            two: CellFormat::new().set_num_format("0.00"),
        })
    }

    /// A bold line, a blank one above it unless at the top.
    pub(super) fn heading(&mut self, text: &str) -> Result<(), XlsxError> {
        self.row = self.row.max(self.chart_row);
        if self.row > 0 {
            self.row += 1;
        }
        self.ws.write_string_with_format(self.row, 0, text, &self.bold)?;
        self.row += 1;
        Ok(())
    }

    /// A paragraph: over the first [`NOTE_COLUMNS`] columns, wrapped,
    /// its row as tall as its lines (not counted in column widths, and
    /// not widening the page it prints on).
    pub(super) fn note(&mut self, text: &str) -> Result<(), XlsxError> {
        if text.is_empty() {
            return Ok(());
        }
        self.row = self.row.max(self.chart_row);
        let lines = text.chars().count().div_ceil(NOTE_CHARS).max(1);
        self.ws.merge_range(self.row, 0, self.row, NOTE_COLUMNS - 1, text, &self.wrap)?;
        self.ws.set_row_height(self.row, 15.0 * lines as f64)?;
        self.row += 1;
        Ok(())
    }

    /// A table from column `col` of the current row: its head in bold,
    /// then its rows. The next table goes under it (`col` 0), or beside it.
    pub(super) fn table_at(
        &mut self,
        col: ColNum,
        head: &[String],
        rows: &[Vec<Cell>],
    ) -> Result<Placed, XlsxError> {
        let top = self.row;
        for (k, h) in head.iter().enumerate() {
            let c = col + k as ColNum;
            self.ws.write_string_with_format(top, c, h, &self.bold)?;
            self.fit(c, h.chars().count());
        }
        for (i, row) in rows.iter().enumerate() {
            let r = top + 1 + i as RowNum;
            for (k, cell) in row.iter().enumerate() {
                let c = col + k as ColNum;
                match cell {
                    Cell::Text(t) => {
                        self.ws.write_string(r, c, t)?;
                        self.fit(c, t.chars().count());
                    }
                    Cell::Number(v) if v.abs() >= 100.0 || v.fract() == 0.0 => {
                        self.ws.write_number_with_format(r, c, *v, &self.whole)?;
                        self.fit(c, 10);
                    }
                    Cell::Number(v) if v.abs() >= 1.0 => {
                        self.ws.write_number_with_format(r, c, *v, &self.two)?;
                        self.fit(c, 8);
                    }
                    Cell::Number(v) => {
                        self.ws.write_number(r, c, *v)?;
                        self.fit(c, 10);
                    }
                    Cell::Empty => {}
                }
            }
        }
        let last = top + rows.len().max(1) as RowNum;
        Ok(Placed { head: top, first: top + 1, last, col })
    }

    /// A table under the last, at column 0.
    pub(super) fn table(&mut self, head: &[String], rows: &[Vec<Cell>]) -> Result<Placed, XlsxError> {
        self.row = self.row.max(self.chart_row);
        let placed = self.table_at(0, head, rows)?;
        self.row = placed.last + 1;
        Ok(placed)
    }

    /// A chart to the right of the tables, from the row of the table it
    /// draws (or under the chart before it).
    pub(super) fn chart(&mut self, chart: &Chart, from: RowNum) -> Result<(), XlsxError> {
        let at = from.max(self.chart_row);
        self.ws.insert_chart(at, self.chart_col, chart)?;
        self.chart_row = at + CHART_ROWS;
        Ok(())
    }

    fn fit(&mut self, col: ColNum, chars: usize) {
        let k = col as usize;
        if self.widths.len() <= k {
            self.widths.resize(k + 1, 0);
        }
        self.widths[k] = self.widths[k].max(chars);
    }

    /// The sheet, each column as wide as its widest text (within 8 and 60
    /// characters); printed (or made a PDF) in landscape, a page wide, its
    /// name atop each page.
    pub(super) fn done(mut self) -> Result<Worksheet, XlsxError> {
        for (k, w) in self.widths.iter().enumerate() {
            self.ws.set_column_width(k as ColNum, (*w).clamp(8, 60) as f64 + 1.0)?;
        }
        self.ws.set_landscape().set_print_fit_to_pages(1, 0).set_header("&C&A");
        Ok(self.ws)
    }
}

/// A chart of `kind` with its title and axes' names.
pub(super) fn chart(kind: ChartType, title: &str, x: &str, y: &str) -> Chart {
    let mut c = Chart::new(kind);
    c.title().set_name(title);
    c.x_axis().set_name(x);
    c.y_axis().set_name(y);
    c.set_width(640).set_height(320);
    c
}

/// A chart's worth of latency distributions (`crate::view::report::
/// latency`) under heading `what`: a table (each line's latency and the
/// share of I/Os that took at least that long, two columns a line) and
/// a chart of them on log10 axes to its right; why some steps have no
/// line, under the heading.
pub(super) fn distribution(
    s: &mut Sheet,
    what: &str,
    lines: &[&Series],
    missing: &[String],
) -> Result<(), XlsxError> {
    s.heading(what)?;
    for why in missing {
        s.note(&format!("No line: {why}"))?;
    }
    let top = s.row;
    let mut head = Vec::new();
    let longest = lines.iter().map(|l| l.points.len()).max().unwrap_or(0);
    let mut rows: Vec<Vec<Cell>> = (0..longest).map(|_| Vec::new()).collect();
    for l in lines {
        head.push(format!("{} latency (µs)", l.name));
        head.push(format!("{} share of I/Os", l.name));
        for (i, row) in rows.iter_mut().enumerate() {
            let p = l.points.get(i);
            row.push(Cell::num(p.map(|p| p.0)));
            row.push(Cell::num(p.map(|p| p.1)));
        }
    }
    let placed = s.table(&head, &rows)?;
    if lines.is_empty() {
        return Ok(());
    }
    let mut ch =
        chart(ChartType::ScatterStraightWithMarkers, what, "latency (µs)", "share of I/Os (at least)");
    ch.x_axis().set_log_base(10);
    ch.y_axis().set_log_base(10);
    for (k, l) in lines.iter().enumerate() {
        let x = 2 * k as ColNum;
        let last = placed.first + l.points.len().max(1) as RowNum - 1;
        ch.add_series()
            .set_name(l.name.as_str())
            .set_categories((s.name, placed.first, x, last, x))
            .set_values((s.name, placed.first, x + 1, last, x + 1));
    }
    // Right of the widest table yet: two columns a line.
    s.chart_col = s.chart_col.max(2 * lines.len() as ColNum + 1);
    s.chart(&ch, top)
}

/// Sheets in order, as a workbook.
pub(super) fn book(sheets: Vec<Worksheet>) -> Workbook {
    let mut w = Workbook::new();
    for s in sheets {
        w.push_worksheet(s);
    }
    w
}
