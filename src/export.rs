//! `methodic export fio FILE|PLAN [-o DIR]`: loads the methodology or
//! plan, turns it into an fio job file with `methodic_fio::plan_to_fio`
//! (what each section says, and what fio cannot, is documented there), and
//! writes it to standard output or to `DIR/NAME-VERSION.fio`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use methodic_fio::{file_name, plan_to_fio};

use crate::common::load_plan;

#[derive(Debug, clap::Args)]
pub struct ExportArgs {
    /// The format to export to.
    #[arg(value_enum)]
    format: ExportFormat,
    /// A methodology (.method) or a compiled plan (.ron or .json).
    file: PathBuf,
    /// The folder to write `NAME-VERSION.fio` in [default: standard output].
    #[arg(short, long, value_name = "DIR")]
    out: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum ExportFormat {
    /// An fio job file.
    Fio,
}

pub fn export(args: ExportArgs) -> Result<ExitCode> {
    let ExportFormat::Fio = args.format;
    let Some((plan, _)) = load_plan(&args.file, None)? else {
        return Ok(ExitCode::from(1));
    };
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
