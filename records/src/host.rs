//! Where a run ran, as results record it: the host (CPU, memory, kernel,
//! OS), the file system a file target sits on, and each target's kind,
//! size and identity. The runtime reads them from /proc, /etc and sysfs.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::units::human;

/// The machine a run ran on.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Host {
    pub hostname: Option<String>,
    /// `/proc/cpuinfo`'s model name.
    pub cpu_model: Option<String>,
    /// Logical CPUs online.
    pub cpus: u32,
    /// Logical CPUs this process may run on (its affinity mask).
    pub cpus_allowed: u32,
    /// MemTotal, bytes.
    pub memory_bytes: u64,
    /// `uname -r`.
    pub kernel: Option<String>,
    /// `uname -v`: the kernel's build.
    pub kernel_build: Option<String>,
    /// `/etc/os-release`'s PRETTY_NAME.
    pub os: Option<String>,
    pub arch: String,
    /// A hypervisor or container, when the CPU flags or cgroups say so.
    pub virtualization: Option<String>,
}

/// The file system a path is on, from /proc/self/mountinfo.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileSystem {
    /// `ext4`, `xfs`, `tmpfs`.
    pub fs_type: String,
    /// What is mounted: `/dev/nvme0n1p2`, `tmpfs`.
    pub source: String,
    pub mount_point: String,
    /// The mount's options and the file system's own: `rw,relatime`.
    pub options: String,
    /// `major:minor` of the file system's device.
    pub device: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TargetKind {
    File,
    BlockDevice,
}

impl TargetKind {
    /// `file`, `block device`.
    pub fn words(self) -> &'static str {
        match self {
            TargetKind::File => "file",
            TargetKind::BlockDevice => "block device",
        }
    }
}

/// What sysfs says about a block device; empty for files.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Identity {
    /// The kernel's name: `nvme0n1`, `zram0`, `loop3`.
    pub name: Option<String>,
    pub model: Option<String>,
    pub serial: Option<String>,
    pub firmware: Option<String>,
    pub rotational: Option<bool>,
    pub scheduler: Option<String>,
    pub vendor: Option<String>,
    /// `write back` or `write through` (queue/write_cache).
    pub write_cache: Option<String>,
    /// The kernel driver: `nvme`, `sd`, `zram`, `loop`.
    pub driver: Option<String>,
    /// For a loop device, the file behind it.
    pub backing_file: Option<String>,
    /// For an NVMe namespace, the LBA format in use, from Identify
    /// Namespace: `4096 B blocks, no metadata (format 1 of 2)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lba_format: Option<String>,
    /// For an NVMe drive, its PCIe link as the kernel reads it: `8.0 GT/s
    /// PCIe x4`, and what the link could do when that is more (a drive in a
    /// slot slower than it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pcie_link: Option<String>,
    /// For a file target, the file system it is on and its mount options.
    pub file_system: Option<FileSystem>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TargetInfo {
    pub path: PathBuf,
    pub kind: TargetKind,
    pub capacity: u64,
    pub logical_block: u64,
    pub physical_block: u64,
    /// A scratch file methodic created for the run.
    pub scratch: bool,
    /// The kernel can start I/O on it without blocking (RWF_NOWAIT).
    pub nowait: bool,
    /// I/O completes in the submitting thread (zram, tmpfs).
    pub inline_completion: bool,
    pub identity: Identity,
}

impl Host {
    /// `host1: Intel Xeon ..., 2 CPUs, 24 GiB, Linux 6.1.0`.
    pub fn describe(&self) -> String {
        let mut parts = vec![self.cpu_model.clone().unwrap_or_else(|| "unknown CPU".into())];
        parts.push(format!("{} CPUs", self.cpus));
        parts.push(crate::units::human(self.memory_bytes));
        if let Some(k) = &self.kernel {
            parts.push(format!("Linux {k}"));
        }
        format!("{}: {}", self.hostname.as_deref().unwrap_or("unknown host"), parts.join(", "))
    }
}
impl TargetInfo {
    /// `zram0 (4.0 GiB block device)`, `Samsung 990 PRO fw 4B2QJXD7 (2.0 TB)`,
    /// `scratch file on ext4 (1.0 GiB)`.
    pub fn describe(&self) -> String {
        let id = &self.identity;
        let size = human(self.capacity);
        match self.kind {
            TargetKind::BlockDevice => {
                let name =
                    id.model.clone().or(id.name.clone()).unwrap_or_else(|| self.path.display().to_string());
                match &id.firmware {
                    Some(fw) => format!("{name} fw {fw} ({size})"),
                    None => format!("{name} ({size} block device)"),
                }
            }
            TargetKind::File => {
                let what = if self.scratch { "scratch file" } else { "file" };
                match &id.file_system {
                    Some(fs) => format!("{what} on {} {} ({size})", fs.fs_type, fs.source),
                    None => format!("{what} ({size})"),
                }
            }
        }
    }
}
