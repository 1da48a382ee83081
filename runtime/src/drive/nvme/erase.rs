//! The admin commands that erase a drive: Format NVM with or without a
//! secure erase (NVM Express Base Specification 2.0, 5.14) and Sanitize
//! (5.24), whose progress is read from the Sanitize Status log (5.16.1.25)
//! until it completes or fails. The command dwords are built by pure
//! functions, tested against the specification's bit positions; the
//! polling loop takes its log reader and its sleep as closures, so that it
//! is tested without a drive.

use std::fs::File;
use std::time::Duration;

use super::admin::{
    CNS_NAMESPACE, FORMAT_NVM, IDENTIFY, PassthruCmd, SANITIZE, admin, log_page, namespace_id,
};
use super::identify::Namespace;
use super::status::AdminError;
use super::status::AdminErrorKind;

/// What Format NVM does to the user data besides formatting (SES, CDW10
/// bits 11:9).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SecureErase {
    /// 000b: no secure erase requested.
    None,
    /// 001b: User Data Erase.
    UserData,
    /// 010b: Cryptographic Erase (FNA bit 2 says whether the drive can).
    Crypto,
}

/// The sanitize operation to start (SANACT, CDW10 bits 2:0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SanitizeAction {
    /// 010b: Start a Block Erase sanitize operation.
    Block,
    /// 011b: Start an Overwrite sanitize operation.
    Overwrite,
    /// 100b: Start a Crypto Erase sanitize operation.
    Crypto,
}

/// The Sanitize Status log.
const LOG_SANITIZE_STATUS: u8 = 0x81;
/// How long to wait between readings of the Sanitize Status log.
const SANITIZE_POLL: Duration = Duration::from_secs(1);
/// A drive's format may take minutes (a real drive's secure erase, more):
/// two hours before the kernel gives up on the command.
const FORMAT_TIMEOUT_MS: u32 = 2 * 60 * 60 * 1000;
/// Readings of "never sanitized" after the drive accepted Sanitize before
/// methodic stops waiting (the log should say "in progress" at once).
const NOT_STARTED_READINGS: u32 = 10;
/// Readings in progress at the same fraction before methodic stops waiting
/// (an hour, one a second): a sanitize that long without a step forward is
/// stuck, or the drive does not report progress. A real drive's overwrite
/// sanitize takes hours, but its SPROG moves (1/65536 at a time).
pub(super) const STALL_READINGS: u32 = 3600;

/// The format in use, from Identify Namespace, as Format NVM must repeat
/// it so that the format does not change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct InUse {
    /// The LBA format index (FLBAS bits 3:0, and 6:5 above them).
    lbaf: usize,
    /// FLBAS bit 4: metadata at the end of each block (extended LBA).
    mset: bool,
    /// DPS bits 2:0: the protection information type.
    pi: u8,
    /// DPS bit 3: protection information in the first bytes of metadata.
    pil: bool,
}

/// Reads the format in use from Identify Namespace (Base 2.0 figure 280
/// and the NVM Command Set's Identify Namespace): FLBAS at byte 26, DPS at
/// byte 29.
fn in_use(d: &[u8]) -> Option<InUse> {
    let ns = Namespace::parse(d)?;
    Some(InUse { lbaf: ns.in_use, mset: d[26] & 0x10 != 0, pi: d[29] & 0x07, pil: d[29] & 0x08 != 0 })
}

/// Format NVM's CDW10: LBAFL bits 3:0 (the format index's low 4 bits),
/// MSET bit 4, PI bits 7:5, PIL bit 8, SES bits 11:9, LBAFU bits 13:12 (the
/// index's bits 5:4).
fn format_cdw10(f: InUse, ses: SecureErase) -> u32 {
    let ses = match ses {
        SecureErase::None => 0b000,
        SecureErase::UserData => 0b001,
        SecureErase::Crypto => 0b010,
    };
    let lbaf = f.lbaf as u32;
    (lbaf & 0xf)
        | u32::from(f.mset) << 4
        | u32::from(f.pi & 0x7) << 5
        | u32::from(f.pil) << 8
        | ses << 9
        | ((lbaf >> 4) & 0x3) << 12
}

/// The Format NVM command for namespace `nsid`.
fn format_command(nsid: u32, f: InUse, ses: SecureErase) -> PassthruCmd {
    PassthruCmd {
        opcode: FORMAT_NVM,
        nsid,
        cdw10: format_cdw10(f, ses),
        timeout_ms: FORMAT_TIMEOUT_MS,
        ..Default::default()
    }
}

/// The Sanitize command: CDW10 SANACT bits 2:0, AUSE bit 3 0 (a failed
/// sanitize leaves the drive restricted until one succeeds), OWPASS bits
/// 7:4 (1 pass, for overwrite), OIPBP bit 8 0, NDAS bit 9 0; CDW11 the
/// overwrite pattern, 0. The operation runs in the background: the command
/// completes when it has started.
fn sanitize_command(action: SanitizeAction) -> PassthruCmd {
    let cdw10 = match action {
        SanitizeAction::Block => 0b010,
        SanitizeAction::Overwrite => 0b011 | 1 << 4,
        SanitizeAction::Crypto => 0b100,
    };
    PassthruCmd { opcode: SANITIZE, cdw10, cdw11: 0, ..Default::default() }
}

/// Formats the namespace of `file` in the LBA format (and metadata and
/// protection settings) it already has, with the secure erase asked for.
/// Every block of the namespace is lost (and of every namespace, where the
/// controller's FNA bit 0 or 1 says so).
pub fn format(file: &File, ses: SecureErase) -> Result<(), AdminError> {
    let nsid = namespace_id(file)?;
    let mut data = vec![0u8; 4096];
    let identify = PassthruCmd { opcode: IDENTIFY, nsid, cdw10: CNS_NAMESPACE, ..Default::default() };
    admin(file, identify, Some(&mut data))?;
    let f =
        in_use(&data).ok_or(AdminError::new("Identify", AdminErrorKind::Unreadable("LBA format in use")))?;
    admin(file, format_command(nsid, f, ses), None).map(|_| ())
}

/// Starts a sanitize operation on the NVM subsystem behind `file` and waits
/// for it, reading the Sanitize Status log once a second and calling
/// `progress` with the fraction done (0 to 1); `Ok` when the drive says it
/// completed, an error when it refused the command or says it failed.
/// Every block of every namespace is lost.
pub fn sanitize(
    file: &File,
    action: SanitizeAction,
    progress: &mut dyn FnMut(f64),
) -> Result<(), AdminError> {
    admin(file, sanitize_command(action), None)?;
    wait_for_sanitize(&mut || log_page(file, LOG_SANITIZE_STATUS, 512), progress, &mut || {
        std::thread::sleep(SANITIZE_POLL)
    })
}

/// SSTAT bits 2:0 of the Sanitize Status log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SanitizeState {
    /// 000b: the NVM subsystem has never been sanitized.
    Never,
    /// 001b: the most recent sanitize completed.
    Completed,
    /// 010b: a sanitize is in progress.
    InProgress,
    /// 011b: the most recent sanitize failed.
    Failed,
    /// 100b: completed, with no deallocation of the media afterwards.
    CompletedWithoutDeallocation,
}

/// Reads the Sanitize Status log (Base 2.0, 5.16.1.25): SPROG at bytes 0-1,
/// the fraction done as n/65536; SSTAT at bytes 2-3, the state in bits
/// 2:0. `None` for a short log or a reserved state.
fn parse_sanitize_status(d: &[u8]) -> Option<(f64, SanitizeState)> {
    if d.len() < 512 {
        return None;
    }
    let sprog = u16::from_le_bytes([d[0], d[1]]);
    let state = match u16::from_le_bytes([d[2], d[3]]) & 0x7 {
        0 => SanitizeState::Never,
        1 => SanitizeState::Completed,
        2 => SanitizeState::InProgress,
        3 => SanitizeState::Failed,
        4 => SanitizeState::CompletedWithoutDeallocation,
        _ => return None,
    };
    Some((f64::from(sprog) / 65536.0, state))
}

/// Reads the log with `read` until it says the sanitize completed or
/// failed, calling `progress` on each reading in progress (and with 1 at
/// the end) and `sleep` between readings.
fn wait_for_sanitize(
    read: &mut dyn FnMut() -> Result<Vec<u8>, AdminError>,
    progress: &mut dyn FnMut(f64),
    sleep: &mut dyn FnMut(),
) -> Result<(), AdminError> {
    let unreadable = || AdminError::new("Sanitize", AdminErrorKind::Unreadable("Sanitize Status log"));
    let mut not_started = 0;
    let mut still: (f64, u32) = (-1.0, 0);
    loop {
        let (fraction, state) = parse_sanitize_status(&read()?).ok_or_else(unreadable)?;
        match state {
            SanitizeState::Completed | SanitizeState::CompletedWithoutDeallocation => {
                progress(1.0);
                return Ok(());
            }
            SanitizeState::Failed => return Err(AdminError::new("Sanitize", AdminErrorKind::SanitizeFailed)),
            SanitizeState::InProgress => {
                still = if fraction == still.0 { (fraction, still.1 + 1) } else { (fraction, 1) };
                if still.1 >= STALL_READINGS {
                    let percent = (fraction * 100.0).floor() as u32;
                    return Err(AdminError::new("Sanitize", AdminErrorKind::SanitizeStalled(percent)));
                }
                progress(fraction)
            }
            SanitizeState::Never => {
                not_started += 1;
                if not_started >= NOT_STARTED_READINGS {
                    return Err(AdminError::new("Sanitize", AdminErrorKind::SanitizeNotStarted));
                }
            }
        }
        sleep();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(lbaf: usize) -> InUse {
        InUse { lbaf, mset: false, pi: 0, pil: false }
    }

    /// Format NVM's dwords against figure "Format NVM – Command Dword 10".
    #[test]
    fn format_nvm_keeps_the_format_and_sets_ses() {
        let c = format_command(1, plain(0), SecureErase::None);
        assert_eq!((c.opcode, c.nsid, c.cdw10, c.cdw11, c.data_len), (0x80, 1, 0x0000_0000, 0, 0));
        assert!(c.timeout_ms >= 3_600_000, "a format may take an hour or more");
        assert_eq!(format_command(1, plain(0), SecureErase::UserData).cdw10, 0x0000_0200); // SES 001b at 11:9
        assert_eq!(format_command(1, plain(0), SecureErase::Crypto).cdw10, 0x0000_0400); // SES 010b
        assert_eq!(format_command(7, plain(3), SecureErase::None).cdw10, 0x0000_0003); // LBAFL
        assert_eq!(format_command(7, plain(3), SecureErase::None).nsid, 7);
        // Index 17 (0b01_0001): LBAFL 0001b, LBAFU 01b at 13:12.
        assert_eq!(format_command(1, plain(17), SecureErase::UserData).cdw10, 0x0000_1201);
        // Extended metadata, PI type 1, PI first: MSET bit 4, PI 7:5, PIL 8.
        let pi = InUse { lbaf: 2, mset: true, pi: 1, pil: true };
        assert_eq!(format_cdw10(pi, SecureErase::None), 0x0000_0132);
    }

    /// The format in use, read from an Identify Namespace laid out byte by
    /// byte: FLBAS byte 26 (index and MSET), DPS byte 29.
    #[test]
    fn the_format_in_use_comes_from_identify_namespace() {
        let mut d = vec![0u8; 4096];
        d[25] = 1;
        d[128..132].copy_from_slice(&(9u32 << 16).to_le_bytes());
        d[132..136].copy_from_slice(&((12u32 << 16) | 8).to_le_bytes());
        d[26] = 0x11; // format 1, MSET
        d[29] = 0x0a; // PI type 2, PIL
        assert_eq!(in_use(&d), Some(InUse { lbaf: 1, mset: true, pi: 2, pil: true }));
        d[26] = 0x00;
        d[29] = 0x00;
        assert_eq!(in_use(&d), Some(plain(0)));
        assert_eq!(in_use(&d[..512]), None);
    }

    /// Sanitize's dwords against figure "Sanitize – Command Dword 10".
    #[test]
    fn sanitize_carries_the_action_and_one_overwrite_pass() {
        let c = sanitize_command(SanitizeAction::Block);
        assert_eq!((c.opcode, c.nsid, c.cdw10, c.cdw11, c.data_len), (0x84, 0, 0x0000_0002, 0, 0));
        assert_eq!(sanitize_command(SanitizeAction::Crypto).cdw10, 0x0000_0004);
        let o = sanitize_command(SanitizeAction::Overwrite);
        assert_eq!((o.cdw10, o.cdw11), (0x0000_0013, 0)); // SANACT 011b, OWPASS 1 at 7:4, pattern 0
    }

    fn status_log(sprog: u16, sstat: u16) -> Vec<u8> {
        let mut d = vec![0u8; 512];
        d[0..2].copy_from_slice(&sprog.to_le_bytes());
        d[2..4].copy_from_slice(&sstat.to_le_bytes());
        d
    }

    /// Runs the loop over fake log readings; answers its result, the
    /// progress it reported and how many times it slept.
    fn run(readings: Vec<Vec<u8>>) -> (Result<(), AdminError>, Vec<f64>, usize) {
        let mut readings = readings.into_iter();
        let mut seen = Vec::new();
        let mut sleeps = 0;
        let r = wait_for_sanitize(
            &mut || Ok(readings.next().expect("the loop read past the last reading")),
            &mut |f| seen.push(f),
            &mut || sleeps += 1,
        );
        (r, seen, sleeps)
    }

    #[test]
    fn sanitize_reports_progress_until_completed() {
        // SSTAT bits 7:3 (passes done) and bit 8 (global data erased) are
        // not the state.
        let (r, seen, sleeps) =
            run(vec![status_log(16_384, 0x0002), status_log(32_768, 0x000a), status_log(0xffff, 0x0101)]);
        assert_eq!(r, Ok(()));
        assert_eq!(seen, vec![0.25, 0.5, 1.0]);
        assert_eq!(sleeps, 2);
        let (r, seen, _) = run(vec![status_log(0, 0x0002), status_log(0xffff, 0x0004)]);
        assert_eq!(r, Ok(()));
        assert_eq!(seen, vec![0.0, 1.0]);
    }

    #[test]
    fn a_failed_sanitize_is_an_error_in_words() {
        let (r, seen, _) = run(vec![status_log(16_384, 0x0002), status_log(0xffff, 0x0003)]);
        let e = r.unwrap_err();
        assert_eq!(e.kind, AdminErrorKind::SanitizeFailed);
        assert_eq!(
            e.to_string(),
            "Sanitize: the drive says the sanitize operation failed (Sanitize Status log: failed)"
        );
        assert_eq!(seen, vec![0.25]);
    }

    #[test]
    fn a_sanitize_that_never_starts_or_a_bad_log_is_an_error() {
        let (r, seen, sleeps) = run(vec![status_log(0xffff, 0x0000); NOT_STARTED_READINGS as usize]);
        assert_eq!(r.unwrap_err().kind, AdminErrorKind::SanitizeNotStarted);
        assert!(seen.is_empty());
        assert_eq!(sleeps, NOT_STARTED_READINGS as usize - 1);
        let (r, _, _) = run(vec![status_log(0, 0x0005)]);
        assert_eq!(r.unwrap_err().to_string(), "Sanitize: the drive's Sanitize Status log could not be read");
        let (r, _, _) = run(vec![vec![0u8; 4]]);
        assert_eq!(r.unwrap_err().kind, AdminErrorKind::Unreadable("Sanitize Status log"));
    }

    /// Progress that stays put for an hour of readings ends the wait, saying
    /// where it stopped; progress that moves, however slowly, does not.
    #[test]
    fn a_sanitize_that_stops_advancing_is_an_error() {
        let stuck = STALL_READINGS as usize;
        let (r, seen, sleeps) = run(vec![status_log(0x4000, 0x0002); stuck]);
        let e = r.unwrap_err();
        assert_eq!(e.kind, AdminErrorKind::SanitizeStalled(25));
        assert!(e.to_string().contains("stayed at 25% for an hour"), "{e}");
        assert_eq!((seen.len(), sleeps), (stuck - 1, stuck - 1));
        let mut slow: Vec<Vec<u8>> = (0..stuck as u16 + 10).map(|i| status_log(i / 2, 0x0002)).collect();
        slow.push(status_log(0xffff, 0x0001));
        let (r, seen, _) = run(slow);
        assert_eq!(r, Ok(()));
        assert_eq!(seen.last(), Some(&1.0));
    }

    /// A log read that fails ends the wait with that error.
    #[test]
    fn a_refused_log_read_ends_the_wait() {
        let refused = AdminError::new("Get Log Page", AdminErrorKind::Status(0x4109));
        let r = wait_for_sanitize(&mut || Err(refused.clone()), &mut |_| {}, &mut || {});
        assert_eq!(r, Err(refused));
    }
}
