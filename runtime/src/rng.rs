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

    /// A draw of the exponential distribution of mean 1 (the gaps of a
    /// Poisson process of rate 1): `-ln(u)` for a uniform `u` in (0, 1],
    /// taken from the top 53 bits so that it is never 0. Mean and
    /// standard deviation are both 1.
    #[inline]
    pub fn exponential(&mut self) -> f64 {
        let u = ((self.next_u64() >> 11) + 1) as f64 * (1.0 / (1u64 << 53) as f64);
        -u.ln()
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

/// A seed from the run's seed and a name with an index: different for
/// every name and index, the same on every run with the same seed. Used
/// where a thing is named once (a dataset's files); I/O streams use
/// [`stream_seed`].
pub fn derive_seed(run_seed: u64, name: &str, index: u32) -> u64 {
    Rng::new(fnv1a(name) ^ run_seed.rotate_left(17) ^ (index as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15))
        .next_u64()
}

/// Which random stream a worker draws its offsets, block sizes and
/// read/write choices from: one for every step, repeat run, round (of a
/// precondition until steady or a `rounds` step), cell and worker. Two
/// rounds of one cell therefore issue unrelated offsets, as two
/// independent runs would, while the same run seed gives the same
/// streams again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stream<'a> {
    pub step: &'a str,
    /// The repeat run, from 1 (1 outside repeats).
    pub run: u32,
    /// The round, from 1 (1 for steps without rounds).
    pub round: u32,
    /// The cell of a `rounds` step, from 1 (1 elsewhere).
    pub cell: u32,
    /// The worker, from 0.
    pub worker: u32,
}

/// The seed of `stream` under the run seed `run_seed`: every field goes
/// through a full SplitMix64 round, so that streams whose fields differ
/// by one share nothing.
pub fn stream_seed(run_seed: u64, stream: &Stream) -> u64 {
    let mut h = mix(run_seed ^ 0x6d65_7468_6f64_6963, fnv1a(stream.step));
    for x in [stream.run, stream.round, stream.cell, stream.worker] {
        h = mix(h, x as u64);
    }
    h
}

/// One SplitMix64 step over `h` and `x`.
fn mix(h: u64, x: u64) -> u64 {
    let mut z = h.wrapping_add(x.wrapping_mul(0x9e37_79b9_7f4a_7c15)).wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// FNV-1a over a name.
fn fnv1a(name: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
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

    /// 100,000 exponential draws: mean 1 and coefficient of variation 1,
    /// each within 5 standard errors (the mean's is 1/sqrt(n); the
    /// standard deviation's, for an exponential, sqrt(2)/sqrt(n)); none
    /// below 0 or infinite.
    #[test]
    fn exponential_draws_have_mean_one_and_a_cv_of_one() {
        let mut r = Rng::new(11);
        let n = 100_000;
        let xs: Vec<f64> = (0..n).map(|_| r.exponential()).collect();
        assert!(xs.iter().all(|x| x.is_finite() && *x >= 0.0));
        let mean = xs.iter().sum::<f64>() / n as f64;
        let sd = (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt();
        let se = 1.0 / (n as f64).sqrt();
        assert!((mean - 1.0).abs() < 5.0 * se, "mean {mean}");
        assert!((sd / mean - 1.0).abs() < 5.0 * 2f64.sqrt() * se, "cv {}", sd / mean);
        // Its largest value of 100,000 is about ln(100,000) = 11.5; a
        // uniform draw of exactly 1 gives 0.
        let max = xs.iter().cloned().fold(0.0, f64::max);
        assert!(max > 8.0 && max < 20.0, "max {max}");
    }

    #[test]
    fn every_field_of_a_stream_changes_its_seed_and_the_run_seed_repeats_it() {
        let base = Stream { step: "p/precondition-rnd", run: 1, round: 1, cell: 1, worker: 0 };
        let variants = [
            Stream { step: "p/precondition-seq", ..base },
            Stream { run: 2, ..base },
            Stream { round: 2, ..base },
            Stream { cell: 2, ..base },
            Stream { worker: 1, ..base },
        ];
        let seed = stream_seed(7, &base);
        assert_eq!(seed, stream_seed(7, &base));
        assert_ne!(seed, stream_seed(8, &base));
        let mut seen = std::collections::HashSet::from([seed]);
        for v in &variants {
            assert!(seen.insert(stream_seed(7, v)), "{v:?} repeats another stream's seed");
        }
        // Swapping two fields' values is another stream too.
        assert_ne!(
            stream_seed(7, &Stream { round: 2, cell: 3, ..base }),
            stream_seed(7, &Stream { round: 3, cell: 2, ..base })
        );
    }
}
