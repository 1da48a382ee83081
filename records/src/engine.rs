//! Which engine a run and each step's I/O used, as results record it.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EngineKind {
    /// io_uring: one ring per worker, registered buffers and file, batched
    /// submit and reap.
    IoUring,
    /// pread/pwrite, one I/O at a time per thread.
    Psync,
}

impl EngineKind {
    pub fn name(self) -> &'static str {
        match self {
            EngineKind::IoUring => "io_uring",
            EngineKind::Psync => "psync",
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct EngineNote {
    /// `auto`, `io-uring` or `psync`, as asked on the command line.
    pub choice: String,
    pub io_uring: bool,
    /// Why io_uring is not used, when it is not.
    pub io_uring_unavailable: Option<String>,
    /// Workers pinned to CPUs.
    pub pinned: bool,
    /// Latencies and series recorded (off only to measure what recording costs).
    pub latency_recorded: bool,
    /// The most psync threads a step uses; deeper queues use io_uring.
    pub psync_max_threads: u32,
}
