//! Output formats: a result (a [`Report`](crate::view::report::Report), a
//! [`Comparison`](crate::view::compare::Comparison), or a command's own)
//! and the format a user named (`table`, `md`, `csv`, `json`, `html`,
//! `fio-json`) go in;
//! out comes its text, from the one exporter of that format. Each result
//! says which formats it offers ([`Exports`]); a format it does not offer is
//! refused by name. One module a format holds its exporter and how each
//! result is written in it; nothing here knows the command line.

pub mod csv;
pub mod fio_json;
pub mod html;
pub mod json;
pub mod md;
pub mod table;

use std::fmt;

pub use csv::Csv;
pub use fio_json::FioJson;
pub use html::Html;
pub use json::Json;
pub use md::Markdown;
pub use table::Table;

/// An output format, by the name a user gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Table,
    Md,
    Csv,
    Json,
    Html,
    /// fio's JSON output format (`fio --output-format=json+`).
    FioJson,
}

impl Format {
    pub const ALL: [Format; 6] =
        [Format::Table, Format::Md, Format::Csv, Format::Json, Format::Html, Format::FioJson];

    /// `table`, `md`, `csv`, `json`, `html`, `fio-json`: as `--format` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Format::Table => "table",
            Format::Md => "md",
            Format::Csv => "csv",
            Format::Json => "json",
            Format::Html => "html",
            Format::FioJson => "fio-json",
        }
    }

    /// What the format is, in a few words (for `--help`).
    pub fn about(self) -> &'static str {
        match self {
            Format::Table => "text for a terminal: tables and sentences",
            Format::Md => "Markdown, to paste into a review or an issue",
            Format::Csv => "comma-separated values, a header then a row each",
            Format::Json => "JSON, for programs",
            Format::Html => "one self-contained HTML page (no network)",
            Format::FioJson => "fio's JSON output (json+), a job a step, for fio-plot and other fio readers",
        }
    }

    pub fn from_name(name: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.name() == name)
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a result could not be written in a format.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExportError {
    /// The result does not come in this format.
    #[error("this output does not come as {format} (it comes as {})", names(offered))]
    NotOffered { format: Format, offered: Vec<Format> },
    /// The exporter failed (a serializer or a template), in its words.
    #[error("cannot write the {format} output: {detail}")]
    Failed { format: Format, detail: String },
}

/// `table, json`.
fn names(formats: &[Format]) -> String {
    formats.iter().map(|f| f.name()).collect::<Vec<_>>().join(", ")
}

/// Turns one kind of result into text in one format. There is one
/// exporter a format ([`Table`], [`Markdown`], [`Csv`], [`Json`],
/// [`Html`]); a result implements the exporters of the formats it offers.
pub trait Exporter<R: ?Sized> {
    fn export(&self, result: &R) -> Result<String, ExportError>;
}

/// A result a command prints, and its exporter for each format it offers.
pub trait Exports: Sized + 'static {
    /// The exporter of `format`, where the result comes in it.
    fn exporter(format: Format) -> Option<&'static dyn Exporter<Self>>;

    /// The formats the result comes in.
    fn formats() -> Vec<Format> {
        Format::ALL.into_iter().filter(|f| Self::exporter(*f).is_some()).collect()
    }

    /// The result as text in `format`.
    fn export(&self, format: Format) -> Result<String, ExportError> {
        match Self::exporter(format) {
            Some(e) => e.export(self),
            None => Err(ExportError::NotOffered { format, offered: Self::formats() }),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde::Serialize;

    use super::*;

    /// A result that comes as a table and as JSON.
    #[derive(Serialize)]
    struct Two {
        n: u32,
    }

    impl Exporter<Two> for Table {
        fn export(&self, r: &Two) -> Result<String, ExportError> {
            Ok(format!("n is {}\n", r.n))
        }
    }

    impl Exports for Two {
        fn exporter(format: Format) -> Option<&'static dyn Exporter<Two>> {
            match format {
                Format::Table => Some(&Table),
                Format::Json => Some(&Json),
                _ => None,
            }
        }
    }

    /// A run on one machine and a comparison of two such runs, in every
    /// format they come in: snapshots taken before runs on many hosts were
    /// shown, which the views of such runs must leave byte for byte.
    #[test]
    fn one_machine_reports_and_comparisons_stay_as_they_were() {
        use crate::view::compare::comparison;
        use crate::view::report::Report;
        use crate::view::testing::run;

        let report = Report::new(run(false));
        let mut other = run(false);
        other.dir = "/nonexistent/methodic-other".into();
        other.steps[0].summary.as_mut().unwrap().total.iops = 2500.0;
        let compared = comparison(&[run(false), other]);
        insta::with_settings!({ snapshot_path => "../../snapshots", prepend_module_to_snapshot => false, omit_expression => true }, {
            for f in Report::formats() {
                insta::assert_snapshot!(format!("one-machine-report.{f}"), report.export(f).unwrap());
            }
            for f in crate::view::compare::Comparison::formats() {
                insta::assert_snapshot!(format!("one-machine-compare.{f}"), compared.export(f).unwrap());
            }
        });
    }

    #[test]
    fn names_read_back() {
        for f in Format::ALL {
            assert_eq!(Format::from_name(f.name()), Some(f));
        }
        assert_eq!(Format::from_name("Table"), None);
    }

    #[test]
    fn a_result_is_written_in_the_formats_it_offers_and_refuses_others() {
        assert_eq!(Two::formats(), [Format::Table, Format::Json]);
        assert_eq!(Two { n: 3 }.export(Format::Table).unwrap(), "n is 3\n");
        assert_eq!(Two { n: 3 }.export(Format::Json).unwrap(), "{\n  \"n\": 3\n}\n");
        let e = Two { n: 3 }.export(Format::Html).unwrap_err().to_string();
        assert_eq!(e, "this output does not come as html (it comes as table, json)");
    }
}
