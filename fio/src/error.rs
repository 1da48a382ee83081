//! What keeps a job file from being imported: [`ImportError`] with its
//! kind, line, section and option, and the crate-internal [`Problem`]
//! that becomes one once the job file's name is known.

/// Something in the job file that keeps it from being imported, shown as
/// `` cannot translate `thinktime=250`: fio waits for every I/O in flight ... (in job.fio:7, [randread]) ``.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{}: {detail} (in {file}{}{})", .kind.word(), option_said(.option), line_said(.line), section_said(.section))]
pub struct ImportError {
    pub kind: ImportErrorKind,
    /// The job file as the user named it.
    pub file: String,
    /// The line, from 1; 0 for the file as a whole.
    pub line: usize,
    /// The section the line is in (`global` for `[global]`).
    pub section: Option<String>,
    /// The option as written (`verify=crc32c`, `time_based`).
    pub option: Option<String>,
    pub detail: String,
    pub hint: Option<String>,
}

#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ImportErrorKind {
    /// A line that is neither a `[section]`, an option nor a comment.
    Syntax,
    /// An option methodic import does not know: not fio's, or one it has
    /// no translation for.
    UnknownOption,
    /// An fio option whose effect methodic cannot express.
    Untranslatable,
    /// A value fio reads differently from what it says, or one methodic
    /// cannot hold.
    BadValue,
    /// Options of one job that cannot be translated together.
    Conflict,
    /// Jobs fio starts together (no `stonewall`) that cannot run as one
    /// `together` step: another time, ramp or target setting, or a job
    /// that ends by size.
    Concurrent,
    /// A file without a job.
    NoJobs,
    /// The translation does not compile: a bug in methodic import.
    Internal,
}

impl ImportErrorKind {
    pub(crate) fn word(self) -> &'static str {
        match self {
            ImportErrorKind::Syntax => "syntax error",
            ImportErrorKind::UnknownOption => "unknown option",
            ImportErrorKind::Untranslatable => "cannot translate",
            ImportErrorKind::BadValue => "cannot use the value",
            ImportErrorKind::Conflict => "cannot translate",
            ImportErrorKind::Concurrent => "jobs run at the same time",
            ImportErrorKind::NoJobs => "no job",
            ImportErrorKind::Internal => "bug in methodic import (please report it with the job file)",
        }
    }
}

/// `` `verify=crc32c` `` as the error names it, or nothing.
fn option_said(option: &Option<String>) -> String {
    option.as_ref().map(|o| format!(" `{o}`")).unwrap_or_default()
}

/// `:7` after the file name, or nothing for the file as a whole.
fn line_said(line: &usize) -> String {
    if *line > 0 { format!(":{line}") } else { String::new() }
}

/// `, [randread]` after the line, or nothing.
fn section_said(section: &Option<String>) -> String {
    section.as_ref().map(|s| format!(", [{s}]")).unwrap_or_default()
}

/// An [`ImportError`] before the file name is known.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Problem {
    pub(crate) kind: ImportErrorKind,
    pub(crate) line: usize,
    pub(crate) section: Option<String>,
    pub(crate) option: Option<String>,
    pub(crate) detail: String,
    pub(crate) hint: Option<String>,
}

impl Problem {
    pub(crate) fn new(kind: ImportErrorKind, line: usize, detail: impl Into<String>) -> Problem {
        Problem { kind, line, section: None, option: None, detail: detail.into(), hint: None }
    }

    pub(crate) fn hint(mut self, hint: impl Into<String>) -> Problem {
        self.hint = Some(hint.into());
        self
    }

    pub(crate) fn into_error(self, file: &str) -> ImportError {
        ImportError {
            kind: self.kind,
            file: file.to_string(),
            line: self.line,
            section: self.section,
            option: self.option,
            detail: self.detail,
            hint: self.hint,
        }
    }
}
