//! Targets: a path goes in, an opened file or block device comes out with
//! its capacity, block sizes, O_DIRECT alignment and identity. Checks that
//! a file system supports O_DIRECT when the plan needs it, refuses files of
//! the kernel's own file systems and existing files methodic did not make
//! (unless `--overwrite`), and asks the destroy guard ([`crate::guard`])
//! before it opens a block device to write.

use std::ffi::CString;
use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::mark::made_by_methodic;
use crate::sysfs::{sysfs, sysfs_name};
use methodic_results::units::human;

const BLKGETSIZE64: libc::c_ulong = 0x8008_1272;
const BLKSSZGET: libc::c_ulong = 0x1268;
const BLKPBSZGET: libc::c_ulong = 0x127b;
use methodic_results::host::{Identity, TargetKind};

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
    /// `--destroy`, once for each device: the serials (or paths) the user
    /// agreed to write over.
    pub destroy: Vec<String>,
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

    /// Discards the whole of a block device (BLKDISCARD from 0 to its end).
    pub fn discard_all(&self) -> io::Result<()> {
        let range = [0u64, self.capacity];
        // SAFETY: BLKDISCARD reads two u64s (start, length) from `range`, which lives until the call
        // returns; `self` keeps the descriptor open.
        let rc = unsafe { libc::ioctl(self.file(false).as_raw_fd(), BLKDISCARD as _, range.as_ptr()) };
        if rc == 0 { Ok(()) } else { Err(io::Error::last_os_error()) }
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
            TargetKind::BlockDevice => self
                .identity
                .name
                .as_ref()
                .is_some_and(|n| completes_inline(&format!("/sys/class/block/{n}"))),
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

/// Whether the block device at `dir` (its sysfs folder) completes I/O in
/// the submitting thread: the bio-based RAM disks (zram, brd, pmem) do.
/// blk-mq devices have an mq folder and complete I/O from their queues.
/// Bio-based devices that pass I/O on to others do not complete inline
/// either: an NVMe namespace's multipath head (nvme0n1 over the hidden
/// nvme0c0n1 in Debian's and most distributions' kernels; it has an nsid),
/// device mapper (dm) and md (md) devices, and anything with slaves.
fn completes_inline(dir: &str) -> bool {
    let has = |what: &str| Path::new(&format!("{dir}/{what}")).exists();
    let stacked = std::fs::read_dir(format!("{dir}/slaves")).is_ok_and(|mut d| d.next().is_some());
    !has("mq") && !has("nsid") && !has("dm") && !has("md") && !stacked
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
    // SAFETY: statfs is a plain C struct of integers, for which all zeroes is a valid value.
    let mut st: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: `c` is a NUL-terminated path alive for the call, `st` a writable statfs of the size
    // statfs fills.
    if unsafe { libc::statfs(c.as_ptr(), &mut st) } != 0 {
        return None;
    }
    pseudo_name(st.f_type as u64 as u32)
}

fn pseudo_name(f_type: u32) -> Option<&'static str> {
    PSEUDO_FILE_SYSTEMS.iter().find(|(magic, _)| *magic == f_type).map(|(_, name)| *name)
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
    crate::mark::mark_scratch(&file);
    // Allocate the blocks now, so that the run does not measure the file
    // system growing the file.
    // SAFETY: posix_fallocate takes a descriptor and numbers, no pointer; `file` keeps the
    // descriptor open for the call.
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
        crate::guard::check(path, rdev, &identity, results, &opts.destroy)?;
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
    let mut identity = identity;
    crate::drive::identify::fill_identity(&mut identity, &buffered);
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
    // SAFETY: the callers pass requests that write one u64 (BLKGETSIZE64, say) into `v`, which
    // lives for the call.
    let rc = unsafe { libc::ioctl(fd, req as _, &mut v as *mut u64) };
    if rc < 0 { Err(io::Error::last_os_error()) } else { Ok(v) }
}

fn ioctl_int(fd: i32, req: libc::c_ulong) -> io::Result<i32> {
    let mut v: libc::c_int = 0;
    // SAFETY: the callers pass requests that write one int (BLKSSZGET, say) into `v`, which lives
    // for the call.
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
    // SAFETY: `iov` points at the 4096 bytes of slot 0 of `buf`, alive until the end of this
    // function; preadv2 writes at most that.
    let rc = unsafe { libc::preadv2(fd, &iov, 1, 0, libc::RWF_NOWAIT) };
    rc >= 0 || io::Error::last_os_error().raw_os_error() != Some(libc::EOPNOTSUPP)
}

/// The O_DIRECT offset and memory alignment statx reports (Linux 6.1+).
fn dio_align(path: &Path) -> (Option<u32>, Option<u32>) {
    let Ok(c) = CString::new(path.as_os_str().as_bytes()) else {
        return (None, None);
    };
    // SAFETY: statx is a plain C struct of integers, for which all zeroes is a valid value.
    let mut stx: libc::statx = unsafe { std::mem::zeroed() };
    // SAFETY: `c` is a NUL-terminated path alive for the call, `stx` a writable statx of the size
    // statx fills.
    let rc = unsafe { libc::statx(libc::AT_FDCWD, c.as_ptr(), 0, libc::STATX_DIOALIGN, &mut stx) };
    if rc != 0 || stx.stx_mask & libc::STATX_DIOALIGN == 0 || stx.stx_dio_offset_align == 0 {
        return (None, None);
    }
    (Some(stx.stx_dio_offset_align), Some(stx.stx_dio_mem_align))
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
        // NVMe has the serial as text; SCSI and SATA (through libata's SAT)
        // drives in their Unit Serial Number VPD page.
        serial: sysfs(&format!("{base}/device/serial"))
            .or_else(|| sysfs(&format!("{base}/serial")))
            .or_else(|| std::fs::read(format!("{base}/device/vpd_pg80")).ok().and_then(|p| vpd_serial(&p))),
        firmware: sysfs(&format!("{base}/device/firmware_rev"))
            .or_else(|| sysfs(&format!("{base}/device/rev"))),
        rotational: sysfs(&format!("{base}/queue/rotational")).map(|r| r == "1"),
        scheduler,
        vendor: sysfs(&format!("{base}/device/vendor")),
        write_cache: sysfs(&format!("{base}/queue/write_cache")),
        driver: ["device/driver", "device/device/driver"]
            .iter()
            .map(|p| format!("{base}/{p}"))
            // An NVMe namespace's device is its subsystem, which has no
            // driver: its controllers' (nvme0, ...) do.
            .chain(nvme_controllers(&format!("{base}/device")).map(|c| format!("{c}/device/driver")))
            .find_map(|p| std::fs::read_link(p).ok())
            .and_then(|l| l.file_name().map(|n| n.to_string_lossy().into_owned()))
            // bio-based devices (zram, loop, brd) have no device folder:
            // their name says the driver.
            .or_else(|| Some(name.trim_end_matches(|c: char| c.is_ascii_digit()).to_string())),
        backing_file: sysfs(&format!("{base}/loop/backing_file")),
        lba_format: None,
        drive_capacity: None,
        identity_source: None,
        pcie_link: nvme_controllers(&format!("{base}/device"))
            .find_map(|c| pcie_link(&format!("{c}/device"))),
        file_system: None,
    }
}

/// The serial number in a Unit Serial Number VPD page (SPC-4 7.8.15, page
/// 0x80): the page code, a reserved byte, the page length (big endian),
/// then the serial in ASCII, space-padded.
fn vpd_serial(page: &[u8]) -> Option<String> {
    let (&[_, 0x80, hi, lo], rest) = page.split_first_chunk::<4>()? else { return None };
    let len = usize::from(u16::from_be_bytes([hi, lo])).min(rest.len());
    let serial = String::from_utf8_lossy(&rest[..len]).trim_matches([' ', '\0']).to_string();
    (!serial.is_empty()).then_some(serial)
}

/// A PCI device's link from sysfs: `8.0 GT/s PCIe x4`, with `(capable of
/// 16.0 GT/s PCIe x4)` when its maximum is more; `None` where the kernel
/// does not know it (`Unknown`, width 0: a device on a bus without links).
fn pcie_link(pci: &str) -> Option<String> {
    let read = |what: &str| {
        let speed = sysfs(&format!("{pci}/{what}_link_speed")).filter(|s| s != "Unknown")?;
        let width = sysfs(&format!("{pci}/{what}_link_width")).filter(|w| w != "0" && w != "255")?;
        Some(format!("{speed} x{width}"))
    };
    let current = read("current")?;
    Some(match read("max") {
        Some(max) if max != current => format!("{current} (capable of {max})"),
        _ => current,
    })
}

/// The NVMe controllers (`nvme0`, ...) in a namespace's subsystem folder.
fn nvme_controllers(device: &str) -> impl Iterator<Item = String> + use<> {
    let mut found: Vec<String> = std::fs::read_dir(device)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| {
            n.strip_prefix("nvme").is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
        })
        .map(|n| format!("{device}/{n}"))
        .collect();
    found.sort();
    found.into_iter()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A link slower than the device could run says so; an unknown one is none.
    #[test]
    fn only_ram_disks_complete_inline() {
        let root = std::env::temp_dir().join(format!("methodic-inline-{}", std::process::id()));
        let device = |name: &str, entries: &[&str]| {
            let dir = root.join(name);
            std::fs::create_dir_all(dir.join("slaves")).unwrap();
            for e in entries {
                if let Some(slave) = e.strip_prefix("slaves/") {
                    std::fs::write(dir.join("slaves").join(slave), "").unwrap();
                } else {
                    std::fs::create_dir_all(dir.join(e)).unwrap();
                }
            }
            dir.to_str().unwrap().to_string()
        };
        assert!(completes_inline(&device("zram0", &[])));
        assert!(!completes_inline(&device("nvme0n1-mq", &["mq"])));
        assert!(!completes_inline(&device("nvme0n1", &["nsid"])), "an NVMe multipath head");
        assert!(!completes_inline(&device("dm-0", &["dm", "slaves/sda"])));
        assert!(!completes_inline(&device("md0", &["md"])));
        assert!(!completes_inline(&device("bcache0", &["slaves/sdb"])));
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn a_pcie_link_is_read_as_sysfs_has_it() {
        let dir = std::env::temp_dir().join(format!("methodic-pcie-link-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let write = |f: &str, v: &str| std::fs::write(dir.join(f), format!("{v}\n")).unwrap();
        let d = dir.to_str().unwrap();
        write("current_link_speed", "8.0 GT/s PCIe");
        write("current_link_width", "4");
        write("max_link_speed", "16.0 GT/s PCIe");
        write("max_link_width", "4");
        assert_eq!(pcie_link(d).as_deref(), Some("8.0 GT/s PCIe x4 (capable of 16.0 GT/s PCIe x4)"));
        write("max_link_speed", "8.0 GT/s PCIe");
        assert_eq!(pcie_link(d).as_deref(), Some("8.0 GT/s PCIe x4"));
        write("current_link_speed", "Unknown");
        write("current_link_width", "0");
        assert_eq!(pcie_link(d), None, "a device on a bus without links");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// As the drive lab's SATA (through libata) and SCSI drives give it.
    #[test]
    fn a_unit_serial_number_page_gives_the_serial() {
        let sata = b"\0\x80\0\x14SATASERIAL01        ";
        assert_eq!(vpd_serial(sata).as_deref(), Some("SATASERIAL01"));
        let scsi = b"\0\x80\0\x0cSCSISERIAL01";
        assert_eq!(vpd_serial(scsi).as_deref(), Some("SCSISERIAL01"));
        assert_eq!(vpd_serial(b"\0\x83\0\x0cSCSISERIAL01"), None, "another page");
        assert_eq!(vpd_serial(b"\0\x80\0\x04    "), None, "blank");
        assert_eq!(vpd_serial(b"\0\x80\0\xffAB").as_deref(), Some("AB"), "cut short");
        assert_eq!(vpd_serial(b"\0\x80"), None);
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
            destroy: Vec::new(),
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
