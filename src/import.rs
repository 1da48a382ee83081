//! `methodic import fio JOBFILE`: reads the job file (or standard input),
//! imports it with `methodic_fio::fio_to_method`, and writes the
//! methodology (standard output or `-o FILE`); or prints every problem on
//! stderr, writes nothing and exits 1. The job file model, the option
//! table and the translation live in the methodic-fio crate (fio/).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Result, bail};
use methodic_fio::fio_to_method;

use crate::common::{count, display_name, read_input, write_output};

#[derive(Debug, clap::Args)]
pub struct ImportArgs {
    /// The fio job file (`-` reads standard input).
    pub job: PathBuf,
    /// Where to write the methodology (`-`, the default, is standard output).
    /// Nothing is written when the job file cannot be imported.
    #[arg(short, long, default_value = "-")]
    pub output: PathBuf,
    /// The methodology's name [default: the job file's name without its extension].
    #[arg(long)]
    pub name: Option<String>,
}

/// Reads the job file, imports it, writes the methodology; exits 1 with
/// every problem on stderr, and nothing written, when it cannot.
pub fn run(args: ImportArgs) -> Result<ExitCode> {
    let text = read_input(&args.job)?;
    let file = display_name(&args.job);
    let name = match &args.name {
        Some(name) => name.clone(),
        None => default_name(&args.job),
    };
    if name.trim().is_empty() {
        bail!("--name needs a name that is not blank");
    }
    match fio_to_method(&text, &file, &name) {
        Ok(imported) => {
            write_output(&args.output, &imported.text)?;
            let mut summary = format!("imported {} from {file}", count(imported.jobs, "job"));
            if args.output != Path::new("-") {
                summary = format!("wrote {}: {summary}", args.output.display());
            }
            if imported.dropped > 0 {
                summary.push_str(&format!(
                    "; {} not carried over (see the comments)",
                    count(imported.dropped, "option")
                ));
            }
            eprintln!("{summary}");
            Ok(ExitCode::SUCCESS)
        }
        Err(errors) => {
            for e in &errors {
                eprintln!("error: {e}");
                if let Some(hint) = &e.hint {
                    eprintln!("  hint: {hint}");
                }
            }
            eprintln!("{file}: {}; nothing written", count(errors.len(), "problem"));
            Ok(ExitCode::from(1))
        }
    }
}

/// The job file's name without its extension; `fio-import` for stdin.
fn default_name(path: &Path) -> String {
    if path == Path::new("-") {
        return "fio-import".to_string();
    }
    path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "fio-import".to_string())
}
