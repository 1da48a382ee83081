//! The data a run writes, read back from a file target: with `data random`
//! no two 512B chunks are equal and zstd cannot compress the file (at its
//! default level, at level 19 and with long distance matching);
//! `data compressible N%` compresses to within 2 points of 100 - N%;
//! `data zeros` writes zeros; and what a read leaves in a buffer is never
//! written. Runs on files in the temporary directory, as any user.

mod common;
#[path = "common/zstd.rs"]
mod zstd_common;

use std::collections::{HashMap, HashSet};
use std::fs;
use std::path::PathBuf;

use methodic_results::record::Status;
use methodic_runtime::{Quiet, RunOptions, run};
use zstd_common::zstd_ratio;

const CHUNK: usize = 512;

/// A file target holding `content`, and a results folder
/// beside it; both removed when dropped.
struct Scratch {
    dir: PathBuf,
}

impl Scratch {
    fn new(name: &str, content: &[u8]) -> Scratch {
        let dir = common::temp_dir(&format!("data-{name}"));
        fs::write(dir.join("target.bin"), content).unwrap();
        Scratch { dir }
    }

    fn target(&self) -> PathBuf {
        self.dir.join("target.bin")
    }

    /// Runs `source` on the target; the target's bytes afterwards.
    fn run(&self, source: &str) -> Vec<u8> {
        let plan =
            methodic_compiler::compile(source, &Default::default()).unwrap_or_else(|d| panic!("{d}")).plan;
        let opts = RunOptions {
            targets: vec![self.target()],
            out: self.dir.join("results"),
            seed: 5,
            skip_ceiling: true,
            overwrite: true,
            ..Default::default()
        };
        let report = run(&plan, &opts, &mut Quiet).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(report.status, Status::Completed, "{:?}", report.error);
        fs::read(self.target()).unwrap()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.dir);
    }
}

/// A methodology over `span` that writes `data`: a sequential fill, then
/// 4KiB random writes (`read` of them reads) from two workers at QD 8
/// until as much as the span was written, when `fill` is set; the random
/// I/O alone otherwise.
fn source(span: &str, data: &str, read: u32, fill: bool) -> String {
    format!(
        "methodology \"data\" version \"1\"\n\
         target {{ span {span}; workers 2; io direct; data {data} }}\n\
         workload seq {{ sequential; block 128KiB; read 0% }}\n\
         workload rnd {{ random; block 4KiB; read {read}% }}\n\
         {}measure rnd qd 16 for 10min until written 100%\n",
        if fill { "fill seq passes 1\n" } else { "" }
    )
}

/// How many 512B chunks of `data` repeat an earlier one.
fn duplicate_chunks(data: &[u8]) -> usize {
    let mut seen = HashSet::new();
    data.chunks_exact(CHUNK).filter(|c| !seen.insert(*c)).count()
}

/// A file whose every 512B chunk differs from the others and from
/// anything methodic writes: its index, over and over.
fn numbered(size: usize) -> Vec<u8> {
    (0..size / CHUNK).flat_map(|i| (i as u64 | 0xdead << 48).to_le_bytes().repeat(CHUNK / 8)).collect()
}

#[test]
fn random_data_has_no_repeated_chunk_and_does_not_compress() {
    let s = Scratch::new("random", &vec![0; 32 << 20]);
    let data = s.run(&source("32MiB", "random", 0, true));
    let zero = [0u8; CHUNK];
    assert_eq!(data.chunks_exact(CHUNK).filter(|c| *c == zero).count(), 0, "the fill wrote every chunk");
    assert_eq!(duplicate_chunks(&data), 0, "no two 512B chunks are equal");
    // Level 19's window is 8MiB: its first 8MiB show all it can find.
    for (level, long, part) in [(3, false, &data[..]), (3, true, &data[..]), (19, false, &data[..8 << 20])] {
        let r = zstd_ratio(part, level, long);
        println!("data random: zstd -{level}{}: ratio {r:.4}", if long { " --long" } else { "" });
        assert!(r >= 0.99, "zstd -{level} (long {long}) compresses random data to {r:.4}");
    }
}

#[test]
fn compressible_data_compresses_to_its_share_within_2_points() {
    for n in [25, 50, 75, 90] {
        let s = Scratch::new(&format!("compressible{n}"), &vec![0; 8 << 20]);
        let data = s.run(&source("8MiB", &format!("compressible {n}%"), 0, true));
        let target = 1.0 - n as f64 / 100.0;
        // Level 19 (seconds of CPU for 8MiB) at one share only: what a
        // stronger compressor could find across chunks is the generator's,
        // the same at every share; level 3 and its long window check each.
        let levels: &[(i32, bool)] =
            if n == 50 { &[(3, false), (19, false), (3, true)] } else { &[(3, false), (3, true)] };
        for &(level, long) in levels {
            let r = zstd_ratio(&data, level, long);
            println!(
                "data compressible {n}%: zstd -{level}{}: ratio {r:.4}",
                if long { " --long" } else { "" }
            );
            assert!(
                (r - target).abs() <= 0.02,
                "compressible {n}%: zstd -{level} gives {r:.4}, not {target:.2} +- 0.02"
            );
        }
        assert_eq!(duplicate_chunks(&data), 0, "compressible {n}%: no two 512B chunks are equal");
    }
}

/// Reads into a worker's buffers bring other chunks' content; a write
/// from the same buffer must not carry it elsewhere.
#[test]
fn what_a_read_left_in_a_buffer_is_never_written() {
    let size = 8 << 20;
    let before = numbered(size);
    let own: HashMap<&[u8], usize> = before.chunks_exact(CHUNK).enumerate().map(|(i, c)| (c, i)).collect();

    let s = Scratch::new("zeros", &before);
    let after = s.run(&source("8MiB", "zeros", 50, false));
    let mut zeroed = 0;
    for (i, c) in after.chunks_exact(CHUNK).enumerate() {
        if c.iter().all(|&x| x == 0) {
            zeroed += 1;
        } else {
            assert_eq!(own.get(c), Some(&i), "data zeros: chunk {i} is neither zeros nor as it was");
        }
    }
    // 8MiB written at random offsets leaves about 1/e of them unwritten.
    assert!(zeroed > size / CHUNK / 2, "data zeros: only {zeroed} chunks zeroed");

    let s = Scratch::new("mixed", &before);
    let after = s.run(&source("8MiB", "random", 50, false));
    let mut kept = 0;
    for (i, c) in after.chunks_exact(CHUNK).enumerate() {
        if let Some(&j) = own.get(c) {
            assert_eq!(j, i, "data random: chunk {j} was read and written again at {i}");
            kept += 1;
        }
    }
    assert!(kept < size / CHUNK / 2, "data random: {kept} chunks unwritten");
    assert_eq!(duplicate_chunks(&after), 0, "data random: no two 512B chunks are equal");
}
