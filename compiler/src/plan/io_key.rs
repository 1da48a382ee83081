//! What a step does to its target with no name in it ([`IoKey`]): by it
//! `diff` matches steps across plans and `compare` pairs results.

use super::Bytes;
use super::load::Rate;
use super::step::{Action, Step};
use super::words::plural;
use super::workload::{Workload, WorkloadIo};

/// "The same I/O", defined once: what a step (or one cell of a rounds
/// step) does to its target, with no name in it. Two steps whose keys are
/// equal measure the same thing, whatever their workloads, data sets or
/// phases are called. `diff` matches steps across plans by it; `compare`
/// pairs results across runs by it and names drive states by its
/// [`describe`](IoKey::describe). A key, not a label: it derives `Ord` and
/// `Hash` to be looked up, and says in words what it holds only through
/// `describe`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum IoKey {
    /// A fill, precondition or measurement, or one cell of a rounds step:
    /// the kind of step, the workload's I/O and the total queue depth.
    /// `verify`: the step also checks what it reads back, which costs
    /// time and so is part of what it measures.
    Io { kind: &'static str, io: WorkloadIo, qd: u32, rate: Option<Rate>, verify: bool },
    /// A copy: the data set's files and their sizes (not its name).
    Copy { files: u64, size_min: Bytes, size_max: Bytes, seed: u64 },
    /// Any other step: its kind (`erase`, `idle`, `probe`, ...).
    Other(&'static str),
}

impl IoKey {
    /// The keys of a step: one a cell for a rounds step, one for any other.
    pub fn of_step(step: &Step) -> Vec<IoKey> {
        let kind = step.action.kind();
        let verify = step.verify;
        match &step.action {
            Action::Fill { workload, qd, .. } | Action::Precondition { workload, qd, .. } => {
                vec![IoKey::Io { kind, io: workload.io(), qd: qd.total, rate: None, verify }]
            }
            Action::Measure { workload, qd, rate, .. } => {
                vec![IoKey::Io { kind, io: workload.io(), qd: qd.total, rate: *rate, verify }]
            }
            Action::Rounds { cells, .. } => cells
                .iter()
                .map(|c| IoKey::Io { kind, io: c.workload.io(), qd: c.qd.total, rate: None, verify })
                .collect(),
            Action::Qos(q) => {
                vec![IoKey::Io { kind, io: q.workload.io(), qd: q.qd.total, rate: None, verify }]
            }
            Action::Together { jobs, .. } => jobs
                .iter()
                .map(|j| IoKey::Io { kind, io: j.workload.io(), qd: j.qd.total, rate: j.rate, verify })
                .collect(),
            Action::Copy { dataset } => vec![IoKey::Copy {
                files: dataset.files,
                size_min: dataset.size_min,
                size_max: dataset.size_max,
                seed: dataset.seed,
            }],
            Action::Erase { .. }
            | Action::DropCaches
            | Action::Idle { .. }
            | Action::LimitRam { .. }
            | Action::Probe(_) => vec![IoKey::Other(kind)],
        }
    }

    /// What the key holds, in words and without names: `4KiB random, 0%
    /// read at QD 32`, with the alignment and offset where they are not
    /// the plain ones (aligned to the smallest block, from the start), and
    /// the shares of a split. Keys that differ are described differently.
    pub fn describe(&self) -> String {
        match self {
            IoKey::Io { io, qd, rate, verify, .. } => {
                let w = Workload {
                    name: String::new(),
                    blocks: io.blocks.clone(),
                    read: io.read,
                    random: io.random,
                    align: io.align,
                    offset: io.offset,
                    access: io.access.clone(),
                    trim: io.trim,
                    write_blocks: io.write_blocks.clone(),
                };
                let mut out = w.describe();
                if io.blocks.len() > 1 {
                    let shares: Vec<String> =
                        io.blocks.iter().map(|b| format!("{} {}", b.share, b.size)).collect();
                    out.push_str(&format!(" ({})", shares.join(", ")));
                }
                if io.blocks.first().is_none_or(|b| b.size != io.align) {
                    out.push_str(&format!(", aligned to {}", io.align));
                }
                if io.offset != Bytes(0) {
                    out.push_str(&format!(", from {} in", io.offset));
                }
                let out = match rate {
                    Some(r) => format!("{out} at QD {qd}, open loop at {}", r.describe()),
                    None => format!("{out} at QD {qd}"),
                };
                if *verify { format!("{out}, verified") } else { out }
            }
            IoKey::Copy { files, size_min, size_max, seed } => {
                format!("copy of {} of {size_min}..{size_max} (seed {seed})", plural(*files, "file", "files"))
            }
            IoKey::Other(kind) => (*kind).to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first measurement of `src`'s plan and its key.
    fn measured(src: &str) -> (Workload, IoKey) {
        let plan = crate::compile(src, &Default::default()).unwrap().plan;
        let step = plan.steps.iter().find(|s| s.action.kind() == "measure").unwrap();
        let Action::Measure { workload, .. } = &step.action else { unreachable!("a measure step") };
        (workload.clone(), IoKey::of_step(step).remove(0))
    }

    #[test]
    fn the_same_io_ignores_names_and_keeps_offsets_apart() {
        let src = |name: &str, extra: &str| {
            format!(
                "methodology \"k\" version \"1\"\nworkload {name} {{ random; block 4KiB; read 0%{extra} }}\n\
                 measure {name} qd 8 for 1s\n"
            )
        };
        let (w, plain) = measured(&src("w4", ""));
        let (v, renamed) = measured(&src("writesmall", ""));
        assert_eq!(plain, renamed, "a name is not part of the I/O");
        assert!(w.same_io(&v));
        assert_eq!(plain.describe(), "4KiB random, 0% read at QD 8");
        let (u, offset) = measured(&src("w4", "; offset 1MiB"));
        assert_ne!(plain, offset, "another offset is another I/O");
        assert!(!w.same_io(&u));
        assert_eq!(offset.describe(), "4KiB random, 0% read, from 1MiB in at QD 8");
        let (_, aligned) = measured(&src("w4", "; align 8KiB"));
        assert_eq!(aligned.describe(), "4KiB random, 0% read, aligned to 8KiB at QD 8");
    }
}
