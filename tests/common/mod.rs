//! What the command-line tests share: the repository root and a way to run
//! the built `methodic` there.

use std::path::Path;
use std::process::{Command, Output};

/// The repository root, where specs/ and tests/errors/ are.
pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Runs the built `methodic` in the repository root, colours off.
pub fn methodic(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_methodic"))
        .args(args)
        .current_dir(root())
        .env("NO_COLOR", "1")
        .output()
        .expect("methodic runs")
}
