//! The psync engine: pread and pwrite, one I/O at a time (a trim: a hole
//! punched with fallocate, or BLKDISCARD on a block device). Used where it is
//! faster (one outstanding I/O per worker) and where io_uring is not
//! available (disabled by `io_uring_disabled`, or by seccomp).

use std::io;
use std::os::unix::io::RawFd;

use super::{Completion, Engine, EngineKind, Request, TrimWay};
use crate::data::{Buffers, Lease};
use crate::workload::Op;

/// pread and pwrite into a worker's buffers, whose memory it holds a
/// [`Lease`] on.
pub struct Psync {
    fd: RawFd,
    buffers: Vec<usize>,
    /// The memory behind `buffers`, kept alive as long as this engine.
    _memory: Lease,
    trim: TrimWay,
}

impl Psync {
    pub fn new(fd: RawFd, buffers: &Buffers) -> Psync {
        Psync {
            fd,
            buffers: (0..buffers.slots()).map(|i| buffers.ptr(i) as usize).collect(),
            _memory: buffers.lease(),
            trim: TrimWay::of(fd),
        }
    }
}

impl Psync {
    /// A trim's completion: its length when done, or -errno. Out of line
    /// and cold, so that the loop of reads and writes keeps its registers.
    #[cold]
    #[inline(never)]
    fn trim_io(&self, r: &Request) -> Completion {
        let rc = self.trim.trim_now(self.fd, r.io.offset, r.io.len as u64);
        Completion { slot: r.slot, result: if rc == 0 { r.io.len as i32 } else { rc } }
    }
}

impl Engine for Psync {
    fn kind(&self) -> EngineKind {
        EngineKind::Psync
    }

    fn run(&mut self, reqs: &[Request], _wait: usize, done: &mut Vec<Completion>) -> io::Result<()> {
        for r in reqs {
            if r.io.op == Op::Trim {
                done.push(self.trim_io(r));
                continue;
            }
            let ptr = self.buffers[r.slot as usize] as *mut libc::c_void;
            let result = loop {
                // SAFETY: `ptr` is slot `r.slot` of the worker's buffers, whose memory this
                // engine's lease keeps alive, and holds at least `r.io.len` bytes (the slot size
                // is the largest block); pread writes at most that many, pwrite reads them.
                let n = unsafe {
                    if r.io.op == Op::Read {
                        libc::pread(self.fd, ptr, r.io.len as usize, r.io.offset as libc::off_t)
                    } else {
                        libc::pwrite(self.fd, ptr, r.io.len as usize, r.io.offset as libc::off_t)
                    }
                };
                if n >= 0 {
                    break n as i32;
                }
                let errno = io::Error::last_os_error().raw_os_error().unwrap_or(libc::EIO);
                if errno != libc::EINTR {
                    break -errno;
                }
            };
            done.push(Completion { slot: r.slot, result });
        }
        Ok(())
    }

    /// Every I/O completes in its system call: nothing is left in flight
    /// to wait for, and an idle worker sleeps to its deadline itself.
    fn run_until(&mut self, reqs: &[Request], _deadline: u64, done: &mut Vec<Completion>) -> io::Result<()> {
        self.run(reqs, 0, done)
    }
}
