//! What a step asked of the storage and what reached the device, reads and
//! writes apart, by the kernel's counters; and the words a report says
//! about it. The runtime's meter counts; this is its record.

use methodic_compiler::plan::{Bytes, Percent};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::units::human;

/// A read of which the page cache served at least this share (less than a
/// tenth of it reached the device) was served from the page cache.
pub const SERVED_FROM_CACHE_HUNDREDTHS: u32 = 9000;

/// What a step's I/O asked for and what reached the device, reads and
/// writes apart.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DeviceIo {
    pub read: Flow,
    pub write: Flow,
}

/// One direction of a step's I/O.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Flow {
    /// Bytes the step asked to read (to write).
    pub asked: Bytes,
    /// Which counter `reached` comes from.
    pub counter: Counter,
    /// What was counted: the block devices (`vda`, `vda1, vdb`), the file
    /// system in RAM (`tmpfs`), or `/proc/self/io`.
    pub source: String,
    /// Bytes that reached the storage while the step ran, by `counter`;
    /// `None` when the data is in RAM or nothing could be read.
    pub reached: Option<Bytes>,
    /// The block devices' own count over the step: every process's I/O.
    pub device_bytes: Option<Bytes>,
    /// This process's count over the step (/proc/self/io), on any device.
    pub process_bytes: Option<Bytes>,
    /// Reads: the share of `asked` that did not reach the device, served
    /// by the page cache; `None` when nothing was asked or counted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached: Option<Percent>,
    /// Why the block device's counts could not be used, when they could not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Where a flow's `reached` comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Counter {
    /// The block devices' statistics in sysfs (reads: no more than this
    /// process's own count).
    Device,
    /// This process's counts in /proc/self/io: no block device was found
    /// under the file system (overlay, a network file system).
    Process,
    /// The data lives in RAM (tmpfs, ramfs): there is no device to reach.
    Ram,
    /// No counter could be read.
    None,
}

impl Flow {
    /// Served from the page cache: less than a tenth reached the device.
    pub fn served_from_cache(&self) -> bool {
        self.cached.is_some_and(|c| c.hundredths() >= SERVED_FROM_CACHE_HUNDREDTHS)
    }

    /// The counter answers whether reads reached the device.
    pub fn counted(&self) -> bool {
        matches!(self.counter, Counter::Device | Counter::Process) && self.reached.is_some()
    }

    /// Where the bytes went, in words: `vda`, `storage (/proc/self/io)`.
    fn place(&self) -> String {
        match self.counter {
            Counter::Process => format!("storage ({})", self.source),
            _ => self.source.clone(),
        }
    }
}

impl DeviceIo {
    /// The reads in words, `verb` saying what the step did with them:
    /// `256.0 MiB copied, 0 B read from vda: served from the page cache`;
    /// `None` when the step read nothing.
    pub fn read_words(&self, verb: &str) -> Option<String> {
        let r = &self.read;
        if r.asked.0 == 0 {
            return None;
        }
        let asked = human(r.asked.0);
        Some(match (r.counter, r.reached) {
            (Counter::Device | Counter::Process, Some(reached)) => {
                let verdict = match r.cached {
                    _ if r.served_from_cache() => ": served from the page cache".to_string(),
                    Some(c) if c.hundredths() >= 1000 => format!(": {c} served from the page cache"),
                    _ => String::new(),
                };
                format!("{asked} {verb}, {} read from {}{verdict}", human(reached.0), r.place())
            }
            (Counter::Ram, _) => format!("{asked} {verb} from {} (in RAM: no device under it)", r.source),
            _ => format!(
                "{asked} {verb}; the bytes read from the device could not be counted ({})",
                r.note.as_deref().unwrap_or("no counter")
            ),
        })
    }

    /// The writes in words: `256.0 MiB written, 257.1 MiB to vda`; `None`
    /// when the step wrote nothing.
    pub fn write_words(&self) -> Option<String> {
        let w = &self.write;
        if w.asked.0 == 0 {
            return None;
        }
        let asked = human(w.asked.0);
        Some(match (w.counter, w.reached) {
            (Counter::Device | Counter::Process, Some(reached)) => {
                format!("{asked} written, {} to {}", human(reached.0), w.place())
            }
            (Counter::Ram, _) => format!("{asked} written to {} (in RAM: no device under it)", w.source),
            _ => format!("{asked} written; the bytes that reached the device could not be counted"),
        })
    }

    /// Reads and writes in words, for a report: the copy's or step's line.
    pub fn words(&self, verb: &str) -> String {
        let parts: Vec<String> = [self.read_words(verb), self.write_words()].into_iter().flatten().collect();
        if parts.is_empty() { "nothing read or written".into() } else { parts.join("; ") }
    }
}
