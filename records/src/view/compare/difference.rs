//! One difference between two compared runs, of the runs as a whole, of
//! their paired steps or of their devices: what differs, between which
//! runs, how widely, each side's value and what it does to the numbers.
//! Made by `run_differences`, `step_differences` and `devices`.

use schemars::JsonSchema;
use serde::Serialize;

// No doc comment: the published schema (docs/schema/compare.schema.json)
// takes a type's doc comment as its description, and has none for this.
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
