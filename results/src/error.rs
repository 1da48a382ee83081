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
}

pub type Result<T> = std::result::Result<T, Error>;
