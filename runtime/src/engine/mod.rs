//! Engines: one interface, one file per engine, as fio's engines are.
//! A worker hands an engine the I/Os to start and asks for completions,
//! waiting for at least one or (open loop) until a deadline on the
//! monotonic clock ([`mono_ns`]); the engine owns how they reach the
//! kernel, trims too (a hole punched in a file, a discard on a block
//! device: [`TrimWay`]). Engines are made through
//! an [`EngineFactory`] that the run options may replace (tests wrap the
//! real engines to inject faults or note every I/O); [`Real`] makes the
//! io_uring and psync engines, and [`null::NullEngines`] engines that do
//! no I/O at all (the host's pacing floor).

#[cfg(test)]
pub mod fault;
mod interface;
pub mod null;
pub mod psync;
#[cfg(test)]
pub mod trace;
pub mod uring;

use std::io;

use methodic_results::engine::EngineKind;

pub use self::interface::{Completion, Engine, EngineFactory, Request, Setup, TrimWay, mono_ns};

/// The engines methodic runs with: io_uring or psync, as the setup says.
#[derive(Debug, Clone, Copy, Default)]
pub struct Real;

impl EngineFactory for Real {
    fn make(&self, s: &Setup<'_>) -> io::Result<Box<dyn Engine>> {
        Ok(match s.kind {
            EngineKind::IoUring => {
                Box::new(uring::Uring::new(s.fd, s.buffers, s.depth, s.force_async, s.trims)?)
            }
            EngineKind::Psync => Box::new(psync::Psync::new(s.fd, s.buffers)),
        })
    }
}
