//! The commands on methodology files themselves: `check`, `compile`,
//! `plan` and `fmt`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Result, bail};
use clap::ValueEnum;
use methodic_compiler::Options;
use methodic_compiler::plan::{Bytes, Format as Serialization};
use methodic_results::view::plan::PlanSteps;

use crate::common::{count, display_name, load_plan, read_input, report, write_output};
use crate::format::Output;

/// How `compile` writes the plan itself: a plan format, which a run or
/// `methodic plan` reads back; not an output format of results
/// (`crate::format`).
#[derive(Debug, Clone, Copy, ValueEnum)]
pub(crate) enum PlanFormat {
    /// RON, as plan.ron in a results directory.
    Ron,
    /// JSON, the same fields.
    Json,
}

pub(crate) fn check(files: &[PathBuf], deny_warnings: bool) -> Result<ExitCode> {
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

pub(crate) fn compile(
    path: &Path,
    output: &Path,
    format: PlanFormat,
    capacity: Option<Bytes>,
) -> Result<ExitCode> {
    let src = read_input(path)?;
    let name = display_name(path);
    match methodic_compiler::compile(&src, &Options { capacity }) {
        Ok(compiled) => {
            report(&compiled.warnings, &name, &src);
            let format = match format {
                PlanFormat::Ron => Serialization::Ron,
                PlanFormat::Json => Serialization::Json,
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

pub(crate) fn plan(path: &Path, capacity: Option<Bytes>, output: &Output<PlanSteps>) -> Result<ExitCode> {
    let Some((plan, _)) = load_plan(path, capacity)? else {
        return Ok(ExitCode::from(1));
    };
    output.write(&PlanSteps::new(plan))?;
    Ok(ExitCode::SUCCESS)
}

pub(crate) fn fmt(files: &[PathBuf], check: bool) -> Result<ExitCode> {
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
