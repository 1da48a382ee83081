//! Output formats: a result (a [`Report`](crate::view::report::Report), a
//! [`Comparison`](crate::view::compare::Comparison), or a command's own)
//! and the format a user named (`table`, `md`, `csv`, `json`, `html`,
//! `fio-json`) go in;
//! out comes its text, from the one exporter of that format. A format is
//! named in `format` ([`Format`]); what every exporter shares (the
//! [`Exporter`] and [`Exports`] traits, [`ExportError`]) is in `exporter`;
//! which formats each result offers is said in one place, `offers`, and a
//! format a result does not offer is refused by name. One module a format
//! holds its exporter and how each result is written in it. The views
//! name no exporter; nothing here knows the command line.

pub mod csv;
mod exporter;
pub mod fio_json;
mod format;
pub mod html;
pub mod json;
pub mod md;
mod offers;
pub mod table;

pub use csv::Csv;
pub use exporter::{ExportError, Exporter, Exports};
pub use fio_json::FioJson;
pub use format::Format;
pub use html::Html;
pub use json::Json;
pub use md::Markdown;
pub use table::Table;

#[cfg(test)]
mod tests {
    use super::*;

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
}
