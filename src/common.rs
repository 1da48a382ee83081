//! What every command shares: reading its input (a file or standard
//! input), writing its output atomically, reporting diagnostics, loading a
//! methodology or plan or a results directory, and the small formatting
//! helpers.

use std::fs;
use std::io::{IsTerminal, Read, Write};
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result};
use methodic_compiler::plan::{Bytes, Plan};
use methodic_compiler::{Diagnostics, Options};
use methodic_grammar::units::{Quantity, QuantityError, parse_quantity};

/// `--capacity 2TB`: a size with a unit.
pub(crate) fn parse_size(text: &str) -> std::result::Result<Bytes, String> {
    match parse_quantity(text) {
        Ok(Quantity::Size(b)) if b.0 > 0 => Ok(b),
        Ok(Quantity::Size(_)) => Err("a capacity of 0B holds nothing".to_string()),
        Ok(_) => Err(format!("expected a size such as 2TB or 1.6TB, found `{text}`")),
        Err(QuantityError::TooLarge) => Err(format!("`{text}` is too large")),
        Err(_) => Err(format!("expected a size such as 2TB, 960GB or 1.6TiB, found `{text}`")),
    }
}

pub(crate) fn read_input(path: &Path) -> Result<String> {
    if path == Path::new("-") {
        let mut s = String::new();
        std::io::stdin().read_to_string(&mut s).context("cannot read standard input")?;
        return Ok(s);
    }
    let bytes = fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    String::from_utf8(bytes).with_context(|| format!("{} is not UTF-8 text", path.display()))
}

/// The compiler's options for the methodology at `path` whose text is
/// `src`: `capacity`, and the text of each file its `use "FILE"` lines
/// name, read from `path`'s folder (the working folder for standard
/// input), or why it could not be.
pub(crate) fn options_for(path: &Path, src: &str, capacity: Option<Bytes>) -> Options {
    let folder = match path.parent() {
        Some(p) if path != Path::new("-") => p.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let used = methodic_compiler::file_uses(src)
        .into_iter()
        .map(|written| {
            let full = folder.join(&written);
            let text = fs::read(&full).map_err(|e| format!("{}: {e}", full.display())).and_then(|b| {
                String::from_utf8(b).map_err(|_| format!("{} is not UTF-8 text", full.display()))
            });
            (written, text)
        })
        .collect();
    Options { capacity, used }
}

pub(crate) fn display_name(path: &Path) -> String {
    if path == Path::new("-") { "<stdin>".to_string() } else { path.display().to_string() }
}

pub(crate) fn color() -> bool {
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none()
}

pub(crate) fn report(diags: &Diagnostics, name: &str, src: &str) {
    if !diags.is_empty() {
        eprint!("{}", diags.render(name, src, color()));
    }
}

/// Writes `text` to `path`, or to stdout for `-`, as [`write_bytes`].
pub(crate) fn write_output(path: &Path, text: &str) -> Result<()> {
    write_bytes(path, text.as_bytes())
}

/// Writes `text` (text, or a workbook's bytes) to `path`, or to stdout for `-`. A file is written
/// beside its destination and renamed over it, so that a failure leaves
/// no half-written file. Something that is there and is not a regular
/// file (`/dev/null`, a pipe, `/dev/stdout`) is written into, never
/// replaced: a rename over `/dev/null` as root would leave a regular
/// file there for every program after.
pub(crate) fn write_bytes(path: &Path, text: &[u8]) -> Result<()> {
    if path == Path::new("-") {
        let mut out = std::io::stdout().lock();
        return match out.write_all(text).and_then(|()| out.flush()) {
            // A reader that stopped early (`| head`) is not an error.
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
            result => result.context("cannot write to standard output"),
        };
    }
    if fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
        let mut f = fs::OpenOptions::new()
            .write(true)
            .open(path)
            .with_context(|| format!("cannot open {}", path.display()))?;
        return match f.write_all(text) {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
            result => result.with_context(|| format!("cannot write {}", path.display())),
        };
    }
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let file_name = path.file_name().with_context(|| format!("{} is not a file name", path.display()))?;
    let tmp = dir.join(format!(".{}.tmp{}", file_name.to_string_lossy(), std::process::id()));
    let result = (|| -> Result<()> {
        let mut f = fs::File::create(&tmp).with_context(|| format!("cannot create {}", tmp.display()))?;
        f.write_all(text).with_context(|| format!("cannot write {}", tmp.display()))?;
        f.sync_all().with_context(|| format!("cannot sync {}", tmp.display()))?;
        fs::rename(&tmp, path).with_context(|| format!("cannot replace {}", path.display()))?;
        Ok(())
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

pub(crate) fn count(n: usize, what: &str) -> String {
    methodic_compiler::plan::plural(n as u64, what, &format!("{what}s"))
}

/// A methodology compiled (with its source), or a plan loaded and
/// validated; `None` when it has errors, which are reported.
pub(crate) fn load_plan(path: &Path, capacity: Option<Bytes>) -> Result<Option<(Plan, Option<String>)>> {
    let text = read_input(path)?;
    let name = display_name(path);
    let is_plan = matches!(path.extension().and_then(|e| e.to_str()), Some("ron" | "json"));
    if is_plan {
        return match methodic_compiler::load_plan(&text) {
            Ok(mut plan) => {
                if let Some(c) = capacity {
                    let problems = methodic_compiler::fits_capacity(&plan.steps, c);
                    if problems.has_errors() {
                        report(&problems, &name, &text);
                        return Ok(None);
                    }
                    plan.estimate = methodic_compiler::estimate::plan(&plan.steps, capacity);
                }
                Ok(Some((plan, None)))
            }
            Err(diags) => {
                report(&diags, &name, &text);
                eprintln!("{name}: not a valid plan");
                Ok(None)
            }
        };
    }
    match methodic_compiler::compile(&text, &options_for(path, &text, capacity)) {
        Ok(c) => {
            report(&c.warnings, &name, &text);
            Ok(Some((c.plan, Some(text))))
        }
        Err(diags) => {
            report(&diags, &name, &text);
            eprintln!("{name}: {}", count(diags.errors().count(), "error"));
            Ok(None)
        }
    }
}

/// The exit code of `report` and `compare` when they wrote their result
/// but some file of a run that it needs could not be read: what the file
/// holds is missing from the result, which names it. `--allow-incomplete`
/// exits 0 instead.
pub(crate) const INCOMPLETE: u8 = 3;

/// `--allow-incomplete`: how `report` and `compare` end when some file of
/// a run could not be read.
#[derive(Debug, clap::Args)]
pub(crate) struct Incomplete {
    /// Exit 0 even when some file of a run (a series, rounds, probe or
    /// latency log) could not be read. Either way the output names each
    /// such file and what is wrong with it, and so does standard error;
    /// without this flag the exit code is then 3.
    #[arg(long)]
    allow_incomplete: bool,
}

impl Incomplete {
    /// Says on standard error that `what` (`the report`) is incomplete,
    /// with `why` (`3 files of DIR could not be read, ...`) and a line a
    /// file; the exit code: success when nothing is missing or it is
    /// allowed, else [`INCOMPLETE`].
    pub(crate) fn end(&self, what: &str, why: &str, files: &[String]) -> ExitCode {
        if files.is_empty() {
            return ExitCode::SUCCESS;
        }
        let level = if self.allow_incomplete { "warning" } else { "error" };
        let mut text = format!("{level}: {what} is incomplete: {why}:\n");
        for f in files {
            text.push_str(&format!("  {f}\n"));
        }
        if !self.allow_incomplete {
            text.push_str(&format!(
                "{what} was written all the same, naming {}; the exit code is {INCOMPLETE} (with \
                 --allow-incomplete, 0)\n",
                if files.len() == 1 { "it" } else { "them" }
            ));
        }
        eprint!("{text}");
        if self.allow_incomplete { ExitCode::SUCCESS } else { ExitCode::from(INCOMPLETE) }
    }
}

/// `3 files of DIR could not be read, and what they hold is missing from
/// it`.
pub(crate) fn unreadable_words(n: usize, of: &str) -> String {
    format!(
        "{} of {of} could not be read, and what {} is missing from it",
        count(n, "file"),
        if n == 1 { "it holds" } else { "they hold" }
    )
}

/// Reads a results directory, with the error (which names the file) and
/// its hint.
pub(crate) fn load_results(dir: &Path) -> Result<methodic_results::manifest::Loaded> {
    methodic_results::manifest::load(dir).map_err(|e| anyhow::anyhow!(e.describe()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capacity_needs_a_size() {
        assert_eq!(parse_size("2TB"), Ok(Bytes(2_000_000_000_000)));
        assert_eq!(parse_size("1.6TB"), Ok(Bytes(1_600_000_000_000)));
        assert!(parse_size("2").unwrap_err().contains("2TB"));
        assert!(parse_size("2T").is_err());
        assert!(parse_size("0B").is_err());
    }
}
