//! SCSI drives through `SG_IO`: INQUIRY and the unit serial number (SPC-5),
//! READ CAPACITY(16) (SBC-4), the caching mode page's write cache enable
//! (SBC-4) and the control mode page's descriptor-sense bit (SPC-5), and
//! SANITIZE with its progress read from REQUEST SENSE (SBC-4). Each CDB and
//! each answer is a pure function, unit-tested on bytes laid out by the
//! standards' tables.

use std::fs::File;
use std::time::Duration;

use super::sg::{self, Direction, Poll, SanitizeAction, Sense, SgError, SgErrorKind, poll_sanitize};

/// The timeout of a short command.
const SHORT_MS: u32 = 15_000;
/// How long to wait between two REQUEST SENSE polls during a sanitize.
const POLL_INTERVAL: Duration = Duration::from_secs(1);
const INQUIRY: u8 = 0x12;
const REQUEST_SENSE: u8 = 0x03;
const SANITIZE: u8 = 0x48;
const MODE_SELECT_10: u8 = 0x55;
const MODE_SENSE_10: u8 = 0x5a;
const SERVICE_ACTION_IN_16: u8 = 0x9e;
const READ_CAPACITY_16: u8 = 0x10;
const MAINTENANCE_IN: u8 = 0xa3;
const REPORT_SUPPORTED_OPERATION_CODES: u8 = 0x0c;
/// The caching mode page (SBC-4, 6.5.5) and the control mode page (SPC-5,
/// 7.5.10).
const CACHING_PAGE: u8 = 0x08;
const CONTROL_PAGE: u8 = 0x0a;

/// What INQUIRY says of a device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inquiry {
    /// T10 VENDOR IDENTIFICATION, bytes 8-15.
    pub vendor: String,
    /// PRODUCT IDENTIFICATION, bytes 16-31.
    pub product: String,
    /// PRODUCT REVISION LEVEL, bytes 32-35.
    pub revision: String,
    /// The Unit Serial Number VPD page (80h), when the device has one.
    pub serial: Option<String>,
}

/// INQUIRY (SPC-5, 6.7.1, table "INQUIRY command"): byte 1 bit 0 EVPD,
/// byte 2 the page code, bytes 3-4 the allocation length, byte 5 CONTROL.
pub fn inquiry_cdb(vpd_page: Option<u8>, allocation: u16) -> [u8; 6] {
    let [hi, lo] = allocation.to_be_bytes();
    [INQUIRY, u8::from(vpd_page.is_some()), vpd_page.unwrap_or(0), hi, lo, 0]
}

/// ASCII bytes as text, trailing spaces and NULs dropped.
fn ascii(d: &[u8]) -> String {
    String::from_utf8_lossy(d).trim_matches(|c: char| c == ' ' || c == '\0').to_string()
}

impl Inquiry {
    /// Reads standard INQUIRY data (SPC-5, table "Standard INQUIRY data
    /// format"): at least 36 bytes; `None` when the peripheral qualifier
    /// (byte 0 bits 7:5) says no device is connected (011b).
    pub fn parse(d: &[u8]) -> Option<Inquiry> {
        if d.len() < 36 || d[0] >> 5 == 0b011 {
            return None;
        }
        Some(Inquiry {
            vendor: ascii(&d[8..16]),
            product: ascii(&d[16..32]),
            revision: ascii(&d[32..36]),
            serial: None,
        })
    }
}

/// Reads the Unit Serial Number VPD page (SPC-5, 7.7.18): page code 80h at
/// byte 1, the page length at bytes 2-3, the serial from byte 4.
pub fn parse_unit_serial(d: &[u8]) -> Option<String> {
    if d.len() < 4 || d[1] != 0x80 {
        return None;
    }
    let end = d.len().min(4 + usize::from(u16::from_be_bytes([d[2], d[3]])));
    Some(ascii(&d[4..end])).filter(|s| !s.is_empty())
}

/// INQUIRY and the unit serial number of the device behind `file`; `None`
/// when it does not answer the standard INQUIRY.
pub fn inquiry(file: &File) -> Option<Inquiry> {
    let mut d = [0u8; 96];
    sg::sg_io(file, &inquiry_cdb(None, 96), Direction::In(&mut d), SHORT_MS).ok()?;
    let mut inq = Inquiry::parse(&d)?;
    let mut vpd = [0u8; 252];
    if sg::sg_io(file, &inquiry_cdb(Some(0x80), 252), Direction::In(&mut vpd), SHORT_MS).is_ok() {
        inq.serial = parse_unit_serial(&vpd);
    }
    Some(inq)
}

/// What READ CAPACITY(16) says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capacity {
    /// The logical blocks: RETURNED LOGICAL BLOCK ADDRESS (the last) + 1.
    pub blocks: u64,
    /// LOGICAL BLOCK LENGTH IN BYTES.
    pub logical_block_bytes: u32,
    /// The logical block length times 2^(LOGICAL BLOCKS PER PHYSICAL BLOCK
    /// EXPONENT).
    pub physical_block_bytes: u32,
}

/// READ CAPACITY(16) (SBC-4, 5.20.1, table "READ CAPACITY (16) command"):
/// SERVICE ACTION IN(16) 9Eh with service action 10h in byte 1 bits 4:0,
/// bytes 2-9 obsolete (zero), bytes 10-13 the allocation length, byte 14
/// PMI (obsolete, zero), byte 15 CONTROL.
pub fn read_capacity_16_cdb(allocation: u32) -> [u8; 16] {
    let mut cdb = [0u8; 16];
    cdb[0] = SERVICE_ACTION_IN_16;
    cdb[1] = READ_CAPACITY_16;
    cdb[10..14].copy_from_slice(&allocation.to_be_bytes());
    cdb
}

impl Capacity {
    /// Reads READ CAPACITY(16) parameter data (SBC-4, table "READ CAPACITY
    /// (16) parameter data"): bytes 0-7 the returned (last) logical block
    /// address, bytes 8-11 the logical block length, byte 13 bits 3:0 the
    /// logical blocks per physical block exponent.
    pub fn parse(d: &[u8]) -> Option<Capacity> {
        if d.len() < 14 {
            return None;
        }
        let last = u64::from_be_bytes(d[0..8].try_into().ok()?);
        let logical = u32::from_be_bytes(d[8..12].try_into().ok()?);
        let physical = logical.checked_shl(u32::from(d[13] & 0x0f))?;
        (logical > 0).then_some(Capacity {
            blocks: last.checked_add(1)?,
            logical_block_bytes: logical,
            physical_block_bytes: physical,
        })
    }
}

/// READ CAPACITY(16) of the device behind `file`.
pub fn capacity(file: &File) -> Option<Capacity> {
    let mut d = [0u8; 32];
    sg::sg_io(file, &read_capacity_16_cdb(32), Direction::In(&mut d), SHORT_MS).ok()?;
    Capacity::parse(&d)
}

/// MODE SENSE(10) (SPC-5, 6.15, table "MODE SENSE(10) command"): byte 1
/// bit 3 DBD (no block descriptors) set; byte 2 PC (7:6) = 00b current
/// values and the page code (5:0); byte 3 the subpage (0); bytes 7-8 the
/// allocation length; byte 9 CONTROL.
pub fn mode_sense_10_cdb(page: u8, allocation: u16) -> [u8; 10] {
    let [hi, lo] = allocation.to_be_bytes();
    [MODE_SENSE_10, 0x08, page & 0x3f, 0, 0, 0, 0, hi, lo, 0]
}

/// MODE SELECT(10) (SPC-5, 6.13, table "MODE SELECT(10) command"): byte 1
/// bit 4 PF (page format) set, bit 0 SP (save) clear; bytes 7-8 the
/// parameter list length; byte 9 CONTROL.
pub fn mode_select_10_cdb(length: u16) -> [u8; 10] {
    let [hi, lo] = length.to_be_bytes();
    [MODE_SELECT_10, 0x10, 0, 0, 0, 0, 0, hi, lo, 0]
}

/// A mode page as MODE SENSE(10) returned it, and the header's medium
/// type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModePage {
    /// MEDIUM TYPE, header byte 2.
    pub medium_type: u8,
    /// The page, from its page code byte to its end.
    pub page: Vec<u8>,
}

impl ModePage {
    /// Finds page `code` in MODE SENSE(10) data (SPC-5, "Mode parameter
    /// header(10)": mode data length at bytes 0-1, medium type at 2, block
    /// descriptor length at 6-7; the pages after the header and the
    /// descriptors, each a page code (byte 0 bits 5:0, SPF bit 6 clear for
    /// the page_0 format) and a page length (byte 1) of the bytes after
    /// it).
    pub fn parse(d: &[u8], code: u8) -> Option<ModePage> {
        if d.len() < 8 {
            return None;
        }
        let end = d.len().min(2 + usize::from(u16::from_be_bytes([d[0], d[1]])));
        let mut at = 8 + usize::from(u16::from_be_bytes([d[6], d[7]]));
        while at + 2 <= end {
            let (page_code, spf) = (d[at] & 0x3f, d[at] & 0x40 != 0);
            let len = if spf {
                4 + usize::from(u16::from_be_bytes([d[at + 2], *d.get(at + 3)?]))
            } else {
                2 + usize::from(d[at + 1])
            };
            if page_code == code && !spf {
                let page = d.get(at..at + len)?.to_vec();
                return Some(ModePage { medium_type: d[2], page });
            }
            at += len;
        }
        None
    }

    /// The MODE SELECT(10) parameter list that sets this page (SPC-5, 6.13
    /// and "Mode parameter header(10)"): the header with mode data length
    /// zero (reserved for MODE SELECT), the medium type as read, the
    /// device-specific parameter zero, no block descriptors; then the page
    /// with PS (byte 0 bit 7, reserved for MODE SELECT) cleared.
    pub fn select_data(&self) -> Vec<u8> {
        let mut d = vec![0, 0, self.medium_type, 0, 0, 0, 0, 0];
        d.extend_from_slice(&self.page);
        d[8] &= 0x7f;
        d
    }
}

/// The current values of mode page `code` of the device behind `file`.
fn mode_page(file: &File, code: u8) -> Result<ModePage, SgError> {
    let mut d = [0u8; 255];
    sg::sg_io(file, &mode_sense_10_cdb(code, 255), Direction::In(&mut d), SHORT_MS)?;
    ModePage::parse(&d, code)
        .ok_or_else(|| SgError::refused(format!("the drive returned no mode page {code:02X}h")))
}

/// Writes back `page` with bit `mask` of byte `byte` of the page set or
/// cleared; nothing is sent when it already is.
fn change_bit(file: &File, mut page: ModePage, byte: usize, mask: u8, on: bool) -> Result<(), SgError> {
    let Some(b) = page.page.get_mut(byte) else {
        return Err(SgError::refused("the mode page is too short"));
    };
    if (*b & mask != 0) == on {
        return Ok(());
    }
    *b = if on { *b | mask } else { *b & !mask };
    let data = page.select_data();
    sg::sg_io(file, &mode_select_10_cdb(data.len() as u16), Direction::Out(&data), SHORT_MS)
}

/// WCE, the caching mode page's byte 2 bit 2 (SBC-4, table "Caching mode
/// page").
const WCE: u8 = 0x04;
/// D_SENSE, the control mode page's byte 2 bit 2 (SPC-5, table "Control
/// mode page"): sense data in descriptor format.
const D_SENSE: u8 = 0x04;

/// Whether the write cache is enabled (WCE of the caching mode page);
/// `None` when the device has no caching page or does not answer.
pub fn write_cache(file: &File) -> Option<bool> {
    wce(&mode_page(file, CACHING_PAGE).ok()?)
}

fn wce(page: &ModePage) -> Option<bool> {
    page.page.get(2).map(|b| b & WCE != 0)
}

/// Turns the write cache on or off: MODE SELECT(10) of the caching page
/// read back with WCE changed (current values; not saved). The kernel's
/// own idea of the cache (sysfs `cache_type`) is not refreshed by this.
pub fn set_write_cache(file: &File, on: bool) -> Result<(), SgError> {
    change_bit(file, mode_page(file, CACHING_PAGE)?, 2, WCE, on)
}

/// Asks for sense data in descriptor format (D_SENSE of the control mode
/// page): libata then returns ATA PASS-THROUGH registers whole, in SAT-4's
/// ATA Status Return descriptor, rather than cut short in fixed format.
/// Answers whether it was already set, so that the caller can put it back
/// (the change holds until the drive is reset).
pub fn set_descriptor_sense(file: &File) -> Result<bool, SgError> {
    let page = mode_page(file, CONTROL_PAGE)?;
    let was = page.page.get(2).is_some_and(|b| b & D_SENSE != 0);
    change_bit(file, page, 2, D_SENSE, true)?;
    Ok(was)
}

/// Puts D_SENSE back to fixed-format sense data, as it was before
/// [`set_descriptor_sense`].
pub fn clear_descriptor_sense(file: &File) -> Result<(), SgError> {
    change_bit(file, mode_page(file, CONTROL_PAGE)?, 2, D_SENSE, false)
}

/// REPORT SUPPORTED OPERATION CODES (SPC-5, 6.35, table "REPORT SUPPORTED
/// OPERATION CODES command"): MAINTENANCE IN A3h, service action 0Ch in
/// byte 1; byte 2 REPORTING OPTIONS (2:0) = 010b, one command by operation
/// code and service action (SANITIZE has service actions, for which
/// reporting options 001b is an invalid field); byte 3 the operation code;
/// bytes 4-5 the service action; bytes 6-9 the allocation length; byte 11
/// CONTROL.
pub fn report_supported_cdb(opcode: u8, service_action: u16, allocation: u32) -> [u8; 12] {
    let mut cdb = [0u8; 12];
    cdb[0] = MAINTENANCE_IN;
    cdb[1] = REPORT_SUPPORTED_OPERATION_CODES;
    cdb[2] = 0x02;
    cdb[3] = opcode;
    cdb[4..6].copy_from_slice(&service_action.to_be_bytes());
    cdb[6..10].copy_from_slice(&allocation.to_be_bytes());
    cdb
}

/// Reads the one_command parameter data (SPC-5, table "One_command
/// parameter data"): SUPPORT, byte 1 bits 2:0: 011b supported as the
/// standard says, 101b supported in a vendor-specific manner, 001b not
/// supported; 000b (no data yet) and reserved values are `None`.
pub fn parse_one_command(d: &[u8]) -> Option<bool> {
    match d.get(1)? & 0x07 {
        0b011 | 0b101 => Some(true),
        0b001 => Some(false),
        _ => None,
    }
}

/// SANITIZE's service action for each action (SBC-4, table "SANITIZE
/// service action codes").
fn service_action(action: SanitizeAction) -> u8 {
    match action {
        SanitizeAction::Overwrite => 0x01,
        SanitizeAction::Block => 0x02,
        SanitizeAction::Crypto => 0x03,
    }
}

/// Whether the device supports SANITIZE with this action; `None` when it
/// does not say (it does not know REPORT SUPPORTED OPERATION CODES, or
/// refuses the request).
pub fn sanitize_action_supported(file: &File, action: SanitizeAction) -> Option<bool> {
    let mut d = [0u8; 64];
    let cdb = report_supported_cdb(SANITIZE, u16::from(service_action(action)), 64);
    sg::sg_io(file, &cdb, Direction::In(&mut d), SHORT_MS).ok()?;
    parse_one_command(&d)
}

/// Whether the device supports SANITIZE with any of the three actions;
/// `None` when it does not say.
pub fn sanitize_supported(file: &File) -> Option<bool> {
    let answers: Vec<Option<bool>> =
        [SanitizeAction::Overwrite, SanitizeAction::Block, SanitizeAction::Crypto]
            .into_iter()
            .map(|a| sanitize_action_supported(file, a))
            .collect();
    if answers.contains(&Some(true)) {
        Some(true)
    } else if answers.iter().all(|a| *a == Some(false)) {
        Some(false)
    } else {
        None
    }
}

/// SANITIZE (SBC-4, 5.30, table "SANITIZE command"): byte 1 bit 7 IMMED
/// (set: the command returns at once and the device sanitizes in the
/// background), bit 5 AUSE (clear), bits 4:0 the service action; bytes 7-8
/// the parameter list length (8 for overwrite, else 0); byte 9 CONTROL.
pub fn sanitize_cdb(action: SanitizeAction) -> [u8; 10] {
    let length = if action == SanitizeAction::Overwrite { OVERWRITE_PARAMETERS.len() as u8 } else { 0 };
    [SANITIZE, 0x80 | service_action(action), 0, 0, 0, 0, 0, 0, length, 0]
}

/// The OVERWRITE parameter list (SBC-4, table "Parameter list format for
/// the OVERWRITE service action"): byte 0 INVERT (bit 7) clear and OVERWRITE
/// COUNT (4:0) one pass; byte 1 TEST 00b; bytes 2-3 the initialization
/// pattern length, 4; bytes 4-7 the pattern, zeros.
pub const OVERWRITE_PARAMETERS: [u8; 8] = [0x01, 0x00, 0x00, 0x04, 0, 0, 0, 0];

/// REQUEST SENSE (SPC-5, 6.39): byte 1 bit 0 DESC clear (fixed format
/// asked; descriptor format is read as well), byte 4 the allocation length.
pub fn request_sense_cdb(allocation: u8) -> [u8; 6] {
    [REQUEST_SENSE, 0, 0, 0, allocation, 0]
}

/// What REQUEST SENSE says of a sanitize (SBC-4, 4.11.3 "Sanitize
/// operations"): NOT READY with 04/1B "sanitize in progress" and the
/// progress indication (n/65536) while it runs; 31/03 "sanitize command
/// failed" when it failed; UNIT ATTENTION passes (it is reported once);
/// no sense data or NO SENSE means done.
fn sanitize_poll(sense: Option<Sense>) -> Result<Poll, SgError> {
    let Some(s) = sense else {
        return Ok(Poll::Done);
    };
    match (s.key, s.asc, s.ascq) {
        (_, 0x31, 0x03) => {
            Err(SgError::new(SgErrorKind::Failed(format!("the sanitize failed: {}", s.words()))))
        }
        (0x02, 0x04, 0x1b) => Ok(Poll::Running(s.progress.map(|p| f64::from(p) / 65536.0))),
        (0x06, _, _) => Ok(Poll::Running(None)),
        (0x00 | 0x01, _, _) => Ok(Poll::Done),
        _ => Err(SgError::new(SgErrorKind::Failed(format!(
            "during the sanitize the drive said: {}",
            s.words()
        )))),
    }
}

/// SANITIZE (SBC-4, 5.30) with IMMED set, then REQUEST SENSE every second
/// until the sanitize is no longer in progress, reporting the drive's
/// progress. Refuses, sending nothing, when REPORT SUPPORTED OPERATION
/// CODES says the action is unsupported; a device that does not say gets
/// the command (and refuses it with "invalid command operation code" if it
/// does not know it).
pub fn sanitize(file: &File, action: SanitizeAction, progress: &mut dyn FnMut(f64)) -> Result<(), SgError> {
    if sanitize_action_supported(file, action) == Some(false) {
        return Err(SgError::refused(format!("the drive does not support the sanitize {}", action.words())));
    }
    let dir = if action == SanitizeAction::Overwrite {
        Direction::Out(&OVERWRITE_PARAMETERS)
    } else {
        Direction::None
    };
    progress(0.0);
    sg::sg_io(file, &sanitize_cdb(action), dir, SHORT_MS)?;
    let mut poll = || {
        let mut d = [0u8; 252];
        sg::sg_io(file, &request_sense_cdb(252), Direction::In(&mut d), SHORT_MS)?;
        sanitize_poll(Sense::parse(&d))
    };
    poll_sanitize(&mut poll, &mut || std::thread::sleep(POLL_INTERVAL), progress)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_inquiry_cdbs() {
        assert_eq!(inquiry_cdb(None, 96), [0x12, 0, 0, 0, 96, 0]);
        assert_eq!(inquiry_cdb(Some(0x80), 252), [0x12, 1, 0x80, 0, 252, 0]);
        assert_eq!(inquiry_cdb(Some(0x83), 0x1234), [0x12, 1, 0x83, 0x12, 0x34, 0]);
    }

    /// Standard INQUIRY data of QEMU's virtio-scsi disk, and a unit serial
    /// page.
    #[test]
    fn inquiry_data_and_serial() {
        let mut d = [0u8; 96];
        d[2] = 0x05;
        d[4] = 91;
        d[8..16].copy_from_slice(b"QEMU    ");
        d[16..32].copy_from_slice(b"QEMU HARDDISK   ");
        d[32..36].copy_from_slice(b"2.5+");
        let inq = Inquiry::parse(&d).unwrap();
        assert_eq!(
            (inq.vendor.as_str(), inq.product.as_str(), inq.revision.as_str()),
            ("QEMU", "QEMU HARDDISK", "2.5+")
        );
        assert_eq!(Inquiry::parse(&d[..35]), None);
        d[0] = 0x7f; // peripheral qualifier 011b: no device
        assert_eq!(Inquiry::parse(&d), None);
        let vpd = [0x00, 0x80, 0x00, 0x08, b' ', b'd', b'r', b'i', b'v', b'e', b'1', b' ', 0xff, 0xff];
        assert_eq!(parse_unit_serial(&vpd).as_deref(), Some("drive1"));
        assert_eq!(parse_unit_serial(&[0x00, 0x83, 0, 2, b'a', b'b']), None);
        assert_eq!(parse_unit_serial(&[0x00, 0x80, 0, 0]), None);
    }

    #[test]
    fn the_read_capacity_16_cdb() {
        assert_eq!(read_capacity_16_cdb(32), [0x9e, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 32, 0, 0]);
    }

    /// 2^21 blocks of 512 bytes, 8 to a physical block.
    #[test]
    fn read_capacity_16_data() {
        let mut d = [0u8; 32];
        d[0..8].copy_from_slice(&(0x20_0000u64 - 1).to_be_bytes());
        d[8..12].copy_from_slice(&512u32.to_be_bytes());
        d[13] = 0x03;
        assert_eq!(
            Capacity::parse(&d),
            Some(Capacity { blocks: 0x20_0000, logical_block_bytes: 512, physical_block_bytes: 4096 })
        );
        d[13] = 0x00;
        assert_eq!(Capacity::parse(&d).unwrap().physical_block_bytes, 512);
        d[8..12].copy_from_slice(&0u32.to_be_bytes());
        assert_eq!(Capacity::parse(&d), None);
        assert_eq!(Capacity::parse(&d[..12]), None);
    }

    #[test]
    fn the_mode_cdbs() {
        assert_eq!(mode_sense_10_cdb(0x08, 255), [0x5a, 0x08, 0x08, 0, 0, 0, 0, 0, 255, 0]);
        assert_eq!(mode_sense_10_cdb(0x0a, 0x100), [0x5a, 0x08, 0x0a, 0, 0, 0, 0, 1, 0, 0]);
        assert_eq!(mode_select_10_cdb(28), [0x55, 0x10, 0, 0, 0, 0, 0, 0, 28, 0]);
    }

    /// MODE SENSE(10) data: header, one 8-byte block descriptor (a device
    /// that ignores DBD), then the caching page (PS set, WCE set).
    fn caching_sense() -> Vec<u8> {
        let mut d = vec![0, 0, 0x00, 0x10, 0, 0, 0, 8];
        d.extend_from_slice(&[0, 0, 0, 0, 0, 0, 2, 0]);
        let mut page = vec![0x88, 0x12, 0x04 | 0x01];
        page.resize(20, 0);
        page[19] = 0x77;
        d.extend_from_slice(&page);
        let len = (d.len() - 2) as u16;
        d[0..2].copy_from_slice(&len.to_be_bytes());
        d.resize(255, 0);
        d
    }

    #[test]
    fn the_caching_page_and_what_mode_select_sends() {
        let d = caching_sense();
        let p = ModePage::parse(&d, CACHING_PAGE).unwrap();
        assert_eq!((p.page.len(), p.page[0], p.page[19]), (20, 0x88, 0x77));
        assert_eq!(wce(&p), Some(true));
        assert_eq!(ModePage::parse(&d, CONTROL_PAGE), None);
        let mut off = p.clone();
        off.page[2] &= !WCE;
        assert_eq!(wce(&off), Some(false));
        let sent = off.select_data();
        // Header: mode data length 0, medium type, device-specific 0, no
        // block descriptors; the page with PS cleared, RCD kept, WCE off.
        assert_eq!(&sent[..8], &[0, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(&sent[8..11], &[0x08, 0x12, 0x01]);
        assert_eq!((sent.len(), sent[27]), (28, 0x77));
    }

    /// A page in the sub_page format (SPF) before the one asked is skipped
    /// by its own length.
    #[test]
    fn mode_pages_after_a_subpage() {
        let mut d = vec![0, 0, 0, 0, 0, 0, 0, 0];
        d.extend_from_slice(&[0x4a, 0x01, 0x00, 0x02, 0xaa, 0xbb]); // control extension subpage
        d.extend_from_slice(&[0x0a, 0x0a, 0x04, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        let len = (d.len() - 2) as u16;
        d[0..2].copy_from_slice(&len.to_be_bytes());
        let p = ModePage::parse(&d, CONTROL_PAGE).unwrap();
        assert_eq!((p.page.len(), p.page[2] & D_SENSE), (12, D_SENSE));
    }

    #[test]
    fn the_report_supported_cdb_and_answers() {
        assert_eq!(
            report_supported_cdb(0x48, 0x02, 64),
            [0xa3, 0x0c, 0x02, 0x48, 0, 0x02, 0, 0, 0, 64, 0, 0]
        );
        assert_eq!(parse_one_command(&[0, 0x03, 0, 10]), Some(true));
        assert_eq!(parse_one_command(&[0, 0x83, 0, 10]), Some(true));
        assert_eq!(parse_one_command(&[0, 0x05, 0, 10]), Some(true));
        assert_eq!(parse_one_command(&[0, 0x01, 0, 0]), Some(false));
        assert_eq!(parse_one_command(&[0, 0x00, 0, 0]), None);
        assert_eq!(parse_one_command(&[0]), None);
    }

    /// SANITIZE: IMMED with service actions 01h, 02h, 03h; overwrite sends
    /// an 8-byte parameter list.
    #[test]
    fn the_sanitize_cdbs() {
        assert_eq!(sanitize_cdb(SanitizeAction::Overwrite), [0x48, 0x81, 0, 0, 0, 0, 0, 0, 8, 0]);
        assert_eq!(sanitize_cdb(SanitizeAction::Block), [0x48, 0x82, 0, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(sanitize_cdb(SanitizeAction::Crypto), [0x48, 0x83, 0, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(OVERWRITE_PARAMETERS, [0x01, 0, 0, 4, 0, 0, 0, 0]);
        assert_eq!(request_sense_cdb(252), [0x03, 0, 0, 0, 252, 0]);
    }

    /// Fixed-format sense data as REQUEST SENSE returns it.
    fn fixed(key: u8, asc: u8, ascq: u8, progress: Option<u16>) -> Option<Sense> {
        let mut d = [0u8; 18];
        d[0] = 0x70;
        d[2] = key;
        d[7] = 10;
        d[12] = asc;
        d[13] = ascq;
        if let Some(p) = progress {
            d[15] = 0x80;
            d[16..18].copy_from_slice(&p.to_be_bytes());
        }
        Sense::parse(&d)
    }

    /// The polling loop on REQUEST SENSE answers: progress, a unit
    /// attention, then done.
    #[test]
    fn sanitize_polling_reports_progress() {
        let mut answers = vec![
            fixed(0x06, 0x29, 0x00, None),
            fixed(0x02, 0x04, 0x1b, Some(0x2000)),
            fixed(0x02, 0x04, 0x1b, Some(0x8000)),
            fixed(0x00, 0x00, 0x00, None),
        ]
        .into_iter();
        let (mut seen, mut waits) = (Vec::new(), 0);
        poll_sanitize(&mut || sanitize_poll(answers.next().unwrap()), &mut || waits += 1, &mut |f| {
            seen.push(f)
        })
        .unwrap();
        assert_eq!(seen, [0.125, 0.5, 1.0]);
        assert_eq!(waits, 3);
    }

    /// 31/03 ends the loop with an error in words; so does an unexpected
    /// sense.
    #[test]
    fn sanitize_polling_failures() {
        let mut answers =
            vec![fixed(0x02, 0x04, 0x1b, Some(0x1000)), fixed(0x03, 0x31, 0x03, None)].into_iter();
        let e = poll_sanitize(&mut || sanitize_poll(answers.next().unwrap()), &mut || {}, &mut |_| {})
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "the sanitize failed: MEDIUM ERROR, sanitize command failed (sense 3/31/03)"
        );
        let e = sanitize_poll(fixed(0x02, 0x3a, 0x00, None)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "during the sanitize the drive said: NOT READY, medium not present (sense 2/3A/00)"
        );
        assert_eq!(sanitize_poll(None).unwrap(), Poll::Done);
    }
}
