//! What setting the bytes of a write costs (`cargo bench -p
//! methodic-runtime --bench data`): nanoseconds a write for each data
//! pattern at 4KiB (through 32 buffers, as at QD32) and 128KiB (8 buffers),
//! the median and the least of repeated runs. It asserts nothing about
//! time. Figures go in docs/RESULTS.md ("Data written").

use std::hint::black_box;
use std::time::Instant;

use methodic_compiler::plan::{DataPattern, Percent};
use methodic_runtime::Rng;
use methodic_runtime::{Buffers, Pattern};

fn main() {
    let patterns = [
        ("random", DataPattern::Random),
        ("compressible 50%", DataPattern::Compressible(Percent::whole(50))),
        ("zeros", DataPattern::Zeros),
    ];
    for (block, slots) in [(4096usize, 32usize), (128 << 10, 8)] {
        for (name, kind) in patterns {
            let mut buffers = Buffers::new(slots, block);
            let mut pattern = Pattern::new(kind, 1);
            pattern.init(&mut buffers, &mut Rng::new(2));
            // 64MiB a run.
            let writes = (64 << 20) / block;
            let mut runs: Vec<f64> = (0..15)
                .map(|_| {
                    let t = Instant::now();
                    for i in 0..writes {
                        pattern.prepare_write(&mut buffers.slot(i % slots)[..block]);
                    }
                    black_box(buffers.slot(0)[0]);
                    t.elapsed().as_nanos() as f64 / writes as f64
                })
                .collect();
            runs.sort_by(f64::total_cmp);
            println!(
                "{:>6}KiB {name:<17} median {:>8.1} ns a write  (least {:.1}; {:.2} GB/s)",
                block >> 10,
                runs[runs.len() / 2],
                runs[0],
                block as f64 / runs[runs.len() / 2]
            );
        }
    }
}
