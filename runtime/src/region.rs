//! Regions: a step's span and its workload's offset, with the target's
//! capacity and logical block size, go in; the byte range the step works
//! in, and each worker's share of it for sequential streams, come out.
//! Checks that the span fits on the target and leaves room for a block.

use methodic_compiler::plan::{Bytes, Extent};

/// A byte range on the target: `start..start + len`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Region {
    pub start: u64,
    pub len: u64,
}

impl Region {
    pub fn end(&self) -> u64 {
        self.start + self.len
    }
}

/// Why a step cannot be placed on a target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RegionError {
    /// A span in bytes larger than the target.
    SpanTooLarge { span: Bytes, capacity: Bytes },
    /// The span, less the workload's offset and rounded down to whole
    /// blocks, leaves no room for one I/O of the largest block size.
    NoRoom { usable: Bytes, block: Bytes },
}

impl std::fmt::Display for RegionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RegionError::SpanTooLarge { span, capacity } => {
                write!(f, "a span of {span} does not fit on a target of {capacity}")
            }
            RegionError::NoRoom { usable, block } => {
                write!(f, "the span leaves {usable} after the offset, too little for a {block} block")
            }
        }
    }
}

impl std::error::Error for RegionError {}

/// The range a step works in: its span from the start of the target, less
/// the workload's offset, rounded down to whole logical blocks.
pub fn step_region(
    span: Extent,
    offset: Bytes,
    largest_block: Bytes,
    capacity: Bytes,
    logical_block: u64,
) -> Result<Region, RegionError> {
    let logical_block = logical_block.max(1);
    let span_bytes = match span {
        Extent::Percent(p) => p.of(capacity.0),
        Extent::Bytes(b) if b > capacity => {
            return Err(RegionError::SpanTooLarge { span: b, capacity });
        }
        Extent::Bytes(b) => b.0,
    };
    let span_bytes = span_bytes / logical_block * logical_block;
    let usable = span_bytes.saturating_sub(offset.0);
    if usable < largest_block.0.max(1) {
        return Err(RegionError::NoRoom { usable: Bytes(usable), block: largest_block });
    }
    Ok(Region { start: offset.0, len: usable })
}

/// Splits a region into one contiguous stripe per worker, each a whole
/// number of `align` units, the last taking the remainder; a sequential
/// stream per worker then never overlaps another.
pub fn worker_regions(region: Region, workers: u32, align: u64) -> Vec<Region> {
    let workers = workers.max(1) as u64;
    let align = align.max(1);
    let units = region.len / align;
    let per = units / workers;
    (0..workers)
        .map(|w| {
            let start = region.start + w * per * align;
            let len = if w == workers - 1 { region.end() - start } else { per * align };
            Region { start, len }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use methodic_compiler::plan::Percent;

    use super::*;

    #[test]
    fn percent_spans_round_to_blocks() {
        let r = step_region(
            Extent::Percent(Percent::whole(25)),
            Bytes(0),
            Bytes(4096),
            Bytes(1_000_000_000),
            4096,
        )
        .unwrap();
        assert_eq!(r, Region { start: 0, len: 250_000_000 / 4096 * 4096 });
    }

    #[test]
    fn offsets_shrink_the_region_and_spans_must_fit() {
        let r = step_region(Extent::Bytes(Bytes(1 << 20)), Bytes(4096), Bytes(4096), Bytes(1 << 30), 512)
            .unwrap();
        assert_eq!(r, Region { start: 4096, len: (1 << 20) - 4096 });
        assert_eq!(
            step_region(Extent::Bytes(Bytes(2 << 30)), Bytes(0), Bytes(4096), Bytes(1 << 30), 512),
            Err(RegionError::SpanTooLarge { span: Bytes(2 << 30), capacity: Bytes(1 << 30) })
        );
        assert!(matches!(
            step_region(Extent::Bytes(Bytes(8192)), Bytes(8192), Bytes(4096), Bytes(1 << 30), 512),
            Err(RegionError::NoRoom { .. })
        ));
    }

    #[test]
    fn worker_stripes_cover_the_region_without_overlap() {
        let region = Region { start: 4096, len: 10 * 131_072 + 4096 };
        let stripes = worker_regions(region, 4, 131_072);
        assert_eq!(stripes.len(), 4);
        assert_eq!(stripes[0].start, region.start);
        for pair in stripes.windows(2) {
            assert_eq!(pair[0].end(), pair[1].start);
            assert_eq!(pair[0].len % 131_072, 0);
        }
        assert_eq!(stripes[3].end(), region.end());
        assert_eq!(stripes.iter().map(|s| s.len).sum::<u64>(), region.len);
    }
}
