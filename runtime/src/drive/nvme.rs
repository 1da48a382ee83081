//! NVMe through the kernel's admin passthrough ioctl (`NVME_IOCTL_ADMIN_CMD`
//! on the namespace's block device): Identify Controller and Identify
//! Namespace (NVM Express Base Specification 2.0, 5.17, figures 275 and
//! 280-281), and the facts methodic records from them.

use std::fs::File;
use std::os::unix::io::AsRawFd;

/// `struct nvme_passthru_cmd` of linux/nvme_ioctl.h (72 bytes).
#[repr(C)]
#[derive(Default)]
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
const IDENTIFY: u8 = 0x06;
const CNS_NAMESPACE: u32 = 0x00;

/// One Identify command's 4096 bytes.
fn identify(file: &File, nsid: u32, cns: u32) -> Option<Vec<u8>> {
    let mut data = vec![0u8; 4096];
    let mut cmd = PassthruCmd {
        opcode: IDENTIFY,
        nsid,
        addr: data.as_mut_ptr() as u64,
        data_len: data.len() as u32,
        cdw10: cns,
        ..Default::default()
    };
    let rc = unsafe { libc::ioctl(file.as_raw_fd(), NVME_IOCTL_ADMIN_CMD, &mut cmd as *mut PassthruCmd) };
    (rc == 0).then_some(data)
}

/// The namespace's LBA format in words, from Identify Namespace; `None`
/// when `file` is not an NVMe namespace or the drive does not answer.
pub fn lba_format(file: &File) -> Option<String> {
    let nsid = unsafe { libc::ioctl(file.as_raw_fd(), NVME_IOCTL_ID) };
    let nsid = u32::try_from(nsid).ok().filter(|&n| n > 0)?;
    Namespace::parse(&identify(file, nsid, CNS_NAMESPACE)?).map(|n| n.words())
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The passthrough struct is the kernel's size, as the ioctl number says.
    #[test]
    fn the_passthrough_command_is_72_bytes() {
        assert_eq!(std::mem::size_of::<PassthruCmd>(), 72);
        assert_eq!((NVME_IOCTL_ADMIN_CMD >> 16) & 0x3fff, 72);
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
}
