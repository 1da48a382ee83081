//! What the kernel says about block devices, for the guard: device
//! numbers and names, partitions, holders' folders, loop devices and what
//! they sit on, processes with a device open, mounts (mountinfo) and swap
//! (/proc/swaps). Reads /sys and /proc; writes nothing.

use std::os::unix::ffi::OsStringExt;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

use crate::sysfs::{sysfs, sysfs_name};

/// A block device's number: (major, minor).
pub(super) type DevNum = (u32, u32);

pub(super) fn dev_num(rdev: u64) -> DevNum {
    (libc::major(rdev), libc::minor(rdev))
}

pub(super) fn name_of(d: DevNum) -> Option<String> {
    sysfs_name(libc::makedev(d.0, d.1))
}

/// The device number in a sysfs folder's `dev` file ("7:1").
pub(super) fn sysfs_dev(dir: &Path) -> Option<DevNum> {
    let text = sysfs(&dir.join("dev").to_string_lossy())?;
    let (major, minor) = text.split_once(':')?;
    Some((major.parse().ok()?, minor.parse().ok()?))
}

/// The names in a folder (holders/, slaves/); none if it is missing.
pub(super) fn entry_names(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .map(|d| d.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default()
}

/// A device's partitions: their kernel names and numbers.
pub(super) fn partitions_of(name: &str) -> Vec<(String, DevNum)> {
    let Ok(entries) = std::fs::read_dir(format!("/sys/class/block/{name}")) else { return Vec::new() };
    entries
        .flatten()
        .filter(|e| e.path().join("partition").exists())
        .filter_map(|e| Some((e.file_name().to_string_lossy().into_owned(), sysfs_dev(&e.path())?)))
        .collect()
}

/// Loop devices over any of `devices`, and other processes that have one
/// of them open (a VM on the raw disk, a database, a dd): O_EXCL catches
/// only exclusive holders.
pub(super) fn users_of(devices: &[DevNum], itself: Option<&str>) -> Vec<String> {
    let is_ours = |p: &Path| {
        std::fs::metadata(p)
            .is_ok_and(|m| m.file_type().is_block_device() && devices.contains(&dev_num(m.rdev())))
    };
    let mut out = Vec::new();
    // A loop device over another device writes through to it: that one is
    // the target's own, not a user.
    for name in entry_names(Path::new("/sys/block")).into_iter().filter(|n| Some(n.as_str()) != itself) {
        if let Some(file) = sysfs(&format!("/sys/block/{name}/loop/backing_file"))
            && is_ours(Path::new(&file))
        {
            out.push(format!("{name} is set up over it"));
        }
    }
    let me = std::process::id().to_string();
    for pid in entry_names(Path::new("/proc")) {
        if !pid.bytes().all(|b| b.is_ascii_digit()) || pid == me {
            continue;
        }
        let fds = Path::new("/proc").join(&pid).join("fd");
        let open = entry_names(&fds).iter().any(|fd| {
            let link = fds.join(fd);
            std::fs::read_link(&link).is_ok_and(|t| t.starts_with("/dev")) && is_ours(&link)
        });
        if open {
            let comm = sysfs(&format!("/proc/{pid}/comm")).unwrap_or_default();
            out.push(format!("process {pid} ({comm}) has it open"));
        }
    }
    out
}

/// What writing to a device writes over: the device, its partitions and,
/// for a loop device over another block device, what writing that one
/// writes over.
pub(super) fn written_by(me: DevNum) -> Vec<DevNum> {
    let mut out = Vec::new();
    let mut todo = vec![me];
    while let Some(d) = todo.pop() {
        if out.contains(&d) || out.len() > 256 {
            continue;
        }
        out.push(d);
        let Some(name) = name_of(d) else { continue };
        todo.extend(partitions_of(&name).into_iter().map(|p| p.1));
        if let Some(file) = sysfs(&format!("/sys/class/block/{name}/loop/backing_file"))
            && let Ok(meta) = std::fs::metadata(&file)
            && meta.file_type().is_block_device()
        {
            todo.push(dev_num(meta.rdev()));
        }
    }
    out
}

/// The devices a set of devices sits on, each once: themselves, what a
/// device-mapper, md or bcache device is built from (slaves/), and what a
/// loop device's file is on.
pub(super) fn beneath(start: &[DevNum], mounts: &[Mount]) -> Vec<DevNum> {
    let mut seen = Vec::new();
    let mut todo = start.to_vec();
    while let Some(d) = todo.pop() {
        if seen.contains(&d) || seen.len() > 256 {
            continue;
        }
        seen.push(d);
        let Some(name) = name_of(d) else { continue };
        let base = Path::new("/sys/class/block").join(&name);
        todo.extend(
            entry_names(&base.join("slaves")).iter().filter_map(|s| sysfs_dev(&base.join("slaves").join(s))),
        );
        if let Some(file) = sysfs(&base.join("loop/backing_file").to_string_lossy()) {
            todo.extend(backing_devices(Path::new(&file), mounts));
        }
    }
    seen
}

/// The devices under a path: a block device itself, or the devices of the
/// file system a file is on.
pub(super) fn backing_devices(path: &Path, mounts: &[Mount]) -> Vec<DevNum> {
    match std::fs::metadata(path) {
        Ok(meta) if meta.file_type().is_block_device() => vec![dev_num(meta.rdev())],
        Ok(_) => fs_devices(path, mounts),
        Err(_) => Vec::new(),
    }
}

/// The block devices of the file system `path` is on; none for tmpfs,
/// overlay and the like. btrfs gives its files an anonymous device number,
/// so the mount's source counts too.
pub(super) fn fs_devices(path: &Path, mounts: &[Mount]) -> Vec<DevNum> {
    let Ok(meta) = std::fs::metadata(path) else { return Vec::new() };
    let st = dev_num(meta.dev());
    let mut devs = if st.0 != 0 { vec![st] } else { Vec::new() };
    for m in mounts.iter().filter(|m| m.dev == st) {
        for d in mount_devices(m) {
            if !devs.contains(&d) {
                devs.push(d);
            }
        }
    }
    devs
}

/// The mount `path` is on: the deepest mount point over it on its device.
pub(super) fn mount_of<'a>(path: &Path, mounts: &'a [Mount]) -> Option<&'a Mount> {
    let st = dev_num(std::fs::metadata(path).ok()?.dev());
    let path = std::fs::canonicalize(path).ok()?;
    mounts
        .iter()
        .filter(|m| m.dev == st && path.starts_with(&m.point))
        .max_by_key(|m| m.point.as_os_str().len())
}

/// One line of /proc/self/mountinfo.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Mount {
    /// `st_dev` of its files: anonymous (major 0) for btrfs, tmpfs, overlay.
    pub(super) dev: DevNum,
    pub(super) point: PathBuf,
    pub(super) fstype: String,
    pub(super) source: String,
}

pub(super) fn mounts() -> Vec<Mount> {
    std::fs::read_to_string("/proc/self/mountinfo")
        .map(|text| text.lines().filter_map(parse_mount).collect())
        .unwrap_or_default()
}

/// `36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw`.
pub(super) fn parse_mount(line: &str) -> Option<Mount> {
    let (head, tail) = line.split_once(" - ")?;
    let head: Vec<&str> = head.split(' ').collect();
    let (major, minor) = head.get(2)?.split_once(':')?;
    let mut tail = tail.split(' ');
    let fstype = tail.next()?.to_string();
    let source = unescape(tail.next()?).to_string_lossy().into_owned();
    Some(Mount {
        dev: (major.parse().ok()?, minor.parse().ok()?),
        point: unescape(head.get(4)?),
        fstype,
        source,
    })
}

/// The block devices a mounted file system is on: the number mountinfo
/// gives (unless anonymous), its source device, and for btrfs every device
/// of the file system.
pub(super) fn mount_devices(m: &Mount) -> Vec<DevNum> {
    let mut devs = if m.dev.0 != 0 { vec![m.dev] } else { Vec::new() };
    if m.source.starts_with('/')
        && let Ok(meta) = std::fs::metadata(&m.source)
        && meta.file_type().is_block_device()
        && !devs.contains(&dev_num(meta.rdev()))
    {
        devs.push(dev_num(meta.rdev()));
    }
    if m.fstype == "btrfs" {
        // /sys/fs/btrfs/UUID/devices/ lists every device of each file system.
        let names: Vec<String> = devs.iter().filter_map(|&d| name_of(d)).collect();
        let Ok(all) = std::fs::read_dir("/sys/fs/btrfs") else { return devs };
        for fs in all.flatten() {
            let dir = fs.path().join("devices");
            let members = entry_names(&dir);
            if members.iter().any(|n| names.contains(n)) {
                for d in members.iter().filter_map(|n| sysfs_dev(&dir.join(n))) {
                    if !devs.contains(&d) {
                        devs.push(d);
                    }
                }
            }
        }
    }
    devs
}

/// The paths /proc/swaps lists.
pub(super) fn swap_entries() -> Vec<PathBuf> {
    std::fs::read_to_string("/proc/swaps")
        .map(|text| text.lines().skip(1).filter_map(|l| l.split_whitespace().next()).map(unescape).collect())
        .unwrap_or_default()
}

/// Undoes the kernel's octal escapes (`\040` for a space) in mountinfo and
/// /proc/swaps.
pub(super) fn unescape(s: &str) -> PathBuf {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let octal = b.get(i + 1..i + 4).filter(|d| d.iter().all(|c| (b'0'..=b'7').contains(c)));
        match octal {
            Some(d) if b[i] == b'\\' => {
                out.push(d.iter().fold(0u16, |v, c| v * 8 + u16::from(c - b'0')) as u8);
                i += 4;
            }
            _ => {
                out.push(b[i]);
                i += 1;
            }
        }
    }
    PathBuf::from(std::ffi::OsString::from_vec(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mountinfo_lines_and_escapes_are_read() {
        let m = parse_mount(
            "43 27 0:39 / /tmp/a\\040b rw,noatime shared:1 - btrfs /dev/loop0 rw,space_cache=v2,subvolid=5",
        )
        .unwrap();
        assert_eq!(m.dev, (0, 39));
        assert_eq!(m.point, PathBuf::from("/tmp/a b"));
        assert_eq!((m.fstype.as_str(), m.source.as_str()), ("btrfs", "/dev/loop0"));
        assert_eq!(unescape("/swap\\011file\\134x"), PathBuf::from("/swap\tfile\\x"));
        assert_eq!(unescape("/a\\9"), PathBuf::from("/a\\9"), "not an octal escape");
        assert!(parse_mount("garbage").is_none());
    }
}
