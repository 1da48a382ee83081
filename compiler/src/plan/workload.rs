//! Workloads written out in full: block sizes and their shares, read,
//! random and trim shares, alignment, offset and where random offsets
//! land ([`Access`]); and [`WorkloadIo`], a workload without its name, by
//! which two workloads do the same I/O.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Bytes, Percent};

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
    /// Block sizes of the writes and trims with their shares, smallest
    /// first, when they differ from the reads' (`write_blocks`, fio's
    /// `bssplit=R,W`); `None`: `blocks` for every I/O. Plans from before
    /// have none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_blocks: Option<Vec<BlockShare>>,
}

impl Workload {
    /// Every block size the workload issues: the reads', then the writes'
    /// own ones.
    pub fn all_blocks(&self) -> impl Iterator<Item = &BlockShare> {
        self.blocks.iter().chain(self.write_blocks.iter().flatten())
    }

    /// The largest block it issues (4KiB for none), to size buffers and
    /// stripes.
    pub fn largest_block(&self) -> Bytes {
        self.all_blocks().map(|b| b.size).max().unwrap_or(Bytes(4096))
    }

    /// The smallest block it issues (4KiB for none).
    pub fn smallest_block(&self) -> Bytes {
        self.all_blocks().map(|b| b.size).min().unwrap_or(Bytes(4096))
    }

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
            write_blocks: self.write_blocks.clone(),
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

    /// `4KiB random, 0% read`, `512B..64KiB split random, 80% read` or,
    /// with the writes' own sizes, `64KiB reads, 1MiB writes sequential,
    /// 60% read`.
    pub fn describe(&self) -> String {
        let sizes = |blocks: &[BlockShare]| match blocks {
            [one] => one.size.to_string(),
            [first, .., last] => format!("{}..{} split", first.size, last.size),
            [] => "no blocks".to_string(),
        };
        let blocks = match &self.write_blocks {
            None => sizes(&self.blocks),
            Some(w) => format!("{} reads, {} writes", sizes(&self.blocks), sizes(w)),
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
    pub write_blocks: Option<Vec<BlockShare>>,
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
        if let Some(w) = &self.write_blocks {
            let writes: Vec<String> = w.iter().map(|b| format!("{}:{}", b.size, b.share)).collect();
            out.push_str(&format!(" writes {}", writes.join("+")));
        }
        out
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BlockShare {
    pub size: Bytes,
    pub share: Percent,
}
