//! `--format NAME` and `-o/--output FILE` for every command that prints a
//! result: the formats a result offers (`methodic_results::export`) listed
//! in `--help` and parsed by name, the older `--json` still taken, and the
//! result's text written to standard output or atomically to a file.

use std::ffi::OsStr;
use std::fmt;
use std::marker::PhantomData;
use std::path::{Path, PathBuf};

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use methodic_results::export::{Exports, Format};

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
/// A binary format (a workbook) is not written to a terminal: `-o FILE`
/// is asked for instead.
pub(crate) fn write<R: Exports>(result: &R, format: Format, path: &Path) -> anyhow::Result<()> {
    use std::io::IsTerminal;
    if !format.is_text() && path == Path::new("-") && std::io::stdout().is_terminal() {
        anyhow::bail!(
            "--format {format} makes a binary file, which a terminal cannot show: write it to a file with -o \
             FILE.{format}, or pipe it"
        );
    }
    let bytes = result.export_bytes(format)?;
    crate::common::write_bytes(path, &bytes)?;
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
    use methodic_results::view::compare::Comparison;

    use super::*;

    #[derive(clap::Parser)]
    struct Cli {
        #[command(flatten)]
        /// compare's result: it comes as a table, as JSON and as HTML.
        out: Output<Comparison>,
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
        let e = Cli::try_parse_from(["x", "--format", "csv"]).err().unwrap().to_string();
        assert!(e.contains("'csv'") && e.contains("table, json, html") && !e.contains(" md"), "{e}");
        assert!(Cli::try_parse_from(["x", "--json", "--format", "table"]).is_err());
    }
}
