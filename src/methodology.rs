//! The commands on methodology files themselves: `check`, `compile`,
//! `plan` and `fmt`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Result, bail};
use clap::ValueEnum;
use methodic_compiler::Options;
use methodic_compiler::plan::{Bytes, Format as Serialization, Plan};
use methodic_results::export::{Csv, ExportError, Exporter, Exports, Format, Json, Table, csv};
use tabled::builder::Builder;
use tabled::settings::object::Columns;
use tabled::settings::{Alignment, Style};

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
    output.write(&PlanSteps { plan })?;
    Ok(ExitCode::SUCCESS)
}

/// What `methodic plan` prints: a plan's steps, each with its time and
/// writes, and its phases.
pub(crate) struct PlanSteps {
    plan: Plan,
}

impl Exports for PlanSteps {
    fn exporter(format: Format) -> Option<&'static dyn Exporter<PlanSteps>> {
        match format {
            Format::Table => Some(&Table),
            Format::Csv => Some(&Csv),
            Format::Json => Some(&Json),
            _ => None,
        }
    }
}

const HEADERS: [&str; 6] = ["#", "step", "what", "qd", "time", "writes"];

impl PlanSteps {
    /// A row a step, in [`HEADERS`]' order.
    fn rows(&self) -> Vec<[String; 6]> {
        let plan = &self.plan;
        plan.steps
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
            .collect()
    }
}

impl Exporter<PlanSteps> for Csv {
    fn export(&self, p: &PlanSteps) -> Result<String, ExportError> {
        let mut out = csv::line(&HEADERS);
        for r in p.rows() {
            out.push_str(&csv::line(&r));
        }
        Ok(out)
    }
}

/// JSON lines: an object a step.
impl Exporter<PlanSteps> for Json {
    fn export(&self, p: &PlanSteps) -> Result<String, ExportError> {
        let mut out = String::new();
        for (s, r) in p.plan.steps.iter().zip(p.rows()) {
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
        Ok(out)
    }
}

impl Exporter<PlanSteps> for Table {
    fn export(&self, p: &PlanSteps) -> Result<String, ExportError> {
        let plan = &p.plan;
        let mut out = String::new();
        let m = &plan.methodology;
        out.push_str(&format!("{} version {}", m.name, m.version));
        if let Some(d) = &m.description {
            out.push_str(&format!(": {d}"));
        }
        out.push('\n');
        let mut b = Builder::default();
        b.push_record(HEADERS);
        for r in p.rows() {
            b.push_record(r);
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
            _ if e.written.capacity != methodic_compiler::plan::Percent::ZERO => {
                out.push_str("Give --capacity (such as --capacity 2TB) for the bytes written as a size.\n")
            }
            _ => {}
        }
        Ok(out)
    }
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
