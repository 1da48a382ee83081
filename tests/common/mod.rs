//! What the command-line tests share: the repository root, a way to run
//! the built `methodic` there, and giving up a test that cannot run here
//! (skip, require_root, require_tool: under CI=true the test fails instead,
//! naming what is missing).

use std::path::Path;
use std::process::{Child, Command, Output, Stdio};

// One definition with the runtime's device tests (which tests/faults.rs
// includes as well, hence a second copy of the module there).
#[path = "../../runtime/tests/common/skip.rs"]
#[allow(clippy::duplicate_mod)]
mod skip;
#[allow(unused_imports)]
pub use skip::{require_root, require_tool, skip, skip_tool, under_ci};
// The one temporary-folder helper, shared the same way.
#[path = "../../runtime/tests/common/temp.rs"]
#[allow(clippy::duplicate_mod)]
mod temp;
#[allow(unused_imports)]
pub use temp::{temp_dir, temp_name, temp_path};

/// The repository root, where specs/ and tests/errors/ are.
pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The built `methodic` with `args`, to run in the repository root,
/// colours off.
pub fn command(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_methodic"));
    c.args(args).current_dir(root()).env("NO_COLOR", "1");
    c
}

/// Runs the built `methodic` in the repository root, colours off.
pub fn methodic(args: &[&str]) -> Output {
    command(args).output().expect("methodic runs")
}

/// `methodic` with `input` on its standard input.
#[allow(dead_code)]
pub fn methodic_stdin(args: &[&str], input: &[u8]) -> Output {
    use std::io::Write;
    let mut child = command(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("methodic runs");
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}

/// `methodic` started and left running (to signal or kill), its standard
/// error kept for `wait_with_output`.
#[allow(dead_code)]
pub fn spawn(args: &[&str]) -> Child {
    command(args).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().expect("methodic starts")
}

/// Output bytes as text.
#[allow(dead_code)]
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Writes `source` as a methodology in a new temporary folder named for
/// `name` and runs `methodic run FILE ARGS... --out FOLDER/results`; the
/// results folder, once the run succeeded. The caller removes its parent.
#[allow(dead_code)]
pub fn run_source(name: &str, source: &str, args: &[&str]) -> std::path::PathBuf {
    let dir = temp_dir(name);
    let file = dir.join("m.method");
    std::fs::write(&file, source).unwrap();
    let out = dir.join("results");
    let mut all = vec!["run", file.to_str().unwrap()];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--out", out.to_str().unwrap()]);
    let o = methodic(&all);
    assert!(o.status.success(), "{name}: {}", String::from_utf8_lossy(&o.stderr));
    out
}

/// Whether the tests run as root (device and mount tests need it).
#[allow(dead_code)]
pub fn is_root() -> bool {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status.lines().any(|l| l.starts_with("Uid:") && l.split_whitespace().nth(2) == Some("0"))
}

/// `fio --parse-only JOB` with `${TARGET}` set: fio's own verdict on a job
/// file, its complaint when it refuses one. Panics, saying what to
/// install, when fio is missing (.ci/run installs it).
#[allow(dead_code)]
pub fn fio_parses(job: &Path) -> Result<(), String> {
    let o = Command::new("fio")
        .arg("--parse-only")
        .arg(job)
        .env("TARGET", "/dev/null")
        .output()
        .expect("fio runs (apt-get install fio; .ci/run installs it)");
    if o.status.success() { Ok(()) } else { Err(String::from_utf8_lossy(&o.stderr).into_owned()) }
}
