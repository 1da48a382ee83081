//! Sizes for people to read: one formatter for every message, manifest
//! line and report cell that names a number of bytes.

use methodic_compiler::plan::Bytes;

/// `1.0 GiB`, for messages.
pub fn human(bytes: u64) -> String {
    Bytes(bytes).human(true)
}
