//! A fault injector for tests: an engine wrapped so that the I/Os touching
//! a chosen byte range fail with a chosen errno instead of reaching the
//! file, as a failing drive's would. Every other I/O goes to the wrapped
//! engine unchanged. [`FaultyEngines`] is the engine factory tests put in
//! the run options to make a run's engines so. Test builds only: methodic
//! never injects faults.

use std::io;
use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::{Completion, Engine, EngineFactory, EngineKind, Real, Request, Setup};
use crate::workload::Op;

/// Which I/Os fail, and how.
#[derive(Debug, Clone)]
pub struct Fault {
    /// Reads, writes, or both (`None`).
    pub op: Option<Op>,
    /// I/Os that overlap these bytes fail.
    pub bytes: Range<u64>,
    /// The error they fail with (`libc::EIO`).
    pub errno: i32,
    /// Engines made with this fault before the `healthy`-th one (counted
    /// from 0 over every clone) fail nothing: a step's round or cell that
    /// starts its workers anew fails only from a chosen one on.
    pub healthy: u64,
    made: Arc<AtomicU64>,
}

impl PartialEq for Fault {
    fn eq(&self, o: &Fault) -> bool {
        (self.op, &self.bytes, self.errno, self.healthy) == (o.op, &o.bytes, o.errno, o.healthy)
    }
}

impl Fault {
    /// EIO for `op` (both when `None`) on I/Os overlapping `bytes`.
    pub fn eio(op: Option<Op>, bytes: Range<u64>) -> Fault {
        Fault { op, bytes, errno: libc::EIO, healthy: 0, made: Arc::default() }
    }

    /// The same fault, from the `n`-th engine made on (from 0).
    pub fn on_engines_from(mut self, n: u64) -> Fault {
        self.healthy = n;
        self
    }

    fn hits(&self, r: &Request) -> bool {
        let end = r.io.offset + r.io.len as u64;
        self.op.is_none_or(|op| op == r.io.op) && r.io.offset < self.bytes.end && self.bytes.start < end
    }
}

/// An engine whose I/Os fail where its [`Fault`] says.
pub struct Faulty {
    inner: Box<dyn Engine>,
    fault: Fault,
    /// This engine fails I/Os (it is not one of the healthy first ones).
    armed: bool,
}

impl Faulty {
    pub fn new(inner: Box<dyn Engine>, fault: Fault) -> Faulty {
        let ordinal = fault.made.fetch_add(1, Ordering::SeqCst);
        let armed = ordinal >= fault.healthy;
        Faulty { inner, fault, armed }
    }
}

impl Engine for Faulty {
    fn kind(&self) -> EngineKind {
        self.inner.kind()
    }

    fn fixed_buffers(&self) -> bool {
        self.inner.fixed_buffers()
    }

    fn force_async(&self) -> bool {
        self.inner.force_async()
    }

    fn run(&mut self, reqs: &[Request], wait: usize, done: &mut Vec<Completion>) -> io::Result<()> {
        let (failing, passing): (Vec<Request>, Vec<Request>) =
            reqs.iter().partition(|r| self.armed && self.fault.hits(r));
        // The failed I/Os complete at once; the wrapped engine need not
        // wait for as many of its own.
        self.inner.run(&passing, wait.saturating_sub(failing.len()), done)?;
        done.extend(failing.iter().map(|r| Completion { slot: r.slot, result: -self.fault.errno }));
        Ok(())
    }

    fn run_until(&mut self, reqs: &[Request], deadline: u64, done: &mut Vec<Completion>) -> io::Result<()> {
        let (failing, passing): (Vec<Request>, Vec<Request>) =
            reqs.iter().partition(|r| self.armed && self.fault.hits(r));
        // A failed I/O is a completion now: no waiting for the deadline.
        if failing.is_empty() {
            self.inner.run_until(&passing, deadline, done)?;
        } else {
            self.inner.run(&passing, 0, done)?;
        }
        done.extend(failing.iter().map(|r| Completion { slot: r.slot, result: -self.fault.errno }));
        Ok(())
    }
}

/// An engine factory: the real engines, those of the workers on target
/// `on` (from 0) wrapped to fail as `fault` says.
#[derive(Debug, Clone)]
pub struct FaultyEngines {
    pub on: usize,
    pub fault: Fault,
}

impl EngineFactory for FaultyEngines {
    fn make(&self, setup: &Setup<'_>) -> io::Result<Box<dyn Engine>> {
        let engine = Real.make(setup)?;
        Ok(if setup.target == self.on { Box::new(Faulty::new(engine, self.fault.clone())) } else { engine })
    }
}
