//! Which interface reaches a block device's drive commands, from what
//! sysfs said of it, and what the drive says of itself through that
//! interface. Kept apart from the target it describes: opening a target
//! fills its identity from here, and nothing here needs the target.

use std::fs::File;

use methodic_results::host::Identity;

use super::erase::Interface;
use super::{ata, nvme, scsi};
use crate::sysfs::sysfs;

/// The interface of a block device from what sysfs said of it: its name
/// (a partition has none), driver and SCSI vendor.
pub(super) fn interface_of_device(identity: &Identity) -> Interface {
    let Some(name) = identity.name.as_deref() else {
        return Interface::None;
    };
    let base = format!("/sys/class/block/{name}");
    if std::path::Path::new(&format!("{base}/partition")).exists() {
        return Interface::None;
    }
    interface_of(identity.driver.as_deref(), sysfs(&format!("{base}/device/vendor")).as_deref())
}

/// The interface from the driver's name and the SCSI vendor (libata says
/// `ATA` there for a SATA drive).
fn interface_of(driver: Option<&str>, vendor: Option<&str>) -> Interface {
    match (driver, vendor) {
        (Some("nvme"), _) => Interface::Nvme,
        (Some("sd"), Some("ATA")) => Interface::Ata,
        (Some("sd"), _) => Interface::Scsi,
        _ => Interface::None,
    }
}

/// What the drive says of itself, over what sysfs said: model, serial,
/// firmware, the LBA format in use and its capacity, from NVMe Identify,
/// ATA IDENTIFY DEVICE or SCSI INQUIRY, VPD and READ CAPACITY(16). Left as
/// sysfs has it where the drive does not answer (or is not a drive).
pub(crate) fn fill_identity(identity: &mut Identity, file: &File) {
    let interface = interface_of_device(identity);
    let blocks = |logical: u64, physical: u64| {
        if physical > logical {
            format!("{logical} B logical blocks, {physical} B physical")
        } else {
            format!("{logical} B blocks")
        }
    };
    let mut set = |model: String, serial: Option<String>, firmware: String, source: &str| {
        let some = |s: String| Some(s.trim().to_string()).filter(|s| !s.is_empty());
        identity.model = some(model).or(identity.model.take());
        identity.serial = serial.and_then(some).or(identity.serial.take());
        identity.firmware = some(firmware).or(identity.firmware.take());
        identity.identity_source = Some(source.to_string());
    };
    match interface {
        Interface::Nvme => {
            if let Some(c) = nvme::controller(file) {
                set(c.model, Some(c.serial), c.firmware, "NVMe Identify Controller");
            }
            if let Some(ns) = nvme::namespace(file) {
                identity.drive_capacity = Some(ns.blocks * ns.formats[ns.in_use].0);
                identity.lba_format = Some(ns.words());
            }
        }
        Interface::Ata => {
            if let Some(id) = ata::identify(file) {
                identity.drive_capacity = Some(id.sectors * id.logical_sector_bytes);
                identity.lba_format = Some(blocks(id.logical_sector_bytes, id.physical_sector_bytes));
                set(id.model, Some(id.serial), id.firmware, "ATA IDENTIFY DEVICE");
            }
        }
        Interface::Scsi => {
            if let Some(i) = scsi::inquiry(file) {
                set(i.product, i.serial, i.revision, "SCSI INQUIRY and VPD page 80h");
                identity.vendor =
                    Some(i.vendor.trim().to_string()).filter(|v| !v.is_empty()).or(identity.vendor.take());
            }
            if let Some(c) = scsi::capacity(file) {
                let logical = u64::from(c.logical_block_bytes);
                identity.drive_capacity = Some(c.blocks * logical);
                identity.lba_format = Some(blocks(logical, u64::from(c.physical_block_bytes)));
            }
        }
        Interface::None => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_interface_follows_the_driver_and_vendor() {
        assert_eq!(interface_of(Some("nvme"), None), Interface::Nvme);
        assert_eq!(interface_of(Some("sd"), Some("ATA")), Interface::Ata);
        assert_eq!(interface_of(Some("sd"), Some("QEMU")), Interface::Scsi);
        assert_eq!(interface_of(Some("zram"), None), Interface::None);
        assert_eq!(interface_of(None, None), Interface::None);
    }
}
