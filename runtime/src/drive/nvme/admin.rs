//! One NVMe admin command through the kernel's passthrough ioctl
//! (`NVME_IOCTL_ADMIN_CMD`): the kernel's command struct, the opcodes and
//! identifiers methodic sends, and the reads every other module builds on
//! (Identify, Get Log Page, the namespace id).

use std::fs::File;
use std::os::unix::io::AsRawFd;

use super::status::{AdminError, AdminErrorKind};

/// `struct nvme_passthru_cmd` of linux/nvme_ioctl.h (72 bytes).
#[repr(C)]
#[derive(Default, Debug, Clone, PartialEq, Eq)]
pub(super) struct PassthruCmd {
    pub(super) opcode: u8,
    pub(super) flags: u8,
    pub(super) rsvd1: u16,
    pub(super) nsid: u32,
    pub(super) cdw2: u32,
    pub(super) cdw3: u32,
    pub(super) metadata: u64,
    pub(super) addr: u64,
    pub(super) metadata_len: u32,
    pub(super) data_len: u32,
    pub(super) cdw10: u32,
    pub(super) cdw11: u32,
    pub(super) cdw12: u32,
    pub(super) cdw13: u32,
    pub(super) cdw14: u32,
    pub(super) cdw15: u32,
    pub(super) timeout_ms: u32,
    pub(super) result: u32,
}

/// `_IO('N', 0x40)`: the namespace id of the block device.
const NVME_IOCTL_ID: libc::c_ulong = 0x4e40;
/// `_IOWR('N', 0x41, struct nvme_passthru_cmd)`.
pub(super) const NVME_IOCTL_ADMIN_CMD: libc::c_ulong = 0xc048_4e41;
/// Admin command opcodes (Base 2.0, figure 28, Opcodes for Admin Commands).
const GET_LOG_PAGE: u8 = 0x02;
pub(super) const IDENTIFY: u8 = 0x06;
pub(super) const SET_FEATURES: u8 = 0x09;
pub(super) const GET_FEATURES: u8 = 0x0a;
pub(super) const FORMAT_NVM: u8 = 0x80;
pub(super) const SANITIZE: u8 = 0x84;
pub(super) const CNS_NAMESPACE: u32 = 0x00;
pub(super) const CNS_CONTROLLER: u32 = 0x01;
/// Feature identifier of the Volatile Write Cache feature (5.27.1.4).
pub(super) const FID_VOLATILE_WRITE_CACHE: u32 = 0x06;
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
pub(super) fn admin(file: &File, mut cmd: PassthruCmd, data: Option<&mut [u8]>) -> Result<u32, AdminError> {
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
pub(super) fn log_page_cdw10(lid: u8, len: usize) -> u32 {
    ((len / 4 - 1) as u32) << 16 | u32::from(lid)
}

/// Reads log `lid` of the controller (NSID all), `len` bytes.
pub(super) fn log_page(file: &File, lid: u8, len: usize) -> Result<Vec<u8>, AdminError> {
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
pub(super) fn identify(file: &File, nsid: u32, cns: u32) -> Option<Vec<u8>> {
    admin_read(file, IDENTIFY, nsid, cns, 4096)
}

/// The namespace id of `file` (`NVME_IOCTL_ID`), or the OS error.
pub(super) fn namespace_id(file: &File) -> Result<u32, AdminError> {
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
