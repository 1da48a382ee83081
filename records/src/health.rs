//! A drive's own health counters around a step, as results record them,
//! one reading type for either interface: for NVMe, the SMART / Health
//! Information log (log page 0x02), and where the drive has the OCP cloud
//! SMART log, the bytes its flash took (hence the write amplification);
//! for SATA, the ATA Device Statistics log (log 04h), or where the drive
//! has none, the SMART attributes most vendors share. Read before and
//! after the step, so that a reader sees what the drive counted (bytes
//! written against the bytes the step wrote, temperature, throttling, time
//! above its temperature limits, media errors). A field the drive does not
//! report is `None`: left out of the JSON, an empty cell in the series.

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Where a reading came from, as the results say it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
pub enum HealthSource {
    /// The NVMe SMART / Health Information log (and the OCP log's flash
    /// bytes where the drive has it). Results written before SATA drives
    /// had readings are all this, and load as it.
    #[default]
    #[serde(rename = "NVMe SMART / health log")]
    NvmeHealthLog,
    /// The ATA Device Statistics log (ACS-4, 9.5).
    #[serde(rename = "ATA device statistics")]
    AtaDeviceStatistics,
    /// The ATA Device Statistics log, with the temperature from the SMART
    /// attributes (194, else 190) because the statistics have none.
    #[serde(rename = "ATA device statistics and SMART attributes")]
    AtaDeviceStatisticsAndAttributes,
    /// The SMART attribute table alone: the drive has no Device Statistics
    /// log. Its attributes' meanings are vendor conventions.
    #[serde(rename = "ATA SMART attributes")]
    AtaSmartAttributes,
}

impl HealthSource {
    /// The words the results use for it.
    pub fn words(self) -> &'static str {
        match self {
            HealthSource::NvmeHealthLog => "NVMe SMART / health log",
            HealthSource::AtaDeviceStatistics => "ATA device statistics",
            HealthSource::AtaDeviceStatisticsAndAttributes => "ATA device statistics and SMART attributes",
            HealthSource::AtaSmartAttributes => "ATA SMART attributes",
        }
    }
}

impl fmt::Display for HealthSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.words())
    }
}

/// A drive's health counters at one moment. Each field says which
/// interface reports it; a drive that does not leaves it `None`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct Health {
    /// Where the reading came from.
    #[serde(default)]
    pub source: HealthSource,
    /// The drive's temperature, degrees Celsius. NVMe: the composite
    /// temperature. ATA: the Current Temperature statistic, or SMART
    /// attribute 194 (else 190), its raw value's low byte.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature_c: Option<i32>,
    /// NVMe: the temperature sensors 1-8 that the drive reports, degrees
    /// Celsius, in sensor order (sensors it does not report are left out).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sensors_c: Vec<i32>,
    /// NVMe: minutes at or above the warning and the critical composite
    /// temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warning_temperature_minutes: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub critical_temperature_minutes: Option<u32>,
    /// ATA: minutes over the drive's specified maximum and under its
    /// minimum operating temperature (Time in Over-Temperature and Time in
    /// Under-Temperature, device statistics).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub over_temperature_minutes: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub under_temperature_minutes: Option<u32>,
    /// NVMe: how many times the drive entered thermal management
    /// temperature 1 (light throttling) and 2 (heavy throttling), since it
    /// was made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub throttle_transitions: Option<[u32; 2]>,
    /// NVMe: seconds spent in thermal management temperature 1 and 2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub throttle_seconds: Option<[u32; 2]>,
    /// NVMe: data units read and written, thousands of 512-byte units, as
    /// the drive counts them (rounded up).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data_units_read: Option<u128>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data_units_written: Option<u128>,
    /// ATA: sectors read and written, each of [`Health::sector_bytes`]:
    /// the Logical Sectors Read and Written statistics, or SMART
    /// attributes 242 and 241 (Total LBAs Read and Written, by vendor
    /// convention).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logical_sectors_read: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logical_sectors_written: Option<u64>,
    /// ATA: the bytes of each sector counted above: the drive's logical
    /// sector (IDENTIFY DEVICE) for the statistics, 512 for the attributes
    /// (most vendors count 512-byte LBAs there; some count other units).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sector_bytes: Option<u64>,
    /// Read and write commands the drive completed (NVMe: host read and
    /// write commands; ATA: Number of Read and Write Commands).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_read_commands: Option<u128>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_write_commands: Option<u128>,
    /// Errors the drive could not correct. NVMe: media and data integrity
    /// errors. ATA: Number of Reported Uncorrectable Errors (statistics),
    /// or SMART attribute 187 (Reported Uncorrect, by vendor convention).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media_errors: Option<u128>,
    /// ATA: sectors the drive has reallocated: Number of Reallocated
    /// Logical Sectors (statistics, rotating media), or SMART attribute 5
    /// (Reallocated Sectors Count, by vendor convention).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reallocated_sectors: Option<u64>,
    /// ATA: Number of Interface CRC Errors (statistics), or SMART attribute
    /// 199 (UDMA CRC Error Count, by vendor convention): errors on the cable
    /// and link, not the media.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interface_crc_errors: Option<u64>,
    /// Percentage of the drive's rated life used (may exceed 100). NVMe:
    /// Percentage Used; ATA: Percentage Used Endurance Indicator.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub percentage_used: Option<u8>,
    /// NVMe: bytes written to the flash, the drive's own writes included
    /// (the OCP cloud SMART log's physical media units written); `None`
    /// when the drive has no such log.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nand_bytes_written: Option<u128>,
}

/// The header of a step's health series (`series/<step-id>.health.csv`):
/// the time, the target, then the reading's fields (the NVMe ones first,
/// as before SATA drives had readings; the ATA ones and the source after).
pub const SERIES_HEADER: &str = "t_s,target,temperature_c,sensors_c,warning_temperature_minutes,\
critical_temperature_minutes,throttle_transitions_1,throttle_transitions_2,throttle_seconds_1,throttle_seconds_2,\
data_units_read,data_units_written,host_read_commands,host_write_commands,media_errors,percentage_used,\
nand_bytes_written,logical_sectors_read,logical_sectors_written,sector_bytes,reallocated_sectors,\
interface_crc_errors,over_temperature_minutes,under_temperature_minutes,source";

/// A cell of the series: the value, or empty.
fn cell<T: ToString>(v: Option<T>) -> String {
    v.map(|v| v.to_string()).unwrap_or_default()
}

impl Health {
    /// The reading as a line of the health series at `t_s` (under
    /// [`SERIES_HEADER`]): sensors joined by spaces, an empty cell for a
    /// value the drive does not report.
    pub fn series_line(&self, t_s: f64, target: &str) -> String {
        let sensors: Vec<String> = self.sensors_c.iter().map(|c| c.to_string()).collect();
        let pair = |p: Option<[u32; 2]>, i: usize| cell(p.map(|p| p[i]));
        [
            format!("{t_s:.3}"),
            target.to_string(),
            cell(self.temperature_c),
            sensors.join(" "),
            cell(self.warning_temperature_minutes),
            cell(self.critical_temperature_minutes),
            pair(self.throttle_transitions, 0),
            pair(self.throttle_transitions, 1),
            pair(self.throttle_seconds, 0),
            pair(self.throttle_seconds, 1),
            cell(self.data_units_read),
            cell(self.data_units_written),
            cell(self.host_read_commands),
            cell(self.host_write_commands),
            cell(self.media_errors),
            cell(self.percentage_used),
            cell(self.nand_bytes_written),
            cell(self.logical_sectors_read),
            cell(self.logical_sectors_written),
            cell(self.sector_bytes),
            cell(self.reallocated_sectors),
            cell(self.interface_crc_errors),
            cell(self.over_temperature_minutes),
            cell(self.under_temperature_minutes),
            self.source.words().to_string(),
        ]
        .join(",")
    }

    /// The bytes the drive counts as written to it, over its life: NVMe
    /// data units times 512,000 (a unit is 1,000 blocks of 512 bytes);
    /// ATA sectors written times their size. `None` when it counts none.
    pub fn bytes_written(&self) -> Option<u128> {
        bytes(self.data_units_written, self.logical_sectors_written, self.sector_bytes)
    }

    /// The bytes the drive counts as read from it, as [`Health::bytes_written`].
    pub fn bytes_read(&self) -> Option<u128> {
        bytes(self.data_units_read, self.logical_sectors_read, self.sector_bytes)
    }
}

/// NVMe data units, else ATA sectors of `sector_bytes`, in bytes.
fn bytes(units: Option<u128>, sectors: Option<u64>, sector_bytes: Option<u64>) -> Option<u128> {
    match (units, sectors, sector_bytes) {
        (Some(u), _, _) => Some(u.saturating_mul(512_000)),
        (None, Some(s), Some(b)) => Some(u128::from(s) * u128::from(b)),
        _ => None,
    }
}

/// A step's health: before and after, and what the drive counted in between.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct StepHealth {
    /// The target, by its path.
    pub target: String,
    pub before: Health,
    pub after: Health,
    /// Bytes the drive counted as written over the step, to set beside the
    /// bytes the step wrote (NVMe: its data units written, times 512,000;
    /// ATA: its sectors written, times their size); `None` when the drive
    /// does not count them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes_written_by_drive: Option<u128>,
    /// Bytes the drive counted as read over the step, likewise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes_read_by_drive: Option<u128>,
    /// Bytes the flash took over the step over the bytes the host wrote
    /// (`bytes_written_by_drive`), NVMe with the OCP log only; `None` when
    /// the drive does not say what its flash took, or counted no host
    /// bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_amplification: Option<f64>,
    /// Times the drive began throttling over the step (NVMe: both thermal
    /// management temperatures' transitions, summed); `None` when the
    /// drive does not count them (ATA has no such count).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub throttle_events: Option<u32>,
}

impl StepHealth {
    /// The two readings of `target`, with the drive's counts between them.
    /// Readings from two different sources are not subtracted.
    pub fn new(target: String, before: Health, after: Health) -> StepHealth {
        let same = before.source == after.source;
        let grew = |b: Option<u128>, a: Option<u128>| Some(a?.saturating_sub(b?)).filter(|_| same);
        let bytes_written_by_drive = grew(before.bytes_written(), after.bytes_written());
        let bytes_read_by_drive = grew(before.bytes_read(), after.bytes_read());
        let write_amplification =
            match (before.nand_bytes_written, after.nand_bytes_written, bytes_written_by_drive) {
                (Some(b), Some(a), Some(host)) if host > 0 && same => {
                    Some(a.saturating_sub(b) as f64 / host as f64)
                }
                _ => None,
            };
        let throttle_events = match (before.throttle_transitions, after.throttle_transitions) {
            (Some(b), Some(a)) if same => {
                Some((0..2).map(|i| a[i].saturating_sub(b[i])).fold(0u32, u32::saturating_add))
            }
            _ => None,
        };
        StepHealth {
            target,
            before,
            after,
            bytes_written_by_drive,
            bytes_read_by_drive,
            write_amplification,
            throttle_events,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reading(units_written: u128, nand: Option<u128>, transitions: [u32; 2]) -> Health {
        Health {
            source: HealthSource::NvmeHealthLog,
            temperature_c: Some(40),
            data_units_read: Some(0),
            data_units_written: Some(units_written),
            host_read_commands: Some(0),
            host_write_commands: Some(0),
            media_errors: Some(0),
            percentage_used: Some(0),
            warning_temperature_minutes: Some(0),
            critical_temperature_minutes: Some(0),
            sensors_c: vec![41, 43],
            throttle_transitions: Some(transitions),
            throttle_seconds: Some([0, 0]),
            nand_bytes_written: nand,
            ..Default::default()
        }
    }

    /// A SATA drive's reading from its device statistics: sectors of its
    /// logical size, no NVMe field.
    fn ata(sectors_written: u64, sector_bytes: u64) -> Health {
        Health {
            source: HealthSource::AtaDeviceStatistics,
            temperature_c: Some(35),
            logical_sectors_written: Some(sectors_written),
            logical_sectors_read: Some(7),
            sector_bytes: Some(sector_bytes),
            host_write_commands: Some(3),
            percentage_used: Some(2),
            ..Default::default()
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
        assert_eq!(s.bytes_written_by_drive, Some(1_024_000));
        assert_eq!(s.bytes_read_by_drive, Some(0));
        assert_eq!(s.write_amplification, Some(3.0));
        assert_eq!(s.throttle_events, Some(3));
    }

    #[test]
    fn write_amplification_needs_both_counts() {
        let none = StepHealth::new("t".into(), reading(10, None, [0, 0]), reading(12, None, [0, 0]));
        assert_eq!((none.write_amplification, none.throttle_events), (None, Some(0)));
        let one = StepHealth::new("t".into(), reading(10, None, [0, 0]), reading(12, Some(5), [0, 0]));
        assert_eq!(one.write_amplification, None);
        // No host bytes counted: no ratio, not infinity.
        let idle = StepHealth::new("t".into(), reading(10, Some(0), [0, 0]), reading(10, Some(4096), [0, 0]));
        assert_eq!(idle.write_amplification, None);
    }

    /// A SATA drive's sectors are counted at their own size: 4096-byte
    /// sectors here, 512-byte by the attributes' convention; no write
    /// amplification and no throttle count, which ATA does not report.
    #[test]
    fn ata_sectors_count_at_their_size_and_nothing_is_invented() {
        let s = StepHealth::new("/dev/sda".into(), ata(1_000, 4096), ata(1_250, 4096));
        assert_eq!((s.bytes_written_by_drive, s.bytes_read_by_drive), (Some(250 * 4096), Some(0)));
        assert_eq!((s.write_amplification, s.throttle_events), (None, None));
        let attributes = |n| Health {
            source: HealthSource::AtaSmartAttributes,
            logical_sectors_written: Some(n),
            sector_bytes: Some(512),
            ..Default::default()
        };
        let s = StepHealth::new("/dev/sda".into(), attributes(10), attributes(2058));
        assert_eq!((s.bytes_written_by_drive, s.bytes_read_by_drive), (Some(2048 * 512), None));
        // A drive that counts nothing written (QEMU's SATA disk): no bytes.
        let bare = Health {
            source: HealthSource::AtaSmartAttributes,
            temperature_c: Some(31),
            ..Default::default()
        };
        let s = StepHealth::new("/dev/sda".into(), bare.clone(), bare);
        assert_eq!(s.bytes_written_by_drive, None);
        // Two sources are not subtracted.
        let s = StepHealth::new("/dev/sda".into(), ata(1_000, 512), attributes(2_000));
        assert_eq!(s.bytes_written_by_drive, None);
    }

    /// Fields the drive does not report stay out of the JSON, and the
    /// source says where the reading came from, in words.
    #[test]
    fn unreported_fields_are_left_out_and_the_source_is_in_words() {
        let json = serde_json::to_value(ata(5, 512)).unwrap();
        let mut keys: Vec<&str> = json.as_object().unwrap().keys().map(|k| k.as_str()).collect();
        keys.sort();
        assert_eq!(
            keys,
            [
                "host_write_commands",
                "logical_sectors_read",
                "logical_sectors_written",
                "percentage_used",
                "sector_bytes",
                "source",
                "temperature_c"
            ]
        );
        assert_eq!(json["source"], "ATA device statistics");
        for s in [
            HealthSource::NvmeHealthLog,
            HealthSource::AtaDeviceStatistics,
            HealthSource::AtaDeviceStatisticsAndAttributes,
            HealthSource::AtaSmartAttributes,
        ] {
            assert_eq!(serde_json::to_value(s).unwrap(), s.words(), "the JSON says the words");
            assert_eq!(s.to_string(), s.words());
        }
        let s = StepHealth::new("/dev/sda".into(), ata(1, 512), ata(3, 512));
        let back: StepHealth = serde_json::from_str(&serde_json::to_string(&s).unwrap()).unwrap();
        assert_eq!(back, s);
        let step = serde_json::to_value(&s).unwrap();
        assert!(step.get("write_amplification").is_none() && step.get("throttle_events").is_none());
    }

    /// Results written before SATA drives had readings (NVMe numbers, not
    /// options, and no source), and before the sensors and throttle counts,
    /// still load: as NVMe readings, with what they had.
    #[test]
    fn older_health_records_still_load() {
        let old = r#"{"target":"/dev/nvme0n1","before":{"temperature_c":40,"data_units_read":1,
            "data_units_written":2,"host_read_commands":3,"host_write_commands":4,"media_errors":0,
            "percentage_used":1,"warning_temperature_minutes":0,"critical_temperature_minutes":0},
            "after":{"temperature_c":41,"data_units_read":1,"data_units_written":4,"host_read_commands":3,
            "host_write_commands":9,"media_errors":0,"percentage_used":1,"warning_temperature_minutes":0,
            "critical_temperature_minutes":0},"bytes_written_by_drive":1024000}"#;
        let s: StepHealth = serde_json::from_str(old).unwrap();
        assert_eq!(s.bytes_written_by_drive, Some(1_024_000));
        assert_eq!((s.write_amplification, s.throttle_events), (None, None));
        assert_eq!(s.after.source, HealthSource::NvmeHealthLog);
        assert_eq!(
            (s.after.temperature_c, s.after.data_units_written, s.after.host_write_commands),
            (Some(41), Some(4), Some(9))
        );
        assert_eq!(
            (s.after.sensors_c.len(), s.after.throttle_transitions, s.after.nand_bytes_written),
            (0, None, None)
        );
        // The step's count is the one the readings give.
        assert_eq!(
            StepHealth::new(s.target.clone(), s.before.clone(), s.after.clone()),
            StepHealth { bytes_read_by_drive: Some(0), ..s.clone() }
        );
        // The shape written just before (throttle counts, null flash bytes
        // and write amplification) loads too.
        let last = r#"{"target":"t","before":{"temperature_c":40,"data_units_read":0,"data_units_written":1,
            "host_read_commands":0,"host_write_commands":0,"media_errors":0,"percentage_used":0,
            "warning_temperature_minutes":0,"critical_temperature_minutes":0,"sensors_c":[41],
            "throttle_transitions":[1,0],"throttle_seconds":[4,0],"nand_bytes_written":null},
            "after":{"temperature_c":40,"data_units_read":0,"data_units_written":3,"host_read_commands":0,
            "host_write_commands":0,"media_errors":0,"percentage_used":0,"warning_temperature_minutes":0,
            "critical_temperature_minutes":0,"sensors_c":[41],"throttle_transitions":[2,0],
            "throttle_seconds":[9,0],"nand_bytes_written":null},"bytes_written_by_drive":1024000,
            "write_amplification":null,"throttle_events":1}"#;
        let s: StepHealth = serde_json::from_str(last).unwrap();
        assert_eq!((s.throttle_events, s.after.throttle_transitions), (Some(1), Some([2, 0])));
        assert_eq!((s.write_amplification, s.after.sensors_c.as_slice()), (None, &[41][..]));
        // And the new fields go round.
        let s = StepHealth::new("t".into(), reading(1, Some(7), [1, 0]), reading(3, Some(2_048_007), [2, 0]));
        let back: StepHealth = serde_json::from_str(&serde_json::to_string(&s).unwrap()).unwrap();
        assert_eq!(back, s);
        assert_eq!(back.write_amplification, Some(2.0));
    }

    /// A health series line has a cell for each column of the header, in
    /// its order; sensors are space-separated, values the drive does not
    /// report empty.
    #[test]
    fn a_health_series_line_matches_its_header() {
        let header: Vec<&str> = SERIES_HEADER.split(',').collect();
        let cells = |h: &Health, target: &str| -> Vec<String> {
            let line = h.series_line(2.5, target);
            let cells: Vec<String> = line.split(',').map(String::from).collect();
            assert_eq!(cells.len(), header.len(), "{line}");
            cells
        };
        let at =
            |cells: &[String], name: &str| cells[header.iter().position(|h| *h == name).unwrap()].clone();
        let mut h = reading(132, None, [1, 0]);
        h.sensors_c = vec![41, 38];
        let nvme = cells(&h, "/dev/nvme0n1");
        assert_eq!(
            (at(&nvme, "t_s"), at(&nvme, "target"), at(&nvme, "sensors_c")),
            ("2.500".into(), "/dev/nvme0n1".into(), "41 38".into())
        );
        assert_eq!(
            (at(&nvme, "data_units_written"), at(&nvme, "throttle_transitions_1")),
            ("132".into(), "1".into())
        );
        assert_eq!(
            (at(&nvme, "nand_bytes_written"), at(&nvme, "logical_sectors_written")),
            (String::new(), String::new())
        );
        assert_eq!(at(&nvme, "source"), "NVMe SMART / health log");
        // The NVMe columns keep their places.
        assert_eq!(header[11], "data_units_written");
        assert_eq!(at(&cells(&reading(1, Some(512_000), [0, 0]), "x"), "nand_bytes_written"), "512000");
        // A SATA reading: its sectors, no NVMe cell.
        let sata = cells(&ata(9, 4096), "/dev/sda");
        assert_eq!(
            (at(&sata, "temperature_c"), at(&sata, "logical_sectors_written"), at(&sata, "sector_bytes")),
            ("35".into(), "9".into(), "4096".into())
        );
        assert_eq!(
            (at(&sata, "data_units_written"), at(&sata, "throttle_transitions_2")),
            (String::new(), String::new())
        );
        assert_eq!(at(&sata, "source"), "ATA device statistics");
    }
}
