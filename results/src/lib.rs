//! methodic's results: the records a run writes and every reader of them
//! shares. The runtime fills them in; `report`, `compare` and the
//! exporters read them back.

pub mod analysis;
pub mod ceiling;
pub mod device_io;
pub mod dir;
pub mod engine;
pub mod error;
pub mod host;
pub mod manifest;
pub mod numbers;
pub mod record;
pub mod series;
pub mod units;

pub use error::{Error, Result};
