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

/// A rehearsal of `specs/SPEC.method` (`--no-ceiling --seed 1`): its
/// results directory, made once for every test binary of this build and
/// kept under cargo's scratch folder for tests. Rehearsals mostly wait on
/// their steps' timers, and several binaries read the same ones (the PTS
/// pages, every spec's completion, the enterprise manifest, the load
/// views): each is made by whichever test asks first, the others wait for
/// it (a lock on a file beside it) and read it. Callers write nothing
/// into it: [`rehearsal_copy`] gives a copy to change.
///
/// The key is the spec's text and the built `methodic` (its size and
/// time), so that a rebuild or an edited spec rehearses again.
#[allow(dead_code)]
pub fn rehearsal(spec: &str) -> std::path::PathBuf {
    use std::hash::{Hash, Hasher};
    let file = root().join("specs").join(format!("{spec}.method"));
    let source = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let bin = std::fs::metadata(env!("CARGO_BIN_EXE_methodic")).unwrap();
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (source, bin.len(), bin.modified().unwrap()).hash(&mut h);
    let cache = Path::new(env!("CARGO_TARGET_TMPDIR")).join("rehearsals");
    std::fs::create_dir_all(&cache).unwrap();
    let name = format!("{spec}-{:016x}", h.finish());
    let out = cache.join(&name);
    let lock = std::fs::File::create(cache.join(format!("{name}.lock"))).unwrap();
    // Held until `lock` is dropped at the end. (`File::lock` would do, but
    // it is newer than the workspace's rust-version.)
    // SAFETY: flock takes a file descriptor and flags, no pointer; `lock`
    // keeps the descriptor open for the call.
    let locked = unsafe { libc::flock(std::os::fd::AsRawFd::as_raw_fd(&lock), libc::LOCK_EX) };
    assert_eq!(locked, 0, "flock {name}.lock: {}", std::io::Error::last_os_error());
    if !out.join(".done").exists() {
        let _ = std::fs::remove_dir_all(&out);
        let o = methodic(&[
            "run",
            "--rehearse",
            "--no-ceiling",
            "--seed",
            "1",
            file.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{spec}: {}", String::from_utf8_lossy(&o.stderr));
        std::fs::write(out.join(".done"), "").unwrap();
        // Rehearsals of earlier builds or texts of this spec are stale.
        for e in std::fs::read_dir(&cache).unwrap().flatten() {
            let n = e.file_name().to_string_lossy().into_owned();
            let this_spec = n.strip_prefix(&format!("{spec}-")).is_some_and(|k| k.len() == 16);
            if this_spec && n != name && e.path().is_dir() {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
    }
    out
}

/// A copy of [`rehearsal`]`(spec)` in a fresh temporary folder named for
/// `name`, to change; the caller removes it.
#[allow(dead_code)]
pub fn rehearsal_copy(spec: &str, name: &str) -> std::path::PathBuf {
    let from = rehearsal(spec);
    let to = temp_path(name);
    let _ = std::fs::remove_dir_all(&to);
    let o = Command::new("cp").arg("-a").arg(&from).arg(&to).output().expect("cp runs");
    assert!(o.status.success(), "cp -a {}: {}", from.display(), String::from_utf8_lossy(&o.stderr));
    let _ = std::fs::remove_file(to.join(".done"));
    to
}
