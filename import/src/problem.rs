//! What keeps a job file from being imported: [`ImportError`], with its
//! kind, line, place and option, and the crate-internal [`Problem`] that
//! becomes one once the file's name is known. The same shape as
//! `methodic import fio`'s errors, so that the command line prints every
//! tool's problems alike.

/// Something in a job file that keeps it from being imported, shown as
/// `` cannot translate `reply=512`: ... (in db.icf:14, access specification "Database") ``.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{}: {detail} (in {file}{}{})", .kind.word(), option_said(.option), line_said(.line), place_said(.place))]
pub struct ImportError {
    pub kind: ImportErrorKind,
    /// The job file as the user named it.
    pub file: String,
    /// The line, from 1; 0 for the file as a whole (or a command line).
    pub line: usize,
    /// Where in the file, in the tool's words: `access specification
    /// "Database"`, `wd=wd1`, `<TimeSpan> 2`.
    pub place: Option<String>,
    /// The option as written (`xfersize=(4k,50,8k,50)`, `-Sr`).
    pub option: Option<String>,
    pub detail: String,
    /// What to do instead, true of methodic as it is.
    pub hint: Option<String>,
}

#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ImportErrorKind {
    /// Text that is not the tool's format: a line, a value or an element
    /// the tool's own reader would refuse.
    Syntax,
    /// A keyword or option the tool does not have.
    UnknownOption,
    /// Something the tool does that methodic cannot express.
    Untranslatable,
    /// A value the tool reads differently from what it says, or one
    /// methodic cannot hold.
    BadValue,
    /// Settings that cannot be translated together.
    Conflict,
    /// A file with nothing to import.
    Empty,
    /// The translation does not compile: a bug in methodic import.
    Internal,
}

impl ImportErrorKind {
    fn word(self) -> &'static str {
        match self {
            ImportErrorKind::Syntax => "syntax error",
            ImportErrorKind::UnknownOption => "unknown option",
            ImportErrorKind::Untranslatable | ImportErrorKind::Conflict => "cannot translate",
            ImportErrorKind::BadValue => "cannot use the value",
            ImportErrorKind::Empty => "nothing to import",
            ImportErrorKind::Internal => "bug in methodic import (please report it with the job file)",
        }
    }
}

/// `` `reply=512` `` as the error names it, or nothing.
fn option_said(option: &Option<String>) -> String {
    option.as_ref().map(|o| format!(" `{o}`")).unwrap_or_default()
}

/// `:7` after the file name, or nothing for the file as a whole.
fn line_said(line: &usize) -> String {
    if *line > 0 { format!(":{line}") } else { String::new() }
}

/// `, access specification "Database"` after the line, or nothing.
fn place_said(place: &Option<String>) -> String {
    place.as_ref().map(|s| format!(", {s}")).unwrap_or_default()
}

/// An [`ImportError`] before the file name is known.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Problem {
    pub(crate) kind: ImportErrorKind,
    pub(crate) line: usize,
    pub(crate) place: Option<String>,
    pub(crate) option: Option<String>,
    pub(crate) detail: String,
    pub(crate) hint: Option<String>,
}

// Not every importer uses every builder method yet.
#[allow(dead_code)]
impl Problem {
    pub(crate) fn new(kind: ImportErrorKind, line: usize, detail: impl Into<String>) -> Problem {
        Problem { kind, line, place: None, option: None, detail: detail.into(), hint: None }
    }

    pub(crate) fn hint(mut self, hint: impl Into<String>) -> Problem {
        self.hint = Some(hint.into());
        self
    }

    pub(crate) fn place(mut self, place: impl Into<String>) -> Problem {
        self.place = Some(place.into());
        self
    }

    pub(crate) fn option(mut self, option: impl Into<String>) -> Problem {
        self.option = Some(option.into());
        self
    }

    pub(crate) fn into_error(self, file: &str) -> ImportError {
        ImportError {
            kind: self.kind,
            file: file.to_string(),
            line: self.line,
            place: self.place,
            option: self.option,
            detail: self.detail,
            hint: self.hint,
        }
    }
}

/// Problems to errors of `file`: each once, in the order of their lines.
pub(crate) fn into_errors(mut problems: Vec<Problem>, file: &str) -> Vec<ImportError> {
    let mut seen = std::collections::HashSet::new();
    problems.retain(|p| seen.insert(p.clone()));
    problems.sort_by_key(|p| p.line);
    problems.into_iter().map(|p| p.into_error(file)).collect()
}
