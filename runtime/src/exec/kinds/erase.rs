//! Erase steps: each target the step spreads over is erased over its span
//! (a discard), or whole by the drive itself (purge, sanitize, format,
//! ATA security erase); what was done, and why that way, comes out as the
//! step's actions. The erasing itself is `crate::system::erase`.

use methodic_compiler::plan::{Bytes, EraseMethod};

use crate::error::{Error, Result};
use crate::exec::Observer;
use crate::exec::step::{Executor, StepRun};
use crate::region::step_region;
use crate::system;

/// Runs `erase method` on each of the step's targets.
pub(super) fn run(
    x: &mut Executor<'_>,
    s: &mut StepRun<'_>,
    method: EraseMethod,
    observer: &mut dyn Observer,
) -> Result<()> {
    for t in x.targets.iter().take(s.settings.devices.max(1) as usize) {
        let region = step_region(s.settings.span, Bytes(0), Bytes(1), Bytes(t.capacity), t.logical_block)
            .map_err(|e| Error::target(&t.path, e.to_string()))?;
        let what = format!("erase {} of {}", method.keyword(), t.path.display());
        let mut progress = |share: f64| observer.progress(&what, share);
        s.out.actions.push(system::erase(t, method, region, &mut progress)?);
    }
    Ok(())
}
