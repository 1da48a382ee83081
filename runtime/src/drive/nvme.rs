//! NVMe through the kernel's admin passthrough ioctl (`NVME_IOCTL_ADMIN_CMD`
//! on the namespace's block device): Identify Controller and Identify
//! Namespace (NVM Express Base Specification 2.0, 5.17, figures 275 and
//! 280-281), and the facts methodic records from them.

use std::fs::File;
use std::os::unix::io::AsRawFd;

pub use methodic_results::health::Health;

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
const GET_LOG_PAGE: u8 = 0x02;
const IDENTIFY: u8 = 0x06;
/// The SMART / Health Information log.
const LOG_HEALTH: u32 = 0x02;
const CNS_NAMESPACE: u32 = 0x00;

/// The SMART / health log of the controller of `file` (an NVMe namespace),
/// or `None` when it is not one or the drive does not answer.
pub fn health(file: &File) -> Option<Health> {
    // NUMDL: dwords to read, less one, in bits 31:16; the log id in 7:0.
    let numdl = (512 / 4 - 1) << 16;
    parse_health(&admin_read(file, GET_LOG_PAGE, 0xffff_ffff, numdl | LOG_HEALTH, 512)?)
}

/// Reads the SMART / Health Information log (NVM Express Base
/// Specification 2.0, figure 207): composite temperature in kelvins at
/// bytes 1-2, percentage used at 5, data units read and written at 32 and
/// 48, host read and write commands at 64 and 80, media errors at 160 (each
/// 16 bytes), warning and critical composite temperature time in minutes
/// at 192 and 196; all little endian.
pub fn parse_health(d: &[u8]) -> Option<Health> {
    if d.len() < 512 {
        return None;
    }
    let u128_at = |i: usize| u128::from_le_bytes(d[i..i + 16].try_into().unwrap());
    let u32_at = |i: usize| u32::from_le_bytes(d[i..i + 4].try_into().unwrap());
    Some(Health {
        temperature_c: i32::from(u16::from_le_bytes([d[1], d[2]])) - 273,
        data_units_read: u128_at(32),
        data_units_written: u128_at(48),
        host_read_commands: u128_at(64),
        host_write_commands: u128_at(80),
        media_errors: u128_at(160),
        percentage_used: d[5],
        warning_temperature_minutes: u32_at(192),
        critical_temperature_minutes: u32_at(196),
    })
}

/// One Identify command's 4096 bytes.
fn identify(file: &File, nsid: u32, cns: u32) -> Option<Vec<u8>> {
    admin_read(file, IDENTIFY, nsid, cns, 4096)
}

/// An admin command that reads `len` bytes from the drive (command dword
/// 10 as given), through the passthrough ioctl; `None` when the kernel or
/// the drive refuses it.
fn admin_read(file: &File, opcode: u8, nsid: u32, cdw10: u32, len: usize) -> Option<Vec<u8>> {
    let mut data = vec![0u8; len];
    let mut cmd = PassthruCmd {
        opcode,
        nsid,
        addr: data.as_mut_ptr() as u64,
        data_len: len as u32,
        cdw10,
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
            (50, 3, 132, 7)
        );
        assert_eq!((h.host_write_commands, h.media_errors, h.warning_temperature_minutes), (16_384, 2, 11));
        assert_eq!(h.critical_temperature_minutes, 0);
        assert_eq!(parse_health(&d[..100]), None);
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
