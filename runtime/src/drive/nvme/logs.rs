//! The drive's telemetry logs, read and parsed: the SMART / Health
//! Information log (NVM Express Base Specification 2.0, 5.16.1.3, figure
//! 207) and, where the drive has it, the OCP Datacenter NVMe SSD
//! Specification's SMART / Health Information Extended log (log 0xC0, the
//! "cloud SMART" log), whose physical media units written give the bytes
//! the flash took. In: a namespace's file or the log's bytes; out: a
//! [`Health`], an [`OcpSmart`], or `None`.

use std::fs::File;

use methodic_results::health::HealthSource;

use super::admin::log_page;
use methodic_results::health::Health;

/// The SMART / Health Information log.
const LOG_HEALTH: u8 = 0x02;
/// The OCP SMART / Health Information Extended log.
const LOG_OCP_SMART: u8 = 0xc0;

/// The OCP SMART / Health Information Extended log's GUID as its bytes
/// 496-511 hold it (AFD514C97C6F4F9CA4F2BFEA2810AFC5h, little endian),
/// which tells it from another vendor's log 0xC0.
const OCP_SMART_GUID: [u8; 16] =
    [0xc5, 0xaf, 0x10, 0x28, 0xea, 0xbf, 0xf2, 0xa4, 0x9c, 0x4f, 0x6f, 0x7c, 0xc9, 0x14, 0xd5, 0xaf];

/// The SMART / health log of the controller of `file` (an NVMe namespace),
/// with the NAND bytes written from the OCP log when the drive has one;
/// `None` when it is not an NVMe namespace or the drive does not answer.
pub fn health(file: &File) -> Option<Health> {
    let mut h = parse_health(&log_page(file, LOG_HEALTH, 512).ok()?)?;
    h.nand_bytes_written = ocp_smart(file).map(|o| o.nand_bytes_written);
    Some(h)
}

/// Reads the SMART / Health Information log (Base 2.0, figure 207):
/// composite temperature in kelvins at bytes 1-2, percentage used at 5,
/// data units read and written at 32 and 48, host read and write commands
/// at 64 and 80, media errors at 160 (each 16 bytes), warning and critical
/// composite temperature time in minutes at 192 and 196, temperature
/// sensors 1-8 in kelvins at 200-215 (two bytes each, 0 when the sensor is
/// not there), thermal management temperature 1 and 2 transition counts
/// at 216 and 220 and total times in seconds at 224 and 228; all little
/// endian. Every field of the log is there (`Some`); `nand_bytes_written`
/// is left `None` (it is not in this log), and so are the ATA fields.
pub fn parse_health(d: &[u8]) -> Option<Health> {
    if d.len() < 512 {
        return None;
    }
    let u128_at = |i: usize| u128::from_le_bytes(d[i..i + 16].try_into().unwrap());
    let u32_at = |i: usize| u32::from_le_bytes(d[i..i + 4].try_into().unwrap());
    let u16_at = |i: usize| u16::from_le_bytes([d[i], d[i + 1]]);
    Some(Health {
        source: HealthSource::NvmeHealthLog,
        temperature_c: Some(i32::from(u16_at(1)) - 273),
        data_units_read: Some(u128_at(32)),
        data_units_written: Some(u128_at(48)),
        host_read_commands: Some(u128_at(64)),
        host_write_commands: Some(u128_at(80)),
        media_errors: Some(u128_at(160)),
        percentage_used: Some(d[5]),
        warning_temperature_minutes: Some(u32_at(192)),
        critical_temperature_minutes: Some(u32_at(196)),
        sensors_c: (0..8)
            .map(|i| u16_at(200 + 2 * i))
            .filter(|&k| k != 0)
            .map(|k| i32::from(k) - 273)
            .collect(),
        throttle_transitions: Some([u32_at(216), u32_at(220)]),
        throttle_seconds: Some([u32_at(224), u32_at(228)]),
        ..Default::default()
    })
}

/// What the OCP SMART / Health Information Extended log says of the flash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OcpSmart {
    /// Physical Media Units Written: bytes written to the NAND, the host's
    /// and the drive's own (garbage collection, wear levelling) together.
    pub nand_bytes_written: u128,
    /// Physical Media Units Read, in bytes.
    pub nand_bytes_read: u128,
}

/// The OCP SMART / Health Information Extended log of the controller of
/// `file`; `None` when the drive has no log 0xC0 or its 0xC0 is another
/// vendor's log (a different GUID).
pub fn ocp_smart(file: &File) -> Option<OcpSmart> {
    parse_ocp_smart(&log_page(file, LOG_OCP_SMART, 512).ok()?)
}

/// Reads the OCP Datacenter NVMe SSD Specification's SMART / Health
/// Information Extended log (log 0xC0, 512 bytes): Physical Media Units
/// Written at bytes 0-15 and Physical Media Units Read at 16-31, both in
/// bytes, little endian; Log Page Version at 494-495; Log Page GUID at
/// 496-511, which must be the OCP's. QEMU's emulation (`ocp=on`) fills the
/// same fields, with the bytes its block layer wrote and read.
pub fn parse_ocp_smart(d: &[u8]) -> Option<OcpSmart> {
    if d.len() < 512 || d[496..512] != OCP_SMART_GUID {
        return None;
    }
    Some(OcpSmart {
        nand_bytes_written: u128::from_le_bytes(d[0..16].try_into().ok()?),
        nand_bytes_read: u128::from_le_bytes(d[16..32].try_into().ok()?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A health log laid out as the specification gives it.
    #[test]
    fn the_health_log_gives_temperature_and_counts() {
        let mut d = vec![0u8; 512];
        d[1..3].copy_from_slice(&323u16.to_le_bytes()); // 50 C
        d[5] = 3;
        d[48..64].copy_from_slice(&132u128.to_le_bytes());
        d[32..48].copy_from_slice(&7u128.to_le_bytes());
        d[80..96].copy_from_slice(&16_384u128.to_le_bytes());
        d[160..176].copy_from_slice(&2u128.to_le_bytes());
        d[192..196].copy_from_slice(&11u32.to_le_bytes());
        let h = parse_health(&d).unwrap();
        assert_eq!(
            (h.temperature_c, h.percentage_used, h.data_units_written, h.data_units_read),
            (Some(50), Some(3), Some(132), Some(7))
        );
        assert_eq!(
            (h.host_write_commands, h.media_errors, h.warning_temperature_minutes),
            (Some(16_384), Some(2), Some(11))
        );
        assert_eq!(h.critical_temperature_minutes, Some(0));
        assert_eq!(
            (h.sensors_c.len(), h.throttle_transitions, h.throttle_seconds),
            (0, Some([0, 0]), Some([0, 0]))
        );
        assert_eq!((h.source, h.nand_bytes_written), (HealthSource::NvmeHealthLog, None));
        // No ATA field in an NVMe reading.
        assert_eq!((h.logical_sectors_written, h.sector_bytes, h.reallocated_sectors), (None, None, None));
        assert_eq!(h.bytes_written(), Some(132 * 512_000));
        assert_eq!(parse_health(&d[..100]), None);
    }

    /// Temperature sensors 1, 2 and 8 reported (3 to 7 are 0, absent), and
    /// the thermal management counts and times each in its own place.
    #[test]
    fn the_health_log_gives_sensors_and_throttling() {
        let mut d = vec![0u8; 512];
        d[200..202].copy_from_slice(&318u16.to_le_bytes()); // sensor 1: 45 C
        d[202..204].copy_from_slice(&333u16.to_le_bytes()); // sensor 2: 60 C
        d[214..216].copy_from_slice(&263u16.to_le_bytes()); // sensor 8: -10 C
        d[216..220].copy_from_slice(&4u32.to_le_bytes()); // TMT1 transitions
        d[220..224].copy_from_slice(&1u32.to_le_bytes()); // TMT2 transitions
        d[224..228].copy_from_slice(&90u32.to_le_bytes()); // seconds at TMT1
        d[228..232].copy_from_slice(&7u32.to_le_bytes()); // seconds at TMT2
        let h = parse_health(&d).unwrap();
        assert_eq!(h.sensors_c, vec![45, 60, -10]);
        assert_eq!(h.throttle_transitions, Some([4, 1]));
        assert_eq!(h.throttle_seconds, Some([90, 7]));
    }

    /// An OCP log as QEMU fills it: units written and read in bytes,
    /// version 5, the GUID at the end; another GUID is another log.
    #[test]
    fn the_ocp_log_gives_nand_bytes_when_its_guid_is_the_ocps() {
        let mut d = vec![0u8; 512];
        d[0..16].copy_from_slice(&(1u128 << 70 | 4096).to_le_bytes());
        d[16..32].copy_from_slice(&8192u128.to_le_bytes());
        d[494..496].copy_from_slice(&5u16.to_le_bytes());
        d[496..512].copy_from_slice(&[
            0xC5, 0xAF, 0x10, 0x28, 0xEA, 0xBF, 0xF2, 0xA4, 0x9C, 0x4F, 0x6F, 0x7C, 0xC9, 0x14, 0xD5, 0xAF,
        ]);
        assert_eq!(
            parse_ocp_smart(&d),
            Some(OcpSmart { nand_bytes_written: 1u128 << 70 | 4096, nand_bytes_read: 8192 })
        );
        d[511] = 0x00; // one byte of the GUID off: a vendor's own log 0xC0
        assert_eq!(parse_ocp_smart(&d), None);
        assert_eq!(parse_ocp_smart(&d[..511]), None);
    }
}
