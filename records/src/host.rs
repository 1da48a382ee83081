//! Where a run ran, as results record it: the host (CPU, memory, kernel,
//! OS, and how its CPUs' clocks and idle states are set), the file system
//! a file target sits on, and each target's kind, size and identity. The
//! runtime reads them from /proc, /etc and sysfs.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::units::human;

/// The machine a run ran on.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
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
    /// How the CPUs' clocks and idle states were set; `None` in results
    /// written before methodic recorded them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub power: Option<Power>,
}

/// What sets how fast a CPU handles a completion: its frequency governor,
/// driver and turbo, and the idle states (C-states) it may sleep in between
/// I/Os. Each is `None` when the machine does not expose it (a virtual
/// machine often has no cpufreq).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Power {
    /// `scaling_governor` of the CPUs: `performance`, or when they differ
    /// `performance on 0-3, powersave on 4-7`.
    #[serde(default)]
    pub governor: Option<String>,
    /// `scaling_driver`: `intel_pstate`, `acpi-cpufreq`, `amd-pstate-epp`.
    #[serde(default)]
    pub frequency_driver: Option<String>,
    /// Turbo (intel_pstate's `no_turbo`) or boost (cpufreq's `boost`) on.
    #[serde(default)]
    pub turbo: Option<bool>,
    /// The cpuidle driver: `intel_idle`, `acpi_idle`, `haltpoll`.
    #[serde(default)]
    pub idle_driver: Option<String>,
    /// The cpuidle governor that picks a state: `menu`, `teo`, `haltpoll`.
    #[serde(default)]
    pub idle_governor: Option<String>,
    /// CPU 0's idle states, shallowest first; empty when none are exposed.
    #[serde(default)]
    pub idle_states: Vec<IdleState>,
    /// The modules' deepest C-state allowed: `intel_idle 9, processor 8`.
    #[serde(default)]
    pub max_cstate: Option<String>,
    /// What the kernel command line sets about idling: `idle=poll
    /// intel_idle.max_cstate=1`.
    #[serde(default)]
    pub cmdline: Option<String>,
}

/// One idle state of a CPU, by its name in sysfs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct IdleState {
    /// `POLL`, `C1`, `C1E`, `C6`.
    pub name: String,
    /// Disabled by its `disable` file: the CPU does not enter it.
    pub disabled: bool,
}

/// What a power setting reads when the machine has no file for it.
pub const NOT_EXPOSED: &str = "not exposed by this machine";

impl Power {
    /// `powersave (intel_pstate)`, `performance`, or [`NOT_EXPOSED`].
    pub fn governor_words(&self) -> String {
        match (&self.governor, &self.frequency_driver) {
            (Some(g), Some(d)) => format!("{g} ({d})"),
            (Some(g), None) => g.clone(),
            (None, Some(d)) => format!("no governor reported ({d})"),
            (None, None) => NOT_EXPOSED.into(),
        }
    }

    /// `on`, `off`, or [`NOT_EXPOSED`].
    pub fn turbo_words(&self) -> String {
        match self.turbo {
            Some(true) => "on".into(),
            Some(false) => "off".into(),
            None => NOT_EXPOSED.into(),
        }
    }

    /// The C-states a CPU may enter and what limits them: `intel_idle
    /// (governor menu): POLL, C1, C1E, C6 disabled; max_cstate intel_idle 9;
    /// kernel command line intel_idle.max_cstate=1`, or [`NOT_EXPOSED`].
    pub fn cstate_words(&self) -> String {
        let mut parts = Vec::new();
        let driver = match (&self.idle_driver, &self.idle_governor) {
            (Some(d), Some(g)) => Some(format!("{d} (governor {g})")),
            (Some(d), None) => Some(d.clone()),
            (None, Some(g)) => Some(format!("governor {g}")),
            (None, None) => None,
        };
        let states = self
            .idle_states
            .iter()
            .map(|s| if s.disabled { format!("{} disabled", s.name) } else { s.name.clone() })
            .collect::<Vec<_>>()
            .join(", ");
        match (driver, states.is_empty()) {
            (Some(d), false) => parts.push(format!("{d}: {states}")),
            (Some(d), true) => parts.push(d),
            (None, false) => parts.push(states),
            (None, true) => {}
        }
        if let Some(m) = &self.max_cstate {
            parts.push(format!("max_cstate {m}"));
        }
        if let Some(c) = &self.cmdline {
            parts.push(format!("kernel command line {c}"));
        }
        if parts.is_empty() { NOT_EXPOSED.into() } else { parts.join("; ") }
    }
}

/// The file system a path is on, from /proc/self/mountinfo.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
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
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
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
    /// The LBA format in use as the drive says it: for an NVMe namespace
    /// from Identify Namespace (`4096 B blocks, no metadata (format 1 of
    /// 2)`), for a SATA drive from IDENTIFY DEVICE and for a SCSI drive from
    /// READ CAPACITY(16) (`512 B logical blocks, 4096 B physical`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lba_format: Option<String>,
    /// The capacity in bytes as the drive itself reports it (NVMe: the
    /// namespace's size times its block; ATA: user-addressable sectors;
    /// SCSI: READ CAPACITY(16)), beside the kernel's `capacity`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drive_capacity: Option<u64>,
    /// Where the model, serial and firmware come from when the drive
    /// answered: `NVMe Identify Controller`, `ATA IDENTIFY DEVICE`, `SCSI
    /// INQUIRY and VPD page 80h`; `None`: sysfs alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub identity_source: Option<String>,
    /// For an NVMe drive, its PCIe link as the kernel reads it: `8.0 GT/s
    /// PCIe x4`, and what the link could do when that is more (a drive in a
    /// slot slower than it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pcie_link: Option<String>,
    /// For a file target, the file system it is on and its mount options.
    pub file_system: Option<FileSystem>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
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
    /// `host1: Intel Xeon ..., 2 CPUs, 24 GiB, Linux 6.1.0, governor
    /// performance` (the governor where the machine exposes one).
    pub fn describe(&self) -> String {
        let mut parts = vec![self.cpu_model.clone().unwrap_or_else(|| "unknown CPU".into())];
        parts.push(format!("{} CPUs", self.cpus));
        parts.push(crate::units::human(self.memory_bytes));
        if let Some(k) = &self.kernel {
            parts.push(format!("Linux {k}"));
        }
        if let Some(g) = self.power.as_ref().and_then(|p| p.governor.as_ref()) {
            parts.push(format!("governor {g}"));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn power_settings_are_said_in_words_and_absent_ones_as_not_exposed() {
        let none = Power::default();
        assert_eq!(none.governor_words(), NOT_EXPOSED);
        assert_eq!(none.turbo_words(), NOT_EXPOSED);
        assert_eq!(none.cstate_words(), NOT_EXPOSED);
        let p = Power {
            governor: Some("powersave".into()),
            frequency_driver: Some("intel_pstate".into()),
            turbo: Some(false),
            idle_driver: Some("intel_idle".into()),
            idle_governor: Some("menu".into()),
            idle_states: vec![
                IdleState { name: "POLL".into(), disabled: false },
                IdleState { name: "C6".into(), disabled: true },
            ],
            max_cstate: Some("intel_idle 9".into()),
            cmdline: Some("idle=poll".into()),
        };
        assert_eq!(p.governor_words(), "powersave (intel_pstate)");
        assert_eq!(p.turbo_words(), "off");
        assert_eq!(
            p.cstate_words(),
            "intel_idle (governor menu): POLL, C6 disabled; max_cstate intel_idle 9; kernel command line idle=poll"
        );
    }

    /// A manifest's host from before the power settings were recorded
    /// loads with none; one with some keeps them.
    #[test]
    fn a_host_without_power_settings_loads() {
        let old = r#"{"hostname":"h","cpu_model":null,"cpus":2,"cpus_allowed":2,"memory_bytes":1,
            "kernel":null,"kernel_build":null,"os":null,"arch":"x86_64","virtualization":null}"#;
        let h: Host = serde_json::from_str(old).unwrap();
        assert_eq!(h.power, None);
        let new = old.replace(
            "\"virtualization\":null",
            "\"virtualization\":null,\"power\":{\"governor\":\"performance\"}",
        );
        let h: Host = serde_json::from_str(&new).unwrap();
        assert_eq!(h.power.as_ref().and_then(|p| p.governor.as_deref()), Some("performance"));
        assert!(h.describe().ends_with(", governor performance"), "{}", h.describe());
    }
}
