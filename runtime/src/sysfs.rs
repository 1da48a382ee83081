//! What sysfs (and procfs) say, read as text: one reader for the target's
//! identity, the destroy guard and the device counters.

/// A sysfs (or procfs) file's text, trimmed; `None` when missing or empty.
pub(crate) fn sysfs(path: &str) -> Option<String> {
    std::fs::read_to_string(path).ok().map(|s| s.trim().to_string()).filter(|s| !s.is_empty())
}

/// The kernel's name of a block device from its device number.
pub(crate) fn sysfs_name(rdev: u64) -> Option<String> {
    let (major, minor) = (libc::major(rdev), libc::minor(rdev));
    let link = std::fs::read_link(format!("/sys/dev/block/{major}:{minor}")).ok()?;
    link.file_name().map(|n| n.to_string_lossy().into_owned())
}
