//! Data sets for copy steps: their file sizes, drawn from a seeded
//! stream so that the compiler, the validator and the runtime's generator
//! agree on every size.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::Bytes;

/// A generated tree of files for copy tests.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Dataset {
    pub name: String,
    /// Every file's size lies in `size_min..=size_max`, drawn uniformly.
    pub size_min: Bytes,
    pub size_max: Bytes,
    pub files: u64,
    /// The sum of the file sizes.
    pub total: Bytes,
    pub seed: u64,
}

impl Dataset {
    /// A dataset of `files` files drawn from `size_min..=size_max`; the
    /// total follows from the draws.
    pub fn of_files(name: &str, size_min: Bytes, size_max: Bytes, files: u64, seed: u64) -> Dataset {
        let total = size_draws(size_min, size_max, seed).take(files as usize).sum();
        Dataset { name: name.to_string(), size_min, size_max, files, total: Bytes(total), seed }
    }

    /// The file sizes in order, as the generator makes them: uniform in
    /// `size_min..=size_max` from a SplitMix64 stream seeded with `seed`.
    /// When the count was derived from a total, the last file holds what
    /// is left of the total.
    pub fn file_sizes(&self) -> impl Iterator<Item = u64> + use<> {
        let mut draws = size_draws(self.size_min, self.size_max, self.seed);
        let files = self.files;
        let mut left = self.total.0;
        (1..=files).map(move |n| {
            let drawn = draws.next().unwrap_or(0);
            let size = if n == files { left } else { drawn.min(left) };
            left -= size;
            size
        })
    }
}

/// An endless stream of sizes uniform in `min..=max` (SplitMix64).
pub(crate) fn size_draws(min: Bytes, max: Bytes, seed: u64) -> impl Iterator<Item = u64> {
    let (min, max) = (min.0, max.0.max(min.0));
    let mut state = seed;
    std::iter::repeat_with(move || {
        if min == max {
            return min;
        }
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        min + z % (max - min + 1)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dataset(min: u64, max: u64, files: u64, total: u64) -> Dataset {
        Dataset {
            name: "d".into(),
            size_min: Bytes(min),
            size_max: Bytes(max),
            files,
            total: Bytes(total),
            seed: 7,
        }
    }

    #[test]
    fn fixed_size_dataset() {
        let sizes: Vec<u64> = dataset(10, 10, 3, 30).file_sizes().collect();
        assert_eq!(sizes, vec![10, 10, 10]);
    }

    #[test]
    fn dataset_sizes_stay_in_range_and_add_up() {
        let sizes: Vec<u64> = size_draws(Bytes(100), Bytes(1000), 7).take(50).collect();
        assert!(sizes.iter().all(|s| (100..=1000).contains(s)));
        assert!(sizes.iter().any(|s| *s != sizes[0]), "sizes vary");
        let total: u64 = sizes.iter().sum();
        assert_eq!(dataset(100, 1000, 50, total).file_sizes().collect::<Vec<_>>(), sizes);
        // A total that ends inside the 50th draw: the last file is cut.
        let cut = dataset(100, 1000, 50, total - 10).file_sizes().collect::<Vec<_>>();
        assert_eq!(cut.iter().sum::<u64>(), total - 10);
        assert_eq!(cut[49], sizes[49] - 10);
    }
}
