//! `methodic completions SHELL` and `methodic man`: what a shell and `man`
//! read, generated from the command line's own clap definitions
//! (`crate::cli` hands them over), so that they never drift from what `methodic` takes.
//! dist/ holds the files the .deb installs, as these commands write them
//! (tests/e2e/report/install.rs checks that they are current).

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap_complete::Shell;

/// Writes the completion script of `cmd` for `shell` to standard output.
pub(crate) fn completions(mut cmd: clap::Command, shell: Shell) -> Result<ExitCode> {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut cmd, "methodic", &mut out);
    std::io::stdout().write_all(&out).context("cannot write to standard output")?;
    Ok(ExitCode::SUCCESS)
}

/// Writes methodic(1), the page of `cmd`, to standard output; with `dir`,
/// writes it and a page for each command (methodic-run(1), ...) into
/// `dir`, and names them.
pub(crate) fn man(cmd: clap::Command, dir: Option<&Path>) -> Result<ExitCode> {
    let Some(dir) = dir else {
        // As generate_to renders the top page: without clap's `help`
        // command, which has no page of its own.
        let mut cmd = cmd.disable_help_subcommand(true);
        cmd.build();
        let mut out = Vec::new();
        clap_mangen::Man::new(cmd).render(&mut out).context("cannot render the man page")?;
        std::io::stdout().write_all(&out).context("cannot write to standard output")?;
        return Ok(ExitCode::SUCCESS);
    };
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    clap_mangen::generate_to(cmd, dir)
        .with_context(|| format!("cannot write the man pages into {}", dir.display()))?;
    let mut pages: Vec<String> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read {}", dir.display()))?
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with("methodic") && n.ends_with(".1"))
        .collect();
    pages.sort();
    eprintln!("wrote {} man pages into {}: {}", pages.len(), dir.display(), pages.join(", "));
    Ok(ExitCode::SUCCESS)
}
