//! What Identify Namespace and Identify Controller say (NVM Express Base
//! Specification 2.0, figures 275 and 280-281): the namespace's formats
//! and size, and the controller's names and what it can erase.

use std::fs::File;

use super::admin::{CNS_CONTROLLER, CNS_NAMESPACE, identify, namespace_id};

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
