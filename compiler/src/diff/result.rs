//! What a diff says: the changes between two plans ([`PlanDiff`]), each
//! ([`Change`]) with its class ([`Class`]), and their summary in words.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Serialize;

/// How a change bears on comparing results, most serious first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Class {
    /// Old and new results of the affected steps measure different things.
    BreaksComparability,
    /// Steps only one version has.
    AddsRemovesSteps,
    /// The same thing measured with more or less precision.
    ShiftsPrecision,
    /// Names, descriptions, units of display, what the run does after a
    /// failed step, where a `local` step runs in a run on many hosts: no
    /// number changes.
    PresentationOnly,
}

impl Class {
    pub fn word(self) -> &'static str {
        match self {
            Class::BreaksComparability => "breaks comparability",
            Class::AddsRemovesSteps => "adds or removes steps",
            Class::ShiftsPrecision => "shifts precision",
            Class::PresentationOnly => "presentation only",
        }
    }
}

/// One change between the plans: what changed, from what to what, its
/// class and why, and the steps whose results it touches.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Change {
    pub class: Class,
    /// `span`, `record time`, `step added`.
    pub what: String,
    pub old: String,
    pub new: String,
    /// Why the class, in a sentence.
    pub reason: String,
    /// The steps whose results the change touches: ids in the new plan
    /// (in the old one for removed steps), in plan order.
    pub steps: Vec<String>,
    /// Those steps in words: `all 10 buffered copy steps`.
    pub affected: String,
}

/// The changes from one plan to another, each with what it does to
/// comparing their results, and the steps of the new plan whose results
/// stay comparable with the old plan's.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct PlanDiff {
    /// `consumer-copy 1.0`.
    pub old: String,
    pub new: String,
    /// Steps matched across the versions.
    pub matched: usize,
    /// Steps of the new plan whose results stay comparable with the old
    /// plan's: matched, and touched by no breaking change.
    pub comparable: Vec<String>,
    pub changes: Vec<Change>,
}

impl PlanDiff {
    pub fn breaking(&self) -> bool {
        self.changes.iter().any(|c| c.class == Class::BreaksComparability)
    }

    /// 0 no change, 1 only changes that keep results comparable, 2 a change
    /// that breaks comparability.
    pub fn exit_code(&self) -> u8 {
        if self.breaking() {
            2
        } else if self.changes.is_empty() {
            0
        } else {
            1
        }
    }

    /// `2 changes break comparability (9 of 12 steps), 1 adds or removes steps`.
    pub fn summary(&self, new_steps: usize) -> String {
        if self.changes.is_empty() {
            return format!("{} -> {}: no change; every result stays comparable", self.old, self.new);
        }
        let mut counts: BTreeMap<Class, usize> = BTreeMap::new();
        for c in &self.changes {
            *counts.entry(c.class).or_default() += 1;
        }
        let parts: Vec<String> = counts
            .iter()
            .map(|(class, n)| match class {
                Class::BreaksComparability => format!("{n} breaking"),
                Class::AddsRemovesSteps => format!("{n} adding or removing steps"),
                Class::ShiftsPrecision => format!("{n} shifting precision"),
                Class::PresentationOnly => format!("{n} presentation only"),
            })
            .collect();
        format!(
            "{} -> {}: {} {} ({}); results of {} of {} steps stay comparable",
            self.old,
            self.new,
            self.changes.len(),
            if self.changes.len() == 1 { "change" } else { "changes" },
            parts.join(", "),
            self.comparable.len(),
            new_steps
        )
    }
}
