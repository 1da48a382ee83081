//! The null engine: every I/O completes as it starts, with all its bytes,
//! and no system call is made. What is left of a worker is its loop: the
//! host's pacing floor runs an open loop on it to measure how late the
//! host alone starts I/Os at a rate (`crate::exec::floor`).

use std::io;

use super::{Completion, Engine, EngineFactory, EngineKind, Request, Setup};

/// Completes each request at once, as the engine kind it stands in for.
pub struct Null {
    kind: EngineKind,
}

impl Engine for Null {
    fn kind(&self) -> EngineKind {
        self.kind
    }

    fn run(&mut self, reqs: &[Request], _wait: usize, done: &mut Vec<Completion>) -> io::Result<()> {
        done.extend(reqs.iter().map(|r| Completion { slot: r.slot, result: r.io.len as i32 }));
        Ok(())
    }

    fn run_until(&mut self, reqs: &[Request], _deadline: u64, done: &mut Vec<Completion>) -> io::Result<()> {
        // Nothing is ever in flight: like psync, nothing to wait for.
        self.run(reqs, 0, done)
    }
}

/// Makes [`Null`] engines of the kind each worker asks for.
#[derive(Debug, Clone, Copy, Default)]
pub struct NullEngines;

impl EngineFactory for NullEngines {
    fn make(&self, setup: &Setup<'_>) -> io::Result<Box<dyn Engine>> {
        Ok(Box::new(Null { kind: setup.kind }))
    }
}
