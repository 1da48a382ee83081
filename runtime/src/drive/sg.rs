//! SCSI commands through the kernel's SCSI generic ioctl (`SG_IO` on a
//! `/dev/sdX` block device): a command descriptor block and a data buffer go
//! in, the SCSI status and the sense data come out, decoded into words (SPC-5
//! sense data, and SAT-4's ATA Status Return descriptor for ATA
//! PASS-THROUGH). Also whether a `/dev/sdX` is an ATA drive behind libata.

use std::fmt;
use std::fs::File;
use std::os::unix::io::AsRawFd;

/// `struct sg_io_hdr` of scsi/sg.h (88 bytes on a 64-bit kernel, 64 on a
/// 32-bit one).
#[repr(C)]
struct SgIoHdr {
    interface_id: libc::c_int,
    dxfer_direction: libc::c_int,
    cmd_len: u8,
    mx_sb_len: u8,
    iovec_count: u16,
    dxfer_len: u32,
    dxferp: *mut libc::c_void,
    cmdp: *const u8,
    sbp: *mut u8,
    timeout: u32,
    flags: u32,
    pack_id: libc::c_int,
    usr_ptr: *mut libc::c_void,
    status: u8,
    masked_status: u8,
    msg_status: u8,
    sb_len_wr: u8,
    host_status: u16,
    driver_status: u16,
    resid: libc::c_int,
    duration: u32,
    info: u32,
}

/// `SG_IO` of scsi/sg.h: not an `_IOWR` number, just 0x2285.
const SG_IO: libc::c_ulong = 0x2285;
const SG_DXFER_NONE: libc::c_int = -1;
const SG_DXFER_TO_DEV: libc::c_int = -2;
const SG_DXFER_FROM_DEV: libc::c_int = -3;
/// The most sense data SPC-5 lets a device return (the additional sense
/// length is one byte, after 8 header bytes).
const SENSE_BYTES: usize = 252;
/// SAM-5 status codes.
const STATUS_GOOD: u8 = 0x00;
const STATUS_CHECK_CONDITION: u8 = 0x02;
/// The host status the SCSI midlayer sets when a command timed out
/// (`DID_TIME_OUT` of scsi/scsi_status.h).
const DID_TIME_OUT: u16 = 0x03;

/// Which way a command moves data, and the buffer it moves.
pub enum Direction<'a> {
    /// No data phase.
    None,
    /// The device fills the buffer.
    In(&'a mut [u8]),
    /// The device reads the buffer.
    Out(&'a [u8]),
}

/// The three ways to sanitize a drive, shared by the ATA (ACS-4 SANITIZE
/// DEVICE) and the SCSI (SBC-4 SANITIZE) paths.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SanitizeAction {
    /// Block erase: every block set to a vendor-specific value by erasing
    /// the media (flash).
    Block,
    /// Cryptographic erase: the media encryption key changed.
    Crypto,
    /// Overwrite: one pass of zeros over every block.
    Overwrite,
}

impl SanitizeAction {
    /// `block erase`, `cryptographic erase`, `overwrite`.
    pub fn words(self) -> &'static str {
        match self {
            SanitizeAction::Block => "block erase",
            SanitizeAction::Crypto => "cryptographic erase",
            SanitizeAction::Overwrite => "overwrite",
        }
    }
}

/// Where a sanitize operation stands.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Poll {
    /// Running, this fraction done when the drive says.
    Running(Option<f64>),
    /// Completed without error.
    Done,
}

/// Polls in a row, one a second, at the same progress before methodic
/// stops waiting on a sanitize: an hour where the drive reports progress
/// (it moves, however slowly, on a sanitize that takes hours), a day where
/// it reports none (an overwrite of a large disk may take that long).
pub(crate) const STALL_POLLS: u32 = 3600;
pub(crate) const STALL_POLLS_WITHOUT_PROGRESS: u32 = 24 * 3600;

/// Polls until the sanitize completes: `poll` asks the drive, `wait` lets
/// time pass between two asks, `progress` hears each fraction done, and
/// 1.0 at the end. A sanitize whose progress stays put for
/// [`STALL_POLLS`] polls ([`STALL_POLLS_WITHOUT_PROGRESS`] when the drive
/// gives none) is an error saying so.
pub(crate) fn poll_sanitize(
    poll: &mut dyn FnMut() -> Result<Poll, SgError>,
    wait: &mut dyn FnMut(),
    progress: &mut dyn FnMut(f64),
) -> Result<(), SgError> {
    let mut still: (Option<f64>, u32) = (Some(-1.0), 0);
    loop {
        match poll()? {
            Poll::Done => {
                progress(1.0);
                return Ok(());
            }
            Poll::Running(fraction) => {
                still = if fraction == still.0 { (fraction, still.1 + 1) } else { (fraction, 1) };
                let limit = if fraction.is_some() { STALL_POLLS } else { STALL_POLLS_WITHOUT_PROGRESS };
                if still.1 >= limit {
                    let at = fraction.map_or("without reporting progress".to_string(), |f| {
                        format!("at {}%", (f * 100.0).floor())
                    });
                    let time = if fraction.is_some() { "an hour" } else { "a day" };
                    return Err(SgError::new(SgErrorKind::Failed(format!(
                        "the sanitize stayed {at} for {time}; it may still be running (sg_requests or \
                         hdparm show its state)"
                    ))));
                }
                if let Some(f) = fraction {
                    progress(f);
                }
                wait();
            }
        }
    }
}

/// Why a command through `SG_IO` failed.
#[derive(Debug, thiserror::Error)]
#[error("{kind}")]
pub struct SgError {
    /// What went wrong.
    pub kind: SgErrorKind,
}

/// The ways a command through `SG_IO` fails.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SgErrorKind {
    /// The ioctl itself failed: the file is not a SCSI device, or the
    /// kernel refused the command.
    #[error("the SG_IO ioctl failed: {0}")]
    Os(std::io::Error),
    /// The command did not complete within its timeout.
    #[error("the command timed out after {0} ms")]
    Timeout(u32),
    /// The host adapter or the driver failed the command (no sense data).
    #[error(
        "the command did not complete (host status 0x{host:02x}, driver status 0x{driver:02x}, SCSI status 0x{status:02x})"
    )]
    Transport {
        /// `host_status` of the header.
        host: u16,
        /// `driver_status` of the header.
        driver: u16,
        /// The SCSI status byte.
        status: u8,
    },
    /// CHECK CONDITION with sense data: the device refused or failed it.
    #[error("the drive refused the command: {0}")]
    Sense(Sense),
    /// An ATA command (through ATA PASS-THROUGH) ended with the ERR or DF
    /// bit set in its status.
    #[error("{}", ata_words(.0))]
    Ata(AtaReturn),
    /// A status other than GOOD or CHECK CONDITION (BUSY, RESERVATION
    /// CONFLICT, TASK SET FULL ...).
    #[error("the drive answered with SCSI status 0x{:02x} ({})", .0, status_words(*.0))]
    Status(u8),
    /// Refused before anything was sent, for the reason given.
    #[error("{0}")]
    Refused(String),
    /// A sanitize or erase ran and the drive reports it failed.
    #[error("{0}")]
    Failed(String),
}

impl SgError {
    pub(crate) fn new(kind: SgErrorKind) -> SgError {
        SgError { kind }
    }

    /// An error sent before anything reached the drive.
    pub(crate) fn refused(words: impl Into<String>) -> SgError {
        SgError::new(SgErrorKind::Refused(words.into()))
    }

    /// The sense data, when the device returned some.
    #[cfg(test)]
    pub fn sense(&self) -> Option<&Sense> {
        match &self.kind {
            SgErrorKind::Sense(s) => Some(s),
            _ => None,
        }
    }

    /// Whether the device answered "invalid command operation code" (it
    /// does not know the command).
    #[cfg(test)]
    pub fn is_invalid_opcode(&self) -> bool {
        self.sense().is_some_and(|s| s.key == 0x05 && (s.asc, s.ascq) == (0x20, 0x00))
    }
}

/// `the drive aborted the command (ATA status 0x41, error 0x04)`.
fn ata_words(r: &AtaReturn) -> String {
    let what = if r.status & ATA_DF != 0 {
        "the drive reported a device fault"
    } else if r.error & ATA_ABRT != 0 {
        "the drive aborted the command"
    } else {
        "the drive reported an error"
    };
    format!("{what} (ATA status 0x{:02x}, error 0x{:02x})", r.status, r.error)
}

/// ATA status bits (ACS-4, 6.2 STATUS field): ERR, DF.
pub(crate) const ATA_ERR: u8 = 0x01;
pub(crate) const ATA_DF: u8 = 0x20;
/// ATA error bit ABRT (ACS-4, 6.3 ERROR field).
pub(crate) const ATA_ABRT: u8 = 0x04;

/// SAM-5's status codes in words.
fn status_words(status: u8) -> &'static str {
    match status {
        0x08 => "BUSY",
        0x18 => "RESERVATION CONFLICT",
        0x28 => "TASK SET FULL",
        0x30 => "ACA ACTIVE",
        0x40 => "TASK ABORTED",
        _ => "an unexpected status",
    }
}

/// Sends `cdb` to the device behind `file` with its data, waiting at most
/// `timeout_ms`. `Ok` when the command completed with GOOD status, or with
/// sense data that says it succeeded (NO SENSE, RECOVERED ERROR, among them
/// SAT-4's "ATA PASS-THROUGH information available" when the ATA status has
/// neither ERR nor DF).
pub fn sg_io(file: &File, cdb: &[u8], dir: Direction, timeout_ms: u32) -> Result<(), SgError> {
    sg_io_sense(file, cdb, dir, timeout_ms).map(|_| ())
}

/// As [`sg_io`], also giving back the sense data of a command that
/// succeeded with some (an ATA PASS-THROUGH with CK_COND set returns the
/// ATA registers that way).
pub fn sg_io_sense(
    file: &File,
    cdb: &[u8],
    dir: Direction,
    timeout_ms: u32,
) -> Result<Option<Sense>, SgError> {
    let mut sense = [0u8; SENSE_BYTES];
    let (direction, ptr, len) = match dir {
        Direction::None => (SG_DXFER_NONE, std::ptr::null_mut(), 0),
        Direction::In(b) => (SG_DXFER_FROM_DEV, b.as_mut_ptr() as *mut libc::c_void, b.len()),
        Direction::Out(b) => (SG_DXFER_TO_DEV, b.as_ptr() as *mut libc::c_void, b.len()),
    };
    let mut hdr = SgIoHdr {
        interface_id: b'S' as libc::c_int,
        dxfer_direction: direction,
        cmd_len: u8::try_from(cdb.len()).map_err(|_| SgError::refused("a command longer than 255 bytes"))?,
        mx_sb_len: SENSE_BYTES as u8,
        iovec_count: 0,
        dxfer_len: u32::try_from(len).map_err(|_| SgError::refused("a data buffer of 4 GiB or more"))?,
        dxferp: ptr,
        cmdp: cdb.as_ptr(),
        sbp: sense.as_mut_ptr(),
        timeout: timeout_ms,
        flags: 0,
        pack_id: 0,
        usr_ptr: std::ptr::null_mut(),
        status: 0,
        masked_status: 0,
        msg_status: 0,
        sb_len_wr: 0,
        host_status: 0,
        driver_status: 0,
        resid: 0,
        duration: 0,
        info: 0,
    };
    // SAFETY: every pointer in the header points into a buffer that lives
    // until the ioctl returns, with the length given beside it.
    let rc = unsafe { libc::ioctl(file.as_raw_fd(), SG_IO, &mut hdr as *mut SgIoHdr) };
    if rc != 0 {
        return Err(SgError::new(SgErrorKind::Os(std::io::Error::last_os_error())));
    }
    let written = usize::from(hdr.sb_len_wr).min(SENSE_BYTES);
    let sense = Sense::parse_with(&sense[..written], is_ata_pass_through(cdb));
    outcome(hdr.status, hdr.host_status, hdr.driver_status, sense, timeout_ms)
}

/// Whether a CDB is ATA PASS-THROUGH(16) (85h) or (12) (A1h), whose sense
/// data carries the ATA registers (SAT-4, 12.2).
fn is_ata_pass_through(cdb: &[u8]) -> bool {
    matches!(cdb.first(), Some(0x85 | 0xa1))
}

/// Decides what a completed `SG_IO` call means, from the header's status
/// bytes and the sense data written.
fn outcome(
    status: u8,
    host: u16,
    driver: u16,
    sense: Option<Sense>,
    timeout_ms: u32,
) -> Result<Option<Sense>, SgError> {
    if host == DID_TIME_OUT {
        return Err(SgError::new(SgErrorKind::Timeout(timeout_ms)));
    }
    match (status, sense) {
        (STATUS_GOOD, None) if host == 0 => Ok(None),
        (STATUS_GOOD | STATUS_CHECK_CONDITION, Some(s)) => {
            if let Some(r) = s.ata.filter(|r| r.status & (ATA_ERR | ATA_DF) != 0) {
                Err(SgError::new(SgErrorKind::Ata(r)))
            } else if s.key <= 0x01 {
                Ok(Some(s))
            } else {
                Err(SgError::new(SgErrorKind::Sense(s)))
            }
        }
        (STATUS_GOOD | STATUS_CHECK_CONDITION, None) => {
            Err(SgError::new(SgErrorKind::Transport { host, driver, status }))
        }
        (other, _) => Err(SgError::new(SgErrorKind::Status(other))),
    }
}

/// Sense data (SPC-5, 4.4 Sense data): the sense key, the additional sense
/// code and qualifier, the sense-key-specific progress indication, and, for
/// ATA PASS-THROUGH, the ATA registers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sense {
    /// Whether the device returned descriptor format (response code 72h or
    /// 73h) rather than fixed (70h or 71h).
    pub descriptor: bool,
    /// SENSE KEY, 0 to 15.
    pub key: u8,
    /// ADDITIONAL SENSE CODE.
    pub asc: u8,
    /// ADDITIONAL SENSE CODE QUALIFIER.
    pub ascq: u8,
    /// The PROGRESS INDICATION (n/65536 done) of the sense-key-specific
    /// field, when SKSV is set and the key is NO SENSE or NOT READY.
    pub progress: Option<u16>,
    /// The ATA registers of an ATA PASS-THROUGH command.
    pub ata: Option<AtaReturn>,
}

/// The ATA registers after an ATA PASS-THROUGH command (SAT-4, the ATA
/// Status Return sense data descriptor, and the fixed format sense data for
/// ATA PASS-THROUGH).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AtaReturn {
    /// Whether the 48-bit (EXTEND) registers are given: from the descriptor
    /// every byte of COUNT and LBA; from fixed format only COUNT 7:0 and
    /// LBA 23:0, so [`AtaReturn::complete`] is false there.
    pub extend: bool,
    /// Whether COUNT and LBA are given in full (descriptor format).
    pub complete: bool,
    /// ERROR.
    pub error: u8,
    /// COUNT 15:0.
    pub count: u16,
    /// LBA 47:0.
    pub lba: u64,
    /// DEVICE.
    pub device: u8,
    /// STATUS.
    pub status: u8,
}

impl Sense {
    /// Reads sense data in either format, for a command other than ATA
    /// PASS-THROUGH (see [`Sense::parse_ata`]).
    pub fn parse(d: &[u8]) -> Option<Sense> {
        Sense::parse_with(d, false)
    }

    /// Reads the sense data of an ATA PASS-THROUGH command: as
    /// [`Sense::parse`], and in fixed format the INFORMATION and
    /// COMMAND-SPECIFIC INFORMATION fields are the ATA registers whenever
    /// VALID is set (libata fills them for a failed command too, under the
    /// key and code it maps the ATA error to, e.g. ABORTED COMMAND 00/00).
    #[cfg(test)]
    pub fn parse_ata(d: &[u8]) -> Option<Sense> {
        Sense::parse_with(d, true)
    }

    /// Reads sense data in either format.
    ///
    /// Fixed format (SPC-5, "Fixed format sense data"): response code at
    /// byte 0 bits 6:0, sense key at byte 2 bits 3:0, additional length at
    /// 7, ASC and ASCQ at 12 and 13, SKSV at byte 15 bit 7 with the
    /// sense-key-specific bytes 15-17 (progress in 16-17). With ASC/ASCQ
    /// 00/1D, SAT-4's fixed format for ATA PASS-THROUGH: INFORMATION
    /// bytes 3-6 are ERROR, STATUS, DEVICE, COUNT 7:0; byte 8 bit 7 EXTEND;
    /// bytes 9-11 LBA 7:0, 15:8, 23:16.
    ///
    /// Descriptor format (SPC-5, "Descriptor format sense data"): sense key
    /// at byte 1, ASC and ASCQ at 2 and 3, additional length at 7,
    /// descriptors from byte 8, each a type and an additional length; type
    /// 02h the sense key specific descriptor (SKSV at its byte 4 bit 7,
    /// progress at 5-6), type 09h SAT-4's ATA Status Return descriptor.
    fn parse_with(d: &[u8], ata_pass_through: bool) -> Option<Sense> {
        let code = d.first()? & 0x7f;
        match code {
            0x70 | 0x71 if d.len() >= 14 => {
                let key = d[2] & 0x0f;
                let (asc, ascq) = (d[12], d[13]);
                let progress = (d.len() >= 18 && d[15] & 0x80 != 0 && matches!(key, 0x00 | 0x02))
                    .then(|| u16::from_be_bytes([d[16], d[17]]));
                let ata =
                    (ata_pass_through && ((asc, ascq) == (0x00, 0x1d) || d[0] & 0x80 != 0)).then(|| {
                        AtaReturn {
                            extend: d[8] & 0x80 != 0,
                            complete: false,
                            error: d[3],
                            count: u16::from(d[6]),
                            lba: u64::from(d[9]) | u64::from(d[10]) << 8 | u64::from(d[11]) << 16,
                            device: d[5],
                            status: d[4],
                        }
                    });
                Some(Sense { descriptor: false, key, asc, ascq, progress, ata })
            }
            0x72 | 0x73 if d.len() >= 4 => {
                let key = d[1] & 0x0f;
                let mut sense =
                    Sense { descriptor: true, key, asc: d[2], ascq: d[3], progress: None, ata: None };
                let end = d.len().min(8 + usize::from(*d.get(7).unwrap_or(&0)));
                let mut at = 8;
                while at + 2 <= end {
                    let len = 2 + usize::from(d[at + 1]);
                    let desc = &d[at..(at + len).min(end)];
                    match desc[0] {
                        0x02 if desc.len() >= 7 && desc[4] & 0x80 != 0 && matches!(key, 0x00 | 0x02) => {
                            sense.progress = Some(u16::from_be_bytes([desc[5], desc[6]]));
                        }
                        0x09 if desc.len() >= 14 => {
                            let b = |i: usize| u64::from(desc[i]);
                            sense.ata = Some(AtaReturn {
                                extend: desc[2] & 0x01 != 0,
                                complete: true,
                                error: desc[3],
                                count: u16::from_be_bytes([desc[4], desc[5]]),
                                lba: b(7) | b(9) << 8 | b(11) << 16 | b(6) << 24 | b(8) << 32 | b(10) << 40,
                                device: desc[12],
                                status: desc[13],
                            });
                        }
                        _ => {}
                    }
                    at += len;
                }
                Some(sense)
            }
            _ => None,
        }
    }

    /// `ILLEGAL REQUEST, invalid command operation code (sense 5/20/00)`.
    pub fn words(&self) -> String {
        let key = SENSE_KEYS[usize::from(self.key & 0x0f)];
        let code = match asc_words(self.asc, self.ascq) {
            Some(w) => w.to_string(),
            None => format!("additional sense code {:02X}/{:02X}", self.asc, self.ascq),
        };
        format!("{key}, {code} (sense {:X}/{:02X}/{:02X})", self.key, self.asc, self.ascq)
    }
}

impl fmt::Display for Sense {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.words())
    }
}

/// The sense keys (SPC-5, the table "Sense key descriptions").
const SENSE_KEYS: [&str; 16] = [
    "NO SENSE",
    "RECOVERED ERROR",
    "NOT READY",
    "MEDIUM ERROR",
    "HARDWARE ERROR",
    "ILLEGAL REQUEST",
    "UNIT ATTENTION",
    "DATA PROTECT",
    "BLANK CHECK",
    "VENDOR SPECIFIC",
    "COPY ABORTED",
    "ABORTED COMMAND",
    "reserved sense key C",
    "VOLUME OVERFLOW",
    "MISCOMPARE",
    "COMPLETED",
];

/// The few additional sense codes methodic meets (SPC-5, the table "ASC and
/// ASCQ assignments"), in lower case.
fn asc_words(asc: u8, ascq: u8) -> Option<&'static str> {
    Some(match (asc, ascq) {
        (0x00, 0x00) => "no additional sense information",
        (0x00, 0x1d) => "ATA pass through information available",
        (0x04, 0x00) => "logical unit not ready, cause not reportable",
        (0x04, 0x01) => "logical unit is in process of becoming ready",
        (0x04, 0x02) => "logical unit not ready, initializing command required",
        (0x04, 0x04) => "logical unit not ready, format in progress",
        (0x04, 0x1b) => "logical unit not ready, sanitize in progress",
        (0x0c, 0x00) => "write error",
        (0x11, 0x00) => "unrecovered read error",
        (0x20, 0x00) => "invalid command operation code",
        (0x24, 0x00) => "invalid field in CDB",
        (0x25, 0x00) => "logical unit not supported",
        (0x26, 0x00) => "invalid field in parameter list",
        (0x27, 0x00) => "write protected",
        (0x29, 0x00) => "power on, reset, or bus device reset occurred",
        (0x2a, 0x01) => "mode parameters changed",
        (0x31, 0x00) => "medium format corrupted",
        (0x31, 0x03) => "sanitize command failed",
        (0x3a, 0x00) => "medium not present",
        (0x44, 0x00) => "internal target failure",
        (0x5d, 0x00) => "failure prediction threshold exceeded",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The header is the kernel's size, field for field.
    #[test]
    fn the_header_is_the_kernels_size() {
        let expected = if cfg!(target_pointer_width = "64") { 88 } else { 64 };
        assert_eq!(std::mem::size_of::<SgIoHdr>(), expected);
        assert_eq!(std::mem::offset_of!(SgIoHdr, dxfer_len), 12);
        assert_eq!(std::mem::offset_of!(SgIoHdr, dxferp), 16);
        assert_eq!(std::mem::offset_of!(SgIoHdr, status), if expected == 88 { 64 } else { 44 });
        assert_eq!(std::mem::offset_of!(SgIoHdr, info), if expected == 88 { 80 } else { 60 });
    }

    /// Fixed format: ILLEGAL REQUEST, invalid opcode, in words.
    #[test]
    fn fixed_sense_in_words() {
        let mut d = [0u8; 18];
        d[0] = 0x70;
        d[2] = 0x05;
        d[7] = 10;
        d[12] = 0x20;
        let s = Sense::parse(&d).unwrap();
        assert_eq!((s.key, s.asc, s.ascq, s.descriptor, s.progress, s.ata), (5, 0x20, 0, false, None, None));
        assert_eq!(s.words(), "ILLEGAL REQUEST, invalid command operation code (sense 5/20/00)");
        let e = outcome(STATUS_CHECK_CONDITION, 0, 0x08, Sense::parse_ata(&d), 1000).unwrap_err();
        assert!(e.is_invalid_opcode());
        assert_eq!(
            e.to_string(),
            "the drive refused the command: ILLEGAL REQUEST, invalid command operation code (sense 5/20/00)"
        );
        // A code outside the table is given in hex.
        d[12] = 0x55;
        d[13] = 0x01;
        assert_eq!(
            Sense::parse(&d).unwrap().words(),
            "ILLEGAL REQUEST, additional sense code 55/01 (sense 5/55/01)"
        );
    }

    /// Fixed format: NOT READY, sanitize in progress, SKSV with a progress
    /// indication of a quarter.
    #[test]
    fn fixed_sense_carries_progress() {
        let mut d = [0u8; 18];
        d[0] = 0x70;
        d[2] = 0x02;
        d[7] = 10;
        d[12] = 0x04;
        d[13] = 0x1b;
        d[15] = 0x80;
        d[16] = 0x40;
        d[17] = 0x00;
        let s = Sense::parse(&d).unwrap();
        assert_eq!(s.progress, Some(0x4000));
        assert_eq!(s.words(), "NOT READY, logical unit not ready, sanitize in progress (sense 2/04/1B)");
        d[15] = 0x00; // SKSV clear: no progress
        assert_eq!(Sense::parse(&d).unwrap().progress, None);
        assert_eq!(Sense::parse(&d[..10]), None);
        assert_eq!(Sense::parse(&[0x00; 18]), None);
    }

    /// Descriptor format with a sense key specific descriptor (progress)
    /// after another descriptor.
    #[test]
    fn descriptor_sense_carries_progress() {
        let d = [
            0x72, 0x02, 0x04, 0x1b, 0, 0, 0, 20, // header: 20 bytes of descriptors
            0x00, 0x0a, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0x07, // information descriptor
            0x02, 0x06, 0, 0, 0x80, 0x80, 0x00, 0, // sense key specific: SKSV, one half
        ];
        let s = Sense::parse(&d).unwrap();
        assert_eq!((s.descriptor, s.key, s.asc, s.ascq), (true, 2, 0x04, 0x1b));
        assert_eq!((s.progress, s.ata), (Some(0x8000), None));
    }

    /// SAT-4's ATA Status Return descriptor, byte by byte, from a command
    /// the drive aborted: the error names the ATA status and error.
    #[test]
    fn the_ata_status_return_descriptor() {
        let d = [
            0x72, 0x0b, 0x00, 0x00, 0, 0, 0, 14, // ABORTED COMMAND, 00/00
            0x09, 0x0c, 0x01, 0x04, // EXTEND, ERROR = ABRT
            0x12, 0x34, // COUNT 15:8, 7:0
            0x44, 0x11, 0x55, 0x22, 0x66, 0x33, // LBA 31:24, 7:0, 39:32, 15:8, 47:40, 23:16
            0x40, 0x41, // DEVICE, STATUS
        ];
        let s = Sense::parse_ata(&d).unwrap();
        let r = s.ata.unwrap();
        assert_eq!(
            r,
            AtaReturn {
                extend: true,
                complete: true,
                error: 0x04,
                count: 0x1234,
                lba: 0x6655_4433_2211,
                device: 0x40,
                status: 0x41
            }
        );
        let e = outcome(STATUS_CHECK_CONDITION, 0, 0x08, Sense::parse_ata(&d), 1000).unwrap_err();
        assert_eq!(e.to_string(), "the drive aborted the command (ATA status 0x41, error 0x04)");
    }

    /// CK_COND's RECOVERED ERROR, "ATA pass through information available",
    /// with a clean ATA status is success and gives the registers back.
    #[test]
    fn ck_cond_success_returns_the_registers() {
        let mut d = vec![0x72, 0x01, 0x00, 0x1d, 0, 0, 0, 14, 0x09, 0x0c, 0x00, 0x00, 0, 0x01];
        d.extend_from_slice(&[0, 0x00, 0, 0x80, 0, 0, 0xa0, 0x50]);
        let s = outcome(STATUS_CHECK_CONDITION, 0, 0x08, Sense::parse_ata(&d), 1000).unwrap().unwrap();
        let r = s.ata.unwrap();
        assert_eq!((r.count, r.lba, r.status, r.extend), (1, 0x8000, 0x50, false));
    }

    /// SAT-4's fixed format for ATA PASS-THROUGH: only the low bytes.
    #[test]
    fn fixed_format_ata_registers() {
        let mut d = [0u8; 18];
        d[0] = 0xf0; // VALID, current, fixed
        d[2] = 0x01;
        d[3] = 0x00; // ERROR
        d[4] = 0x50; // STATUS
        d[5] = 0x40; // DEVICE
        d[6] = 0x02; // COUNT 7:0
        d[7] = 10;
        d[8] = 0xc0; // EXTEND, COUNT UPPER NONZERO
        d[9] = 0x11;
        d[10] = 0x22;
        d[11] = 0x33;
        d[12] = 0x00;
        d[13] = 0x1d;
        // Not an ATA PASS-THROUGH: no registers.
        assert_eq!(Sense::parse(&d).unwrap().ata, None);
        let r = Sense::parse_ata(&d).unwrap().ata.unwrap();
        assert_eq!((r.extend, r.complete, r.error, r.status, r.device), (true, false, 0, 0x50, 0x40));
        assert_eq!((r.count, r.lba), (2, 0x33_2211));
        // libata's failed command: ABORTED COMMAND 00/00, VALID, ERR set.
        d[2] = 0x0b;
        d[13] = 0x00;
        d[4] = 0x51;
        d[3] = 0x04;
        let e = outcome(STATUS_CHECK_CONDITION, 0, 0x08, Sense::parse_ata(&d), 1000).unwrap_err();
        assert_eq!(e.to_string(), "the drive aborted the command (ATA status 0x51, error 0x04)");
    }

    /// GOOD, timeouts, transport errors and other statuses.
    #[test]
    fn outcomes_in_words() {
        assert!(outcome(STATUS_GOOD, 0, 0, None, 1000).unwrap().is_none());
        assert_eq!(
            outcome(STATUS_GOOD, DID_TIME_OUT, 0, None, 1500).unwrap_err().to_string(),
            "the command timed out after 1500 ms"
        );
        assert_eq!(
            outcome(STATUS_GOOD, 0x01, 0, None, 1000).unwrap_err().to_string(),
            "the command did not complete (host status 0x01, driver status 0x00, SCSI status 0x00)"
        );
        assert_eq!(
            outcome(0x18, 0, 0, None, 1000).unwrap_err().to_string(),
            "the drive answered with SCSI status 0x18 (RESERVATION CONFLICT)"
        );
        // Medium not present: NOT READY 3A/00.
        let mut d = [0u8; 18];
        d[0] = 0x70;
        d[2] = 0x02;
        d[12] = 0x3a;
        assert_eq!(
            outcome(STATUS_CHECK_CONDITION, 0, 0x08, Sense::parse_ata(&d), 1000).unwrap_err().to_string(),
            "the drive refused the command: NOT READY, medium not present (sense 2/3A/00)"
        );
    }

    /// A file that is no SCSI device: the ioctl's error in words, and the
    /// readers answer `None` rather than fail.
    #[test]
    fn a_file_that_is_not_a_scsi_device() {
        let null = File::open("/dev/null").unwrap();
        let e = sg_io(&null, &[0x12, 0, 0, 0, 36, 0], Direction::In(&mut [0u8; 36]), 1000).unwrap_err();
        assert!(matches!(e.kind, SgErrorKind::Os(_)));
        assert!(e.to_string().starts_with("the SG_IO ioctl failed: "), "{e}");
        assert_eq!(super::super::ata::identify(&null), None);
        assert_eq!(super::super::scsi::inquiry(&null), None);
        assert_eq!(super::super::scsi::capacity(&null), None);
        assert_eq!(super::super::scsi::write_cache(&null), None);
        assert_eq!(super::super::scsi::sanitize_supported(&null), None);
    }

    /// A sanitize whose progress stays put ends with an error naming where
    /// it stopped; one that moves, however slowly, or reports no progress
    /// for less than a day, goes on.
    #[test]
    fn a_sanitize_that_stops_advancing_is_an_error() {
        let poll_all = |answers: Vec<Poll>| {
            let mut answers = answers.into_iter();
            let mut waits = 0u32;
            let r = poll_sanitize(
                &mut || Ok(answers.next().expect("polled past the end")),
                &mut || waits += 1,
                &mut |_| {},
            );
            (r, waits)
        };
        let (r, waits) = poll_all(vec![Poll::Running(Some(0.5)); STALL_POLLS as usize]);
        let e = r.unwrap_err();
        assert_eq!(
            e.to_string(),
            "the sanitize stayed at 50% for an hour; it may still be running (sg_requests or hdparm show its state)"
        );
        assert_eq!(waits, STALL_POLLS - 1);
        let mut slow: Vec<Poll> =
            (0..STALL_POLLS + 10).map(|i| Poll::Running(Some(f64::from(i / 2) / 1e6))).collect();
        slow.extend(vec![Poll::Running(None); STALL_POLLS as usize + 10]);
        slow.push(Poll::Done);
        assert!(poll_all(slow).0.is_ok());
        let (r, _) = poll_all(vec![Poll::Running(None); STALL_POLLS_WITHOUT_PROGRESS as usize]);
        assert!(r.unwrap_err().to_string().contains("stayed without reporting progress for a day"));
    }
}
