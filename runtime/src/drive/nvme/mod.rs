//! NVMe through the kernel's admin passthrough ioctl (`NVME_IOCTL_ADMIN_CMD`
//! on the namespace's block device), after the NVM Express Base
//! Specification 2.0: Identify Controller and Identify Namespace (5.17,
//! figures 275 and 280-281), the SMART / health log and the OCP cloud
//! SMART log (`logs`), the volatile write cache feature (5.15, 5.27), and
//! the commands that erase (`erase`: Format NVM and Sanitize). Reading
//! commands answer `None` where the target is not such a drive or the drive
//! refuses; commands that change the drive answer an [`AdminError`] in words.

mod erase;
mod logs;
mod status;

use std::fs::File;
use std::os::unix::io::AsRawFd;

pub use erase::{SanitizeAction, SecureErase, format, sanitize};
pub use logs::{OcpSmart, health, ocp_smart, parse_health, parse_ocp_smart, temperature};
pub use methodic_results::health::Health;
pub use status::{AdminError, AdminErrorKind, status_words};

/// `struct nvme_passthru_cmd` of linux/nvme_ioctl.h (72 bytes).
#[repr(C)]
#[derive(Default, Debug, Clone, PartialEq, Eq)]
struct PassthruCmd {
    opcode: u8,
    flags: u8,
    rsvd1: u16,
    nsid: u32,
    cdw2: u32,
    cdw3: u32,
    metadata: u64,
    addr: u64,
    metadata_len: u32,
    data_len: u32,
    cdw10: u32,
    cdw11: u32,
    cdw12: u32,
    cdw13: u32,
    cdw14: u32,
    cdw15: u32,
    timeout_ms: u32,
    result: u32,
}

/// `_IO('N', 0x40)`: the namespace id of the block device.
const NVME_IOCTL_ID: libc::c_ulong = 0x4e40;
/// `_IOWR('N', 0x41, struct nvme_passthru_cmd)`.
const NVME_IOCTL_ADMIN_CMD: libc::c_ulong = 0xc048_4e41;
/// Admin command opcodes (Base 2.0, figure 28, Opcodes for Admin Commands).
const GET_LOG_PAGE: u8 = 0x02;
const IDENTIFY: u8 = 0x06;
const SET_FEATURES: u8 = 0x09;
const GET_FEATURES: u8 = 0x0a;
const FORMAT_NVM: u8 = 0x80;
const SANITIZE: u8 = 0x84;
const CNS_NAMESPACE: u32 = 0x00;
const CNS_CONTROLLER: u32 = 0x01;
/// Feature identifier of the Volatile Write Cache feature (5.27.1.4).
const FID_VOLATILE_WRITE_CACHE: u32 = 0x06;
/// The NSID that means every namespace (or none in particular).
const NSID_ALL: u32 = 0xffff_ffff;

/// The specification's name of an admin command, for errors.
fn command_name(opcode: u8) -> &'static str {
    match opcode {
        GET_LOG_PAGE => "Get Log Page",
        IDENTIFY => "Identify",
        SET_FEATURES => "Set Features",
        GET_FEATURES => "Get Features",
        FORMAT_NVM => "Format NVM",
        SANITIZE => "Sanitize",
        _ => "admin command",
    }
}

/// Sends one admin command through the passthrough ioctl and answers the
/// command specific dword 0 of its completion (the `result` field). `data`
/// is the buffer the command transfers, if any; which way it goes is the
/// opcode's (bits 1:0: 01b host to controller, 10b controller to host), as
/// the kernel reads it.
fn admin(file: &File, mut cmd: PassthruCmd, data: Option<&mut [u8]>) -> Result<u32, AdminError> {
    let name = command_name(cmd.opcode);
    if let Some(buf) = data {
        cmd.addr = buf.as_mut_ptr() as u64;
        cmd.data_len =
            u32::try_from(buf.len()).map_err(|_| AdminError::new(name, AdminErrorKind::Os(libc::EINVAL)))?;
    }
    // SAFETY: `cmd` is the kernel's struct, and `addr`/`data_len` name a
    // live buffer that outlives the call (or none).
    let rc = unsafe { libc::ioctl(file.as_raw_fd(), NVME_IOCTL_ADMIN_CMD, &mut cmd as *mut PassthruCmd) };
    match rc {
        0 => Ok(cmd.result),
        rc if rc > 0 => Err(AdminError::new(name, AdminErrorKind::Status(rc as u16))),
        _ => {
            let errno = std::io::Error::last_os_error().raw_os_error().unwrap_or(libc::EIO);
            Err(AdminError::new(name, AdminErrorKind::Os(errno)))
        }
    }
}

/// An admin command that reads `len` bytes from the drive (command dword
/// 10 as given); `None` when the kernel or the drive refuses it.
fn admin_read(file: &File, opcode: u8, nsid: u32, cdw10: u32, len: usize) -> Option<Vec<u8>> {
    let mut data = vec![0u8; len];
    let cmd = PassthruCmd { opcode, nsid, cdw10, ..Default::default() };
    admin(file, cmd, Some(&mut data)).ok().map(|_| data)
}

/// Get Log Page (5.16) for log `lid`, `len` bytes (a multiple of 4) from
/// its start: NUMDL, the dwords to read less one, in CDW10 bits 31:16, the
/// log identifier in bits 7:0 (RAE, LSP and NUMDU 0).
fn log_page_cdw10(lid: u8, len: usize) -> u32 {
    ((len / 4 - 1) as u32) << 16 | u32::from(lid)
}

/// Reads log `lid` of the controller (NSID all), `len` bytes.
fn log_page(file: &File, lid: u8, len: usize) -> Result<Vec<u8>, AdminError> {
    let mut data = vec![0u8; len];
    let cmd = PassthruCmd {
        opcode: GET_LOG_PAGE,
        nsid: NSID_ALL,
        cdw10: log_page_cdw10(lid, len),
        ..Default::default()
    };
    admin(file, cmd, Some(&mut data)).map(|_| data)
}

/// One Identify command's 4096 bytes.
fn identify(file: &File, nsid: u32, cns: u32) -> Option<Vec<u8>> {
    admin_read(file, IDENTIFY, nsid, cns, 4096)
}

/// The namespace id of `file` (`NVME_IOCTL_ID`), or the OS error.
fn namespace_id(file: &File) -> Result<u32, AdminError> {
    // SAFETY: NVME_IOCTL_ID takes no argument.
    let nsid = unsafe { libc::ioctl(file.as_raw_fd(), NVME_IOCTL_ID) };
    match u32::try_from(nsid) {
        Ok(n) if n > 0 => Ok(n),
        _ => {
            let errno = std::io::Error::last_os_error().raw_os_error().unwrap_or(libc::ENOTTY);
            Err(AdminError::new("namespace id", AdminErrorKind::Os(errno)))
        }
    }
}

/// Identify Namespace of the namespace `file` is; `None` when it is not
/// an NVMe namespace or the drive does not answer.
pub fn namespace(file: &File) -> Option<Namespace> {
    let nsid = namespace_id(file).ok()?;
    Namespace::parse(&identify(file, nsid, CNS_NAMESPACE)?)
}

/// What Identify Namespace says of the namespace's formats.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Namespace {
    /// NSZE: the namespace's size in logical blocks.
    pub blocks: u64,
    /// The LBA formats the namespace supports: (data bytes, metadata bytes).
    pub formats: Vec<(u64, u16)>,
    /// The one in use (FLBAS), an index into `formats`.
    pub in_use: usize,
}

impl Namespace {
    /// Reads the Identify Namespace data structure: NSZE at bytes 0-7,
    /// NLBAF (the number of formats less one) at byte 25, FLBAS at byte 26
    /// (the format index: bits 3:0, and bits 6:5 above them), the LBA
    /// format table from byte 128, four bytes a format (MS: bits 15:0,
    /// LBADS, log2 of the data size: bits 23:16).
    pub fn parse(data: &[u8]) -> Option<Namespace> {
        if data.len() < 4096 {
            return None;
        }
        let blocks = u64::from_le_bytes(data[0..8].try_into().ok()?);
        let count = data[25] as usize + 1;
        let flbas = data[26];
        let in_use = (flbas & 0x0f) as usize | (((flbas >> 5) & 0x03) as usize) << 4;
        let formats: Vec<(u64, u16)> = (0..count.min(64))
            .map(|i| {
                let f = u32::from_le_bytes(data[128 + 4 * i..132 + 4 * i].try_into().unwrap());
                let lbads = (f >> 16) & 0xff;
                (if (9..64).contains(&lbads) { 1u64 << lbads } else { 0 }, (f & 0xffff) as u16)
            })
            .collect();
        (in_use < formats.len() && formats[in_use].0 > 0).then_some(Namespace { blocks, formats, in_use })
    }

    /// `4096 B blocks, no metadata (format 1 of 2)`.
    pub fn words(&self) -> String {
        let (data, meta) = self.formats[self.in_use];
        let meta = if meta == 0 { "no metadata".to_string() } else { format!("{meta} B metadata") };
        format!("{data} B blocks, {meta} (format {} of {})", self.in_use, self.formats.len())
    }
}

/// What Identify Controller says methodic needs before it erases or turns
/// the write cache off or on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Controller {
    pub model: String,
    pub serial: String,
    pub firmware: String,
    /// OACS bit 1: the controller supports Format NVM.
    pub format_nvm: bool,
    /// FNA bit 0: a format applies to every namespace, not one.
    pub format_all_namespaces: bool,
    /// FNA bit 1: a secure erase applies to every namespace, not one.
    pub secure_erase_all_namespaces: bool,
    /// FNA bit 2: Format NVM can erase cryptographically (SES 010b).
    pub crypto_erase: bool,
    /// SANICAP: the sanitize operations the controller supports.
    pub sanitize: Sanicap,
    /// VWC bit 0: the drive has a volatile write cache.
    pub volatile_write_cache: bool,
}

/// SANICAP bits 0, 1, 2 (Identify Controller bytes 328-331).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Sanicap {
    pub crypto: bool,
    pub block: bool,
    pub overwrite: bool,
}

impl Controller {
    /// Reads the Identify Controller data structure (CNS 01h, Base 2.0
    /// figure 275): SN at bytes 4-23, MN at 24-63, FR at 64-71 (ASCII,
    /// padded with spaces), OACS at 256-257, SANICAP at 328-331, FNA at
    /// 524, VWC at 525.
    pub fn parse(d: &[u8]) -> Option<Controller> {
        if d.len() < 4096 {
            return None;
        }
        let text = |r: std::ops::Range<usize>| {
            String::from_utf8_lossy(&d[r]).trim_matches(|c: char| c == ' ' || c == '\0').to_string()
        };
        let oacs = u16::from_le_bytes([d[256], d[257]]);
        let sanicap = u32::from_le_bytes(d[328..332].try_into().ok()?);
        let fna = d[524];
        Some(Controller {
            serial: text(4..24),
            model: text(24..64),
            firmware: text(64..72),
            format_nvm: oacs & 0x2 != 0,
            format_all_namespaces: fna & 0x1 != 0,
            secure_erase_all_namespaces: fna & 0x2 != 0,
            crypto_erase: fna & 0x4 != 0,
            sanitize: Sanicap {
                crypto: sanicap & 0x1 != 0,
                block: sanicap & 0x2 != 0,
                overwrite: sanicap & 0x4 != 0,
            },
            volatile_write_cache: d[525] & 0x1 != 0,
        })
    }
}

/// Identify Controller of the controller behind `file`; `None` when it is
/// not an NVMe namespace or the drive does not answer.
pub fn controller(file: &File) -> Option<Controller> {
    Controller::parse(&identify(file, 0, CNS_CONTROLLER)?)
}

/// Get Features (5.15) of the Volatile Write Cache: CDW10 FID bits 7:0,
/// SEL bits 10:8 000b (the current value).
fn get_write_cache_command() -> PassthruCmd {
    PassthruCmd { opcode: GET_FEATURES, cdw10: FID_VOLATILE_WRITE_CACHE, ..Default::default() }
}

/// Set Features (5.27) of the Volatile Write Cache: CDW10 FID bits 7:0, SV
/// (bit 31) 0 so the setting does not outlive a reset; CDW11 bit 0 WCE.
fn set_write_cache_command(on: bool) -> PassthruCmd {
    PassthruCmd {
        opcode: SET_FEATURES,
        cdw10: FID_VOLATILE_WRITE_CACHE,
        cdw11: u32::from(on),
        ..Default::default()
    }
}

/// Whether the drive's volatile write cache is on (the Get Features result,
/// bit 0 WCE, 5.27.1.4); `None` when it has none or does not answer.
pub fn write_cache(file: &File) -> Option<bool> {
    admin(file, get_write_cache_command(), None).ok().map(|r| r & 0x1 != 0)
}

/// Turns the drive's volatile write cache on or off until its next reset.
pub fn set_write_cache(file: &File, on: bool) -> Result<(), AdminError> {
    admin(file, set_write_cache_command(on), None).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The passthrough struct is the kernel's size, as the ioctl number says.
    #[test]
    fn the_passthrough_command_is_72_bytes() {
        assert_eq!(std::mem::size_of::<PassthruCmd>(), 72);
        assert_eq!((NVME_IOCTL_ADMIN_CMD >> 16) & 0x3fff, 72);
        assert_eq!(std::mem::offset_of!(PassthruCmd, cdw10), 40);
        assert_eq!(std::mem::offset_of!(PassthruCmd, timeout_ms), 64);
        assert_eq!(std::mem::offset_of!(PassthruCmd, result), 68);
    }

    /// An Identify Namespace structure laid out byte by byte as the
    /// specification gives it: 2 formats, the second (4KiB, 8 B metadata)
    /// in use.
    #[test]
    fn identify_namespace_gives_the_format_in_use() {
        let mut d = vec![0u8; 4096];
        d[0..8].copy_from_slice(&262_144u64.to_le_bytes());
        d[25] = 1; // NLBAF: two formats
        d[26] = 0x01; // FLBAS: format 1
        d[128..132].copy_from_slice(&(9u32 << 16).to_le_bytes()); // 512 B, no metadata
        d[132..136].copy_from_slice(&((12u32 << 16) | 8).to_le_bytes()); // 4096 B, 8 B metadata
        let ns = Namespace::parse(&d).unwrap();
        assert_eq!(ns, Namespace { blocks: 262_144, formats: vec![(512, 0), (4096, 8)], in_use: 1 });
        assert_eq!(ns.words(), "4096 B blocks, 8 B metadata (format 1 of 2)");
        // FLBAS bits 6:5 extend the index past 16 formats.
        d[25] = 20;
        d[26] = 0x21; // index 1 | 1 << 4 = 17
        d[128 + 4 * 17..132 + 4 * 17].copy_from_slice(&(9u32 << 16).to_le_bytes());
        assert_eq!(Namespace::parse(&d).unwrap().in_use, 17);
        d[26] = 0x05; // a format that has no data size
        assert_eq!(Namespace::parse(&d), None);
        assert_eq!(Namespace::parse(&d[..100]), None);
    }

    /// An Identify Controller structure laid out byte by byte: strings
    /// padded with spaces, and each capability bit on its own.
    #[test]
    fn identify_controller_gives_names_and_capabilities() {
        let mut d = vec![0u8; 4096];
        d[4..24].copy_from_slice(b"SN-0042             ");
        d[24..64].copy_from_slice(b"QEMU NVMe Ctrl                          ");
        d[64..72].copy_from_slice(b"10.0.0  ");
        let c = Controller::parse(&d).unwrap();
        assert_eq!(
            (c.serial.as_str(), c.model.as_str(), c.firmware.as_str()),
            ("SN-0042", "QEMU NVMe Ctrl", "10.0.0")
        );
        assert!(
            !c.format_nvm && !c.format_all_namespaces && !c.secure_erase_all_namespaces && !c.crypto_erase
        );
        assert_eq!(c.sanitize, Sanicap::default());
        assert!(!c.volatile_write_cache);

        d[256] = 0x02; // OACS bit 1: Format NVM
        d[524] = 0x01; // FNA bit 0
        d[525] = 0x01; // VWC bit 0
        d[328] = 0x02; // SANICAP bit 1: block erase
        let c = Controller::parse(&d).unwrap();
        assert!(c.format_nvm && c.format_all_namespaces && c.volatile_write_cache);
        assert!(!c.secure_erase_all_namespaces && !c.crypto_erase);
        assert_eq!(c.sanitize, Sanicap { crypto: false, block: true, overwrite: false });

        d[256] = 0x01; // OACS bit 0 is Security Send/Receive, not format
        d[524] = 0x06; // FNA bits 1 and 2
        d[328] = 0x05; // SANICAP bits 0 and 2: crypto and overwrite
        d[525] = 0x06; // VWC bits 2:1 say how flush answers, not whether there is a cache
        let c = Controller::parse(&d).unwrap();
        assert!(!c.format_nvm && !c.format_all_namespaces && !c.volatile_write_cache);
        assert!(c.secure_erase_all_namespaces && c.crypto_erase);
        assert_eq!(c.sanitize, Sanicap { crypto: true, block: false, overwrite: true });
        assert_eq!(Controller::parse(&d[..4095]), None);
    }

    /// Get and Set Features of the Volatile Write Cache, dword by dword.
    #[test]
    fn the_write_cache_commands_carry_fid_6_and_wce() {
        let get = get_write_cache_command();
        assert_eq!((get.opcode, get.nsid, get.cdw10, get.cdw11, get.data_len), (0x0a, 0, 0x0000_0006, 0, 0));
        let on = set_write_cache_command(true);
        assert_eq!(
            (on.opcode, on.nsid, on.cdw10, on.cdw11, on.data_len),
            (0x09, 0, 0x0000_0006, 0x0000_0001, 0)
        );
        let off = set_write_cache_command(false);
        assert_eq!((off.opcode, off.cdw10, off.cdw11), (0x09, 0x0000_0006, 0));
    }

    /// NUMDL counts dwords less one: 512 bytes are 127 in bits 31:16.
    #[test]
    fn a_log_page_command_counts_dwords_less_one() {
        assert_eq!(log_page_cdw10(0x02, 512), 0x007f_0002);
        assert_eq!(log_page_cdw10(0x81, 512), 0x007f_0081);
        assert_eq!(log_page_cdw10(0xc0, 4096), 0x03ff_00c0);
    }

    /// A command on something that is not an NVMe namespace fails with the
    /// kernel's word for it, not a panic or a made-up status.
    #[test]
    fn a_command_on_a_plain_file_is_refused_by_the_kernel() {
        let f = tempfile_in_tmp();
        let e = set_write_cache(&f, true).unwrap_err();
        assert_eq!(e.command, "Set Features");
        assert!(matches!(e.kind, AdminErrorKind::Os(_)), "{e}");
        assert_eq!(write_cache(&f), None);
        assert_eq!(controller(&f), None);
        assert!(namespace_id(&f).is_err());
    }

    fn tempfile_in_tmp() -> File {
        let path = std::env::temp_dir().join(format!("methodic-nvme-test-{}", std::process::id()));
        let f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&path)
            .unwrap();
        let _ = std::fs::remove_file(&path);
        f
    }
}
