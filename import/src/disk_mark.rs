//! CrystalDiskMark's and KDiskMark's text results (File > Save, or the
//! clipboard) read into one shape: a part of importing others' results
//! (issue 32), kept apart from any results directory so that each shape
//! is tested on its own.
//!
//! The layouts, from the tools' sources:
//! - CrystalDiskMark (hiyohiyo/CrystalDiskMark@bf00fa6, 9.0.1,
//!   `DiskMarkDlg.cpp`: `SaveText`, `GetResultString`): a banner
//!   `CrystalDiskMark 8.0.4 x64 (C) 2007-2021 hiyohiyo` between dashed
//!   lines; `[Read]`, `[Write]` and with the mix mode `[Mix] Read R%/Write
//!   W%` sections of lines `  SEQ    1MiB (Q=  8, T= 1):  3512.345 MB/s [
//!   3349.6 IOPS] <  2386.08 us>`; then `Profile:`, `Test:` (size, count,
//!   drive), `Mode:`, `Time: Measure 5 sec / Interval 5 sec`, `Date:`,
//!   `OS:`, `Comment:`. Lines end in CR LF. Its IOPS are not measured:
//!   `GetResultString` works them out of the MB/s and the block size.
//! - KDiskMark (JonMagon/KDiskMark@e78d3c7, `mainwindow.cpp`
//!   `getTextBenchmarkResult` and `tui.cpp` `buildReport`): the banner
//!   `KDiskMark (3.1.4): https://...` and `Flexible I/O Tester (fio-3.33):
//!   https://...`, right-justified to 80 columns; lines `Sequential   1
//!   MiB (Q=  8, T= 1): ...`, the same numbers from fio; `Test: 1 GiB (x5)
//!   [Measure: 5 sec / Interval: 5 sec]`, `Date:`, `OS:`, `Target:`.
//!
//! CrystalDiskMark's MB/s is 1,000,000 bytes a second, as its header says.
//! KDiskMark's header says the same, but its figure is fio's `bw` (KiB/s)
//! divided by 1000 (`benchmark.cpp`), 1,024,000 bytes a second; the
//! importer (`runs::disk_mark`) takes it so. KiB and MiB are powers of
//! 1024 in both.

pub use crate::results_error::ResultsError;

/// Which tool wrote the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarkTool {
    CrystalDiskMark,
    KDiskMark,
}

impl MarkTool {
    pub fn name(self) -> &'static str {
        match self {
            MarkTool::CrystalDiskMark => "CrystalDiskMark",
            MarkTool::KDiskMark => "KDiskMark",
        }
    }
}

/// A results file of either tool.
#[derive(Debug, Clone, PartialEq)]
pub struct DiskMark {
    pub tool: MarkTool,
    /// `8.0.4 x64`, `3.1.4`, as written.
    pub version: String,
    /// KDiskMark's fio (`fio-3.33`).
    pub fio_version: Option<String>,
    pub rows: Vec<MarkRow>,
    /// The lines after the results (`Profile`, `Test`, `Mode`, `Time`,
    /// `Date`, `OS`, `Target`, `Comment`), by their name, as written.
    pub settings: Vec<(String, String)>,
    /// `Test:`'s size, in bytes, and its count (`1 GiB (x5)`).
    pub test_size: Option<u64>,
    pub test_count: Option<u32>,
    /// Seconds each test measures, and the pause between tests.
    pub measure_s: Option<u64>,
    pub interval_s: Option<u64>,
}

/// Reads or writes, or a mix with this share of reads.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MarkDirection {
    Read,
    Write,
    Mix { read: u8 },
}

/// One test's result.
#[derive(Debug, Clone, PartialEq)]
pub struct MarkRow {
    pub direction: MarkDirection,
    pub sequential: bool,
    /// Bytes.
    pub block: u64,
    pub queues: u32,
    pub threads: u32,
    /// Millions of bytes a second.
    pub mb_s: f64,
    pub iops: f64,
    /// The mean latency, in microseconds.
    pub latency_us: f64,
    /// The IOPS were worked out of the MB/s (CrystalDiskMark), not
    /// counted.
    pub iops_derived: bool,
    /// The line, from 1.
    pub line: usize,
}

fn error(line: usize, detail: impl Into<String>) -> ResultsError {
    ResultsError::new(line, detail)
}

/// Reads a CrystalDiskMark or KDiskMark text result.
pub fn read_disk_mark(text: &str) -> Result<DiskMark, ResultsError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let lines: Vec<&str> = text.lines().map(|l| l.trim_end_matches('\r')).collect();
    let (tool, version, fio_version) = banner(&lines)?;
    let mut out = DiskMark {
        tool,
        version,
        fio_version,
        rows: Vec::new(),
        settings: Vec::new(),
        test_size: None,
        test_count: None,
        measure_s: None,
        interval_s: None,
    };
    let mut direction: Option<MarkDirection> = None;
    let mut past_rows = false;
    for (i, raw) in lines.iter().enumerate() {
        let n = i + 1;
        let line = raw.trim();
        if line.is_empty() || line.starts_with('-') || line.starts_with("* ") {
            continue;
        }
        if let Some(rest) = line.strip_prefix('[') {
            direction = Some(section(rest, n)?);
            continue;
        }
        if let Some((name, value)) = setting(line) {
            past_rows = true;
            out.settings.push((name.to_string(), value.to_string()));
            continue;
        }
        let starts_row = ["SEQ", "RND", "Sequential", "Random"].iter().any(|w| line.starts_with(w));
        match (starts_row, direction) {
            (true, _) if past_rows => return Err(error(n, "a result line after the settings")),
            (true, Some(d)) => out.rows.push(row(line, d, tool, n)?),
            (true, None) => {
                return Err(error(n, "a result line before any [Read], [Write] or [Mix] section"));
            }
            // The banner's lines, and the lines a tool adds we do not know.
            (false, _) => {}
        }
    }
    if out.rows.is_empty() {
        return Err(error(0, format!("no result lines: a {} file with no test results", tool.name())));
    }
    test_settings(&mut out);
    Ok(out)
}

/// What is between the first `(` and the next `)`.
fn in_brackets(l: &str) -> Option<&str> {
    l.split_once('(').and_then(|(_, r)| r.split_once(')')).map(|(v, _)| v.trim())
}

/// The tool and its version from the banner.
fn banner(lines: &[&str]) -> Result<(MarkTool, String, Option<String>), ResultsError> {
    for l in lines.iter().take(8).map(|l| l.trim()) {
        if let Some(rest) = l.strip_prefix("CrystalDiskMark ") {
            let version = rest.split(" (C)").next().unwrap_or(rest).trim().to_string();
            return Ok((MarkTool::CrystalDiskMark, version, None));
        }
        if l.starts_with("KDiskMark (") {
            let version = in_brackets(l).unwrap_or_default().to_string();
            let fio = lines
                .iter()
                .map(|l| l.trim())
                .find(|l| l.starts_with("Flexible I/O Tester ("))
                .and_then(in_brackets)
                .map(str::to_string);
            return Ok((MarkTool::KDiskMark, version, fio));
        }
    }
    Err(error(0, "no CrystalDiskMark or KDiskMark banner in the first lines: not a result either tool saved"))
}

/// `Read]`, `Write]`, `Mix] Read 70%/Write 30%`.
fn section(rest: &str, n: usize) -> Result<MarkDirection, ResultsError> {
    let (name, tail) = rest.split_once(']').ok_or_else(|| error(n, "a section without its `]`"))?;
    match name {
        "Read" => Ok(MarkDirection::Read),
        "Write" => Ok(MarkDirection::Write),
        "Mix" => {
            let read = tail
                .trim()
                .strip_prefix("Read ")
                .and_then(|r| r.split_once('%'))
                .and_then(|(p, _)| p.trim().parse::<u8>().ok())
                .filter(|p| *p <= 100)
                .ok_or_else(|| error(n, "a [Mix] section without `Read N%/Write M%`"))?;
            Ok(MarkDirection::Mix { read })
        }
        other => Err(error(n, format!("a section [{other}]: the tools write [Read], [Write] and [Mix]"))),
    }
}

/// `Profile: Default`, `   Test: ...`: a known name before `:`.
fn setting(line: &str) -> Option<(&str, &str)> {
    const NAMES: [&str; 8] = ["Profile", "Test", "Mode", "Time", "Date", "OS", "Target", "Comment"];
    let (name, value) = line.split_once(':')?;
    NAMES.contains(&name.trim()).then(|| (name.trim(), value.trim()))
}

/// One result line.
fn row(line: &str, direction: MarkDirection, tool: MarkTool, n: usize) -> Result<MarkRow, ResultsError> {
    let bad = |what: &str| error(n, format!("{what}, in `{line}`"));
    let (left, right) = line.split_once("(Q=").ok_or_else(|| bad("no `(Q=`"))?;
    let mut words = left.split_whitespace();
    let sequential = match words.next() {
        Some("SEQ" | "Sequential") => true,
        Some("RND" | "Random") => false,
        _ => return Err(bad("neither SEQ nor RND")),
    };
    let size: String = words.collect();
    let (number, unit) = size.split_at(size.find(|c: char| !c.is_ascii_digit()).unwrap_or(size.len()));
    let number: u64 = number.parse().map_err(|_| bad("no block size"))?;
    let block = match unit {
        "KiB" => number.checked_mul(1 << 10),
        "MiB" => number.checked_mul(1 << 20),
        _ => return Err(bad("a block size neither in KiB nor MiB")),
    }
    .ok_or_else(|| bad("a block size too large to be one"))?;
    let cleaned: String = right.chars().map(|c| if "(),[]<>:=".contains(c) { ' ' } else { c }).collect();
    let t: Vec<&str> = cleaned.split_whitespace().collect();
    let [q, "T", th, mb, "MB/s", iops, "IOPS", lat, "us"] = t.as_slice() else {
        return Err(bad("not `Q, T): MB/s [IOPS] <us>`"));
    };
    let num = |s: &str, what: &str| {
        s.parse::<f64>().ok().filter(|v| v.is_finite() && *v >= 0.0).ok_or_else(|| bad(what))
    };
    let whole = |s: &str, what: &str| s.parse::<u32>().ok().filter(|v| *v > 0).ok_or_else(|| bad(what));
    Ok(MarkRow {
        direction,
        sequential,
        block,
        queues: whole(q, "a queue depth that is not a whole number above 0")?,
        threads: whole(th, "a thread count that is not a whole number above 0")?,
        mb_s: num(mb, "MB/s that is not a number")?,
        iops: num(iops, "IOPS that is not a number")?,
        latency_us: num(lat, "a latency that is not a number")?,
        iops_derived: tool == MarkTool::CrystalDiskMark,
        line: n,
    })
}

/// `Test: 1 GiB (x5) ...` and the measure and interval times, from `Test`
/// (KDiskMark) or `Time` (CrystalDiskMark).
fn test_settings(m: &mut DiskMark) {
    let get = |name: &str| m.settings.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
    if let Some(test) = get("Test") {
        let mut w = test.split_whitespace();
        let size = w.next().and_then(|s| s.parse::<u64>().ok());
        let unit = match w.next() {
            Some("GiB") => Some(1u64 << 30),
            Some("MiB") => Some(1 << 20),
            _ => None,
        };
        m.test_size = size.zip(unit).and_then(|(s, u)| s.checked_mul(u));
        m.test_count = w
            .next()
            .and_then(|c| c.strip_prefix("(x"))
            .and_then(|c| c.strip_suffix(')'))
            .and_then(|c| c.parse().ok());
    }
    // `Measure 5 sec / Interval 5 sec` or `[Measure: 5 sec / Interval: 5 sec]`.
    let times = get("Time").or_else(|| get("Test")).unwrap_or_default().replace([':', '['], " ");
    let seconds = |word: &str| -> Option<u64> {
        let mut w = times.split_whitespace().skip_while(|t| *t != word).skip(1);
        let n: u64 = w.next()?.parse().ok()?;
        match w.next()?.trim_end_matches(']') {
            "sec" => Some(n),
            "min" => n.checked_mul(60),
            _ => None,
        }
    };
    m.measure_s = seconds("Measure");
    m.interval_s = seconds("Interval");
}

/// The body of the `disk_mark_results` fuzz target: any bytes, as text
/// with invalid UTF-8 replaced. It panics, so that the fuzzer reports the
/// input, when the reader does, or when a result it reads has no row or
/// a row at a line the file does not have, or a refusal has no words.
pub fn fuzz(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    match read_disk_mark(&text) {
        Ok(m) => {
            assert!(!m.rows.is_empty());
            let lines = text.lines().count();
            assert!(m.rows.iter().all(|r| r.line >= 1 && r.line <= lines && r.queues > 0 && r.threads > 0));
        }
        Err(e) => assert!(!e.detail.is_empty()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CDM: &str = include_str!("../../tests/disk-mark/crystaldiskmark-8-default.txt");
    const CDM_MIX: &str = include_str!("../../tests/disk-mark/crystaldiskmark-9-peak-mix.txt");
    const KDM: &str = include_str!("../../tests/disk-mark/kdiskmark-3-default.txt");

    #[test]
    fn numbers_too_large_to_hold_are_refused_or_left_unread() {
        let text = CDM.replacen("Test: 1 GiB", "Test: 99999999999 GiB", 1);
        assert_ne!(text, CDM, "the fixture's test line is where the test expects it");
        assert_eq!(read_disk_mark(&text).map(|m| m.test_size).ok().flatten(), None);
        let text = CDM.replacen("SEQ    1MiB", "SEQ    99999999999999MiB", 1);
        assert_ne!(text, CDM);
        assert!(read_disk_mark(&text).is_err());
    }

    #[test]
    fn crystaldiskmark_default_reads_its_eight_lines_and_settings() {
        let m = read_disk_mark(CDM).unwrap();
        assert_eq!(m.tool, MarkTool::CrystalDiskMark);
        assert_eq!(m.version, "8.0.4 x64");
        assert_eq!(m.rows.len(), 8);
        let first = &m.rows[0];
        assert_eq!(
            (first.direction, first.sequential, first.block, first.queues, first.threads),
            (MarkDirection::Read, true, 1 << 20, 8, 1)
        );
        assert_eq!((first.mb_s, first.iops, first.latency_us), (3512.345, 3349.6, 2386.08));
        assert!(first.iops_derived, "CrystalDiskMark works IOPS out of MB/s");
        // Its IOPS are MB/s over the block size, as GetResultString makes them.
        for r in &m.rows {
            let worked = r.mb_s * 1e6 / r.block as f64;
            assert!(
                (r.iops - worked).abs() <= 0.05 + worked * 1e-6,
                "line {}: {} vs {worked}",
                r.line,
                r.iops
            );
        }
        let rnd = &m.rows[3];
        assert_eq!((rnd.sequential, rnd.block, rnd.queues, rnd.threads), (false, 4096, 1, 1));
        assert!(m.rows[4..].iter().all(|r| r.direction == MarkDirection::Write));
        assert_eq!((m.test_size, m.test_count), (Some(1 << 30), Some(5)));
        assert_eq!((m.measure_s, m.interval_s), (Some(5), Some(5)));
        assert!(m.settings.contains(&("Mode".into(), "[Admin]".into())));
        assert!(m.settings.iter().any(|(k, v)| k == "OS" && v.starts_with("Windows 10")));
    }

    #[test]
    fn a_mix_section_says_its_read_share() {
        let m = read_disk_mark(CDM_MIX).unwrap();
        assert_eq!(m.version, "9.0.1 x64");
        let mix: Vec<&MarkRow> =
            m.rows.iter().filter(|r| matches!(r.direction, MarkDirection::Mix { .. })).collect();
        assert_eq!(mix.len(), 2);
        assert_eq!(mix[0].direction, MarkDirection::Mix { read: 70 });
        assert_eq!(m.settings[0], ("Profile".into(), "Peak".into()));
    }

    #[test]
    fn kdiskmark_names_its_fio_and_counts_its_iops() {
        let m = read_disk_mark(KDM).unwrap();
        assert_eq!(m.tool, MarkTool::KDiskMark);
        assert_eq!((m.version.as_str(), m.fio_version.as_deref()), ("3.1.4", Some("fio-3.33")));
        assert_eq!(m.rows.len(), 8);
        assert!(m.rows.iter().all(|r| !r.iops_derived));
        assert_eq!((m.rows[0].block, m.rows[0].queues), (1 << 20, 8));
        assert_eq!((m.rows[7].block, m.rows[7].direction), (4096, MarkDirection::Write));
        assert_eq!((m.measure_s, m.interval_s), (Some(5), Some(5)));
        assert!(m.settings.iter().any(|(k, v)| k == "Target" && v.contains("/home")));
    }

    #[test]
    fn other_files_and_broken_lines_are_refused_with_their_line() {
        assert!(
            read_disk_mark("[global]\nrw=read\n")
                .unwrap_err()
                .detail
                .contains("no CrystalDiskMark or KDiskMark")
        );
        let cut: String = CDM.lines().take(8).map(|l| format!("{l}\n")).collect();
        assert!(read_disk_mark(&cut).unwrap_err().detail.contains("no result lines"));
        let broken = CDM.replacen("(Q=  8, T= 1):  3512.345", "(Q=  8, T= 1):  fast", 1);
        let e = read_disk_mark(&broken).unwrap_err();
        assert_eq!(e.line, 9, "{e}");
        assert!(e.to_string().starts_with("line 9: MB/s that is not a number"), "{e}");
        let odd = CDM.replacen("[Write]", "[Trim]", 1);
        assert!(read_disk_mark(&odd).unwrap_err().detail.contains("[Trim]"));
    }

    #[test]
    fn every_cut_of_each_file_is_read_or_refused() {
        for file in [CDM, CDM_MIX, KDM] {
            for cut in (0..=file.len()).step_by(13) {
                fuzz(&file.as_bytes()[..cut]);
            }
        }
    }
}
