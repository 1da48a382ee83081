//! Statistics without per-I/O logs: each worker counts I/Os and bytes and
//! records latencies into HDR histograms, reads and writes apart; the
//! workers' records merge into a step's summary: IOPS, MB/s and MiB/s,
//! and mean, p50 .. p99.9999 and max latency.

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

use crate::workload::Op;

/// Latencies are recorded in nanoseconds, up to a minute (longer ones
/// count as a minute).
const MAX_LATENCY_NS: u64 = 60_000_000_000;

pub(crate) fn histogram(sigfig: u8) -> Histogram<u64> {
    Histogram::new_with_bounds(1, MAX_LATENCY_NS, sigfig).expect("histogram bounds are valid")
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

/// What a worker (or a whole step) did.
#[derive(Debug, Clone)]
pub struct Recorder {
    pub read: OpStats,
    pub write: OpStats,
}

impl Default for Recorder {
    fn default() -> Self {
        Recorder { read: OpStats::new(), write: OpStats::new() }
    }
}

impl Recorder {
    #[inline]
    pub fn record(&mut self, op: Op, bytes: u64, latency_ns: u64) {
        let s = match op {
            Op::Read => &mut self.read,
            Op::Write => &mut self.write,
        };
        s.ios += 1;
        s.bytes += bytes;
        s.lat.saturating_record(latency_ns.max(1));
    }

    /// Counts an I/O without its latency.
    #[inline]
    pub fn count(&mut self, op: Op, bytes: u64) {
        let s = match op {
            Op::Read => &mut self.read,
            Op::Write => &mut self.write,
        };
        s.ios += 1;
        s.bytes += bytes;
    }

    pub fn merge(&mut self, other: &Recorder) {
        self.read.merge(&other.read);
        self.write.merge(&other.write);
    }

    pub fn ios(&self) -> u64 {
        self.read.ios + self.write.ios
    }

    pub fn bytes(&self) -> u64 {
        self.read.bytes + self.write.bytes
    }

    /// The summary over `seconds` of recording.
    pub fn summary(&self, seconds: f64) -> Summary {
        let mut all = self.read.clone();
        all.merge(&self.write);
        let part = |s: &OpStats| (s.ios > 0).then(|| Rates::of(s, seconds));
        Summary { seconds, total: Rates::of(&all, seconds), read: part(&self.read), write: part(&self.write) }
    }
}

/// A step's numbers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Seconds recorded.
    pub seconds: f64,
    pub total: Rates,
    /// Reads alone, when the step read.
    pub read: Option<Rates>,
    /// Writes alone, when the step wrote.
    pub write: Option<Rates>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Rates {
    pub ios: u64,
    pub bytes: u64,
    /// NaN (written as JSON `null`) when no time was recorded.
    #[serde(deserialize_with = "nullable")]
    pub iops: f64,
    /// Decimal megabytes (10^6 B) a second.
    #[serde(deserialize_with = "nullable")]
    pub mb_s: f64,
    /// Binary mebibytes (2^20 B) a second.
    #[serde(deserialize_with = "nullable")]
    pub mib_s: f64,
    pub latency_us: Latency,
}

/// A rate read back: JSON has no NaN, serde_json writes it as `null`.
pub(crate) fn nullable<'de, D: serde::Deserializer<'de>>(d: D) -> std::result::Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
}

impl Rates {
    fn of(s: &OpStats, seconds: f64) -> Rates {
        let secs = if seconds > 0.0 { seconds } else { f64::NAN };
        let rate = |x: u64| if s.ios == 0 { 0.0 } else { x as f64 / secs };
        Rates {
            ios: s.ios,
            bytes: s.bytes,
            iops: rate(s.ios),
            mb_s: rate(s.bytes) / 1e6,
            mib_s: rate(s.bytes) / 1_048_576.0,
            latency_us: Latency::of(&s.lat),
        }
    }
}

/// Latency in microseconds.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Latency {
    pub mean: f64,
    pub min: f64,
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
    pub p99_9: f64,
    pub p99_99: f64,
    /// Results written before these were kept read back as 0.
    #[serde(default)]
    pub p99_999: f64,
    #[serde(default)]
    pub p99_9999: f64,
    /// The longest I/O recorded: SNIA PTS's maximum response time.
    pub max: f64,
}

impl Latency {
    pub(crate) fn of(h: &Histogram<u64>) -> Latency {
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
}

#[cfg(test)]
mod tests {
    use super::*;

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
    }
}
