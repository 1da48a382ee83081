//! `methodic export fio|iometer FILE|PLAN [-o DIR]`: loads the methodology
//! or plan, and turns it into an fio job file with
//! `methodic_fio::plan_to_fio` (written to standard output or to
//! `DIR/NAME-VERSION.fio`), or into Iometer 1.1.0 configuration files with
//! `methodic_import::iometer::plan_to_icf` (one file on standard output, or
//! `DIR/NAME-VERSION-NN.icf` and `DIR/run-iometer.cmd`; what Iometer cannot
//! do is a warning on stderr). What each format says, and cannot, is
//! documented in those crates.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use methodic_fio::{file_name, plan_to_fio};

use crate::common::load_plan;

#[derive(Debug, clap::Args)]
pub struct ExportArgs {
    /// The format to export to.
    #[arg(value_enum)]
    format: ExportFormat,
    /// A methodology (.method) or a compiled plan (.ron or .json).
    file: PathBuf,
    /// The folder to write `NAME-VERSION.fio` (or the .icf files) in
    /// [default: standard output].
    #[arg(short, long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Iometer: the disk target of each device, as Iometer names it (`1:`
    /// for physical disk 1 in Iometer 1.1.0 on Windows, `sdb` for Dynamo on
    /// Linux); once for each device. Without it the files assign no disk.
    #[arg(long = "iometer-target", value_name = "NAME")]
    iometer_targets: Vec<String>,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum ExportFormat {
    /// An fio job file.
    Fio,
    /// Iometer 1.1.0 configuration files (.icf), one for each group of
    /// steps with one run time, ramp and set of workers.
    Iometer,
}

pub fn export(args: ExportArgs) -> Result<ExitCode> {
    let Some((plan, _)) = load_plan(&args.file, None)? else {
        return Ok(ExitCode::from(1));
    };
    if let ExportFormat::Iometer = args.format {
        return export_iometer(&plan, &args);
    }
    if !args.iometer_targets.is_empty() {
        bail!("--iometer-target names Iometer's disks: it goes with `export iometer`");
    }
    let text = plan_to_fio(&plan, None);
    match &args.out {
        None => crate::common::write_output(Path::new("-"), &text)?,
        Some(dir) => {
            std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
            let m = &plan.methodology;
            let path = dir.join(format!("{}-{}.fio", file_name(&m.name), file_name(&m.version)));
            crate::common::write_output(&path, &text)?;
            eprintln!("wrote {} ({} steps)", path.display(), plan.steps.len());
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `methodic export iometer`: the .icf files, with a warning for each
/// thing Iometer cannot do as the plan says; exit 1 when no step can be
/// one.
fn export_iometer(plan: &methodic_compiler::plan::Plan, args: &ExportArgs) -> Result<ExitCode> {
    let exported = match methodic_import::iometer::plan_to_icf(plan, &args.iometer_targets) {
        Ok(e) => e,
        Err(why) => {
            eprintln!("error: {why}");
            return Ok(ExitCode::from(1));
        }
    };
    for w in &exported.warnings {
        eprintln!("warning: {w}");
    }
    match &args.out {
        None => {
            let [file] = exported.files.as_slice() else {
                bail!(
                    "the plan makes {} Iometer files (one for each run time, ramp and set of workers): give -o DIR",
                    exported.files.len()
                );
            };
            crate::common::write_output(Path::new("-"), &file.text)?;
        }
        Some(dir) => {
            std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
            for f in &exported.files {
                let path = dir.join(&f.name);
                crate::common::write_output(&path, &f.text)?;
                eprintln!("wrote {} ({})", path.display(), f.steps.join(", "));
            }
            let batch = dir.join("run-iometer.cmd");
            crate::common::write_output(&batch, &exported.batch)?;
            eprintln!("wrote {}: runs the files one after another in Iometer's batch mode", batch.display());
        }
    }
    Ok(ExitCode::SUCCESS)
}
