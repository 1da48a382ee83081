//! Iometer's results CSV read into one shape: a part of importing others'
//! results (issue 32), kept apart from any results directory so that the
//! format is tested on its own.
//!
//! The file, as Iometer 1.1.0 appends to it (iometer-org/iometer@7243b4d):
//! at a test's start `'Test Type,Test Description` and its values,
//! `'Version`, `'Time Stamp` (`CPageSetup::SaveResults`); before each
//! specification's runs the active specifications between `'Access
//! specifications` and `'End access specifications`
//! (`AccessSpecList::SaveResults`); after each run `'Results`, the header
//! line, a row for all (`ALL`), each manager (`MANAGER`), its CPUs
//! (`PROCESSOR`), workers (`WORKER`) and targets (`DISK`, `NETWORK`), then
//! `'Time Stamp` (`ManagerList`, `Manager` and `Worker::SaveResults`).
//! Several tests may follow each other in one file (it is opened to
//! append).
//!
//! Iometer's own quirks, kept:
//! - A `MANAGER` row is read only up to `Bytes Written`. An earlier note
//!   here said its later fields do not stand under their header; the
//!   `Manager::SaveResults` in iometer-org/iometer@7243b4d
//!   (src/Manager.cpp:602-680) writes every column in line, and which
//!   Iometer wrote fewer is not settled: what the importer needs of a
//!   manager (its name) comes before.
//! - `Queue Depth` is -1 (`AMBIGUOUS_VALUE`) in an `ALL` or `MANAGER` row
//!   whose workers ran at different depths: read as not stated.
//! - A `DISK` row's raw latency sums and latency bins are its worker's
//!   (`Worker::SaveResults` writes `results`, not the target's): said by
//!   `bins_of_worker`.
//! - Response times are in milliseconds; the bins count I/Os by response
//!   time in the ranges the header names (1.1.0 has 21; older versions
//!   none).

use std::collections::HashMap;

pub use crate::results_error::ResultsError;

/// A results file: each test in it, in order.
#[derive(Debug, Clone, PartialEq)]
pub struct IometerResults {
    pub tests: Vec<ResultsTest>,
}

/// One test: what Iometer wrote when it started, and its runs.
#[derive(Debug, Clone, PartialEq)]
pub struct ResultsTest {
    /// Iometer's test type code (`PageSetup.h`: 0 NORMAL ... 7
    /// CYCLE_OUTSTANDING_IOS_AND_TARGETS).
    pub test_type: Option<u32>,
    pub description: String,
    pub version: Option<String>,
    pub started: Option<String>,
    pub runs: Vec<ResultsRun>,
    pub line: usize,
}

/// One run: the specifications active in it and its rows.
#[derive(Debug, Clone, PartialEq)]
pub struct ResultsRun {
    /// The specifications of the last `'Access specifications` block,
    /// by name.
    pub specs: Vec<String>,
    pub rows: Vec<ResultsRow>,
    /// The `'Time Stamp` after the rows: when the run ended.
    pub ended: Option<String>,
    /// The latency bins' names, as the header gives them.
    pub bin_names: Vec<String>,
    pub line: usize,
}

/// What a row is of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RowKind {
    All,
    Manager,
    Processor,
    Worker,
    Disk,
    Network,
    Other(String),
}

/// One row's numbers; `None` where the row has no value there.
#[derive(Debug, Clone, PartialEq)]
pub struct ResultsRow {
    pub kind: RowKind,
    pub name: String,
    pub spec: String,
    pub iops: Option<f64>,
    pub read_iops: Option<f64>,
    pub write_iops: Option<f64>,
    /// Millions of bytes a second (`MBps (Decimal)`; `MBps` before 1.1.0).
    pub mb_s: Option<f64>,
    /// Response times, in milliseconds.
    pub mean_ms: Option<f64>,
    pub read_mean_ms: Option<f64>,
    pub write_mean_ms: Option<f64>,
    pub max_ms: Option<f64>,
    pub errors: Option<u64>,
    pub bytes_read: Option<u64>,
    pub bytes_written: Option<u64>,
    pub reads: Option<u64>,
    pub writes: Option<u64>,
    pub queue_depth: Option<u64>,
    pub starting_sector: Option<u64>,
    pub maximum_size: Option<u64>,
    /// I/Os in each of the header's latency bins.
    pub bins: Vec<u64>,
    /// The bins are the row's worker's (a `DISK` row).
    pub bins_of_worker: bool,
    pub line: usize,
}

fn error(line: usize, detail: impl Into<String>) -> ResultsError {
    ResultsError::new(line, detail)
}

/// The columns a `MANAGER` row fills under their header: up to `Bytes
/// Written`.
const MANAGER_ALIGNED: &str = "Bytes Written";

/// Reads an Iometer results file.
pub fn read_results(text: &str) -> Result<IometerResults, ResultsError> {
    let lines: Vec<&str> = text.lines().map(|l| l.trim_end_matches('\r')).collect();
    let mut tests: Vec<ResultsTest> = Vec::new();
    let mut specs: Vec<String> = Vec::new();
    let mut i = 0;
    // The value line after a key line.
    let value = |i: usize| lines.get(i + 1).map(|l| l.trim().to_string());
    while i < lines.len() {
        let n = i + 1;
        let line = lines[i].trim();
        match line {
            "'Test Type,Test Description" => {
                let v = value(i).unwrap_or_default();
                let (code, description) = v.split_once(',').unwrap_or((v.as_str(), ""));
                tests.push(ResultsTest {
                    test_type: code.trim().parse().ok(),
                    description: description.to_string(),
                    version: None,
                    started: None,
                    runs: Vec::new(),
                    line: n,
                });
                i += 2;
            }
            "'Version" => {
                if let Some(t) = tests.last_mut() {
                    t.version = value(i);
                }
                i += 2;
            }
            "'Time Stamp" => {
                if let Some(t) = tests.last_mut() {
                    match t.runs.last_mut() {
                        Some(r) if r.ended.is_none() => r.ended = value(i),
                        _ if t.started.is_none() => t.started = value(i),
                        _ => {}
                    }
                }
                i += 2;
            }
            "'Access specifications" => {
                specs.clear();
                i += 1;
                while i < lines.len() && lines[i].trim() != "'End access specifications" {
                    if lines[i].trim() == "'Access specification name,default assignment" {
                        if let Some(v) = value(i) {
                            // The name is all before the last comma.
                            specs.push(v.rsplit_once(',').map_or(v.clone(), |(name, _)| name.to_string()));
                        }
                        i += 1;
                    }
                    i += 1;
                }
                i += 1;
            }
            "'Results" => {
                let header = lines.get(i + 1).ok_or_else(|| error(n, "`'Results` at the end of the file"))?;
                if !header.starts_with("'Target Type,") {
                    return Err(error(n + 1, "`'Results` without its header line (`'Target Type,...`)"));
                }
                let columns: Vec<&str> = header.trim_start_matches('\'').split(',').map(str::trim).collect();
                let mut run = ResultsRun {
                    specs: specs.clone(),
                    rows: Vec::new(),
                    ended: None,
                    bin_names: bin_names(&columns),
                    line: n,
                };
                i += 2;
                while i < lines.len() && !lines[i].starts_with('\'') {
                    if !lines[i].trim().is_empty() {
                        run.rows.push(row(lines[i], &columns, &run.bin_names, i + 1)?);
                    }
                    i += 1;
                }
                if run.rows.is_empty() {
                    return Err(error(n, "a `'Results` section without a row"));
                }
                match tests.last_mut() {
                    Some(t) => t.runs.push(run),
                    // A file that starts at a run (the head cut off).
                    None => tests.push(ResultsTest {
                        test_type: None,
                        description: String::new(),
                        version: None,
                        started: None,
                        runs: vec![run],
                        line: n,
                    }),
                }
            }
            _ => i += 1,
        }
    }
    if tests.iter().all(|t| t.runs.is_empty()) {
        return Err(error(
            0,
            "no `'Results` section: not an Iometer results file, or one of a test that never ran",
        ));
    }
    Ok(IometerResults { tests })
}

/// The latency bins' names: the columns after `Segments
/// Retransmitted/Second`.
fn bin_names(columns: &[&str]) -> Vec<String> {
    columns
        .iter()
        .position(|c| *c == "Segments Retransmitted/Second")
        .map(|p| columns[p + 1..].iter().map(|c| c.to_string()).collect())
        .unwrap_or_default()
}

/// One row, read by the header's names.
fn row(line: &str, columns: &[&str], bin_names: &[String], n: usize) -> Result<ResultsRow, ResultsError> {
    let fields: Vec<&str> = line.split(',').map(str::trim).collect();
    let kind = match fields[0] {
        "ALL" => RowKind::All,
        "MANAGER" => RowKind::Manager,
        "PROCESSOR" => RowKind::Processor,
        "WORKER" => RowKind::Worker,
        "DISK" => RowKind::Disk,
        "NETWORK" => RowKind::Network,
        other => RowKind::Other(other.to_string()),
    };
    let at: HashMap<&str, usize> = columns.iter().enumerate().map(|(k, c)| (*c, k)).collect();
    // A manager's row stands under its header only up to Bytes Written.
    let last = if kind == RowKind::Manager { at.get(MANAGER_ALIGNED).copied() } else { None };
    let field = |name: &str| -> Option<&str> {
        let k = *at.get(name)?;
        if last.is_some_and(|l| k > l) {
            return None;
        }
        fields.get(k).copied().filter(|v| !v.is_empty())
    };
    let float = |name: &str| -> Result<Option<f64>, ResultsError> {
        field(name)
            .map(|v| v.parse::<f64>().map_err(|_| error(n, format!("`{v}` under `{name}` is not a number"))))
            .transpose()
    };
    let whole = |name: &str| -> Result<Option<u64>, ResultsError> {
        field(name)
            .map(|v| {
                v.parse::<u64>().map_err(|_| error(n, format!("`{v}` under `{name}` is not a whole number")))
            })
            .transpose()
    };
    let mut bins = Vec::new();
    if last.is_none() {
        for b in bin_names {
            if let Some(v) = whole(b)? {
                bins.push(v);
            }
        }
        if !bins.is_empty() && bins.len() != bin_names.len() {
            return Err(error(
                n,
                format!("{} latency bins where the header has {}", bins.len(), bin_names.len()),
            ));
        }
    }
    Ok(ResultsRow {
        name: fields.get(1).map_or(String::new(), |s| s.to_string()),
        spec: field("Access Specification Name").unwrap_or_default().to_string(),
        iops: float("IOps")?,
        read_iops: float("Read IOps")?,
        write_iops: float("Write IOps")?,
        mb_s: match float("MBps (Decimal)")? {
            Some(v) => Some(v),
            None => float("MBps")?,
        },
        mean_ms: float("Average Response Time")?,
        read_mean_ms: float("Average Read Response Time")?,
        write_mean_ms: float("Average Write Response Time")?,
        max_ms: float("Maximum Response Time")?,
        errors: whole("Errors")?,
        bytes_read: whole("Bytes Read")?,
        bytes_written: whole("Bytes Written")?,
        reads: whole("Read I/Os")?,
        writes: whole("Write I/Os")?,
        // -1 (`AMBIGUOUS_VALUE`, src/Worker.h) where the workers below
        // ran at different depths (`ManagerList::GetQueueDepth`): no one
        // depth is stated.
        queue_depth: if field("Queue Depth") == Some("-1") { None } else { whole("Queue Depth")? },
        starting_sector: whole("Starting Sector")?,
        maximum_size: whole("Maximum Size")?,
        bins_of_worker: kind == RowKind::Disk && !bins.is_empty(),
        bins,
        kind,
        line: n,
    })
}

/// The body of the `iometer_results` fuzz target: any bytes, as text with
/// invalid UTF-8 replaced. It panics, so that the fuzzer reports the
/// input, when the reader does, or when what it reads has a run without
/// rows or a row at a line the file does not have, or a refusal has no
/// words.
pub fn fuzz(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let lines = text.lines().count();
    match read_results(&text) {
        Ok(r) => {
            for t in &r.tests {
                for run in &t.runs {
                    assert!(!run.rows.is_empty());
                    assert!(run.rows.iter().all(|row| row.line >= 1 && row.line <= lines));
                }
            }
        }
        Err(e) => assert!(!e.detail.is_empty() && e.line <= lines),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Written from Iometer 1.1.0's SaveResults functions: a
    /// CYCLE_OUTSTANDING_IOS test at depths 1 and 2, each run with its ALL,
    /// MANAGER, PROCESSOR, WORKER and DISK rows (CR LF, as Iometer on
    /// Windows writes them).
    const FILE: &str = include_str!("../../../tests/iometer/results-1.1.0.csv");

    #[test]
    fn a_queue_depth_of_minus_one_is_not_stated() {
        let header = FILE.lines().find(|l| l.starts_with("'Target Type")).unwrap();
        let at = header.split(',').position(|h| h == "Queue Depth").unwrap();
        let line = FILE.lines().find(|l| l.starts_with("ALL,")).unwrap();
        let mut fields: Vec<&str> = line.split(',').collect();
        assert!(read_results(FILE).unwrap().tests[0].runs[0].rows[0].queue_depth.is_some());
        fields[at] = "-1";
        let text = FILE.replacen(line, &fields.join(","), 1);
        let r = read_results(&text).unwrap();
        assert_eq!(r.tests[0].runs[0].rows[0].queue_depth, None);
    }

    #[test]
    fn a_test_of_two_runs_with_every_row_kind() {
        let r = read_results(FILE).unwrap();
        assert_eq!(r.tests.len(), 1);
        let t = &r.tests[0];
        assert_eq!((t.test_type, t.version.as_deref()), (Some(6), Some("1.1.0")));
        assert!(t.description.starts_with("methodic test file: QD 1 and 2"), "{}", t.description);
        assert_eq!(t.started.as_deref(), Some("2026-12-06 21:00:00:123"));
        assert_eq!(t.runs.len(), 2);
        let run = &t.runs[1];
        assert_eq!(run.specs, ["4 KiB random 70% read"]);
        assert_eq!(run.ended.as_deref(), Some("2026-12-06 21:01:02:789"));
        assert_eq!(run.bin_names.len(), 21);
        assert_eq!(run.bin_names[0], "0 to 50 uS");
        let kinds: Vec<&RowKind> = run.rows.iter().map(|r| &r.kind).collect();
        assert_eq!(
            kinds,
            [&RowKind::All, &RowKind::Manager, &RowKind::Processor, &RowKind::Worker, &RowKind::Disk]
        );
        let all = &run.rows[0];
        assert_eq!((all.iops, all.queue_depth), (Some(20000.0), Some(2)));
        assert_eq!((all.reads, all.writes), (Some(420_000), Some(180_000)));
        assert_eq!(all.bytes_read, Some(420_000 * 4096));
        assert_eq!(all.bins.iter().sum::<u64>(), 600_000, "the bins count every I/O");
        assert_eq!(all.mean_ms, Some(0.2));
        // The manager's row is read only where it stands under its header.
        let m = &run.rows[1];
        assert_eq!((m.iops, m.bytes_written), (Some(20000.0), Some(180_000 * 4096)));
        assert_eq!((m.reads, m.queue_depth), (None, None));
        assert!(m.bins.is_empty());
        let p = &run.rows[2];
        assert_eq!((p.name.as_str(), p.iops), ("CPU 0", None));
        let disk = &run.rows[4];
        assert_eq!(disk.name, "1: \"ATA EXAMPLE-SSD 1.0\"");
        assert!(disk.bins_of_worker && !run.rows[3].bins_of_worker);
        assert_eq!(disk.spec, "");
    }

    #[test]
    fn an_older_header_without_bins_or_decimal_columns_reads_by_name() {
        let text = "'Results\n'Target Type,Target Name,Access Specification Name,IOps,MBps,Average Response Time,Queue Depth\n\
                    ALL,All,spec,100.5,0.4,9.9,4\n";
        let r = read_results(text).unwrap();
        let row = &r.tests[0].runs[0].rows[0];
        assert_eq!(
            (row.iops, row.mb_s, row.mean_ms, row.queue_depth),
            (Some(100.5), Some(0.4), Some(9.9), Some(4))
        );
        assert!(row.bins.is_empty());
    }

    #[test]
    fn broken_and_foreign_files_are_refused_with_their_line() {
        assert!(
            read_results("Version 1.1.0\n'TEST SETUP\n")
                .unwrap_err()
                .detail
                .contains("no `'Results` section")
        );
        let e = read_results(&FILE.replacen("10000.000000", "many", 1)).unwrap_err();
        assert_eq!(e.line, 15, "{e}");
        assert!(e.to_string().contains("`many` under `IOps` is not a number"), "{e}");
        let e = read_results("'Results\nALL,All\n").unwrap_err();
        assert!(e.detail.contains("without its header line"), "{e}");
        let e = read_results("'Results\n'Target Type,Target Name\n'Time Stamp\nx\n").unwrap_err();
        assert!(e.detail.contains("without a row"), "{e}");
    }

    #[test]
    fn every_cut_of_the_file_is_read_or_refused() {
        for cut in (0..=FILE.len()).step_by(31) {
            fuzz(&FILE.as_bytes()[..cut]);
        }
    }
}
