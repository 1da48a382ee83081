//! Workload generation: a plan workload and a worker's region go in, one
//! I/O at a time comes out: read, trim or write by the read and trim
//! shares (writes are what the two leave), a block size
//! by the split, a random offset (aligned as the plan says) or the next
//! one of the worker's sequential stream by the random share.

use methodic_compiler::plan::Workload;

use crate::access::Drawer;
use crate::region::Region;
use crate::rng::Rng;

/// What an I/O does. The values index the latency tally's parts
/// (`crate::stats::LatencyTally`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Read,
    Write,
    /// Deallocate the range: a discard on a block device, a punched hole
    /// in a file. Moves no data.
    Trim,
}

/// One I/O to issue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Io {
    pub op: Op,
    pub offset: u64,
    pub len: u32,
}

pub struct Generator {
    rng: Rng,
    /// Block sizes with their cumulative shares in hundredths of a percent.
    blocks: Vec<(u32, u32)>,
    /// The writes' and trims' own sizes, likewise (`write_blocks`); empty
    /// when they take `blocks`.
    write_blocks: Vec<(u32, u32)>,
    /// A size is drawn for each I/O: either list has more than one.
    draw_size: bool,
    read: u32,
    /// The read share plus the trim share: a draw below `read` reads,
    /// below this trims, else writes. 0 for a workload that only writes.
    trim_to: u32,
    random: u32,
    align: u64,
    /// Where random I/O lands: the whole step region of the device.
    area: Region,
    /// The worker's own stripe, for sequential I/O.
    stripe: Region,
    next_seq: u64,
    /// Bytes of sequential I/O issued, to count passes over the stripe.
    pub seq_bytes: u64,
    /// Where random I/O lands when not uniformly: slots of the smallest
    /// block drawn by the workload's access distribution. `None`: uniform.
    /// Boxed, on a stream of its own: the uniform loop then passes nothing
    /// of the generator to a call, and its own stream stays in registers.
    access: Option<Box<Drawer>>,
}

impl Generator {
    pub fn new(w: &Workload, area: Region, stripe: Region, seed: u64) -> Generator {
        let cumulative = |split: &[methodic_compiler::plan::BlockShare]| -> Vec<(u32, u32)> {
            let mut cum = 0;
            split
                .iter()
                .map(|b| {
                    cum += b.share.hundredths();
                    (b.size.0 as u32, cum)
                })
                .collect()
        };
        let blocks = cumulative(&w.blocks);
        let write_blocks = w.write_blocks.as_deref().map_or(Vec::new(), cumulative);
        let draw_size = blocks.len() > 1 || write_blocks.len() > 1;
        // Every worker of the step has the same area, and so the same
        // drawer: one set of hot blocks for the step.
        let smallest = w.smallest_block().0;
        let access = if w.random.is_zero() {
            None
        } else {
            let slots = area.len.saturating_sub(smallest) / w.align.0.max(1) + 1;
            Drawer::new(&w.access, slots, seed ^ 0x6163_6365_7373_2121).map(Box::new)
        };
        Generator {
            rng: Rng::new(seed),
            blocks,
            write_blocks,
            draw_size,
            read: w.read.hundredths(),
            trim_to: (w.read.hundredths() + w.trim.hundredths()).min(10_000),
            random: w.random.hundredths(),
            align: w.align.0.max(1),
            area,
            stripe,
            next_seq: stripe.start,
            seq_bytes: 0,
            access,
        }
    }

    /// The largest block size, to size buffers.
    pub fn largest_block(&self) -> u32 {
        self.blocks.iter().chain(&self.write_blocks).map(|b| b.0).max().unwrap_or(4096)
    }

    // Always: the worker's loop is made twice (closed and open loop), and
    // with two callers the compiler stopped inlining it into the closed
    // loop's, which cost it instructions an I/O.
    #[inline(always)]
    pub fn next_io(&mut self) -> Io {
        // The size's draw comes first, as before the writes could have
        // sizes of their own: a plan without them draws the same stream.
        let pick = if self.draw_size { self.rng.below(10_000) as u32 } else { 0 };
        // Only reads, or only writes (nothing to read or trim): no draw.
        let op = if self.read == 10_000 {
            Op::Read
        } else if self.trim_to == 0 {
            Op::Write
        } else {
            let pick = self.rng.below(10_000) as u32;
            if pick < self.read {
                Op::Read
            } else if pick < self.trim_to {
                Op::Trim
            } else {
                Op::Write
            }
        };
        let sizes =
            if op == Op::Read || self.write_blocks.is_empty() { &self.blocks } else { &self.write_blocks };
        let len = match sizes.as_slice() {
            [one] => one.0,
            _ => sizes.iter().find(|b| pick < b.1).unwrap_or(&sizes[sizes.len() - 1]).0,
        };
        let random =
            self.random == 10_000 || (self.random > 0 && (self.rng.below(10_000) as u32) < self.random);
        let offset = if random {
            let slots = (self.area.len.saturating_sub(len as u64)) / self.align + 1;
            let slot = match &mut self.access {
                None => self.rng.below(slots),
                // Drawn over the smallest block's slots: a larger block
                // that would cross the area's end starts at the last slot
                // where it fits.
                Some(d) => d.slot().min(slots - 1),
            };
            self.area.start + slot * self.align
        } else {
            if self.next_seq + len as u64 > self.stripe.end() {
                self.next_seq = self.stripe.start;
            }
            let at = self.next_seq;
            self.next_seq += len as u64;
            self.seq_bytes += len as u64;
            at
        };
        Io { op, offset, len }
    }
}

#[cfg(test)]
mod tests {
    use methodic_compiler::plan::{BlockShare, Bytes, Percent};

    use super::*;

    fn workload(blocks: &[(u64, u32)], read: u32, random: u32, align: u64) -> Workload {
        Workload {
            name: "t".into(),
            blocks: blocks
                .iter()
                .map(|(s, p)| BlockShare { size: Bytes(*s), share: Percent::whole(*p) })
                .collect(),
            read: Percent::whole(read),
            random: Percent::whole(random),
            align: Bytes(align),
            offset: Bytes(0),
            access: Default::default(),
            trim: Percent::ZERO,
            write_blocks: None,
        }
    }

    #[test]
    fn writes_of_their_own_sizes_and_the_same_stream_without_them() {
        let area = Region { start: 0, len: 64 << 20 };
        let mut w = workload(&[(4096, 50), (8192, 50)], 70, 100, 4096);
        let plain: Vec<Io> = {
            let mut g = Generator::new(&w, area, area, 5);
            (0..1000).map(|_| g.next_io()).collect()
        };
        w.write_blocks = Some(vec![BlockShare { size: Bytes(65536), share: Percent::HUNDRED }]);
        let mut g = Generator::new(&w, area, area, 5);
        assert_eq!(g.largest_block(), 65536);
        let split: Vec<Io> = (0..1000).map(|_| g.next_io()).collect();
        for (a, b) in plain.iter().zip(&split) {
            // The same draws: the same direction, and a read the same size.
            assert_eq!(a.op, b.op);
            match b.op {
                Op::Read => assert_eq!(a.len, b.len),
                _ => assert_eq!(b.len, 65536),
            }
            assert!(b.offset + b.len as u64 <= area.end());
        }
        assert!(split.iter().any(|i| i.op == Op::Write) && split.iter().any(|i| i.op == Op::Read));
    }

    #[test]
    fn shares_and_alignment_are_kept() {
        let area = Region { start: 1 << 20, len: 64 << 20 };
        let w = workload(&[(512, 10), (4096, 60), (65536, 30)], 67, 100, 512);
        let mut g = Generator::new(&w, area, area, 11);
        let n = 200_000;
        let (mut reads, mut sizes) = (0, [0u32; 3]);
        for _ in 0..n {
            let io = g.next_io();
            assert_eq!(io.offset % 512, 0);
            assert!(io.offset >= area.start && io.offset + io.len as u64 <= area.end(), "{io:?}");
            if io.op == Op::Read {
                reads += 1;
            }
            sizes[match io.len {
                512 => 0,
                4096 => 1,
                _ => 2,
            }] += 1;
        }
        let share = |c: u32| c as f64 / n as f64;
        assert!((share(reads) - 0.67).abs() < 0.01, "{}", share(reads));
        assert!((share(sizes[0]) - 0.10).abs() < 0.01);
        assert!((share(sizes[1]) - 0.60).abs() < 0.01);
        assert!((share(sizes[2]) - 0.30).abs() < 0.01);
    }

    /// Reads, trims and writes at 30%, 25% and 45%: each share kept
    /// within 1% over 200,000 draws (the standard deviation of a share
    /// there is about 0.11%); a workload that only trims only trims.
    #[test]
    fn read_trim_and_write_shares_are_kept() {
        let area = Region { start: 0, len: 64 << 20 };
        let mut w = workload(&[(4096, 100)], 30, 100, 4096);
        w.trim = Percent::whole(25);
        assert_eq!(w.write_share(), Percent::whole(45));
        let mut g = Generator::new(&w, area, area, 3);
        let n = 200_000;
        let mut counts = [0u32; 3];
        for _ in 0..n {
            let io = g.next_io();
            assert_eq!(io.offset % 4096, 0);
            counts[io.op as usize] += 1;
        }
        let share = |c: u32| c as f64 / n as f64;
        assert!((share(counts[Op::Read as usize]) - 0.30).abs() < 0.01, "{counts:?}");
        assert!((share(counts[Op::Trim as usize]) - 0.25).abs() < 0.01, "{counts:?}");
        assert!((share(counts[Op::Write as usize]) - 0.45).abs() < 0.01, "{counts:?}");
        // Trims alone: every I/O trims.
        let mut only = workload(&[(4096, 100)], 0, 100, 4096);
        only.trim = Percent::HUNDRED;
        let mut g = Generator::new(&only, area, area, 3);
        assert!((0..1000).all(|_| g.next_io().op == Op::Trim));
    }

    #[test]
    fn sequential_streams_stay_in_their_stripe_and_wrap() {
        let area = Region { start: 0, len: 1 << 20 };
        let stripe = Region { start: 256 << 10, len: 256 << 10 };
        let w = workload(&[(131_072, 100)], 0, 0, 131_072);
        let mut g = Generator::new(&w, area, stripe, 1);
        let offsets: Vec<u64> = (0..3).map(|_| g.next_io().offset).collect();
        assert_eq!(offsets, [256 << 10, 384 << 10, 256 << 10]);
        assert!((0..10).all(|_| g.next_io().op == Op::Write));
    }
}
