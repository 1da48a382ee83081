//! faultfs: a failing disk for tests, made without device-mapper. A FUSE
//! file system served by a thread of the test process holds one file,
//! `disk.img`, of a given size in memory; reads and writes that touch a
//! chosen byte range fail with EIO, as a failing drive's would. The file
//! is opened direct-I/O style (no page cache), so every read and write of
//! a program, or of a loop device over the file, reaches the file system
//! and sees its error. Reads can also return chosen bytes corrupted (each
//! bit flipped) while the file keeps them as written. Mounted in a new
//! folder of the temporary directory; unmounted, and the folder removed,
//! when dropped.
//!
//! Needs root (the mount is made with mount(2); no fusermount) and
//! /dev/fuse; without them `mount` gives `None` after common::skip, which
//! under CI=true fails the test instead, naming what is missing.

use std::ffi::OsStr;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, UNIX_EPOCH};

use fuser::{
    BackgroundSession, Config, Errno, FileAttr, FileHandle, FileType, Filesystem, FopenFlags, Generation,
    INodeNo, LockOwner, MountOption, OpenFlags, ReplyAttr, ReplyData, ReplyDirectory, ReplyEmpty, ReplyEntry,
    ReplyOpen, ReplyWrite, ReplyXattr, Request, SessionACL, WriteFlags,
};

use crate::common::{require_root, skip};

/// The I/Os a fault fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ops {
    Reads,
    Writes,
}

/// A mounted faultfs.
pub struct FaultFs {
    dir: PathBuf,
    state: Arc<State>,
    session: Option<BackgroundSession>,
}

struct State {
    data: Mutex<Vec<u8>>,
    fault: Mutex<Option<(Ops, Range<u64>)>>,
    /// Bytes whose every read returns them flipped (the file keeps them).
    corrupt: Mutex<Option<Range<u64>>>,
    /// Reads returned with flipped bytes so far.
    corrupted: AtomicU64,
    /// Reads and writes failed so far.
    failed: AtomicU64,
    /// fsync fails with EIO (a write-back error).
    fail_sync: std::sync::atomic::AtomicBool,
}

const NAME: &str = "disk.img";
const FILE: INodeNo = INodeNo(2);

impl FaultFs {
    /// Mounts a faultfs whose file has `size` bytes of zeros, in a folder
    /// named for `name`; `None`, after common::skip, where FUSE cannot be
    /// mounted.
    #[track_caller]
    pub fn mount(name: &str, size: u64) -> Option<FaultFs> {
        if !require_root("mounting a FUSE file system") {
            return None;
        }
        if !Path::new("/dev/fuse").exists() {
            skip(
                "there is no /dev/fuse",
                "modprobe fuse, or mknod -m 0666 /dev/fuse c 10 229 (.ci/run does)",
            );
            return None;
        }
        let dir = crate::common::temp_name(&format!("faultfs-{name}"));
        // A folder left by a test that was killed may still hold a dead mount.
        let _ = std::process::Command::new("umount").arg("-l").arg(&dir).output();
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("the mount folder");
        let state = Arc::new(State {
            data: Mutex::new(vec![0; size as usize]),
            fault: Mutex::new(None),
            corrupt: Mutex::new(None),
            corrupted: AtomicU64::new(0),
            failed: AtomicU64::new(0),
            fail_sync: Default::default(),
        });
        let mut config = Config::default();
        config.mount_options = vec![MountOption::FSName("methodic-faultfs".into()), MountOption::RW];
        // Loop devices and their kernel threads read the file too.
        config.acl = SessionACL::All;
        match fuser::spawn_mount(Fs(state.clone()), &dir, &config) {
            Ok(session) => Some(FaultFs { dir, state, session: Some(session) }),
            Err(e) => {
                let _ = std::fs::remove_dir(&dir);
                skip(
                    &format!("FUSE cannot be mounted here: {e}"),
                    "a kernel with FUSE (CONFIG_FUSE_FS), as root",
                );
                None
            }
        }
    }

    /// The file: `disk.img` in the mount.
    pub fn file(&self) -> PathBuf {
        self.dir.join(NAME)
    }

    /// From now on, `ops` touching `bytes` fail with EIO.
    pub fn fail(&self, ops: Ops, bytes: Range<u64>) {
        *self.state.fault.lock().unwrap() = Some((ops, bytes));
    }

    /// From now on, every read that touches `bytes` returns them with
    /// each bit flipped, as a device that corrupts what it returns would;
    /// the file keeps them as written.
    pub fn corrupt(&self, bytes: Range<u64>) {
        *self.state.corrupt.lock().unwrap() = Some(bytes);
    }

    /// Reads returned with flipped bytes so far.
    pub fn corrupted(&self) -> u64 {
        self.state.corrupted.load(Ordering::SeqCst)
    }

    /// From now on, fsync fails with EIO, as after a lost write-back.
    pub fn fail_sync(&self) {
        self.state.fail_sync.store(true, Ordering::SeqCst);
    }

    /// Reads and writes failed so far.
    pub fn failed(&self) -> u64 {
        self.state.failed.load(Ordering::SeqCst)
    }

    /// The file's bytes in `range`, as the file system holds them.
    pub fn bytes(&self, range: Range<u64>) -> Vec<u8> {
        self.state.data.lock().unwrap()[range.start as usize..range.end as usize].to_vec()
    }
}

impl Drop for FaultFs {
    fn drop(&mut self) {
        if let Some(session) = self.session.take()
            && let Err(e) = session.umount_and_join()
        {
            // Still busy (a loop device left attached): detach it from
            // the tree now; the kernel lets go when the last user does.
            eprintln!("warning: {} did not unmount ({e}); detaching it", self.dir.display());
            let _ = std::process::Command::new("umount").arg("-l").arg(&self.dir).output();
        }
        let _ = std::fs::remove_dir(&self.dir);
    }
}

struct Fs(Arc<State>);

impl Fs {
    fn attr(&self, ino: INodeNo) -> Option<FileAttr> {
        let (kind, size, perm, nlink) = match ino {
            INodeNo::ROOT => (FileType::Directory, 0, 0o755, 2),
            FILE => (FileType::RegularFile, self.0.data.lock().unwrap().len() as u64, 0o644, 1),
            _ => return None,
        };
        Some(FileAttr {
            ino,
            size,
            blocks: size.div_ceil(512),
            atime: UNIX_EPOCH,
            mtime: UNIX_EPOCH,
            ctime: UNIX_EPOCH,
            crtime: UNIX_EPOCH,
            kind,
            perm,
            nlink,
            uid: 0,
            gid: 0,
            rdev: 0,
            blksize: 4096,
            flags: 0,
        })
    }

    /// Whether an `op` of `len` bytes at `offset` fails, counting it if so.
    fn fails(&self, write: bool, offset: u64, len: u64) -> bool {
        let hit = match &*self.0.fault.lock().unwrap() {
            Some((ops, bytes)) => {
                let op = if write { Ops::Writes } else { Ops::Reads };
                *ops == op && offset < bytes.end && bytes.start < offset + len
            }
            None => false,
        };
        if hit {
            self.0.failed.fetch_add(1, Ordering::SeqCst);
        }
        hit
    }
}

const TTL: Duration = Duration::from_secs(1);

impl Filesystem for Fs {
    fn lookup(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEntry) {
        match (parent, name.to_str()) {
            (INodeNo::ROOT, Some(NAME)) => reply.entry(&TTL, &self.attr(FILE).unwrap(), Generation(0)),
            _ => reply.error(Errno::ENOENT),
        }
    }

    fn getattr(&self, _req: &Request, ino: INodeNo, _fh: Option<FileHandle>, reply: ReplyAttr) {
        match self.attr(ino) {
            Some(a) => reply.attr(&TTL, &a),
            None => reply.error(Errno::ENOENT),
        }
    }

    /// The file keeps its size: truncating or growing it is refused.
    fn setattr(
        &self,
        _req: &Request,
        ino: INodeNo,
        _mode: Option<u32>,
        _uid: Option<u32>,
        _gid: Option<u32>,
        size: Option<u64>,
        _atime: Option<fuser::TimeOrNow>,
        _mtime: Option<fuser::TimeOrNow>,
        _ctime: Option<std::time::SystemTime>,
        _fh: Option<FileHandle>,
        _crtime: Option<std::time::SystemTime>,
        _chgtime: Option<std::time::SystemTime>,
        _bkuptime: Option<std::time::SystemTime>,
        _flags: Option<fuser::BsdFileFlags>,
        reply: ReplyAttr,
    ) {
        match self.attr(ino) {
            Some(a) if size.is_none_or(|s| s == a.size) => reply.attr(&TTL, &a),
            Some(_) => reply.error(Errno::EPERM),
            None => reply.error(Errno::ENOENT),
        }
    }

    fn open(&self, _req: &Request, _ino: INodeNo, _flags: OpenFlags, reply: ReplyOpen) {
        // No page cache: every read and write comes here, and so does its error.
        reply.opened(FileHandle(0), FopenFlags::FOPEN_DIRECT_IO);
    }

    fn read(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        size: u32,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        reply: ReplyData,
    ) {
        if self.fails(false, offset, size as u64) {
            return reply.error(Errno::EIO);
        }
        let data = self.0.data.lock().unwrap();
        let start = (offset as usize).min(data.len());
        let end = (start + size as usize).min(data.len());
        let corrupt = self.0.corrupt.lock().unwrap().clone();
        match corrupt.filter(|r| r.start.max(start as u64) < r.end.min(end as u64)) {
            Some(r) => {
                let mut out = data[start..end].to_vec();
                for at in r.start.max(start as u64)..r.end.min(end as u64) {
                    out[at as usize - start] ^= 0xff;
                }
                self.0.corrupted.fetch_add(1, Ordering::SeqCst);
                reply.data(&out);
            }
            None => reply.data(&data[start..end]),
        }
    }

    fn write(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        bytes: &[u8],
        _write_flags: WriteFlags,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        reply: ReplyWrite,
    ) {
        if self.fails(true, offset, bytes.len() as u64) {
            return reply.error(Errno::EIO);
        }
        let mut data = self.0.data.lock().unwrap();
        if offset as usize + bytes.len() > data.len() {
            return reply.error(Errno::ENOSPC);
        }
        data[offset as usize..offset as usize + bytes.len()].copy_from_slice(bytes);
        reply.written(bytes.len() as u32);
    }

    fn flush(&self, _req: &Request, _ino: INodeNo, _fh: FileHandle, _owner: LockOwner, reply: ReplyEmpty) {
        reply.ok();
    }

    fn fsync(&self, _req: &Request, _ino: INodeNo, _fh: FileHandle, _datasync: bool, reply: ReplyEmpty) {
        if self.0.fail_sync.load(Ordering::SeqCst) {
            return reply.error(Errno::EIO);
        }
        reply.ok();
    }

    fn readdir(&self, _req: &Request, ino: INodeNo, _fh: FileHandle, offset: u64, mut reply: ReplyDirectory) {
        if ino != INodeNo::ROOT {
            return reply.error(Errno::ENOTDIR);
        }
        let entries = [
            (INodeNo::ROOT, FileType::Directory, "."),
            (INodeNo::ROOT, FileType::Directory, ".."),
            (FILE, FileType::RegularFile, NAME),
        ];
        for (i, (ino, kind, name)) in entries.into_iter().enumerate().skip(offset as usize) {
            if reply.add(ino, (i + 1) as u64, kind, name) {
                break;
            }
        }
        reply.ok();
    }

    /// No extended attributes: methodic's mark is not there.
    fn getxattr(&self, _req: &Request, _ino: INodeNo, _name: &OsStr, _size: u32, reply: ReplyXattr) {
        reply.error(Errno::ENODATA);
    }

    fn listxattr(&self, _req: &Request, _ino: INodeNo, size: u32, reply: ReplyXattr) {
        if size == 0 { reply.size(0) } else { reply.data(&[]) }
    }
}
