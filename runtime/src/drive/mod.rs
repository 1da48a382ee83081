//! What a drive says of itself and does through the kernel's passthrough
//! interfaces, beside what sysfs says: NVMe admin commands (`nvme`), ATA
//! commands through SG_IO (`ata`) and SCSI commands (`scsi`, over `sg`).
//! Here: which interface a target is, what it can erase itself with and
//! the erase itself (`erase` decides which), its volatile write cache, and
//! its health counters ([`HealthReader`]: NVMe and SATA; SCSI has none).

pub mod ata;
pub mod cache;
pub mod erase;
pub(crate) mod identify;
pub mod nvme;
pub mod scsi;
pub mod sg;

use std::fs::File;

use methodic_results::health::Health;

use crate::sysfs::sysfs;
use crate::target::Target;
use methodic_results::host::TargetKind;

pub use erase::{Abilities, Interface, Way};
use identify::interface_of_device;

/// How the kernel reaches `target`'s drive commands: `None` for files,
/// bio devices (loop, zram) and partitions (whose drive holds more than
/// the target).
pub fn interface(target: &Target) -> Interface {
    if target.kind != TargetKind::BlockDevice {
        return Interface::None;
    }
    interface_of_device(&target.identity)
}

/// How a drive's health counters are read: the NVMe SMART / health log
/// (and OCP log), or what a SATA drive has (its Device Statistics log, else
/// its SMART attributes; [`ata::HealthReader`]). SCSI drives and anything
/// that is not a drive have none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HealthReader {
    Nvme,
    Ata(ata::HealthReader),
}

impl HealthReader {
    /// The way to read the health of the drive behind `file`, an
    /// `interface` drive; `None` for SCSI, for what is not a drive, and
    /// for a SATA drive that answers neither its logs nor SMART. Asks a
    /// SATA drive what it has (a few commands), once: read from the reader
    /// as often as needed.
    pub fn new(file: &File, interface: Interface) -> Option<HealthReader> {
        match interface {
            Interface::Nvme => Some(HealthReader::Nvme),
            Interface::Ata => ata::HealthReader::probe(file).map(HealthReader::Ata),
            Interface::Scsi | Interface::None => None,
        }
    }

    /// A reading now; `None` when the drive does not answer.
    pub fn read(&self, file: &File) -> Option<Health> {
        match self {
            HealthReader::Nvme => nvme::health(file),
            HealthReader::Ata(r) => r.read(file),
        }
    }
}

/// Whether the kernel would discard on this block device.
fn discards(target: &Target) -> bool {
    target.identity.name.as_deref().is_some_and(|n| {
        sysfs(&format!("/sys/class/block/{n}/queue/discard_max_bytes")).is_some_and(|v| v != "0")
    })
}

/// What `target` can erase itself with, as it says.
pub fn abilities(target: &Target) -> Abilities {
    let interface = interface(target);
    let file = target.file(false);
    let mut ways = Vec::new();
    let mut notes = Vec::new();
    match interface {
        Interface::Nvme => nvme_abilities(file, &mut ways, &mut notes),
        Interface::Ata => ata_abilities(file, &mut ways, &mut notes),
        Interface::Scsi => scsi_abilities(file, &mut ways, &mut notes),
        Interface::None => {}
    }
    if discards(target) {
        ways.push(Way::Discard);
    }
    Abilities { interface, ways, notes }
}

fn nvme_abilities(file: &File, ways: &mut Vec<Way>, notes: &mut Vec<String>) {
    use erase::{FormatErase, Sanitize};
    let Some(c) = nvme::controller(file) else {
        notes.push("the drive did not answer Identify Controller".into());
        return;
    };
    if c.sanitize.block {
        ways.push(Way::Sanitize(Sanitize::Block));
    }
    if c.sanitize.crypto {
        ways.push(Way::Sanitize(Sanitize::Crypto));
    }
    if c.sanitize.overwrite {
        ways.push(Way::Sanitize(Sanitize::Overwrite));
    }
    if c.format_nvm {
        ways.push(Way::Format(FormatErase::Nothing));
        ways.push(Way::Format(FormatErase::UserData));
        if c.crypto_erase {
            ways.push(Way::Format(FormatErase::Crypto));
        }
    } else {
        notes.push("it does not take Format NVM (OACS bit 1 is clear)".into());
    }
    if !(c.sanitize.block || c.sanitize.crypto || c.sanitize.overwrite) {
        notes.push("its Identify Controller data has no sanitize (SANICAP 0)".into());
    }
}

fn ata_abilities(file: &File, ways: &mut Vec<Way>, notes: &mut Vec<String>) {
    use erase::Sanitize;
    let Some(id) = ata::identify(file) else {
        notes.push("the drive did not answer IDENTIFY DEVICE".into());
        return;
    };
    if id.sanitize.supported {
        for (has, s) in [(id.sanitize.block, Sanitize::Block), (id.sanitize.crypto, Sanitize::Crypto)] {
            if has {
                ways.push(Way::Sanitize(s));
            }
        }
        if id.sanitize.overwrite {
            ways.push(Way::Sanitize(Sanitize::Overwrite));
        }
    } else {
        notes.push("its IDENTIFY data has no sanitize feature set (word 59 bit 12 clear)".into());
    }
    let s = &id.security;
    if !s.supported {
        notes.push("its IDENTIFY data has no security feature set (word 128 bit 0 clear)".into());
    } else if s.frozen {
        notes.push(
            "its security is frozen (by the BIOS at boot): suspend and resume the machine, or hot-plug the drive, \
             then try again"
                .into(),
        );
    } else if s.locked {
        notes.push("it is locked with a password methodic does not know".into());
    } else {
        ways.push(Way::AtaSecurity { enhanced: false });
        if s.enhanced_erase {
            ways.push(Way::AtaSecurity { enhanced: true });
        }
    }
}

fn scsi_abilities(file: &File, ways: &mut Vec<Way>, notes: &mut Vec<String>) {
    use erase::Sanitize;
    match scsi::sanitize_supported(file) {
        Some(true) => {
            for s in [Sanitize::Block, Sanitize::Crypto, Sanitize::Overwrite] {
                if scsi::sanitize_action_supported(file, s.into()) != Some(false) {
                    ways.push(Way::Sanitize(s));
                }
            }
        }
        Some(false) => notes
            .push("it does not list SANITIZE among its commands (REPORT SUPPORTED OPERATION CODES)".into()),
        None => notes
            .push("it does not answer REPORT SUPPORTED OPERATION CODES, so no SANITIZE is assumed".into()),
    }
}

/// The other namespaces of `target`'s NVMe controller that `way` would
/// erase too (a sanitize always, a format when the controller formats all
/// namespaces at once), in words; `None` when there are none.
pub fn erase_reaches_beyond(target: &Target, way: Way) -> Option<String> {
    let whole_controller = match way {
        Way::Sanitize(_) => true,
        Way::Format(erase::FormatErase::Nothing) => {
            nvme::controller(target.file(false)).is_some_and(|c| c.format_all_namespaces)
        }
        Way::Format(_) => nvme::controller(target.file(false))
            .is_some_and(|c| c.format_all_namespaces || c.secure_erase_all_namespaces),
        _ => false,
    };
    if interface(target) != Interface::Nvme || !whole_controller {
        return None;
    }
    let name = target.identity.name.as_deref()?;
    let others = sibling_namespaces(
        name,
        std::fs::read_dir("/sys/block").ok()?.flatten().map(|e| e.file_name().to_string_lossy().into_owned()),
    );
    (!others.is_empty()).then(|| others.join(", "))
}

/// The namespaces (`nvme0n2`) beside `name` (`nvme0n1`) among the block
/// devices `all`: the same controller number, another namespace.
fn sibling_namespaces(name: &str, all: impl Iterator<Item = String>) -> Vec<String> {
    let Some((controller, _)) = name.strip_prefix("nvme").and_then(|rest| rest.split_once('n')) else {
        return Vec::new();
    };
    let prefix = format!("nvme{controller}n");
    let mut found: Vec<String> = all
        .filter(|n| n != name)
        .filter(|n| {
            n.strip_prefix(&prefix).is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
        })
        .collect();
    found.sort();
    found
}

/// Erases the whole of `target` the way `way` says, calling `progress`
/// with the share done where the drive reports it. `Err` in words.
pub fn erase(
    target: &Target,
    interface: Interface,
    way: Way,
    progress: &mut dyn FnMut(f64),
) -> Result<(), String> {
    use erase::FormatErase;
    let file = target.file(false);
    let r = match (interface, way) {
        (Interface::Nvme, Way::Sanitize(s)) => {
            nvme::sanitize(file, s.into(), progress).map_err(|e| e.to_string())
        }
        (Interface::Nvme, Way::Format(f)) => {
            let ses = match f {
                FormatErase::Nothing => nvme::SecureErase::None,
                FormatErase::UserData => nvme::SecureErase::UserData,
                FormatErase::Crypto => nvme::SecureErase::Crypto,
            };
            progress(0.0);
            nvme::format(file, ses).map_err(|e| e.to_string())
        }
        (Interface::Ata, Way::Sanitize(s)) => {
            ata::sanitize(file, s.into(), progress).map_err(|e| e.to_string())
        }
        (Interface::Ata, Way::AtaSecurity { enhanced }) => {
            ata::security_erase(file, enhanced, progress).map_err(|e| e.to_string())
        }
        (Interface::Scsi, Way::Sanitize(s)) => {
            scsi::sanitize(file, s.into(), progress).map_err(|e| e.to_string())
        }
        (_, Way::Discard) => target.discard_all().map_err(|e| e.to_string()),
        (i, w) => Err(format!("{} has no {}", i.words(), w.command(i))),
    };
    if r.is_ok() {
        progress(1.0);
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sibling_namespaces_are_the_same_controllers() {
        let all = ["nvme0n1", "nvme0n2", "nvme0n1p1", "nvme1n1", "sda", "nvme0n10"].map(String::from);
        assert_eq!(sibling_namespaces("nvme0n1", all.clone().into_iter()), ["nvme0n10", "nvme0n2"]);
        assert!(sibling_namespaces("nvme1n1", all.clone().into_iter()).is_empty());
        assert!(sibling_namespaces("sda", all.into_iter()).is_empty());
    }
}
