//! `methodic diff OLD NEW`: two methodologies (or compiled plans) in; out
//! come the changes between their plans, grouped by what they do to
//! comparability, each with the steps whose results it touches, a one-line
//! summary, and an exit code CI can branch on: 0 no change, 1 only changes
//! that keep results comparable, 2 a change that breaks comparability, 3 the
//! inputs could not be read.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Result, bail};
use methodic_compiler::diff::{Class, PlanDiff, diff};
use methodic_results::export::{ExportError, Exporter, Exports, Format, Json, Table};
use serde::Serialize;
use tabled::builder::Builder;
use tabled::settings::{Style, Width};

use crate::common::load_plan;
use crate::format::Output;

#[derive(Debug, clap::Args)]
pub struct DiffArgs {
    /// The old methodology (.method) or plan (.ron or .json).
    old: PathBuf,
    /// The new one.
    new: PathBuf,
    #[command(flatten)]
    output: Output<Changes>,
}

/// What `methodic diff` prints: the plans' changes, and how many steps the
/// new plan has (for the summary). As JSON, the changes alone.
#[derive(Serialize)]
#[serde(transparent)]
pub struct Changes {
    diff: PlanDiff,
    #[serde(skip)]
    new_steps: usize,
}

impl Exports for Changes {
    fn exporter(format: Format) -> Option<&'static dyn Exporter<Changes>> {
        match format {
            Format::Table => Some(&Table),
            Format::Json => Some(&Json),
            _ => None,
        }
    }
}

impl Exporter<Changes> for Table {
    fn export(&self, c: &Changes) -> Result<String, ExportError> {
        Ok(text(&c.diff, c.new_steps))
    }
}

/// The exit code for inputs that cannot be read: 1 and 2 mean changes.
pub const TROUBLE: u8 = 3;

pub fn run(args: DiffArgs) -> Result<ExitCode> {
    match changes(&args) {
        Ok((diff, new_steps)) => {
            let code = diff.exit_code();
            args.output.write(&Changes { diff, new_steps })?;
            Ok(ExitCode::from(code))
        }
        Err(e) => {
            eprintln!("error: {e:#}");
            Ok(ExitCode::from(TROUBLE))
        }
    }
}

fn changes(args: &DiffArgs) -> Result<(PlanDiff, usize)> {
    let Some((old, _)) = load_plan(&args.old, None)? else {
        bail!("{} does not compile", args.old.display())
    };
    let Some((new, _)) = load_plan(&args.new, None)? else {
        bail!("{} does not compile", args.new.display())
    };
    Ok((diff(&old, &new), new.steps.len()))
}

fn text(d: &PlanDiff, new_steps: usize) -> String {
    let mut out = String::new();
    for class in
        [Class::BreaksComparability, Class::AddsRemovesSteps, Class::ShiftsPrecision, Class::PresentationOnly]
    {
        let changes: Vec<_> = d.changes.iter().filter(|c| c.class == class).collect();
        if changes.is_empty() {
            continue;
        }
        out.push_str(&format!("{} ({}):\n", class.word(), changes.len()));
        let mut b = Builder::default();
        b.push_record(["change", "old", "new", "affected steps", "why"]);
        for c in changes {
            b.push_record([
                c.what.clone(),
                c.old.clone(),
                c.new.clone(),
                c.affected.clone(),
                c.reason.clone(),
            ]);
        }
        let mut t = b.build();
        t.with(Style::sharp());
        t.with(Width::wrap(150).keep_words(true).priority(tabled::settings::peaker::Priority::max(true)));
        out.push_str(&t.to_string());
        out.push_str("\n\n");
    }
    out.push_str(&d.summary(new_steps));
    out.push('\n');
    out
}
