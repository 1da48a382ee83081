//! Latency histograms saved as HdrHistogram interval logs: a step's
//! recorders go in, one `.hlog` file beside the step's series comes out,
//! with a line a recorded interval (the record window, or each round of a
//! steady-state step) and op, tagged `read`, `write` or `trim` (`cell3.read`
//! in a `rounds` step). The file's layout is `methodic_results::hlog`'s,
//! whose `Writer` writes it and whose readers read it back; here a
//! recorder's histograms become its intervals. HdrHistogram's own tools
//! (`HistogramLogProcessor`, the Rust crate's `IntervalLogIterator`) read
//! it.

use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use methodic_results::hlog::Writer;

use crate::error::Result;
use crate::stats::Recorder;

/// An open interval log. Each interval is flushed as it is written, so a
/// crash keeps every finished one.
pub struct HistogramLog {
    writer: Writer,
    /// Interval start times are seconds after this (the log's BaseTime).
    base: SystemTime,
}

impl HistogramLog {
    /// Creates the log at `path` for step `step`, whose intervals are timed
    /// from `base`.
    pub fn create(path: &Path, step: &str, base: SystemTime) -> Result<HistogramLog> {
        let secs = base.duration_since(UNIX_EPOCH).unwrap_or_default().as_secs_f64();
        let writer = Writer::create(path, step, base, &crate::time::rfc3339(secs))?;
        Ok(HistogramLog { writer, base })
    }

    /// Writes `rec`'s reads, writes and trims (those it holds) as intervals that
    /// began at `from` and lasted `length`; `prefix` goes before the tag
    /// (`cell3.`).
    pub fn interval(
        &mut self,
        rec: &Recorder,
        from: SystemTime,
        length: Duration,
        prefix: &str,
    ) -> Result<()> {
        let start = from.duration_since(self.base).unwrap_or_default();
        for (name, stats) in [("read", &rec.read), ("write", &rec.write), ("trim", &rec.trim)] {
            if !stats.lat.is_empty() {
                self.writer.interval(&format!("{prefix}{name}"), &stats.lat, start, length)?;
            }
        }
        Ok(self.writer.flush()?)
    }

    /// Where the log is.
    pub fn path(&self) -> &Path {
        self.writer.path()
    }
}

#[cfg(test)]
mod tests {
    use hdrhistogram::serialization::Deserializer;
    use hdrhistogram::serialization::interval_log::{IntervalLogIterator, LogEntry};

    use super::*;
    use crate::workload::Op;

    #[test]
    fn a_log_reads_back_with_hdrhistograms_own_reader_value_for_value() {
        let path = std::env::temp_dir().join(format!("methodic-hlog-{}.hlog", std::process::id()));
        let base = UNIX_EPOCH + Duration::from_secs(1_790_000_000);
        let mut rec = Recorder::default();
        for i in 1..=10_000u64 {
            rec.record(Op::Read, 4096, i * 100);
        }
        rec.record(Op::Write, 4096, 7_000_000);
        rec.record(Op::Trim, 4096, 3_000_000);
        let mut log = HistogramLog::create(&path, "p/measure-x", base).unwrap();
        log.interval(&rec, base + Duration::from_secs(2), Duration::from_secs(5), "").unwrap();
        log.interval(&rec, base + Duration::from_secs(7), Duration::from_secs(5), "cell2.").unwrap();
        drop(log);
        let text = std::fs::read(&path).unwrap();
        let mut seen = Vec::new();
        for entry in IntervalLogIterator::new(&text) {
            let LogEntry::Interval(h) = entry.expect("every line parses") else { continue };
            let decoded: hdrhistogram::Histogram<u64> = Deserializer::new()
                .deserialize(&mut base64_decode(h.encoded_histogram()).as_slice())
                .unwrap();
            seen.push((h.tag().map(|t| t.as_str().to_string()), h.start_timestamp(), h.duration(), decoded));
        }
        assert_eq!(seen.len(), 6, "reads, writes and trims of two intervals");
        let (tag, start, length, read) = &seen[0];
        assert_eq!(
            (tag.as_deref(), *start, *length),
            (Some("read"), Duration::from_secs(2), Duration::from_secs(5))
        );
        assert_eq!(read.len(), 10_000);
        assert_eq!(read.value_at_quantile(0.5), rec.read.lat.value_at_quantile(0.5));
        assert_eq!(read.max(), rec.read.lat.max());
        assert_eq!(seen[1].0.as_deref(), Some("write"));
        assert_eq!(seen[1].3.max(), rec.write.lat.max());
        assert_eq!(seen[2].0.as_deref(), Some("trim"));
        assert_eq!((seen[2].3.len(), seen[2].3.max()), (1, rec.trim.lat.max()));
        assert_eq!((seen[3].0.as_deref(), seen[3].1), (Some("cell2.read"), Duration::from_secs(7)));
        assert_eq!(seen[5].0.as_deref(), Some("cell2.trim"));
        // methodic's own reader, which the report reads it with, reads the
        // same intervals.
        let back = methodic_results::hlog::read(&path).unwrap();
        assert_eq!(back.len(), 6);
        for (ours, (tag, start, length, h)) in back.iter().zip(&seen) {
            assert_eq!((Some(ours.tag.as_str()), ours.start, ours.length), (tag.as_deref(), *start, *length));
            assert_eq!(&ours.histogram, h);
        }
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("#[methodic "), "{text}");
        assert!(
            text.contains("#[StartTime: 1790000000.000 (seconds since epoch), 2026-09-21T14:13:20Z]\n"),
            "{text}"
        );
        std::fs::remove_file(&path).unwrap();
    }

    /// Standard base64, as the log's histograms are encoded.
    fn base64_decode(s: &str) -> Vec<u8> {
        let value = |c: u8| match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            _ => 63,
        };
        let bytes: Vec<u8> = s.bytes().filter(|&c| c != b'=').map(value).collect();
        let mut out = Vec::with_capacity(bytes.len() * 3 / 4);
        for chunk in bytes.chunks(4) {
            let n = chunk.iter().enumerate().fold(0u32, |n, (i, &v)| n | (v as u32) << (18 - 6 * i));
            out.extend(&n.to_be_bytes()[1..chunk.len()]);
        }
        out
    }
}
