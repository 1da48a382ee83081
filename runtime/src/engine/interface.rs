//! The one interface every engine implements ([`Engine`]): the I/Os to
//! start ([`Request`]) and what completed ([`Completion`]), the clock
//! open-loop deadlines are on ([`mono_ns`]), how a target trims
//! ([`TrimWay`]), and how a worker gets its engine ([`EngineFactory`]
//! with its [`Setup`]).

use std::io;
use std::os::unix::io::RawFd;

use crate::data::Buffers;
use crate::workload::Io;
use methodic_results::engine::EngineKind;

/// An I/O to start, with the buffer slot it uses.
#[derive(Debug, Clone, Copy)]
pub struct Request {
    pub slot: u16,
    pub io: Io,
}

/// A finished I/O: its slot and the kernel's result (bytes, or -errno).
/// A trim that is done reports its length, as a read or write that moved
/// all its bytes does (the kernel's 0 is made so by the engine).
#[derive(Debug, Clone, Copy)]
pub struct Completion {
    pub slot: u16,
    pub result: i32,
}

pub trait Engine {
    fn kind(&self) -> EngineKind;

    /// Starts `reqs`, then waits until at least `wait` I/Os have completed
    /// (counting ones started earlier), and appends every completion
    /// available to `done`.
    fn run(&mut self, reqs: &[Request], wait: usize, done: &mut Vec<Completion>) -> io::Result<()>;

    /// Starts `reqs`, then waits until an I/O completes or the monotonic
    /// clock (`mono_ns`) reaches `deadline`, whichever comes first, and
    /// appends every completion available to `done` (none when the
    /// deadline came first). Open loop: a worker with a free slot waits so
    /// for its next I/O's due time. An engine that completes I/O inline
    /// (psync) returns at once: it has nothing left in flight to wait for.
    fn run_until(&mut self, reqs: &[Request], deadline: u64, done: &mut Vec<Completion>) -> io::Result<()>;

    /// The worker's buffers are registered with the kernel (io_uring's
    /// fixed buffers).
    fn fixed_buffers(&self) -> bool {
        false
    }

    /// Every I/O goes straight to a kernel worker (io_uring on a block
    /// device without nowait).
    fn force_async(&self) -> bool {
        false
    }
}

/// The monotonic clock (the one `Instant` reads) in nanoseconds: a u64
/// that a worker's loop subtracts and compares in one instruction each,
/// where `Instant` arithmetic normalises a (seconds, nanoseconds) pair;
/// the deadlines of [`Engine::run_until`] are on it.
#[inline]
pub fn mono_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // CLOCK_MONOTONIC cannot fail with a valid pointer.
    // SAFETY: `ts` is a valid, writable timespec for the call; CLOCK_MONOTONIC always exists.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// How a target deallocates a trimmed range: a file punches a hole, a
/// block device discards.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrimWay {
    /// `fallocate(FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE)`: the file
    /// keeps its size, the range reads back as zeros.
    PunchHole,
    /// A discard (`BLKDISCARD`, or io_uring's `BLOCK_URING_CMD_DISCARD`).
    Discard,
}

impl TrimWay {
    /// The way `fd` trims: a discard for a block device, a hole for
    /// anything else.
    pub fn of(fd: RawFd) -> TrimWay {
        // SAFETY: libc::stat is a plain C struct of integers, for which all zeroes is a valid
        // value.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: `st` is a writable stat of the size fstat fills; a closed or bad `fd` only makes
        // fstat fail.
        let block = unsafe { libc::fstat(fd, &mut st) } == 0 && st.st_mode & libc::S_IFMT == libc::S_IFBLK;
        if block { TrimWay::Discard } else { TrimWay::PunchHole }
    }

    /// The system call that trims `len` bytes at `offset` of `fd`: 0, or
    /// -1 with errno set.
    #[cold]
    #[inline(never)]
    pub fn call(self, fd: RawFd, offset: u64, len: u64) -> libc::c_int {
        // SAFETY: fallocate takes only numbers; BLKDISCARD reads two u64s (start, length) from
        // `range`, which lives until the call returns. A bad `fd` only makes the call fail.
        unsafe {
            match self {
                TrimWay::PunchHole => libc::fallocate(
                    fd,
                    libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
                    offset as libc::off_t,
                    len as libc::off_t,
                ),
                TrimWay::Discard => {
                    let range = [offset, len];
                    libc::ioctl(fd, crate::target::BLKDISCARD as _, range.as_ptr())
                }
            }
        }
    }

    /// Trims `len` bytes at `offset` of `fd` in this thread: 0, or -errno.
    pub fn trim_now(self, fd: RawFd, offset: u64, len: u64) -> i32 {
        loop {
            let rc = self.call(fd, offset, len);
            if rc == 0 {
                return 0;
            }
            let errno = io::Error::last_os_error().raw_os_error().unwrap_or(libc::EIO);
            if errno != libc::EINTR {
                return -errno;
            }
        }
    }
}

/// What one worker's engine is made for.
pub struct Setup<'a> {
    pub kind: EngineKind,
    /// The open target file the worker drives.
    pub fd: RawFd,
    /// The worker's buffers: an engine that hands their addresses to the
    /// kernel keeps their memory alive with a [`Lease`](crate::data::Lease).
    pub buffers: &'a Buffers,
    /// I/Os kept in flight.
    pub depth: u32,
    /// io_uring: send every I/O straight to a kernel worker.
    pub force_async: bool,
    /// Which of the run's targets the worker drives, from 0.
    pub target: usize,
    /// The worker's workload trims.
    pub trims: bool,
}

/// Makes each worker's engine: called once a worker, as it sets up,
/// never per I/O. A run uses [`Real`](crate::Real) unless its options give another.
pub trait EngineFactory: Send + Sync + std::fmt::Debug {
    /// The engine for `setup`, or why it cannot be made (io_uring refused
    /// by the kernel, say).
    fn make(&self, setup: &Setup<'_>) -> io::Result<Box<dyn Engine>>;
}
