//! What steps do to the machine rather than through an engine: erase a
//! target (secure erase, discard, or hole punching on a file), drop the
//! page cache, and limit the RAM the run and the page cache may use (a
//! memory cgroup where the machine has one, else locked memory). Each says
//! what it actually did, for the results.

use std::fs::{self, File};
use std::io;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

use methodic_compiler::plan::{Bytes, EraseMethod};

use crate::error::{Error, Result};
use crate::host::meminfo;
use crate::region::Region;
use crate::target::{BLKDISCARD, BLKSECDISCARD, Target};
use methodic_results::host::TargetKind;

/// Erases `region` of `target` (the whole device for a secure erase and
/// the methods the drive does itself) and says how. `progress` hears the
/// share done of a drive's own erase.
pub fn erase(
    target: &Target,
    method: EraseMethod,
    region: Region,
    progress: &mut dyn FnMut(f64),
) -> Result<String> {
    let fd = target.file(false).as_raw_fd();
    match target.kind {
        TargetKind::File => {
            // SAFETY: fallocate takes a descriptor and numbers, no pointer; the target keeps `fd`
            // open for the call.
            let rc = unsafe {
                libc::fallocate(
                    fd,
                    libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
                    region.start as libc::off_t,
                    region.len as libc::off_t,
                )
            };
            if rc != 0 {
                let e = io::Error::last_os_error();
                return Err(Error::Unsupported {
                    message: format!("cannot punch holes in {}: {e}", target.path.display()),
                    hint: Some("put the target on a file system that supports hole punching (ext4, xfs, btrfs, tmpfs)".into()),
                });
            }
            Ok(match method {
                EraseMethod::Discard => {
                    format!("punched holes over {} of the file", methodic_results::units::human(region.len))
                }
                m => format!(
                    "punched holes over {} of the file (a file cannot `erase {}`)",
                    methodic_results::units::human(region.len),
                    m.keyword()
                ),
            })
        }
        TargetKind::BlockDevice if method.whole_drive() => {
            let abilities = crate::drive::abilities(target);
            let (way, why) =
                crate::drive::erase::choose(method, &abilities).map_err(|e| Error::Unsupported {
                    message: format!("{}: {e}", target.path.display()),
                    hint: Some(
                        "write the erase this drive supports, or `erase purge` for the strongest it has"
                            .into(),
                    ),
                })?;
            let command = way.command(abilities.interface);
            crate::drive::erase(target, abilities.interface, way, progress).map_err(|e| {
                Error::Unsupported {
                    message: format!("{command} on {} failed: {e}", target.path.display()),
                    hint: None,
                }
            })?;
            Ok(format!(
                "{command} of the whole {} ({}): `erase {}`, {why}",
                if abilities.interface == crate::drive::Interface::None { "device" } else { "drive" },
                methodic_results::units::human(target.capacity),
                way.method().keyword()
            ))
        }
        TargetKind::BlockDevice => {
            let (request, range, name) = match method {
                EraseMethod::Secure => (BLKSECDISCARD, [0, target.capacity], "BLKSECDISCARD (secure erase)"),
                _ => (BLKDISCARD, [region.start, region.len], "BLKDISCARD (discard)"),
            };
            // SAFETY: the discard ioctls read two u64s (start, length) from `range`, which lives
            // until the call returns; the target keeps `fd` open.
            let rc = unsafe { libc::ioctl(fd, request as _, range.as_ptr()) };
            if rc != 0 {
                let e = io::Error::last_os_error();
                let hint = match (method, e.raw_os_error()) {
                    (EraseMethod::Secure, Some(libc::EOPNOTSUPP) | Some(libc::EINVAL)) => {
                        "the kernel has a secure discard for eMMC, virtio and Xen only: for an NVMe, SATA or SCSI \
                         drive write `erase purge` (the strongest erase the drive has), or `erase discard`"
                    }
                    _ => "check that the device supports discard (queue/discard_max_bytes in sysfs)",
                };
                return Err(Error::Unsupported {
                    message: format!("{name} on {} failed: {e}", target.path.display()),
                    hint: Some(hint.into()),
                });
            }
            Ok(format!("{name} of {}", methodic_results::units::human(range[1])))
        }
    }
}

/// Drops the page cache of the targets, and the system's when root. Says
/// what was done, and what failed.
pub fn drop_caches(targets: &[Target]) -> Vec<String> {
    let mut done = Vec::new();
    for t in targets {
        drop_file_cache(&t.path, t.file(false), &mut done);
    }
    // SAFETY: sync takes no arguments and cannot fail.
    unsafe { libc::sync() };
    match fs::write("/proc/sys/vm/drop_caches", "3") {
        Ok(()) => done.push("sync, then 3 written to /proc/sys/vm/drop_caches".to_string()),
        Err(e) => done.push(format!("system page cache not dropped ({e}; needs root)")),
    }
    done
}

/// Writes out `file`'s dirty pages and drops its cached ones, saying so in
/// `done`. A sync that fails (EIO on write-back) is said: the pages it
/// could not write stay dirty, so they stay in the page cache, and what
/// comes next may read them from RAM.
fn drop_file_cache(path: &Path, file: &File, done: &mut Vec<String>) {
    if let Err(e) = file.sync_data() {
        done.push(format!(
            "sync of {} failed ({e}): its unwritten pages stay in the page cache",
            path.display()
        ));
    }
    // SAFETY: posix_fadvise takes a descriptor and numbers, no pointer; `file` keeps the descriptor
    // open for the call.
    match unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) } {
        0 => done.push(format!("fadvise(DONTNEED) on {}", path.display())),
        rc => done.push(format!(
            "fadvise(DONTNEED) on {} failed ({}): its pages were not dropped",
            path.display(),
            std::io::Error::from_raw_os_error(rc)
        )),
    }
}

/// Bytes free to an unprivileged writer on the file system holding `path`
/// (or, for a path not made yet, the nearest folder above it), and whether
/// it is mounted read-only; `None` when statvfs cannot say.
pub fn free_bytes(path: &std::path::Path) -> Option<(Bytes, bool)> {
    use std::os::unix::ffi::OsStrExt;
    let existing = path.ancestors().find(|p| p.exists()).unwrap_or(std::path::Path::new("."));
    let existing = if existing.as_os_str().is_empty() { std::path::Path::new(".") } else { existing };
    let c = std::ffi::CString::new(existing.as_os_str().as_bytes()).ok()?;
    // SAFETY: statvfs is a plain C struct of integers, for which all zeroes is a valid value.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: `c` is a NUL-terminated path alive for the call, `st` a writable statvfs of the size
    // statvfs fills.
    (unsafe { libc::statvfs(c.as_ptr(), &mut st) } == 0)
        .then(|| (Bytes(st.f_bavail as u64 * st.f_frsize as u64), st.f_flag & libc::ST_RDONLY != 0))
}

/// A RAM limit in force; lifted when dropped.
#[derive(Debug)]
pub struct RamLimit {
    pub limit: Bytes,
    /// What was done, for the results.
    pub method: String,
    cgroup: Option<Cgroup>,
    locked: Option<Locked>,
}

#[derive(Debug)]
struct Cgroup {
    path: PathBuf,
    /// Where the process was before, to move it back.
    home: PathBuf,
}

#[derive(Debug)]
struct Locked {
    ptr: *mut libc::c_void,
    len: usize,
}

// SAFETY: the locked mapping is this struct's alone and is only touched
// to unmap it, which any thread may do.
unsafe impl Send for Locked {}

/// Leaves `limit` bytes of memory usable by this process and the page
/// cache it causes: a memory cgroup (v1) where the machine has one, else
/// all but `limit` of the available memory locked away.
pub fn limit_ram(limit: Bytes) -> Result<RamLimit> {
    let (total, available) = meminfo();
    if total > 0 && limit.0 >= total {
        return Ok(RamLimit {
            limit,
            method: format!("not needed: the machine has {} in all", methodic_results::units::human(total)),
            cgroup: None,
            locked: None,
        });
    }
    match cgroup_v1(limit.0) {
        Ok(cg) => {
            return Ok(RamLimit {
                limit,
                method: format!("memory cgroup {} with memory.limit_in_bytes {}", cg.path.display(), limit.0),
                cgroup: Some(cg),
                locked: None,
            });
        }
        Err(_) if available <= limit.0 => {
            return Ok(RamLimit {
                limit,
                method: format!("not needed: {} available", methodic_results::units::human(available)),
                cgroup: None,
                locked: None,
            });
        }
        Err(_) => {}
    }
    let len = (available - limit.0) as usize;
    // SAFETY: an anonymous private mapping at no fixed address: mmap reads none of our memory, and
    // MAP_FAILED is checked below.
    let ptr = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_POPULATE | libc::MAP_LOCKED,
            -1,
            0,
        )
    };
    if ptr == libc::MAP_FAILED {
        let e = io::Error::last_os_error();
        return Err(Error::Unsupported {
            message: format!(
                "cannot limit RAM to {}: no memory cgroup, and locking memory failed: {e}",
                methodic_results::units::human(limit.0)
            ),
            hint: Some("run as root, or on a machine with the cgroup memory controller".into()),
        });
    }
    Ok(RamLimit {
        limit,
        method: format!(
            "locked {} of memory away, leaving {}",
            methodic_results::units::human(len as u64),
            methodic_results::units::human(limit.0)
        ),
        cgroup: None,
        locked: Some(Locked { ptr, len }),
    })
}

fn cgroup_v1(limit: u64) -> io::Result<Cgroup> {
    let root = PathBuf::from("/sys/fs/cgroup/memory");
    if !root.join("memory.limit_in_bytes").exists() {
        return Err(io::Error::other("no cgroup v1 memory controller"));
    }
    let own = fs::read_to_string("/proc/self/cgroup")?;
    let rel = own
        .lines()
        .find_map(|l| {
            let mut parts = l.splitn(3, ':');
            let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
            controllers.split(',').any(|c| c == "memory").then(|| path.trim_start_matches('/').to_string())
        })
        .unwrap_or_default();
    let home = root.join(rel);
    let path = root.join(format!("methodic-{}", std::process::id()));
    fs::create_dir_all(&path)?;
    let result = (|| {
        fs::write(path.join("memory.limit_in_bytes"), limit.to_string())?;
        fs::write(path.join("cgroup.procs"), std::process::id().to_string())
    })();
    if let Err(e) = result {
        let _ = fs::remove_dir(&path);
        return Err(e);
    }
    Ok(Cgroup { path, home })
}

impl Drop for RamLimit {
    fn drop(&mut self) {
        if let Some(cg) = &self.cgroup {
            let _ = fs::write(cg.home.join("cgroup.procs"), std::process::id().to_string());
            let _ = fs::remove_dir(&cg.path);
        }
        if let Some(l) = &self.locked {
            // SAFETY: `l.ptr` and `l.len` are the mapping mmap returned, unmapped once, here, with
            // nothing referring to it.
            unsafe { libc::munmap(l.ptr, l.len) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::target::OpenOptionsT;

    /// /dev/null cannot be synced (EINVAL) nor advised (ESPIPE): both
    /// are said, where they used to be dropped without a word.
    #[test]
    fn a_sync_or_fadvise_that_fails_is_said() {
        let f = File::open("/dev/null").unwrap();
        let mut done = Vec::new();
        drop_file_cache(Path::new("/dev/null"), &f, &mut done);
        assert!(done[0].starts_with("sync of /dev/null failed (Invalid argument"), "{done:?}");
        assert!(done[0].ends_with("its unwritten pages stay in the page cache"), "{done:?}");
        assert!(done.iter().any(|d| d.starts_with("fadvise(DONTNEED) on /dev/null")), "{done:?}");
        let scratch = std::env::temp_dir().join(format!("methodic-drop-{}", std::process::id()));
        fs::write(&scratch, [1u8; 4096]).unwrap();
        let mut done = Vec::new();
        drop_file_cache(&scratch, &File::open(&scratch).unwrap(), &mut done);
        assert_eq!(done, [format!("fadvise(DONTNEED) on {}", scratch.display())]);
        fs::remove_file(&scratch).unwrap();
    }

    #[test]
    fn meminfo_reads_sizes() {
        let (total, available) = meminfo();
        assert!(total > 0 && available > 0 && available <= total);
    }

    #[test]
    fn erasing_a_file_punches_holes() {
        use std::io::Write;
        let dir = std::env::temp_dir().join(format!("methodic-erase-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("f");
        let mut f = fs::File::create(&path).unwrap();
        f.write_all(&vec![7u8; 1 << 20]).unwrap();
        f.sync_all().unwrap();
        let t = Target::open(&path, &OpenOptionsT { write: true, overwrite: true, ..Default::default() })
            .unwrap();
        let how = erase(&t, EraseMethod::Discard, Region { start: 0, len: 1 << 20 }, &mut |_| {}).unwrap();
        assert!(how.contains("punched holes"), "{how}");
        let data = fs::read(&path).unwrap();
        assert_eq!(data.len(), 1 << 20);
        assert!(data.iter().all(|&b| b == 0));
        fs::remove_dir_all(&dir).unwrap();
    }
}
