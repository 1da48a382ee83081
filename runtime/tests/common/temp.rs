//! The tests' one temporary-folder helper: a path in the temporary folder
//! named for the test and this process, emptied first, so that a test
//! starts from nothing and two test binaries (or two checkouts) running at
//! once never share a folder. The runtime's tests (runtime/tests/common)
//! and the command-line tests (tests/common) share this file.

// Each test binary uses a part of this.
#![allow(dead_code)]

use std::path::PathBuf;

/// `$TMPDIR/methodic-NAME-PID`, as it is: the name alone, for a caller
/// that must undo something there (a mount) before emptying it.
pub fn temp_name(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("methodic-{name}-{}", std::process::id()))
}

/// [`temp_name`], with whatever a previous run left there removed, and not
/// made: for a results directory that `methodic run` makes itself. The
/// caller removes it.
pub fn temp_path(name: &str) -> PathBuf {
    let path = temp_name(name);
    let _ = std::fs::remove_dir_all(&path);
    let _ = std::fs::remove_file(&path);
    path
}

/// [`temp_path`], made as an empty folder. The caller removes it.
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = temp_path(name);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("cannot make {}: {e}", dir.display()));
    dir
}
