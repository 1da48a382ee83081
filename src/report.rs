//! `methodic report DIR`: a results directory in, its report out
//! (`methodic_results::view::report`): a terminal table (or Markdown, CSV,
//! JSON), or with `--format html` one self-contained page with charts,
//! written where `-o` says. Reads the directory only.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use methodic_results::export::Format;
use methodic_results::view::report::Report;

use crate::common::load_results;
use crate::format::Output;

#[derive(Debug, clap::Args)]
pub struct ReportArgs {
    /// A results directory, as `methodic run` printed it.
    dir: PathBuf,
    #[command(flatten)]
    output: Output<Report>,
    /// The older way to write the HTML page (--format html -o FILE), kept
    /// for the pages that show it: the page goes to FILE, and --format to
    /// standard output.
    #[arg(long, value_name = "FILE", hide = true)]
    html: Option<PathBuf>,
}

pub fn report(args: ReportArgs) -> Result<ExitCode> {
    let report = Report::new(load_results(&args.dir)?);
    if let Some(path) = &args.html {
        eprintln!("note: --html FILE is now --format html -o FILE (--html still works, but may go)");
        crate::format::write(&report, Format::Html, path)?;
    }
    args.output.write(&report)?;
    Ok(ExitCode::SUCCESS)
}
