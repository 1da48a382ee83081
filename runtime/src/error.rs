//! Runtime errors: what went wrong while preparing or running a plan, in
//! words a user can act on, with the OS error kept as the source.

use std::io;
use std::path::PathBuf;

/// Why a run could not start or go on.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A target could not be opened, sized or used as the plan needs.
    #[error("{}: {message}", path.display())]
    Target { path: PathBuf, message: String, hint: Option<String> },

    /// methodic refuses to write to a device that may hold data.
    #[error("refusing to write to {}: {reason}", path.display())]
    Refused { path: PathBuf, reason: String, hint: String },

    /// An I/O error while running a step, with what was being done.
    #[error("{context}: {source}")]
    Io { context: String, source: io::Error },

    /// I/Os of a step failed on its target (EIO from the device, a short
    /// transfer): the step stopped, with what it measured until then.
    #[error("{0}")]
    IoFailed(Box<crate::failure::IoFailed>),

    /// The plan cannot run here (a feature the machine lacks, a span
    /// larger than the target).
    #[error("{message}")]
    Unsupported { message: String, hint: Option<String> },

    /// A results directory, or a file in it, cannot be read.
    #[error("{}: {message}", path.display())]
    Results { path: PathBuf, message: String, hint: Option<String> },

    /// A step with `verify` found data that is not what it wrote: the
    /// step failed, its numbers kept.
    #[error("{0}")]
    Verify(String),

    /// A host of a run on many hosts cannot run, or was lost: its fio
    /// server did not answer, or its job failed.
    #[error("{message}")]
    Hosts { message: String, hint: Option<String> },

    /// A step that stops by an amount did it within its ramp: it recorded
    /// no I/O. The step failed; what its ramp wrote is kept.
    #[error("{message}")]
    NothingRecorded { message: String, hint: String },

    /// The run was stopped by a signal or the user.
    #[error("interrupted")]
    Interrupted,
}

impl Error {
    pub fn io(context: impl Into<String>, source: io::Error) -> Error {
        Error::Io { context: context.into(), source }
    }

    pub fn target(path: impl Into<PathBuf>, message: impl Into<String>) -> Error {
        Error::Target { path: path.into(), message: message.into(), hint: None }
    }

    pub fn results(path: impl Into<PathBuf>, message: impl Into<String>) -> Error {
        Error::Results { path: path.into(), message: message.into(), hint: None }
    }

    pub fn unsupported(message: impl Into<String>) -> Error {
        Error::Unsupported { message: message.into(), hint: None }
    }

    /// Adds what to do about it.
    pub fn with_hint(mut self, text: impl Into<String>) -> Error {
        match &mut self {
            Error::Target { hint, .. }
            | Error::Unsupported { hint, .. }
            | Error::Results { hint, .. }
            | Error::Hosts { hint, .. } => *hint = Some(text.into()),
            Error::Refused { hint, .. } | Error::NothingRecorded { hint, .. } => *hint = text.into(),
            Error::Io { .. } | Error::IoFailed(_) | Error::Verify(_) | Error::Interrupted => {}
        }
        self
    }

    /// What to do about it, if methodic knows.
    pub fn hint(&self) -> Option<&str> {
        match self {
            Error::Target { hint, .. }
            | Error::Unsupported { hint, .. }
            | Error::Results { hint, .. }
            | Error::Hosts { hint, .. } => hint.as_deref(),
            Error::Refused { hint, .. } | Error::NothingRecorded { hint, .. } => Some(hint),
            Error::Io { .. } | Error::IoFailed(_) | Error::Verify(_) | Error::Interrupted => None,
        }
    }
}

pub type Result<T> = std::result::Result<T, Error>;

/// The results crate's errors read as the runtime's: the same words.
impl From<methodic_results::Error> for Error {
    fn from(e: methodic_results::Error) -> Error {
        match e {
            methodic_results::Error::Results { path, message, hint } => {
                Error::Results { path, message, hint }
            }
            methodic_results::Error::Io { context, source } => Error::Io { context, source },
            other => Error::Io { context: other.to_string(), source: io::Error::other("results") },
        }
    }
}

/// An error in one line, with its hint.
pub fn describe(e: &Error) -> String {
    match e.hint() {
        Some(h) => format!("{e} ({h})"),
        None => e.to_string(),
    }
}
