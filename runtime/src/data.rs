//! I/O buffers and the data written through them: a pool of aligned
//! buffers (one per outstanding I/O) filled once with the plan's data
//! pattern; before each write, random and compressible data get a fresh
//! stamp in every 4KiB, so that no two blocks written carry the same bytes
//! and a drive cannot deduplicate them. (Stamping every 512 bytes, as fio
//! does, costs eight times the memory traffic and defeats only the rare
//! deduplication finer than 4KiB.)

use std::alloc::{Layout, alloc_zeroed, dealloc};

use methodic_compiler::plan::DataPattern;

use crate::rng::Rng;

/// Aligned memory for `slots` buffers of `slot_size` bytes each.
pub struct Buffers {
    ptr: *mut u8,
    layout: Layout,
    slot_size: usize,
    slots: usize,
}

// The pool is owned by one worker thread at a time.
unsafe impl Send for Buffers {}

/// Stamps go at this distance.
const STAMP_EVERY: usize = 4096;

/// Buffer alignment: enough for O_DIRECT on any device methodic meets.
pub const ALIGN: usize = 4096;

impl Buffers {
    pub fn new(slots: usize, slot_size: usize) -> Buffers {
        let slot_size = slot_size.max(1).next_multiple_of(ALIGN);
        let size = slot_size * slots.max(1);
        let layout = Layout::from_size_align(size, ALIGN).expect("buffer layout");
        let ptr = unsafe { alloc_zeroed(layout) };
        if ptr.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        Buffers { ptr, layout, slot_size, slots: slots.max(1) }
    }

    pub fn slots(&self) -> usize {
        self.slots
    }

    pub fn slot_size(&self) -> usize {
        self.slot_size
    }

    /// The start of slot `i`, for engines that pass raw pointers.
    pub fn ptr(&self, i: usize) -> *mut u8 {
        assert!(i < self.slots);
        unsafe { self.ptr.add(i * self.slot_size) }
    }

    pub fn slot(&mut self, i: usize) -> &mut [u8] {
        unsafe { std::slice::from_raw_parts_mut(self.ptr(i), self.slot_size) }
    }

    /// One iovec a slot, to register with io_uring.
    pub fn iovecs(&self) -> Vec<libc::iovec> {
        (0..self.slots)
            .map(|i| libc::iovec { iov_base: self.ptr(i).cast(), iov_len: self.slot_size })
            .collect()
    }
}

impl Drop for Buffers {
    fn drop(&mut self) {
        unsafe { dealloc(self.ptr, self.layout) }
    }
}

/// Writes the data pattern into buffers.
pub struct Pattern {
    kind: DataPattern,
    seed: u64,
    writes: u64,
}

impl Pattern {
    pub fn new(kind: DataPattern, seed: u64) -> Pattern {
        Pattern { kind, seed, writes: 0 }
    }

    /// Fills every buffer once.
    pub fn init(&self, buffers: &mut Buffers, rng: &mut Rng) {
        for i in 0..buffers.slots() {
            let buf = buffers.slot(i);
            match self.kind {
                DataPattern::Zeros => buf.fill(0),
                DataPattern::Random => rng.fill(buf),
                DataPattern::Compressible(p) => {
                    // In every 4KiB, the first (100 - p)% random, the rest zeros.
                    let random = 4096 - p.of(4096) as usize;
                    for chunk in buf.chunks_mut(4096) {
                        let r = random.min(chunk.len());
                        rng.fill(&mut chunk[..r]);
                        chunk[r..].fill(0);
                    }
                }
            }
        }
    }

    /// Makes `buf` (the first `len` bytes of a slot) unique before it is
    /// written: a stamp at the start of each 4KiB. Zeros stay zeros.
    #[inline]
    pub fn prepare_write(&mut self, buf: &mut [u8]) {
        if matches!(self.kind, DataPattern::Zeros) {
            return;
        }
        self.writes += 1;
        let base = self.seed ^ self.writes.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        // The first 8 bytes of every 4KiB lie in its random part, whatever
        // share of it is zeros.
        for (i, block) in buf.chunks_mut(STAMP_EVERY).enumerate() {
            if block.len() >= 8 {
                let stamp = base ^ (i as u64).rotate_left(32);
                block[..8].copy_from_slice(&stamp.to_le_bytes());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use methodic_compiler::plan::Percent;

    use super::*;

    #[test]
    fn buffers_are_aligned_and_separate() {
        let mut b = Buffers::new(4, 1000);
        assert_eq!(b.slot_size(), 4096);
        for i in 0..4 {
            assert_eq!(b.ptr(i) as usize % ALIGN, 0);
            b.slot(i).fill(i as u8);
        }
        assert!(b.slot(2).iter().all(|&x| x == 2));
        assert_eq!(b.iovecs().len(), 4);
    }

    #[test]
    fn every_write_is_unique_and_zeros_stay_zero() {
        let mut rng = Rng::new(1);
        let mut b = Buffers::new(1, 8192);
        let mut p = Pattern::new(DataPattern::Random, 9);
        p.init(&mut b, &mut rng);
        p.prepare_write(b.slot(0));
        let first = b.slot(0).to_vec();
        p.prepare_write(b.slot(0));
        let second = b.slot(0).to_vec();
        for (a, c) in first.chunks(4096).zip(second.chunks(4096)) {
            assert_ne!(a, c, "each 4KiB changes between writes");
        }
        let mut z = Pattern::new(DataPattern::Zeros, 9);
        z.init(&mut b, &mut rng);
        z.prepare_write(b.slot(0));
        assert!(b.slot(0).iter().all(|&x| x == 0));
    }

    #[test]
    fn compressible_data_has_its_share_of_zeros() {
        let mut rng = Rng::new(1);
        let mut b = Buffers::new(1, 65536);
        let mut p = Pattern::new(DataPattern::Compressible(Percent::whole(50)), 3);
        p.init(&mut b, &mut rng);
        p.prepare_write(b.slot(0));
        let zeros = b.slot(0).iter().filter(|&&x| x == 0).count();
        let share = zeros as f64 / 65536.0;
        assert!((0.48..0.52).contains(&share), "{share}");
    }
}
