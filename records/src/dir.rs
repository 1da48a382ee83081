//! The results directory of one run: the methodology source, `plan.ron`,
//! `steps.jsonl` (one JSON object per finished step, appended and synced
//! to disk before the next step starts, so that a crash loses at most the
//! step in flight), `series/<step-id>.csv`, and `results.json` at the end.
//! A run holds a lock on the directory (flock) while it writes, so that a
//! resume cannot start while the run is still going.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::error::{Error, Result};

/// What made each number: the manifest ([`crate::manifest::Manifest`]).
pub const MANIFEST_FILE: &str = "manifest.json";

/// The step records of a run, one JSON object a line.
pub const STEPS_FILE: &str = "steps.jsonl";

pub struct ResultsDir {
    pub path: PathBuf,
    steps: File,
    /// The directory did not exist before: discarding removes it whole.
    created: bool,
    /// The directory itself, flocked while the run writes to it.
    _lock: File,
}

impl ResultsDir {
    /// Creates `path` (which must not exist, or be empty) with the plan and
    /// the source in it.
    pub fn create(path: &Path, plan_ron: &str, source: Option<&str>) -> Result<ResultsDir> {
        let created = !path.exists();
        if path.exists() && !path.is_dir() {
            return Err(Error::results(path, "is a file, not a directory")
                .with_hint("give --out a new directory for the results"));
        }
        if holds_anything(path, false) {
            return Err(already(path));
        }
        fs::create_dir_all(path.join("series")).map_err(|e| match e.raw_os_error() {
            Some(libc::EROFS | libc::EACCES | libc::EPERM | libc::ENOSPC | libc::EDQUOT) => {
                Error::results(path, format!("cannot be created: {e}"))
                    .with_hint("give --out a directory on a file system you can write to, with room")
            }
            _ => Error::io(format!("cannot create {}", path.display()), e),
        })?;
        // Locked before anything is written: a second run started on the
        // same new directory is refused, not mixed in.
        let lock = lock(path)?;
        if holds_anything(path, true) {
            return Err(already(path));
        }
        write_synced(&path.join("plan.ron"), plan_ron.as_bytes())?;
        if let Some(src) = source {
            write_synced(&path.join("methodology.method"), src.as_bytes())?;
        }
        let steps = open_steps(path)?;
        sync_dir(path);
        Ok(ResultsDir { path: path.to_path_buf(), steps, created, _lock: lock })
    }

    /// Opens the results directory of an earlier run to go on with it;
    /// refused while a run still holds it.
    pub fn reopen(path: &Path) -> Result<ResultsDir> {
        let lock = lock(path)?;
        let steps = open_steps(path)?;
        Ok(ResultsDir { path: path.to_path_buf(), steps, created: false, _lock: lock })
    }

    /// Keeps only the `kept` lines of `steps.jsonl`; the others (steps run
    /// again on a resume) are appended to `superseded.jsonl` first, so
    /// nothing recorded is lost whenever a crash comes.
    pub fn supersede_steps(&mut self, kept: &[&str], superseded: &[&str]) -> Result<()> {
        if !superseded.is_empty() {
            let path = self.path.join(SUPERSEDED_FILE);
            let mut f = OpenOptions::new()
                .create(true)
                .append(true)
                .open(&path)
                .map_err(|e| Error::io(format!("cannot create {}", path.display()), e))?;
            let text: String = superseded.iter().map(|l| format!("{l}\n")).collect();
            f.write_all(text.as_bytes())
                .and_then(|()| f.sync_data())
                .map_err(|e| Error::io(format!("cannot write {}", path.display()), e))?;
        }
        let text: String = kept.iter().map(|l| format!("{l}\n")).collect();
        replace_synced(&self.path, STEPS_FILE, text.as_bytes())?;
        self.steps = open_steps(&self.path)?;
        Ok(())
    }

    /// Removes what `create` wrote, for a run that could not start.
    pub fn discard(self) {
        if self.created {
            let _ = fs::remove_dir_all(&self.path);
        } else if let Ok(entries) = fs::read_dir(&self.path) {
            for e in entries.flatten() {
                let p = e.path();
                let _ = if p.is_dir() { fs::remove_dir_all(&p) } else { fs::remove_file(&p) };
            }
        }
    }

    /// Appends a finished step and makes it durable.
    pub fn append_step<T: Serialize>(&mut self, step: &T) -> Result<()> {
        let mut line = serde_json::to_string(step)
            .map_err(|e| Error::io("cannot encode a step", io::Error::other(e)))?;
        line.push('\n');
        self.steps
            .write_all(line.as_bytes())
            .and_then(|()| self.steps.sync_data())
            .map_err(|e| Error::io(format!("cannot write {}", self.path.join(STEPS_FILE).display()), e))
    }

    /// Where a step's series goes: `series/<id>.csv`, a folder a phase.
    pub fn series_path(&self, step_id: &str, suffix: &str) -> Result<PathBuf> {
        self.step_file(step_id, &format!("{suffix}.csv"))
    }

    /// The step's latency histograms (an HdrHistogram interval log), beside
    /// its series: `series/<phase>/<step>.hlog`.
    pub fn histogram_path(&self, step_id: &str) -> Result<PathBuf> {
        self.step_file(step_id, ".hlog")
    }

    fn step_file(&self, step_id: &str, ending: &str) -> Result<PathBuf> {
        let mut path = self.path.join("series");
        path.extend(step_id.split('/'));
        let path = PathBuf::from(format!("{}{ending}", path.display()));
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent)
                .map_err(|e| Error::io(format!("cannot create {}", parent.display()), e))?;
        }
        Ok(path)
    }

    /// Writes `results.json` whole (written aside and renamed into place).
    pub fn finish<T: Serialize>(&self, results: &T) -> Result<()> {
        let text = serde_json::to_string_pretty(results)
            .map_err(|e| Error::io("cannot encode the results", io::Error::other(e)))?;
        replace_synced(&self.path, "results.json", format!("{text}\n").as_bytes())
    }
}

/// Whether `dir` holds anything but (when `made`, as just made here) an
/// empty `series` folder.
fn holds_anything(dir: &Path, made: bool) -> bool {
    let Ok(entries) = fs::read_dir(dir) else { return false };
    entries.flatten().any(|e| {
        !(made && e.file_name() == "series" && fs::read_dir(e.path()).is_ok_and(|mut d| d.next().is_none()))
    })
}

fn already(dir: &Path) -> Error {
    Error::results(dir, "already holds results").with_hint("give another --out, or move the old results away")
}

/// Step records superseded by a resume (the steps it ran again).
pub const SUPERSEDED_FILE: &str = "superseded.jsonl";

fn open_steps(dir: &Path) -> Result<File> {
    let path = dir.join(STEPS_FILE);
    OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .map_err(|e| Error::io(format!("cannot open {}", path.display()), e))
}

/// Takes the run's lock on its results directory.
fn lock(dir: &Path) -> Result<File> {
    let f = File::open(dir).map_err(|e| Error::io(format!("cannot open {}", dir.display()), e))?;
    // SAFETY: flock takes a file descriptor and flags, no pointer; `f`
    // keeps the descriptor open for the call.
    if unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
        let e = io::Error::last_os_error();
        if e.raw_os_error() == Some(libc::EWOULDBLOCK) {
            return Err(Error::results(dir, "is in use: a methodic run is still writing to it").with_hint(
                "wait for that run to end, or stop it (Ctrl-C, or kill its process) and then resume it",
            ));
        }
        return Err(Error::io(format!("cannot lock {}", dir.display()), e));
    }
    Ok(f)
}

/// Replaces `dir/name` atomically: the bytes go to a temporary file that
/// is synced and renamed over the old one, and the directory is synced, so
/// a crash leaves either the old file or the new one, whole.
pub fn replace_synced(dir: &Path, name: &str, bytes: &[u8]) -> Result<()> {
    let tmp = dir.join(format!(".{name}.tmp"));
    write_synced(&tmp, bytes)?;
    fs::rename(&tmp, dir.join(name))
        .map_err(|e| Error::io(format!("cannot write {}", dir.join(name).display()), e))?;
    sync_dir(dir);
    Ok(())
}

fn write_synced(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut f = File::create(path).map_err(|e| Error::io(format!("cannot create {}", path.display()), e))?;
    f.write_all(bytes)
        .and_then(|()| f.sync_all())
        .map_err(|e| Error::io(format!("cannot write {}", path.display()), e))
}

fn sync_dir(path: &Path) {
    if let Ok(d) = File::open(path) {
        let _ = d.sync_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_are_appended_and_series_go_under_their_phase() {
        let dir = std::env::temp_dir().join(format!("methodic-results-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let mut r = ResultsDir::create(&dir, "(schema: 1)", Some("methodology \"x\" version \"1\"")).unwrap();
        r.append_step(&serde_json::json!({"id": "a"})).unwrap();
        r.append_step(&serde_json::json!({"id": "b"})).unwrap();
        let lines = fs::read_to_string(dir.join("steps.jsonl")).unwrap();
        assert_eq!(lines.lines().count(), 2);
        let p = r.series_path("4kib-random/rnd4k_read-qd1", "").unwrap();
        assert_eq!(p, dir.join("series/4kib-random/rnd4k_read-qd1.csv"));
        let p = r.series_path("map/rnd4k-read-33.34-qd1", ".rounds").unwrap();
        assert_eq!(p, dir.join("series/map/rnd4k-read-33.34-qd1.rounds.csv"));
        assert!(p.parent().unwrap().is_dir());
        r.finish(&serde_json::json!({"ok": true})).unwrap();
        assert!(dir.join("results.json").exists() && dir.join("methodology.method").exists());
        let again = ResultsDir::create(&dir, "", None);
        assert!(again.is_err(), "a directory with results is not reused");
        fs::remove_dir_all(&dir).unwrap();
    }
}
