//! Errors reading and writing a results directory, each naming the file or
//! folder it is about, with a hint where there is one to give.

use std::io;
use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A results file or folder that is missing, damaged or in use.
    #[error("{}: {message}", path.display())]
    Results { path: PathBuf, message: String, hint: Option<String> },

    #[error("{context}: {source}")]
    Io { context: String, source: io::Error },
}

impl Error {
    pub fn io(context: impl Into<String>, source: io::Error) -> Error {
        Error::Io { context: context.into(), source }
    }

    pub fn results(path: impl Into<PathBuf>, message: impl Into<String>) -> Error {
        Error::Results { path: path.into(), message: message.into(), hint: None }
    }

    pub fn with_hint(mut self, text: impl Into<String>) -> Error {
        if let Error::Results { hint, .. } = &mut self {
            *hint = Some(text.into());
        }
        self
    }

    pub fn hint(&self) -> Option<&str> {
        match self {
            Error::Results { hint, .. } => hint.as_deref(),
            Error::Io { .. } => None,
        }
    }

    /// The error in one line, with its hint where it has one:
    /// `DIR: does not exist (give the results directory ...)`.
    pub fn describe(&self) -> String {
        match self.hint() {
            Some(h) => format!("{self} ({h})"),
            None => self.to_string(),
        }
    }
}

pub type Result<T> = std::result::Result<T, Error>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_says_itself_with_its_hint() {
        let e = Error::results("/r", "does not exist");
        assert_eq!(e.describe(), "/r: does not exist");
        let e = e.with_hint("give the results directory");
        assert_eq!(e.describe(), "/r: does not exist (give the results directory)");
        let e = Error::io("cannot read /r/steps.jsonl", io::Error::other("disk on fire"));
        assert_eq!(e.describe(), "cannot read /r/steps.jsonl: disk on fire");
    }
}
