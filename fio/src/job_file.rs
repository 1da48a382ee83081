//! Job file text in, `[section]`s of `key=value` entries out, read as fio
//! reads an ini file (comments cut wherever they start, as fio cuts them);
//! then jobs, each with the `[global]` options before
//! it, and whether each waits for the ones before it (`stonewall`).
//! Checks the ini syntax.

use crate::error::{ImportErrorKind, Problem};
use crate::options::canonical;
use crate::values::fio_flag;

// ---------------------------------------------------------------- job file

/// One `key=value` or bare `flag` line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    /// As written (fio's option names are case-sensitive).
    pub(crate) key: String,
    /// The text after `=`, without trailing blanks; leading blanks are
    /// kept, as fio keeps them.
    pub(crate) value: Option<String>,
    pub(crate) line: usize,
    /// The section it was written in.
    pub(crate) section: String,
}

impl Entry {
    /// `bs=4k`, or `time_based` for a flag; a space after `=` is kept.
    pub(crate) fn written(&self) -> String {
        match &self.value {
            Some(v) => format!("{}={v}", self.key),
            None => self.key.clone(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Section {
    pub(crate) name: String,
    pub(crate) line: usize,
    pub(crate) entries: Vec<Entry>,
}

impl Section {
    pub(crate) fn is_global(&self) -> bool {
        self.name == "global"
    }
}

/// Job file text to its sections, as fio reads an ini file: each line cut
/// at its first `;` and then at its first `#` (the rest is a comment, also
/// after a value), blanks around it dropped; an empty line is skipped,
/// `[name]` opens a section, every other line is `key=value` or a bare
/// `key`.
pub(crate) fn parse_job_file(text: &str) -> (Vec<Section>, Vec<Problem>) {
    let mut sections: Vec<Section> = Vec::new();
    let mut problems = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let trimmed = without_comment(raw).trim();
        if trimmed.is_empty() {
            continue;
        }
        if let Some(rest) = trimmed.strip_prefix('[') {
            let Some(name) = rest.strip_suffix(']') else {
                problems.push(
                    Problem::new(
                        ImportErrorKind::Syntax,
                        line,
                        format!("`{trimmed}` opens a section without closing it"),
                    )
                    .hint("write a section header as [name]"),
                );
                continue;
            };
            if name.trim().is_empty() {
                problems.push(Problem::new(ImportErrorKind::Syntax, line, "a section without a name"));
                continue;
            }
            if name.starts_with("global") && name != "global" {
                problems.push(
                    Problem::new(
                        ImportErrorKind::Syntax,
                        line,
                        format!("fio takes [{name}] for a [global] section, as it starts with `global`"),
                    )
                    .hint("name it [global] if it holds defaults for the jobs after it, or rename the job"),
                );
            }
            sections.push(Section { name: name.to_string(), line, entries: Vec::new() });
            continue;
        }
        let Some(section) = sections.last_mut() else {
            problems.push(
                Problem::new(
                    ImportErrorKind::Syntax,
                    line,
                    format!("`{trimmed}` stands before any [section]"),
                )
                .hint("fio refuses options outside a section: put it under [global] or under a job"),
            );
            continue;
        };
        if trimmed.starts_with("include ") || trimmed == "include" {
            problems.push(Problem {
                section: Some(section.name.clone()),
                option: Some(trimmed.to_string()),
                ..Problem::new(
                    ImportErrorKind::Untranslatable,
                    line,
                    "methodic import reads one job file; it does not follow `include`",
                )
                .hint("paste the included options into the job file")
            });
            continue;
        }
        let (key, value) = match trimmed.split_once('=') {
            Some((k, v)) => (k.trim_end(), Some(v.to_string())),
            None => (trimmed, None),
        };
        if key.is_empty() {
            problems.push(Problem::new(
                ImportErrorKind::Syntax,
                line,
                format!("`{trimmed}` has no option name before `=`"),
            ));
            continue;
        }
        section.entries.push(Entry { key: key.to_string(), value, line, section: section.name.clone() });
    }
    (sections, problems)
}

/// A line without its comment, as fio's `strip_blank_end()` cuts it
/// (parse.c:428 at fio@f5344384; since fio 1.15.2): at the first `;`, then
/// at the first `#`, wherever they stand, so `runtime=10s # ten` is
/// `runtime=10s` and a `#` in a filename ends it too.
fn without_comment(raw: &str) -> &str {
    let raw = raw.split(';').next().unwrap_or_default();
    raw.split('#').next().unwrap_or_default()
}

/// A job with the options it runs with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Job {
    pub(crate) section: String,
    pub(crate) line: usize,
    /// The `[global]` options before the job, then its own; for each
    /// option the last one counts, as in fio.
    pub(crate) entries: Vec<Entry>,
}

impl Job {
    /// The option that counts, by its canonical name.
    pub(crate) fn get(&self, name: &str) -> Option<&Entry> {
        self.entries.iter().rev().find(|e| canonical(&e.key) == name)
    }

    /// The name fio reports the job under: `name=`, or the section's.
    pub(crate) fn name(&self) -> String {
        match self.get("name").and_then(|e| e.value.as_deref()).map(str::trim) {
            Some(n) if !n.is_empty() => n.to_string(),
            _ => self.section.clone(),
        }
    }
}

/// Sections to jobs: each job gets the `[global]` options written before
/// it (a later `[global]` changes only the jobs after it, as in fio).
pub(crate) fn sections_to_jobs(sections: &[Section]) -> Vec<Job> {
    let mut globals: Vec<Entry> = Vec::new();
    let mut jobs = Vec::new();
    for s in sections {
        if s.is_global() || s.name.starts_with("global") {
            globals.extend(s.entries.iter().cloned());
        } else {
            let mut entries = globals.clone();
            entries.extend(s.entries.iter().cloned());
            jobs.push(Job { section: s.name.clone(), line: s.line, entries });
        }
    }
    jobs
}

/// Whether fio waits for the jobs before `job` to end before it starts
/// it (`stonewall`); without it, fio starts the job together with them.
pub(crate) fn waits(job: &Job) -> bool {
    match job.get("stonewall") {
        // A bad value is reported where the job is translated.
        Some(e) => fio_flag(e.value.as_deref()).unwrap_or(true),
        None => false,
    }
}

// Beside the entry it names, so that error.rs needs nothing from here.
impl Problem {
    /// A problem with an option as it was written.
    pub(crate) fn at(kind: ImportErrorKind, entry: &Entry, detail: impl Into<String>) -> Problem {
        Problem {
            kind,
            line: entry.line,
            section: Some(entry.section.clone()),
            option: Some(entry.written()),
            detail: detail.into(),
            hint: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_are_cut_wherever_they_start_as_fio_cuts_them() {
        let (sections, problems) = parse_job_file(
            "[j] ; the job\nruntime=10s # ten seconds\nnumjobs=4\t; four\nsize=100k;#x\n  ;all comment\n#[k]\nbs=4k#\n",
        );
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(sections.len(), 1, "a `#` at the start makes the line a comment");
        let written: Vec<String> = sections[0].entries.iter().map(Entry::written).collect();
        assert_eq!(written, ["runtime=10s", "numjobs=4", "size=100k", "bs=4k"]);
        assert_eq!(without_comment("a#b;c"), "a", "`;` first, then `#`");
    }
}
