//! The formats a user names: `--format`'s word in, a [`Format`] out (and
//! back: its name and what it is, for `--help`). Knows no result and no
//! exporter.

use std::fmt;

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
    /// An Office Open XML workbook (`.xlsx`), with native charts: binary,
    /// so written to a file, not a terminal.
    Xlsx,
}

impl Format {
    pub const ALL: [Format; 7] =
        [Format::Table, Format::Md, Format::Csv, Format::Json, Format::Html, Format::FioJson, Format::Xlsx];

    /// `table`, `md`, `csv`, `json`, `html`, `fio-json`: as `--format` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Format::Table => "table",
            Format::Md => "md",
            Format::Csv => "csv",
            Format::Json => "json",
            Format::Html => "html",
            Format::FioJson => "fio-json",
            Format::Xlsx => "xlsx",
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
            Format::Xlsx => {
                "a spreadsheet workbook with native charts, for Excel and LibreOffice (binary: to -o FILE or a pipe)"
            }
        }
    }

    /// Whether the format's output is text: false for a workbook, which
    /// is bytes for a file, not for a terminal.
    pub fn is_text(self) -> bool {
        !matches!(self, Format::Xlsx)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_back() {
        for f in Format::ALL {
            assert_eq!(Format::from_name(f.name()), Some(f));
        }
        assert_eq!(Format::from_name("Table"), None);
    }
}
