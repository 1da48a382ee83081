//! The io_uring engine: one ring per worker thread, the worker's buffers
//! and its target file registered with the ring, each I/O submitted as it
//! is handed over, then one system call that waits for the first
//! completion (or, open loop, for a deadline: a timeout on the wait where
//! the kernel takes one, Linux 5.11+, else a timeout request) and reaps
//! all that are ready. A trim is IORING_OP_FALLOCATE punching a hole in a
//! file, and on a block device the block layer's discard command
//! (IORING_OP_URING_CMD with BLOCK_URING_CMD_DISCARD, Linux 6.12+); where
//! the kernel has no such command, the worker's thread discards with the
//! BLKDISCARD ioctl and the ring completes a no-op in its place.

use std::io;
use std::os::unix::io::RawFd;

use io_uring::{IoUring, opcode, types};

use super::{Completion, Engine, EngineKind, Request, TrimWay, mono_ns};
use crate::data::{Buffers, Lease};
use crate::workload::Op;

/// A ring over a worker's buffers: the kernel reads and writes them by
/// address, so the ring holds a [`Lease`] on their memory, which is freed
/// only when the ring and the buffers are both gone.
pub struct Uring {
    ring: IoUring,
    buffers: Vec<usize>,
    /// The memory behind `buffers`, kept alive as long as this engine.
    _memory: Lease,
    /// Buffers registered: fixed reads and writes skip page pinning.
    fixed_buffers: bool,
    /// The block device cannot be driven without blocking (loop): every I/O
    /// would first be tried inline, fail with EAGAIN and then go to a kernel
    /// worker, so it is sent to the worker at once.
    force_async: bool,
    inflight: usize,
    /// The kernel takes a timeout with the wait itself
    /// (IORING_FEAT_EXT_ARG, Linux 5.11+); older kernels get a timeout
    /// request in the ring.
    ext_arg: bool,
    /// Timeout requests in the ring whose completion is not reaped yet.
    timeouts: usize,
    /// How a trim reaches the target.
    trim: UringTrim,
    /// The target, for trims done with an ioctl.
    fd: RawFd,
    /// A trim done with an ioctl that failed: `run` returns it.
    trim_failure: Option<io::Error>,
    /// The length of the trim in flight in each slot (0: none): a trim
    /// completes with 0, and is handed out with its length, as a read or
    /// write that moved all its bytes.
    trim_len: Vec<u32>,
    /// Completions that reaping must change: timeout requests' (left
    /// out) and trims' (given their length). While there are none,
    /// reaping hands completions out as the kernel gives them.
    fixups: usize,
}

/// How the ring trims.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum UringTrim {
    /// IORING_OP_FALLOCATE, punching a hole (a file).
    Fallocate,
    /// IORING_OP_URING_CMD with BLOCK_URING_CMD_DISCARD (a block device).
    DiscardCmd,
    /// The BLKDISCARD ioctl in the worker's thread, and a no-op in the
    /// ring for its completion (a block device, on kernels before 6.12).
    Ioctl,
}

/// `BLOCK_URING_CMD_DISCARD`, `_IO(0x12, 0)` (include/uapi/linux/blkdev.h,
/// Linux 6.12): the discard command a block device takes through
/// IORING_OP_URING_CMD, its range's start in the entry's `addr` and its
/// length in `addr3` (the first 8 bytes of the command area).
const BLOCK_URING_CMD_DISCARD: u32 = 0x12 << 8;

/// The slot a timeout request's completion carries: never an I/O's (a
/// ring holds at most 32768 entries, so slots stay below it).
const TIMEOUT_SLOT: u16 = u16::MAX;

impl Uring {
    /// Sets up a ring for `depth` outstanding I/Os on `fd`. Fails where
    /// io_uring is unavailable; the caller falls back to psync.
    /// `force_async`: send every I/O straight to a kernel worker, for block
    /// devices that cannot be driven without blocking.
    /// `trims`: the worker trims, so a block device's way of discarding
    /// is found out now (see `discard_cmd_works`).
    pub fn new(
        fd: RawFd,
        buffers: &Buffers,
        depth: u32,
        force_async: bool,
        trims: bool,
    ) -> io::Result<Uring> {
        let entries = depth.max(1).next_power_of_two();
        // The worker that makes the ring is its only user. Completions are
        // then run when it asks for them, not signalled to it as they come
        // (DEFER_TASKRUN, Linux 6.1+): on the loop device over tmpfs that
        // made 9% more 4KiB random writes at QD32 than COOP_TASKRUN, which
        // older kernels (5.19, 6.0) get, and the oldest a plain ring.
        let ring = IoUring::builder()
            .setup_single_issuer()
            .setup_defer_taskrun()
            .build(entries)
            .or_else(|_| IoUring::builder().setup_single_issuer().setup_coop_taskrun().build(entries))
            .or_else(|_| IoUring::builder().setup_coop_taskrun().build(entries))
            .or_else(|_| IoUring::new(entries))?;
        let iovecs = buffers.iovecs();
        // Registering needs locked memory; without it, plain reads and
        // writes are used.
        // SAFETY: the registered iovecs cover the worker's buffers, whose memory the ring's lease
        // (`_memory`) keeps alive for as long as this ring, so the kernel never reads or writes
        // freed memory through them.
        let fixed_buffers = unsafe { ring.submitter().register_buffers(&iovecs) }.is_ok();
        ring.submitter().register_files(&[fd])?;
        let ext_arg = ring.params().is_feature_ext_arg();
        let mut uring = Uring {
            ring,
            buffers: (0..buffers.slots()).map(|i| buffers.ptr(i) as usize).collect(),
            _memory: buffers.lease(),
            fixed_buffers,
            force_async,
            inflight: 0,
            ext_arg,
            timeouts: 0,
            trim: UringTrim::Fallocate,
            fd,
            trim_failure: None,
            trim_len: vec![0; buffers.slots()],
            fixups: 0,
        };
        if TrimWay::of(fd) == TrimWay::Discard {
            uring.trim =
                if trims && uring.discard_cmd_works()? { UringTrim::DiscardCmd } else { UringTrim::Ioctl };
        }
        Ok(uring)
    }

    /// Whether the kernel takes BLOCK_URING_CMD_DISCARD on this block
    /// device: the ring knows IORING_OP_URING_CMD, and a discard of no
    /// bytes comes back EINVAL (the block layer checked its range: Linux
    /// 6.12+, the device discards, opened for writing) rather than
    /// EOPNOTSUPP (no command: an older kernel). Nothing is discarded.
    /// Called on a new ring, before any I/O.
    fn discard_cmd_works(&mut self) -> io::Result<bool> {
        let mut probe = io_uring::Probe::new();
        if self.ring.submitter().register_probe(&mut probe).is_err()
            || !probe.is_supported(opcode::UringCmd16::CODE)
        {
            return Ok(false);
        }
        let entry = opcode::UringCmd16::new(types::Fixed(0), BLOCK_URING_CMD_DISCARD)
            .addr(Some(0))
            .build()
            .user_data(TIMEOUT_SLOT as u64);
        self.push(&entry)?;
        loop {
            match self.ring.submit_and_wait(1) {
                Ok(_) => break,
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => continue,
                Err(e) => return Err(e),
            }
        }
        let result = self.ring.completion().next().map_or(-libc::EIO, |c| c.result());
        Ok(result == -libc::EINVAL)
    }

    /// Tests: trims with the ioctl, as on kernels before 6.12.
    #[cfg(test)]
    fn without_discard_cmd(mut self) -> Uring {
        if self.trim == UringTrim::DiscardCmd {
            self.trim = UringTrim::Ioctl;
        }
        self
    }

    /// Tests: waits until a deadline with a timeout request, as on kernels
    /// before 5.11.
    #[cfg(test)]
    fn without_ext_arg(mut self) -> Uring {
        self.ext_arg = false;
        self
    }

    /// Submits each of `reqs` as it is handed over. Inlined always, as
    /// is `reap`: both were part of `run`, and with `run_until` calling
    /// them too the compiler would otherwise make them calls of their own.
    #[inline(always)]
    fn submit_each(&mut self, reqs: &[Request]) -> io::Result<()> {
        for r in reqs {
            let entry = self.entry(r);
            self.push(&entry)?;
            // Each I/O is submitted as it is handed over, as fio does by
            // default (iodepth_batch_submit=1), not the batch at once: the
            // first of a batch then starts while the others are submitted.
            // On a loop device over tmpfs, 4KiB random writes at QD32 went
            // from 0.83x to 0.98x of fio's (medians of 7, alternated).
            match self.ring.submit() {
                Ok(_) => {}
                // Interrupted, or completions to reap first: what is
                // queued goes with the submit-and-wait below.
                Err(e) if matches!(e.raw_os_error(), Some(libc::EINTR | libc::EBUSY | libc::EAGAIN)) => {}
                Err(e) => return Err(e),
            }
        }
        self.inflight += reqs.len();
        // A trim the ioctl failed (kernels before 6.12 only).
        if let Some(e) = self.trim_failure.take() {
            return Err(e);
        }
        Ok(())
    }

    /// Queues `entry`.
    #[inline]
    fn push(&mut self, entry: &io_uring::squeue::Entry) -> io::Result<()> {
        // The ring is sized for the worker's depth; a full queue means
        // the kernel has not taken the last batch yet.
        // SAFETY: every entry pushed points at a slot of the worker's buffers (alive as long as the
        // ring: its lease) or at no memory (a trim); the slot is not reused until its completion
        // is reaped, and Drop waits for every I/O in flight.
        while unsafe { self.ring.submission().push(entry) }.is_err() {
            self.ring.submit()?;
        }
        Ok(())
    }

    /// Appends every completion ready to `done`; a timeout request's is
    /// not an I/O's and is left out, and a trim's is given its length.
    #[inline(always)]
    fn reap(&mut self, done: &mut Vec<Completion>) {
        let before = done.len();
        for cqe in self.ring.completion() {
            done.push(Completion { slot: cqe.user_data() as u16, result: cqe.result() });
        }
        if self.fixups > 0 {
            self.fix(done, before);
        }
        self.inflight -= (done.len() - before).min(self.inflight);
    }

    /// Leaves timeout requests' completions out of `done[from..]`, and
    /// gives trims that are done their length.
    #[cold]
    #[inline(never)]
    fn fix(&mut self, done: &mut Vec<Completion>, from: usize) {
        let mut k = from;
        for i in from..done.len() {
            let mut c = done[i];
            if c.slot == TIMEOUT_SLOT {
                self.timeouts = self.timeouts.saturating_sub(1);
                self.fixups = self.fixups.saturating_sub(1);
                continue;
            }
            if let Some(len) = self.trim_len.get_mut(c.slot as usize).filter(|l| **l != 0) {
                if c.result == 0 {
                    c.result = *len as i32;
                }
                *len = 0;
                self.fixups = self.fixups.saturating_sub(1);
            }
            done[k] = c;
            k += 1;
        }
        done.truncate(k);
    }

    fn entry(&mut self, r: &Request) -> io_uring::squeue::Entry {
        let ptr = self.buffers[r.slot as usize] as *mut u8;
        let fd = types::Fixed(0);
        let e = match (r.io.op, self.fixed_buffers) {
            (Op::Trim, _) => self.trim_entry(r),
            (Op::Read, true) => opcode::ReadFixed::new(fd, ptr, r.io.len, r.slot).offset(r.io.offset).build(),
            (Op::Write, true) => {
                opcode::WriteFixed::new(fd, ptr, r.io.len, r.slot).offset(r.io.offset).build()
            }
            (Op::Read, false) => opcode::Read::new(fd, ptr, r.io.len).offset(r.io.offset).build(),
            (Op::Write, false) => opcode::Write::new(fd, ptr, r.io.len).offset(r.io.offset).build(),
        };
        let e = e.user_data(r.slot as u64);
        if self.force_async { e.flags(io_uring::squeue::Flags::ASYNC) } else { e }
    }

    /// A trim's entry (its user data and flags are the caller's).
    #[cold]
    #[inline(never)]
    fn trim_entry(&mut self, r: &Request) -> io_uring::squeue::Entry {
        let (fd, offset, len) = (types::Fixed(0), r.io.offset, r.io.len as u64);
        self.trim_len[r.slot as usize] = r.io.len.max(1);
        self.fixups += 1;
        match self.trim {
            UringTrim::Fallocate => opcode::Fallocate::new(fd, len)
                .offset(offset)
                .mode(libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE)
                .build(),
            UringTrim::DiscardCmd => {
                let mut cmd = [0u8; 16];
                cmd[..8].copy_from_slice(&len.to_le_bytes());
                opcode::UringCmd16::new(fd, BLOCK_URING_CMD_DISCARD).addr(Some(offset)).cmd(cmd).build()
            }
            UringTrim::Ioctl => {
                let rc = TrimWay::Discard.trim_now(self.fd, offset, len);
                if rc < 0 {
                    let e = io::Error::from_raw_os_error(-rc);
                    self.trim_failure.get_or_insert(io::Error::new(
                        e.kind(),
                        format!("trim (BLKDISCARD) of {len} bytes at offset {offset} failed: {e}"),
                    ));
                }
                opcode::Nop::new().build()
            }
        }
    }
}

impl Engine for Uring {
    fn kind(&self) -> EngineKind {
        EngineKind::IoUring
    }

    fn fixed_buffers(&self) -> bool {
        self.fixed_buffers
    }

    fn force_async(&self) -> bool {
        self.force_async
    }

    fn run(&mut self, reqs: &[Request], wait: usize, done: &mut Vec<Completion>) -> io::Result<()> {
        self.submit_each(reqs)?;
        let wait = wait.min(self.inflight);
        loop {
            match self.ring.submit_and_wait(wait) {
                Ok(_) => break,
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => continue,
                Err(e) if e.raw_os_error() == Some(libc::EBUSY) => {
                    // Too many completions waiting: reap them first.
                    break;
                }
                Err(e) => return Err(e),
            }
        }
        self.reap(done);
        Ok(())
    }

    fn run_until(&mut self, reqs: &[Request], deadline: u64, done: &mut Vec<Completion>) -> io::Result<()> {
        self.submit_each(reqs)?;
        let now = mono_ns();
        if self.inflight == 0 || deadline <= now {
            // Nothing to wait for, or no time to: reap what is ready.
            return self.run(&[], 0, done);
        }
        let left = deadline - now;
        let ts = types::Timespec::new().sec(left / 1_000_000_000).nsec((left % 1_000_000_000) as u32);
        let waited = if self.ext_arg {
            let args = types::SubmitArgs::new().timespec(&ts);
            self.ring.submitter().submit_with_args(1, &args)
        } else {
            // A timeout request that completes at the deadline, or with
            // the first completion after it (count 1), whichever is first:
            // either way the wait for one completion ends. The kernel
            // reads the timespec as it takes the request, below.
            let entry = opcode::Timeout::new(&ts).count(1).build().user_data(TIMEOUT_SLOT as u64);
            self.push(&entry)?;
            self.timeouts += 1;
            self.fixups += 1;
            self.ring.submit_and_wait(1)
        };
        match waited {
            Ok(_) => {}
            // The deadline came first (ETIME is how the wait says so), a
            // signal came, or completions are to be reaped first: the
            // worker decides what next.
            Err(e) if matches!(e.raw_os_error(), Some(libc::ETIME | libc::EINTR | libc::EBUSY)) => {}
            Err(e) => return Err(e),
        }
        self.reap(done);
        Ok(())
    }
}

impl Drop for Uring {
    /// Waits for the I/O in flight, then lets go of the registered file at once: the kernel tears a ring down
    /// in the background, and until then a block device stays busy (a
    /// following open with O_EXCL, or a zram reset, would fail).
    fn drop(&mut self) {
        // I/O still in flight (a worker ending on an error) writes into the
        // worker's buffers, which go next: wait for it first.
        // A timeout request still in the ring ends by its deadline.
        let mut done = Vec::new();
        while self.inflight > 0 || self.timeouts > 0 {
            match self.ring.submit_and_wait(1) {
                Ok(_) => {}
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => continue,
                Err(_) => break,
            }
            done.clear();
            self.reap(&mut done);
        }
        let _ = self.ring.submitter().unregister_files();
        if self.fixed_buffers {
            let _ = self.ring.submitter().unregister_buffers();
        }
    }
}

#[cfg(test)]
#[path = "../../tests/common/mod.rs"]
mod common;

#[cfg(test)]
mod tests {
    use std::os::unix::io::AsRawFd;

    use super::*;
    use crate::workload::Io;

    /// Discards the block layer counted on `name`: /sys/block/NAME/stat's
    /// discards completed and merged, and the sectors they discarded.
    fn discards(name: &str) -> (u64, u64) {
        let text = std::fs::read_to_string(format!("/sys/block/{name}/stat")).unwrap();
        let f: Vec<u64> = text.split_whitespace().map(|x| x.parse().unwrap()).collect();
        (f[11] + f[12], f[13])
    }

    /// `n` trims of 64KiB at `offset`, `offset + 128KiB`, ..., 4 in
    /// flight at most; each completes with 0.
    fn trim_n(ring: &mut Uring, n: u64, offset: u64) {
        let (mut issued, mut completed, mut free) = (0u64, 0u64, vec![0u16, 1, 2, 3]);
        let mut done = Vec::new();
        while completed < n {
            let mut reqs = Vec::new();
            while issued < n {
                let Some(slot) = free.pop() else { break };
                let io = Io { op: Op::Trim, offset: offset + issued * (128 << 10), len: 64 << 10 };
                reqs.push(Request { slot, io });
                issued += 1;
            }
            ring.run(&reqs, 1, &mut done).unwrap();
            for c in done.drain(..) {
                assert_eq!(c.result, 64 << 10, "a trim that is done says its length");
                free.push(c.slot);
                completed += 1;
            }
        }
    }

    /// On a loop device (it discards by punching holes in its file), trims
    /// go through the discard command where the kernel has it (this
    /// kernel: 6.18) and through BLKDISCARD otherwise, and the block layer
    /// counts at least a discard, and all their sectors, for each; on a
    /// file, each punches a hole that SEEK_HOLE finds, and the file's
    /// blocks drop.
    #[test]
    fn trims_reach_a_block_device_as_discards_and_a_file_as_holes() {
        if !crate::testing::io_uring_or_skip() {
            return;
        }
        let Some(lock) = common::devices() else { return };
        let Some(dev) = common::Loop::setup(&lock, 16 << 20) else { return };
        let name = dev.name();
        let f = std::fs::OpenOptions::new().read(true).write(true).open(&dev.dev).unwrap();
        let buffers = Buffers::new(4, 4096);
        let ring = Uring::new(f.as_raw_fd(), &buffers, 4, true, true).unwrap();
        assert_eq!(ring.trim, UringTrim::DiscardCmd, "Linux 6.12+ takes the discard command");
        let ioctl = Uring::new(f.as_raw_fd(), &buffers, 4, true, true).unwrap().without_discard_cmd();
        for (way, mut ring) in [("command", ring), ("ioctl", ioctl)] {
            let before = discards(&name);
            trim_n(&mut ring, 40, 0);
            drop(ring);
            let after = discards(&name);
            assert!(after.0 - before.0 >= 40, "{way}: {} discards for 40 trims", after.0 - before.0);
            assert_eq!(after.1 - before.1, 40 * 128, "{way}: every trimmed sector");
        }
        // A device opened without trims does not find out how to discard.
        let ring = Uring::new(f.as_raw_fd(), &buffers, 4, true, false).unwrap();
        assert_eq!(ring.trim, UringTrim::Ioctl);
        drop(ring);
        drop(f);
        drop(dev);

        let path = common::temp_path("uring-trim");
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&path)
            .unwrap();
        // Written, not only allocated: an allocated block never written
        // is a hole to SEEK_DATA already.
        std::io::Write::write_all(&mut &file, &vec![7u8; 8 << 20]).unwrap();
        file.sync_all().unwrap();
        use std::os::unix::fs::MetadataExt;
        let blocks = || std::fs::metadata(&path).unwrap().blocks();
        let before = blocks();
        let mut ring = Uring::new(file.as_raw_fd(), &buffers, 4, false, true).unwrap();
        assert_eq!(ring.trim, UringTrim::Fallocate);
        trim_n(&mut ring, 32, 0);
        // Each 64KiB trimmed is a hole, and the data starts again after it.
        for k in 0..32i64 {
            let at = k * (128 << 10);
            let fd = file.as_raw_fd();
            // SAFETY: lseek takes a descriptor and numbers; `file` keeps the descriptor open.
            assert_eq!(unsafe { libc::lseek(fd, at, libc::SEEK_HOLE) }, at, "a hole at {at}");
            // SAFETY: lseek takes a descriptor and numbers; `file` keeps the descriptor open.
            assert_eq!(unsafe { libc::lseek(fd, at, libc::SEEK_DATA) }, at + (64 << 10), "data after it");
        }
        // The holes' sectors are freed, less what the file system's own
        // bookkeeping of the holes took (ext4's extent tree).
        let freed = before - blocks();
        assert!((31 * 128..=32 * 128).contains(&freed), "{freed} sectors freed by 32 holes of 128");
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 8 << 20, "the file keeps its size");
        drop(ring);
        std::fs::remove_file(&path).unwrap();
    }

    /// A read of an empty pipe stays in flight until the pipe is written:
    /// a wait until a deadline returns with no completion (it would wait
    /// forever for one otherwise), and the read completes, counted once,
    /// after the pipe is written. Both ways of waiting: a timeout on the
    /// wait (Linux 5.11+) and a timeout request in the ring; the timeout
    /// request's own completion is never handed out as an I/O's.
    #[test]
    fn a_wait_until_a_deadline_returns_without_a_completion() {
        if !crate::testing::io_uring_or_skip() {
            return;
        }
        for ext_arg in [true, false] {
            let mut fds = [0; 2];
            // SAFETY: pipe writes two descriptors into `fds`, which has room for two.
            assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
            let buffers = Buffers::new(2, 4096);
            let ring = Uring::new(fds[0], &buffers, 2, false, false).unwrap();
            let mut ring = if ext_arg { ring } else { ring.without_ext_arg() };
            let read = Request { slot: 0, io: Io { op: Op::Read, offset: 0, len: 4096 } };
            let mut done = Vec::new();
            ring.run_until(&[read], mono_ns() + 20_000_000, &mut done).unwrap();
            assert!(done.is_empty(), "ext_arg {ext_arg}: the pipe is empty, nothing completed");
            // Again, with the read still in flight.
            ring.run_until(&[], mono_ns() + 1_000_000, &mut done).unwrap();
            assert!(done.is_empty(), "ext_arg {ext_arg}");
            let data = [7u8; 4096];
            // SAFETY: `data` is 4096 readable bytes alive for the call; fds[1] is the pipe's open
            // write end.
            assert_eq!(unsafe { libc::write(fds[1], data.as_ptr().cast(), data.len()) }, 4096);
            while done.is_empty() {
                ring.run(&[], 1, &mut done).unwrap();
            }
            assert_eq!(done.len(), 1, "ext_arg {ext_arg}: {} completions", done.len());
            assert_eq!((done[0].slot, done[0].result), (0, 4096));
            assert_eq!(ring.inflight, 0);
            // The timeout requests ended the waits above and were reaped.
            assert_eq!(ring.timeouts, 0, "ext_arg {ext_arg}");
            drop(ring);
            // SAFETY: the two pipe descriptors were opened above and are closed once, after the
            // ring that used them is dropped.
            unsafe {
                libc::close(fds[0]);
                libc::close(fds[1]);
            }
        }
    }
}
