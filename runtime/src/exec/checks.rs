//! The checks before a run writes anything: which targets the plan needs
//! and how to open them (or the scratch files to make), that every
//! O_DIRECT step's sizes suit its target's alignment, that every target a
//! step trims on can deallocate (a device that discards, a file system
//! that punches holes), and that the results
//! directory's file system has room for what the run puts there. A plan
//! and the run options go in; open targets, or the error that stops the
//! run before it starts, come out.

use std::path::Path;

use methodic_compiler::plan::{Action, Bytes, Extent, IoMode, Plan};

use super::options::RunOptions;
use crate::error::{Error, Result};
use crate::rehearse;
use crate::system;
use crate::target::{OpenOptionsT, Target};
use methodic_results::host::TargetKind;

/// Opens the targets the plan needs, or makes scratch files in `out`.
pub(super) fn open_targets(plan: &Plan, opts: &RunOptions, out: &Path) -> Result<Vec<Target>> {
    let devices = devices(plan);
    let mut open = open_options(plan, opts)?;
    if opts.targets.is_empty() {
        let size = if opts.rehearse { Bytes(rehearse::CAPACITY) } else { scratch_size(plan) };
        open.create_size = Some(size.0);
        return (0..devices)
            .map(|i| {
                let name = if devices == 1 { "scratch.bin".to_string() } else { format!("scratch-{i}.bin") };
                Target::open(&out.join(name), &open)
            })
            .collect();
    }
    if opts.targets.len() < devices {
        return Err(Error::unsupported(format!(
            "the plan spreads its workers over {devices} devices, but {} --target {} given",
            opts.targets.len(),
            if opts.targets.len() == 1 { "was" } else { "were" }
        ))
        .with_hint(format!("give --target once for each of the {devices} devices")));
    }
    opts.targets.iter().map(|p| Target::open_with_results(p, &open, Some(out))).collect()
}

/// How many devices the plan spreads its workers over: its targets'
/// `devices`, or as many as its jobs name (`job ... device 3` needs three),
/// whichever is more.
pub(crate) fn devices(plan: &Plan) -> usize {
    let spread = plan.steps.iter().filter_map(|s| s.target.map(|t| t.devices)).max().unwrap_or(1);
    let named = plan
        .steps
        .iter()
        .filter_map(|s| match &s.action {
            Action::Together { jobs, .. } => jobs.iter().map(|j| j.device + 1).max(),
            // Their workers spread over the target's devices.
            Action::Erase { .. }
            | Action::Fill { .. }
            | Action::Precondition { .. }
            | Action::Measure { .. }
            | Action::Rounds { .. }
            | Action::Qos(_)
            | Action::Idle { .. }
            | Action::DropCaches
            | Action::LimitRam { .. }
            | Action::Copy { .. }
            | Action::Probe(_) => None,
        })
        .max()
        .unwrap_or(1);
    spread.max(named).max(1) as usize
}

/// How the plan needs its targets opened: for writing or not, with
/// O_DIRECT or not, and the consent given on the command line.
pub(crate) fn open_options(plan: &Plan, opts: &RunOptions) -> Result<OpenOptionsT> {
    let need_direct = plan
        .steps
        .iter()
        .any(|s| s.target.is_some_and(|t| t.io == IoMode::Direct) && s.action.touches_target());
    // Copies write beside the target, not to it.
    let write = plan.steps.iter().any(|s| s.action.writes() && !matches!(s.action, Action::Copy { .. }));
    if write && plan.methodology.non_destructive {
        return Err(Error::unsupported(
            "the plan says non_destructive but has steps that write to the target: it was edited by hand?",
        )
        .with_hint("compile the methodology again; methodic does not open a non_destructive plan's target for writing"));
    }
    Ok(OpenOptionsT {
        create_size: None,
        need_direct,
        write,
        destroy: opts.destroy.clone(),
        overwrite: opts.overwrite,
    })
}

/// Refuses, before anything is written, a step whose O_DIRECT I/O the
/// target cannot take: block sizes, alignment and start offsets must be
/// multiples of its direct-I/O alignment (statx's dio_offset_align, else
/// the logical block size), or every I/O fails with EINVAL mid-run.
pub(super) fn check_alignment(plan: &Plan, targets: &[Target]) -> Result<()> {
    for (i, step) in plan.steps.iter().enumerate() {
        let Some(settings) = step.target.filter(|t| t.io == IoMode::Direct) else { continue };
        for t in targets.iter().take(settings.devices.max(1) as usize).filter(|t| t.has_direct()) {
            let align = t.direct_align().max(1);
            for w in step.action.workloads() {
                let sizes = w.all_blocks().map(|b| b.size).chain([w.align, w.offset]);
                if let Some(bad) = sizes.filter(|b| b.0 != 0).find(|b| b.0 % align != 0) {
                    return Err(Error::target(
                        &t.path,
                        format!(
                            "step {} ({}) does O_DIRECT I/O in multiples of {bad}, but this target takes direct I/O \
                             only in multiples of {} (its {})",
                            i + 1,
                            step.id,
                            Bytes(align),
                            if t.dio_offset_align.is_some() { "direct-I/O alignment" } else { "logical block size" }
                        ),
                    )
                    .with_hint(format!(
                        "use `io buffered` for that step, or block sizes and alignment in multiples of {}",
                        Bytes(align)
                    )));
                }
            }
        }
    }
    Ok(())
}

/// Refuses, before anything is written, a step that trims on a target
/// that cannot: a block device whose queue takes no discard
/// (`queue/discard_max_bytes` 0 in sysfs), or a file whose file system
/// does not punch holes. Every trim would fail mid-step otherwise.
pub(super) fn check_trims(plan: &Plan, targets: &[Target]) -> Result<()> {
    for (i, step) in plan.steps.iter().enumerate() {
        if !step.action.workloads().iter().any(|w| w.trim > methodic_compiler::plan::Percent::ZERO) {
            continue;
        }
        let devices = match step.action {
            // A together step's jobs each name their device.
            Action::Together { .. } => targets.len(),
            Action::Erase { .. }
            | Action::Fill { .. }
            | Action::Precondition { .. }
            | Action::Measure { .. }
            | Action::Qos(_)
            | Action::Rounds { .. }
            | Action::DropCaches
            | Action::Idle { .. }
            | Action::LimitRam { .. }
            | Action::Copy { .. }
            | Action::Probe(_) => step.target.unwrap_or(plan.target).devices.max(1) as usize,
        };
        for t in targets.iter().take(devices) {
            if let Err(why) = can_trim(t) {
                return Err(Error::target(
                    &t.path,
                    format!("step {} ({}) trims, but {why}", i + 1, step.id),
                )
                .with_hint(if t.kind == TargetKind::BlockDevice {
                    "run the trimming steps on a device that takes discards (most SSDs, NVMe drives, zram,                      loop devices over a file system that punches holes), or leave trim out of the workload"
                } else {
                    "put the target on a file system that punches holes (ext4, xfs, btrfs, tmpfs), or leave                      trim out of the workload"
                }));
            }
        }
    }
    Ok(())
}

/// Whether `t` can deallocate a range, and if not, why not in words.
fn can_trim(t: &Target) -> std::result::Result<(), String> {
    use std::os::unix::io::AsRawFd;
    match t.kind {
        TargetKind::BlockDevice => {
            let name = t.identity.name.as_deref().unwrap_or("");
            // A partition has no queue of its own: its disk's is the one.
            let max = ["queue", "../queue"]
                .iter()
                .find_map(|q| crate::sysfs::sysfs(&format!("/sys/class/block/{name}/{q}/discard_max_bytes")));
            match max.as_deref().map(str::parse::<u64>) {
                Some(Ok(n)) if n > 0 => Ok(()),
                Some(_) => {
                    Err("the device does not take discards (its queue's discard_max_bytes is 0)".into())
                }
                None => Err(format!(
                    "the kernel says nothing of discards for it (no {name}/queue/discard_max_bytes in sysfs)"
                )),
            }
        }
        TargetKind::File => {
            // A hole punched past the end of the file deallocates nothing,
            // and fails as a trim would where the file system has no holes.
            // SAFETY: fallocate takes a descriptor and numbers, no pointer; the target keeps the
            // descriptor open for the call.
            let rc = unsafe {
                libc::fallocate(
                    t.file(false).as_raw_fd(),
                    libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
                    t.capacity.next_multiple_of(4096) as libc::off_t,
                    4096,
                )
            };
            if rc == 0 {
                return Ok(());
            }
            let e = std::io::Error::last_os_error();
            let words = e.to_string();
            let words = words.split(" (os error").next().unwrap_or(&words).to_string();
            Err(match e.raw_os_error() {
                Some(libc::EOPNOTSUPP) => {
                    let fs = t
                        .identity
                        .file_system
                        .as_ref()
                        .map_or("its file system".to_string(), |f| f.fs_type.clone());
                    format!("{fs} does not punch holes in files (fallocate PUNCH_HOLE: {words})")
                }
                _ => format!("a hole could not be punched in it (fallocate PUNCH_HOLE: {words})"),
            })
        }
    }
}

/// Refuses, before anything is written, an erase the drive cannot do (a
/// sanitize on a drive without it, an ATA security erase on a frozen
/// drive), naming what it can; and a whole-drive erase that would take
/// other namespaces of the same NVMe controller with it.
pub(super) fn check_erases(plan: &Plan, targets: &[Target]) -> Result<()> {
    for (i, step) in plan.steps.iter().enumerate() {
        let Action::Erase { method } = step.action else { continue };
        if !method.whole_drive() {
            continue;
        }
        let devices = step.target.unwrap_or(plan.target).devices.max(1) as usize;
        for t in targets.iter().take(devices).filter(|t| t.kind == TargetKind::BlockDevice) {
            let abilities = crate::drive::abilities(t);
            let what = format!("step {} ({}): ", i + 1, step.id);
            let (way, _) = crate::drive::erase::choose(method, &abilities).map_err(|e| {
                Error::target(&t.path, format!("{what}{e}")).with_hint(
                    "write an erase this drive supports, or `erase purge` for the strongest it has",
                )
            })?;
            if let Some(others) = crate::drive::erase_reaches_beyond(t, way) {
                return Err(Error::target(
                    &t.path,
                    format!(
                        "{what}{} erases every namespace of the controller, and it has others: {others}",
                        way.command(abilities.interface)
                    ),
                )
                .with_hint(
                    "erase only this namespace with `erase discard`, or delete the other namespaces first",
                ));
            }
        }
    }
    Ok(())
}

/// What a run puts in its results directory beyond its records: scratch
/// files, datasets generated there, and copies beside a scratch target.
/// Refused before anything is made when the file system has not the room,
/// rather than failing a day later.
pub(super) fn check_space(plan: &Plan, opts: &RunOptions) -> Result<()> {
    let mut parts: Vec<(Bytes, &str)> = Vec::new();
    if opts.targets.is_empty() {
        let size = if opts.rehearse { Bytes(rehearse::CAPACITY) } else { scratch_size(plan) };
        parts.push((Bytes(devices(plan) as u64 * size.0), "the scratch file"));
    }
    let mut datasets: Vec<&methodic_compiler::plan::Dataset> = Vec::new();
    for s in &plan.steps {
        if let Action::Copy { dataset } = &s.action
            && !datasets.iter().any(|d| d == &dataset)
        {
            datasets.push(dataset);
        }
    }
    if opts.datasets.is_none() && !datasets.is_empty() {
        parts.push((Bytes(datasets.iter().map(|d| d.total.0).sum()), "the copy datasets"));
    }
    if opts.targets.is_empty()
        && let Some(largest) = datasets.iter().map(|d| d.total).max()
    {
        parts.push((largest, "copies beside the scratch file"));
    }
    // steps.jsonl, series and the manifest: a generous allowance.
    parts.push((Bytes(16 << 20), "records and series"));
    let need = Bytes(parts.iter().map(|p| p.0.0).sum());
    let Some((free, read_only)) = system::free_bytes(&opts.out) else { return Ok(()) };
    if read_only {
        return Err(Error::results(&opts.out, "is on a read-only file system")
            .with_hint("give --out a directory on a file system you can write to"));
    }
    if free >= need {
        return Ok(());
    }
    let what: Vec<String> =
        parts.iter().map(|(b, w)| format!("{w} {}", methodic_results::units::human(b.0))).collect();
    Err(Error::results(
        &opts.out,
        format!(
            "its file system has {} free, and the run puts about {} there ({})",
            methodic_results::units::human(free.0),
            methodic_results::units::human(need.0),
            what.join(", ")
        ),
    )
    .with_hint(if opts.targets.is_empty() {
        "give --out on a file system with room, --target a file or device to run on, or --datasets DIR elsewhere"
    } else {
        "give --out on a file system with room, or --datasets DIR elsewhere"
    }))
}

/// A scratch file holds the largest span given in bytes, or 1GiB.
fn scratch_size(plan: &Plan) -> Bytes {
    let largest = plan
        .steps
        .iter()
        .filter_map(|s| match s.target.map(|t| t.span) {
            Some(Extent::Bytes(b)) => Some(b.0),
            _ => None,
        })
        .max();
    Bytes(largest.unwrap_or(Bytes::GIB).max(64 << 20))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(src: &str) -> Plan {
        methodic_compiler::compile(src, &Default::default()).unwrap_or_else(|d| panic!("{d}")).plan
    }

    #[test]
    fn the_devices_a_plan_needs_count_the_jobs_devices() {
        let head = "methodology \"d\" version \"1\"\nworkload w { random; block 4KiB; read 100% }\n";
        assert_eq!(devices(&plan(&format!("{head}measure w qd 1 for 1s\n"))), 1);
        assert_eq!(devices(&plan(&format!("{head}target {{ devices 2 }}\nmeasure w qd 2 for 1s\n"))), 2);
        // An imported Iometer worker on its third target: three scratch
        // files in a rehearsal, three --target asked before anything runs.
        let jobs =
            format!("{head}together for 1s {{\n  job a w qd 1 device 1\n  job b w qd 1 device 3\n}}\n");
        assert_eq!(devices(&plan(&jobs)), 3);
    }
}
