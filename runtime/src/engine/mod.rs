//! Engines: one interface, one file per engine, as fio's engines are.
//! A worker hands an engine the I/Os to start and asks for completions;
//! the engine owns how they reach the kernel.

#[cfg(test)]
pub mod fault;
pub mod psync;
#[cfg(test)]
pub mod trace;
pub mod uring;

use std::io;

pub use methodic_results::engine::EngineKind;

use crate::workload::Io;

/// An I/O to start, with the buffer slot it uses.
#[derive(Debug, Clone, Copy)]
pub struct Request {
    pub slot: u16,
    pub io: Io,
}

/// A finished I/O: its slot and the kernel's result (bytes, or -errno).
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
}
