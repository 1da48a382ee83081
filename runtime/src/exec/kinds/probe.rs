//! Probe steps: the first target's route for the probe's I/O is chosen
//! (O_DIRECT in whole logical blocks, or the page cache in whole pages,
//! one route for every offset) with a caveat when the target is in RAM;
//! the probe itself is `crate::probe::run`, whose result and series come
//! out.

use methodic_compiler::plan::{IoMode, Probe};

use crate::error::Result;
use crate::exec::step::{Executor, StepRun};
use crate::probe;

/// Runs `probe ...` on the first target.
pub(super) fn run(x: &mut Executor<'_>, s: &mut StepRun<'_>, p: &Probe) -> Result<()> {
    let t = &x.targets[0];
    // A write reaches the device as written only with O_DIRECT, in whole
    // logical blocks; through the page cache it reaches the device as
    // whole pages. One route for every offset, or the two routes' own
    // difference would show as a pattern.
    let direct = s.settings.io == IoMode::Direct && t.has_direct();
    let unit = if direct { t.direct_align().max(512) } else { probe::page_size().max(t.logical_block) };
    let in_ram = t
        .identity
        .file_system
        .as_ref()
        .map(|f| f.fs_type.as_str())
        .filter(|f| ["tmpfs", "ramfs"].contains(f));
    let ram_disk = t.identity.driver.as_deref().filter(|d| ["zram", "brd"].contains(d));
    let caveat = in_ram
        .map(|fs| format!("the target is a file on {fs}, in RAM: there is no flash behind it"))
        .or(ram_disk.map(|d| format!("the target is a {d} device, in RAM: there is no flash behind it")));
    let route = probe::Route { file: t.file(direct), direct, unit, caveat };
    let csv = x.results.series_path(&s.step.id, "")?;
    s.out.probe = Some(probe::run(p, &route, 0, &csv, &x.workers.stop)?);
    s.out.series = Some(x.relative(&csv));
    Ok(())
}
