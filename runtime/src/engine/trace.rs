//! A recorder for tests: an engine wrapped so that every I/O it is handed
//! (op, offset, length) is noted, in the order it was handed over, before
//! it goes to the wrapped engine unchanged. [`Tracing`] is the engine
//! factory tests put in the run options to trace every engine a run makes.
//! Test builds only: it shows what a worker really issued, without strace.

use std::io;
use std::sync::{Arc, Mutex};

use super::{Completion, Engine, EngineFactory, EngineKind, Real, Request, Setup};
use crate::workload::Io;

/// An engine that notes every I/O into a shared log.
pub struct Traced {
    inner: Box<dyn Engine>,
    log: Arc<Mutex<Vec<Io>>>,
}

impl Traced {
    pub fn new(inner: Box<dyn Engine>, log: Arc<Mutex<Vec<Io>>>) -> Traced {
        Traced { inner, log }
    }
}

impl Engine for Traced {
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
        self.log.lock().expect("the trace log is not poisoned").extend(reqs.iter().map(|r| r.io));
        self.inner.run(reqs, wait, done)
    }

    fn run_until(&mut self, reqs: &[Request], deadline: u64, done: &mut Vec<Completion>) -> io::Result<()> {
        self.log.lock().expect("the trace log is not poisoned").extend(reqs.iter().map(|r| r.io));
        self.inner.run_until(reqs, deadline, done)
    }
}

/// An engine factory: the real engines, each traced into a log of its own.
#[derive(Debug, Default)]
pub struct Tracing {
    logs: Mutex<Vec<Arc<Mutex<Vec<Io>>>>>,
}

impl Tracing {
    /// The I/Os each engine was handed, a list an engine, in the order the
    /// engines were made.
    pub fn logs(&self) -> Vec<Vec<Io>> {
        let logs = self.logs.lock().expect("the trace logs are not poisoned");
        logs.iter().map(|l| l.lock().expect("a trace log is not poisoned").clone()).collect()
    }
}

impl EngineFactory for Tracing {
    fn make(&self, setup: &Setup<'_>) -> io::Result<Box<dyn Engine>> {
        let log = Arc::default();
        self.logs.lock().expect("the trace logs are not poisoned").push(Arc::clone(&log));
        Ok(Box::new(Traced::new(Real.make(setup)?, log)))
    }
}
