//! `methodic compare A B [C...]`: results directories in; out comes their
//! comparison (`methodic_results::view::compare`): steps paired by what
//! they did, ratios to the first directory's, the steps with no
//! counterpart and every manifest difference that can explain a gap, as a
//! table, JSON, or one self-contained HTML page with every run's curves on
//! the same axes (`--format html -o FILE`, or `--html FILE` beside another
//! format). Reads the directories only. A series the page charts that
//! cannot be read is named in the comparison and on standard error, and
//! the exit code is then 3 unless `--allow-incomplete`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use methodic_results::export::Format;
use methodic_results::manifest::Loaded;
use methodic_results::view::compare::{Comparison, comparison};

use crate::common::{Incomplete, load_results, unreadable_words};
use crate::format::Output;

#[derive(Debug, clap::Args)]
pub struct CompareArgs {
    /// Two or more results directories; the first is the baseline every
    /// ratio is taken against.
    #[arg(required = true, num_args = 2.., value_name = "DIR")]
    dirs: Vec<PathBuf>,
    #[command(flatten)]
    output: Output<Comparison>,
    /// Also write the comparison as one HTML page (charts, no script, no
    /// network) to FILE, while --format goes where -o says: the same page
    /// as --format html -o FILE.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    #[command(flatten)]
    incomplete: Incomplete,
}

pub fn compare(args: CompareArgs) -> Result<ExitCode> {
    let runs: Vec<Loaded> = args.dirs.iter().map(|d| load_results(d)).collect::<Result<_>>()?;
    let compared = comparison(&runs);
    if let Some(path) = &args.html {
        crate::format::write(&compared, Format::Html, path)?;
    }
    args.output.write(&compared)?;
    // Each file with its run's letter and directory: `B (/results/b):
    // series/...`.
    let dir =
        |letter: &str| compared.runs.iter().find(|r| r.name == letter).map(|r| r.dir.display().to_string());
    let files: Vec<String> = compared
        .unreadable
        .iter()
        .map(|u| format!("{} ({}): {}", u.run, dir(&u.run).unwrap_or_default(), u.file))
        .collect();
    let why = unreadable_words(files.len(), "the runs");
    Ok(args.incomplete.end("the comparison", &why, &files))
}
