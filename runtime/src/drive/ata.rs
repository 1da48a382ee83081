//! ATA (SATA) drives behind libata, through the SCSI ATA PASS-THROUGH(16)
//! command (SAT-4, 12.2.2) sent with `SG_IO`: IDENTIFY DEVICE and what
//! methodic reads from it, the volatile write cache (SET FEATURES), the
//! Security feature set's erase, the Sanitize feature set, the SMART
//! attribute table, and the drive's health as a [`Health`]: the Device
//! Statistics log (log 04h) where the drive has it, else the SMART
//! attributes (ACS-4). Refuses up front, sending nothing, what the drive's
//! IDENTIFY data says it cannot do.

use std::fs::File;
use std::time::Duration;

use methodic_results::health::{Health, HealthSource};

use super::sg::{self, AtaReturn, Direction, Poll, SanitizeAction, SgError, SgErrorKind, poll_sanitize};

/// ATA PASS-THROUGH(16)'s operation code (SAT-4, 12.2.2).
const ATA_PASS_THROUGH_16: u8 = 0x85;
/// ACS-4 command codes (ACS-4, table "Command codes").
const IDENTIFY_DEVICE: u8 = 0xec;
const SET_FEATURES: u8 = 0xef;
const SMART: u8 = 0xb0;
const READ_LOG_EXT: u8 = 0x2f;
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
/// The log directory (log 00h) and the Device Statistics log (04h) (ACS-4,
/// table "Log address definition").
const LOG_DIRECTORY: u8 = 0x00;
const LOG_DEVICE_STATISTICS: u8 = 0x04;
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
    /// The General Purpose Logging feature set (READ LOG EXT): word 84
    /// bit 5, when word 84 is valid (bits 15:14 01b).
    pub general_purpose_logging: bool,
    /// The SMART feature set is enabled: word 85 bit 0, when word 87 is
    /// valid.
    pub smart_enabled: bool,
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
            general_purpose_logging: valid(84) && bit(w(84), 5),
            smart_enabled: valid(87) && bit(w(85), 0),
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
fn smart_with(send: &mut PioIn<'_>) -> Option<Smart> {
    let mut d = [0u8; 512];
    send(&smart_read_data_taskfile(), &mut d)?;
    parse_smart(&d)
}

fn smart_read_data_taskfile() -> Taskfile {
    Taskfile { command: SMART, features: 0xd0, count: 1, lba: 0xc2_4f00, ..Default::default() }
}

impl Smart {
    /// The raw value of attribute `id`, when the table has it.
    pub fn raw(&self, id: u8) -> Option<u64> {
        self.attributes.iter().find(|a| a.0 == id).map(|a| a.1)
    }
}

/// READ LOG EXT (ACS-4, 7.24: 2Fh, 48-bit, PIO data-in): `count` pages of
/// log `log` from page `page`. Its LBA field holds LOG ADDRESS in bits 7:0,
/// PAGE NUMBER 7:0 in bits 15:8 and PAGE NUMBER 15:8 in bits 39:32 (the
/// other bits reserved); FEATURE is log-specific (0 here). DEVICE bit 6 is
/// set, as for the other 48-bit commands.
fn read_log_ext_taskfile(log: u8, page: u16, count: u16) -> Taskfile {
    let lba = u64::from(log) | u64::from(page & 0xff) << 8 | u64::from(page >> 8) << 32;
    Taskfile { command: READ_LOG_EXT, count, lba, device: 0x40, extend: true, ..Default::default() }
}

/// SMART READ LOG (ACS-4, 7.44.3: SMART B0h with FEATURE D5h, 28-bit, PIO
/// data-in): `count` pages of log `log` from its first, LOG ADDRESS in LBA
/// 7:0 and the SMART signature (4Fh, C2h) in LBA 15:8 and 23:16. The
/// Device Statistics log is readable this way too (ACS-4, table "Log
/// address definition": SMART and GPL), for a drive without READ LOG EXT.
fn smart_read_log_taskfile(log: u8, count: u8) -> Taskfile {
    Taskfile {
        command: SMART,
        features: 0xd5,
        count: count.into(),
        lba: 0xc2_4f00 | u64::from(log),
        ..Default::default()
    }
}

/// The pages of log `log` by a log directory (log 00h; ACS-4, 9.2 "General
/// Purpose Log Directory" and 9.3 "SMART Log Directory"): word 0 the
/// directory's version, word `n` the number of pages of log `n`, all of it
/// (GPL) or its low byte (SMART, whose high byte is reserved).
fn log_pages(directory: &[u8], log: u8, gpl: bool) -> u16 {
    let i = 2 * usize::from(log);
    match directory.get(i..i + 2) {
        Some(w) if gpl => u16::from_le_bytes([w[0], w[1]]),
        Some(w) => u16::from(w[0]),
        None => 0,
    }
}

/// The Device Statistics log's pages that methodic reads (ACS-4, 9.5):
/// 01h General Statistics, 03h Rotating Media Statistics, 04h General
/// Errors Statistics, 05h Temperature Statistics, 06h Transport
/// Statistics, 07h Solid State Device Statistics.
const STATISTICS_PAGES: [u8; 6] = [1, 3, 4, 5, 6, 7];

/// The pages a Device Statistics log lists in its page 00h (ACS-4, 9.5.2
/// "List of Supported Device Statistics log pages"): bytes 0-7 the header
/// (revision in bytes 0-1, page number 00h in byte 2), byte 8 the number
/// of entries, then one page number a byte from byte 9. `None` when the
/// page is short, says another page number, or lists nothing.
fn supported_statistics(page0: &[u8]) -> Option<Vec<u8>> {
    if page0.len() < 512 || page0[2] != 0 || page0[8] == 0 {
        return None;
    }
    let n = usize::from(page0[8]).min(512 - 9);
    Some(page0[9..9 + n].to_vec())
}

/// One statistic of a Device Statistics page (ACS-4, 9.5: each statistic a
/// little-endian qword at its offset, whose bit 63 is SUPPORTED, bit 62
/// VALID VALUE, bits 61-59 NORMALIZED STATISTIC, SUPPORTS DSN and MONITORED
/// CONDITION MET, and whose low `bits` bits are the value): `None` when
/// the drive does not support it, or has no valid value now.
fn statistic(page: &[u8], offset: usize, bits: u32) -> Option<u64> {
    let q = u64::from_le_bytes(page.get(offset..offset + 8)?.try_into().ok()?);
    let (supported, valid) = (q & 1 << 63 != 0, q & 1 << 62 != 0);
    (supported && valid).then_some(q & ((1u64 << bits) - 1))
}

/// What the Device Statistics pages `pages` (each with its number) say,
/// for a drive of `sector_bytes`-byte logical sectors. A page whose header
/// (byte 2) names another page is ignored. Offsets by ACS-4, 9.5 (and
/// smartmontools' table of them):
/// - 01h General Statistics: Logical Sectors Written 18h and Number of
///   Write Commands 20h, Logical Sectors Read 28h and Number of Read
///   Commands 30h (48 bits each);
/// - 03h Rotating Media Statistics: Number of Reallocated Logical Sectors
///   20h (32 bits);
/// - 04h General Errors Statistics: Number of Reported Uncorrectable
///   Errors 08h (32 bits);
/// - 05h Temperature Statistics: Current Temperature 08h (8 bits, two's
///   complement, °C), Time in Over-Temperature 50h and Time in
///   Under-Temperature 60h (32 bits, minutes);
/// - 06h Transport Statistics: Number of Interface CRC Errors 18h (32 bits);
/// - 07h Solid State Device Statistics: Percentage Used Endurance
///   Indicator 08h (8 bits).
pub fn parse_statistics(pages: &[(u8, &[u8])], sector_bytes: u64) -> Health {
    let stat = |number: u8, offset: usize, bits: u32| {
        pages
            .iter()
            .find(|(n, d)| *n == number && d.len() >= 512 && d[2] == number)
            .and_then(|(_, d)| statistic(d, offset, bits))
    };
    let written = stat(1, 0x18, 48);
    let read = stat(1, 0x28, 48);
    Health {
        source: HealthSource::AtaDeviceStatistics,
        temperature_c: stat(5, 0x08, 8).map(|t| i32::from(t as u8 as i8)),
        over_temperature_minutes: stat(5, 0x50, 32).map(|m| m as u32),
        under_temperature_minutes: stat(5, 0x60, 32).map(|m| m as u32),
        logical_sectors_written: written,
        logical_sectors_read: read,
        sector_bytes: (written.is_some() || read.is_some()).then_some(sector_bytes),
        host_write_commands: stat(1, 0x20, 48).map(u128::from),
        host_read_commands: stat(1, 0x30, 48).map(u128::from),
        media_errors: stat(4, 0x08, 32).map(u128::from),
        reallocated_sectors: stat(3, 0x20, 32),
        interface_crc_errors: stat(6, 0x18, 32),
        percentage_used: stat(7, 0x08, 8).map(|p| p as u8),
        ..Default::default()
    }
}

/// What the SMART attribute table says, for a drive without the Device
/// Statistics log. The attributes' meanings are not in any standard (ACS
/// leaves the table vendor-specific); these are the conventions most
/// vendors share, as smartmontools' default table reads them:
/// - 194 Temperature (else 190 Airflow Temperature): °C in the raw value's
///   low byte;
/// - 241 Total LBAs Written and 242 Total LBAs Read: on most vendors a
///   count of 512-byte LBAs (some count 32 MiB or GiB units instead, which
///   this cannot tell), so `sector_bytes` is 512;
/// - 5 Reallocated Sectors Count, 187 Reported Uncorrect (as
///   `media_errors`), 199 UDMA CRC Error Count: the raw value (48 bits).
///
/// An attribute the table lacks is `None`; nothing is invented.
pub fn attributes_health(s: &Smart) -> Health {
    let written = s.raw(241);
    let read = s.raw(242);
    Health {
        source: HealthSource::AtaSmartAttributes,
        temperature_c: s.temperature_c,
        logical_sectors_written: written,
        logical_sectors_read: read,
        sector_bytes: (written.is_some() || read.is_some()).then_some(512),
        reallocated_sectors: s.raw(5),
        media_errors: s.raw(187).map(u128::from),
        interface_crc_errors: s.raw(199),
        ..Default::default()
    }
}

/// Sends one PIO data-in command and fills the buffer with what the drive
/// returns; `None` when the drive (or the kernel) refuses it. The drive's
/// health is read through this, so that a test can stand in for a drive.
type PioIn<'a> = dyn FnMut(&Taskfile, &mut [u8]) -> Option<()> + 'a;

/// [`PioIn`] through `SG_IO` to the drive behind `file`.
fn pio_in(file: &File) -> impl FnMut(&Taskfile, &mut [u8]) -> Option<()> + '_ {
    move |tf, d| ata_command(file, tf, Direction::In(d), SHORT_MS).ok().map(|_| ())
}

/// How a SATA drive's health is read: decided once, by what the drive
/// says it has ([`HealthReader::probe`]), then read as often as asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HealthReader {
    way: HealthWay,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum HealthWay {
    /// The Device Statistics log's `pages` (those of [`STATISTICS_PAGES`]
    /// it lists), each by READ LOG EXT (`gpl`), or all at once by SMART
    /// READ LOG; its sectors are `sector_bytes` long.
    Statistics { gpl: bool, pages: Vec<u8>, sector_bytes: u64 },
    /// The SMART attribute table (SMART READ DATA).
    Attributes,
}

impl HealthReader {
    /// What the drive behind `file` can say of its health: the Device
    /// Statistics log where its log directory lists it (the General
    /// Purpose Log directory by READ LOG EXT when IDENTIFY says the drive
    /// has the GPL feature set, word 84 bit 5; else the SMART log directory
    /// by SMART READ LOG when SMART is enabled, word 85 bit 0), else the
    /// SMART attributes; `None` when it answers neither.
    pub fn probe(file: &File) -> Option<HealthReader> {
        probe_with(identify(file).as_ref(), &mut pio_in(file))
    }

    /// A reading of the drive behind `file`, the way [`HealthReader::probe`]
    /// chose; `None` when a command of it fails (a reading is whole or
    /// not at all). Statistics without a temperature take it from the
    /// SMART attributes, and say so.
    pub fn read(&self, file: &File) -> Option<Health> {
        self.read_with(&mut pio_in(file))
    }

    fn read_with(&self, send: &mut PioIn<'_>) -> Option<Health> {
        match &self.way {
            HealthWay::Statistics { gpl: true, pages, sector_bytes } => {
                let mut data = vec![[0u8; 512]; pages.len()];
                for (&page, d) in pages.iter().zip(data.iter_mut()) {
                    send(&read_log_ext_taskfile(LOG_DEVICE_STATISTICS, page.into(), 1), d)?;
                }
                let read: Vec<(u8, &[u8])> = pages.iter().copied().zip(data.iter().map(|d| &d[..])).collect();
                Some(with_temperature(send, parse_statistics(&read, *sector_bytes)))
            }
            HealthWay::Statistics { gpl: false, pages, sector_bytes } => {
                // SMART READ LOG reads from the log's first page: up to the
                // last one wanted.
                let last = pages.iter().copied().max().unwrap_or(0);
                let mut d = vec![0u8; 512 * (usize::from(last) + 1)];
                send(&smart_read_log_taskfile(LOG_DEVICE_STATISTICS, last + 1), &mut d)?;
                let read: Vec<(u8, &[u8])> = pages
                    .iter()
                    .map(|&p| (p, &d[512 * usize::from(p)..512 * (usize::from(p) + 1)]))
                    .collect();
                Some(with_temperature(send, parse_statistics(&read, *sector_bytes)))
            }
            HealthWay::Attributes => smart_with(send).map(|s| attributes_health(&s)),
        }
    }
}

/// [`HealthReader::probe`] of a drive with IDENTIFY data `id` (`None`:
/// it did not answer IDENTIFY), its commands sent through `send`.
fn probe_with(id: Option<&Identify>, send: &mut PioIn<'_>) -> Option<HealthReader> {
    if let Some(id) = id {
        for gpl in [true, false] {
            if (gpl && !id.general_purpose_logging) || (!gpl && !id.smart_enabled) {
                continue;
            }
            if let Some(pages) = statistics_pages(send, gpl) {
                let sector_bytes = id.logical_sector_bytes;
                return Some(HealthReader { way: HealthWay::Statistics { gpl, pages, sector_bytes } });
            }
        }
    }
    smart_with(send).map(|_| HealthReader { way: HealthWay::Attributes })
}

/// The Device Statistics pages of [`STATISTICS_PAGES`] that the drive
/// lists, read through READ LOG EXT (`gpl`) or SMART READ LOG: `None` when
/// its log directory gives log 04h no page, or page 00h lists none of
/// them.
fn statistics_pages(send: &mut PioIn<'_>, gpl: bool) -> Option<Vec<u8>> {
    let mut read = |log: u8, d: &mut [u8; 512]| {
        let tf = if gpl { read_log_ext_taskfile(log, 0, 1) } else { smart_read_log_taskfile(log, 1) };
        send(&tf, d)
    };
    let mut d = [0u8; 512];
    read(LOG_DIRECTORY, &mut d)?;
    let count = log_pages(&d, LOG_DEVICE_STATISTICS, gpl);
    if count == 0 {
        return None;
    }
    d = [0u8; 512];
    read(LOG_DEVICE_STATISTICS, &mut d)?;
    let listed = supported_statistics(&d)?;
    // SMART READ LOG's COUNT is 8 bits and reads from page 0: only pages
    // within what the directory says the log holds.
    let pages: Vec<u8> =
        STATISTICS_PAGES.into_iter().filter(|p| listed.contains(p) && u16::from(*p) < count).collect();
    (!pages.is_empty()).then_some(pages)
}

/// A statistics reading with no temperature takes the SMART attributes'
/// (194, else 190) where the drive has one, and says so in its source.
fn with_temperature(send: &mut PioIn<'_>, mut h: Health) -> Health {
    if h.temperature_c.is_none()
        && let Some(t) = smart_with(send).and_then(|s| s.temperature_c)
    {
        h.temperature_c = Some(t);
        h.source = HealthSource::AtaDeviceStatisticsAndAttributes;
    }
    h
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
                (84, 0x4000),
                (85, 0x0020 | 0x0001),
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
        // QEMU's disk: SMART enabled (word 85 bit 0), no GPL (word 84 bit 5).
        assert_eq!((id.general_purpose_logging, id.smart_enabled), (false, true));
        let mut gpl = d;
        gpl[168] = 0x20; // word 84: bit 5, valid (bits 15:14 01b)
        gpl[169] = 0x40;
        assert!(Identify::parse(&gpl).unwrap().general_purpose_logging);
        gpl[169] = 0xc0; // bits 15:14 11b: word 84 not valid
        assert!(!Identify::parse(&gpl).unwrap().general_purpose_logging);
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

    /// READ LOG EXT of the Device Statistics log's page 7, one page: PIO
    /// data-in, EXTEND set (byte 1 = 4 << 1 | 1 = 09h), COUNT 1 (byte 6),
    /// LOG ADDRESS 04h in LBA 7:0 (byte 8), PAGE NUMBER 7:0 in LBA 15:8
    /// (byte 10), DEVICE 40h, command 2Fh.
    #[test]
    fn the_read_log_ext_cdb() {
        let cdb = pass_through_16(&read_log_ext_taskfile(0x04, 7, 1), Protocol::PioIn, false);
        assert_eq!(cdb, [0x85, 0x09, 0x0e, 0, 0, 0, 1, 0, 0x04, 0, 0x07, 0, 0, 0x40, 0x2f, 0]);
        // PAGE NUMBER 15:8 goes in LBA 39:32 (byte 9); COUNT 15:8 in byte 5.
        let cdb = pass_through_16(&read_log_ext_taskfile(0x04, 0x0102, 0x0203), Protocol::PioIn, false);
        assert_eq!(cdb, [0x85, 0x09, 0x0e, 0, 0, 0x02, 0x03, 0, 0x04, 0x01, 0x02, 0, 0, 0x40, 0x2f, 0]);
        // The log directory: log 00h, page 0.
        let cdb = pass_through_16(&read_log_ext_taskfile(0x00, 0, 1), Protocol::PioIn, false);
        assert_eq!(cdb, [0x85, 0x09, 0x0e, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0x40, 0x2f, 0]);
    }

    /// SMART READ LOG of 8 pages of log 04h: 28-bit (byte 1 = 08h),
    /// FEATURE D5h, COUNT 8, LOG ADDRESS in LBA 7:0 (byte 8), the SMART
    /// signature 4Fh (byte 10) and C2h (byte 12), command B0h.
    #[test]
    fn the_smart_read_log_cdb() {
        let cdb = pass_through_16(&smart_read_log_taskfile(0x04, 8), Protocol::PioIn, false);
        assert_eq!(cdb, [0x85, 0x08, 0x0e, 0, 0xd5, 0, 8, 0, 0x04, 0, 0x4f, 0, 0xc2, 0, 0xb0, 0]);
    }

    /// A log directory's count of pages of log 04h: a whole word in the
    /// GPL directory, the low byte in the SMART one.
    #[test]
    fn log_directories_give_the_pages_of_a_log() {
        let mut d = [0u8; 512];
        d[0] = 1; // version 0001h
        d[8..10].copy_from_slice(&0x0108u16.to_le_bytes()); // log 04h
        assert_eq!(log_pages(&d, 0x04, true), 0x0108);
        assert_eq!(log_pages(&d, 0x04, false), 0x08);
        assert_eq!(log_pages(&d, 0x03, true), 0);
        assert_eq!(log_pages(&d[..8], 0x04, true), 0);
    }

    /// A Device Statistics page built as ACS-4 lays it out: the header
    /// (revision 0001h, the page number in byte 2), then a qword a
    /// statistic with its flags in the top byte.
    fn statistics_page(number: u8, stats: &[(usize, u64, u8)]) -> [u8; 512] {
        let mut d = [0u8; 512];
        d[0] = 1;
        d[2] = number;
        for &(offset, value, flags) in stats {
            let q = value | u64::from(flags) << 56;
            d[offset..offset + 8].copy_from_slice(&q.to_le_bytes());
        }
        d
    }

    /// Supported (bit 63) and valid (bit 62): C0h in the top byte.
    const OK: u8 = 0xc0;

    /// Page 00h lists the pages; methodic keeps those it reads.
    #[test]
    fn page_zero_lists_the_supported_pages() {
        let mut d = statistics_page(0, &[]);
        d[8] = 6;
        d[9..15].copy_from_slice(&[0, 1, 4, 5, 6, 7]);
        assert_eq!(supported_statistics(&d), Some(vec![0, 1, 4, 5, 6, 7]));
        d[8] = 0;
        assert_eq!(supported_statistics(&d), None, "no entries");
        d[8] = 1;
        d[2] = 1;
        assert_eq!(supported_statistics(&d), None, "another page's header");
        assert_eq!(supported_statistics(&d[..100]), None);
    }

    /// Each statistic where ACS-4 puts it, with its width; a statistic
    /// unsupported (bit 63 clear) or without a valid value (bit 62 clear)
    /// is `None`, as is every statistic of a page not read or whose header
    /// names another page.
    #[test]
    fn device_statistics_pages_give_the_health() {
        let general = statistics_page(
            1,
            &[
                (0x08, 12, OK),               // Lifetime Power-On Resets
                (0x10, 9_000, OK),            // Power-on Hours
                (0x18, 0x1234_5678_9abc, OK), // Logical Sectors Written
                (0x20, 40_000, OK),           // Number of Write Commands
                (0x28, 777, OK),              // Logical Sectors Read
                (0x30, 55, OK),               // Number of Read Commands
            ],
        );
        let errors = statistics_page(4, &[(0x08, 3, OK)]);
        let temperature = statistics_page(
            5,
            &[
                (0x08, 0xf6, OK), // Current Temperature: -10 C
                (0x50, 90, OK),   // Time in Over-Temperature
                (0x60, 0, 0x80),  // Time in Under-Temperature: supported, no valid value
            ],
        );
        let transport = statistics_page(6, &[(0x18, 2, OK)]);
        let ssd = statistics_page(7, &[(0x08, 4, OK)]);
        let pages: Vec<(u8, &[u8])> =
            vec![(1, &general), (4, &errors), (5, &temperature), (6, &transport), (7, &ssd)];
        let h = parse_statistics(&pages, 4096);
        assert_eq!(h.source, HealthSource::AtaDeviceStatistics);
        assert_eq!(
            (h.logical_sectors_written, h.logical_sectors_read, h.sector_bytes),
            (Some(0x1234_5678_9abc), Some(777), Some(4096))
        );
        assert_eq!((h.host_write_commands, h.host_read_commands), (Some(40_000), Some(55)));
        assert_eq!(
            (h.temperature_c, h.over_temperature_minutes, h.under_temperature_minutes),
            (Some(-10), Some(90), None)
        );
        assert_eq!((h.media_errors, h.interface_crc_errors, h.percentage_used), (Some(3), Some(2), Some(4)));
        assert_eq!(h.reallocated_sectors, None, "page 03h was not read");
        assert_eq!((h.data_units_written, h.throttle_transitions), (None, None), "no NVMe field");
        assert_eq!(h.bytes_written(), Some(0x1234_5678_9abc * 4096));

        // Flags: supported but not valid, valid but not supported, neither.
        for flags in [0x80, 0x40, 0x00] {
            let p = statistics_page(1, &[(0x18, 5, flags)]);
            let h = parse_statistics(&[(1, &p)], 512);
            assert_eq!((h.logical_sectors_written, h.sector_bytes), (None, None), "flags {flags:02x}");
        }
        // Only the value's bits: flags and reserved bits are not the value.
        let p = statistics_page(7, &[(0x08, 0x00ff_ff00_0000_0032, OK)]);
        assert_eq!(parse_statistics(&[(7, &p)], 512).percentage_used, Some(0x32));
        // A page whose header names another page is not believed.
        let wrong = statistics_page(5, &[(0x08, 40, OK)]);
        assert_eq!(
            parse_statistics(&[(1, &wrong)], 512),
            Health { source: HealthSource::AtaDeviceStatistics, ..Default::default() }
        );
        // Rotating media: reallocated logical sectors.
        let rotating = statistics_page(3, &[(0x20, 8, OK)]);
        assert_eq!(parse_statistics(&[(3, &rotating)], 512).reallocated_sectors, Some(8));
    }

    /// The attributes by vendor convention, as QEMU's emulated disk has
    /// them (5 and 190 only) and as an SSD with 241, 242, 187 and 199.
    #[test]
    fn smart_attributes_give_what_they_have() {
        let qemu =
            Smart { temperature_c: Some(31), attributes: vec![(1, 0), (5, 0), (9, 1), (190, 0x1f1f_001f)] };
        let h = attributes_health(&qemu);
        assert_eq!(h.source, HealthSource::AtaSmartAttributes);
        assert_eq!((h.temperature_c, h.reallocated_sectors), (Some(31), Some(0)));
        assert_eq!((h.logical_sectors_written, h.sector_bytes, h.media_errors), (None, None, None));
        assert_eq!(h.bytes_written(), None, "no attribute 241: no bytes written");
        let ssd = Smart {
            temperature_c: Some(38),
            attributes: vec![(5, 2), (187, 1), (194, 38), (199, 4), (241, 2_000_000), (242, 3_000_000)],
        };
        let h = attributes_health(&ssd);
        assert_eq!(
            (h.logical_sectors_written, h.logical_sectors_read, h.sector_bytes),
            (Some(2_000_000), Some(3_000_000), Some(512))
        );
        assert_eq!(
            (h.reallocated_sectors, h.media_errors, h.interface_crc_errors),
            (Some(2), Some(1), Some(4))
        );
        assert_eq!(h.bytes_read(), Some(3_000_000 * 512));
    }

    /// A SMART attribute table (SMART READ DATA) with these attributes'
    /// raw values.
    fn attribute_table(attributes: &[(u8, u64)]) -> [u8; 512] {
        let mut d = [0u8; 512];
        d[0] = 0x10;
        for (slot, &(id, raw)) in attributes.iter().enumerate() {
            let a = 2 + 12 * slot;
            d[a] = id;
            d[a + 5..a + 11].copy_from_slice(&raw.to_le_bytes()[..6]);
        }
        d
    }

    /// A drive as ACS lays out its logs, answering the health reader's
    /// commands: READ LOG EXT where it has the GPL directory, SMART READ
    /// LOG where it has the SMART one, SMART READ DATA where it has
    /// attributes; anything else is aborted. It keeps what it was sent.
    #[derive(Default)]
    struct Drive {
        gpl_directory: Option<[u8; 512]>,
        smart_directory: Option<[u8; 512]>,
        /// The Device Statistics log, page 0 first.
        statistics: Vec<[u8; 512]>,
        attributes: Option<[u8; 512]>,
        sent: Vec<Taskfile>,
    }

    impl Drive {
        fn answer(&mut self, tf: &Taskfile, d: &mut [u8]) -> Option<()> {
            self.sent.push(*tf);
            assert_eq!(d.len(), 512 * usize::from(tf.count), "the buffer is COUNT pages");
            let log = tf.lba as u8;
            let pages: Vec<[u8; 512]> = match (tf.command, tf.features) {
                (READ_LOG_EXT, 0) => {
                    assert!(tf.extend);
                    let page = (tf.lba >> 8 & 0xff | (tf.lba >> 32 & 0xff) << 8) as usize;
                    let count = usize::from(tf.count);
                    match log {
                        0 => vec![self.gpl_directory?],
                        4 if self.gpl_directory.is_some() => {
                            self.statistics.get(page..page + count)?.to_vec()
                        }
                        _ => return None,
                    }
                }
                (SMART, 0xd5) if tf.lba >> 8 == 0xc2_4f => match log {
                    0 => vec![self.smart_directory?],
                    4 if self.smart_directory.is_some() => {
                        self.statistics.get(..usize::from(tf.count))?.to_vec()
                    }
                    _ => return None,
                },
                (SMART, 0xd0) if tf.lba >> 8 == 0xc2_4f => vec![self.attributes?],
                _ => return None,
            };
            d.copy_from_slice(&pages.concat());
            Some(())
        }

        /// What it was sent, as (command, feature, log address, page), and
        /// forgets it.
        fn took(&mut self) -> Vec<(u8, u16, u8, u64)> {
            self.sent.drain(..).map(|t| (t.command, t.features, t.lba as u8, t.lba >> 8 & 0xff)).collect()
        }
    }

    /// A log directory giving log 04h `pages` pages.
    fn directory(pages: u8) -> [u8; 512] {
        let mut d = [0u8; 512];
        d[0] = 1;
        d[8] = pages;
        d
    }

    /// An SSD's Device Statistics log: pages 00h-07h, page 00h listing
    /// 01h, 04h, 07h, and 05h when `temperature`.
    fn ssd_statistics(temperature: bool) -> Vec<[u8; 512]> {
        let mut log: Vec<[u8; 512]> = (0..8).map(|n| statistics_page(n, &[])).collect();
        let listed: &[u8] = if temperature { &[0, 1, 4, 5, 7] } else { &[0, 1, 4, 7] };
        log[0][8] = listed.len() as u8;
        log[0][9..9 + listed.len()].copy_from_slice(listed);
        log[1] = statistics_page(1, &[(0x18, 1000, OK), (0x20, 10, OK), (0x28, 500, OK), (0x30, 5, OK)]);
        log[4] = statistics_page(4, &[(0x08, 0, OK)]);
        if temperature {
            log[5] = statistics_page(5, &[(0x08, 41, OK)]);
        }
        log[7] = statistics_page(7, &[(0x08, 3, OK)]);
        log
    }

    /// IDENTIFY data: 4096-byte logical sectors, SMART enabled, and the
    /// GPL feature set when `gpl`.
    fn ssd_identify(gpl: bool) -> Identify {
        let w84 = if gpl { 0x4020 } else { 0x4000 };
        Identify::parse(&identify_block(
            &[(84, w84), (85, 0x0001), (87, 0x4000), (106, 0x4000 | 0x1000), (117, 2048)],
            &[],
        ))
        .unwrap()
    }

    /// A drive with READ LOG EXT: its GPL directory, then page 00h, once;
    /// each reading then reads the pages it lists, one command a page, and
    /// counts its sectors at the drive's 4096 bytes.
    #[test]
    fn a_drive_with_device_statistics_is_read_by_read_log_ext() {
        let mut drive = Drive {
            gpl_directory: Some(directory(8)),
            smart_directory: Some(directory(8)),
            statistics: ssd_statistics(true),
            attributes: Some(attribute_table(&[(194, 40)])),
            ..Default::default()
        };
        let reader = probe_with(Some(&ssd_identify(true)), &mut |tf, d| drive.answer(tf, d)).unwrap();
        assert_eq!(
            reader.way,
            HealthWay::Statistics { gpl: true, pages: vec![1, 4, 5, 7], sector_bytes: 4096 }
        );
        assert_eq!(drive.took(), [(READ_LOG_EXT, 0, 0x00, 0), (READ_LOG_EXT, 0, 0x04, 0)]);
        let h = reader.read_with(&mut |tf, d| drive.answer(tf, d)).unwrap();
        assert_eq!(drive.took(), [1, 4, 5, 7].map(|p| (READ_LOG_EXT, 0, 0x04, p)));
        assert_eq!(h.source, HealthSource::AtaDeviceStatistics);
        assert_eq!((h.temperature_c, h.percentage_used, h.media_errors), (Some(41), Some(3), Some(0)));
        assert_eq!((h.bytes_written(), h.bytes_read()), (Some(1000 * 4096), Some(500 * 4096)));
        assert_eq!((h.host_write_commands, h.host_read_commands), (Some(10), Some(5)));
        // A page the drive then refuses: no reading, rather than part of one.
        drive.gpl_directory = None;
        assert_eq!(reader.read_with(&mut |tf, d| drive.answer(tf, d)), None);
    }

    /// Without the GPL feature set, no READ LOG EXT is sent: the SMART log
    /// directory and SMART READ LOG give the same statistics, all pages up
    /// to the last wanted in one command; without page 05h the temperature
    /// comes from attribute 194, and the source says so.
    #[test]
    fn a_drive_without_gpl_is_read_by_smart_read_log() {
        let mut drive = Drive {
            gpl_directory: Some(directory(8)),
            smart_directory: Some(directory(8)),
            statistics: ssd_statistics(false),
            attributes: Some(attribute_table(&[(194, 39)])),
            ..Default::default()
        };
        let reader = probe_with(Some(&ssd_identify(false)), &mut |tf, d| drive.answer(tf, d)).unwrap();
        assert_eq!(
            reader.way,
            HealthWay::Statistics { gpl: false, pages: vec![1, 4, 7], sector_bytes: 4096 }
        );
        assert_eq!(drive.took(), [(SMART, 0xd5, 0x00, 0x4f), (SMART, 0xd5, 0x04, 0x4f)]);
        let h = reader.read_with(&mut |tf, d| drive.answer(tf, d)).unwrap();
        let sent = std::mem::take(&mut drive.sent);
        assert_eq!(
            (sent[0].features, sent[0].count, sent[0].lba as u8),
            (0xd5, 8, 0x04),
            "pages 00h-07h at once"
        );
        assert_eq!((sent.len(), sent[1].features), (2, 0xd0), "then SMART READ DATA for the temperature");
        assert_eq!(h.source, HealthSource::AtaDeviceStatisticsAndAttributes);
        assert_eq!(
            (h.temperature_c, h.logical_sectors_written, h.percentage_used),
            (Some(39), Some(1000), Some(3))
        );
    }

    /// A drive without the Device Statistics log (QEMU's disk: no GPL,
    /// SMART READ LOG of the directory aborted), or whose directory gives
    /// log 04h no page: the SMART attributes. One that answers nothing has
    /// no reader.
    #[test]
    fn a_drive_without_statistics_falls_back_to_attributes() {
        let qemu = attribute_table(&[(1, 0), (5, 0), (9, 1), (190, 0x1f1f_001f)]);
        let mut drive = Drive { attributes: Some(qemu), ..Default::default() };
        let mut id = ssd_identify(false);
        let reader = probe_with(Some(&id), &mut |tf, d| drive.answer(tf, d)).unwrap();
        assert_eq!(reader.way, HealthWay::Attributes);
        assert!(drive.took().iter().all(|t| t.0 != READ_LOG_EXT), "no READ LOG EXT without GPL");
        let h = reader.read_with(&mut |tf, d| drive.answer(tf, d)).unwrap();
        assert_eq!(
            (h.source, h.temperature_c, h.reallocated_sectors),
            (HealthSource::AtaSmartAttributes, Some(31), Some(0))
        );
        assert_eq!(drive.took(), [(SMART, 0xd0, 0x00, 0x4f)], "one command a reading");
        // A directory without log 04h: page 00h is not even asked for.
        drive.gpl_directory = Some(directory(0));
        drive.smart_directory = Some(directory(0));
        drive.statistics = ssd_statistics(true);
        id.general_purpose_logging = true;
        let reader = probe_with(Some(&id), &mut |tf, d| drive.answer(tf, d)).unwrap();
        assert_eq!(reader.way, HealthWay::Attributes);
        assert_eq!(drive.took().iter().filter(|t| t.2 == 0x04).count(), 0);
        // SMART disabled, no GPL: straight to the attributes (which a
        // drive with SMART disabled aborts: no reader).
        id.general_purpose_logging = false;
        id.smart_enabled = false;
        drive.attributes = None;
        assert_eq!(probe_with(Some(&id), &mut |tf, d| drive.answer(tf, d)), None);
        assert_eq!(drive.took(), [(SMART, 0xd0, 0x00, 0x4f)]);
        // No IDENTIFY answer: only the attributes are tried.
        drive.attributes = Some(qemu);
        assert_eq!(probe_with(None, &mut |tf, d| drive.answer(tf, d)).unwrap().way, HealthWay::Attributes);
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
