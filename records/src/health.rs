//! A drive's own health counters around a step, as results record them:
//! for NVMe, the SMART / Health Information log (log page 0x02) read
//! before and after the step, so that a reader sees what the drive counted
//! (data units written against the bytes the step wrote, temperature and
//! its sensors, thermal throttling, time above the warning and critical
//! temperatures, media errors), and where the drive has the OCP cloud
//! SMART log, the bytes its flash took, hence the write amplification.

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
    /// The drive's temperature sensors 1-8 that it reports, degrees
    /// Celsius, in sensor order (sensors it does not report are left out).
    #[serde(default)]
    pub sensors_c: Vec<i32>,
    /// How many times the drive entered thermal management temperature 1
    /// (light throttling) and 2 (heavy throttling), since it was made.
    #[serde(default)]
    pub throttle_transitions: [u32; 2],
    /// Seconds spent in thermal management temperature 1 and 2.
    #[serde(default)]
    pub throttle_seconds: [u32; 2],
    /// Bytes written to the flash, the drive's own writes included (the OCP
    /// cloud SMART log's physical media units written); `None` when the
    /// drive has no such log.
    #[serde(default)]
    pub nand_bytes_written: Option<u128>,
}

/// The header of a step's health series (`series/<step-id>.health.csv`):
/// the time, the target, then the reading's fields.
pub const SERIES_HEADER: &str = "t_s,target,temperature_c,sensors_c,warning_temperature_minutes,\
critical_temperature_minutes,throttle_transitions_1,throttle_transitions_2,throttle_seconds_1,throttle_seconds_2,\
data_units_read,data_units_written,host_read_commands,host_write_commands,media_errors,percentage_used,\
nand_bytes_written";

impl Health {
    /// The reading as a line of the health series at `t_s` (under
    /// [`SERIES_HEADER`]): sensors joined by spaces, an empty cell for NAND
    /// bytes the drive does not report.
    pub fn series_line(&self, t_s: f64, target: &str) -> String {
        let sensors: Vec<String> = self.sensors_c.iter().map(|c| c.to_string()).collect();
        format!(
            "{t_s:.3},{target},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            self.temperature_c,
            sensors.join(" "),
            self.warning_temperature_minutes,
            self.critical_temperature_minutes,
            self.throttle_transitions[0],
            self.throttle_transitions[1],
            self.throttle_seconds[0],
            self.throttle_seconds[1],
            self.data_units_read,
            self.data_units_written,
            self.host_read_commands,
            self.host_write_commands,
            self.media_errors,
            self.percentage_used,
            self.nand_bytes_written.map(|n| n.to_string()).unwrap_or_default()
        )
    }
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
    /// Bytes the flash took over the step over the bytes the host wrote
    /// (`bytes_written_by_drive`); `None` when the drive does not say what
    /// its flash took, or counted no host bytes.
    #[serde(default)]
    pub write_amplification: Option<f64>,
    /// Times the drive began throttling over the step (both thermal
    /// management temperatures' transitions, summed).
    #[serde(default)]
    pub throttle_events: u32,
}

impl StepHealth {
    /// The two readings of `target`, with the drive's count between them.
    pub fn new(target: String, before: Health, after: Health) -> StepHealth {
        let units = after.data_units_written.saturating_sub(before.data_units_written);
        let bytes_written_by_drive = units * 512_000;
        let write_amplification = match (before.nand_bytes_written, after.nand_bytes_written) {
            (Some(b), Some(a)) if bytes_written_by_drive > 0 => {
                Some(a.saturating_sub(b) as f64 / bytes_written_by_drive as f64)
            }
            _ => None,
        };
        let throttle_events = (0..2)
            .map(|i| after.throttle_transitions[i].saturating_sub(before.throttle_transitions[i]))
            .fold(0u32, u32::saturating_add);
        StepHealth { target, before, after, bytes_written_by_drive, write_amplification, throttle_events }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reading(units_written: u128, nand: Option<u128>, transitions: [u32; 2]) -> Health {
        Health {
            temperature_c: 40,
            data_units_read: 0,
            data_units_written: units_written,
            host_read_commands: 0,
            host_write_commands: 0,
            media_errors: 0,
            percentage_used: 0,
            warning_temperature_minutes: 0,
            critical_temperature_minutes: 0,
            sensors_c: vec![41, 43],
            throttle_transitions: transitions,
            throttle_seconds: [0, 0],
            nand_bytes_written: nand,
        }
    }

    /// 2 data units (1,024,000 host bytes) against 3,072,000 flash bytes: 3.
    #[test]
    fn write_amplification_is_flash_bytes_over_host_bytes() {
        let s = StepHealth::new(
            "/dev/nvme0n1".into(),
            reading(10, Some(1_000_000), [3, 1]),
            reading(12, Some(4_072_000), [5, 2]),
        );
        assert_eq!(s.bytes_written_by_drive, 1_024_000);
        assert_eq!(s.write_amplification, Some(3.0));
        assert_eq!(s.throttle_events, 3);
    }

    #[test]
    fn write_amplification_needs_both_counts() {
        let none = StepHealth::new("t".into(), reading(10, None, [0, 0]), reading(12, None, [0, 0]));
        assert_eq!((none.write_amplification, none.throttle_events), (None, 0));
        let one = StepHealth::new("t".into(), reading(10, None, [0, 0]), reading(12, Some(5), [0, 0]));
        assert_eq!(one.write_amplification, None);
        // No host bytes counted: no ratio, not infinity.
        let idle = StepHealth::new("t".into(), reading(10, Some(0), [0, 0]), reading(10, Some(4096), [0, 0]));
        assert_eq!(idle.write_amplification, None);
    }

    /// Results written before these fields existed still load.
    #[test]
    fn older_health_records_still_load() {
        let old = r#"{"target":"/dev/nvme0n1","before":{"temperature_c":40,"data_units_read":1,
            "data_units_written":2,"host_read_commands":3,"host_write_commands":4,"media_errors":0,
            "percentage_used":1,"warning_temperature_minutes":0,"critical_temperature_minutes":0},
            "after":{"temperature_c":41,"data_units_read":1,"data_units_written":4,"host_read_commands":3,
            "host_write_commands":9,"media_errors":0,"percentage_used":1,"warning_temperature_minutes":0,
            "critical_temperature_minutes":0},"bytes_written_by_drive":1024000}"#;
        let s: StepHealth = serde_json::from_str(old).unwrap();
        assert_eq!(s.bytes_written_by_drive, 1_024_000);
        assert_eq!((s.write_amplification, s.throttle_events), (None, 0));
        assert_eq!(
            (s.after.sensors_c.len(), s.after.throttle_transitions, s.after.nand_bytes_written),
            (0, [0, 0], None)
        );
        // And the new fields go round.
        let s = StepHealth::new("t".into(), reading(1, Some(7), [1, 0]), reading(3, Some(2_048_007), [2, 0]));
        let back: StepHealth = serde_json::from_str(&serde_json::to_string(&s).unwrap()).unwrap();
        assert_eq!(back, s);
        assert_eq!(back.write_amplification, Some(2.0));
    }

    /// A health series line has a cell for each column of the header, in
    /// its order; sensors are space-separated, unknown NAND bytes empty.
    #[test]
    fn a_health_series_line_matches_its_header() {
        let mut h = reading(132, None, [1, 0]);
        h.sensors_c = vec![41, 38];
        let line = h.series_line(2.5, "/dev/nvme0n1");
        let cells: Vec<&str> = line.split(',').collect();
        let header: Vec<&str> = SERIES_HEADER.split(',').collect();
        assert_eq!(cells.len(), header.len(), "{line}");
        let cell = |name: &str| cells[header.iter().position(|h| *h == name).unwrap()];
        assert_eq!((cell("t_s"), cell("target"), cell("sensors_c")), ("2.500", "/dev/nvme0n1", "41 38"));
        assert_eq!((cell("data_units_written"), cell("throttle_transitions_1")), ("132", "1"));
        assert_eq!(cell("nand_bytes_written"), "");
        assert!(reading(1, Some(512_000), [0, 0]).series_line(0.0, "x").ends_with(",512000"));
    }
}
