//! The estimate a plan carries: the time a step takes ([`TimeRange`]),
//! what it writes ([`Written`]), per step and summed over the plan. The
//! `estimate` stage computes them; this module only holds and adds them.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Bytes, Duration, Percent, Units};

/// A time from `min` to `max`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TimeRange {
    pub min: Duration,
    pub max: Duration,
}

impl TimeRange {
    pub fn exactly(d: Duration) -> TimeRange {
        TimeRange { min: d, max: d }
    }

    pub fn is_zero(self) -> bool {
        self.max.is_zero()
    }

    /// `6h`, `2h 5min .. 6h 25min`, or `up to 24h` from zero.
    pub fn human(self) -> String {
        if self.min.is_zero() && !self.max.is_zero() {
            format!("up to {}", self.max.human())
        } else if self.min == self.max {
            self.min.human()
        } else {
            format!("{} .. {}", self.min.human(), self.max.human())
        }
    }
}

/// What a step writes, as far as the plan can know it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Written {
    /// A share of the target's capacity (a fill of a 100% span twice is 200%).
    pub capacity: Percent,
    /// Bytes that do not depend on the capacity (byte spans, copies, probes).
    pub bytes: Bytes,
    /// Time spent writing for a fixed time: how much that writes depends on
    /// the device.
    pub timed: TimeRange,
}

/// Two estimates' times in sequence, saturating.
impl std::ops::Add for TimeRange {
    type Output = TimeRange;

    fn add(self, other: TimeRange) -> TimeRange {
        TimeRange { min: self.min.saturating_add(other.min), max: self.max.saturating_add(other.max) }
    }
}

/// Two estimates' writes together, saturating.
impl std::ops::Add for Written {
    type Output = Written;

    fn add(self, other: Written) -> Written {
        Written {
            capacity: Percent::from_hundredths(
                self.capacity.hundredths().saturating_add(other.capacity.hundredths()),
            ),
            bytes: Bytes(self.bytes.0.saturating_add(other.bytes.0)),
            timed: self.timed + other.timed,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StepEstimate {
    /// Time the step takes where the plan can know it; a steady-state step
    /// gives a range from `window` rounds to `max_rounds` rounds.
    pub time: TimeRange,
    /// The step also takes time that depends on the device's speed (erase,
    /// fill, until written or transferred, copy, probe).
    pub device_bound: bool,
    pub written: Written,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Estimate {
    /// The sum of the steps' times.
    pub time: TimeRange,
    /// Steps whose time also depends on the device.
    pub device_bound_steps: u32,
    /// The sum of the steps' writes.
    pub written: Written,
    /// The capacity given with `--capacity`, if any.
    pub capacity: Option<Bytes>,
    /// `capacity` times `written.capacity`, plus `written.bytes`.
    pub written_bytes: Option<Bytes>,
}

impl Written {
    /// `200% of capacity + 7.4 GB + writes for 6h`, or `-`; sizes in the
    /// given units.
    pub fn human(&self, units: Units) -> String {
        let mut parts = Vec::new();
        if self.capacity != Percent::ZERO {
            parts.push(format!("{} of capacity", self.capacity));
        }
        if self.bytes.0 != 0 {
            parts.push(self.bytes.human(units == Units::Binary));
        }
        if !self.timed.is_zero() {
            parts.push(format!("writes for {}", self.timed.human()));
        }
        if parts.is_empty() { "-".to_string() } else { parts.join(" + ") }
    }
}
