//! The `xlsx` exporter: a report or a comparison as a workbook that
//! Excel and LibreOffice open, its numbers as numbers (units in the
//! column heads) and its charts native ones, drawn by the spreadsheet
//! from the sheet's own cells (so a reader who edits a cell sees the
//! chart follow). Written with rust_xlsxwriter; `report` lays out a
//! report's sheets, `compare` a comparison's, both with `sheet`'s
//! layout. A workbook is bytes, not
//! text: [`Exporter::export`] refuses it, [`Exporter::bytes`] writes it.

mod compare;
mod report;
mod sheet;

use rust_xlsxwriter::XlsxError;

use super::{ExportError, Exporter, Format};
use crate::view::compare::Comparison;
use crate::view::report::Report;

/// The `xlsx` exporter: a workbook.
pub struct Xlsx;

impl Exporter<Report> for Xlsx {
    fn export(&self, _: &Report) -> Result<String, ExportError> {
        Err(binary())
    }

    fn bytes(&self, r: &Report) -> Result<Vec<u8>, ExportError> {
        report::workbook(r).and_then(|mut w| w.save_to_buffer()).map_err(failed)
    }
}

impl Exporter<Comparison> for Xlsx {
    fn export(&self, _: &Comparison) -> Result<String, ExportError> {
        Err(binary())
    }

    fn bytes(&self, c: &Comparison) -> Result<Vec<u8>, ExportError> {
        compare::workbook(c).and_then(|mut w| w.save_to_buffer()).map_err(failed)
    }
}

/// Why a workbook has no text.
fn binary() -> ExportError {
    ExportError::Failed {
        format: Format::Xlsx,
        detail: "a workbook is a binary file, not text: write it to a file (-o FILE.xlsx)".into(),
    }
}

fn failed(e: XlsxError) -> ExportError {
    ExportError::Failed { format: Format::Xlsx, detail: e.to_string() }
}

#[cfg(test)]
mod tests {
    use std::io::Cursor;

    use calamine::{Data, Reader, open_workbook_from_rs};

    use crate::export::{Exports, Format};
    use crate::view::compare::comparison;
    use crate::view::report::Report;

    type Book = calamine::Xlsx<Cursor<Vec<u8>>>;

    fn read(bytes: Vec<u8>) -> Book {
        open_workbook_from_rs(Cursor::new(bytes)).expect("calamine reads the workbook")
    }

    /// Sheet `name`'s rows, each cell as a number where it is one, else
    /// its text (an empty cell: "").
    fn rows(book: &mut Book, name: &str) -> Vec<Vec<Data>> {
        let range = book.worksheet_range(name).unwrap_or_else(|e| panic!("{name}: {e}"));
        range.rows().map(<[Data]>::to_vec).collect()
    }

    /// How many charts the workbook holds: each is a part of the zip
    /// named `xl/charts/chartN.xml`, its name stored twice, uncompressed
    /// (its local header and the central directory).
    fn charts(bytes: &[u8]) -> usize {
        let name = b"xl/charts/chart";
        bytes.windows(name.len()).filter(|w| w == name).count() / 2
    }

    fn text(d: &Data) -> String {
        match d {
            Data::String(s) => s.clone(),
            Data::Empty => String::new(),
            other => other.to_string(),
        }
    }

    /// A run with a fill, a rounds step, a probe and a measurement: read
    /// back by another reader, each sheet is there, each result's figures
    /// are the report's as numbers, and each sheet's charts are in it.
    #[test]
    fn a_report_s_workbook_reads_back_with_its_numbers_and_charts() {
        let run = crate::step_files::tests::run("xlsx-report");
        let report = Report::new(run.clone());
        let bytes = report.export_bytes(Format::Xlsx).unwrap();
        let e = report.export(Format::Xlsx).unwrap_err().to_string();
        assert!(
            e.contains("a workbook is a binary file, not text: write it to a file (-o FILE.xlsx)"),
            "{e}"
        );
        let mut book = read(bytes.clone());
        assert_eq!(
            book.sheet_names(),
            ["Run", "Results", "Series", "Latency", "Checklist"],
            "no sweeps, matrices or repeats in this run: no sheet for them"
        );
        let results = rows(&mut book, "Results");
        let head: Vec<String> = results[1].iter().map(text).collect();
        assert_eq!(&head[..8], ["#", "step", "phase", "kind", "workload", "QD", "IOPS (avg)", "MB/s (avg)"]);
        assert_eq!(results.len() - 2, report.points().len(), "a row a result, under the note and the head");
        for (row, p) in results[2..].iter().zip(report.points()) {
            assert_eq!(text(&row[1]), p.id);
            assert_eq!(row[0], Data::Float(p.step as f64));
            match p.iops {
                Some(v) => assert_eq!(row[6], Data::Float(v), "{}: every digit kept", p.id),
                None => assert_eq!(row[6], Data::Empty),
            }
        }
        // The fill's series, a row an interval, as its CSV has it.
        let series = rows(&mut book, "Series");
        let fill = &run.steps[0];
        let file = crate::series::read(&run.dir.join(fill.series.as_ref().unwrap())).unwrap();
        assert_eq!(text(&series[1][0]), fill.id);
        assert_eq!(series.len() - 3, file.len());
        assert_eq!(series[3][1], Data::Float(file[0].iops));
        // The measurement's latencies (a line: two columns), from the
        // median's share down to the slowest I/O's.
        let latency = rows(&mut book, "Latency");
        let at = latency
            .iter()
            .position(|r| text(&r[0]) == "p: latency distribution of each measurement")
            .unwrap();
        assert_eq!(text(&latency[at + 1][0]), "p/r-qd4 (4096 I/Os) latency (µs)");
        assert_eq!(text(&latency[at + 1][1]), "p/r-qd4 (4096 I/Os) share of I/Os");
        assert_eq!(latency[at + 2][1], Data::Float(0.5), "the median first");
        assert_eq!(latency.last().unwrap()[1], Data::Float(1.0 / 4096.0), "the slowest I/O last");
        assert_eq!(text(&rows(&mut book, "Checklist")[0][2]), "drive state before");
        // The fill's series, and the measurement's latency distribution.
        assert_eq!(charts(&bytes), 2);
        std::fs::remove_dir_all(&run.dir).unwrap();
    }

    /// Three drives compared: each paired measurement ranked in a sheet,
    /// the repeated one with its standard deviation (drawn as error bars),
    /// each drive by model and serial.
    #[test]
    fn a_comparison_s_workbook_ranks_the_drives_with_their_spread() {
        let c = comparison(&crate::view::compare::rank::tests::three_drives());
        let bytes = c.export_bytes(Format::Xlsx).unwrap();
        let mut book = read(bytes.clone());
        assert_eq!(book.sheet_names(), ["Runs", "Compared", "Ranked"], "no latency logs: no Latency sheet");
        let runs = rows(&mut book, "Runs");
        assert_eq!(text(&runs[3][4]), "Drive B, serial SN1");
        let compared = rows(&mut book, "Compared");
        let head: Vec<String> = compared[1].iter().map(text).collect();
        assert_eq!(&head[3..8], ["A", "B", "C", "B / A", "C / A"]);
        assert_eq!((&compared[2][3], &compared[2][6]), (&Data::Float(1000.0), &Data::Float(1.5)));
        let ranked = rows(&mut book, "Ranked");
        let second = ranked.iter().rposition(|r| text(&r[0]) == "rank").unwrap();
        let top = &ranked[second + 1];
        assert_eq!(
            (text(&top[1]), text(&top[2]), &top[3], &top[6]),
            ("C".to_string(), "Drive C, serial SN2".to_string(), &Data::Float(1000.0), &Data::Float(3.0))
        );
        let Data::Float(sd) = top[5] else { panic!("the standard deviation: {:?}", top[5]) };
        assert!((sd - 100.0).abs() < 1e-9);
        assert_eq!(charts(&bytes), 2, "a chart a ranking");
    }
}
