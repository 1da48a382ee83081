//! One difference between two compared runs, of the runs as a whole, of
//! their paired steps or of their devices: what differs, between which
//! runs, how widely, each side's value and what it does to the numbers.
//! Made by `run_differences`, `step_differences` and `devices`.

use schemars::JsonSchema;
use serde::Serialize;

/// Something two compared runs differ in that can explain a gap between
/// their numbers.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Difference {
    /// `span`, `drive state`, `firmware`, ...
    pub field: String,
    /// The runs compared: `A vs B`.
    pub runs: String,
    /// `run`, or how many paired steps differ: `12 of 90 paired steps`.
    pub scope: String,
    pub a: String,
    pub b: String,
    /// What the difference does to the numbers.
    pub sentence: String,
}
