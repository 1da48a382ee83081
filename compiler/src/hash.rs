//! The hash that names a methodology's text in a plan.

use sha2::{Digest, Sha256};

/// `sha256:` and the hex digest of the source.
pub fn source_hash(src: &str) -> String {
    let digest = Sha256::digest(src.as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}
