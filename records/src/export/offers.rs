//! Which exporter each result has for each format: a result (each view a
//! command prints) and a [`Format`] in, out the exporter that writes it,
//! or none where the result does not come in that format (which
//! `--format` then refuses by name). The one place a view meets its
//! exporters: the views name no exporter, and the exporters do not say
//! which results offer them.

use super::exporter::{Exporter, Exports};
use super::format::Format;
use super::{Csv, FioJson, Html, Json, Markdown, Table, Xlsx};
use crate::view::compare::Comparison;
use crate::view::crosscheck::Crosscheck;
use crate::view::diff::Changes;
use crate::view::plan::PlanSteps;
use crate::view::report::Report;
use crate::view::run::{HostCeilings, Ran};

/// `methodic report`: every format.
impl Exports for Report {
    fn exporter(format: Format) -> Option<&'static dyn Exporter<Report>> {
        Some(match format {
            Format::Table => &Table,
            Format::Md => &Markdown,
            Format::Csv => &Csv,
            Format::Json => &Json,
            Format::Html => &Html,
            Format::FioJson => &FioJson,
            Format::Xlsx => &Xlsx,
        })
    }
}

/// `methodic compare`: a table, JSON, a page or a workbook.
impl Exports for Comparison {
    fn exporter(format: Format) -> Option<&'static dyn Exporter<Comparison>> {
        match format {
            Format::Table => Some(&Table),
            Format::Json => Some(&Json),
            Format::Html => Some(&Html),
            Format::Xlsx => Some(&Xlsx),
            Format::Md | Format::Csv | Format::FioJson => None,
        }
    }
}

/// `methodic plan`: a table, CSV or JSON lines.
impl Exports for PlanSteps {
    fn exporter(format: Format) -> Option<&'static dyn Exporter<PlanSteps>> {
        match format {
            Format::Table => Some(&Table),
            Format::Csv => Some(&Csv),
            Format::Json => Some(&Json),
            Format::Md | Format::Html | Format::FioJson | Format::Xlsx => None,
        }
    }
}

/// `methodic run`'s end: a table or JSON.
impl Exports for Ran {
    fn exporter(format: Format) -> Option<&'static dyn Exporter<Ran>> {
        table_or_json(format)
    }
}

/// `methodic calibrate`: a table or JSON.
impl Exports for HostCeilings {
    fn exporter(format: Format) -> Option<&'static dyn Exporter<HostCeilings>> {
        table_or_json(format)
    }
}

/// `methodic diff`: a table or JSON.
impl Exports for Changes {
    fn exporter(format: Format) -> Option<&'static dyn Exporter<Changes>> {
        table_or_json(format)
    }
}

/// `methodic crosscheck`: a table or JSON.
impl Exports for Crosscheck {
    fn exporter(format: Format) -> Option<&'static dyn Exporter<Crosscheck>> {
        table_or_json(format)
    }
}

/// A result that comes as a table and as JSON only.
fn table_or_json<R>(format: Format) -> Option<&'static dyn Exporter<R>>
where
    Table: Exporter<R>,
    Json: Exporter<R>,
{
    match format {
        Format::Table => Some(&Table),
        Format::Json => Some(&Json),
        Format::Md | Format::Csv | Format::Html | Format::FioJson | Format::Xlsx => None,
    }
}
