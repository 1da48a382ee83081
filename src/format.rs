//! Output formats: a result a command made goes in, with the format a user
//! named (`table`, `md`, `csv`, `json`, `html`); out comes its text, from
//! the one exporter of that format, written to standard output or to
//! `-o/--output FILE`. Each result says which formats it offers
//! ([`Exports`]); a format it does not offer is refused by name. The
//! formats, the trait and the exporters know nothing of the command line
//! (they can move to a results crate as they are); the clap options that
//! choose them are at the end.

use std::ffi::OsStr;
use std::fmt;
use std::marker::PhantomData;
use std::path::{Path, PathBuf};

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use serde::Serialize;

/// An output format, by the name a user gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Table,
    Md,
    Csv,
    Json,
    Html,
}

impl Format {
    pub const ALL: [Format; 5] = [Format::Table, Format::Md, Format::Csv, Format::Json, Format::Html];

    /// `table`, `md`, `csv`, `json`, `html`: as `--format` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Format::Table => "table",
            Format::Md => "md",
            Format::Csv => "csv",
            Format::Json => "json",
            Format::Html => "html",
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
#[derive(Debug)]
pub enum ExportError {
    /// The result does not come in this format.
    NotOffered { format: Format, offered: Vec<Format> },
    /// The exporter failed (a serializer or a template), in its words.
    Failed { format: Format, detail: String },
}

impl fmt::Display for ExportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExportError::NotOffered { format, offered } => {
                let names: Vec<&str> = offered.iter().map(|f| f.name()).collect();
                write!(f, "this output does not come as {format} (it comes as {})", names.join(", "))
            }
            ExportError::Failed { format, detail } => write!(f, "cannot write the {format} output: {detail}"),
        }
    }
}

impl std::error::Error for ExportError {}

/// Turns one kind of result into text in one format. There is one
/// exporter a format ([`Table`], [`Markdown`], [`Csv`], [`Json`],
/// [`Html`]); a result implements the exporters of the formats it offers.
pub trait Exporter<R: ?Sized> {
    fn export(&self, result: &R) -> Result<String, ExportError>;
}

/// The `table` exporter: text for a terminal.
pub struct Table;
/// The `md` exporter: Markdown.
pub struct Markdown;
/// The `csv` exporter: a header and rows.
pub struct Csv;
/// The `json` exporter: any serializable result, pretty-printed, with a
/// final newline.
pub struct Json;
/// The `html` exporter: one page.
pub struct Html;

impl<R: Serialize + ?Sized> Exporter<R> for Json {
    fn export(&self, result: &R) -> Result<String, ExportError> {
        serde_json::to_string_pretty(result)
            .map(|text| text + "\n")
            .map_err(|e| ExportError::Failed { format: Format::Json, detail: e.to_string() })
    }
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

// ---------------------------------------------------------------- the command line

/// `--format NAME`, offering the formats of the result `R`, with the
/// older `--json` (hidden) that still works and says so.
#[derive(clap::Args)]
pub(crate) struct Choice<R: Exports> {
    /// The output format.
    #[arg(long, value_name = "FORMAT", default_value = "table", value_parser = FormatParser::of::<R>())]
    format: Format,
    /// The older spelling of --format json.
    #[arg(long, hide = true, conflicts_with = "format")]
    json: bool,
    #[arg(skip)]
    result: PhantomData<fn() -> R>,
}

impl<R: Exports> Choice<R> {
    /// The format chosen; a note on stderr when it was chosen with `--json`.
    pub(crate) fn format(&self) -> Format {
        if self.json {
            eprintln!("note: --json is now --format json (--json still works, but may go)");
            return Format::Json;
        }
        self.format
    }
}

/// `--format NAME` and `-o/--output FILE`: what a command prints, how,
/// and where.
#[derive(clap::Args)]
pub(crate) struct Output<R: Exports> {
    #[command(flatten)]
    choice: Choice<R>,
    /// Write the output to FILE (atomically) [default: standard output].
    #[arg(short, long, value_name = "FILE", default_value = "-", hide_default_value = true)]
    output: PathBuf,
}

impl<R: Exports> Output<R> {
    pub(crate) fn format(&self) -> Format {
        self.choice.format()
    }

    /// Writes `result` in the format chosen where it was asked to go.
    pub(crate) fn write(&self, result: &R) -> anyhow::Result<()> {
        write(result, self.format(), &self.output)
    }
}

// By hand: derived, they would ask the result to be Debug.
impl<R: Exports> fmt::Debug for Choice<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Choice").field("format", &self.format).field("json", &self.json).finish()
    }
}

impl<R: Exports> fmt::Debug for Output<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Output").field("choice", &self.choice).field("output", &self.output).finish()
    }
}

/// Writes `result` in `format` to `path` (`-`: standard output), and says
/// on stderr when it went to a file.
pub(crate) fn write<R: Exports>(result: &R, format: Format, path: &Path) -> anyhow::Result<()> {
    let text = result.export(format)?;
    crate::common::write_output(path, &text)?;
    if path != Path::new("-") {
        eprintln!("wrote {} ({format})", path.display());
    }
    Ok(())
}

/// Parses `--format`, listing in `--help` and in errors only the formats
/// the result offers.
#[derive(Debug, Clone)]
struct FormatParser(Vec<Format>);

impl FormatParser {
    fn of<R: Exports>() -> FormatParser {
        FormatParser(R::formats())
    }

    fn values(&self) -> impl Iterator<Item = PossibleValue> + '_ {
        self.0.iter().map(|f| PossibleValue::new(f.name()).help(f.about()))
    }
}

impl TypedValueParser for FormatParser {
    type Value = Format;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<Format, clap::Error> {
        let offered = value.to_str().and_then(Format::from_name).filter(|f| self.0.contains(f));
        match offered {
            Some(f) => Ok(f),
            // clap's own wording: the value, and the ones it could be.
            None => PossibleValuesParser::new(self.values())
                .parse_ref(cmd, arg, value)
                .and(Err(clap::Error::new(clap::error::ErrorKind::InvalidValue).with_cmd(cmd))),
        }
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(self.values()))
    }
}

#[cfg(test)]
mod tests {
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

    #[derive(clap::Parser)]
    struct Cli {
        #[command(flatten)]
        out: Output<Two>,
    }

    #[test]
    fn format_lists_only_what_the_result_offers() {
        use clap::{CommandFactory, Parser};
        Cli::command().debug_assert();
        let cli = Cli::try_parse_from(["x", "--format", "json", "-o", "f.json"]).unwrap();
        assert_eq!(cli.out.format(), Format::Json);
        assert_eq!(cli.out.output, Path::new("f.json"));
        assert_eq!(Cli::try_parse_from(["x", "--json"]).unwrap().out.format(), Format::Json);
        assert_eq!(Cli::try_parse_from(["x"]).unwrap().out.format(), Format::Table);
        let e = Cli::try_parse_from(["x", "--format", "html"]).err().unwrap().to_string();
        assert!(e.contains("'html'") && e.contains("table, json") && !e.contains("csv"), "{e}");
        assert!(Cli::try_parse_from(["x", "--json", "--format", "table"]).is_err());
    }
}
