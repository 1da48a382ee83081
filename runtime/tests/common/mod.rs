//! Setup the device tests share: the lock that keeps two tests (or two
//! test binaries) off the devices at once, and loop devices, zram, mounts
//! and swap that the test makes itself and that are put back when dropped,
//! however the test ends. Every device helper borrows the lock, so that it
//! is undone before the lock goes. A helper that cannot make what it makes
//! (not root, a tool or a kernel feature missing) gives `None` after
//! [`skip`]: under CI=true that fails the test instead, naming what is
//! missing.

// Each test binary uses a part of this.
#![allow(dead_code)]

mod skip;
mod temp;
#[allow(unused_imports)]
pub use skip::{TOOLS, package_of, require_root, require_tool, skip, skip_tool, under_ci};
#[allow(unused_imports)]
pub use temp::{temp_dir, temp_name, temp_path};

use std::ffi::{CString, OsStr};
use std::fs::{self, File};
use std::marker::PhantomData;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

/// Held while a test uses devices.
pub struct DeviceLock(#[allow(dead_code)] File);

/// Takes the device lock, or [`skip`]s and gives None: only root can set
/// up devices.
#[track_caller]
pub fn devices() -> Option<DeviceLock> {
    if !require_root("setting up a loop device or zram0") {
        return None;
    }
    let f = File::create("/tmp/methodic-test-devices.lock").expect("lock file");
    // SAFETY: flock takes a descriptor and flags, no pointer; `f` keeps the descriptor open (and
    // the lock held) until the DeviceLock drops.
    unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX) };
    Some(DeviceLock(f))
}

/// Runs a tool the test needs. None, after [`skip_tool`], when it is not
/// installed (.ci/run installs it); a tool that runs and fails fails the
/// test.
#[track_caller]
pub fn tool(cmd: &str, args: &[&OsStr]) -> Option<()> {
    tool_in(cmd, args, None)
}

/// `tool` with `input` on its standard input.
#[track_caller]
pub fn tool_in(cmd: &str, args: &[&OsStr], input: Option<&str>) -> Option<()> {
    use std::io::Write;
    use std::process::Stdio;
    let mut c = Command::new(cmd);
    c.args(args).env("LVM_SUPPRESS_FD_WARNINGS", "1").stdout(Stdio::piped()).stderr(Stdio::piped());
    c.stdin(if input.is_some() { Stdio::piped() } else { Stdio::null() });
    let mut child = match c.spawn() {
        Ok(child) => child,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            skip_tool(cmd);
            return None;
        }
        Err(e) => panic!("cannot run {cmd}: {e}"),
    };
    if let Some(text) = input {
        child.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{cmd} {:?} failed: {}{}",
        args,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    Some(())
}

/// A temporary path for `what`, another each call.
fn unique(what: &str) -> PathBuf {
    static N: AtomicU32 = AtomicU32::new(0);
    let n = N.fetch_add(1, Ordering::Relaxed);
    temp_path(&format!("{what}-{n}"))
}

/// Sets methodic's scratch mark on a file, as methodic does on the scratch
/// files it makes. False where the file system has no user xattrs.
pub fn mark(path: &Path) -> bool {
    let c = CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: `c` and the name are NUL-terminated strings alive for the call; the value is 7 bytes,
    // as the length says.
    let rc =
        unsafe { libc::setxattr(c.as_ptr(), c"user.methodic".as_ptr(), b"scratch".as_ptr().cast(), 7, 0) };
    rc == 0
}

/// What a loop device is made over.
#[derive(Debug, Clone, Copy)]
pub struct LoopSpec {
    pub size: u64,
    /// The backing file carries methodic's scratch mark.
    pub marked: bool,
    /// The kernel scans it for partitions (losetup -P).
    pub partscan: bool,
    /// The backing file is in RAM (/dev/shm), so that the device runs as
    /// fast as memory whatever else the machine's disk is doing: for tests
    /// whose device speed is set by a throttle alone.
    pub in_ram: bool,
}

impl LoopSpec {
    /// A loop device over a scratch file methodic could have made.
    pub fn marked(size: u64) -> LoopSpec {
        LoopSpec { size, marked: true, partscan: false, in_ram: false }
    }

    /// A marked file in RAM (see [`LoopSpec::in_ram`]).
    pub fn in_ram(size: u64) -> LoopSpec {
        LoopSpec { in_ram: true, ..LoopSpec::marked(size) }
    }
}

/// A loop device over a sparse file in the temporary directory, with
/// direct I/O; detached and its file removed when dropped.
pub struct Loop<'a> {
    pub dev: PathBuf,
    pub backing: PathBuf,
    /// The backing file is the test's, to remove.
    owns_backing: bool,
    _lock: PhantomData<&'a DeviceLock>,
}

impl<'a> Loop<'a> {
    /// A loop device over a marked file of `size` bytes.
    #[track_caller]
    pub fn setup(lock: &'a DeviceLock, size: u64) -> Option<Loop<'a>> {
        Loop::with(lock, LoopSpec::marked(size))
    }

    #[track_caller]
    pub fn with(_lock: &'a DeviceLock, spec: LoopSpec) -> Option<Loop<'a>> {
        let backing = unique("loop").with_extension("img");
        let backing = match spec.in_ram {
            true => Path::new("/dev/shm").join(backing.file_name().unwrap()),
            false => backing,
        };
        File::create(&backing).unwrap().set_len(spec.size).unwrap();
        if spec.marked && !mark(&backing) {
            let _ = fs::remove_file(&backing);
            skip(
                &format!("{} takes no user xattrs, so it cannot carry methodic's mark", backing.display()),
                "set TMPDIR to a folder on ext4, xfs or btrfs",
            );
            return None;
        }
        let mut args = vec!["--direct-io=on", "-f", "--show"];
        if spec.partscan {
            args.push("-P");
        }
        let made = attach(&args, &backing);
        if made.is_none() {
            let _ = fs::remove_file(&backing);
        }
        Some(Loop { dev: made?, backing, owns_backing: true, _lock: PhantomData })
    }

    /// A loop device over another block device.
    #[track_caller]
    pub fn over(_lock: &'a DeviceLock, dev: &Path) -> Option<Loop<'a>> {
        let made = attach(&["-f", "--show"], dev)?;
        Some(Loop { dev: made, backing: dev.to_path_buf(), owns_backing: false, _lock: PhantomData })
    }

    /// The kernel's name: `loop3`.
    pub fn name(&self) -> String {
        self.dev.file_name().unwrap().to_string_lossy().into_owned()
    }

    /// The path of partition `n`: `/dev/loop3p1`.
    pub fn partition(&self, n: u32) -> PathBuf {
        PathBuf::from(format!("{}p{n}", self.dev.display()))
    }
}

/// `losetup ARGS FILE`: the loop device made, or None after [`skip`].
#[track_caller]
fn attach(args: &[&str], file: &Path) -> Option<PathBuf> {
    match Command::new("losetup").args(args).arg(file).output() {
        Ok(out) if out.status.success() => Some(PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())),
        Ok(out) => {
            let why = String::from_utf8_lossy(&out.stderr);
            skip(
                &format!("no loop device could be set up (losetup: {})", why.trim()),
                "load the loop module (modprobe loop), or free a loop device (losetup -D)",
            );
            None
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            skip_tool("losetup");
            None
        }
        Err(e) => panic!("cannot run losetup: {e}"),
    }
}

impl Drop for Loop<'_> {
    fn drop(&mut self) {
        // Partitions added by partx or addpart outlive the loop device (the
        // kernel drops them at detach only with partscan on): they go first.
        let name = self.name();
        let parts = fs::read_dir(format!("/sys/class/block/{name}")).into_iter().flatten().flatten();
        for n in parts.filter_map(|e| fs::read_to_string(e.path().join("partition")).ok()) {
            let _ = Command::new("delpart").arg(&self.dev).arg(n.trim()).status();
        }
        retry(|| Command::new("losetup").arg("-d").arg(&self.dev).status().is_ok_and(|s| s.success()));
        if self.owns_backing {
            let _ = fs::remove_file(&self.backing);
        }
    }
}

/// zram0 at a size the test gives, reset when dropped.
pub struct Zram<'a> {
    _lock: PhantomData<&'a DeviceLock>,
}

impl<'a> Zram<'a> {
    #[track_caller]
    pub fn setup(_lock: &'a DeviceLock, size: u64) -> Option<Zram<'a>> {
        let sys = Path::new("/sys/block/zram0");
        if !sys.exists() {
            skip("this machine has no zram0", "load the zram module: modprobe zram (.ci/run does)");
            return None;
        }
        let now = fs::read_to_string(sys.join("disksize")).unwrap_or_default();
        if now.trim() != "0" {
            skip(
                &format!("zram0 is in use (disksize {}), and is left alone", now.trim()),
                "once nothing uses it, reset it: zramctl --reset /dev/zram0",
            );
            return None;
        }
        fs::write(sys.join("disksize"), size.to_string()).expect("zram0 disksize");
        Some(Zram { _lock: PhantomData })
    }

    pub fn path(&self) -> PathBuf {
        PathBuf::from("/dev/zram0")
    }
}

impl Drop for Zram<'_> {
    fn drop(&mut self) {
        // The kernel may hold the device a moment after the last close.
        if !retry(|| fs::write("/sys/block/zram0/reset", "1").is_ok()) {
            eprintln!("warning: zram0 could not be reset");
        }
    }
}

/// A file system mounted on a new folder in the temporary directory;
/// unmounted, and the folder removed, when dropped.
pub struct Mounted {
    pub point: PathBuf,
}

impl Mounted {
    #[track_caller]
    pub fn new(dev: &Path, options: &str) -> Option<Mounted> {
        let point = unique("mnt");
        fs::create_dir_all(&point).unwrap();
        let mounted = Mounted { point };
        tool("mount", &["-o".as_ref(), options.as_ref(), dev.as_os_str(), mounted.point.as_os_str()])?;
        // What mounting changed (the superblock, a journal commit) is
        // written now, so that an idle file system changes no byte later.
        mounted.sync();
        Some(mounted)
    }

    /// Writes out everything the file system holds back.
    pub fn sync(&self) {
        let dir = File::open(&self.point).unwrap();
        // SAFETY: syncfs takes a descriptor, no pointer; `dir` keeps it open for the call.
        unsafe { libc::syncfs(dir.as_raw_fd()) };
    }
}

impl Drop for Mounted {
    fn drop(&mut self) {
        let point = &self.point;
        let mounted = || {
            fs::read_to_string("/proc/self/mountinfo")
                .is_ok_and(|m| m.lines().any(|l| l.split(' ').nth(4) == Some(&*point.to_string_lossy())))
        };
        if mounted() && !retry(|| Command::new("umount").arg(point).status().is_ok_and(|s| s.success())) {
            eprintln!("warning: {} could not be unmounted", point.display());
            return;
        }
        let _ = fs::remove_dir_all(point);
    }
}

/// Swap in use on a device; turned off when dropped.
pub struct SwapOn {
    pub dev: PathBuf,
}

impl SwapOn {
    #[track_caller]
    pub fn new(dev: &Path) -> Option<SwapOn> {
        tool("swapon", &[dev.as_os_str()])?;
        Some(SwapOn { dev: dev.to_path_buf() })
    }
}

impl Drop for SwapOn {
    fn drop(&mut self) {
        if !retry(|| Command::new("swapoff").arg(&self.dev).status().is_ok_and(|s| s.success())) {
            eprintln!("warning: swapoff {} failed", self.dev.display());
        }
    }
}

/// Tries for up to 5 s: the kernel may hold a device a moment after the
/// last close.
fn retry(mut f: impl FnMut() -> bool) -> bool {
    for _ in 0..50 {
        if f() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    false
}

/// Writes back a block device's page cache and drops it (BLKFLSBUF), so
/// that what is read next comes from the device, and what was written is
/// on it and in its counts.
pub fn flush_buffers(f: &File) {
    const BLKFLSBUF: libc::c_ulong = 0x1261;
    // SAFETY: BLKFLSBUF takes no argument; `f` keeps the descriptor open for the call.
    unsafe { libc::ioctl(f.as_raw_fd(), BLKFLSBUF as _) };
}

/// What the kernel counted written to a device: its write requests and
/// sectors, and its discard requests and sectors (the block layer's own
/// counts, /sys/class/block/NAME/stat, which also count write-zeroes and
/// secure erase as writes). Its page cache is written back first
/// (BLKFLSBUF), so a write still in memory is counted too. Equal counts
/// before and after something mean it changed not one byte of the device,
/// nor rewrote one with the same data: the same answer as hashing every
/// byte, without reading them (a 320MiB device took 4 s to hash here).
pub fn written(dev: &Path) -> [u64; 4] {
    flush_buffers(&File::open(dev).unwrap_or_else(|e| panic!("{}: {e}", dev.display())));
    let real = fs::canonicalize(dev).unwrap_or_else(|e| panic!("{}: {e}", dev.display()));
    let name = real.file_name().expect("a device node has a name").to_string_lossy();
    let stat = format!("/sys/class/block/{name}/stat");
    let text = fs::read_to_string(&stat).unwrap_or_else(|e| panic!("{stat}: {e}"));
    let f: Vec<u64> = text.split_whitespace().map(|x| x.parse().expect("a count")).collect();
    // Fields 5 and 7 (writes completed, sectors written), 12 and 14
    // (discards completed, sectors discarded): Documentation/block/stat.rst.
    assert!(f.len() >= 15, "{stat} has no discard counts: {text}");
    [f[4], f[6], f[11], f[13]]
}

/// A cgroup v1 blkio group this process is moved into, and out of again
/// (and removed) when dropped, however the test ends: its throttles limit
/// what a device serves the test (this kernel has no device-mapper).
pub struct Throttle {
    pub dir: PathBuf,
}

impl Throttle {
    /// The group, or `None` (said by [`skip`]) without a cgroup v1 blkio
    /// controller.
    #[allow(dead_code)]
    pub fn setup() -> Option<Throttle> {
        let root = Path::new("/sys/fs/cgroup/blkio");
        if !root.join("blkio.throttle.write_bps_device").exists() {
            skip(
                &format!("no cgroup v1 blkio controller at {}", root.display()),
                "on a host with cgroup v1: mkdir /sys/fs/cgroup/blkio; mount -t cgroup -o blkio blkio /sys/fs/cgroup/blkio",
            );
            return None;
        }
        let dir = root.join(format!("methodic-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir)
            .unwrap_or_else(|e| panic!("cannot make the cgroup {}: {e}", dir.display()));
        // Made: dropped (and removed) however the test ends.
        let throttle = Throttle { dir };
        std::fs::write(throttle.dir.join("cgroup.procs"), std::process::id().to_string())
            .unwrap_or_else(|e| panic!("cannot move the test into {}: {e}", throttle.dir.display()));
        Some(throttle)
    }

    /// Limits writes to `dev` (major:minor) to `bps` bytes a second, in the
    /// group at `dir` (a path, so that another thread can change it).
    #[allow(dead_code)]
    pub fn limit(dir: &Path, dev: &str, bps: u64) {
        std::fs::write(dir.join("blkio.throttle.write_bps_device"), format!("{dev} {bps}")).unwrap();
    }

    /// Limits reads of `dev` (major:minor) to `iops` a second.
    #[allow(dead_code)]
    pub fn read_iops(&self, dev: &str, iops: u64) {
        std::fs::write(self.dir.join("blkio.throttle.read_iops_device"), format!("{dev} {iops}")).unwrap();
    }
}

impl Drop for Throttle {
    fn drop(&mut self) {
        let _ = std::fs::write("/sys/fs/cgroup/blkio/cgroup.procs", std::process::id().to_string());
        for _ in 0..50 {
            if std::fs::remove_dir(&self.dir).is_ok() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    }
}

/// The cells of a CSV line: commas split them, but not inside quotes
/// (where a doubled quote is one).
pub fn csv_cells(line: &str) -> Vec<String> {
    let (mut out, mut cell, mut quoted) = (Vec::new(), String::new(), false);
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                cell.push('"');
                chars.next();
            }
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(std::mem::take(&mut cell)),
            c => cell.push(c),
        }
    }
    out.push(cell);
    out
}
