//! A fast, seeded random number generator (xoshiro256++, seeded through
//! SplitMix64): the same seed gives the same offsets, block sizes and
//! read/write choices on every run.

#[derive(Debug, Clone)]
pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    pub fn new(seed: u64) -> Rng {
        let mut x = seed;
        let mut next = || {
            x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        };
        Rng { s: [next(), next(), next(), next()] }
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// A number in `0..n` (Lemire's multiply-shift; the bias for `n`
    /// far below 2^64 is negligible). `n` must be above zero.
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// Fills `buf` with random bytes.
    pub fn fill(&mut self, buf: &mut [u8]) {
        let mut chunks = buf.chunks_exact_mut(8);
        for c in &mut chunks {
            c.copy_from_slice(&self.next_u64().to_le_bytes());
        }
        let rest = chunks.into_remainder();
        let last = self.next_u64().to_le_bytes();
        rest.copy_from_slice(&last[..rest.len()]);
    }
}

/// A seed for one worker of one step, from the run's seed: different for
/// every step and worker, the same on every run with the same seed.
pub fn derive_seed(run_seed: u64, step_id: &str, worker: u32) -> u64 {
    // FNV-1a over the step id, mixed with the run seed and the worker.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in step_id.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    Rng::new(h ^ run_seed.rotate_left(17) ^ (worker as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)).next_u64()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream_and_below_is_in_range_and_spread() {
        let mut a = Rng::new(42);
        let mut b = Rng::new(42);
        let xs: Vec<u64> = (0..100).map(|_| a.next_u64()).collect();
        assert_eq!(xs, (0..100).map(|_| b.next_u64()).collect::<Vec<_>>());
        let mut counts = [0u32; 10];
        let mut r = Rng::new(7);
        for _ in 0..100_000 {
            let v = r.below(10);
            counts[v as usize] += 1;
        }
        for c in counts {
            assert!((9_000..11_000).contains(&c), "{counts:?}");
        }
        assert_ne!(derive_seed(1, "a", 0), derive_seed(1, "a", 1));
        assert_ne!(derive_seed(1, "a", 0), derive_seed(1, "b", 0));
        assert_eq!(derive_seed(1, "a", 0), derive_seed(1, "a", 0));
    }
}
