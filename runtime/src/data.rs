//! I/O buffers and the data written through them: a pool of aligned
//! buffers (one per outstanding I/O) and the [`Pattern`] that sets the
//! bytes of a buffer before each write. Every byte of every write is set
//! anew, so that no drive that compresses or deduplicates finds repeats:
//!
//! - `data random`: each 512B chunk is a 16-byte stamp followed by 496
//!   bytes of the worker's 16KiB random pool XORed with a 64-bit key drawn
//!   from the stamp. The stamp is a bijection of (the worker's seed, the
//!   number of chunks the worker wrote before), so no two chunks a worker
//!   writes are equal, by construction; chunks of workers with different
//!   seeds differ in their stamps, and seeds are 64-bit hashes, so two
//!   workers' chunks are equal only if their seeds collide (about 2^-64 a
//!   pair). Compressors that look for repeated strings (zstd, and the LZ
//!   family that drives use) find none, whatever their window: each use
//!   of a pool chunk is XORed with another key. (A compressor that stored
//!   XOR-deltas between similar chunks could shrink the data; none is
//!   known in drives.)
//! - `data compressible N%`: each 512B chunk (fio's buffer_compress_chunk)
//!   starts with 512 - N% of 512 bytes made as for random data, stamp
//!   first, and ends with zeros; it compresses to about 100 - N% of its
//!   size, and no two chunks are equal while the random part holds the
//!   whole stamp (N up to 96%).
//! - `data zeros`: zeros.
//!
//! A step with `verify` lays its stamp ([`crate::verify`]) over the first
//! 48 bytes of the chunk at each verify interval's head, after the
//! pattern has set the write's bytes: the stamp's offset, run, worker and
//! write number keep that chunk unique too.
//!
//! Setting every byte costs one pass over the data written, about as much
//! as copying it from cache (`cargo bench -p methodic-runtime --bench
//! data`: 38ns for 4KiB of random data, 1.1us for 128KiB, in 32-byte
//! vectors where the CPU has AVX2); it also clears what a read into the
//! same buffer left there.

use std::alloc::{Layout, alloc_zeroed, dealloc};
use std::sync::Arc;

use methodic_compiler::plan::DataPattern;

use crate::rng::Rng;

/// Aligned memory for `slots` buffers of `slot_size` bytes each.
pub struct Buffers {
    memory: Arc<Memory>,
    slot_size: usize,
    slots: usize,
}

/// The buffers' allocation, freed when the [`Buffers`] and every [`Lease`] of it are gone.
struct Memory {
    ptr: *mut u8,
    layout: Layout,
}

/// A share in the buffers' memory: an engine that passes the buffers'
/// addresses to the kernel holds one, so the memory outlives every I/O the
/// engine started, whichever of the engine and the buffers goes first.
#[derive(Clone)]
pub struct Lease {
    _memory: Arc<Memory>,
}

// SAFETY: `Memory` is an address and a layout; no method reads or writes
// the memory through it, and it is freed once, by the last of the `Buffers` and its leases, on
// whichever thread drops it.
unsafe impl Send for Memory {}
// SAFETY: as above: a shared `&Memory` gives no access to the bytes.
unsafe impl Sync for Memory {}
// SAFETY: the slots are reached only through `&mut Buffers` (`slot`) or
// as raw addresses handed to the kernel; one worker thread at a time
// owns the pool, and moving it moves that ownership.
unsafe impl Send for Buffers {}

/// Buffer alignment: enough for O_DIRECT on any device methodic meets.
pub const ALIGN: usize = 4096;

impl Buffers {
    pub fn new(slots: usize, slot_size: usize) -> Buffers {
        let slot_size = slot_size.max(1).next_multiple_of(ALIGN);
        let size = slot_size * slots.max(1);
        let layout = Layout::from_size_align(size, ALIGN).expect("buffer layout");
        // SAFETY: `layout` has a non-zero size (at least one slot of at least ALIGN bytes) and a
        // power-of-two alignment, as alloc_zeroed requires; a null result is handled below.
        let ptr = unsafe { alloc_zeroed(layout) };
        if ptr.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        Buffers { memory: Arc::new(Memory { ptr, layout }), slot_size, slots: slots.max(1) }
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
        // SAFETY: `i < slots` (asserted above), so the offset stays inside the one allocation of
        // `slots * slot_size` bytes.
        unsafe { self.memory.ptr.add(i * self.slot_size) }
    }

    pub fn slot(&mut self, i: usize) -> &mut [u8] {
        // SAFETY: `ptr(i)` is the start of slot `i`, `slot_size` bytes inside the allocation,
        // zeroed at allocation so initialised; `&mut self` makes this the only reference to it for
        // the slice's lifetime.
        unsafe { std::slice::from_raw_parts_mut(self.ptr(i), self.slot_size) }
    }

    /// A share in the memory behind the slots, for an engine that hands
    /// their addresses to the kernel.
    pub fn lease(&self) -> Lease {
        Lease { _memory: self.memory.clone() }
    }

    /// One iovec a slot, to register with io_uring.
    pub fn iovecs(&self) -> Vec<libc::iovec> {
        (0..self.slots)
            .map(|i| libc::iovec { iov_base: self.ptr(i).cast(), iov_len: self.slot_size })
            .collect()
    }
}

impl Drop for Memory {
    fn drop(&mut self) {
        // SAFETY: `ptr` came from alloc_zeroed with this same `layout`, and is freed once, here,
        // when the last lease goes.
        unsafe { dealloc(self.ptr, self.layout) }
    }
}

/// The unit of uniqueness and of the compressible layout.
pub const CHUNK: usize = 512;

/// Bytes at the start of each chunk that make it unique.
const STAMP: usize = 16;

/// Words (u64) in a chunk.
const WORDS: usize = CHUNK / 8;

/// Chunks in the random pool: 16KiB, which stays in the L1 cache beside
/// the buffer being written (a psync worker has one pool a thread).
const POOL_CHUNKS: usize = 32;

/// Sets the bytes of each buffer before it is written: see the module
/// documentation for what each data pattern writes.
pub struct Pattern {
    /// Bytes at the start of each chunk that are not zeros: 512 for random
    /// data, none for zeros.
    data: usize,
    /// The seed's half of every stamp.
    seed: u64,
    /// The first Feistel round's function of the seed.
    seed_mix: u64,
    /// Chunks stamped so far: the other half.
    chunks: u64,
    /// Random words, XORed with each chunk's key.
    pool: Vec<[u64; WORDS]>,
    /// Whether the CPU has AVX2.
    #[cfg(target_arch = "x86_64")]
    avx2: bool,
}

/// The SplitMix64 finalizer (a bijection of u64), offset so that zero
/// does not map to zero.
#[inline]
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl Pattern {
    pub fn new(kind: DataPattern, seed: u64) -> Pattern {
        let data = match kind {
            DataPattern::Random => CHUNK,
            DataPattern::Zeros => 0,
            // The compressible share is zeros; the compiler keeps it within 100%.
            DataPattern::Compressible(p) => CHUNK - (p.of(CHUNK as u64) as usize).min(CHUNK),
        };
        let mut rng = Rng::new(seed ^ 0x706f_6f6c);
        let pool = if data == 0 {
            Vec::new()
        } else {
            (0..POOL_CHUNKS).map(|_| std::array::from_fn(|_| rng.next_u64())).collect()
        };
        Pattern {
            data,
            seed,
            seed_mix: mix(seed),
            chunks: 0,
            pool,
            #[cfg(target_arch = "x86_64")]
            avx2: std::is_x86_feature_detected!("avx2"),
        }
    }

    /// Fills every buffer once with data of the pattern's layout. Workers
    /// need not: every write sets its bytes again (see
    /// [`Pattern::prepare_write`]); tests and the benchmark use it to show
    /// that what a buffer held before does not reach the device.
    pub fn init(&self, buffers: &mut Buffers, rng: &mut Rng) {
        for i in 0..buffers.slots() {
            for chunk in buffers.slot(i).chunks_mut(CHUNK) {
                let (data, zeros) = chunk.split_at_mut(self.data.min(chunk.len()));
                rng.fill(data);
                zeros.fill(0);
            }
        }
    }

    /// Sets `buf` (the first `len` bytes of a slot, about to be written):
    /// every byte, in the pattern's layout, with fresh stamps and keys.
    #[inline]
    pub fn prepare_write(&mut self, buf: &mut [u8]) {
        if self.data == 0 {
            buf.fill(0);
            return;
        }
        #[cfg(target_arch = "x86_64")]
        if self.avx2 {
            // SAFETY: `new` found that this CPU has AVX2.
            unsafe { self.fill_avx2(buf) };
            return;
        }
        self.fill(buf);
    }

    /// [`Pattern::fill`] in 32-byte vectors rather than the x86-64
    /// baseline's 16: half the instructions, a fifth less time.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn fill_avx2(&mut self, buf: &mut [u8]) {
        self.fill(buf)
    }

    /// Every chunk of `buf`, the last one possibly short: one pass that
    /// the compiler vectorizes.
    #[inline(always)]
    fn fill(&mut self, buf: &mut [u8]) {
        let mut chunks = buf.chunks_exact_mut(CHUNK);
        if self.data == CHUNK {
            for chunk in &mut chunks {
                let (l, r) = self.next_stamp();
                let chunk: &mut [u8; CHUNK] = chunk.try_into().expect("a whole chunk");
                let words = &self.pool[(l >> 59) as usize % POOL_CHUNKS];
                let key = l.wrapping_add(r.rotate_left(32));
                for (i, w) in words.iter().enumerate() {
                    chunk[8 * i..8 * i + 8].copy_from_slice(&(w ^ key).to_le_bytes());
                }
                chunk[..8].copy_from_slice(&l.to_le_bytes());
                chunk[8..STAMP].copy_from_slice(&r.to_le_bytes());
            }
        } else {
            for chunk in &mut chunks {
                self.part_chunk(chunk);
            }
        }
        let rest = chunks.into_remainder();
        if !rest.is_empty() {
            self.part_chunk(rest);
        }
    }

    /// The stamp of the worker's next chunk: two Feistel rounds over
    /// (seed, chunks stamped before), a bijection of 128 bits (the seed is
    /// `l ^ mix(r)`, and the count follows from `r` and the seed), so that
    /// different pairs give different stamps. `l` looks random; `r` is the
    /// count times an odd constant (XOR the seed's mix), in which any three
    /// bytes in a row come round again only after 2^24 chunks (8GiB), past
    /// any compressor's window. One mixing a chunk, where three rounds
    /// took two.
    #[inline]
    fn next_stamp(&mut self) -> (u64, u64) {
        let r = self.chunks.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ self.seed_mix;
        let l = self.seed ^ mix(r);
        self.chunks += 1;
        (l, r)
    }

    /// One chunk of compressible data, or the short chunk at a write's
    /// end: its data part, stamp first, then zeros.
    #[inline(always)]
    fn part_chunk(&mut self, chunk: &mut [u8]) {
        let (l, r) = self.next_stamp();
        let words = &self.pool[(l >> 59) as usize % POOL_CHUNKS];
        let key = l.wrapping_add(r.rotate_left(32));
        let n = self.data.min(chunk.len());
        let (data, zeros) = chunk.split_at_mut(n);
        let mut bytes = data.chunks_exact_mut(8);
        for (b, w) in (&mut bytes).zip(words) {
            b.copy_from_slice(&(w ^ key).to_le_bytes());
        }
        let tail = bytes.into_remainder();
        let last = (words[n / 8 % WORDS] ^ key).to_le_bytes();
        tail.copy_from_slice(&last[..tail.len()]);
        let mut stamp = [0u8; STAMP];
        stamp[..8].copy_from_slice(&l.to_le_bytes());
        stamp[8..].copy_from_slice(&r.to_le_bytes());
        data[..n.min(STAMP)].copy_from_slice(&stamp[..n.min(STAMP)]);
        zeros.fill(0);
    }
}

#[cfg(test)]
#[path = "../tests/common/zstd.rs"]
mod zstd_common;

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use methodic_compiler::plan::Percent;

    use super::zstd_common::zstd_ratio;
    use super::*;

    /// What `writes` writes of `len` bytes each through 8 slots (as a
    /// worker at queue depth 8 would) send to the device, in order.
    fn written(p: &mut Pattern, writes: usize, len: usize) -> Vec<u8> {
        let mut b = Buffers::new(8, len);
        p.init(&mut b, &mut Rng::new(5));
        let mut out = Vec::with_capacity(writes * len);
        for i in 0..writes {
            let slot = &mut b.slot(i % 8)[..len];
            p.prepare_write(slot);
            out.extend_from_slice(slot);
        }
        out
    }

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
    fn no_two_chunks_written_are_equal_within_or_across_workers() {
        let mut seen = HashSet::new();
        let (mut total, mut expected) = (0, 0);
        for seed in [1, 2] {
            let mut p = Pattern::new(DataPattern::Random, seed);
            for len in [4096, 512, 131072, 1536] {
                // 2MiB of each.
                let writes = (2 << 20) / len;
                expected += writes * len / CHUNK;
                for c in written(&mut p, writes, len).chunks_exact(CHUNK) {
                    seen.insert(c.to_vec());
                    total += 1;
                }
            }
        }
        assert_eq!(total, expected);
        assert_eq!(seen.len(), total, "every 512B chunk differs");
    }

    #[test]
    fn random_data_does_not_compress() {
        let mut p = Pattern::new(DataPattern::Random, 11);
        // 8MiB of 4KiB writes: zstd -19's whole window.
        let data = written(&mut p, 2048, 4096);
        for (level, long) in [(3, false), (19, false), (3, true)] {
            let r = zstd_ratio(&data, level, long);
            assert!(r >= 0.99, "zstd -{level} (long {long}): ratio {r:.4}");
        }
    }

    #[test]
    fn compressible_data_compresses_by_its_share() {
        for n in [0, 25, 50, 75, 90] {
            let mut p = Pattern::new(DataPattern::Compressible(Percent::whole(n)), 3);
            let data = written(&mut p, 1024, 4096);
            let zeros = data.iter().filter(|&&x| x == 0).count() as f64 / data.len() as f64;
            // A random byte is zero one time in 256.
            let expected_zeros = n as f64 / 100.0 + (1.0 - n as f64 / 100.0) / 256.0;
            assert!((zeros - expected_zeros).abs() < 0.005, "{n}%: {zeros:.4} zeros");
            let r = zstd_ratio(&data, 3, false);
            let target = 1.0 - n as f64 / 100.0;
            assert!(
                (r - target).abs() <= 0.02,
                "compressible {n}%: zstd ratio {r:.4}, not {target:.2} +- 0.02"
            );
            let uniq: HashSet<&[u8]> = data.chunks_exact(CHUNK).collect();
            assert_eq!(uniq.len(), data.len() / CHUNK, "{n}%: every chunk differs");
        }
    }

    #[test]
    fn what_a_read_left_in_a_buffer_is_not_written() {
        for kind in [DataPattern::Random, DataPattern::Zeros, DataPattern::Compressible(Percent::whole(50))] {
            let mut clean = Pattern::new(kind, 4);
            let mut dirty = Pattern::new(kind, 4);
            let mut a = Buffers::new(1, 8192);
            let mut b = Buffers::new(1, 8192);
            clean.init(&mut a, &mut Rng::new(1));
            dirty.init(&mut b, &mut Rng::new(2));
            for len in [8192, 4096, 1000, 7] {
                // As a read into the slot would leave it.
                b.slot(0).fill(0xaa);
                clean.prepare_write(&mut a.slot(0)[..len]);
                dirty.prepare_write(&mut b.slot(0)[..len]);
                assert_eq!(a.slot(0)[..len], b.slot(0)[..len], "{kind}, {len} bytes");
            }
            if kind == DataPattern::Zeros {
                assert!(b.slot(0)[..7].iter().all(|&x| x == 0));
            }
        }
    }

    #[test]
    fn a_short_write_is_stamped_as_far_as_it_goes() {
        let mut p = Pattern::new(DataPattern::Random, 8);
        let mut b = Buffers::new(1, 4096);
        let mut seen = HashSet::new();
        for len in [1000, 700, 16, 9] {
            let slot = &mut b.slot(0)[..len];
            p.prepare_write(slot);
            seen.insert(slot[len / CHUNK * CHUNK..].to_vec());
        }
        assert_eq!(seen.len(), 4, "each short tail differs");
    }
}
