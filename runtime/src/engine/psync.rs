//! The psync engine: pread and pwrite, one I/O at a time. Used where it is
//! faster (one outstanding I/O per worker) and where io_uring is not
//! available (disabled by `io_uring_disabled`, or by seccomp).

use std::io;
use std::os::unix::io::RawFd;

use super::{Completion, Engine, EngineKind, Request};
use crate::data::Buffers;
use crate::workload::Op;

pub struct Psync {
    fd: RawFd,
    buffers: Vec<usize>,
}

impl Psync {
    /// The buffers must outlive the engine; the worker owns both.
    pub fn new(fd: RawFd, buffers: &Buffers) -> Psync {
        Psync { fd, buffers: (0..buffers.slots()).map(|i| buffers.ptr(i) as usize).collect() }
    }
}

impl Engine for Psync {
    fn kind(&self) -> EngineKind {
        EngineKind::Psync
    }

    fn run(&mut self, reqs: &[Request], _wait: usize, done: &mut Vec<Completion>) -> io::Result<()> {
        for r in reqs {
            let ptr = self.buffers[r.slot as usize] as *mut libc::c_void;
            let result = loop {
                let n = unsafe {
                    match r.io.op {
                        Op::Read => libc::pread(self.fd, ptr, r.io.len as usize, r.io.offset as libc::off_t),
                        Op::Write => {
                            libc::pwrite(self.fd, ptr, r.io.len as usize, r.io.offset as libc::off_t)
                        }
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
