//! Statistics without per-I/O logs: each worker counts I/Os and bytes and
//! records latencies into HDR histograms, reads, writes and trims apart;
//! the workers' records merge into a step's summary: IOPS, MB/s and MiB/s,
//! and mean, p50 .. p99.9999 and max latency, in total and for each op
//! the step did. A trim moves no data: it counts in the total's I/Os and
//! latencies, not in its bytes.

use hdrhistogram::Histogram;

use methodic_results::numbers::{Latency, Rates, Summary};

use crate::workload::Op;

/// Latencies are recorded in nanoseconds, up to a minute (longer ones
/// count as a minute).
const MAX_LATENCY_NS: u64 = 60_000_000_000;

pub(crate) fn histogram(sigfig: u8) -> Histogram<u64> {
    Histogram::new_with_bounds(1, MAX_LATENCY_NS, sigfig).expect("histogram bounds are valid")
}

/// Latency counts in the layout of `histogram``(3)` (HdrHistogram's
/// buckets for three significant digits from 1ns: 2048 linear steps, then
/// 1024 steps a power of two), reads, writes and trims apart, kept by a worker
/// between series intervals and added to the interval's histograms at its
/// end. Counting a latency here is an index and an increment, about ten
/// instructions; the histogram's own `record` also keeps its minimum,
/// maximum and total on each call, about five times as many. Both give the
/// same histogram: a latency lands in the bucket the histogram itself
/// would choose.
pub struct LatencyTally {
    /// Reads' counts, then writes', then trims' (in the order of [`Op`]),
    /// then a fourth part never used: each a power of two long, so that an
    /// index masked to it needs no bounds check; the indexes in use end
    /// at [`COUNTS_LEN`]. Untouched parts cost no memory.
    counts: Box<[u64; PARTS * COUNTS_POW2]>,
}

/// log2 of the linear steps of the first bucket (2048 for 3 digits).
const SUB_BUCKET_BITS: u32 = 11;
/// Buckets after the first, up to the largest u64: a latency needs no
/// clamping on its way in.
const BUCKETS: usize = 64 - SUB_BUCKET_BITS as usize + 1;
const COUNTS_LEN: usize = (BUCKETS + 1) << (SUB_BUCKET_BITS - 1);
const COUNTS_POW2: usize = COUNTS_LEN.next_power_of_two();
/// Parts of the tally: one an [`Op`], rounded up to a power of two.
const PARTS: usize = 4;

impl Default for LatencyTally {
    fn default() -> Self {
        let counts = vec![0u64; PARTS * COUNTS_POW2].into_boxed_slice();
        LatencyTally { counts: counts.try_into().expect("the length of the type") }
    }
}

impl LatencyTally {
    /// Counts one latency.
    #[inline]
    pub fn record(&mut self, op: Op, latency_ns: u64) {
        let v = latency_ns;
        let bucket = 64 - SUB_BUCKET_BITS - (v | ((1 << SUB_BUCKET_BITS) - 1)).leading_zeros();
        let index = ((bucket as usize) << (SUB_BUCKET_BITS - 1)) + (v >> bucket) as usize;
        let half = (op as usize) * COUNTS_POW2;
        self.counts[(half | (index & (COUNTS_POW2 - 1))) & (PARTS * COUNTS_POW2 - 1)] += 1;
    }

    /// Adds the latencies counted since the last drain to `rec`'s
    /// histograms (its I/O and byte counts are kept by the caller) and
    /// clears them; latencies longer than `MAX_LATENCY_NS` count as that,
    /// as in [`Recorder::record`]. Not inlined, so that a profile can tell
    /// it from the I/O loop (bench/recording-cost.sh).
    #[inline(never)]
    pub fn drain_into(&mut self, rec: &mut Recorder) {
        let (read, rest) = self.counts.split_at_mut(COUNTS_POW2);
        let (write, trim) = rest.split_at_mut(COUNTS_POW2);
        drain(&mut read[..COUNTS_LEN], &mut rec.read.lat);
        drain(&mut write[..COUNTS_LEN], &mut rec.write.lat);
        drain(&mut trim[..COUNTS_LEN], &mut rec.trim.lat);
    }
}

/// Adds one direction's counts to `h` and clears them.
fn drain(counts: &mut [u64], h: &mut Histogram<u64>) {
    const LANES: usize = 64;
    for (block, counts) in counts.chunks_exact_mut(LANES).enumerate() {
        // Most of the array is zeros: skip 64 counts at a time.
        if counts.iter().fold(0, |a, &c| a | c) == 0 {
            continue;
        }
        for (i, c) in counts.iter_mut().enumerate() {
            if *c != 0 {
                let index = block * LANES + i;
                let half = 1usize << (SUB_BUCKET_BITS - 1);
                // The lowest value of the index's bucket: it lands there again.
                let value = if index < 2 * half {
                    index as u64
                } else {
                    let bucket = (index >> (SUB_BUCKET_BITS - 1)) - 1;
                    ((index - bucket * half) as u64) << bucket
                };
                let _ = h.record_n(value.clamp(1, MAX_LATENCY_NS), *c);
                *c = 0;
            }
        }
    }
}

/// One direction's counts.
#[derive(Debug, Clone)]
pub struct OpStats {
    pub ios: u64,
    pub bytes: u64,
    pub lat: Histogram<u64>,
}

impl OpStats {
    fn new() -> OpStats {
        OpStats { ios: 0, bytes: 0, lat: histogram(3) }
    }

    fn merge(&mut self, other: &OpStats) {
        self.ios += other.ios;
        self.bytes += other.bytes;
        // Both histograms have the same bounds, so adding cannot fail.
        let _ = self.lat.add(&other.lat);
    }
}

/// What a worker (or a whole step) did. Laid out as C lays it out: the
/// three ops' counts one after another, in the order of [`Op`], so that
/// an op picks its counts by its number rather than by a branch.
#[derive(Debug, Clone)]
#[repr(C)]
pub struct Recorder {
    pub read: OpStats,
    pub write: OpStats,
    /// Trims: their bytes are those deallocated, not moved.
    pub trim: OpStats,
}

impl Default for Recorder {
    fn default() -> Self {
        Recorder { read: OpStats::new(), write: OpStats::new(), trim: OpStats::new() }
    }
}

impl Recorder {
    /// Counts one I/O (tests: workers count through their tallies).
    #[cfg(test)]
    pub fn record(&mut self, op: Op, bytes: u64, latency_ns: u64) {
        let s = self.of(op);
        s.ios += 1;
        s.bytes += bytes;
        // Longer than a minute counts as a minute (the histogram's
        // saturating_record would keep some up to 68.7s in their own buckets).
        s.lat.saturating_record(latency_ns.clamp(1, MAX_LATENCY_NS));
    }

    /// Counts an I/O without its latency.
    #[inline]
    pub fn count(&mut self, op: Op, bytes: u64) {
        let s = self.of(op);
        s.ios += 1;
        s.bytes += bytes;
    }

    /// Adds `ios` I/Os of `bytes` whose latencies are `bins` (each a
    /// latency in nanoseconds and how many I/Os took it: another tool's
    /// histogram, such as fio's JSON+ bins).
    pub fn add_counted(&mut self, op: Op, ios: u64, bytes: u64, bins: impl Iterator<Item = (u64, u64)>) {
        let s = self.of(op);
        s.ios += ios;
        s.bytes += bytes;
        for (ns, n) in bins {
            let _ = s.lat.record_n(ns.clamp(1, MAX_LATENCY_NS), n);
        }
    }

    /// Not inlined, so that a profile can tell it from a worker's I/O
    /// loop (bench/recording-cost.sh).
    #[inline(never)]
    pub fn merge(&mut self, other: &Recorder) {
        self.read.merge(&other.read);
        self.write.merge(&other.write);
        self.trim.merge(&other.trim);
    }

    /// One op's counts: the `op as usize`-th of `read`, `write`, `trim`.
    /// (A match over three ops cost a worker's loop 6 instructions an
    /// I/O more than one over two; this costs none.)
    #[inline]
    fn of(&mut self, op: Op) -> &mut OpStats {
        const _: () = assert!(Op::Read as usize == 0 && Op::Write as usize == 1 && Op::Trim as usize == 2);
        // SAFETY: `Recorder` is `repr(C)` with its three `OpStats` fields
        // first, in the order of `Op`'s values (checked above): the
        // `op as usize`-th (0, 1 or 2) `OpStats` from its start is one of
        // them, and the pointer comes from the whole of `self`.
        unsafe { &mut *(self as *mut Recorder).cast::<OpStats>().add(op as usize) }
    }

    /// Every I/O: reads, writes and trims.
    pub fn ios(&self) -> u64 {
        self.read.ios + self.write.ios + self.trim.ios
    }

    /// Every I/O's counts and latencies together; its bytes are the data
    /// moved, reads' and writes' (a trim moves none).
    fn all(&self) -> OpStats {
        let mut all = self.read.clone();
        all.merge(&self.write);
        if self.trim.ios > 0 {
            all.merge(&self.trim);
            all.bytes -= self.trim.bytes;
        }
        all
    }

    /// The latency at `ppm` parts per million (999,900 for p99.99) of every
    /// I/O, reads, writes and trims together, in nanoseconds; `None` with none.
    pub fn percentile_ns(&self, ppm: u32) -> Option<u64> {
        let all = self.all();
        (!all.lat.is_empty()).then(|| all.lat.value_at_quantile(ppm as f64 / 1e6))
    }

    /// Bytes moved: read and written (not trimmed).
    pub fn bytes(&self) -> u64 {
        self.read.bytes + self.write.bytes
    }

    /// The summary over `seconds` of recording: the total counts every
    /// I/O, trims too, and the data moved; each op the step did apart.
    pub fn summary(&self, seconds: f64) -> Summary {
        let part = |s: &OpStats| (s.ios > 0).then(|| rates_of(s, seconds));
        Summary {
            seconds,
            total: rates_of(&self.all(), seconds),
            read: part(&self.read),
            write: part(&self.write),
            trim: part(&self.trim),
        }
    }
}

/// The rates of `s` over `seconds`.
fn rates_of(s: &OpStats, seconds: f64) -> Rates {
    let secs = if seconds > 0.0 { seconds } else { f64::NAN };
    let rate = |x: u64| if s.ios == 0 { 0.0 } else { x as f64 / secs };
    Rates {
        ios: s.ios,
        bytes: s.bytes,
        iops: rate(s.ios),
        mb_s: rate(s.bytes) / 1e6,
        mib_s: rate(s.bytes) / 1_048_576.0,
        latency_us: latency_of(&s.lat),
    }
}

/// The latency percentiles of `h` (nanoseconds) in microseconds.
pub(crate) fn latency_of(h: &Histogram<u64>) -> Latency {
    if h.is_empty() {
        return Latency::default();
    }
    let us = |ns: u64| ns as f64 / 1000.0;
    Latency {
        mean: h.mean() / 1000.0,
        min: us(h.min()),
        p50: us(h.value_at_quantile(0.5)),
        p90: us(h.value_at_quantile(0.9)),
        p99: us(h.value_at_quantile(0.99)),
        p99_9: us(h.value_at_quantile(0.999)),
        p99_99: us(h.value_at_quantile(0.9999)),
        p99_999: us(h.value_at_quantile(0.99999)),
        p99_9999: us(h.value_at_quantile(0.999999)),
        max: us(h.max()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Latencies counted by `LatencyTally` and drained make the histograms
    /// that recording each into a `Recorder` makes: bucket for bucket, with
    /// their minimum, maximum, mean and percentiles, reads, writes and trims
    /// apart; twice, so that draining clears the counts.
    #[test]
    fn latency_tally_makes_the_histograms_record_makes() {
        let mut rng = crate::rng::Rng::new(7);
        let mut tally = LatencyTally::default();
        for round in 0..2 {
            let (mut fast, mut slow) = (Recorder::default(), Recorder::default());
            let mut values: Vec<u64> = vec![
                0,
                1,
                2,
                2047,
                2048,
                2049,
                4095,
                4096,
                1 << 20,
                MAX_LATENCY_NS,
                65_000_000_000,
                u64::MAX,
            ];
            // Every power of two's range, each at a spread of points.
            for _ in 0..20_000 {
                let bits = rng.next_u64() % 40;
                values.push(rng.next_u64() >> (64 - bits.max(1)) << round);
            }
            for (i, &v) in values.iter().enumerate() {
                // Reads, writes and trims in turn.
                let op = [Op::Read, Op::Write, Op::Trim][i % 3];
                tally.record(op, v);
                fast.count(op, 4096);
                slow.record(op, 4096, v);
            }
            tally.drain_into(&mut fast);
            for (f, s) in [
                (&fast.read.lat, &slow.read.lat),
                (&fast.write.lat, &slow.write.lat),
                (&fast.trim.lat, &slow.trim.lat),
            ] {
                assert_eq!(f.len(), s.len());
                assert!(f == s, "the histograms differ");
                assert_eq!((f.min(), f.max()), (s.min(), s.max()));
                assert_eq!(f.mean(), s.mean());
                assert_eq!(f.value_at_quantile(0.999999), s.value_at_quantile(0.999999));
            }
            assert_eq!(fast.summary(1.0), slow.summary(1.0));
        }
    }

    #[test]
    fn summary_rates_and_percentiles() {
        let mut r = Recorder::default();
        for i in 1..=1000u64 {
            r.record(Op::Read, 4096, i * 1000);
        }
        r.record(Op::Write, 8192, 5_000_000);
        let s = r.summary(2.0);
        assert_eq!(s.total.ios, 1001);
        assert!((s.total.iops - 500.5).abs() < 1e-9);
        assert!((s.total.mb_s - (1000.0 * 4096.0 + 8192.0) / 2.0 / 1e6).abs() < 1e-9);
        let read = s.read.unwrap();
        assert!((read.latency_us.p50 - 500.0).abs() < 1.0, "{}", read.latency_us.p50);
        assert!((read.latency_us.p99 - 990.0).abs() < 1.5, "{}", read.latency_us.p99);
        assert!((read.latency_us.max - 1000.0).abs() < 1.0);
        // With 1000 values, p99.999 and p99.9999 are the largest.
        assert!((read.latency_us.p99_999 - 1000.0).abs() < 1.0, "{}", read.latency_us.p99_999);
        assert!((read.latency_us.p99_9999 - 1000.0).abs() < 1.0);
        // The maximum of the whole step is the write's 5ms.
        assert!((s.total.latency_us.max - 5000.0).abs() < 5.0, "{}", s.total.latency_us.max);
        assert_eq!(s.write.unwrap().ios, 1);
        let mut merged = Recorder::default();
        merged.merge(&r);
        merged.merge(&r);
        assert_eq!(merged.ios(), 2002);
        assert!(s.trim.is_none(), "no trims, no trim row");
    }

    /// Trims count in the total's I/Os and latencies, and in a row of
    /// their own, but not in the bytes the total moved.
    #[test]
    fn trims_count_apart_and_move_no_data() {
        let mut r = Recorder::default();
        for i in 1..=100u64 {
            r.record(Op::Read, 4096, i * 1000);
            r.record(Op::Trim, 65536, 2_000_000);
        }
        r.record(Op::Write, 8192, 1000);
        let s = r.summary(1.0);
        assert_eq!(s.total.ios, 201);
        assert_eq!(s.total.bytes, 100 * 4096 + 8192, "no trimmed bytes in the data moved");
        let trim = s.trim.clone().expect("a trim row");
        assert_eq!((trim.ios, trim.bytes), (100, 100 * 65536));
        assert!((trim.latency_us.p50 - 2000.0).abs() < 2.0, "{}", trim.latency_us.p50);
        assert!((s.total.latency_us.max - 2000.0).abs() < 2.0, "the trims' latency is in the total's");
        assert_eq!(r.bytes(), 100 * 4096 + 8192);
        let json = serde_json::to_value(&s).unwrap();
        assert_eq!(json["trim"]["ios"], 100);
        let without = serde_json::to_value(Recorder::default().summary(1.0)).unwrap();
        assert!(without.get("trim").is_none(), "left out when none: {without}");
    }
}
