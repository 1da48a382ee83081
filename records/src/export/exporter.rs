//! What every exporter shares: the [`Exporter`] trait (a result in, its
//! text in one format out), [`Exports`] (which exporter a result has for
//! each format, and so which formats it offers) and [`ExportError`] (a
//! format not offered, or an exporter that failed). Names no exporter and
//! no result: each exporter imports this, and `offers` says which result
//! comes in which format.

use super::format::Format;

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
/// exporter a format ([`Table`](super::Table),
/// [`Markdown`](super::Markdown), [`Csv`](super::Csv),
/// [`Json`](super::Json), [`Html`](super::Html),
/// [`FioJson`](super::FioJson)), which implements this for each result that
/// comes in its format.
pub trait Exporter<R: ?Sized> {
    fn export(&self, result: &R) -> Result<String, ExportError>;

    /// The result as the bytes of a file: a text format's text, or a
    /// binary format's own bytes (an xlsx workbook, whose `export` says it
    /// has no text).
    fn bytes(&self, result: &R) -> Result<Vec<u8>, ExportError> {
        self.export(result).map(String::into_bytes)
    }
}

/// A result a command prints, and its exporter for each format it offers
/// (each result's `impl` is in `offers`).
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

    /// The result as the bytes of a file in `format` (text formats: their
    /// text; `xlsx`: a workbook).
    fn export_bytes(&self, format: Format) -> Result<Vec<u8>, ExportError> {
        match Self::exporter(format) {
            Some(e) => e.bytes(self),
            None => Err(ExportError::NotOffered { format, offered: Self::formats() }),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde::Serialize;

    use super::*;
    use crate::export::{Json, Table};

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

    #[test]
    fn a_result_is_written_in_the_formats_it_offers_and_refuses_others() {
        assert_eq!(Two::formats(), [Format::Table, Format::Json]);
        assert_eq!(Two { n: 3 }.export(Format::Table).unwrap(), "n is 3\n");
        assert_eq!(Two { n: 3 }.export(Format::Json).unwrap(), "{\n  \"n\": 3\n}\n");
        let e = Two { n: 3 }.export(Format::Html).unwrap_err().to_string();
        assert_eq!(e, "this output does not come as html (it comes as table, json)");
    }
}
