//! methodic's results: the records a run writes and every reader of them
//! shares, the views made of them (`report`, `compare`, and each other
//! command's result) and the exporters that write a view in a format. The
//! runtime fills the records in.
#![doc = include_str!("../ARCHITECTURE.md")]

pub mod analysis;
pub mod ceiling;
pub mod csv_file;
pub mod device_io;
pub mod dir;
pub mod engine;
pub mod error;
pub mod export;
pub mod health;
pub mod hlog;
pub mod host;
pub mod imported;
pub mod manifest;
pub mod numbers;
pub mod probe;
pub mod record;
pub mod rounds;
pub mod schema;
pub mod series;
pub mod step_files;
pub mod svg;
pub mod units;
pub mod view;

pub use error::{Error, Result};
