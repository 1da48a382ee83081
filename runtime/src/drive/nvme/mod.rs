//! NVMe through the kernel's admin passthrough ioctl (`NVME_IOCTL_ADMIN_CMD`
//! on the namespace's block device), after the NVM Express Base
//! Specification 2.0: Identify Controller and Identify Namespace (5.17,
//! figures 275 and 280-281), the SMART / health log and the OCP cloud
//! SMART log (`logs`), the volatile write cache feature (5.15, 5.27), and
//! the commands that erase (`erase`: Format NVM and Sanitize). Reading
//! commands answer `None` where the target is not such a drive or the drive
//! refuses; commands that change the drive answer an [`AdminError`] in words.

mod admin;
mod erase;
mod identify;
mod logs;
mod status;

use std::fs::File;

use self::admin::{FID_VOLATILE_WRITE_CACHE, GET_FEATURES, PassthruCmd, SET_FEATURES, admin};

pub use erase::{SanitizeAction, SecureErase, format, sanitize};
pub use identify::{controller, namespace};
pub use logs::health;
pub use status::AdminError;

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
    use super::admin::*;
    use super::identify::{Controller, Namespace, Sanicap};
    use super::status::AdminErrorKind;
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
