//! The `methodic` command: arguments in, a command run, diagnostics on
//! stderr, results on stdout or in files, and an exit code (0 success,
//! 1 a problem in the input or the run, 2 a usage error; `diff`,
//! `report` and `compare` give 3 a meaning of their own, in their help).

mod cli;
mod common;
mod compare;
mod crosscheck;
mod diff;
mod export;
mod format;
mod import;
mod methodology;
mod report;
mod run;
mod shell;

use std::process::ExitCode;

fn main() -> ExitCode {
    match cli::run() {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(1)
        }
    }
}
