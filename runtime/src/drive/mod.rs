//! What a drive says of itself through the kernel's passthrough
//! interfaces, beside what sysfs says: for NVMe, the Identify data (the
//! LBA format in use) and the SMART / health log around each step.
//! Read-only commands only; each answers `None` where the target is not
//! such a drive or the kernel refuses.

pub mod ata;
pub mod nvme;
pub mod scsi;
pub mod sg;
