//! Command-line interface: clap arguments in, one command run. Each
//! command reads its inputs, reports diagnostics on stderr (in colour when
//! stderr is a terminal and NO_COLOR is unset) and writes its output to
//! stdout or, atomically, to the file it was given.

use std::fs;
use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand, ValueEnum};
use methodic_compiler::plan::{Bytes, Format, Plan};
use methodic_compiler::{Diagnostics, Options};
use methodic_grammar::units::{Quantity, QuantityError, parse_quantity};
use tabled::builder::Builder;
use tabled::settings::object::Columns;
use tabled::settings::{Alignment, Style};

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
    },
    /// Compile a methodology to a step plan.
    Compile {
        /// The methodology file (`-` reads standard input).
        file: PathBuf,
        /// Where to write the plan (`-`, the default, is standard output).
        #[arg(short, long, default_value = "-")]
        output: PathBuf,
        /// The plan's format.
        #[arg(long, value_enum, default_value_t = PlanFormat::Ron)]
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
        /// Output the step table as a table, CSV or JSON lines.
        #[arg(long, value_enum, default_value_t = TableFormat::Table)]
        format: TableFormat,
    },
    /// Run a methodology or plan on a file or block device, writing a results directory.
    Run(crate::run::RunArgs),
    /// Measure the host ceiling: the engine against a file in RAM, and a
    /// memory copy, with no device in the way.
    Calibrate(crate::run::CalibrateArgs),
    /// Show a results directory: each number with the job that made it, as a
    /// table (or Markdown, CSV, JSON), and with --html one page with charts.
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
    Compare(crate::compare::CompareArgs),
    /// Run one measured step with methodic and with fio on the same
    /// target, alternately, and compare their medians.
    ///
    /// Exits 0 when they agree within 10%, 1 when they do not or a run fails.
    Crosscheck(crate::crosscheck::CrosscheckArgs),
    /// Export a methodology or plan as fio jobs: a section a step, with
    /// the closest fio options and a comment where fio differs.
    Export(crate::export::ExportArgs),
    /// Turn a simple fio job file into a methodology, refusing clearly
    /// what it cannot translate.
    ///
    /// Exits 0 when every job imported, 1 with every problem otherwise.
    Import {
        /// The format to import from.
        #[arg(value_enum)]
        format: ImportFormat,
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
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum ImportFormat {
    /// An fio job file.
    Fio,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum PlanFormat {
    Ron,
    Json,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum TableFormat {
    Table,
    Csv,
    Json,
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
        Command::Check { files, deny_warnings } => check(&files, deny_warnings),
        Command::Compile { file, output, format, capacity } => compile(&file, &output, format, capacity),
        Command::Plan { file, capacity, format } => plan(&file, capacity, format),
        Command::Fmt { files, check } => fmt(&files, check),
        Command::Run(args) => crate::run::run(args),
        Command::Report(args) => crate::report::report(args),
        Command::Calibrate(args) => crate::run::calibrate(args),
        Command::Compare(args) => crate::compare::compare(args),
        Command::Diff(args) => crate::diff::run(args),
        Command::Export(args) => crate::export::export(args),
        Command::Crosscheck(args) => crate::crosscheck::crosscheck(args),
        Command::Import { format: ImportFormat::Fio, args } => crate::import::run(args),
    }
}

/// `--capacity 2TB`: a size with a unit.
pub(crate) fn parse_size(text: &str) -> std::result::Result<Bytes, String> {
    match parse_quantity(text) {
        Ok(Quantity::Size(b)) if b.0 > 0 => Ok(b),
        Ok(Quantity::Size(_)) => Err("a capacity of 0B holds nothing".to_string()),
        Ok(_) => Err(format!("expected a size such as 2TB or 1.6TB, found `{text}`")),
        Err(QuantityError::TooLarge) => Err(format!("`{text}` is too large")),
        Err(_) => Err(format!("expected a size such as 2TB, 960GB or 1.6TiB, found `{text}`")),
    }
}

pub(crate) fn read_input(path: &Path) -> Result<String> {
    if path == Path::new("-") {
        let mut s = String::new();
        std::io::stdin().read_to_string(&mut s).context("cannot read standard input")?;
        return Ok(s);
    }
    let bytes = fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    String::from_utf8(bytes).with_context(|| format!("{} is not UTF-8 text", path.display()))
}

pub(crate) fn display_name(path: &Path) -> String {
    if path == Path::new("-") { "<stdin>".to_string() } else { path.display().to_string() }
}

pub(crate) fn color() -> bool {
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none()
}

pub(crate) fn report(diags: &Diagnostics, name: &str, src: &str) {
    if !diags.is_empty() {
        eprint!("{}", diags.render(name, src, color()));
    }
}

/// Writes `text` to `path`, or to stdout for `-`. A file is written
/// beside its destination and renamed over it, so that a failure leaves
/// no half-written file.
pub(crate) fn write_output(path: &Path, text: &str) -> Result<()> {
    if path == Path::new("-") {
        let mut out = std::io::stdout().lock();
        return match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
            // A reader that stopped early (`| head`) is not an error.
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
            result => result.context("cannot write to standard output"),
        };
    }
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let file_name = path.file_name().with_context(|| format!("{} is not a file name", path.display()))?;
    let tmp = dir.join(format!(".{}.tmp{}", file_name.to_string_lossy(), std::process::id()));
    let result = (|| -> Result<()> {
        let mut f = fs::File::create(&tmp).with_context(|| format!("cannot create {}", tmp.display()))?;
        f.write_all(text.as_bytes()).with_context(|| format!("cannot write {}", tmp.display()))?;
        f.sync_all().with_context(|| format!("cannot sync {}", tmp.display()))?;
        fs::rename(&tmp, path).with_context(|| format!("cannot replace {}", path.display()))?;
        Ok(())
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

pub(crate) fn count(n: usize, what: &str) -> String {
    if n == 1 { format!("1 {what}") } else { format!("{n} {what}s") }
}

fn check(files: &[PathBuf], deny_warnings: bool) -> Result<ExitCode> {
    let mut errors = 0;
    let mut warnings = 0;
    let mut failed = 0;
    let mut unreadable = 0;
    for path in files {
        // One unreadable file does not hide the problems of the others.
        let src = match read_input(path) {
            Ok(src) => src,
            Err(e) => {
                eprintln!("error: {e:#}");
                unreadable += 1;
                failed += 1;
                continue;
            }
        };
        let diags = methodic_compiler::check(&src);
        report(&diags, &display_name(path), &src);
        let e = diags.errors().count();
        let w = diags.len() - e;
        errors += e;
        warnings += w;
        if e > 0 || (deny_warnings && w > 0) {
            failed += 1;
        }
    }
    let mut summary = format!(
        "checked {}: {}, {}",
        count(files.len() - unreadable, "file"),
        count(errors, "error"),
        count(warnings, "warning")
    );
    if unreadable > 0 {
        summary.push_str(&format!("; {} could not be read", count(unreadable, "file")));
    }
    if deny_warnings && warnings > 0 {
        summary.push_str(" (--deny-warnings: warnings fail the check)");
    }
    eprintln!("{summary}");
    Ok(if failed > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

fn compile(path: &Path, output: &Path, format: PlanFormat, capacity: Option<Bytes>) -> Result<ExitCode> {
    let src = read_input(path)?;
    let name = display_name(path);
    match methodic_compiler::compile(&src, &Options { capacity }) {
        Ok(compiled) => {
            report(&compiled.warnings, &name, &src);
            let format = match format {
                PlanFormat::Ron => Format::Ron,
                PlanFormat::Json => Format::Json,
            };
            write_output(output, &compiled.plan.write(format))?;
            if output != Path::new("-") {
                eprintln!(
                    "wrote {} ({}, {})",
                    output.display(),
                    count(compiled.plan.steps.len(), "step"),
                    compiled.plan.estimate.time.human()
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(diags) => {
            report(&diags, &name, &src);
            eprintln!("{name}: {}; no plan written", count(diags.errors().count(), "error"));
            Ok(ExitCode::from(1))
        }
    }
}

/// A methodology compiled (with its source), or a plan loaded and
/// validated; `None` when it has errors, which are reported.
pub(crate) fn load(path: &Path, capacity: Option<Bytes>) -> Result<Option<(Plan, Option<String>)>> {
    let text = read_input(path)?;
    let name = display_name(path);
    let is_plan = matches!(path.extension().and_then(|e| e.to_str()), Some("ron" | "json"));
    if is_plan {
        return match methodic_compiler::load_plan(&text) {
            Ok(mut plan) => {
                if let Some(c) = capacity {
                    let problems = methodic_compiler::fits_capacity(&plan.steps, c);
                    if problems.has_errors() {
                        report(&problems, &name, &text);
                        return Ok(None);
                    }
                    plan.estimate = methodic_compiler::estimate::plan(&plan.steps, capacity);
                }
                Ok(Some((plan, None)))
            }
            Err(diags) => {
                report(&diags, &name, &text);
                eprintln!("{name}: not a valid plan");
                Ok(None)
            }
        };
    }
    match methodic_compiler::compile(&text, &Options { capacity }) {
        Ok(c) => {
            report(&c.warnings, &name, &text);
            Ok(Some((c.plan, Some(text))))
        }
        Err(diags) => {
            report(&diags, &name, &text);
            eprintln!("{name}: {}", count(diags.errors().count(), "error"));
            Ok(None)
        }
    }
}

fn plan(path: &Path, capacity: Option<Bytes>, format: TableFormat) -> Result<ExitCode> {
    let Some((plan, _)) = load(path, capacity)? else {
        return Ok(ExitCode::from(1));
    };
    let headers = ["#", "step", "what", "qd", "time", "writes"];
    let rows: Vec<[String; 6]> = plan
        .steps
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let time = if s.estimate.device_bound {
                if s.estimate.time.is_zero() {
                    "device-bound".to_string()
                } else {
                    format!("{} + device-bound", s.estimate.time.human())
                }
            } else {
                s.estimate.time.human()
            };
            [
                (i + 1).to_string(),
                s.id.clone(),
                s.describe(),
                s.qd().unwrap_or_else(|| "-".into()),
                time,
                s.estimate.written.human(plan.conventions.units),
            ]
        })
        .collect();
    let mut out = String::new();
    match format {
        TableFormat::Csv => {
            out.push_str(&csv_line(&headers));
            for r in &rows {
                out.push_str(&csv_line(r));
            }
        }
        TableFormat::Json => {
            for (s, r) in plan.steps.iter().zip(&rows) {
                let line = serde_json::json!({
                    "id": s.id,
                    "phase": s.phase,
                    "kind": s.action.kind(),
                    "what": r[2],
                    "qd": r[3],
                    "time_min_ms": s.estimate.time.min.as_millis(),
                    "time_max_ms": s.estimate.time.max.as_millis(),
                    "device_bound": s.estimate.device_bound,
                    "writes": s.estimate.written,
                });
                out.push_str(&line.to_string());
                out.push('\n');
            }
        }
        TableFormat::Table => {
            let m = &plan.methodology;
            out.push_str(&format!("{} version {}", m.name, m.version));
            if let Some(d) = &m.description {
                out.push_str(&format!(": {d}"));
            }
            out.push('\n');
            let mut b = Builder::default();
            b.push_record(headers);
            for r in &rows {
                b.push_record(r.clone());
            }
            let mut table = b.build();
            table.with(Style::sharp());
            table.modify(Columns::first(), Alignment::right());
            out.push_str(&table.to_string());
            out.push_str("\n\n");

            let mut b = Builder::default();
            b.push_record(["phase", "steps", "time", "device-bound steps", "writes"]);
            for p in plan.phases() {
                b.push_record([
                    p.phase.unwrap_or_else(|| "(no phase)".into()),
                    p.steps.to_string(),
                    p.time.human(),
                    p.device_bound_steps.to_string(),
                    p.written.human(plan.conventions.units),
                ]);
            }
            let e = &plan.estimate;
            b.push_record([
                "total".to_string(),
                plan.steps.len().to_string(),
                e.time.human(),
                e.device_bound_steps.to_string(),
                e.written.human(plan.conventions.units),
            ]);
            let mut table = b.build();
            table.with(Style::sharp());
            out.push_str(&table.to_string());
            out.push('\n');
            if e.device_bound_steps > 0 {
                let n = e.device_bound_steps;
                out.push_str(&format!(
                    "\n{} on the device's speed (erase, fill, until written, copy, probe) \
                     and {} to the time above.\n",
                    if n == 1 { "1 step depends".to_string() } else { format!("{n} steps depend") },
                    if n == 1 { "adds" } else { "add" },
                ));
            }
            match (e.capacity, e.written_bytes) {
                (Some(c), Some(w)) => {
                    let binary = plan.conventions.units == methodic_compiler::plan::Units::Binary;
                    out.push_str(&format!(
                        "On a {} target the plan writes {}, besides its timed writes.\n",
                        c.human(binary),
                        w.human(binary)
                    ))
                }
                _ if e.written.capacity != methodic_compiler::plan::Percent::ZERO => out
                    .push_str("Give --capacity (such as --capacity 2TB) for the bytes written as a size.\n"),
                _ => {}
            }
        }
    }
    write_output(Path::new("-"), &out)?;
    Ok(ExitCode::SUCCESS)
}

pub(crate) fn csv_line(fields: &[impl AsRef<str>]) -> String {
    let quoted: Vec<String> = fields
        .iter()
        .map(|f| {
            let f = f.as_ref();
            if f.contains([',', '"', '\n']) {
                format!("\"{}\"", f.replace('"', "\"\""))
            } else {
                f.to_string()
            }
        })
        .collect();
    format!("{}\n", quoted.join(","))
}

fn fmt(files: &[PathBuf], check: bool) -> Result<ExitCode> {
    let mut unformatted = Vec::new();
    let mut failed = false;
    for path in files {
        let name = display_name(path);
        let src = match read_input(path) {
            Ok(src) => src,
            Err(e) => {
                eprintln!("error: {e:#}");
                failed = true;
                continue;
            }
        };
        let formatted = match methodic_grammar::format(&src) {
            Ok(f) => f,
            Err(diags) => {
                report(&diags, &name, &src);
                eprintln!("{name}: not formatted, as it does not parse");
                failed = true;
                continue;
            }
        };
        if path == Path::new("-") {
            if check {
                if formatted != src {
                    unformatted.push(name);
                }
            } else {
                write_output(path, &formatted)?;
            }
            continue;
        }
        if formatted == src {
            continue;
        }
        if check {
            unformatted.push(name);
        } else {
            write_output(path, &formatted)?;
            eprintln!("formatted {name}");
        }
    }
    if !unformatted.is_empty() {
        for name in &unformatted {
            eprintln!("{name} is not formatted");
        }
        eprintln!("run `methodic fmt {}` to format", unformatted.join(" "));
        return Ok(ExitCode::from(1));
    }
    if failed {
        bail!("some files could not be read or formatted");
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    #[test]
    fn cli_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn capacity_needs_a_size() {
        assert_eq!(parse_size("2TB"), Ok(Bytes(2_000_000_000_000)));
        assert_eq!(parse_size("1.6TB"), Ok(Bytes(1_600_000_000_000)));
        assert!(parse_size("2").unwrap_err().contains("2TB"));
        assert!(parse_size("2T").is_err());
        assert!(parse_size("0B").is_err());
    }

    #[test]
    fn csv_quotes_what_needs_it() {
        assert_eq!(csv_line(&["a", "b,c", "d\"e"]), "a,\"b,c\",\"d\"\"e\"\n");
    }
}
