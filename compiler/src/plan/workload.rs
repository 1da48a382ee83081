//! Workloads written out in full, and "the same I/O" defined once:
//! [`WorkloadIo`] (a workload without its name) and [`IoKey`] (what a step
//! does, by which `diff` matches steps and `compare` pairs results).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Action, Bytes, Percent, Rate, Step, plural};

/// A workload written out in full.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
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
    /// Where random offsets land in the span: uniformly (the default, left
    /// out of the plan), by zipf, pareto, normal, or in hot bands.
    #[serde(default, skip_serializing_if = "Access::is_uniform")]
    pub access: Access,
    /// Share of I/Os that trim (deallocate, or punch a hole in a file);
    /// the rest after `read` and `trim` write. Left out when none.
    #[serde(default, skip_serializing_if = "Percent::is_zero")]
    pub trim: Percent,
}

impl Workload {
    /// Whether the workload changes its target: it writes or trims.
    pub fn writes(&self) -> bool {
        self.read < Percent::HUNDRED
    }

    /// Share of I/Os that write: what `read` and `trim` leave.
    pub fn write_share(&self) -> Percent {
        Percent::from_hundredths(10_000u32.saturating_sub(self.read.hundredths() + self.trim.hundredths()))
    }

    /// What the workload does, without its name.
    pub fn io(&self) -> WorkloadIo {
        WorkloadIo {
            blocks: self.blocks.clone(),
            read: self.read,
            random: self.random,
            align: self.align,
            offset: self.offset,
            access: self.access.clone(),
            trim: self.trim,
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

    /// Where its offsets go, apart from block sizes and the read share:
    /// `random`, `sequential`, `70% random`, with the access distribution
    /// of its random share (`random (zipf 1.2)`).
    pub fn pattern(&self) -> String {
        let mut out = if self.random == Percent::HUNDRED {
            "random".to_string()
        } else if self.random == Percent::ZERO {
            "sequential".to_string()
        } else {
            format!("{} random", self.random)
        };
        if !self.access.is_uniform() && self.random > Percent::ZERO {
            out.push_str(&format!(" ({})", self.access));
        }
        out
    }

    /// `4KiB random, 0% read` or `512B..64KiB split random, 80% read`.
    pub fn describe(&self) -> String {
        let blocks = match self.blocks.as_slice() {
            [one] => one.size.to_string(),
            [first, .., last] => format!("{}..{} split", first.size, last.size),
            [] => "no blocks".to_string(),
        };
        let mut out = format!("{blocks} {}", self.pattern());
        out.push_str(&format!(", {} read", self.read));
        if self.trim > Percent::ZERO {
            out.push_str(&format!(", {} trim", self.trim));
        }
        out
    }
}

/// Where a workload's random offsets land in the span. Sequential I/O
/// is not drawn and so has no access distribution.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Access {
    /// Every aligned offset of the span equally likely.
    #[default]
    Uniform,
    /// Zipf with exponent `theta` over the span's aligned blocks: the
    /// block of rank k is drawn in proportion to 1/k^theta. Ranks are
    /// scattered over the span by a fixed permutation, as fio's
    /// `random_distribution=zipf:THETA` scatters them.
    Zipf { theta: Milli },
    /// Pareto with shape `h` (0 < h < 1), as fio's `pareto:H`: the
    /// further `h` is from 0.5 the more I/O goes to few blocks (`h` and
    /// `1 - h` give the same skew; 0.9 sends 90% of I/Os to 10% of the
    /// blocks, 0.5 is uniform). Ranks scattered like zipf.
    Pareto { h: Milli },
    /// Normal around `centre` of the span with standard deviation `sigma`,
    /// both shares of the span; draws beyond the span are drawn again.
    Normal { sigma: Percent, centre: Percent },
    /// Hot bands, from the start of the span: each band's `io` share of
    /// random I/Os lands uniformly in its `span` share of the span, the
    /// bands one after another (as fio's `zoned:IO/SPAN:...` and the
    /// SNIA composite workload's LBA ranges). Shares each add up to 100%.
    Bands(Vec<Band>),
}

impl Access {
    pub fn is_uniform(&self) -> bool {
        *self == Access::Uniform
    }
}

impl std::fmt::Display for Access {
    /// The language's spelling: `zipf 1.2`, `normal 5% around 50%`,
    /// `bands 50% in 5%, 30% in 15%, 20% in 80%`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Access::Uniform => write!(f, "uniform"),
            Access::Zipf { theta } => write!(f, "zipf {theta}"),
            Access::Pareto { h } => write!(f, "pareto {h}"),
            Access::Normal { sigma, centre } => write!(f, "normal {sigma} around {centre}"),
            Access::Bands(bands) => {
                let parts: Vec<String> = bands.iter().map(|b| format!("{} in {}", b.io, b.span)).collect();
                write!(f, "bands {}", parts.join(", "))
            }
        }
    }
}

/// One hot band: a share of random I/Os and the share of the span they
/// land in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Band {
    pub io: Percent,
    pub span: Percent,
}

/// A positive number exact to a thousandth (`1.2`, `0.95`), for a
/// distribution's parameter; serialized as its thousandths.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
#[serde(transparent)]
pub struct Milli(pub u32);

impl Milli {
    pub fn as_f64(self) -> f64 {
        self.0 as f64 / 1000.0
    }
}

impl std::fmt::Display for Milli {
    /// `1.2`, `0.95`, `2`: no trailing zeros.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (whole, frac) = (self.0 / 1000, self.0 % 1000);
        if frac == 0 {
            write!(f, "{whole}")
        } else {
            let digits = format!("{frac:03}");
            write!(f, "{whole}.{}", digits.trim_end_matches('0'))
        }
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
    pub access: Access,
    pub trim: Percent,
}

impl WorkloadIo {
    /// Every field in words, for when [`Workload::describe`] hides a
    /// difference: `4KiB:100% read 0% random 100% align 4KiB offset 1MiB`.
    pub fn in_full(&self) -> String {
        let blocks: Vec<String> = self.blocks.iter().map(|b| format!("{}:{}", b.size, b.share)).collect();
        let mut out = format!(
            "{} read {} random {} align {} offset {}",
            blocks.join("+"),
            self.read,
            self.random,
            self.align,
            self.offset
        );
        if !self.access.is_uniform() {
            out.push_str(&format!(" access {}", self.access));
        }
        if self.trim > Percent::ZERO {
            out.push_str(&format!(" trim {}", self.trim));
        }
        out
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
            _ => vec![IoKey::Other(kind)],
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
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
