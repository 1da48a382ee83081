//! `methodic diff OLD NEW`: two methodologies (or compiled plans) in; out
//! come the changes between their plans, grouped by what they do to
//! comparability, each with the steps whose results it touches, a one-line
//! summary, and an exit code CI can branch on: 0 no change, 1 only changes
//! that keep results comparable, 2 a change that breaks comparability, 3 the
//! inputs could not be read.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Result, bail};
use methodic_compiler::diff::{PlanDiff, diff};
use methodic_results::view::diff::Changes;

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

/// The exit code for inputs that cannot be read: 1 and 2 mean changes.
pub const TROUBLE: u8 = 3;

pub fn run(args: DiffArgs) -> Result<ExitCode> {
    match changes(&args) {
        Ok((diff, new_steps)) => {
            let code = diff.exit_code();
            args.output.write(&Changes::new(diff, new_steps))?;
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
