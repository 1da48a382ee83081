//! Copy steps: a dataset of files is generated (or reused, out of the page
//! cache) and copied beside the file target, as a user's copy would; the
//! copy's rate and the bytes that reached the device come out. Making and
//! copying the files is `crate::copy`'s; this module says where.

use std::path::Path;

use methodic_compiler::plan::Dataset;
use methodic_results::host::TargetKind;

use crate::error::{Error, Result};
use crate::exec::step::{Executor, StepRun};

/// Runs `copy dataset` on the first target, a file.
pub(super) fn run(x: &mut Executor<'_>, s: &mut StepRun<'_>, dataset: &Dataset) -> Result<()> {
    let out = &mut *s.out;
    let t = &x.targets[0];
    if t.kind != TargetKind::File {
        return Err(Error::unsupported("copy steps copy files, and need a file target")
            .with_hint("give a file on the file system to test as --target, or run on a scratch file"));
    }
    let stop = &x.workers.stop;
    let source = x.opts.datasets_dir(&x.results.path).join(&dataset.name);
    if crate::copy::prepare(dataset, &source, stop)? {
        out.actions.push(format!("generated dataset {} in {}", dataset.name, source.display()));
    } else if !x.datasets_seen.contains(&source) {
        // Made by an earlier run: out of the page cache, as a new one
        // would be, before this run's first copy of it.
        crate::copy::evict(&source, dataset.files);
        out.actions.push(format!(
            "reused dataset {} in {}, dropped from the page cache",
            dataset.name,
            source.display()
        ));
    }
    if !x.datasets_seen.contains(&source) {
        x.datasets_seen.push(source.clone());
    }
    let parent = t.path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let dest = parent.join(format!("methodic-copy-{}", std::process::id()));
    if !x.copies.contains(&dest) {
        x.copies.push(dest.clone());
    }
    let (copied, device_io) = crate::copy::copy_tree(&source, &dest, dataset.files, stop)?;
    out.copy = Some(copied);
    out.device_io = Some(device_io);
    Ok(())
}
