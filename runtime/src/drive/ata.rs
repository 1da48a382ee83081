//! ATA (SATA) drives behind libata, through the SCSI ATA PASS-THROUGH(16)
//! command (SAT-4, 12.2.2) sent with `SG_IO`: IDENTIFY DEVICE and what
//! methodic reads from it, the volatile write cache (SET FEATURES), the
//! Security feature set's erase, the Sanitize feature set, and the SMART
//! attribute table (ACS-4). Refuses up front, sending nothing, what the
//! drive's IDENTIFY data says it cannot do.

use std::fs::File;
use std::time::Duration;

use super::sg::{self, AtaReturn, Direction, Poll, SanitizeAction, SgError, SgErrorKind, poll_sanitize};

/// ATA PASS-THROUGH(16)'s operation code (SAT-4, 12.2.2).
const ATA_PASS_THROUGH_16: u8 = 0x85;
/// ACS-4 command codes (ACS-4, table "Command codes").
const IDENTIFY_DEVICE: u8 = 0xec;
const SET_FEATURES: u8 = 0xef;
const SMART: u8 = 0xb0;
const SANITIZE_DEVICE: u8 = 0xb4;
const SECURITY_SET_PASSWORD: u8 = 0xf1;
const SECURITY_ERASE_PREPARE: u8 = 0xf3;
const SECURITY_ERASE_UNIT: u8 = 0xf4;
const SECURITY_DISABLE_PASSWORD: u8 = 0xf6;
/// The user password methodic sets for a security erase (the drive drops
/// it when the erase completes).
pub const ERASE_PASSWORD: &[u8] = b"methodic";
/// The timeout of a short command.
const SHORT_MS: u32 = 15_000;
/// The timeout of a security erase whose time the drive does not
/// estimate: a day (a large disk's erase takes hours).
const ERASE_DEFAULT_MS: u32 = 24 * 3_600_000;
/// How long to wait between two sanitize status polls.
const POLL_INTERVAL: Duration = Duration::from_secs(1);

/// SAT-4's PROTOCOL field (table "PROTOCOL field"): the ATA protocols
/// methodic uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    /// 3: non-data.
    NonData = 3,
    /// 4: PIO data-in.
    PioIn = 4,
    /// 5: PIO data-out.
    PioOut = 5,
}

/// The ATA registers of a command (ACS-4's 48-bit fields; a 28-bit
/// command uses their low bits).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Taskfile {
    /// COMMAND.
    pub command: u8,
    /// FEATURE 15:0.
    pub features: u16,
    /// COUNT 15:0; for a PIO command, also the number of 512-byte blocks
    /// moved (T_LENGTH = 2 below).
    pub count: u16,
    /// LBA 47:0.
    pub lba: u64,
    /// DEVICE.
    pub device: u8,
    /// A 48-bit (EXT) command: EXTEND = 1.
    pub extend: bool,
}

/// Builds an ATA PASS-THROUGH(16) CDB (SAT-4, table "ATA PASS-THROUGH(16)
/// command"): byte 0 85h; byte 1 MULTIPLE_COUNT (7:5) = 0, PROTOCOL (4:1),
/// EXTEND (0); byte 2 OFF_LINE (7:6) = 0, CK_COND (5), T_TYPE (4) = 0,
/// T_DIR (3: 1 from the device), BYT_BLOK (2), T_LENGTH (1:0: 0 no data, 2
/// the length is in COUNT, in 512-byte blocks with BYT_BLOK = 1); bytes 3-4
/// FEATURE 15:8, 7:0; 5-6 COUNT 15:8, 7:0; 7-12 LBA 31:24, 7:0, 39:32,
/// 15:8, 47:40, 23:16; 13 DEVICE; 14 COMMAND; 15 CONTROL = 0.
pub fn pass_through_16(tf: &Taskfile, protocol: Protocol, ck_cond: bool) -> [u8; 16] {
    let (t_dir, byt_blok, t_length) = match protocol {
        Protocol::NonData => (0, 0, 0),
        Protocol::PioIn => (1, 1, 2),
        Protocol::PioOut => (0, 1, 2),
    };
    let lba = |shift: u32| (tf.lba >> shift) as u8;
    [
        ATA_PASS_THROUGH_16,
        (protocol as u8) << 1 | u8::from(tf.extend),
        u8::from(ck_cond) << 5 | t_dir << 3 | byt_blok << 2 | t_length,
        (tf.features >> 8) as u8,
        tf.features as u8,
        (tf.count >> 8) as u8,
        tf.count as u8,
        lba(24),
        lba(0),
        lba(32),
        lba(8),
        lba(40),
        lba(16),
        tf.device,
        tf.command,
        0,
    ]
}

/// Sends one ATA command to the drive behind `file`: PIO data-in or
/// data-out by `dir` (COUNT must give the buffer's length in 512-byte
/// blocks), non-data with CK_COND set so that the drive's registers come
/// back. `Ok` with the registers when the drive returned them; an ATA
/// error (ERR or DF in the status) is [`SgErrorKind::Ata`].
pub fn ata_command(
    file: &File,
    tf: &Taskfile,
    dir: Direction,
    timeout_ms: u32,
) -> Result<Option<AtaReturn>, SgError> {
    let protocol = match &dir {
        Direction::None => Protocol::NonData,
        Direction::In(b) => check_length(tf, b.len(), Protocol::PioIn)?,
        Direction::Out(b) => check_length(tf, b.len(), Protocol::PioOut)?,
    };
    let cdb = pass_through_16(tf, protocol, protocol == Protocol::NonData);
    Ok(sg::sg_io_sense(file, &cdb, dir, timeout_ms)?.and_then(|s| s.ata))
}

/// A PIO command moves COUNT blocks of 512 bytes: the buffer must be that.
fn check_length(tf: &Taskfile, len: usize, protocol: Protocol) -> Result<Protocol, SgError> {
    if len == 512 * usize::from(tf.count) && len > 0 {
        Ok(protocol)
    } else {
        Err(SgError::refused(format!(
            "an ATA data buffer of {len} bytes where COUNT says {} blocks of 512 bytes",
            tf.count
        )))
    }
}

/// What IDENTIFY DEVICE says of a drive (ACS-4, 7.13.7, table "IDENTIFY
/// DEVICE data").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identify {
    /// MODEL NUMBER, words 27-46.
    pub model: String,
    /// SERIAL NUMBER, words 10-19.
    pub serial: String,
    /// FIRMWARE REVISION, words 23-26.
    pub firmware: String,
    /// User-addressable logical sectors: words 100-103 when the 48-bit
    /// Address feature set is supported (word 83 bit 10), else words 60-61.
    pub sectors: u64,
    /// Logical sector size in bytes: words 117-118 (in words) when word
    /// 106 bit 12 says the sector is longer than 256 words, else 512.
    pub logical_sector_bytes: u64,
    /// Physical sector size: the logical size times 2^(word 106 bits 3:0)
    /// when word 106 bit 13 is set.
    pub physical_sector_bytes: u64,
    /// The Security feature set, word 128 and words 89-90.
    pub security: Security,
    /// The Sanitize feature set, word 59 bits 12-15.
    pub sanitize: Sanitize,
    /// The volatile write cache, word 82 bit 5 and word 85 bit 5.
    pub write_cache: WriteCache,
}

/// The Security feature set's state (ACS-4, IDENTIFY DEVICE word 128 and
/// words 89-90).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Security {
    /// Word 128 bit 0: SECURITY SUPPORTED.
    pub supported: bool,
    /// Bit 1: SECURITY ENABLED (a user password is set).
    pub enabled: bool,
    /// Bit 2: SECURITY LOCKED.
    pub locked: bool,
    /// Bit 3: SECURITY FROZEN.
    pub frozen: bool,
    /// Bit 4: SECURITY COUNT EXPIRED (five wrong passwords).
    pub count_expired: bool,
    /// Bit 5: ENHANCED SECURITY ERASE SUPPORTED.
    pub enhanced_erase: bool,
    /// Word 89: the normal erase's estimated time in minutes.
    pub erase_minutes: Option<u32>,
    /// Word 90: the enhanced erase's estimated time in minutes.
    pub enhanced_erase_minutes: Option<u32>,
}

/// The Sanitize feature set (ACS-4, IDENTIFY DEVICE word 59).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Sanitize {
    /// Bit 12: the Sanitize feature set is supported.
    pub supported: bool,
    /// Bit 13: CRYPTO SCRAMBLE EXT.
    pub crypto: bool,
    /// Bit 14: OVERWRITE EXT.
    pub overwrite: bool,
    /// Bit 15: BLOCK ERASE EXT.
    pub block: bool,
}

/// The volatile write cache (ACS-4, IDENTIFY DEVICE words 82 and 85).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct WriteCache {
    /// Word 82 bit 5.
    pub supported: bool,
    /// Word 85 bit 5.
    pub enabled: bool,
}

/// An ATA string: two characters a word, the first in the word's high
/// byte (ACS-4, 3.4.9 "ATA string convention"), trailing spaces dropped.
fn ata_string(d: &[u8], first_word: usize, last_word: usize) -> String {
    let bytes: Vec<u8> = (first_word..=last_word).flat_map(|w| [d[2 * w + 1], d[2 * w]]).collect();
    String::from_utf8_lossy(&bytes).trim_matches(|c: char| c == ' ' || c == '\0').to_string()
}

/// An estimated erase time (words 89 and 90): bit 15 set, bits 14:0 in
/// units of 2 minutes; clear, bits 7:0 in units of 2 minutes. Zero means
/// not reported, and the largest value means "longer than this", so both
/// are `None`.
fn erase_minutes(word: u16) -> Option<u32> {
    let (value, largest) = if word & 0x8000 != 0 { (word & 0x7fff, 0x7fff) } else { (word & 0xff, 0xff) };
    (value != 0 && value != largest).then_some(u32::from(value) * 2)
}

impl Identify {
    /// Reads the 512 bytes of IDENTIFY DEVICE data (256 little-endian
    /// words). `None` when shorter, for an ATAPI device (word 0 bit 15),
    /// or when word 255 carries the integrity signature A5h and the
    /// checksum (its high byte) does not make the 512 bytes sum to zero.
    pub fn parse(d: &[u8]) -> Option<Identify> {
        if d.len() < 512 {
            return None;
        }
        let w = |i: usize| u16::from_le_bytes([d[2 * i], d[2 * i + 1]]);
        if w(0) & 0x8000 != 0 {
            return None;
        }
        if w(255) & 0xff == 0xa5 && d[..512].iter().fold(0u8, |s, &b| s.wrapping_add(b)) != 0 {
            return None;
        }
        // Words 82-84 and 85-87 are valid when bits 15:14 of 83 and 87
        // are 01b.
        let valid = |i: usize| w(i) & 0xc000 == 0x4000;
        let sectors = if valid(83) && w(83) & (1 << 10) != 0 {
            (0..4).fold(0u64, |s, i| s | u64::from(w(100 + i)) << (16 * i))
        } else {
            u64::from(w(60)) | u64::from(w(61)) << 16
        };
        let w106 = w(106);
        let w106_valid = w106 & 0xc000 == 0x4000;
        let logical = if w106_valid && w106 & (1 << 12) != 0 {
            2 * (u64::from(w(117)) | u64::from(w(118)) << 16)
        } else {
            512
        };
        let physical = if w106_valid && w106 & (1 << 13) != 0 { logical << (w106 & 0x0f) } else { logical };
        let s = w(128);
        let bit = |word: u16, b: u32| word & (1 << b) != 0;
        Some(Identify {
            model: ata_string(d, 27, 46),
            serial: ata_string(d, 10, 19),
            firmware: ata_string(d, 23, 26),
            sectors,
            logical_sector_bytes: logical,
            physical_sector_bytes: physical,
            security: Security {
                supported: bit(s, 0),
                enabled: bit(s, 1),
                locked: bit(s, 2),
                frozen: bit(s, 3),
                count_expired: bit(s, 4),
                enhanced_erase: bit(s, 5),
                erase_minutes: erase_minutes(w(89)),
                enhanced_erase_minutes: erase_minutes(w(90)),
            },
            sanitize: Sanitize {
                supported: bit(w(59), 12),
                crypto: bit(w(59), 13),
                overwrite: bit(w(59), 14),
                block: bit(w(59), 15),
            },
            write_cache: WriteCache {
                supported: valid(83) && bit(w(82), 5),
                enabled: valid(87) && bit(w(85), 5),
            },
        })
    }
}

/// IDENTIFY DEVICE (ECh, PIO data-in, one block) of the drive behind
/// `file`; `None` when it is not an ATA drive or does not answer.
pub fn identify(file: &File) -> Option<Identify> {
    let mut d = [0u8; 512];
    let tf = Taskfile { command: IDENTIFY_DEVICE, count: 1, ..Default::default() };
    ata_command(file, &tf, Direction::In(&mut d), SHORT_MS).ok()?;
    Identify::parse(&d)
}

/// SET FEATURES (EFh, non-data) with subcommand 02h (enable the volatile
/// write cache) or 82h (disable it) (ACS-4, 7.43.3). The kernel's own idea
/// of the cache (sysfs `cache_type`) is not refreshed by this.
pub fn set_write_cache(file: &File, on: bool) -> Result<(), SgError> {
    ata_command(file, &set_write_cache_taskfile(on), Direction::None, SHORT_MS).map(|_| ())
}

fn set_write_cache_taskfile(on: bool) -> Taskfile {
    Taskfile { command: SET_FEATURES, features: if on { 0x02 } else { 0x82 }, ..Default::default() }
}

/// Why a security erase cannot be sent to a drive with this IDENTIFY data,
/// or `None` when it can.
fn erase_refusal(id: &Identify, enhanced: bool) -> Option<String> {
    let s = &id.security;
    let why = if !s.supported {
        "the drive does not support the ATA Security feature set"
    } else if s.frozen {
        "the drive's security is frozen by the BIOS: suspend and resume the machine, or hot-plug the drive, then try again"
    } else if s.locked {
        "the drive is locked by a password: unlock it first"
    } else if s.count_expired {
        "the drive refuses password commands until it is power-cycled (too many wrong passwords)"
    } else if s.enabled {
        "the drive has a user password set already, and methodic does not replace one (if an interrupted erase left methodic's password \"methodic\", SECURITY DISABLE PASSWORD with it clears it)"
    } else if enhanced && !s.enhanced_erase {
        "the drive does not support the enhanced security erase"
    } else {
        return None;
    };
    Some(why.to_string())
}

/// The 512-byte block of SECURITY SET PASSWORD, SECURITY ERASE UNIT and
/// SECURITY DISABLE PASSWORD (ACS-4, 7.45-7.48): word 0 the control word
/// (little endian), words 1-16 the 32-byte password, its bytes in order
/// (as hdparm sends them), zero-padded.
fn password_block(control: u16) -> [u8; 512] {
    let mut d = [0u8; 512];
    d[0..2].copy_from_slice(&control.to_le_bytes());
    d[2..2 + ERASE_PASSWORD.len()].copy_from_slice(ERASE_PASSWORD);
    d
}

/// SECURITY SET PASSWORD's control word: bit 0 IDENTIFIER (0 user), bit 8
/// MASTER PASSWORD CAPABILITY (0 high).
const SET_USER_HIGH: u16 = 0x0000;
/// SECURITY ERASE UNIT's control word: bit 0 IDENTIFIER (0: compare the
/// user password), bit 1 ENHANCED.
fn erase_control(enhanced: bool) -> u16 {
    u16::from(enhanced) << 1
}

/// The timeout of SECURITY ERASE UNIT: twice the drive's estimate and ten
/// minutes more, or a day when it gives none.
fn erase_timeout_ms(id: &Identify, enhanced: bool) -> u32 {
    let minutes = if enhanced { id.security.enhanced_erase_minutes } else { id.security.erase_minutes };
    minutes.map_or(ERASE_DEFAULT_MS, |m| {
        (u64::from(m) * 2 + 10).saturating_mul(60_000).min(u64::from(u32::MAX)) as u32
    })
}

/// The Security feature set's erase (ACS-4, 7.46 SECURITY ERASE PREPARE,
/// 7.47 SECURITY ERASE UNIT): sets the user password "methodic" (SECURITY
/// SET PASSWORD, F1h, PIO data-out, high security), then SECURITY ERASE
/// PREPARE (F3h, non-data) and SECURITY ERASE UNIT (F4h, PIO data-out,
/// normal or enhanced) with a timeout from the drive's estimate. The erase
/// leaves security disabled; when it fails, the password is disabled again
/// (SECURITY DISABLE PASSWORD, F6h) so that the drive does not lock at the
/// next power-on. Refuses, sending nothing, when IDENTIFY says security is
/// unsupported, frozen, locked, expired, already enabled, or the enhanced
/// erase is asked and unsupported.
///
/// ATA reports no progress during the erase: `progress` is called with 0.0
/// before and 1.0 after, nothing between.
pub fn security_erase(file: &File, enhanced: bool, progress: &mut dyn FnMut(f64)) -> Result<(), SgError> {
    let id =
        identify(file).ok_or_else(|| SgError::refused("the drive does not answer ATA IDENTIFY DEVICE"))?;
    if let Some(why) = erase_refusal(&id, enhanced) {
        return Err(SgError::refused(why));
    }
    progress(0.0);
    let pio_out = |command: u8| Taskfile { command, count: 1, ..Default::default() };
    let password = password_block(SET_USER_HIGH);
    ata_command(file, &pio_out(SECURITY_SET_PASSWORD), Direction::Out(&password), SHORT_MS)?;
    let erase = ata_command(
        file,
        &Taskfile { command: SECURITY_ERASE_PREPARE, ..Default::default() },
        Direction::None,
        SHORT_MS,
    )
    .and_then(|_| {
        let block = password_block(erase_control(enhanced));
        ata_command(
            file,
            &pio_out(SECURITY_ERASE_UNIT),
            Direction::Out(&block),
            erase_timeout_ms(&id, enhanced),
        )
    });
    if let Err(e) = erase {
        let disable = password_block(0);
        let undone =
            ata_command(file, &pio_out(SECURITY_DISABLE_PASSWORD), Direction::Out(&disable), SHORT_MS);
        let after = match undone {
            Ok(_) => "the password methodic set is disabled again".to_string(),
            Err(d) => format!(
                "and disabling the password \"methodic\" failed too ({d}): the drive will be locked at the next power-on until it is unlocked with that password"
            ),
        };
        return Err(SgError::new(SgErrorKind::Failed(format!("the security erase failed: {e}; {after}"))));
    }
    progress(1.0);
    Ok(())
}

/// SANITIZE DEVICE's FEATURE and LBA for each action (ACS-4, 7.39): BLOCK
/// ERASE EXT 0012h with the signature 426B4572h ("BkEr") in LBA 31:0;
/// CRYPTO SCRAMBLE EXT 0011h with 43727970h ("Cryp"); OVERWRITE EXT 0014h
/// with 4F57h ("OW") in LBA 47:32 and the 32-bit pattern (zero) in LBA
/// 31:0, COUNT bits 3:0 the pass count (1), bit 7 INVERT clear. FAILURE
/// MODE (COUNT bit 4) is clear throughout. A 48-bit command, DEVICE bit 6
/// set as hdparm sends it.
fn sanitize_taskfile(action: SanitizeAction) -> Taskfile {
    let (features, lba, count) = match action {
        SanitizeAction::Block => (0x0012, 0x426b_4572, 0),
        SanitizeAction::Crypto => (0x0011, 0x4372_7970, 0),
        SanitizeAction::Overwrite => (0x0014, 0x4f57 << 32, 1),
    };
    Taskfile { command: SANITIZE_DEVICE, features, count, lba, device: 0x40, extend: true }
}

/// SANITIZE STATUS EXT (SANITIZE DEVICE with FEATURE 0000h).
fn sanitize_status_taskfile() -> Taskfile {
    Taskfile { command: SANITIZE_DEVICE, device: 0x40, extend: true, ..Default::default() }
}

/// Reads SANITIZE STATUS EXT's normal outputs (ACS-4, 7.39.12): COUNT bit
/// 15 SANITIZE OPERATION COMPLETED WITHOUT ERROR, bit 14 SANITIZE IN
/// PROGRESS, bit 13 SANITIZE FROZEN; LBA 15:0 the progress, n/65536. The
/// COUNT high byte comes back only in descriptor-format sense data.
fn sanitize_poll(r: &AtaReturn) -> Result<Poll, SgError> {
    if !r.complete {
        return Err(SgError::refused(
            "the kernel returned the ATA registers in fixed-format sense data, which leaves out the sanitize status",
        ));
    }
    if r.count & 0x4000 != 0 {
        Ok(Poll::Running(Some(f64::from(r.lba as u16) / 65536.0)))
    } else if r.count & 0x8000 != 0 {
        Ok(Poll::Done)
    } else if r.count & 0x2000 != 0 {
        Err(SgError::new(SgErrorKind::Failed("the drive's sanitize is frozen (SANITIZE FREEZE LOCK)".into())))
    } else {
        Err(SgError::new(SgErrorKind::Failed(
            "the drive reports no sanitize in progress and none completed".into(),
        )))
    }
}

/// SANITIZE DEVICE's error outputs: the reason in LBA 7:0 (ACS-4, table
/// "Sanitize Device Error Reason").
fn sanitize_reason(lba: u64) -> &'static str {
    match lba & 0xff {
        1 => "the sanitize command was unsuccessful",
        2 => "the sanitize command is not supported",
        3 => "the drive is in the sanitize frozen state",
        4 => "the antifreeze lock is set",
        _ => "no reason given",
    }
}

/// A SANITIZE STATUS EXT answer: an ATA error there means the operation
/// failed, for the reason the drive gives.
fn sanitize_status(answer: Result<Option<AtaReturn>, SgError>) -> Result<Poll, SgError> {
    match answer {
        Ok(Some(r)) => sanitize_poll(&r),
        Ok(None) => Err(SgError::refused("the drive returned no ATA registers for SANITIZE STATUS EXT")),
        Err(SgError { kind: SgErrorKind::Ata(r) }) => Err(SgError::new(SgErrorKind::Failed(format!(
            "the sanitize failed: {} (ATA status 0x{:02x}, error 0x{:02x})",
            sanitize_reason(r.lba),
            r.status,
            r.error
        )))),
        Err(e) => Err(e),
    }
}

/// Why a sanitize cannot be sent to a drive with this IDENTIFY data.
fn sanitize_refusal(id: &Identify, action: SanitizeAction) -> Option<String> {
    let s = &id.sanitize;
    if !s.supported {
        return Some("the drive does not support the ATA Sanitize feature set".into());
    }
    let supported = match action {
        SanitizeAction::Block => s.block,
        SanitizeAction::Crypto => s.crypto,
        SanitizeAction::Overwrite => s.overwrite,
    };
    (!supported).then(|| format!("the drive does not support the sanitize {}", action.words()))
}

/// The Sanitize feature set (ACS-4, 7.39 SANITIZE DEVICE): asks libata for
/// descriptor-format sense data (so that SANITIZE STATUS EXT's COUNT comes
/// back whole), checks the status once, starts the action, then polls
/// SANITIZE STATUS EXT every second until it completes, reporting the
/// drive's progress. Refuses, sending nothing, when IDENTIFY word 59 says
/// the action is unsupported.
pub fn sanitize(file: &File, action: SanitizeAction, progress: &mut dyn FnMut(f64)) -> Result<(), SgError> {
    let id =
        identify(file).ok_or_else(|| SgError::refused("the drive does not answer ATA IDENTIFY DEVICE"))?;
    if let Some(why) = sanitize_refusal(&id, action) {
        return Err(SgError::refused(why));
    }
    // Without descriptor-format sense the status check below refuses; the
    // setting is put back afterwards (it holds until the drive is reset).
    let was = super::scsi::set_descriptor_sense(file);
    let r = sanitize_with_descriptor_sense(file, action, progress);
    if matches!(was, Ok(false)) {
        let _ = super::scsi::clear_descriptor_sense(file);
    }
    r
}

fn sanitize_with_descriptor_sense(
    file: &File,
    action: SanitizeAction,
    progress: &mut dyn FnMut(f64),
) -> Result<(), SgError> {
    let status = || ata_command(file, &sanitize_status_taskfile(), Direction::None, SHORT_MS);
    match sanitize_status(status()) {
        Ok(Poll::Running(_)) => return Err(SgError::refused("a sanitize is in progress already")),
        Err(e @ SgError { kind: SgErrorKind::Refused(_) }) => return Err(e),
        // Idle, done before, or failed before: a new sanitize clears those.
        _ => {}
    }
    progress(0.0);
    ata_command(file, &sanitize_taskfile(action), Direction::None, SHORT_MS)?;
    poll_sanitize(&mut || sanitize_status(status()), &mut || std::thread::sleep(POLL_INTERVAL), progress)
}

/// What SMART READ DATA says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Smart {
    /// Attribute 194 (temperature), else 190 (airflow temperature): the
    /// raw value's low byte, in degrees Celsius.
    pub temperature_c: Option<i32>,
    /// Every attribute present: its id and 48-bit raw value.
    pub attributes: Vec<(u8, u64)>,
}

/// Reads the SMART data structure (ATA/ATAPI-8 and earlier SMART READ
/// DATA; the attribute table is vendor-specific by ACS but laid out alike
/// by every vendor): byte 0-1 the revision, then 30 attributes of 12 bytes
/// from byte 2: id (0 for an empty slot), flags (2 bytes), value, worst,
/// raw (6 bytes, little endian), one reserved byte.
pub fn parse_smart(d: &[u8]) -> Option<Smart> {
    if d.len() < 512 {
        return None;
    }
    let attributes: Vec<(u8, u64)> = d[2..2 + 30 * 12]
        .chunks_exact(12)
        .filter(|a| a[0] != 0)
        .map(|a| (a[0], a[5..11].iter().rev().fold(0u64, |s, &b| s << 8 | u64::from(b))))
        .collect();
    let raw = |id: u8| attributes.iter().find(|a| a.0 == id).map(|a| (a.1 & 0xff) as i32);
    Some(Smart { temperature_c: raw(194).or_else(|| raw(190)), attributes })
}

/// SMART READ DATA: SMART (B0h) with FEATURE D0h, LBA 15:8 4Fh and LBA
/// 23:16 C2h (the SMART signature), PIO data-in, one block. `None` when the
/// drive is not ATA, SMART is disabled, or it does not answer.
pub fn smart(file: &File) -> Option<Smart> {
    let mut d = [0u8; 512];
    ata_command(file, &smart_read_data_taskfile(), Direction::In(&mut d), SHORT_MS).ok()?;
    parse_smart(&d)
}

fn smart_read_data_taskfile() -> Taskfile {
    Taskfile { command: SMART, features: 0xd0, count: 1, lba: 0xc2_4f00, ..Default::default() }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// IDENTIFY DEVICE as PIO data-in of one block: byte 1 = 4 << 1,
    /// byte 2 = T_DIR | BYT_BLOK | T_LENGTH 2 = 0Eh, COUNT 1, command ECh.
    #[test]
    fn the_identify_cdb() {
        let tf = Taskfile { command: IDENTIFY_DEVICE, count: 1, ..Default::default() };
        assert_eq!(
            pass_through_16(&tf, Protocol::PioIn, false),
            [0x85, 0x08, 0x0e, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0xec, 0]
        );
    }

    /// SET FEATURES non-data with CK_COND: byte 1 = 3 << 1, byte 2 = 20h.
    #[test]
    fn the_set_features_cdbs() {
        let on = pass_through_16(&set_write_cache_taskfile(true), Protocol::NonData, true);
        assert_eq!(on, [0x85, 0x06, 0x20, 0, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xef, 0]);
        let off = pass_through_16(&set_write_cache_taskfile(false), Protocol::NonData, true);
        assert_eq!(off[4], 0x82);
    }

    /// SMART READ DATA: FEATURE D0h, LBA mid (byte 10) 4Fh, LBA high
    /// (byte 12) C2h.
    #[test]
    fn the_smart_read_data_cdb() {
        let cdb = pass_through_16(&smart_read_data_taskfile(), Protocol::PioIn, false);
        assert_eq!(cdb, [0x85, 0x08, 0x0e, 0, 0xd0, 0, 1, 0, 0, 0, 0x4f, 0, 0xc2, 0, 0xb0, 0]);
    }

    /// Security commands: PIO data-out has T_DIR clear: byte 2 = 06h.
    #[test]
    fn the_security_cdbs_and_blocks() {
        let tf = Taskfile { command: SECURITY_ERASE_UNIT, count: 1, ..Default::default() };
        assert_eq!(
            pass_through_16(&tf, Protocol::PioOut, false),
            [0x85, 0x0a, 0x06, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0xf4, 0]
        );
        let set = password_block(SET_USER_HIGH);
        assert_eq!(&set[0..12], &[0, 0, b'm', b'e', b't', b'h', b'o', b'd', b'i', b'c', 0, 0]);
        assert!(set[10..].iter().all(|&b| b == 0));
        assert_eq!(&password_block(erase_control(true))[0..3], &[0x02, 0x00, b'm']);
        assert_eq!(&password_block(erase_control(false))[0..3], &[0x00, 0x00, b'm']);
    }

    /// SANITIZE DEVICE, 48-bit: EXTEND set in byte 1 (07h with non-data),
    /// the signatures placed by SAT-4's byte order of the LBA.
    #[test]
    fn the_sanitize_cdbs() {
        let block = pass_through_16(&sanitize_taskfile(SanitizeAction::Block), Protocol::NonData, true);
        // LBA 426B4572h: 31:24 = 42h (byte 7), 7:0 = 72h (8), 39:32 = 0 (9),
        // 15:8 = 45h (10), 47:40 = 0 (11), 23:16 = 6Bh (12).
        assert_eq!(block, [0x85, 0x07, 0x20, 0x00, 0x12, 0, 0, 0x42, 0x72, 0, 0x45, 0, 0x6b, 0x40, 0xb4, 0]);
        let crypto = pass_through_16(&sanitize_taskfile(SanitizeAction::Crypto), Protocol::NonData, true);
        assert_eq!(crypto, [0x85, 0x07, 0x20, 0x00, 0x11, 0, 0, 0x43, 0x70, 0, 0x79, 0, 0x72, 0x40, 0xb4, 0]);
        // OVERWRITE EXT: "OW" in LBA 47:32 (47:40 = 4Fh byte 11, 39:32 =
        // 57h byte 9), pattern zero, COUNT 1 pass.
        let ow = pass_through_16(&sanitize_taskfile(SanitizeAction::Overwrite), Protocol::NonData, true);
        assert_eq!(ow, [0x85, 0x07, 0x20, 0x00, 0x14, 0, 1, 0, 0, 0x57, 0, 0x4f, 0, 0x40, 0xb4, 0]);
        let status = pass_through_16(&sanitize_status_taskfile(), Protocol::NonData, true);
        assert_eq!(status, [0x85, 0x07, 0x20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x40, 0xb4, 0]);
    }

    /// A 512-byte IDENTIFY block built word by word.
    fn identify_block(words: &[(usize, u16)], strings: &[(usize, &str)]) -> [u8; 512] {
        let mut d = [0u8; 512];
        for &(i, v) in words {
            d[2 * i..2 * i + 2].copy_from_slice(&v.to_le_bytes());
        }
        for &(first, s) in strings {
            for (k, pair) in s.as_bytes().chunks(2).enumerate() {
                // The first character in the word's high byte: the second
                // byte in memory.
                d[2 * (first + k) + 1] = pair[0];
                d[2 * (first + k)] = *pair.get(1).unwrap_or(&b' ');
            }
        }
        d
    }

    /// ATA strings come byte-swapped per word; the facts from their words.
    #[test]
    fn identify_reads_strings_and_words() {
        let model = "QEMU HARDDISK                           ";
        let d = identify_block(
            &[
                (59, 0xf000),
                (60, 0x1234),
                (61, 0x0001),
                (82, 0x0020 | 0x4000),
                (83, 0x4000 | 0x0400),
                (85, 0x0020),
                (87, 0x4000),
                (89, 0x0005),
                (90, 0x8000 | 300),
                (100, 0x0000),
                (101, 0x0002),
                (106, 0x4000 | 0x2000 | 0x0003),
                (128, 0x0021),
            ],
            &[(10, "QM00001             "), (23, "2.5+    "), (27, model)],
        );
        // The raw bytes really are swapped: "QE" is stored as 'E', 'Q'.
        assert_eq!(&d[54..56], b"EQ");
        let id = Identify::parse(&d).unwrap();
        assert_eq!(
            (id.model.as_str(), id.serial.as_str(), id.firmware.as_str()),
            ("QEMU HARDDISK", "QM00001", "2.5+")
        );
        assert_eq!(id.sectors, 0x2_0000);
        assert_eq!((id.logical_sector_bytes, id.physical_sector_bytes), (512, 4096));
        assert_eq!(
            id.security,
            Security {
                supported: true,
                enhanced_erase: true,
                erase_minutes: Some(10),
                enhanced_erase_minutes: Some(600),
                ..Default::default()
            }
        );
        assert_eq!(id.sanitize, Sanitize { supported: true, crypto: true, overwrite: true, block: true });
        assert_eq!(id.write_cache, WriteCache { supported: true, enabled: true });
    }

    /// Without 48-bit addressing the size is words 60-61; a long logical
    /// sector is words 117-118 (in words); word 255's checksum is checked;
    /// ATAPI and short blocks are refused.
    #[test]
    fn identify_sizes_checksum_and_refusals() {
        let mut d = identify_block(
            &[(60, 0x5678), (61, 0x0001), (83, 0x4000), (106, 0x4000 | 0x1000), (117, 2048), (118, 0)],
            &[],
        );
        let id = Identify::parse(&d).unwrap();
        assert_eq!((id.sectors, id.logical_sector_bytes, id.physical_sector_bytes), (0x1_5678, 4096, 4096));
        assert_eq!(id.write_cache, WriteCache::default());
        assert_eq!(id.security, Security::default());
        // Word 106 not valid (bits 15:14 not 01b): 512 bytes.
        d[213] = 0xc0 | 0x10;
        assert_eq!(Identify::parse(&d).unwrap().logical_sector_bytes, 512);
        // Integrity word: signature A5h, checksum making the sum zero.
        d[510] = 0xa5;
        let sum = d[..511].iter().fold(0u8, |s, &b| s.wrapping_add(b));
        d[511] = 0u8.wrapping_sub(sum);
        assert!(Identify::parse(&d).is_some());
        d[511] = d[511].wrapping_add(1);
        assert_eq!(Identify::parse(&d), None);
        let atapi = identify_block(&[(0, 0x8580)], &[]);
        assert_eq!(Identify::parse(&atapi), None);
        assert_eq!(Identify::parse(&d[..256]), None);
    }

    /// Erase times: old and new formats, "not reported" and "longer than".
    #[test]
    fn erase_time_words() {
        assert_eq!(erase_minutes(0), None);
        assert_eq!(erase_minutes(0x00ff), None);
        assert_eq!(erase_minutes(0x0010), Some(32));
        assert_eq!(erase_minutes(0x8000 | 0x0100), Some(512));
        assert_eq!(erase_minutes(0xffff), None);
        let id = Identify::parse(&identify_block(&[(128, 0x0001), (89, 30)], &[])).unwrap();
        assert_eq!(erase_timeout_ms(&id, false), (60 * 2 + 10) * 60_000);
        assert_eq!(erase_timeout_ms(&id, true), ERASE_DEFAULT_MS);
    }

    /// Each refusal in words, in the order the states are checked.
    #[test]
    fn security_erase_refusals() {
        let with = |w128: u16| Identify::parse(&identify_block(&[(128, w128)], &[])).unwrap();
        assert_eq!(
            erase_refusal(&with(0x0000), false).unwrap(),
            "the drive does not support the ATA Security feature set"
        );
        assert!(
            erase_refusal(&with(0x0009), false)
                .unwrap()
                .starts_with("the drive's security is frozen by the BIOS: suspend and resume")
        );
        assert_eq!(
            erase_refusal(&with(0x0007), false).unwrap(),
            "the drive is locked by a password: unlock it first"
        );
        assert!(erase_refusal(&with(0x0011), false).unwrap().contains("power-cycled"));
        assert!(erase_refusal(&with(0x0003), false).unwrap().contains("user password set already"));
        assert_eq!(
            erase_refusal(&with(0x0001), true).unwrap(),
            "the drive does not support the enhanced security erase"
        );
        assert_eq!(erase_refusal(&with(0x0001), false), None);
        assert_eq!(erase_refusal(&with(0x0021), true), None);
    }

    #[test]
    fn sanitize_refusals() {
        let with = |w59: u16| Identify::parse(&identify_block(&[(59, w59)], &[])).unwrap();
        assert_eq!(
            sanitize_refusal(&with(0x0000), SanitizeAction::Block).unwrap(),
            "the drive does not support the ATA Sanitize feature set"
        );
        assert_eq!(
            sanitize_refusal(&with(0x1000 | 0x8000), SanitizeAction::Crypto).unwrap(),
            "the drive does not support the sanitize cryptographic erase"
        );
        assert_eq!(sanitize_refusal(&with(0x1000 | 0x8000), SanitizeAction::Block), None);
        assert_eq!(sanitize_refusal(&with(0x1000 | 0x4000), SanitizeAction::Overwrite), None);
    }

    fn status(count: u16, lba: u64) -> AtaReturn {
        AtaReturn { extend: true, complete: true, count, lba, status: 0x50, ..Default::default() }
    }

    /// The polling loop hears the drive's progress and stops when it says
    /// done.
    #[test]
    fn sanitize_polling_reports_progress() {
        let mut answers = vec![
            Ok(Some(status(0x4000, 0x0000))),
            Ok(Some(status(0x4000, 0x4000))),
            Ok(Some(status(0x4000, 0xc000))),
            Ok(Some(status(0x8000, 0))),
        ]
        .into_iter();
        let (mut seen, mut waits) = (Vec::new(), 0);
        poll_sanitize(&mut || sanitize_status(answers.next().unwrap()), &mut || waits += 1, &mut |f| {
            seen.push(f)
        })
        .unwrap();
        assert_eq!(seen, [0.0, 0.25, 0.75, 1.0]);
        assert_eq!(waits, 3);
        assert!(answers.next().is_none());
    }

    /// A failure during polling is an error in words with the drive's
    /// reason; a fixed-format answer is refused.
    #[test]
    fn sanitize_polling_failures() {
        let failed = AtaReturn { error: 0x04, status: 0x51, lba: 1, complete: true, ..Default::default() };
        let mut answers =
            vec![Ok(Some(status(0x4000, 0x1000))), Err(SgError::new(SgErrorKind::Ata(failed)))].into_iter();
        let mut seen = Vec::new();
        let e = poll_sanitize(&mut || sanitize_status(answers.next().unwrap()), &mut || {}, &mut |f| {
            seen.push(f)
        })
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "the sanitize failed: the sanitize command was unsuccessful (ATA status 0x51, error 0x04)"
        );
        assert_eq!(seen, [0.0625]);
        let fixed = AtaReturn { complete: false, ..status(0x4000, 0) };
        assert!(sanitize_status(Ok(Some(fixed))).unwrap_err().to_string().contains("fixed-format"));
        assert_eq!(
            sanitize_status(Ok(Some(status(0, 0)))).unwrap_err().to_string(),
            "the drive reports no sanitize in progress and none completed"
        );
    }

    /// A SMART attribute table with 194 (temperature, min/max packed in the
    /// high raw bytes), 9 (power-on hours) and empty slots.
    #[test]
    fn smart_attributes_and_temperature() {
        let mut d = [0u8; 512];
        d[0] = 0x10;
        let put = |d: &mut [u8; 512], slot: usize, id: u8, raw: [u8; 6]| {
            let a = 2 + 12 * slot;
            d[a] = id;
            d[a + 1] = 0x32;
            d[a + 3] = 100;
            d[a + 4] = 100;
            d[a + 5..a + 11].copy_from_slice(&raw);
        };
        put(&mut d, 0, 9, [0x10, 0x27, 0, 0, 0, 0]);
        put(&mut d, 2, 190, [40, 0, 0, 0, 0, 0]);
        put(&mut d, 29, 194, [36, 0, 20, 0, 45, 0]);
        let s = parse_smart(&d).unwrap();
        assert_eq!(s.attributes, [(9, 10_000), (190, 40), (194, 0x2d_0014_0024)]);
        assert_eq!(s.temperature_c, Some(36));
        // Without 194, 190.
        d[2 + 12 * 29] = 0;
        assert_eq!(parse_smart(&d).unwrap().temperature_c, Some(40));
        d[2 + 12 * 2] = 0;
        assert_eq!(parse_smart(&d).unwrap().temperature_c, None);
        assert_eq!(parse_smart(&d[..100]), None);
    }

    /// A PIO buffer that COUNT does not describe is refused before the
    /// ioctl.
    #[test]
    fn pio_lengths_must_match_count() {
        let tf = Taskfile { command: IDENTIFY_DEVICE, count: 1, ..Default::default() };
        assert_eq!(check_length(&tf, 512, Protocol::PioIn).unwrap(), Protocol::PioIn);
        assert!(check_length(&tf, 1024, Protocol::PioIn).is_err());
        let none = Taskfile { count: 0, ..tf };
        assert!(check_length(&none, 0, Protocol::PioOut).is_err());
    }
}
