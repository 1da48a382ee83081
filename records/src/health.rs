//! A drive's own health counters around a step, as results record them:
//! for NVMe, the SMART / Health Information log (log page 0x02) read
//! before and after the step, so that a reader sees what the drive counted
//! (data units written against the bytes the step wrote, temperature,
//! time above the warning and critical temperatures, media errors).

use serde::{Deserialize, Serialize};

/// The SMART / health log at one moment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Health {
    /// Composite temperature, degrees Celsius.
    pub temperature_c: i32,
    /// Data units read and written: thousands of 512-byte units, as the
    /// drive counts them (rounded up).
    pub data_units_read: u128,
    pub data_units_written: u128,
    pub host_read_commands: u128,
    pub host_write_commands: u128,
    pub media_errors: u128,
    /// Percentage of the drive's rated life used (may exceed 100).
    pub percentage_used: u8,
    /// Minutes at or above the warning and the critical composite temperature.
    pub warning_temperature_minutes: u32,
    pub critical_temperature_minutes: u32,
}

/// A step's health: before and after, and what the drive counted in between.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepHealth {
    /// The target, by its path.
    pub target: String,
    pub before: Health,
    pub after: Health,
    /// Bytes the drive counted as written over the step (its data units
    /// written, times 512,000): to set beside the bytes the step wrote.
    pub bytes_written_by_drive: u128,
}

impl StepHealth {
    /// The two readings of `target`, with the drive's count between them.
    pub fn new(target: String, before: Health, after: Health) -> StepHealth {
        let units = after.data_units_written.saturating_sub(before.data_units_written);
        StepHealth { target, before, after, bytes_written_by_drive: units * 512_000 }
    }
}
