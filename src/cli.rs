//! Command-line interface: the clap definitions, and one call to the
//! module of the command given. Commands report diagnostics on stderr (in
//! colour when stderr is a terminal and NO_COLOR is unset) and write their
//! output to stdout or, atomically, to the file they were given
//! (`common`).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::{CommandFactory, Parser, Subcommand};
use methodic_compiler::plan::Bytes;

use crate::common::parse_size;
use crate::format::Output;
use crate::methodology::{self, PlanFormat};

#[derive(Debug, Parser)]
#[command(
    name = "methodic",
    version,
    about = "Compile storage-benchmark methodologies to validated step plans, and run them",
    long_about = "methodic compiles a storage-benchmark methodology (a .method file) into an explicit, \
                  validated step plan, shows what it will do and how long it will take, runs it on a \
                  file or block device, and formats methodology files.\n\n\
                  Start with: methodic run specs/quick.method"
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Check methodology files and report every problem found.
    ///
    /// Exits 0 when no file has errors (warnings are allowed), 1 otherwise.
    Check {
        /// Methodology files (`-` reads standard input).
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Treat warnings as errors.
        #[arg(long)]
        deny_warnings: bool,
        /// How to report: `human` draws each problem under its source
        /// line on stderr; `json` writes one JSON object a line on stdout,
        /// each problem and then a summary, for editors and CI.
        #[arg(long, value_enum, value_name = "FORMAT", default_value_t = methodology::MessageFormat::Human)]
        message_format: methodology::MessageFormat,
    },
    /// Compile a methodology to a step plan.
    Compile {
        /// The methodology file (`-` reads standard input).
        file: PathBuf,
        /// Where to write the plan (`-`, the default, is standard output).
        #[arg(short, long, default_value = "-")]
        output: PathBuf,
        /// The plan's format (how the plan itself is written; results
        /// commands take --format for their output).
        #[arg(long, value_enum, value_name = "PLAN_FORMAT", default_value_t = PlanFormat::Ron)]
        format: PlanFormat,
        /// The target's capacity (such as 2TB or 1.6TB), to estimate bytes written.
        #[arg(long, value_parser = parse_size)]
        capacity: Option<Bytes>,
    },
    /// Show the steps of a methodology or plan, with time and writes per phase.
    Plan {
        /// A methodology (.method) or a compiled plan (.ron or .json).
        file: PathBuf,
        /// The target's capacity (such as 2TB), to estimate bytes written.
        #[arg(long, value_parser = parse_size)]
        capacity: Option<Bytes>,
        /// The steps as a table, CSV, or JSON lines (an object a step).
        #[command(flatten)]
        output: Output<methodic_results::view::plan::PlanSteps>,
    },
    /// Run a methodology or plan on a file or block device, writing a results directory.
    Run(crate::run::RunArgs),
    /// Measure the host ceiling: the engine against a file in RAM, and a
    /// memory copy, with no device in the way.
    Calibrate(crate::run::CalibrateArgs),
    /// Show a results directory: each number with the job that made it, as a
    /// table (or Markdown, CSV, JSON), or one HTML page with charts.
    ///
    /// Exits 0 when the report is written whole, 1 when the results
    /// directory cannot be read, 3 when the report is written but some file
    /// of the run (a series, rounds, probe or latency log) could not be
    /// read: the report names each such file and what is wrong with it, and
    /// so does standard error (--allow-incomplete exits 0 all the same).
    Report(crate::report::ReportArgs),
    /// What changed between two methodologies or plans, and whether old
    /// results stay comparable.
    ///
    /// Exits 0 when nothing changed, 1 when every change keeps results
    /// comparable, 2 when a change breaks comparability, 3 when an input
    /// cannot be read.
    Diff(crate::diff::DiffArgs),
    /// Compare results directories: steps paired by workload and queue depth,
    /// ratios, and every manifest difference that can explain a gap.
    ///
    /// Exits 0 when the comparison is written whole, 1 when a results
    /// directory cannot be read, 3 when the comparison is written but a
    /// series its charts need could not be read: the comparison names each
    /// such file, and so does standard error (--allow-incomplete exits 0
    /// all the same).
    Compare(crate::compare::CompareArgs),
    /// Run one measured step with methodic and with fio on the same
    /// target, alternately, and compare their medians.
    ///
    /// Exits 0 when they agree within 10%, 1 when they do not or a run fails.
    Crosscheck(crate::crosscheck::CrosscheckArgs),
    /// Export a methodology or plan as fio jobs: a section a step, with
    /// the closest fio options and a comment where fio differs.
    Export(crate::export::ExportArgs),
    /// Turn another tool's job file (fio, Iometer, vdbench, DiskSpd) into
    /// a methodology, refusing clearly what it cannot translate; or its
    /// results (fio JSON, an Iometer results CSV, DiskSpd XML results, a
    /// CrystalDiskMark or KDiskMark text report) into a results directory
    /// (-o DIR) that report and compare read like a methodic run's.
    ///
    /// Exits 0 when every job imported, 1 with every problem otherwise.
    Import {
        /// The format to import from.
        #[arg(value_enum)]
        format: crate::import::ImportFormat,
        #[command(flatten)]
        args: crate::import::ImportArgs,
    },
    /// Format methodology files in place, keeping every comment.
    Fmt {
        /// Methodology files (`-` formats standard input to standard output).
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Change nothing; exit 1 and list the files that are not formatted.
        #[arg(long)]
        check: bool,
    },
    /// Print a completion script for a shell, to source or install.
    ///
    /// bash: methodic completions bash > ~/.local/share/bash-completion/completions/methodic
    ///
    /// zsh: methodic completions zsh > ~/.zfunc/_methodic (with fpath+=(~/.zfunc) before compinit in
    /// ~/.zshrc)
    ///
    /// fish: methodic completions fish > ~/.config/fish/completions/methodic.fish
    ///
    /// The .deb installs all three where the shells look.
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page methodic(1), or write it and a page a command
    /// (methodic-run(1), ...) into a folder.
    Man {
        /// Write every page into DIR instead of printing methodic(1).
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
    },
}

pub fn run() -> Result<ExitCode> {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // diff's exit codes 1 and 2 mean changes: its usage errors are 3.
        Err(e) if e.use_stderr() && std::env::args().nth(1).as_deref() == Some("diff") => {
            let _ = e.print();
            return Ok(ExitCode::from(crate::diff::TROUBLE));
        }
        Err(e) => e.exit(),
    };
    match cli.command {
        Command::Check { files, deny_warnings, message_format } => {
            methodology::check(&files, deny_warnings, message_format)
        }
        Command::Compile { file, output, format, capacity } => {
            methodology::compile(&file, &output, format, capacity)
        }
        Command::Plan { file, capacity, output } => methodology::plan(&file, capacity, &output),
        Command::Fmt { files, check } => methodology::fmt(&files, check),
        Command::Run(args) => crate::run::run(args),
        Command::Report(args) => crate::report::report(args),
        Command::Calibrate(args) => crate::run::calibrate(args),
        Command::Compare(args) => crate::compare::compare(args),
        Command::Diff(args) => crate::diff::run(args),
        Command::Export(args) => crate::export::export(args),
        Command::Crosscheck(args) => crate::crosscheck::crosscheck(args),
        Command::Import { format, args } => crate::import::run(format, args),
        Command::Completions { shell } => crate::shell::completions(Cli::command(), shell),
        Command::Man { out } => crate::shell::man(Cli::command(), out.as_deref()),
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    #[test]
    fn cli_is_consistent() {
        Cli::command().debug_assert();
    }
}
