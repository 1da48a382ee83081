//! The one error of the results readers (`disk_mark`, `iometer::results`,
//! `diskspd::results`): what keeps a file from being read, at which line.

/// Why a file of another tool's results cannot be read, with its line (0
/// for the file as a whole): `line 9: MB/s that is not a number, in ...`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{detail}", if *.line > 0 { format!("line {}: ", .line) } else { String::new() })]
pub struct ResultsError {
    pub line: usize,
    pub detail: String,
}

impl ResultsError {
    pub(crate) fn new(line: usize, detail: impl Into<String>) -> ResultsError {
        ResultsError { line, detail: detail.into() }
    }
}
