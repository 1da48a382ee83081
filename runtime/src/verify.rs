//! Data verification: a stamp at the head of every interval a step with
//! `verify` writes, checked where the interval is read back. What goes in:
//! a write's bytes (already set by [`crate::data::Pattern`]) and where it
//! goes, a read's bytes and where they came from; what comes out: stamped
//! bytes, and [`Findings`] (intervals checked, every mismatch counted, the
//! first [`VerifyResult::LISTED`] described). What it checks: the stamp's
//! magic, its checksum over the whole interval, the run it names and the
//! offset it names.
//!
//! The stamp, 48 bytes little-endian at the head of each interval, over
//! the first bytes of the data pattern's own 512-byte chunk there (whose
//! 16-byte stamp already makes every chunk unique; the verify stamp, with
//! the offset, run, worker and write it holds, keeps that chunk unique):
//!
//! | bytes | field |
//! |---|---|
//! | 0..8 | magic `mthdvrfy` |
//! | 8..12 | CRC-32 of the interval, these 4 bytes left out |
//! | 12..16 | the interval's length |
//! | 16..24 | the interval's offset on the target |
//! | 24..32 | the run's identity ([`run_identity`]) |
//! | 32..36 | the worker that wrote it |
//! | 36..40 | 0 |
//! | 40..48 | the worker's write sequence number |
//!
//! The checksum is CRC-32 (IEEE) by crc32fast: already built for the
//! deflate of the latency logs, and vectorized (PCLMULQDQ), about as fast
//! as CRC32C in hardware; a CRC-32 catches every burst of up to 32 bits
//! and all but 2^-32 of the rest, which is what is asked of it here.
//!
//! The interval is the smallest alignment of the plan's verify steps'
//! workloads, at least 512 bytes ([`interval_of`]). A write step's
//! [`Tracker`] keeps which intervals it wrote whole in a bitmap (a bit an
//! interval: 32 MiB a TiB of span at 4 KiB intervals, about 116 MiB for
//! a 4 TB drive, eight times that at 512-byte intervals; as much again for
//! the intervals left out, whose pages are only touched where trims or
//! partial writes were); a per-interval last sequence number would take 8
//! bytes an interval (about 7.3 GiB for 4 TB at 4 KiB), so the check is
//! against the run and the offset, not the latest write.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::sync::atomic::{AtomicU64, Ordering};

use methodic_compiler::plan::Workload;
use methodic_results::record::{Mismatch, MismatchKind, VerifyResult};

use crate::data::Buffers;
use crate::region::Region;

/// The stamp's first 8 bytes.
const MAGIC: [u8; 8] = *b"mthdvrfy";

/// The interval a step's workload is verified in: its alignment, since
/// every I/O starts at a multiple of it (so that each interval is written
/// whole by one write, its stamp where writes begin), and at least 512
/// bytes (a sector, the least a device writes at once, and room for data
/// beside the stamp).
pub fn interval_of(w: &Workload) -> u32 {
    w.align.0.clamp(512, 1 << 30) as u32
}

/// A run's identity in its stamps: its seed and the time it started (both
/// kept in the manifest, so that a resumed run checks what it wrote
/// before), mixed.
pub fn run_identity(seed: u64, started: &str) -> u64 {
    // FNV-1a over the start time, then SplitMix64's finalizer with the seed.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in started.bytes() {
        h = (h ^ b as u64).wrapping_mul(0x0100_0000_01b3);
    }
    let mut z = (h ^ seed).wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// What stamps are made and checked against: the run and the interval.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamping {
    pub run: u64,
    pub interval: u32,
}

/// The checksum of an interval: every byte but the checksum's own four.
fn checksum(iv: &[u8]) -> u32 {
    let mut h = crc32fast::Hasher::new();
    h.update(&iv[..8]);
    h.update(&iv[12..]);
    h.finalize()
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

/// The whole intervals of `len` bytes at `offset`: their first offset and
/// how many.
fn whole(offset: u64, len: u64, interval: u64) -> (u64, u64) {
    let first = offset.next_multiple_of(interval);
    let end = (offset + len) / interval * interval;
    (first, end.saturating_sub(first) / interval)
}

impl Stamping {
    /// Stamps every whole interval of `buf`, a write of its bytes at
    /// `offset` by `worker`, its `seq`-th.
    pub fn stamp(&self, buf: &mut [u8], offset: u64, worker: u32, seq: u64) {
        let v = self.interval as u64;
        let (first, n) = whole(offset, buf.len() as u64, v);
        for k in 0..n {
            let at = first + k * v;
            let i = (at - offset) as usize;
            let iv = &mut buf[i..i + v as usize];
            iv[..8].copy_from_slice(&MAGIC);
            iv[12..16].copy_from_slice(&self.interval.to_le_bytes());
            iv[16..24].copy_from_slice(&at.to_le_bytes());
            iv[24..32].copy_from_slice(&self.run.to_le_bytes());
            iv[32..36].copy_from_slice(&worker.to_le_bytes());
            iv[36..40].copy_from_slice(&0u32.to_le_bytes());
            iv[40..48].copy_from_slice(&seq.to_le_bytes());
            let crc = checksum(iv);
            iv[8..12].copy_from_slice(&crc.to_le_bytes());
        }
    }

    /// Checks every whole interval of `buf`, read at `offset`, into `out`.
    pub fn check(&self, buf: &[u8], offset: u64, out: &mut Findings) {
        let v = self.interval as u64;
        let (first, n) = whole(offset, buf.len() as u64, v);
        for k in 0..n {
            let at = first + k * v;
            let i = (at - offset) as usize;
            out.checked += 1;
            if let Some((kind, expected, found)) = self.check_one(&buf[i..i + v as usize], at) {
                out.mismatch(at, kind, expected, found);
            }
        }
    }

    /// What is wrong with the interval `iv` read at `at`, if anything:
    /// its kind, and what was expected and found, in words (made only for
    /// a mismatch).
    fn check_one(&self, iv: &[u8], at: u64) -> Option<(MismatchKind, String, String)> {
        if iv[..8] != MAGIC {
            let head: Vec<String> = iv[..8].iter().map(|b| format!("{b:02x}")).collect();
            return Some((
                MismatchKind::NotStamped,
                "a stamp (a block written with verify)".into(),
                format!("no stamp (first bytes {})", head.join(" ")),
            ));
        }
        let (stored, len) = (u32_at(iv, 8), u32_at(iv, 12));
        if len != self.interval {
            return Some((
                MismatchKind::Corrupted,
                format!("a stamp of a {}-byte interval", self.interval),
                format!("a stamp of a {len}-byte interval"),
            ));
        }
        let crc = checksum(iv);
        if crc != stored {
            return Some((
                MismatchKind::Corrupted,
                format!("checksum {stored:#010x} (the stamp's)"),
                format!("checksum {crc:#010x} of the bytes read"),
            ));
        }
        let (offset, run, worker, seq) = (u64_at(iv, 16), u64_at(iv, 24), u32_at(iv, 32), u64_at(iv, 40));
        let by = format!("worker {worker}, write {seq}");
        if run != self.run {
            return Some((
                MismatchKind::Stale,
                format!("a stamp of run {:016x}", self.run),
                format!("a stamp of run {run:016x} ({by})"),
            ));
        }
        if offset != at {
            return Some((
                MismatchKind::Misplaced,
                format!("the stamp of offset {at}"),
                format!("the stamp of offset {offset} ({by})"),
            ));
        }
        None
    }
}

/// A mismatch as a worker finds it, before it knows the target's path.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    pub offset: u64,
    pub kind: MismatchKind,
    pub expected: String,
    pub found: String,
}

/// What checks found: intervals checked, mismatches (counted exactly),
/// and the first [`VerifyResult::LISTED`] described.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Findings {
    pub checked: u64,
    pub mismatches: u64,
    pub first: Vec<Found>,
}

impl Findings {
    fn mismatch(&mut self, offset: u64, kind: MismatchKind, expected: String, found: String) {
        self.mismatches += 1;
        if self.first.len() < VerifyResult::LISTED {
            self.first.push(Found { offset, kind, expected, found });
        }
    }

    /// Adds `other`'s: its counts, and its mismatches to the list while
    /// there is room.
    pub fn merge(&mut self, other: Findings) {
        self.checked += other.checked;
        self.mismatches += other.mismatches;
        let room = VerifyResult::LISTED.saturating_sub(self.first.len());
        self.first.extend(other.first.into_iter().take(room));
    }

    /// The mismatches as results list them, on `target`.
    pub fn listed(&self, target: &str) -> Vec<Mismatch> {
        self.first
            .iter()
            .map(|f| Mismatch {
                target: target.to_string(),
                offset: f.offset,
                kind: f.kind,
                expected: f.expected.clone(),
                found: f.found.clone(),
            })
            .collect()
    }
}

/// A bitmap that threads set bits in at once.
struct Bitmap(Box<[AtomicU64]>);

impl Bitmap {
    /// `bits` bits, all clear. The memory is the allocator's zeroed pages:
    /// a page of it costs memory only once a bit in it is set.
    fn new(bits: u64) -> Bitmap {
        const _: () = assert!(
            std::mem::size_of::<AtomicU64>() == 8 && std::mem::align_of::<AtomicU64>() == 8,
            "AtomicU64 is laid out as u64"
        );
        let words = vec![0u64; bits.div_ceil(64) as usize].into_boxed_slice();
        // SAFETY: AtomicU64 has u64's size and alignment (checked above)
        // and any u64 is a valid AtomicU64; the slice is owned and moved.
        Bitmap(unsafe { Box::from_raw(Box::into_raw(words) as *mut [AtomicU64]) })
    }

    #[inline]
    fn set(&self, bit: u64) {
        self.0[(bit / 64) as usize].fetch_or(1 << (bit % 64), Ordering::Relaxed);
    }

    fn word(&self, i: usize) -> u64 {
        self.0[i].load(Ordering::Relaxed)
    }
}

/// Which intervals of a region a write step wrote whole (to read back),
/// and which it left unknown (trimmed, or written in part: not checked).
/// The step's workers on one target share it.
pub struct Tracker {
    /// The offset of interval 0: the region's start, rounded down.
    base: u64,
    interval: u64,
    count: u64,
    written: Bitmap,
    left_out: Bitmap,
}

impl Tracker {
    pub fn new(region: Region, interval: u32) -> Tracker {
        let v = interval as u64;
        let base = region.start / v * v;
        let count = region.end().div_ceil(v) - base / v;
        Tracker { base, interval: v, count, written: Bitmap::new(count), left_out: Bitmap::new(count) }
    }

    /// The intervals that `len` bytes at `offset` touch: the first's
    /// index and the end's, in the region.
    fn touched(&self, offset: u64, len: u64) -> (u64, u64) {
        let from = offset.saturating_sub(self.base) / self.interval;
        let to = (offset + len).saturating_sub(self.base).div_ceil(self.interval);
        (from.min(self.count), to.min(self.count))
    }

    /// A write of `len` bytes at `offset` is done: the intervals it wrote
    /// whole are to be read back; those it wrote in part are left out.
    pub fn wrote(&self, offset: u64, len: u64) {
        let (first, n) = whole(offset, len, self.interval);
        let (from, to) = self.touched(offset, len);
        let (w_from, w_to) = self.touched(first, n * self.interval);
        for i in from..to {
            if n > 0 && i >= w_from && i < w_to {
                self.written.set(i);
            } else {
                self.left_out.set(i);
            }
        }
    }

    /// A trim of `len` bytes at `offset` is done: what its intervals hold
    /// is not known, and they are left out.
    pub fn trimmed(&self, offset: u64, len: u64) {
        let (from, to) = self.touched(offset, len);
        for i in from..to {
            self.left_out.set(i);
        }
    }

    /// Intervals written whole, and of those, how many are left out.
    pub fn counts(&self) -> (u64, u64) {
        let (mut written, mut left_out) = (0, 0);
        for i in 0..self.written.0.len() {
            let w = self.written.word(i);
            written += w.count_ones() as u64;
            left_out += (w & self.left_out.word(i)).count_ones() as u64;
        }
        (written, left_out)
    }

    /// Calls `f` with each run of intervals to read back, in order: the
    /// offset of its first interval and how many follow it. Streamed: a
    /// run is handed out as it ends, nothing is collected.
    fn each_run(&self, mut f: impl FnMut(u64, u64) -> std::io::Result<()>) -> std::io::Result<()> {
        let mut run: Option<(u64, u64)> = None;
        for i in 0..self.written.0.len() {
            let mut w = self.written.word(i) & !self.left_out.word(i);
            while w != 0 {
                let bit = i as u64 * 64 + w.trailing_zeros() as u64;
                w &= w - 1;
                match run.as_mut() {
                    Some((start, n)) if *start + *n == bit => *n += 1,
                    _ => {
                        if let Some((start, n)) = run.replace((bit, 1)) {
                            f(self.base + start * self.interval, n)?;
                        }
                    }
                }
            }
        }
        match run {
            Some((start, n)) => f(self.base + start * self.interval, n),
            None => Ok(()),
        }
    }

    /// Reads back every interval to check from `file` (O_DIRECT or not:
    /// the buffer is aligned for it), 1 MiB at a time or an interval when
    /// larger, and checks it against `stamping`.
    pub fn read_back(&self, file: &File, stamping: Stamping, out: &mut Findings) -> std::io::Result<()> {
        let per_read = ((1u64 << 20) / self.interval).max(1);
        let mut buffers = Buffers::new(1, (per_read * self.interval) as usize);
        self.each_run(|start, n| {
            let mut done = 0;
            while done < n {
                let k = per_read.min(n - done);
                let at = start + done * self.interval;
                let buf = &mut buffers.slot(0)[..(k * self.interval) as usize];
                file.read_exact_at(buf, at)?;
                stamping.check(buf, at, out);
                done += k;
            }
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: Stamping = Stamping { run: 0x1234_5678_9abc_def0, interval: 4096 };

    /// 16KiB of random bytes stamped as a write at 8192 by worker 3, its 7th.
    fn written() -> Vec<u8> {
        let mut buf = vec![0u8; 16 << 10];
        crate::rng::Rng::new(9).fill(&mut buf);
        S.stamp(&mut buf, 8192, 3, 7);
        buf
    }

    fn check(buf: &[u8], at: u64) -> Findings {
        let mut f = Findings::default();
        S.check(buf, at, &mut f);
        f
    }

    #[test]
    fn what_was_written_checks_and_each_kind_of_damage_is_named() {
        let buf = written();
        assert_eq!(check(&buf, 8192), Findings { checked: 4, ..Findings::default() });
        // A flipped byte in the third interval's data.
        let mut bad = buf.clone();
        bad[2 * 4096 + 1000] ^= 0x40;
        let f = check(&bad, 8192);
        assert_eq!((f.checked, f.mismatches), (4, 1));
        assert_eq!((f.first[0].offset, f.first[0].kind), (8192 + 2 * 4096, MismatchKind::Corrupted));
        assert!(f.first[0].found.starts_with("checksum 0x"), "{:?}", f.first[0]);
        // The same bytes read at another offset: each stamp names its own.
        let f = check(&buf, 8192 + 4096);
        assert_eq!(f.mismatches, 4);
        assert!(f.first.iter().all(|m| m.kind == MismatchKind::Misplaced));
        assert_eq!(f.first[0].expected, "the stamp of offset 12288");
        assert_eq!(f.first[0].found, "the stamp of offset 8192 (worker 3, write 7)");
        // Written by another run.
        let other = Stamping { run: 1, ..S };
        let mut f = Findings::default();
        other.check(&buf, 8192, &mut f);
        assert_eq!(f.first[0].kind, MismatchKind::Stale);
        assert_eq!(f.first[0].found, "a stamp of run 123456789abcdef0 (worker 3, write 7)");
        // Never stamped: zeros.
        let f = check(&[0u8; 8192], 0);
        assert_eq!((f.checked, f.mismatches, f.first[0].kind), (2, 2, MismatchKind::NotStamped));
        assert_eq!(f.first[0].found, "no stamp (first bytes 00 00 00 00 00 00 00 00)");
    }

    #[test]
    fn only_whole_intervals_are_stamped_and_checked() {
        // 12000 bytes at 1000 (to 13000): the intervals at 4096 and 8192
        // are whole.
        let mut buf = vec![7u8; 12_000];
        S.stamp(&mut buf, 1000, 0, 0);
        assert_eq!(&buf[4096 - 1000..4096 - 1000 + 8], b"mthdvrfy");
        assert_eq!(&buf[8192 - 1000..8192 - 1000 + 8], b"mthdvrfy");
        assert!(buf[..4096 - 1000].iter().all(|b| *b == 7), "no stamp before the first whole interval");
        assert_eq!(check(&buf, 1000).checked, 2);
    }

    #[test]
    fn at_most_a_hundred_mismatches_are_listed_and_all_are_counted() {
        let mut f = check(&vec![0u8; 150 * 4096], 0);
        assert_eq!((f.mismatches, f.first.len()), (150, 100));
        f.merge(check(&[0u8; 4096], 1 << 20));
        assert_eq!((f.checked, f.mismatches, f.first.len()), (151, 151, 100));
    }

    /// Whole writes are read back; a partial one and a trim leave their
    /// intervals out; runs of consecutive intervals are read together.
    #[test]
    fn a_tracker_keeps_what_was_written_whole() {
        let t = Tracker::new(Region { start: 4096, len: 64 << 10 }, 4096);
        t.wrote(4096, 8192); // intervals at 4096 and 8192
        t.wrote(16384, 4096); // 16384
        t.wrote(20480 + 100, 4096); // in part: 20480 and 24576 left out
        t.wrote(32768, 8192); // 32768, 36864
        t.trimmed(36864, 4096); // 36864 left out
        assert_eq!(t.counts(), (5, 1));
        let mut runs = Vec::new();
        t.each_run(|at, n| {
            runs.push((at, n));
            Ok(())
        })
        .unwrap();
        assert_eq!(runs, [(4096, 2), (16384, 1), (32768, 1)]);
    }

    #[test]
    fn a_run_is_known_by_its_seed_and_start() {
        let a = run_identity(1, "2026-12-02T03:00:00Z");
        assert_eq!(a, run_identity(1, "2026-12-02T03:00:00Z"));
        assert_ne!(a, run_identity(2, "2026-12-02T03:00:00Z"));
        assert_ne!(a, run_identity(1, "2026-12-02T03:00:01Z"));
    }
}
