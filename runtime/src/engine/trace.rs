//! A recorder for tests: an engine wrapped so that every I/O it is handed
//! (op, offset, length) is noted, in the order it was handed over, before
//! it goes to the wrapped engine unchanged. Test builds only: it shows
//! what a worker really issued, without strace.

use std::io;
use std::sync::{Arc, Mutex};

use super::{Completion, Engine, EngineKind, Request};
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

    fn run(&mut self, reqs: &[Request], wait: usize, done: &mut Vec<Completion>) -> io::Result<()> {
        self.log.lock().expect("the trace log is not poisoned").extend(reqs.iter().map(|r| r.io));
        self.inner.run(reqs, wait, done)
    }
}
