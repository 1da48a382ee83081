//! The destructive-write guard: a block device the plan writes to goes in;
//! out comes leave to write or a refusal that says why and what to do.
//! `DeviceFacts::read` finds out what the device holds and what uses it;
//! `judge` decides from those facts alone, so that every refusal can be
//! tested without a real device.
//!
//! Two kinds of refusal:
//! - in use, which no consent lifts: a file system on the device, one of
//!   its partitions, or something built on them is mounted (the root file
//!   system and the results directory are named as such); swap is on it;
//!   something (device-mapper, md, bcache) holds it or a partition.
//! - may hold data, which `--destroy` lifts when it names the device: a
//!   partition table or a file system or volume signature in the first MiB,
//!   partitions, or, for a loop device, a backing file methodic did not
//!   make. A loop device writes through to its file, so it is treated like a
//!   file target: expected only when the file carries methodic's scratch
//!   mark. A loop device over another block device writes over that
//!   device, and is in use when that device is.
//!
//! `check` is the one entry point (the target calls it before it opens a
//! device to write). `facts` gathers the facts and reads signatures;
//! `judge` decides from them; `scan` reads what the kernel says about
//! devices, mounts and swap.

use std::path::Path;

use self::facts::DeviceFacts;
use crate::error::Result;
use methodic_results::host::Identity;

mod facts;
mod judge;
mod scan;

/// Refuses to write to the block device `rdev`, opened as `path`, when it
/// is in use (whatever `destroy` says), or when it may hold data and no
/// `--destroy` names it (a run on several devices gives one each);
/// `results` is the run's results directory. Reads what the kernel says
/// and the device's first MiB; writes nothing.
pub(crate) fn check(
    path: &Path,
    rdev: u64,
    identity: &Identity,
    results: Option<&Path>,
    destroy: &[String],
) -> Result<()> {
    let facts = DeviceFacts::read(path, rdev, identity, results)?;
    let consent = facts.consent();
    // The one that names this device; else all of them, to say none does.
    let given = match destroy.iter().find(|g| **g == consent) {
        Some(g) => Some(g.clone()),
        None if destroy.is_empty() => None,
        None => Some(destroy.join(", --destroy ")),
    };
    judge::judge(&facts, given.as_deref())
}
