//! What methodic finds out about a block device before it writes to it:
//! what holds it, is mounted from it or swaps on it, the file behind a
//! loop device, and what its first MiB holds ([`signature`]). Read from
//! the kernel (`scan`) and the device; nothing is written.

use std::fs::File;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};

use super::scan::{
    DevNum, backing_devices, beneath, dev_num, entry_names, fs_devices, mount_devices, mount_of, mounts,
    name_of, partitions_of, swap_entries, users_of, written_by,
};
use crate::error::{Error, Result};
use crate::mark::made_by_methodic;
use methodic_results::host::Identity;

/// What methodic found out about a block device before writing to it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct DeviceFacts {
    /// The path as given.
    pub(super) path: PathBuf,
    /// The kernel's name: `loop0`.
    pub(super) name: Option<String>,
    pub(super) serial: Option<String>,
    /// Its partitions' kernel names.
    pub(super) partitions: Vec<String>,
    /// What holds it, or a partition of it.
    pub(super) holders: Vec<Holder>,
    /// File systems on it (or on a partition, or on something built on
    /// them) that are mounted.
    pub(super) mounts: Vec<MountUse>,
    /// Swap on it that is in use.
    pub(super) swaps: Vec<SwapUse>,
    /// The results directory, when its file system is on the device.
    pub(super) results: Option<ResultsUse>,
    /// For a loop device, the file behind it.
    pub(super) backing: Option<Backing>,
    /// What its first MiB holds, if methodic knows the signature.
    pub(super) signature: Option<&'static str>,
    /// Loop devices set up over it (or a partition), and processes that
    /// have it open: `loop3 is set up over it`,
    /// `process 812 (qemu-system-x86) has it open`.
    pub(super) users: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Holder {
    /// The holding device: `dm-0`.
    pub(super) holder: String,
    /// The device it holds: the target or one of its partitions.
    pub(super) of: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct MountUse {
    pub(super) point: PathBuf,
    /// The source mountinfo gives: `/dev/loop0p1`.
    pub(super) source: String,
    /// Mounted from the device itself, not from a partition of it or a
    /// device built on it.
    pub(super) direct: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct SwapUse {
    /// The path /proc/swaps lists.
    pub(super) entry: PathBuf,
    /// The swap area is the device itself.
    pub(super) direct: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ResultsUse {
    pub(super) dir: PathBuf,
    /// Where the file system holding it is mounted.
    pub(super) point: Option<PathBuf>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Backing {
    pub(super) file: PathBuf,
    /// The file is itself a block device.
    pub(super) device: bool,
    /// It carries methodic's scratch mark.
    pub(super) marked: bool,
    /// The mount it is on: its mount point and source.
    pub(super) on: Option<(PathBuf, String)>,
}

impl DeviceFacts {
    /// Reads what the kernel says about the block device `rdev`, opened as
    /// `path`, and its first MiB. Writes nothing.
    pub(super) fn read(
        path: &Path,
        rdev: u64,
        identity: &Identity,
        results: Option<&Path>,
    ) -> Result<DeviceFacts> {
        let mounts = mounts();
        let me = dev_num(rdev);
        let written = written_by(me);
        let on_it = |devs: &[DevNum]| beneath(devs, &mounts).iter().any(|d| written.contains(d));

        let mut in_use: Vec<MountUse> = Vec::new();
        for m in &mounts {
            let devs = mount_devices(m);
            if !devs.is_empty() && on_it(&devs) && !in_use.iter().any(|u| u.point == m.point) {
                in_use.push(MountUse {
                    point: m.point.clone(),
                    source: m.source.clone(),
                    direct: devs.contains(&me),
                });
            }
        }
        let swaps = swap_entries()
            .into_iter()
            .filter_map(|entry| {
                let devs = backing_devices(&entry, &mounts);
                on_it(&devs).then(|| SwapUse { direct: devs == [me], entry })
            })
            .collect();
        let holders = written
            .iter()
            .filter_map(|&d| name_of(d))
            .flat_map(|of| {
                entry_names(&Path::new("/sys/class/block").join(&of).join("holders"))
                    .into_iter()
                    .map(move |holder| Holder { holder, of: of.clone() })
            })
            .collect();
        let results = results.and_then(|dir| {
            let existing = dir.ancestors().find(|a| a.exists())?;
            on_it(&fs_devices(existing, &mounts)).then(|| ResultsUse {
                dir: dir.to_path_buf(),
                point: mount_of(existing, &mounts).map(|m| m.point.clone()),
            })
        });
        let backing = identity.backing_file.as_ref().map(|f| {
            let file = PathBuf::from(f);
            Backing {
                device: std::fs::metadata(&file).is_ok_and(|m| m.file_type().is_block_device()),
                marked: made_by_methodic(&file),
                on: mount_of(&file, &mounts).map(|m| (m.point.clone(), m.source.clone())),
                file,
            }
        });
        let mut partitions: Vec<String> = identity
            .name
            .as_deref()
            .map(partitions_of)
            .unwrap_or_default()
            .into_iter()
            .map(|p| p.0)
            .collect();
        partitions.sort();
        let users = users_of(&written, identity.name.as_deref());
        let mut head = vec![0u8; 1 << 20];
        let file = File::open(path).map_err(|e| Error::io(format!("cannot read {}", path.display()), e))?;
        let n = read_at_most(&file, &mut head);
        Ok(DeviceFacts {
            path: path.to_path_buf(),
            name: identity.name.clone(),
            serial: identity.serial.clone(),
            partitions,
            holders,
            mounts: in_use,
            swaps,
            results,
            backing,
            signature: signature(&head[..n]),
            users,
        })
    }
}

fn read_at_most(file: &File, buf: &mut [u8]) -> usize {
    use std::os::unix::fs::FileExt;
    let mut done = 0;
    while done < buf.len() {
        match file.read_at(&mut buf[done..], done as u64) {
            Ok(0) | Err(_) => break,
            Ok(n) => done += n,
        }
    }
    done
}

/// What the first bytes of a device say it holds, if anything known.
pub(super) fn signature(head: &[u8]) -> Option<&'static str> {
    let at =
        |off: usize, magic: &[u8]| head.len() >= off + magic.len() && &head[off..off + magic.len()] == magic;
    if at(512, b"EFI PART") || at(4096, b"EFI PART") {
        return Some("a GPT partition table");
    }
    if at(0, b"LUKS\xba\xbe") {
        return Some("a LUKS encrypted volume");
    }
    if at(512, b"LABELONE") || at(536, b"LVM2 001") {
        return Some("an LVM physical volume");
    }
    if at(1080, &[0x53, 0xef]) {
        return Some("an ext2/3/4 file system");
    }
    if at(0, b"XFSB") {
        return Some("an XFS file system");
    }
    if at(65600, b"_BHRfS_M") {
        return Some("a btrfs file system");
    }
    if at(4086, b"SWAPSPACE2") || at(4086, b"SWAP-SPACE") {
        return Some("swap space");
    }
    if at(3, b"NTFS    ") {
        return Some("an NTFS file system");
    }
    if at(82, b"FAT32   ") || at(54, b"FAT16   ") || at(54, b"FAT12   ") {
        return Some("a FAT file system");
    }
    // ZFS keeps uberblocks (magic 0x00bab10c) in the labels from 128KiB.
    if head.len() >= 256 << 10
        && head[128 << 10..256 << 10].chunks(1024).any(|c| {
            c.len() >= 8
                && (c[..8] == 0x00ba_b10c_u64.to_le_bytes() || c[..8] == 0x00ba_b10c_u64.to_be_bytes())
        })
    {
        return Some("a ZFS pool");
    }
    if at(510, &[0x55, 0xaa]) && head[446..510].chunks(16).any(|p| p[4] != 0) {
        return Some("an MBR partition table");
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_are_recognised_and_zeros_are_not() {
        let mut head = vec![0u8; 1 << 20];
        assert_eq!(signature(&head), None);
        head[1080] = 0x53;
        head[1081] = 0xef;
        assert_eq!(signature(&head), Some("an ext2/3/4 file system"));
        let mut head = vec![0u8; 1 << 20];
        head[512..520].copy_from_slice(b"EFI PART");
        assert_eq!(signature(&head), Some("a GPT partition table"));
        let mut head = vec![0u8; 1 << 20];
        head[510] = 0x55;
        head[511] = 0xaa;
        assert_eq!(signature(&head), None, "a boot signature without partitions is not a table");
        head[446 + 4] = 0x83;
        assert_eq!(signature(&head), Some("an MBR partition table"));
        let mut head = vec![0u8; 1 << 20];
        head[4086..4096].copy_from_slice(b"SWAPSPACE2");
        assert_eq!(signature(&head), Some("swap space"));
    }
}
