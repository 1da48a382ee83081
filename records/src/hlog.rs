//! A step's latency histograms, as an HdrHistogram interval log beside
//! its series (`series/<step-id>.hlog`): a line a recorded interval (the
//! record window, or each round of a steady-state step) and op, tagged
//! `read`, `write` or `trim` (`cell3.read` in a `rounds` step), values in
//! nanoseconds, each histogram in the V2 compressed encoding, under a
//! header that names methodic, the step and the log's base time.
//! HdrHistogram's own tools (`HistogramLogProcessor`, the Rust crate's
//! `IntervalLogIterator`) read it. [`Writer`] writes it as the step runs
//! (each interval flushed, so that a crash keeps every finished one);
//! [`read`] reads every interval back, [`Latencies::read`] the histograms
//! added up by tag (what `report --format fio-json` makes its bins of).
//! Reading is strict: a file that is missing, is not such a log, is cut
//! off or holds a histogram that does not decode is an [`Error`] that
//! names the file and says where.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use hdrhistogram::Histogram;
use hdrhistogram::serialization::interval_log::{
    IntervalLogIterator, IntervalLogWriterBuilder, LogEntry, LogIteratorError, Tag,
};
use hdrhistogram::serialization::{Deserializer, V2DeflateSerializer};

use crate::csv_file::{cut, quoted, read_text};
use crate::error::{Error, Result};

/// The line above the intervals: the columns' names.
pub const LEGEND: &str =
    "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"";

/// One interval of the log: a histogram of latencies in nanoseconds.
#[derive(Debug, Clone, PartialEq)]
pub struct Interval {
    /// `read`, `write`, `trim`, after a part's prefix (`cell3.read`).
    pub tag: String,
    /// When it began, after the log's base time.
    pub start: Duration,
    pub length: Duration,
    pub histogram: Histogram<u64>,
}

/// An interval log, written an interval at a time.
pub struct Writer {
    path: PathBuf,
    file: BufWriter<File>,
    serializer: V2DeflateSerializer,
}

impl Writer {
    /// Creates the log at `path` for step `step`, its intervals timed from
    /// `base`, which its header also gives in words (`base_words`, RFC
    /// 3339: `2026-11-30T06:54:15Z`).
    pub fn create(path: &Path, step: &str, base: SystemTime, base_words: &str) -> Result<Writer> {
        let file =
            File::create(path).map_err(|e| Error::io(format!("cannot create {}", path.display()), e))?;
        let mut log = Writer {
            path: path.to_path_buf(),
            file: BufWriter::new(file),
            serializer: V2DeflateSerializer::new(),
        };
        let secs = base.duration_since(UNIX_EPOCH).unwrap_or_default().as_secs_f64();
        let header = format!(
            "#[methodic {}: latency of step {step}, in nanoseconds; tags read, write and trim]\n\
             #[Histogram log format version 1.3]\n\
             #[StartTime: {secs:.3} (seconds since epoch), {base_words}]\n\
             #[BaseTime: {secs:.3} (seconds since epoch)]\n\
             {LEGEND}\n",
            env!("CARGO_PKG_VERSION"),
        );
        log.file.write_all(header.as_bytes()).map_err(|e| log.error(e))?;
        log.flush()?;
        Ok(log)
    }

    /// Writes `histogram` as an interval tagged `tag` that began `start`
    /// after the base time and lasted `length`. Call [`Writer::flush`]
    /// once the intervals of a run are written.
    pub fn interval(
        &mut self,
        tag: &str,
        histogram: &Histogram<u64>,
        start: Duration,
        length: Duration,
    ) -> Result<()> {
        let mut writer = IntervalLogWriterBuilder::new()
            .begin_log_with(&mut self.file, &mut self.serializer)
            .map_err(|e| Error::io(format!("cannot write {}", self.path.display()), e))?;
        writer.write_histogram(histogram, start, length, Tag::new(tag)).map_err(|e| {
            Error::io(format!("cannot write {}", self.path.display()), std::io::Error::other(e.to_string()))
        })
    }

    /// Makes what is written so far reach the file.
    pub fn flush(&mut self) -> Result<()> {
        self.file.flush().map_err(|e| self.error(e))
    }

    /// Where the log is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn error(&self, e: std::io::Error) -> Error {
        Error::io(format!("cannot write {}", self.path.display()), e)
    }
}

/// Reads an interval log: every interval, in order.
pub fn read(path: &Path) -> Result<Vec<Interval>> {
    let mut out = Vec::new();
    each(path, |i| out.push(i))?;
    Ok(out)
}

/// A log's histograms added up by tag: every read of a step (or of a
/// part, `cell3.read`) over all its intervals.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Latencies {
    by_tag: BTreeMap<String, Histogram<u64>>,
}

impl Latencies {
    /// Reads the log at `path`, adding up its intervals by tag.
    pub fn read(path: &Path) -> Result<Latencies> {
        let mut by_tag: BTreeMap<String, Histogram<u64>> = BTreeMap::new();
        let mut failed = None;
        each(path, |i| match by_tag.get_mut(&i.tag) {
            Some(sum) => {
                if let Err(e) = sum.add(&i.histogram) {
                    failed.get_or_insert(format!("the intervals tagged {} do not add up: {e}", i.tag));
                }
            }
            None => {
                // A histogram read back has a fixed range; the sum grows
                // to take a later interval's larger values.
                let mut sum = i.histogram;
                sum.auto(true);
                by_tag.insert(i.tag, sum);
            }
        })?;
        match failed {
            Some(message) => Err(Error::results(path, message)),
            None => Ok(Latencies { by_tag }),
        }
    }

    /// The histogram of every interval tagged `tag`.
    pub fn of(&self, tag: &str) -> Option<&Histogram<u64>> {
        self.by_tag.get(tag)
    }

    /// The tags, in order.
    pub fn tags(&self) -> impl Iterator<Item = &str> {
        self.by_tag.keys().map(String::as_str)
    }
}

/// Calls `f` with each interval of the log at `path`, in order.
fn each(path: &Path, mut f: impl FnMut(Interval)) -> Result<()> {
    let text = read_text(path)?;
    let at = |message: String| Error::results(path, message);
    if text.is_empty() {
        return Err(at("is empty".into()));
    }
    if !text.lines().any(|l| l == LEGEND) {
        return Err(at(format!("is not a methodic latency log: it has no legend line, {LEGEND}")));
    }
    let mut de = Deserializer::new();
    for entry in IntervalLogIterator::new(text.as_bytes()) {
        let h = match entry {
            Ok(LogEntry::Interval(h)) => h,
            Ok(LogEntry::StartTime(_) | LogEntry::BaseTime(_)) => continue,
            Err(LogIteratorError::ParseError { offset }) => {
                let (number, line, whole) = line_at(&text, offset);
                return Err(at(if whole {
                    format!("line {number} is not an interval of a histogram log: {}", quoted(line))
                } else {
                    cut(number, line)
                }));
            }
        };
        // The histogram's text is a part of `text`: where it starts says
        // which line it is on.
        let (number, _, _) = line_at(&text, h.encoded_histogram().as_ptr() as usize - text.as_ptr() as usize);
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(h.encoded_histogram())
            .map_err(|e| at(format!("line {number}: its histogram is not base64: {e}")))?;
        let histogram: Histogram<u64> = de.deserialize(&mut bytes.as_slice()).map_err(|e| {
            at(format!("line {number}: its histogram does not decode: {}", lowercase(&e.to_string())))
        })?;
        f(Interval {
            tag: h.tag().map_or(String::new(), |t| t.as_str().to_string()),
            start: h.start_timestamp(),
            length: h.duration(),
            histogram,
        });
    }
    Ok(())
}

/// The line of `text` that `offset` is in: its number (from 1), its
/// text, and whether it ends with an end of line.
fn line_at(text: &str, offset: usize) -> (usize, &str, bool) {
    let start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let number = text[..start].matches('\n').count() + 1;
    match text[start..].find('\n') {
        Some(end) => (number, &text[start..start + end], true),
        None => (number, &text[start..], false),
    }
}

/// `The cookie ...` as `the cookie ...`, to follow a colon.
fn lowercase(s: &str) -> String {
    let mut c = s.chars();
    c.next().map_or(String::new(), |f| f.to_lowercase().chain(c).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn testdata(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/runtime-0.1.0").join(name)
    }

    fn histogram(values: impl Iterator<Item = u64>) -> Histogram<u64> {
        let mut h = Histogram::<u64>::new(3).unwrap();
        for v in values {
            h.record(v).unwrap();
        }
        h
    }

    #[test]
    fn intervals_written_read_back_value_for_value() {
        let path = std::env::temp_dir().join(format!("methodic-results-hlog-{}.hlog", std::process::id()));
        let base = UNIX_EPOCH + Duration::from_secs(1_790_000_000);
        let reads = histogram((1..=10_000u64).map(|i| i * 100));
        let writes = histogram([7_000_000u64].into_iter());
        let mut log = Writer::create(&path, "p/measure-x", base, "2026-09-21T14:13:20Z").unwrap();
        let (two, five) = (Duration::from_secs(2), Duration::from_secs(5));
        log.interval("read", &reads, two, five).unwrap();
        log.interval("write", &writes, two, five).unwrap();
        log.interval("cell2.read", &reads, Duration::from_millis(7250), five).unwrap();
        log.flush().unwrap();
        assert_eq!(log.path(), path);
        drop(log);
        let text = std::fs::read_to_string(&path).unwrap();
        let head: Vec<&str> = text.lines().take(5).collect();
        assert_eq!(
            head,
            [
                concat!(
                    "#[methodic ",
                    env!("CARGO_PKG_VERSION"),
                    ": latency of step p/measure-x, in nanoseconds; tags read, write and trim]"
                ),
                "#[Histogram log format version 1.3]",
                "#[StartTime: 1790000000.000 (seconds since epoch), 2026-09-21T14:13:20Z]",
                "#[BaseTime: 1790000000.000 (seconds since epoch)]",
                LEGEND,
            ]
        );
        assert!(text.lines().nth(5).unwrap().starts_with("Tag=read,2.000,5.000,1000447.000,HIST"), "{text}");
        let back = read(&path).unwrap();
        let want = [
            Interval { tag: "read".into(), start: two, length: five, histogram: reads.clone() },
            Interval { tag: "write".into(), start: two, length: five, histogram: writes.clone() },
            Interval {
                tag: "cell2.read".into(),
                start: Duration::from_millis(7250),
                length: five,
                histogram: reads.clone(),
            },
        ];
        assert_eq!(back, want);
        let sums = Latencies::read(&path).unwrap();
        assert_eq!(sums.tags().collect::<Vec<_>>(), ["cell2.read", "read", "write"]);
        assert_eq!(sums.of("read"), Some(&reads));
        assert_eq!(sums.of("trim"), None);
        // Two intervals of a tag add up.
        let mut log = Writer::create(&path, "p/measure-x", base, "2026-09-21T14:13:20Z").unwrap();
        log.interval("read", &reads, two, five).unwrap();
        log.interval("read", &writes, two + five, five).unwrap();
        log.flush().unwrap();
        let mut both = reads.clone();
        both.add(&writes).unwrap();
        assert_eq!(Latencies::read(&path).unwrap().of("read"), Some(&both));
        std::fs::remove_file(&path).unwrap();
    }

    /// What methodic 0.1.0's runtime wrote, byte for byte: a fill's log
    /// (one interval) and a rounds step's (a cell and round each).
    #[test]
    fn logs_the_runtime_wrote_still_read() {
        let fill = read(&testdata("fill-rnd4k_write.hlog")).unwrap();
        assert_eq!(fill.len(), 1);
        assert_eq!((fill[0].tag.as_str(), fill[0].start), ("write", Duration::ZERO));
        assert_eq!(fill[0].histogram.max(), fill[0].histogram.highest_equivalent(948_223));
        let rounds = read(&testdata("rounds-rnd4k_write.hlog")).unwrap();
        let tags: Vec<&str> = rounds.iter().map(|i| i.tag.as_str()).collect();
        assert_eq!(tags, ["cell1.write", "cell2.read", "cell1.write", "cell2.read"]);
        let sums = Latencies::read(&testdata("rounds-rnd4k_write.hlog")).unwrap();
        let ios = |tag: &str| rounds.iter().filter(|i| i.tag == tag).map(|i| i.histogram.len()).sum::<u64>();
        assert_eq!(sums.of("cell1.write").map(Histogram::len), Some(ios("cell1.write")));
    }

    /// A damaged log is refused, saying where and what is wrong.
    #[test]
    fn a_damaged_log_is_said_in_words() {
        let good = std::fs::read_to_string(testdata("rounds-rnd4k_write.hlog")).unwrap();
        let path =
            std::env::temp_dir().join(format!("methodic-results-hlog-bad-{}.hlog", std::process::id()));
        let said = |text: &str| {
            std::fs::write(&path, text).unwrap();
            let e = read(&path).unwrap_err().to_string();
            assert_eq!(Latencies::read(&path).unwrap_err().to_string(), e);
            e.strip_prefix(&format!("{}: ", path.display())).unwrap().to_string()
        };
        assert_eq!(said(""), "is empty");
        assert_eq!(
            said("t_s,iops\n1,2\n"),
            format!("is not a methodic latency log: it has no legend line, {LEGEND}")
        );
        // Cut off part way through the last interval.
        let e = said(&good[..good.len() - 100]);
        assert!(e.starts_with("ends part way through line 9, `Tag=cell2.read,"), "{e}");
        // A line that is no interval among the intervals.
        let lines: Vec<&str> = good.lines().collect();
        let mut odd = lines.clone();
        odd.insert(6, "not an interval");
        assert_eq!(
            said(&(odd.join("\n") + "\n")),
            "line 7 is not an interval of a histogram log: `not an interval`"
        );
        // A histogram that does not decode: its bytes cut short.
        let mut bad = lines.clone();
        let short = format!("{}AAAA", &lines[7][..lines[7].len() - 40]);
        bad[7] = &short;
        let e = said(&(bad.join("\n") + "\n"));
        assert!(e.starts_with("line 8: its histogram does not decode: "), "{e}");
        let mut bad = lines.clone();
        let odd = format!("{}*", lines[7]);
        bad[7] = &odd;
        let e = said(&(bad.join("\n") + "\n"));
        assert!(e.starts_with("line 8: its histogram is not base64: "), "{e}");
        std::fs::remove_file(&path).unwrap();
        assert_eq!(read(&path).unwrap_err().to_string(), format!("{}: is missing", path.display()));
    }
}
