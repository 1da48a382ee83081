//! Workloads written out in full, and "the same I/O" defined once:
//! [`WorkloadIo`] (a workload without its name) and [`IoKey`] (what a step
//! does, by which `diff` matches steps and `compare` pairs results).

use serde::{Deserialize, Serialize};

use super::{Action, Bytes, Percent, Rate, Step, plural};

/// A workload written out in full.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Workload {
    /// The name it was defined under, or a description for one written in
    /// place. Not part of what the workload does.
    pub name: String,
    /// Block sizes with their shares of I/Os, smallest first; shares add up
    /// to 100%.
    pub blocks: Vec<BlockShare>,
    /// Share of I/Os that read.
    pub read: Percent,
    /// Share of I/Os at random offsets; the rest continue sequentially.
    pub random: Percent,
    /// Offsets are multiples of this.
    pub align: Bytes,
    /// I/O starts this far into the span.
    pub offset: Bytes,
}

impl Workload {
    pub fn writes(&self) -> bool {
        self.read < Percent::HUNDRED
    }

    /// What the workload does, without its name.
    pub fn io(&self) -> WorkloadIo {
        WorkloadIo {
            blocks: self.blocks.clone(),
            read: self.read,
            random: self.random,
            align: self.align,
            offset: self.offset,
        }
    }

    /// Whether two workloads do the same I/O, whatever their names.
    pub fn same_io(&self, other: &Workload) -> bool {
        self.io() == other.io()
    }

    /// The name with what the workload does, unless the name already
    /// says it: `rnd4k_read (4KiB random, 100% read)`.
    pub fn label(&self) -> String {
        let what = self.describe();
        if self.name.starts_with(&what) { self.name.clone() } else { format!("{} ({what})", self.name) }
    }

    /// `4KiB random, 0% read` or `512B..64KiB split random, 80% read`.
    pub fn describe(&self) -> String {
        let blocks = match self.blocks.as_slice() {
            [one] => one.size.to_string(),
            [first, .., last] => format!("{}..{} split", first.size, last.size),
            [] => "no blocks".to_string(),
        };
        let access = if self.random == Percent::HUNDRED {
            "random".to_string()
        } else if self.random == Percent::ZERO {
            "sequential".to_string()
        } else {
            format!("{} random", self.random)
        };
        format!("{blocks} {access}, {} read", self.read)
    }
}

/// A workload's I/O without its name: every field of [`Workload`] that
/// moves a number. Two workloads with equal `WorkloadIo` do the same I/O.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct WorkloadIo {
    pub blocks: Vec<BlockShare>,
    pub read: Percent,
    pub random: Percent,
    pub align: Bytes,
    pub offset: Bytes,
}

impl WorkloadIo {
    /// Every field in words, for when [`Workload::describe`] hides a
    /// difference: `4KiB:100% read 0% random 100% align 4KiB offset 1MiB`.
    pub fn in_full(&self) -> String {
        let blocks: Vec<String> = self.blocks.iter().map(|b| format!("{}:{}", b.size, b.share)).collect();
        format!(
            "{} read {} random {} align {} offset {}",
            blocks.join("+"),
            self.read,
            self.random,
            self.align,
            self.offset
        )
    }
}

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
    Io { kind: &'static str, io: WorkloadIo, qd: u32, rate: Option<Rate> },
    /// A copy: the data set's files and their sizes (not its name).
    Copy { files: u64, size_min: Bytes, size_max: Bytes, seed: u64 },
    /// Any other step: its kind (`erase`, `idle`, `probe`, ...).
    Other(&'static str),
}

impl IoKey {
    /// The keys of a step: one a cell for a rounds step, one for any other.
    pub fn of_step(step: &Step) -> Vec<IoKey> {
        let kind = step.action.kind();
        match &step.action {
            Action::Fill { workload, qd, .. } | Action::Precondition { workload, qd, .. } => {
                vec![IoKey::Io { kind, io: workload.io(), qd: qd.total, rate: None }]
            }
            Action::Measure { workload, qd, rate, .. } => {
                vec![IoKey::Io { kind, io: workload.io(), qd: qd.total, rate: *rate }]
            }
            Action::Rounds { cells, .. } => cells
                .iter()
                .map(|c| IoKey::Io { kind, io: c.workload.io(), qd: c.qd.total, rate: None })
                .collect(),
            Action::Qos(q) => vec![IoKey::Io { kind, io: q.workload.io(), qd: q.qd.total, rate: None }],
            Action::Together { jobs, .. } => jobs
                .iter()
                .map(|j| IoKey::Io { kind, io: j.workload.io(), qd: j.qd.total, rate: j.rate })
                .collect(),
            Action::Copy { dataset } => vec![IoKey::Copy {
                files: dataset.files,
                size_min: dataset.size_min,
                size_max: dataset.size_max,
                seed: dataset.seed,
            }],
            _ => vec![IoKey::Other(kind)],
        }
    }

    /// What the key holds, in words and without names: `4KiB random, 0%
    /// read at QD 32`, with the alignment and offset where they are not
    /// the plain ones (aligned to the smallest block, from the start), and
    /// the shares of a split. Keys that differ are described differently.
    pub fn describe(&self) -> String {
        match self {
            IoKey::Io { io, qd, rate, .. } => {
                let w = Workload {
                    name: String::new(),
                    blocks: io.blocks.clone(),
                    read: io.read,
                    random: io.random,
                    align: io.align,
                    offset: io.offset,
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
                match rate {
                    Some(r) => format!("{out} at QD {qd}, open loop at {}", r.describe()),
                    None => format!("{out} at QD {qd}"),
                }
            }
            IoKey::Copy { files, size_min, size_max, seed } => {
                format!("copy of {} of {size_min}..{size_max} (seed {seed})", plural(*files, "file", "files"))
            }
            IoKey::Other(kind) => (*kind).to_string(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BlockShare {
    pub size: Bytes,
    pub share: Percent,
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
