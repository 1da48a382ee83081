//! Targets: a path goes in, an opened file or block device comes out with
//! its capacity, block sizes, O_DIRECT alignment and identity. Checks that
//! a file system supports O_DIRECT when the plan needs it, and guards
//! against destroying data: before the first write it refuses a block
//! device in use (mounted, swap, held, under the root file system or the
//! results directory) whatever the user says, and one that may hold data
//! (a partition table, a file system or volume signature, partitions, a
//! loop device over a file methodic did not make) unless `--destroy` names
//! it.

use std::ffi::CString;
use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::units::human;

const BLKGETSIZE64: libc::c_ulong = 0x8008_1272;
const BLKSSZGET: libc::c_ulong = 0x1268;
const BLKPBSZGET: libc::c_ulong = 0x127b;
pub use methodic_results::host::{Identity, TargetKind};

pub(crate) const BLKDISCARD: libc::c_ulong = 0x1277;
pub(crate) const BLKSECDISCARD: libc::c_ulong = 0x127d;

/// An opened target.
#[derive(Debug)]
pub struct Target {
    pub path: PathBuf,
    pub kind: TargetKind,
    /// Bytes usable.
    pub capacity: u64,
    pub logical_block: u64,
    pub physical_block: u64,
    /// O_DIRECT alignment of offsets, from statx where the kernel says.
    pub dio_offset_align: Option<u32>,
    pub identity: Identity,
    /// methodic created this file (a scratch file): it may delete it.
    pub created: bool,
    /// The kernel can start I/O on it without blocking (RWF_NOWAIT works).
    pub nowait: bool,
    /// I/O completes in the thread that submits it: a bio-based block
    /// device (zram, brd) or a file system without nowait support (tmpfs).
    /// A thread an I/O then beats any asynchronous engine.
    pub inline_completion: bool,
    /// Opened with O_DIRECT, when the plan uses it.
    direct: Option<File>,
    /// Opened through the page cache.
    buffered: File,
}

/// How to open a target.
#[derive(Debug, Clone, Default)]
pub struct OpenOptionsT {
    /// Create the file at this size if it does not exist (scratch files).
    pub create_size: Option<u64>,
    /// The plan uses `io direct` on this target.
    pub need_direct: bool,
    /// The plan writes.
    pub write: bool,
    /// `--destroy`: the serial (or path) the user agreed to write over.
    pub destroy: Option<String>,
    /// `--overwrite`: write over an existing file methodic did not create.
    pub overwrite: bool,
}

impl Target {
    /// Opens `path` as the plan needs it.
    pub fn open(path: &Path, opts: &OpenOptionsT) -> Result<Target> {
        Target::open_with_results(path, opts, None)
    }

    /// Opens `path` as `open` does, and refuses, as well, a block device
    /// that holds `results` (the run's results directory: it need not
    /// exist yet).
    pub fn open_with_results(path: &Path, opts: &OpenOptionsT, results: Option<&Path>) -> Result<Target> {
        // Asked of the file itself (or, for one to create, the folder it
        // goes in), so that a bind mount of /proc or /sys is seen too.
        let on = path.ancestors().find(|p| p.exists()).unwrap_or(path);
        if let Some(fs) = pseudo_file_system(on) {
            let what = format!(
                "{fs}, one of the kernel's own file systems, whose files are the kernel's settings and \
                 state, not data on a device"
            );
            let hint = "give a file on a disk's file system, or a block device; --overwrite and --destroy do \
                        not lift this";
            return Err(if opts.write {
                let reason = format!("it is on {what}; a write there is a command to the kernel");
                Error::Refused { path: path.to_path_buf(), reason, hint: hint.into() }
            } else {
                Error::target(path, format!("is on {what}, so there is nothing to measure")).with_hint(hint)
            });
        }
        let exists = path.exists();
        if !exists {
            let Some(size) = opts.create_size else {
                return Err(Error::target(path, "does not exist").with_hint(
                    "give an existing file or block device, or leave out --target to run on a scratch file",
                ));
            };
            return create_file(path, size, opts);
        }
        let meta =
            std::fs::metadata(path).map_err(|e| Error::io(format!("cannot stat {}", path.display()), e))?;
        if meta.file_type().is_block_device() {
            open_block_device(path, meta.rdev(), opts, results)
        } else if meta.is_file() {
            if opts.write && !opts.overwrite && !made_by_methodic(path) {
                return Err(Error::Refused {
                    path: path.to_path_buf(),
                    reason: "it is an existing file methodic did not create, and the plan writes to it".into(),
                    hint: "pass --overwrite to write over it (what it holds is lost), or leave out --target to run \
                           on a scratch file"
                        .into(),
                });
            }
            open_file(path, meta.len(), false, opts)
        } else {
            Err(Error::target(path, "is neither a regular file nor a block device"))
        }
    }

    /// The file to issue I/O on: O_DIRECT or through the page cache.
    pub fn file(&self, direct: bool) -> &File {
        if direct { self.direct.as_ref().unwrap_or(&self.buffered) } else { &self.buffered }
    }

    pub fn has_direct(&self) -> bool {
        self.direct.is_some()
    }

    /// What O_DIRECT offsets and sizes must be multiples of: statx's
    /// dio_offset_align where the kernel says, else the logical block.
    pub fn direct_align(&self) -> u64 {
        self.dio_offset_align.map_or(self.logical_block, u64::from)
    }

    /// Finds out how the kernel drives the target: whether it can start
    /// I/O without blocking, and whether I/O completes inline.
    fn probed(mut self) -> Target {
        use std::os::unix::io::AsRawFd;
        self.nowait = supports_nowait(self.file(true).as_raw_fd());
        self.inline_completion = match self.kind {
            TargetKind::File => !self.nowait,
            // blk-mq devices have an mq folder in sysfs; bio-based ones, which
            // complete I/O while it is submitted, do not.
            TargetKind::BlockDevice => self
                .identity
                .name
                .as_ref()
                .is_some_and(|n| !Path::new(&format!("/sys/class/block/{n}/mq")).exists()),
        };
        self
    }

    /// Removes a scratch file methodic created.
    pub fn remove_scratch(&self) -> io::Result<()> {
        if self.created && self.kind == TargetKind::File {
            std::fs::remove_file(&self.path)?;
        }
        Ok(())
    }
}

/// The kernel's own file systems (linux/magic.h), by `statfs` f_type: their
/// files are the kernel's state and commands, never a target.
const PSEUDO_FILE_SYSTEMS: &[(u32, &str)] = &[
    (0x9fa0, "procfs"),
    (0x6265_6572, "sysfs"),
    (0x6462_6720, "debugfs"),
    (0x7472_6163, "tracefs"),
    (0x0027_e0eb, "cgroup"),
    (0x6367_7270, "cgroup2"),
    (0x7363_6673, "securityfs"),
    (0x6265_6570, "configfs"),
    (0xcafe_4a11, "bpf"),
    (0x1cd1, "devpts"),
    (0xde5e_81e4, "efivarfs"),
    (0x6165_676c, "pstore"),
    (0x4249_4e4d, "binfmt_misc"),
    (0x6573_5543, "fusectl"),
    (0xf97c_ff8c, "selinuxfs"),
    (0x4341_5d53, "smackfs"),
    (0x1980_0202, "mqueue"),
    (0x6e73_6673, "nsfs"),
];

/// The kernel file system `path` is on, when it is one of
/// [`PSEUDO_FILE_SYSTEMS`]; `None` for any other, or when statfs fails.
fn pseudo_file_system(path: &Path) -> Option<&'static str> {
    let c = CString::new(path.as_os_str().as_bytes()).ok()?;
    let mut st: libc::statfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statfs(c.as_ptr(), &mut st) } != 0 {
        return None;
    }
    pseudo_name(st.f_type as u64 as u32)
}

fn pseudo_name(f_type: u32) -> Option<&'static str> {
    PSEUDO_FILE_SYSTEMS.iter().find(|(magic, _)| *magic == f_type).map(|(_, name)| *name)
}

/// The extended attribute methodic marks its scratch files with.
const MARK: &std::ffi::CStr = c"user.methodic";

/// Whether methodic created this file (it carries the mark).
fn made_by_methodic(path: &Path) -> bool {
    let Ok(c) = CString::new(path.as_os_str().as_bytes()) else { return false };
    let mut buf = [0u8; 16];
    let n = unsafe { libc::getxattr(c.as_ptr(), MARK.as_ptr(), buf.as_mut_ptr().cast(), buf.len()) };
    n == 7 && &buf[..7] == b"scratch"
}

fn open_flags(write: bool) -> OpenOptions {
    let mut o = OpenOptions::new();
    o.read(true).write(write);
    o
}

fn create_file(path: &Path, size: u64, opts: &OpenOptionsT) -> Result<Target> {
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|e| Error::io(format!("cannot create {}", path.display()), e))?;
    // Marked as methodic's, so that a kept scratch file can be a target
    // again without --overwrite (where the file system has user xattrs).
    let _ = unsafe { libc::fsetxattr(file.as_raw_fd(), MARK.as_ptr(), b"scratch".as_ptr().cast(), 7, 0) };
    // Allocate the blocks now, so that the run does not measure the file
    // system growing the file.
    let rc = unsafe { libc::posix_fallocate(file.as_raw_fd(), 0, size as libc::off_t) };
    if rc != 0 {
        let _ = std::fs::remove_file(path);
        let err = io::Error::from_raw_os_error(rc);
        return Err(Error::Unsupported {
            message: format!("cannot allocate {} for {}: {err}", human(size), path.display()),
            hint: Some("free some space, or give a smaller span".to_string()),
        });
    }
    drop(file);
    open_file(path, size, true, opts)
}

fn open_file(path: &Path, size: u64, created: bool, opts: &OpenOptionsT) -> Result<Target> {
    let buffered = open_flags(opts.write)
        .open(path)
        .map_err(|e| Error::io(format!("cannot open {}", path.display()), e))?;
    let direct = if opts.need_direct {
        match open_flags(opts.write).custom_flags(libc::O_DIRECT).open(path) {
            Ok(f) => Some(f),
            Err(e) if e.raw_os_error() == Some(libc::EINVAL) => {
                return Err(Error::target(path, "its file system does not support O_DIRECT (io direct)")
                    .with_hint(
                        "put the target on a file system that supports O_DIRECT (ext4, xfs, btrfs), \
                                or use a methodology with `target { io buffered }`",
                    ));
            }
            Err(e) => {
                return Err(Error::io(format!("cannot open {} with O_DIRECT", path.display()), e));
            }
        }
    } else {
        None
    };
    let (offset_align, _) = dio_align(path);
    let block = buffered.metadata().map(|m| m.blksize()).unwrap_or(4096).max(512);
    Ok(Target {
        path: path.to_path_buf(),
        kind: TargetKind::File,
        capacity: size,
        logical_block: offset_align.map_or(512, u64::from).max(512),
        physical_block: block,
        dio_offset_align: offset_align,
        identity: Identity { file_system: crate::host::file_system(path), ..Identity::default() },
        created,
        nowait: false,
        inline_completion: false,
        direct,
        buffered,
    }
    .probed())
}

fn open_block_device(path: &Path, rdev: u64, opts: &OpenOptionsT, results: Option<&Path>) -> Result<Target> {
    let name = sysfs_name(rdev);
    let identity = identity(name.as_deref());
    if opts.write {
        let facts = DeviceFacts::read(path, rdev, &identity, results)?;
        judge(&facts, opts.destroy.as_deref())?;
    }
    // O_EXCL on a block device fails when the kernel has it in use (mounted,
    // part of a RAID or LVM volume).
    let mut o = open_flags(opts.write);
    if opts.write {
        o.custom_flags(libc::O_EXCL);
    }
    let buffered = o.open(path).map_err(|e| match e.raw_os_error() {
        Some(libc::EBUSY) => Error::Refused {
            path: path.to_path_buf(),
            reason: "the kernel has it in use (mounted, or held by RAID, LVM or device-mapper)".into(),
            hint: "unmount it and stop what holds it first".into(),
        },
        _ => Error::io(format!("cannot open {}", path.display()), e),
    })?;
    let fd = buffered.as_raw_fd();
    let capacity =
        ioctl_u64(fd, BLKGETSIZE64).map_err(|e| Error::io(format!("cannot size {}", path.display()), e))?;
    let logical = ioctl_int(fd, BLKSSZGET).map(|v| v as u64).unwrap_or(512);
    let physical = ioctl_int(fd, BLKPBSZGET).map(|v| v as u64).unwrap_or(logical);
    let direct = if opts.need_direct {
        let mut o = open_flags(opts.write);
        o.custom_flags(libc::O_DIRECT);
        Some(
            o.open(path)
                .map_err(|e| Error::io(format!("cannot open {} with O_DIRECT", path.display()), e))?,
        )
    } else {
        None
    };
    let (offset_align, _) = dio_align(path);
    Ok(Target {
        path: path.to_path_buf(),
        kind: TargetKind::BlockDevice,
        capacity,
        logical_block: logical.max(512),
        physical_block: physical.max(logical),
        dio_offset_align: offset_align,
        identity,
        created: false,
        nowait: false,
        inline_completion: false,
        direct,
        buffered,
    }
    .probed())
}

fn ioctl_u64(fd: i32, req: libc::c_ulong) -> io::Result<u64> {
    let mut v: u64 = 0;
    let rc = unsafe { libc::ioctl(fd, req as _, &mut v as *mut u64) };
    if rc < 0 { Err(io::Error::last_os_error()) } else { Ok(v) }
}

fn ioctl_int(fd: i32, req: libc::c_ulong) -> io::Result<i32> {
    let mut v: libc::c_int = 0;
    let rc = unsafe { libc::ioctl(fd, req as _, &mut v as *mut libc::c_int) };
    if rc < 0 { Err(io::Error::last_os_error()) } else { Ok(v) }
}

/// Whether the kernel can read `fd` without blocking: a read with
/// RWF_NOWAIT fails with EOPNOTSUPP where it cannot (the device or file
/// system has no nowait support), and succeeds or says EAGAIN where it can.
/// Reads the first 4KiB; the data is not used.
fn supports_nowait(fd: i32) -> bool {
    let buf = crate::data::Buffers::new(1, 4096);
    let iov = libc::iovec { iov_base: buf.ptr(0).cast(), iov_len: 4096 };
    let rc = unsafe { libc::preadv2(fd, &iov, 1, 0, libc::RWF_NOWAIT) };
    rc >= 0 || io::Error::last_os_error().raw_os_error() != Some(libc::EOPNOTSUPP)
}

/// The O_DIRECT offset and memory alignment statx reports (Linux 6.1+).
fn dio_align(path: &Path) -> (Option<u32>, Option<u32>) {
    let Ok(c) = CString::new(path.as_os_str().as_bytes()) else {
        return (None, None);
    };
    let mut stx: libc::statx = unsafe { std::mem::zeroed() };
    let rc = unsafe { libc::statx(libc::AT_FDCWD, c.as_ptr(), 0, libc::STATX_DIOALIGN, &mut stx) };
    if rc != 0 || stx.stx_mask & libc::STATX_DIOALIGN == 0 || stx.stx_dio_offset_align == 0 {
        return (None, None);
    }
    (Some(stx.stx_dio_offset_align), Some(stx.stx_dio_mem_align))
}

/// The kernel's name of a block device from its device number.
pub(crate) fn sysfs_name(rdev: u64) -> Option<String> {
    let (major, minor) = (libc::major(rdev), libc::minor(rdev));
    let link = std::fs::read_link(format!("/sys/dev/block/{major}:{minor}")).ok()?;
    link.file_name().map(|n| n.to_string_lossy().into_owned())
}

fn sysfs(path: &str) -> Option<String> {
    std::fs::read_to_string(path).ok().map(|s| s.trim().to_string()).filter(|s| !s.is_empty())
}

fn identity(name: Option<&str>) -> Identity {
    let Some(name) = name else {
        return Identity::default();
    };
    let base = format!("/sys/class/block/{name}");
    let scheduler = sysfs(&format!("{base}/queue/scheduler")).map(|s| {
        // "mq-deadline [none]": the one in brackets is in use.
        s.split_whitespace()
            .find(|w| w.starts_with('['))
            .map_or(s.clone(), |w| w.trim_matches(['[', ']']).to_string())
    });
    Identity {
        name: Some(name.to_string()),
        model: sysfs(&format!("{base}/device/model")),
        serial: sysfs(&format!("{base}/device/serial")).or_else(|| sysfs(&format!("{base}/serial"))),
        firmware: sysfs(&format!("{base}/device/firmware_rev"))
            .or_else(|| sysfs(&format!("{base}/device/rev"))),
        rotational: sysfs(&format!("{base}/queue/rotational")).map(|r| r == "1"),
        scheduler,
        vendor: sysfs(&format!("{base}/device/vendor")),
        write_cache: sysfs(&format!("{base}/queue/write_cache")),
        driver: ["device/driver", "device/device/driver"]
            .iter()
            .find_map(|p| std::fs::read_link(format!("{base}/{p}")).ok())
            .and_then(|l| l.file_name().map(|n| n.to_string_lossy().into_owned()))
            // bio-based devices (zram, loop, brd) have no device folder:
            // their name says the driver.
            .or_else(|| Some(name.trim_end_matches(|c: char| c.is_ascii_digit()).to_string())),
        backing_file: sysfs(&format!("{base}/loop/backing_file")),
        file_system: None,
    }
}

// The destructive-write guard. `DeviceFacts::read` finds out what a block
// device holds and what uses it; `judge` decides from those facts alone, so
// that every refusal can be tested without a real device.
//
// Two kinds of refusal:
// - in use, which no consent lifts: a file system on the device, one of
//   its partitions, or something built on them is mounted (the root file
//   system and the results directory are named as such); swap is on it;
//   something (device-mapper, md, bcache) holds it or a partition.
// - may hold data, which `--destroy` lifts when it names the device: a
//   partition table or a file system or volume signature in the first MiB,
//   partitions, or, for a loop device, a backing file methodic did not
//   make. A loop device writes through to its file, so it is treated like a
//   file target: expected only when the file carries methodic's scratch
//   mark. A loop device over another block device writes over that
//   device, and is in use when that device is.

/// A block device's number: (major, minor).
type DevNum = (u32, u32);

/// What methodic found out about a block device before writing to it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct DeviceFacts {
    /// The path as given.
    path: PathBuf,
    /// The kernel's name: `loop0`.
    name: Option<String>,
    serial: Option<String>,
    /// Its partitions' kernel names.
    partitions: Vec<String>,
    /// What holds it, or a partition of it.
    holders: Vec<Holder>,
    /// File systems on it (or on a partition, or on something built on
    /// them) that are mounted.
    mounts: Vec<MountUse>,
    /// Swap on it that is in use.
    swaps: Vec<SwapUse>,
    /// The results directory, when its file system is on the device.
    results: Option<ResultsUse>,
    /// For a loop device, the file behind it.
    backing: Option<Backing>,
    /// What its first MiB holds, if methodic knows the signature.
    signature: Option<&'static str>,
    /// Loop devices set up over it (or a partition), and processes that
    /// have it open: `loop3 is set up over it`,
    /// `process 812 (qemu-system-x86) has it open`.
    users: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Holder {
    /// The holding device: `dm-0`.
    holder: String,
    /// The device it holds: the target or one of its partitions.
    of: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct MountUse {
    point: PathBuf,
    /// The source mountinfo gives: `/dev/loop0p1`.
    source: String,
    /// Mounted from the device itself, not from a partition of it or a
    /// device built on it.
    direct: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct SwapUse {
    /// The path /proc/swaps lists.
    entry: PathBuf,
    /// The swap area is the device itself.
    direct: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct ResultsUse {
    dir: PathBuf,
    /// Where the file system holding it is mounted.
    point: Option<PathBuf>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Backing {
    file: PathBuf,
    /// The file is itself a block device.
    device: bool,
    /// It carries methodic's scratch mark.
    marked: bool,
    /// The mount it is on: its mount point and source.
    on: Option<(PathBuf, String)>,
}

impl DeviceFacts {
    /// Reads what the kernel says about the block device `rdev`, opened as
    /// `path`, and its first MiB. Writes nothing.
    fn read(path: &Path, rdev: u64, identity: &Identity, results: Option<&Path>) -> Result<DeviceFacts> {
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

    /// What `--destroy` must say: the serial, or the path for a device
    /// without one.
    fn consent(&self) -> String {
        self.serial.clone().unwrap_or_else(|| self.path.display().to_string())
    }

    /// Why the device is in use, and what to do about each.
    fn in_use(&self) -> (Vec<String>, Vec<String>) {
        let (mut why, mut fix) = (Vec::new(), Vec::new());
        let root = Path::new("/");
        if self.mounts.iter().any(|m| m.point == root) {
            why.push("it holds the root file system (/)".to_string());
            fix.push(
                "methodic never writes to the device the running system is on: choose another".to_string(),
            );
        }
        if let Some(r) = &self.results {
            let on = r.point.as_ref().map(|p| format!(" (on the file system mounted on {})", p.display()));
            why.push(format!("it holds the results directory {}{}", r.dir.display(), on.unwrap_or_default()));
            fix.push("give --out a directory on another device".to_string());
        }
        let others: Vec<&MountUse> = self.mounts.iter().filter(|m| m.point != root).collect();
        for m in &others {
            why.push(if m.direct {
                format!("it is mounted on {}", m.point.display())
            } else {
                format!("it holds the file system mounted on {} (from {})", m.point.display(), m.source)
            });
        }
        if !others.is_empty() {
            let cmds: Vec<String> = others.iter().map(|m| format!("umount {}", m.point.display())).collect();
            fix.push(format!("unmount it: {}", cmds.join(", ")));
        }
        for s in &self.swaps {
            why.push(if s.direct {
                "it is in use as swap".to_string()
            } else {
                format!("it holds swap in use ({})", s.entry.display())
            });
        }
        if !self.swaps.is_empty() {
            let cmds: Vec<String> =
                self.swaps.iter().map(|s| format!("swapoff {}", s.entry.display())).collect();
            fix.push(format!("turn the swap off: {}", cmds.join(", ")));
        }
        if !self.users.is_empty() {
            why.extend(self.users.iter().cloned());
            fix.push("stop what uses it (losetup -d, or end the process) first".to_string());
        }
        for h in &self.holders {
            why.push(if Some(&h.of) == self.name.as_ref() {
                format!("it is held by {}", h.holder)
            } else {
                format!("it is held by {} (through {})", h.holder, h.of)
            });
        }
        if !self.holders.is_empty() {
            let names: Vec<&str> = self.holders.iter().map(|h| h.holder.as_str()).collect();
            fix.push(format!("take down what is built on it: {}", names.join(", ")));
        }
        (why, fix)
    }

    /// Why the device may hold data someone wants.
    fn may_hold_data(&self) -> Vec<String> {
        let mut why = Vec::new();
        if let Some(what) = self.signature {
            why.push(format!("it holds {what}"));
        }
        if !self.partitions.is_empty() {
            why.push(format!("it has partitions ({})", self.partitions.join(", ")));
        }
        if let Some(b) = self.backing.as_ref().filter(|b| !b.marked) {
            why.push(if b.device {
                format!("it is a loop device over the block device {}, and writes over it", b.file.display())
            } else {
                let on = b.on.as_ref().map_or_else(
                    || " (on no mount methodic can find)".to_string(),
                    |(point, source)| format!(" (on the file system mounted on {} from {source})", point.display()),
                );
                format!(
                    "it is a loop device over {}{on}, a file methodic did not make, and writes over that file",
                    b.file.display()
                )
            });
        }
        why
    }
}

/// Decides from the facts alone: in use is refused whatever `destroy`
/// says; a wrong `destroy` is refused, naming the right one; a device that
/// may hold data is refused unless `destroy` names it.
fn judge(facts: &DeviceFacts, destroy: Option<&str>) -> Result<()> {
    let refuse = |why: Vec<String>, hint: String| Error::Refused {
        path: facts.path.clone(),
        reason: why.join("; "),
        hint,
    };
    let consent = facts.consent();
    let whose = || match &facts.serial {
        Some(serial) => format!("its serial is {serial}"),
        None => format!("it has no serial, so --destroy takes its path, {}", facts.path.display()),
    };
    let (mut busy, fix) = facts.in_use();
    if !busy.is_empty() {
        // Said as well, so that a second try does not fail on the name.
        if let Some(given) = destroy.filter(|&given| given != consent) {
            busy.push(format!("and --destroy {given} does not name it: {}", whose()));
        }
        return Err(refuse(
            busy,
            format!(
                "{}. --destroy does not lift this, as methodic never writes to a device in use",
                fix.join("; ")
            ),
        ));
    }
    if let Some(given) = destroy {
        if given == consent {
            return Ok(());
        }
        return Err(refuse(
            vec![format!("--destroy {given} does not name this device: {}", whose())],
            format!(
                "check that {} is the device you mean; to write over it, pass --destroy {consent}",
                facts.path.display()
            ),
        ));
    }
    let data = facts.may_hold_data();
    if !data.is_empty() {
        let loop_note = if facts.backing.as_ref().is_some_and(|b| !b.marked && !b.device) {
            ", or give a loop device over one of methodic's scratch files, which carry the user.methodic mark"
        } else {
            ""
        };
        return Err(refuse(
            data,
            format!(
                "methodic writes over its target, and what is on it is lost. If nothing on it matters, \
                 run again with --destroy {consent}{loop_note}"
            ),
        ));
    }
    Ok(())
}

fn dev_num(rdev: u64) -> DevNum {
    (libc::major(rdev), libc::minor(rdev))
}

fn name_of(d: DevNum) -> Option<String> {
    sysfs_name(libc::makedev(d.0, d.1))
}

/// The device number in a sysfs folder's `dev` file ("7:1").
fn sysfs_dev(dir: &Path) -> Option<DevNum> {
    let text = sysfs(&dir.join("dev").to_string_lossy())?;
    let (major, minor) = text.split_once(':')?;
    Some((major.parse().ok()?, minor.parse().ok()?))
}

/// The names in a folder (holders/, slaves/); none if it is missing.
fn entry_names(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .map(|d| d.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default()
}

/// A device's partitions: their kernel names and numbers.
fn partitions_of(name: &str) -> Vec<(String, DevNum)> {
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
fn users_of(devices: &[DevNum], itself: Option<&str>) -> Vec<String> {
    let is_ours = |p: &Path| {
        std::fs::metadata(p)
            .is_ok_and(|m| m.file_type().is_block_device() && devices.contains(&dev_num(m.rdev())))
    };
    let mut out = Vec::new();
    // A loop device over another device writes through to it: that one is
    // the target's own, not a user.
    for name in entry_names(Path::new("/sys/block")).into_iter().filter(|n| Some(n.as_str()) != itself) {
        if let Some(file) = sysfs(&format!("/sys/block/{name}/loop/backing_file")) {
            if is_ours(Path::new(&file)) {
                out.push(format!("{name} is set up over it"));
            }
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
fn written_by(me: DevNum) -> Vec<DevNum> {
    let mut out = Vec::new();
    let mut todo = vec![me];
    while let Some(d) = todo.pop() {
        if out.contains(&d) || out.len() > 256 {
            continue;
        }
        out.push(d);
        let Some(name) = name_of(d) else { continue };
        todo.extend(partitions_of(&name).into_iter().map(|p| p.1));
        if let Some(file) = sysfs(&format!("/sys/class/block/{name}/loop/backing_file")) {
            if let Ok(meta) = std::fs::metadata(&file) {
                if meta.file_type().is_block_device() {
                    todo.push(dev_num(meta.rdev()));
                }
            }
        }
    }
    out
}

/// The devices a set of devices sits on, each once: themselves, what a
/// device-mapper, md or bcache device is built from (slaves/), and what a
/// loop device's file is on.
fn beneath(start: &[DevNum], mounts: &[Mount]) -> Vec<DevNum> {
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
fn backing_devices(path: &Path, mounts: &[Mount]) -> Vec<DevNum> {
    match std::fs::metadata(path) {
        Ok(meta) if meta.file_type().is_block_device() => vec![dev_num(meta.rdev())],
        Ok(_) => fs_devices(path, mounts),
        Err(_) => Vec::new(),
    }
}

/// The block devices of the file system `path` is on; none for tmpfs,
/// overlay and the like. btrfs gives its files an anonymous device number,
/// so the mount's source counts too.
fn fs_devices(path: &Path, mounts: &[Mount]) -> Vec<DevNum> {
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
fn mount_of<'a>(path: &Path, mounts: &'a [Mount]) -> Option<&'a Mount> {
    let st = dev_num(std::fs::metadata(path).ok()?.dev());
    let path = std::fs::canonicalize(path).ok()?;
    mounts
        .iter()
        .filter(|m| m.dev == st && path.starts_with(&m.point))
        .max_by_key(|m| m.point.as_os_str().len())
}

/// One line of /proc/self/mountinfo.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Mount {
    /// `st_dev` of its files: anonymous (major 0) for btrfs, tmpfs, overlay.
    dev: DevNum,
    point: PathBuf,
    fstype: String,
    source: String,
}

fn mounts() -> Vec<Mount> {
    std::fs::read_to_string("/proc/self/mountinfo")
        .map(|text| text.lines().filter_map(parse_mount).collect())
        .unwrap_or_default()
}

/// `36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw`.
fn parse_mount(line: &str) -> Option<Mount> {
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
fn mount_devices(m: &Mount) -> Vec<DevNum> {
    let mut devs = if m.dev.0 != 0 { vec![m.dev] } else { Vec::new() };
    if m.source.starts_with('/') {
        if let Ok(meta) = std::fs::metadata(&m.source) {
            if meta.file_type().is_block_device() && !devs.contains(&dev_num(meta.rdev())) {
                devs.push(dev_num(meta.rdev()));
            }
        }
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
fn swap_entries() -> Vec<PathBuf> {
    std::fs::read_to_string("/proc/swaps")
        .map(|text| text.lines().skip(1).filter_map(|l| l.split_whitespace().next()).map(unescape).collect())
        .unwrap_or_default()
}

/// Undoes the kernel's octal escapes (`\040` for a space) in mountinfo and
/// /proc/swaps.
fn unescape(s: &str) -> PathBuf {
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
pub fn signature(head: &[u8]) -> Option<&'static str> {
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

    /// A made-up disk, sdz, that nothing uses and that holds nothing.
    fn disk() -> DeviceFacts {
        DeviceFacts { path: "/dev/sdz".into(), name: Some("sdz".into()), ..DeviceFacts::default() }
    }

    fn refusal(facts: &DeviceFacts, destroy: Option<&str>) -> (String, String) {
        match judge(facts, destroy) {
            Err(Error::Refused { reason, hint, .. }) => (reason, hint),
            other => panic!("expected a refusal, got {other:?}"),
        }
    }

    #[test]
    fn a_device_that_holds_nothing_and_is_unused_is_written_without_consent() {
        assert!(judge(&disk(), None).is_ok());
        let serial = DeviceFacts { serial: Some("S123".into()), ..disk() };
        assert!(judge(&serial, Some("S123")).is_ok());
    }

    #[test]
    fn the_root_file_system_is_refused_by_name_whatever_destroy_says() {
        let facts = DeviceFacts {
            mounts: vec![MountUse { point: "/".into(), source: "/dev/sdz2".into(), direct: false }],
            partitions: vec!["sdz1".into(), "sdz2".into()],
            ..disk()
        };
        let (why, hint) = refusal(&facts, Some("/dev/sdz"));
        assert!(why.contains("it holds the root file system (/)"), "{why}");
        assert!(!why.contains("mounted on /"), "the root is named once, as the root: {why}");
        assert!(hint.contains("choose another") && hint.contains("--destroy does not lift this"), "{hint}");
    }

    #[test]
    fn a_device_a_process_has_open_or_a_loop_sits_on_is_in_use() {
        let facts = DeviceFacts {
            users: vec!["process 812 (qemu-system-x86) has it open".into(), "loop3 is set up over it".into()],
            ..disk()
        };
        let (why, hint) = refusal(&facts, Some("/dev/sdz"));
        assert!(why.contains("process 812 (qemu-system-x86) has it open") && why.contains("loop3"), "{why}");
        assert!(hint.contains("losetup -d") && hint.contains("--destroy does not lift this"), "{hint}");
        // The scan finds nothing for a device no one has open.
        assert!(users_of(&[(4095, 4095)], None).is_empty());
    }

    #[test]
    fn the_results_directory_is_refused_by_name() {
        let facts = DeviceFacts {
            mounts: vec![MountUse { point: "/mnt/r".into(), source: "/dev/sdz".into(), direct: true }],
            results: Some(ResultsUse { dir: "/mnt/r/out".into(), point: Some("/mnt/r".into()) }),
            ..disk()
        };
        let (why, hint) = refusal(&facts, Some("/dev/sdz"));
        assert!(
            why.contains("it holds the results directory /mnt/r/out (on the file system mounted on /mnt/r)")
        );
        assert!(why.contains("it is mounted on /mnt/r"), "{why}");
        assert!(hint.contains("give --out a directory on another device") && hint.contains("umount /mnt/r"));
    }

    /// No device-mapper, md or bcache on the test machines, so holders are
    /// tested here with made-up facts only.
    #[test]
    fn a_held_device_is_refused_whatever_destroy_says() {
        let facts = DeviceFacts {
            holders: vec![
                Holder { holder: "dm-0".into(), of: "sdz".into() },
                Holder { holder: "md127".into(), of: "sdz1".into() },
            ],
            ..disk()
        };
        let (why, hint) = refusal(&facts, Some("/dev/sdz"));
        assert!(
            why.contains("it is held by dm-0") && why.contains("it is held by md127 (through sdz1)"),
            "{why}"
        );
        assert!(hint.contains("take down what is built on it: dm-0, md127"), "{hint}");
        assert!(hint.contains("--destroy does not lift this"), "{hint}");
    }

    #[test]
    fn swap_on_a_partition_is_refused_whatever_destroy_says() {
        let facts = DeviceFacts {
            swaps: vec![SwapUse { entry: "/dev/sdz2".into(), direct: false }],
            partitions: vec!["sdz2".into()],
            ..disk()
        };
        let (why, hint) = refusal(&facts, Some("/dev/sdz"));
        assert!(why.contains("it holds swap in use (/dev/sdz2)"), "{why}");
        assert!(hint.contains("swapoff /dev/sdz2"), "{hint}");
    }

    #[test]
    fn a_wrong_destroy_is_refused_and_the_right_one_named() {
        let facts = DeviceFacts { serial: Some("S123".into()), ..disk() };
        let (why, hint) = refusal(&facts, Some("/dev/sdz"));
        assert!(why.contains("--destroy /dev/sdz does not name this device: its serial is S123"), "{why}");
        assert!(hint.contains("pass --destroy S123"), "{hint}");
        let (why, hint) = refusal(&disk(), Some("S999"));
        assert!(why.contains("it has no serial, so --destroy takes its path, /dev/sdz"), "{why}");
        assert!(hint.contains("pass --destroy /dev/sdz"), "{hint}");
        // In use as well: both are said, and consent is not offered.
        let swap = SwapUse { entry: "/dev/sdz".into(), direct: true };
        let busy = DeviceFacts { swaps: vec![swap], ..facts };
        let (why, hint) = refusal(&busy, Some("/dev/sdz"));
        assert!(
            why.contains("it is in use as swap; and --destroy /dev/sdz does not name it: its serial is S123")
        );
        assert!(!hint.contains("pass --destroy"), "{hint}");
        let (why, _) = refusal(&busy, Some("S123"));
        assert!(!why.contains("does not name"), "{why}");
    }

    #[test]
    fn data_is_refused_unless_destroy_names_the_device() {
        let facts = DeviceFacts {
            signature: Some("a GPT partition table"),
            partitions: vec!["sdz1".into()],
            serial: Some("S123".into()),
            ..disk()
        };
        let (why, hint) = refusal(&facts, None);
        assert!(why.contains("it holds a GPT partition table; it has partitions (sdz1)"), "{why}");
        assert!(hint.contains("run again with --destroy S123"), "{hint}");
        assert!(judge(&facts, Some("S123")).is_ok());
    }

    #[test]
    fn a_loop_device_is_expected_only_over_a_file_methodic_made() {
        let backing = Backing {
            file: "/srv/disk.img".into(),
            device: false,
            marked: false,
            on: Some(("/srv".into(), "/dev/sdz1".into())),
        };
        let facts = DeviceFacts {
            path: "/dev/loop7".into(),
            name: Some("loop7".into()),
            backing: Some(backing.clone()),
            ..DeviceFacts::default()
        };
        let (why, hint) = refusal(&facts, None);
        assert!(
            why.contains("over /srv/disk.img (on the file system mounted on /srv from /dev/sdz1), a file methodic did not make"),
            "{why}"
        );
        assert!(hint.contains("--destroy /dev/loop7") && hint.contains("user.methodic"), "{hint}");
        assert!(judge(&facts, Some("/dev/loop7")).is_ok());
        let marked =
            DeviceFacts { backing: Some(Backing { marked: true, ..backing.clone() }), ..facts.clone() };
        assert!(judge(&marked, None).is_ok());
        let over_disk = DeviceFacts {
            backing: Some(Backing { file: "/dev/sdz".into(), device: true, on: None, ..backing }),
            ..facts
        };
        let (why, _) = refusal(&over_disk, None);
        assert!(why.contains("a loop device over the block device /dev/sdz"), "{why}");
    }

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

    /// By the file system's type, not the path: /proc and /sys here, and
    /// the temporary folder is neither.
    #[test]
    fn files_of_the_kernels_own_file_systems_are_refused_whatever_overwrite_says() {
        assert_eq!(pseudo_file_system(Path::new("/proc/self/status")), Some("procfs"));
        assert_eq!(pseudo_file_system(Path::new("/sys/kernel")), Some("sysfs"));
        assert_eq!(pseudo_file_system(&std::env::temp_dir()), None);
        assert_eq!(pseudo_name(0x6367_7270), Some("cgroup2"));
        let write = OpenOptionsT { write: true, overwrite: true, ..OpenOptionsT::default() };
        match Target::open(Path::new("/proc/self/comm"), &write) {
            Err(e @ Error::Refused { .. }) => {
                let message = e.to_string();
                assert!(
                    message.starts_with("refusing to write to /proc/self/comm: it is on procfs"),
                    "{message}"
                );
                assert!(e.hint().unwrap().contains("--overwrite and --destroy do not lift this"));
            }
            other => panic!("/proc/self/comm was not refused: {other:?}"),
        }
        // Read only, it is no target either; nor is a file to create there.
        let read = Target::open(Path::new("/proc/self/status"), &OpenOptionsT::default()).unwrap_err();
        assert!(read.to_string().contains("is on procfs"), "{read}");
        let create = OpenOptionsT { create_size: Some(4096), write: true, ..OpenOptionsT::default() };
        let made = Target::open(Path::new("/sys/kernel/methodic-scratch"), &create).unwrap_err();
        assert!(made.to_string().contains("it is on sysfs"), "{made}");
    }

    #[test]
    fn scratch_files_are_created_sized_and_removed() {
        let dir = std::env::temp_dir().join(format!("methodic-target-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("scratch");
        let opts = OpenOptionsT {
            create_size: Some(8 << 20),
            need_direct: false,
            write: true,
            destroy: None,
            overwrite: false,
        };
        let t = Target::open(&path, &opts).unwrap();
        assert_eq!((t.kind, t.capacity, t.created), (TargetKind::File, 8 << 20, true));
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 8 << 20);
        t.remove_scratch().unwrap();
        assert!(!path.exists());
        let missing = Target::open(&path, &OpenOptionsT::default()).unwrap_err();
        assert!(missing.to_string().contains("does not exist"), "{missing}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
