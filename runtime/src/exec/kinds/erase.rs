//! Erase steps: each target the step spreads over is erased over its span
//! (discard, secure erase, ... as the step says); what was done comes out
//! as the step's actions. The erasing itself is `crate::system::erase`.

use methodic_compiler::plan::{Bytes, EraseMethod};

use crate::error::{Error, Result};
use crate::exec::step::{Executor, StepRun};
use crate::region::step_region;
use crate::system;

/// Runs `erase method` on each of the step's targets.
pub(super) fn run(x: &mut Executor<'_>, s: &mut StepRun<'_>, method: EraseMethod) -> Result<()> {
    for t in x.targets.iter().take(s.settings.devices.max(1) as usize) {
        let region = step_region(s.settings.span, Bytes(0), Bytes(1), Bytes(t.capacity), t.logical_block)
            .map_err(|e| Error::target(&t.path, e.to_string()))?;
        s.out.actions.push(system::erase(t, method, region)?);
    }
    Ok(())
}
