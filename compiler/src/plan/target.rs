//! The target settings a step runs with: how much of the target it works
//! in ([`Extent`]), its workers and devices, its I/O mode and the data it
//! writes ([`DataPattern`]).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Bytes, IoMode, Percent};

/// How much of the target a step works in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
// The language's spelling; the alias reads plans and results written before.
#[serde(rename_all = "snake_case")]
pub enum Extent {
    /// A share of the target's capacity.
    #[serde(alias = "Percent")]
    Percent(Percent),
    /// A fixed number of bytes from the start of the target.
    #[serde(alias = "Bytes")]
    Bytes(Bytes),
}

impl std::fmt::Display for Extent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Extent::Percent(p) => write!(f, "{p}"),
            Extent::Bytes(b) => write!(f, "{b}"),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
// The language's spelling; the alias reads plans and results written before.
#[serde(rename_all = "snake_case")]
pub enum DataPattern {
    /// Incompressible data, refreshed so that it defeats deduplication.
    #[serde(alias = "Random")]
    Random,
    #[serde(alias = "Zeros")]
    Zeros,
    /// Data that compresses by about this share.
    #[serde(alias = "Compressible")]
    Compressible(Percent),
}

impl std::fmt::Display for DataPattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DataPattern::Random => write!(f, "random"),
            DataPattern::Zeros => write!(f, "zeros"),
            DataPattern::Compressible(p) => write!(f, "compressible {p}"),
        }
    }
}

/// The target settings a step runs with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Target {
    pub span: Extent,
    /// Worker threads declared; a step may use fewer (see [`Qd::workers`](super::Qd::workers)).
    pub workers: u32,
    /// Devices the workers are spread over, round robin.
    pub devices: u32,
    pub io: IoMode,
    pub data: DataPattern,
}

impl Default for Target {
    fn default() -> Self {
        Target {
            span: Extent::Percent(Percent::HUNDRED),
            workers: 1,
            devices: 1,
            io: IoMode::Direct,
            data: DataPattern::Random,
        }
    }
}
