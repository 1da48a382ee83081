//! methodic and fio: job files imported as methodologies, plans exported
//! as job files, and fio's JSON output read back.
#![doc = include_str!("../ARCHITECTURE.md")]

mod crosscheck;
mod error;
mod export;
pub mod fuzz;
mod group;
mod import;
mod job_file;
mod options;
mod results;
mod translate;
mod values;
mod writer;

pub use crate::crosscheck::{FioOutputError, fio_filename, fio_json_iops};
pub use crate::error::{ImportError, ImportErrorKind};
pub use crate::export::{Engine, HostLogs, HostRun, Order, file_name, host_job, job_options, plan_to_fio};
pub use crate::import::{Imported, fio_to_method, fio_to_method_with, text_uses};
pub use crate::results::{
    Direction, FioJob, FioResults, FioResultsError, Latency, read_fio_results, read_log,
};
pub use crate::values::size_in_bytes;
