//! The text of an .icf file exactly as Iometer 1.1.0 writes it
//! (iometer-org/iometer @ 7243b4d): the version line `Version 1.1.0 `
//! first and last (`CGalileoView::SaveConfigFile`,
//! `src/GalileoView.cpp:1462-1534`; `IDS_VERSION_OUTPUT "Version %s "`,
//! `src/Galileo.rc:888`), CRLF line ends (a text-mode stream on Windows),
//! the sections in the writer's order with their 80-character headers,
//! values after one TAB, columns padded to 11 (`CPageSetup::SaveConfig`,
//! `src/PageSetup.cpp:308-463`), the 1.1.0 RESULTS DISPLAY defaults
//! (`src/PageDisplay.cpp:1075-1128`), the access specifications
//! (`AccessSpecList::SaveConfig`, `src/AccessSpecList.cpp:892-948`) and one
//! manager's disk workers (`Worker::SaveConfig`, `src/Worker.cpp:2059-2176`).
//! In: an [`IcfRun`]; out: the file's text.

use super::model::{Cycling, TestType};

/// What one .icf file says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct IcfRun {
    pub(super) description: String,
    /// Seconds.
    pub(super) run: u64,
    /// Seconds.
    pub(super) ramp: u64,
    pub(super) test_type: TestType,
    /// Queue depth cycling (start, end, step, kind), used by
    /// CYCLE_OUTSTANDING_IOS; Iometer's default otherwise.
    pub(super) queue: Cycling,
    pub(super) specs: Vec<IcfSpec>,
    pub(super) workers: Vec<IcfWorker>,
}

/// An access specification: its name and its lines (size, % of size, %
/// reads, % random, delay, burst, align, reply).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct IcfSpec {
    pub(super) name: String,
    pub(super) lines: Vec<[u64; 8]>,
}

/// A disk worker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct IcfWorker {
    pub(super) qd: u64,
    /// Sectors; 0 for the whole disk.
    pub(super) max_size: u64,
    /// Sectors.
    pub(super) start: u64,
    /// 0 repeating bytes, 2 full random.
    pub(super) pattern: u64,
    /// Specification names in run order (`Idle` for none).
    pub(super) specs: Vec<String>,
    /// Its disk target, as Iometer names it; `None` leaves the target
    /// assignments out.
    pub(super) target: Option<String>,
}

/// A section header: `'NAME ` padded with `=` to 80 characters.
fn header(name: &str) -> String {
    let start = format!("'{name} ");
    format!("{start}{}", "=".repeat(80 - start.len()))
}

/// Values in columns of 11, the last one unpadded.
fn columns(values: &[String]) -> String {
    let mut out = String::new();
    for (i, v) in values.iter().enumerate() {
        if i + 1 < values.len() {
            out.push_str(&format!("{v:<11}"));
        } else {
            out.push_str(v);
        }
    }
    out
}

/// The word for a cycling step.
fn kind(exponential: bool) -> &'static str {
    if exponential { "EXPONENTIAL" } else { "LINEAR" }
}

/// The file's text, with CRLF line ends.
pub(super) fn icf_text(r: &IcfRun) -> String {
    let mut l: Vec<String> = vec!["Version 1.1.0 ".to_string()];
    let tab = |v: &str| format!("\t{v}");
    l.push(header("TEST SETUP"));
    l.extend(["'Test Description".to_string(), tab(&r.description)]);
    l.extend(["'Run Time".to_string(), "'\thours      minutes    seconds".to_string()]);
    let (h, m, s) = (r.run / 3600, r.run / 60 % 60, r.run % 60);
    l.push(tab(&columns(&[h.to_string(), m.to_string(), s.to_string()])));
    l.extend(["'Ramp Up Time (s)".to_string(), tab(&r.ramp.to_string())]);
    l.extend(["'Default Disk Workers to Spawn".to_string(), tab("NUMBER_OF_CPUS")]);
    l.extend(["'Default Network Workers to Spawn".to_string(), tab("0")]);
    l.extend(["'Record Results".to_string(), tab("ALL")]);
    for key in ["'Worker Cycling", "'Disk Cycling"] {
        l.extend([key.to_string(), "'\tstart      step       step type".to_string()]);
        l.push(tab(&columns(&["1".into(), "1".into(), "LINEAR".into()])));
    }
    l.extend([
        "'Queue Depth Cycling".to_string(),
        "'\tstart      end        step       step type".to_string(),
    ]);
    let q = r.queue;
    l.push(tab(&columns(&[
        q.start.to_string(),
        q.end.unwrap_or(32).to_string(),
        q.step.to_string(),
        kind(q.exponential).to_string(),
    ])));
    l.extend(["'Test Type".to_string(), tab(r.test_type.word())]);
    l.push("'END test setup".to_string());
    l.push(header("RESULTS DISPLAY"));
    l.extend([
        "'Record Last Update Results,Update Frequency,Update Type".to_string(),
        tab("DISABLED,0,WHOLE_TEST"),
    ]);
    for (i, bar) in [
        "Total I/Os per Second",
        "Total MBs per Second (Decimal)",
        "Average I/O Response Time (ms)",
        "Maximum I/O Response Time (ms)",
        "% CPU Utilization (total)",
        "Total Error Count",
    ]
    .iter()
    .enumerate()
    {
        l.extend([format!("'Bar chart {} statistic", i + 1), tab(bar)]);
    }
    l.push("'END results display".to_string());
    l.push(header("ACCESS SPECIFICATIONS"));
    for s in &r.specs {
        l.extend([
            "'Access specification name,default assignment".to_string(),
            tab(&format!("{},NONE", s.name)),
        ]);
        l.push("'size,% of size,% reads,% random,delay,burst,align,reply".to_string());
        for f in &s.lines {
            l.push(tab(&f.iter().map(u64::to_string).collect::<Vec<_>>().join(",")));
        }
    }
    l.push("'END access specifications".to_string());
    l.push(header("MANAGER LIST"));
    l.extend(["'Manager ID, manager name".to_string(), tab("1,methodic")]);
    l.extend(["'Manager network address".to_string(), tab("")]);
    for (i, w) in r.workers.iter().enumerate() {
        worker_lines(&mut l, i, w);
    }
    l.extend(["'End manager".to_string(), "'END manager list".to_string(), "Version 1.1.0 ".to_string()]);
    let mut out = l.join("\r\n");
    out.push_str("\r\n");
    out
}

/// One disk worker's block.
fn worker_lines(l: &mut Vec<String>, i: usize, w: &IcfWorker) {
    let tab = |v: &str| format!("\t{v}");
    l.extend(["'Worker".to_string(), tab(&format!("Worker {}", i + 1))]);
    l.extend(["'Worker type".to_string(), tab("DISK")]);
    l.push("'Default target settings for worker".to_string());
    l.push(
        "'Number of outstanding IOs,test connection rate,transactions per connection,use fixed seed,fixed seed value"
            .to_string(),
    );
    l.push(tab(&format!("{},DISABLED,1,DISABLED,0", w.qd)));
    l.push("'Disk maximum size,starting sector,Data pattern".to_string());
    l.push(tab(&format!("{},{},{}", w.max_size, w.start, w.pattern)));
    l.push("'End default target settings for worker".to_string());
    l.push("'Assigned access specs".to_string());
    for s in &w.specs {
        l.push(tab(s));
    }
    l.push("'End assigned access specs".to_string());
    if let Some(t) = &w.target {
        l.extend(["'Target assignments".to_string(), "'Target".to_string(), tab(t)]);
        l.extend(["'Target type".to_string(), tab("DISK"), "'End target".to_string()]);
        l.push("'End target assignments".to_string());
    }
    l.push("'End worker".to_string());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run() -> IcfRun {
        IcfRun {
            description: "d".into(),
            run: 60,
            ramp: 30,
            test_type: TestType::CycleOutstandingIos,
            queue: Cycling { start: 1, end: Some(32), step: 2, exponential: true },
            specs: vec![IcfSpec {
                name: "4 KiB random 70% read".into(),
                lines: vec![[4096, 100, 70, 100, 0, 1, 4096, 0]],
            }],
            workers: vec![IcfWorker {
                qd: 1,
                max_size: 0,
                start: 0,
                pattern: 2,
                specs: vec!["4 KiB random 70% read".into()],
                target: Some("1: \"ATA EXAMPLE-SSD 1.0\"".into()),
            }],
        }
    }

    #[test]
    fn the_layout_is_iometers() {
        let t = icf_text(&run());
        assert!(t.starts_with("Version 1.1.0 \r\n'TEST SETUP ====="));
        assert!(t.ends_with("'END manager list\r\nVersion 1.1.0 \r\n"));
        assert!(!t.replace("\r\n", "").contains('\n'), "CRLF only");
        for l in t.split("\r\n").filter(|l| l.starts_with("'") && l.ends_with('=')) {
            assert_eq!(l.len(), 80, "{l}");
        }
        assert!(t.contains("'Run Time\r\n'\thours      minutes    seconds\r\n\t0          1          0\r\n"));
        assert!(t.contains("\t1          32         2          EXPONENTIAL\r\n"));
        assert!(t.contains("\t4096,100,70,100,0,1,4096,0\r\n"));
        assert!(t.split("\r\n").all(|l| l.len() < 200));
    }

    #[test]
    fn iometers_reader_rules_read_it_back() {
        let icf = super::super::reader::read(&icf_text(&run())).unwrap();
        assert_eq!(icf.setup.unwrap().run.unwrap().value, 60);
        assert_eq!(icf.managers.unwrap()[0].workers[0].pattern.as_ref().unwrap().value, 2);
    }
}
