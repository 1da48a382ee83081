//! The destructive-write guard on devices the test makes itself (loop
//! devices over sparse files, zram0): one test a refusal. Each opens the
//! device for writing as a run would, checks what the refusal says (why,
//! and what to do) and that nothing was written to the device, by the
//! block layer's own counts (for swap in use, which the kernel writes to
//! by itself, that methodic wrote nothing: see that test), and for the refusals consent lifts, that a
//! wrong `--destroy` is refused and the right one opens it. Needs root and the tools .ci/run installs; without
//! them each test says why and passes without checking, except under
//! CI=true, where it fails naming what is missing (common::skip).
//!
//! Not here, because this machine cannot make them: a device held by
//! device-mapper, md or bcache (no such drivers), and the root file
//! system's own device (never a test's target). Both are tested with
//! made-up facts in runtime/src/guard/judge.rs.

mod common;

use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};

use common::{Loop, LoopSpec, Mounted, SwapOn, Zram, tool, tool_in, written};
use methodic_runtime::Error;
use methodic_runtime::{OpenOptionsT, Target};

/// Opens `dev` for writing, as a run that writes does.
fn open(dev: &Path, destroy: Option<&str>, results: Option<&Path>) -> methodic_runtime::Result<Target> {
    let opts = OpenOptionsT {
        write: true,
        destroy: destroy.map(String::from).into_iter().collect(),
        ..OpenOptionsT::default()
    };
    Target::open_with_results(dev, &opts, results)
}

/// The refusal's message and hint; fails the test if `dev` was opened.
fn refusal(dev: &Path, destroy: Option<&str>, results: Option<&Path>) -> (String, String) {
    match open(dev, destroy, results) {
        Err(e @ Error::Refused { .. }) => {
            let message = e.to_string();
            assert!(message.starts_with(&format!("refusing to write to {}: ", dev.display())), "{message}");
            (message, e.hint().unwrap_or_default().to_string())
        }
        Err(e) => panic!("{} was not refused but failed: {e}", dev.display()),
        Ok(_) => panic!("{} was opened for writing", dev.display()),
    }
}

/// A refusal consent lifts: refused without `--destroy`, saying `why` and
/// naming `consent`; refused with a wrong one, naming the right one; opened
/// with it. The refusals write nothing to the device.
fn consent_lifts(dev: &Path, consent: &str, why: &str) {
    let before = written(dev);
    let (message, hint) = refusal(dev, None, None);
    assert!(message.contains(why), "{message}");
    assert!(hint.contains(&format!("run again with --destroy {consent}")), "{hint}");
    let (message, hint) = refusal(dev, Some("S0M3-0THER-DISK"), None);
    assert!(message.contains("--destroy S0M3-0THER-DISK does not name this device"), "{message}");
    assert!(hint.contains(&format!("pass --destroy {consent}")), "{hint}");
    assert_eq!(written(dev), before, "nothing was written to {}", dev.display());
    let target = open(dev, Some(consent), None).unwrap_or_else(|e| panic!("--destroy {consent}: {e}"));
    assert_eq!(target.path, dev);
}

/// A refusal consent does not lift: refused without `--destroy`, with the
/// right one and with a wrong one, saying `why` and what to do (`fix`), and
/// nothing was written to the device.
fn consent_does_not_lift(dev: &Path, results: Option<&Path>, why: &str, fix: &str) {
    let before = written(dev);
    refused_whatever_destroy_says(dev, results, why, fix);
    assert_eq!(written(dev), before, "nothing was written to {}", dev.display());
}

/// The refusals of [`consent_does_not_lift`], without comparing the
/// device's bytes: refused without `--destroy`, with the right one and
/// with a wrong one, saying `why` and what to do (`fix`).
fn refused_whatever_destroy_says(dev: &Path, results: Option<&Path>, why: &str, fix: &str) {
    let consent = dev.display().to_string();
    for destroy in [None, Some(consent.as_str())] {
        let (message, hint) = refusal(dev, destroy, results);
        assert!(message.contains(why), "{message}");
        assert!(hint.contains(fix), "{hint}");
        assert!(hint.contains("--destroy does not lift this"), "{hint}");
    }
    // A wrong name is said as well, with the right one.
    let (message, _) = refusal(dev, Some("S0M3-0THER-DISK"), results);
    assert!(message.contains(why), "{message}");
    assert!(message.contains(&format!("--destroy S0M3-0THER-DISK does not name it: it has no serial, so --destroy takes its path, {consent}")), "{message}");
}

/// Every tool a test runs is one .ci/run installs, from the package the
/// tests name when it is missing: a test that needs a new tool adds it to
/// both, or fails here.
#[test]
fn every_tool_a_test_runs_is_one_ci_installs() {
    let ci = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../.ci/run")).unwrap();
    for (tool, package) in common::TOOLS {
        let listed = ci.contains(&format!("{tool}:{package}"));
        let checked =
            ci.contains(&format!("command -v {tool} ")) && ci.contains(&format!("install -y {package}"));
        let with_others = ci.contains(&format!("command -v {tool} "))
            && ci
                .lines()
                .any(|l| l.contains("apt-get install") && l.split_whitespace().any(|w| w == *package));
        assert!(listed || checked || with_others, ".ci/run does not install {tool} (package {package})");
    }
}

fn s(dev: &Path) -> &OsStr {
    dev.as_os_str()
}

fn ext4(dev: &Path) -> Option<()> {
    tool("mkfs.ext4", &["-q".as_ref(), "-F".as_ref(), s(dev)])
}

#[test]
fn an_ext4_file_system_is_refused_unless_destroy_names_the_device() {
    let Some(lock) = common::devices() else { return };
    let Some(l) = Loop::setup(&lock, 64 << 20) else { return };
    let Some(()) = ext4(&l.dev) else { return };
    consent_lifts(&l.dev, &l.dev.display().to_string(), "it holds an ext2/3/4 file system");
}

/// A run on several devices gives `--destroy` once for each: each device
/// opens with its own among them, and one that none names is refused,
/// saying which were given.
#[test]
fn several_devices_each_need_their_own_destroy() {
    let Some(lock) = common::devices() else { return };
    let Some(a) = Loop::setup(&lock, 64 << 20) else { return };
    let Some(b) = Loop::setup(&lock, 64 << 20) else { return };
    let (Some(()), Some(())) = (ext4(&a.dev), ext4(&b.dev)) else { return };
    let (na, nb) = (a.dev.display().to_string(), b.dev.display().to_string());
    let both = OpenOptionsT { write: true, destroy: vec![na.clone(), nb.clone()], ..OpenOptionsT::default() };
    for dev in [&a.dev, &b.dev] {
        Target::open_with_results(dev, &both, None).unwrap_or_else(|e| panic!("{}: {e}", dev.display()));
    }
    let one = OpenOptionsT {
        write: true,
        destroy: vec![na.clone(), "/dev/not-this-one".into()],
        ..OpenOptionsT::default()
    };
    assert!(Target::open_with_results(&a.dev, &one, None).is_ok());
    match Target::open_with_results(&b.dev, &one, None) {
        Err(e @ Error::Refused { .. }) => {
            let m = e.to_string();
            assert!(
                m.contains(&format!("--destroy {na}, --destroy /dev/not-this-one does not name this device")),
                "{m}"
            );
            assert!(e.hint().unwrap_or_default().contains(&format!("pass --destroy {nb}")), "{e}");
        }
        other => panic!(
            "{nb} not refused: {}",
            other.map(|_| "opened".to_string()).unwrap_or_else(|e| e.to_string())
        ),
    }
}

/// mkfs.xfs makes no file system under 300MB.
#[test]
fn an_xfs_file_system_is_refused_unless_destroy_names_the_device() {
    let Some(lock) = common::devices() else { return };
    let Some(l) = Loop::setup(&lock, 320 << 20) else { return };
    let Some(()) = tool("mkfs.xfs", &["-q".as_ref(), "-f".as_ref(), s(&l.dev)]) else { return };
    consent_lifts(&l.dev, &l.dev.display().to_string(), "it holds an XFS file system");
}

#[test]
fn a_btrfs_file_system_is_refused_unless_destroy_names_the_device() {
    let Some(lock) = common::devices() else { return };
    let Some(l) = Loop::setup(&lock, 128 << 20) else { return };
    let Some(()) = tool("mkfs.btrfs", &["-q".as_ref(), "-f".as_ref(), s(&l.dev)]) else { return };
    consent_lifts(&l.dev, &l.dev.display().to_string(), "it holds a btrfs file system");
}

#[test]
fn a_fat_file_system_is_refused_unless_destroy_names_the_device() {
    let Some(lock) = common::devices() else { return };
    let Some(l) = Loop::setup(&lock, 64 << 20) else { return };
    let Some(()) = tool("mkfs.vfat", &[s(&l.dev)]) else { return };
    consent_lifts(&l.dev, &l.dev.display().to_string(), "it holds a FAT file system");
}

#[test]
fn an_ntfs_file_system_is_refused_unless_destroy_names_the_device() {
    let Some(lock) = common::devices() else { return };
    let Some(l) = Loop::setup(&lock, 64 << 20) else { return };
    let Some(()) = tool("mkntfs", &["-q".as_ref(), "-F".as_ref(), "-f".as_ref(), s(&l.dev)]) else { return };
    consent_lifts(&l.dev, &l.dev.display().to_string(), "it holds an NTFS file system");
}

#[test]
fn swap_space_not_in_use_is_refused_unless_destroy_names_the_device() {
    let Some(lock) = common::devices() else { return };
    let Some(l) = Loop::setup(&lock, 64 << 20) else { return };
    let Some(()) = tool("mkswap", &[s(&l.dev)]) else { return };
    consent_lifts(&l.dev, &l.dev.display().to_string(), "it holds swap space");
}

/// luksFormat writes the LUKS header without device-mapper; PBKDF2 at its
/// fewest iterations keeps it quick.
#[test]
fn a_luks_volume_is_refused_unless_destroy_names_the_device() {
    let Some(lock) = common::devices() else { return };
    let Some(l) = Loop::setup(&lock, 64 << 20) else { return };
    let key = l.backing.with_extension("key");
    fs::write(&key, "not a secret").unwrap();
    let made = tool(
        "cryptsetup",
        &[
            "luksFormat".as_ref(),
            "--batch-mode".as_ref(),
            "--pbkdf".as_ref(),
            "pbkdf2".as_ref(),
            "--pbkdf-force-iterations".as_ref(),
            "1000".as_ref(),
            "--key-file".as_ref(),
            key.as_os_str(),
            s(&l.dev),
        ],
    );
    let _ = fs::remove_file(&key);
    let Some(()) = made else { return };
    consent_lifts(&l.dev, &l.dev.display().to_string(), "it holds a LUKS encrypted volume");
}

/// pvcreate writes the LVM label without device-mapper.
#[test]
fn an_lvm_physical_volume_is_refused_unless_destroy_names_the_device() {
    let Some(lock) = common::devices() else { return };
    let Some(l) = Loop::setup(&lock, 64 << 20) else { return };
    let Some(()) = tool("pvcreate", &["-q".as_ref(), "-ff".as_ref(), "-y".as_ref(), s(&l.dev)]) else {
        return;
    };
    consent_lifts(&l.dev, &l.dev.display().to_string(), "it holds an LVM physical volume");
}

/// There is no zpool here: the test writes what the guard looks for the
/// way ZFS does. A vdev label starts at 0, its uberblock ring 128KiB into
/// it, and each uberblock starts with the magic 0x00bab10c as a u64 in the
/// host's byte order.
#[test]
fn a_zfs_pool_is_refused_unless_destroy_names_the_device() {
    use std::os::unix::fs::FileExt;
    let Some(lock) = common::devices() else { return };
    let Some(l) = Loop::setup(&lock, 64 << 20) else { return };
    let f = fs::OpenOptions::new().write(true).open(&l.dev).unwrap();
    for slot in [0u64, 5, 31] {
        f.write_all_at(&0x00ba_b10c_u64.to_ne_bytes(), (128 << 10) + slot * 1024).unwrap();
    }
    f.sync_all().unwrap();
    drop(f);
    consent_lifts(&l.dev, &l.dev.display().to_string(), "it holds a ZFS pool");
}

/// Partitions the kernel knows of, after sfdisk wrote the table. This
/// machine's kernel reads no partition tables itself, so where none shows,
/// partx adds them from the table.
fn partitions_show(l: &Loop) -> Option<()> {
    if !Path::new(&format!("/sys/class/block/{}/{}p1", l.name(), l.name())).exists() {
        tool("partx", &["-a".as_ref(), s(&l.dev)])?;
    }
    Some(())
}

#[test]
fn a_gpt_partition_table_and_its_partitions_are_refused_unless_destroy_names_the_device() {
    let Some(lock) = common::devices() else { return };
    let spec = LoopSpec { partscan: true, ..LoopSpec::marked(64 << 20) };
    let Some(l) = Loop::with(&lock, spec) else { return };
    let Some(()) = tool_in("sfdisk", &["-q".as_ref(), s(&l.dev)], Some("label: gpt\n,16MiB\n,16MiB\n"))
    else {
        return;
    };
    let Some(()) = partitions_show(&l) else { return };
    let why = format!("it holds a GPT partition table; it has partitions ({0}p1, {0}p2)", l.name());
    consent_lifts(&l.dev, &l.dev.display().to_string(), &why);
}

#[test]
fn an_mbr_partition_table_is_refused_unless_destroy_names_the_device() {
    let Some(lock) = common::devices() else { return };
    let Some(l) = Loop::setup(&lock, 64 << 20) else { return };
    let Some(()) =
        tool_in("sfdisk", &["-q".as_ref(), "--no-reread".as_ref(), s(&l.dev)], Some("label: dos\n,16MiB\n"))
    else {
        return;
    };
    consent_lifts(&l.dev, &l.dev.display().to_string(), "it holds an MBR partition table");
}

/// Partitions with no table the guard knows (added straight to the
/// kernel): the partitions alone are the reason.
#[test]
fn partitions_without_a_table_are_refused_unless_destroy_names_the_device() {
    let Some(lock) = common::devices() else { return };
    let Some(l) = Loop::setup(&lock, 64 << 20) else { return };
    let Some(()) = tool("addpart", &[s(&l.dev), "1".as_ref(), "2048".as_ref(), "8192".as_ref()]) else {
        return;
    };
    let (message, _) = refusal(&l.dev, None, None);
    assert!(!message.contains("partition table"), "{message}");
    consent_lifts(&l.dev, &l.dev.display().to_string(), &format!("it has partitions ({}p1)", l.name()));
}

/// The tests mount read-only: a read-only mount is as much in use to the
/// guard, and unlike a read-write one (whose journal is written at times of
/// its own) it changes no byte while the test checks the device.
#[test]
fn a_mounted_file_system_is_refused_whatever_destroy_says() {
    let Some(lock) = common::devices() else { return };
    let Some(l) = Loop::setup(&lock, 64 << 20) else { return };
    let Some(()) = ext4(&l.dev) else { return };
    let Some(m) = Mounted::new(&l.dev, "ro") else { return };
    let why = format!("it is mounted on {}", m.point.display());
    consent_does_not_lift(&l.dev, None, &why, &format!("umount {}", m.point.display()));
}

/// btrfs gives its files an anonymous device number, in mountinfo as
/// well: the guard finds the mount by its source.
#[test]
fn a_mounted_btrfs_is_refused_whatever_destroy_says() {
    let Some(lock) = common::devices() else { return };
    let Some(l) = Loop::setup(&lock, 128 << 20) else { return };
    let Some(()) = tool("mkfs.btrfs", &["-q".as_ref(), "-f".as_ref(), s(&l.dev)]) else { return };
    let Some(m) = Mounted::new(&l.dev, "ro") else { return };
    let mountinfo = fs::read_to_string("/proc/self/mountinfo").unwrap();
    let line = mountinfo.lines().find(|x| x.contains(&*m.point.to_string_lossy())).unwrap();
    assert!(line.split(' ').nth(2).unwrap().starts_with("0:"), "btrfs shows a device number: {line}");
    let why = format!("it is mounted on {}", m.point.display());
    consent_does_not_lift(&l.dev, None, &why, &format!("umount {}", m.point.display()));
}

#[test]
fn a_device_whose_partition_is_mounted_is_refused_whatever_destroy_says() {
    let Some(lock) = common::devices() else { return };
    let spec = LoopSpec { partscan: true, ..LoopSpec::marked(64 << 20) };
    let Some(l) = Loop::with(&lock, spec) else { return };
    let Some(()) = tool_in("sfdisk", &["-q".as_ref(), s(&l.dev)], Some("label: dos\n,16MiB\n,32MiB\n"))
    else {
        return;
    };
    let Some(()) = partitions_show(&l) else { return };
    let p2 = l.partition(2);
    let Some(()) = ext4(&p2) else { return };
    let Some(m) = Mounted::new(&p2, "ro") else { return };
    let why = format!("it holds the file system mounted on {} (from {})", m.point.display(), p2.display());
    consent_does_not_lift(&l.dev, None, &why, &format!("umount {}", m.point.display()));
}

/// Named by another path than the one swapon was given (a symlink): the
/// guard compares device numbers, not names.
///
/// Not compared byte for byte, as the other refusals are: while the swap
/// is on, the kernel may swap pages out to it at any moment (a loaded
/// machine), so a hash of the whole device can change with no write from
/// methodic. What methodic did is decided instead by two things the kernel's
/// swapping cannot move:
/// - the bytes this thread sent to storage (`write_bytes` in
///   /proc/thread-self/io). The guard runs in the thread that opens the
///   target, and any write issued there, buffered or O_DIRECT, to this
///   device or any other, is counted. The kernel's swap-out is counted to
///   no thread, even when this thread's own pages are swapped out, and the
///   loop device's writes to its backing file are counted to the loop
///   driver's workers.
/// - the first page, the swap header, which methodic would have to
///   overwrite to destroy the swap. The kernel reserves that slot for the
///   header and never swaps a page into it. This also catches what
///   `write_bytes` does not count: an erase (a discard reads back as zeros
///   on a loop device) or a write from another thread, for a fill or an
///   erase starts at the start of the span.
#[test]
fn swap_in_use_is_refused_whatever_destroy_says() {
    let Some(lock) = common::devices() else { return };
    let Some(l) = Loop::setup(&lock, 64 << 20) else { return };
    let Some(()) = tool("mkswap", &[s(&l.dev)]) else { return };
    let Some(_swap) = SwapOn::new(&l.dev) else { return };
    let alias = l.backing.with_extension("alias");
    std::os::unix::fs::symlink(&l.dev, &alias).unwrap();
    let _alias = Removed(alias.clone());
    let header = swap_header(&l.dev);
    let Some(written) = thread_write_bytes() else { return };
    refused_whatever_destroy_says(
        &alias,
        None,
        "it is in use as swap",
        &format!("swapoff {}", l.dev.display()),
    );
    assert_eq!(thread_write_bytes(), Some(written), "the refusals sent no byte to storage");
    assert!(swap_header(&l.dev) == header, "the swap header of {} is as mkswap wrote it", l.dev.display());
}

/// The first page of a swap device, read from the device itself (its page
/// cache flushed and dropped first, [`common::flush_buffers`]); checks that it is
/// the header mkswap wrote, which ends with its magic.
fn swap_header(dev: &Path) -> Vec<u8> {
    use std::io::Read;
    // SAFETY: sysconf takes a number and reads no memory of ours.
    let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).expect("the page size");
    let mut f = fs::File::open(dev).unwrap();
    common::flush_buffers(&f);
    let mut head = vec![0u8; page];
    f.read_exact(&mut head).unwrap();
    assert!(head.ends_with(b"SWAPSPACE2"), "{} starts with a swap header", dev.display());
    head
}

/// The bytes this thread has caused to be sent to storage: `write_bytes`
/// in /proc/thread-self/io. None, after [`common::skip`], on a kernel
/// without I/O accounting (CONFIG_TASK_IO_ACCOUNTING).
fn thread_write_bytes() -> Option<u64> {
    let Ok(text) = fs::read_to_string("/proc/thread-self/io") else {
        common::skip(
            "/proc/thread-self/io (the kernel counts no I/O per thread)",
            "run on a kernel built with CONFIG_TASK_IO_ACCOUNTING",
        );
        return None;
    };
    let line = text.lines().find_map(|l| l.strip_prefix("write_bytes:")).expect("a write_bytes line");
    Some(line.trim().parse().expect("write_bytes is a number"))
}

/// Removes a file when dropped.
struct Removed(PathBuf);

impl Drop for Removed {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.0);
    }
}

#[test]
fn a_device_holding_the_results_directory_is_refused_whatever_destroy_says() {
    let Some(lock) = common::devices() else { return };
    let Some(l) = Loop::setup(&lock, 64 << 20) else { return };
    let Some(()) = ext4(&l.dev) else { return };
    let Some(m) = Mounted::new(&l.dev, "ro") else { return };
    // The mount point itself, and one not made yet, judged by the folder it
    // will be made in.
    let later = m.point.join("later/results");
    for dir in [&m.point, &later] {
        let why = format!(
            "it holds the results directory {} (on the file system mounted on {})",
            dir.display(),
            m.point.display()
        );
        consent_does_not_lift(&l.dev, Some(dir), &why, "give --out a directory on another device");
    }
    // Elsewhere, the results directory is no reason.
    let (message, _) = refusal(&l.dev, None, Some(&std::env::temp_dir()));
    assert!(!message.contains("results directory"), "{message}");
}

#[test]
fn a_loop_device_over_a_file_methodic_did_not_make_is_refused_unless_destroy_names_it() {
    let Some(lock) = common::devices() else { return };
    let Some(l) = Loop::with(&lock, LoopSpec { marked: false, ..LoopSpec::marked(64 << 20) }) else { return };
    let (message, hint) = refusal(&l.dev, None, None);
    assert!(message.contains(&format!("it is a loop device over {}", l.backing.display())), "{message}");
    assert!(message.contains("(on the file system mounted on /"), "says where the file is: {message}");
    assert!(!message.contains("it holds"), "a zeroed device holds nothing known: {message}");
    assert!(hint.contains("user.methodic"), "{hint}");
    consent_lifts(
        &l.dev,
        &l.dev.display().to_string(),
        "a file methodic did not make, and writes over that file",
    );
    // The same file, marked as methodic's scratch: nothing to consent to.
    assert!(common::mark(&l.backing));
    open(&l.dev, None, None).unwrap_or_else(|e| panic!("a loop device over a marked file: {e}"));
}

/// A loop device over another block device writes over that device, and
/// is in use when it is.
#[test]
fn a_loop_device_over_a_mounted_device_is_refused_whatever_destroy_says() {
    let Some(lock) = common::devices() else { return };
    let Some(under) = Loop::setup(&lock, 64 << 20) else { return };
    let Some(()) = ext4(&under.dev) else { return };
    let Some(over) = Loop::over(&lock, &under.dev) else { return };
    let (message, _) = refusal(&over.dev, None, None);
    assert!(message.contains(&format!("it is a loop device over the block device {}", under.dev.display())));
    assert!(message.contains("it holds an ext2/3/4 file system"), "{message}");
    let Some(m) = Mounted::new(&under.dev, "ro") else { return };
    let why =
        format!("it holds the file system mounted on {} (from {})", m.point.display(), under.dev.display());
    consent_does_not_lift(&over.dev, None, &why, &format!("umount {}", m.point.display()));
}

/// zram has no serial: its path is what --destroy takes.
#[test]
fn a_device_without_a_serial_is_named_by_its_path() {
    let Some(lock) = common::devices() else { return };
    let Some(z) = Zram::setup(&lock, 64 << 20) else { return };
    let Some(()) = ext4(&z.path()) else { return };
    consent_lifts(&z.path(), "/dev/zram0", "it holds an ext2/3/4 file system");
    let (message, hint) = refusal(&z.path(), Some("zram0"), None);
    assert!(message.contains("it has no serial, so --destroy takes its path, /dev/zram0"), "{message}");
    assert!(hint.contains("pass --destroy /dev/zram0"), "{hint}");
}

/// A device another process has open (a VM, a database, a dd: O_EXCL
/// misses them), or that a loop device is set up over, is in use.
#[test]
fn a_device_another_process_or_a_loop_device_uses_is_refused_whatever_destroy_says() {
    let Some(lock) = common::devices() else { return };
    let Some(z) = Zram::setup(&lock, 64 << 20) else { return };
    struct Child(std::process::Child);
    impl Drop for Child {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let holder = std::process::Command::new("sleep")
        .arg("60")
        .stdin(std::fs::File::open(z.path()).unwrap())
        .spawn()
        .map(Child)
        .unwrap();
    let why = format!("process {} (sleep) has it open", holder.0.id());
    consent_does_not_lift(&z.path(), None, &why, "end the process");
    drop(holder);
    let Some(over) = Loop::over(&lock, &z.path()) else { return };
    let name = over.dev.file_name().unwrap().to_string_lossy().into_owned();
    consent_does_not_lift(&z.path(), None, &format!("{name} is set up over it"), "losetup -d");
}
