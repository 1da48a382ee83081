//! DiskSpd's XML results (`-Rxml`) read into one shape: a part of
//! importing others' results (issue 32), kept apart from any results
//! directory so that the format is tested on its own.
//!
//! The layout, from `XmlResultParser::ParseResults` and its helpers
//! (microsoft/diskspd@c361eed, `XmlResultParser/XmlResultParser.cpp`;
//! `SystemInformation::GetXml` in `Common/Common.h`): `<Results>` holds
//! `<System>` (computer, tool version, run time), the `<Profile>` it ran
//! (the profile this importer already reads, so its place in the file is
//! kept), and a `<TimeSpan>` for each of the profile's time spans, in
//! order: `<TestTimeSeconds>`, `<ThreadCount>`, `<RequestCount>`, with
//! `-L` a `<Latency>` of averages, standard deviations and `<Bucket>`s of
//! percentiles (0, 1 to 99, 99.9 to 99.9999999, 100) in milliseconds, then
//! a `<Thread>` each with its `<Target>`s: path, bytes and I/O counts read
//! and written, and with `-L` their average latencies. A time span
//! interrupted before it measured holds `<Error>` instead.

use std::ops::Range;

use roxmltree::{Document, Node};

pub use crate::results_error::ResultsError;

/// A results file.
#[derive(Debug, Clone, PartialEq)]
pub struct DiskSpdResults {
    pub computer: Option<String>,
    /// `2.2.0`, and its date.
    pub version: Option<String>,
    pub version_date: Option<String>,
    /// When the run started, as DiskSpd wrote it (`2024/01/02 10:11:12 UTC`).
    pub run_time: Option<String>,
    /// Where the `<Profile>` element is in the text, for the profile reader.
    pub profile: Option<Range<usize>>,
    pub time_spans: Vec<SpanResult>,
}

/// One time span's results.
#[derive(Debug, Clone, PartialEq)]
pub struct SpanResult {
    /// What DiskSpd says when the span measured nothing.
    pub error: Option<String>,
    pub seconds: Option<f64>,
    pub threads: Option<u64>,
    pub request_count: Option<u64>,
    /// With `-L`: over every thread and target.
    pub latency: Option<SpanLatency>,
    pub targets: Vec<TargetResult>,
}

/// A span's latency, in milliseconds.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SpanLatency {
    pub read_mean: Option<f64>,
    pub write_mean: Option<f64>,
    pub total_mean: Option<f64>,
    /// 0 the minimum, 100 the maximum.
    pub percentiles: Vec<Percentile>,
}

/// One `<Bucket>` of a span's latency: a percentile of the reads, the
/// writes and both, in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Percentile {
    pub percent: f64,
    pub read: Option<f64>,
    pub write: Option<f64>,
    pub total: Option<f64>,
}

/// One thread's I/O on one target.
#[derive(Debug, Clone, PartialEq)]
pub struct TargetResult {
    pub thread: u64,
    pub path: String,
    pub file_size: Option<u64>,
    pub read_bytes: u64,
    pub reads: u64,
    pub write_bytes: u64,
    pub writes: u64,
    /// With `-L`, in milliseconds.
    pub read_mean: Option<f64>,
    pub write_mean: Option<f64>,
}

fn child<'a, 'i>(n: Node<'a, 'i>, name: &str) -> Option<Node<'a, 'i>> {
    n.children().find(|c| c.has_tag_name(name))
}

fn text_of(n: Node<'_, '_>, name: &str) -> Option<String> {
    child(n, name).and_then(|c| c.text()).map(|t| t.trim().to_string())
}

/// The document, to read numbers and say lines with.
struct Reader<'a, 'i> {
    doc: &'a Document<'i>,
}

impl<'a, 'i> Reader<'a, 'i> {
    fn line(&self, n: Node<'_, '_>) -> usize {
        self.doc.text_pos_at(n.range().start).row as usize
    }

    fn problem(&self, n: Node<'_, '_>, detail: impl Into<String>) -> ResultsError {
        ResultsError::new(self.line(n), detail)
    }

    fn parsed<T: std::str::FromStr>(
        &self,
        n: Node<'_, '_>,
        name: &str,
        what: &str,
    ) -> Result<Option<T>, ResultsError> {
        let Some(c) = child(n, name) else { return Ok(None) };
        let t = c.text().unwrap_or_default().trim();
        t.parse::<T>().map(Some).map_err(|_| self.problem(c, format!("<{name}>{t}</{name}> is not {what}")))
    }

    fn number(&self, n: Node<'_, '_>, name: &str) -> Result<Option<f64>, ResultsError> {
        self.parsed(n, name, "a number")
    }

    fn whole(&self, n: Node<'_, '_>, name: &str) -> Result<Option<u64>, ResultsError> {
        self.parsed(n, name, "a whole number")
    }

    fn span(&self, span: Node<'a, 'i>) -> Result<SpanResult, ResultsError> {
        let mut targets = Vec::new();
        for thread in span.children().filter(|c| c.has_tag_name("Thread")) {
            let id = self.whole(thread, "Id")?.unwrap_or(0);
            for t in thread.children().filter(|c| c.has_tag_name("Target")) {
                targets.push(self.target(t, id)?);
            }
        }
        let latency = child(span, "Latency").map(|l| self.latency(l)).transpose()?;
        let error = text_of(span, "Error");
        if error.is_none() && targets.is_empty() {
            return Err(self.problem(span, "a <TimeSpan> with neither results nor <Error>"));
        }
        Ok(SpanResult {
            error,
            seconds: self.number(span, "TestTimeSeconds")?,
            threads: self.whole(span, "ThreadCount")?,
            request_count: self.whole(span, "RequestCount")?,
            latency,
            targets,
        })
    }

    fn target(&self, t: Node<'_, '_>, thread: u64) -> Result<TargetResult, ResultsError> {
        let need = |name: &str| -> Result<u64, ResultsError> {
            self.whole(t, name)?.ok_or_else(|| self.problem(t, format!("a <Target> without <{name}>")))
        };
        Ok(TargetResult {
            thread,
            path: text_of(t, "Path").unwrap_or_default(),
            file_size: self.whole(t, "FileSize")?,
            read_bytes: need("ReadBytes")?,
            reads: need("ReadCount")?,
            write_bytes: need("WriteBytes")?,
            writes: need("WriteCount")?,
            read_mean: self.number(t, "AverageReadLatencyMilliseconds")?,
            write_mean: self.number(t, "AverageWriteLatencyMilliseconds")?,
        })
    }

    fn latency(&self, l: Node<'_, '_>) -> Result<SpanLatency, ResultsError> {
        let mut out = SpanLatency {
            read_mean: self.number(l, "AverageReadMilliseconds")?,
            write_mean: self.number(l, "AverageWriteMilliseconds")?,
            total_mean: self.number(l, "AverageTotalMilliseconds")?,
            percentiles: Vec::new(),
        };
        for b in l.children().filter(|c| c.has_tag_name("Bucket")) {
            let percent = self
                .number(b, "Percentile")?
                .ok_or_else(|| self.problem(b, "a latency <Bucket> without <Percentile>"))?;
            out.percentiles.push(Percentile {
                percent,
                read: self.number(b, "ReadMilliseconds")?,
                write: self.number(b, "WriteMilliseconds")?,
                total: self.number(b, "TotalMilliseconds")?,
            });
        }
        Ok(out)
    }
}

/// Reads DiskSpd's `-Rxml` output.
pub fn read_results(text: &str) -> Result<DiskSpdResults, ResultsError> {
    let doc = Document::parse(text)
        .map_err(|e| ResultsError::new(e.pos().row as usize, format!("not XML DiskSpd writes: {e}")))?;
    let r = Reader { doc: &doc };
    let root = doc.root_element();
    if !root.has_tag_name("Results") {
        let what = if root.has_tag_name("Profile") {
            "a profile (what -Rp or -X take), not results: `methodic import diskspd` reads it".to_string()
        } else {
            format!("<{}>, where DiskSpd's results start with <Results>", root.tag_name().name())
        };
        return Err(r.problem(root, what));
    }
    let spans = root
        .children()
        .filter(|c| c.has_tag_name("TimeSpan"))
        .map(|s| r.span(s))
        .collect::<Result<Vec<_>, _>>()?;
    if spans.is_empty() {
        return Err(r.problem(root, "<Results> without a <TimeSpan>: DiskSpd ran nothing"));
    }
    let system = child(root, "System");
    let tool = system.and_then(|s| child(s, "Tool"));
    Ok(DiskSpdResults {
        computer: system.and_then(|s| text_of(s, "ComputerName")),
        version: tool.and_then(|t| text_of(t, "Version")),
        version_date: tool.and_then(|t| text_of(t, "VersionDate")),
        run_time: system.and_then(|s| text_of(s, "RunTime")).filter(|t| !t.is_empty()),
        profile: child(root, "Profile").map(|p| p.range()),
        time_spans: spans,
    })
}

/// The body of the `diskspd_results` fuzz target: any bytes, as text with
/// invalid UTF-8 replaced. It panics, so that the fuzzer reports the
/// input, when the reader does, or when what it reads breaks a promise: a
/// time span with results or an error, a profile range inside the text.
pub fn fuzz(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    match read_results(&text) {
        Ok(r) => {
            assert!(!r.time_spans.is_empty());
            assert!(r.time_spans.iter().all(|s| s.error.is_some() || !s.targets.is_empty()));
            if let Some(p) = &r.profile {
                assert!(text.get(p.clone()).is_some_and(|t| t.starts_with("<Profile")));
            }
        }
        Err(e) => assert!(!e.detail.is_empty()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Written from XmlResultParser::ParseResults: the profile of
    /// random4k-oltp.xml, one time span of 2 threads on one target, with
    /// -L (latency) and -D (IOPS standard deviation).
    const FILE: &str = include_str!("../../../tests/diskspd/results-2.2.xml");

    #[test]
    fn a_span_of_two_threads_with_latency_percentiles() {
        let r = read_results(FILE).unwrap();
        assert_eq!(r.computer.as_deref(), Some("BENCH-07"));
        assert_eq!((r.version.as_deref(), r.version_date.as_deref()), (Some("2.2.0"), Some("2024/6/3")));
        assert_eq!(r.run_time.as_deref(), Some("2026/12/06 20:10:11 UTC"));
        let profile = &FILE[r.profile.clone().unwrap()];
        assert!(profile.starts_with("<Profile>") && profile.ends_with("</Profile>"));
        // The profile is the one the job importer reads.
        let imported = crate::diskspd::to_method(&crate::Input {
            text: profile,
            file: "p.xml",
            name: "p",
            vars: &[],
            include: &|_| Err("none".into()),
        });
        assert!(imported.is_ok(), "{imported:?}");
        assert_eq!(r.time_spans.len(), 1);
        let s = &r.time_spans[0];
        assert_eq!((s.seconds, s.threads, s.request_count), (Some(60.01), Some(2), Some(0)));
        assert_eq!(s.targets.len(), 2);
        let t = &s.targets[1];
        assert_eq!((t.thread, t.path.as_str()), (1, "E:\\bench\\t.dat"));
        assert_eq!((t.reads, t.writes, t.read_bytes), (2_100_000, 900_000, 2_100_000 * 4096));
        assert_eq!(t.read_mean, Some(0.412));
        let l = s.latency.as_ref().unwrap();
        assert_eq!(l.percentiles.len(), 1 + 99 + 7 + 1);
        assert_eq!(l.percentiles[0].percent, 0.0);
        assert_eq!(l.percentiles.last().unwrap().percent, 100.0);
        let p99 = l.percentiles.iter().find(|p| p.percent == 99.0).unwrap();
        assert!(p99.read.unwrap() < p99.write.unwrap(), "writes slower here: {p99:?}");
        assert!(
            l.percentiles.windows(2).all(|w| w[0].total <= w[1].total),
            "totals rise with the percentile"
        );
    }

    #[test]
    fn an_interrupted_span_and_foreign_files() {
        // The results' time span, not the profile's.
        let cut = FILE[..FILE.find("<TestTimeSeconds>").unwrap()].rfind("<TimeSpan>").unwrap();
        let interrupted = format!(
            "{}<TimeSpan>\n<Error>The test was interrupted before the measurements began. No results are displayed.</Error>\n</TimeSpan>\n</Results>",
            &FILE[..cut]
        );
        let r = read_results(&interrupted).unwrap();
        assert!(r.time_spans[0].error.as_deref().unwrap().starts_with("The test was interrupted"));
        let profile = include_str!("../../../tests/diskspd/random4k-oltp.xml");
        assert!(read_results(profile).unwrap_err().detail.contains("a profile"));
        assert!(read_results("<Results></Results>").unwrap_err().detail.contains("without a <TimeSpan>"));
        let e =
            read_results(&FILE.replacen("<ReadCount>2100000</ReadCount>", "<ReadCount>many</ReadCount>", 1))
                .unwrap_err();
        assert!(e.detail.contains("<ReadCount>many</ReadCount> is not a whole number") && e.line > 1, "{e}");
        assert!(read_results(&FILE[..FILE.len() / 2]).unwrap_err().detail.starts_with("not XML"));
    }

    #[test]
    fn every_cut_of_the_file_is_read_or_refused() {
        for cut in (0..=FILE.len()).step_by(97) {
            fuzz(&FILE.as_bytes()[..cut]);
        }
    }
}
