//! CrystalDiskMark's and KDiskMark's text results (`crate::disk_mark`
//! reads them) as a run.
//!
//! The plan is the file's tests, run the way each tool runs them, from
//! the tools' sources:
//! - CrystalDiskMark (hiyohiyo/CrystalDiskMark@bf00fa6, `DiskBench.cpp`):
//!   `Init` writes the test file (the `Test:` size) 1MiB at a time, then
//!   `ExecDiskBenchAll` (and its Peak, Real and Demo forms) runs the tests
//!   in the file's order with `Interval` (the `Time:` line's interval)
//!   between each two. `DiskSpd()` runs each test as DiskSpd `-b -o -t
//!   -W0 -S [-r] -w`: one run not counted (5s before 9.0.0, the measure
//!   time since), then `Test:`'s count of runs of the measure time, one
//!   after the other; it keeps the highest MB/s of the runs and, apart,
//!   the lowest mean latency. `GetResultString` (`DiskMarkDlg.cpp`) works
//!   the IOPS out of that MB/s.
//! - KDiskMark (JonMagon/KDiskMark@e78d3c7, `src/benchmark.cpp`,
//!   `src/helper.cpp`): fio lays the test file out (`--create_only=1`),
//!   then `Benchmark::runBenchmark` runs the tests in order, the interval
//!   between each two. `Benchmark::startTest` runs each test `Test:`'s
//!   count of times as one fio job (`--ioengine=libaio --size --runtime
//!   --iodepth --numjobs`, no `time_based`: a job ends at its size or its
//!   runtime, whichever comes first), and reports the mean of the runs
//!   (profile Default) or each figure's best (the others). Its MB/s is
//!   fio's `bw` (KiB/s) over 1000, whatever its header says; its latency
//!   fio's mean completion latency; its mix figure the read-share-weighted
//!   mean of fio's read and write figures.
//!
//! The file gives one figure a test, so each test is one measurement: the
//! language's `repeat N aggregate max` makes N steps, each of which would
//! need numbers of its own. A step's `computed` says how the tool made
//! its figure. What the file states is kept as stated (MB/s, IOPS, the
//! mean latency); I/O counts and bytes, which it does not state, are 0; a
//! mix's one figure is split into reads and writes by its read share, the
//! figure itself kept as the step's part. The note says every choice.

use methodic_results::imported::{Direction, ImportedRun, ImportedStep, Part, StatedLatency};

use super::{ResultsFile, RunError, compiled, note, unstated_host};
use crate::disk_mark::{DiskMark, MarkDirection, MarkRow, MarkTool, read_disk_mark};
use crate::finish::comment;
use crate::text::{one_line, quote};

/// Comment lines are wrapped at this width.
const WIDTH: usize = 100;

/// The most I/Os in flight a step may have (the compiler's limit, M0501).
const MAX_QD: u64 = 65_536;

/// Reads a CrystalDiskMark or KDiskMark text result into a run.
pub fn disk_mark_run(input: &ResultsFile<'_>) -> Result<ImportedRun, RunError> {
    too_large(input)?;
    let mark = read_disk_mark(input.text).map_err(|e| {
        RunError::new(format!("{}: {e}", input.file)).hint(
            "give the text CrystalDiskMark saves (File > Save Text, or Edit > Copy) or KDiskMark saves (File > \
             Save), whole and as saved",
        )
    })?;
    let s = Settings::of(&mark, input)?;
    let (tests, skipped): (Vec<&MarkRow>, Vec<&MarkRow>) =
        mark.rows.iter().partition(|r| r.mb_s > 0.0 || r.iops > 0.0);
    if tests.is_empty() {
        return Err(RunError::new(format!(
            "{}: every test states 0 MB/s: {} prints zeros for a test it did not run, so this file holds no \
             result",
            input.file,
            s.tool.name()
        ))
        .hint("save the results after a run that finished"));
    }
    for r in &tests {
        check_row(r, &s, input)?;
    }
    let source = methodology(&s, &tests, input);
    let (methodology, plan) = compiled(&source, input.file)?;
    let measured = plan.steps.iter().filter(|p| matches!(p.action.kind(), "measure" | "together")).count();
    if measured != tests.len() {
        return Err(RunError::new(format!(
            "bug in methodic import: the methodology made of {} has {measured} measurements for {} tests",
            input.file,
            tests.len()
        )));
    }
    let mut note = note(s.tool.name(), s.version.clone(), "text results", input);
    note.ran = s.get("Date").filter(|d| !d.is_empty());
    note.targets = s.drive.iter().cloned().collect();
    note.not_stated = vec!["drive state".into(), "host".into()];
    if s.tool == MarkTool::KDiskMark {
        note.not_stated.extend(["cache policy".into(), "data pattern".into()]);
    }
    note.notes = notes(&mark, &s, &tests, &skipped);
    let steps = tests.iter().map(|r| step(r, &s)).collect();
    Ok(ImportedRun { note, methodology, plan, host: unstated_host(None), engine: Some(s.engine()), steps })
}

/// A whole number in a test line or in `Test:` or `Time:` with more than
/// nine digits, which no result of either tool has: refused before the
/// reader multiplies it (a block or test size, minutes) past what a u64
/// holds. The reader's multiplications should be checked ones; until
/// then this keeps any input from panicking.
fn too_large(input: &ResultsFile<'_>) -> Result<(), RunError> {
    const READ_AS_NUMBERS: [&str; 6] = ["SEQ", "RND", "Sequential", "Random", "Test", "Time"];
    for (i, line) in input.text.lines().enumerate() {
        let t = line.trim().trim_start_matches('\u{feff}');
        if !READ_AS_NUMBERS.iter().any(|w| t.starts_with(w)) {
            continue;
        }
        let long = t.split(|c: char| !c.is_ascii_digit()).any(|run| run.trim_start_matches('0').len() > 9);
        if long {
            return Err(RunError::new(format!(
                "{}: line {}: a number of more than nine digits, which no CrystalDiskMark or KDiskMark result \
                 has: `{}`",
                input.file,
                i + 1,
                one_line(t)
            ))
            .hint("give the file as the tool saved it"));
        }
    }
    Ok(())
}

/// How a tool makes a test's figure out of its runs.
#[derive(Clone, Copy, PartialEq)]
enum Combined {
    /// CrystalDiskMark: the best run's MB/s, the lowest latency of any run.
    CrystalBest,
    /// KDiskMark's Default profile: each figure's mean over the runs.
    KMean,
    /// KDiskMark's other profiles: each figure's best over the runs.
    KBest,
    /// A KDiskMark profile the file does not name.
    NotStated,
}

/// What the file's settings lines say, checked, with what the tool does
/// that they imply.
struct Settings<'a> {
    tool: MarkTool,
    /// `CrystalDiskMark 8.0.4 x64`, `KDiskMark 3.1.4`.
    version: Option<String>,
    fio: Option<String>,
    settings: &'a [(String, String)],
    /// The test file, in bytes.
    size: u64,
    count: u32,
    measure_s: u64,
    /// Whether the file states the measure time (CrystalDiskMark 7's do
    /// not: 5s, as its DiskBench.cpp sets it).
    measure_stated: bool,
    interval_s: u64,
    /// CrystalDiskMark's run before the counted ones, in seconds.
    warm_up_s: Option<u64>,
    combined: Combined,
    /// Test data of zeros (CrystalDiskMark's `<0Fill>`).
    zeros: bool,
    /// The drive or folder the file names, as written.
    drive: Option<String>,
    /// Its capacity in bytes, as the tool rounded it, and how it was written.
    capacity: Option<(u64, String)>,
}

impl<'a> Settings<'a> {
    fn of(m: &'a DiskMark, input: &ResultsFile<'_>) -> Result<Settings<'a>, RunError> {
        let cut = |what: &str| {
            RunError::new(format!(
                "{}: the file does not state {what}: a file {} saved has it in its settings after the results, \
                 so this one may be cut short or edited",
                input.file,
                m.tool.name()
            ))
            .hint("give the whole file the tool saved")
        };
        let version = (!m.version.is_empty()).then(|| format!("{} {}", m.tool.name(), m.version));
        let major: Option<u32> = m.version.split('.').next().and_then(|v| v.trim().parse().ok());
        let size = m.test_size.ok_or_else(|| cut("the test file's size (`Test: 1 GiB (x5)`)"))?;
        let count = m.test_count.ok_or_else(|| cut("how many times each test ran (`Test: 1 GiB (x5)`)"))?;
        if size == 0 || count == 0 {
            return Err(RunError::new(format!(
                "{}: `Test: {}` states no test file or no runs",
                input.file,
                one_line(&get(&m.settings, "Test").unwrap_or_default())
            ))
            .hint("give the file as the tool saved it"));
        }
        let crystal_7 = m.tool == MarkTool::CrystalDiskMark && major == Some(7);
        let (measure_s, measure_stated) = match m.measure_s {
            Some(s) => (s, true),
            // CrystalDiskMark 7 measured 5s and wrote no measure time.
            None if crystal_7 => (5, false),
            None => return Err(cut("how long each test measured (`Measure 5 sec`)")),
        };
        if measure_s == 0 {
            return Err(RunError::new(format!(
                "{}: each test measured 0 seconds, which is no result",
                input.file
            ))
            .hint("give the file as the tool saved it"));
        }
        let interval_s = m.interval_s.ok_or_else(|| cut("the interval between tests (`Interval 5 sec`)"))?;
        let profile = get(&m.settings, "Profile").unwrap_or_default();
        let combined = match m.tool {
            MarkTool::CrystalDiskMark => Combined::CrystalBest,
            MarkTool::KDiskMark if profile.starts_with("Default") => Combined::KMean,
            MarkTool::KDiskMark
                if ["Peak Performance", "Real World Performance", "Demo"]
                    .iter()
                    .any(|p| profile.starts_with(p)) =>
            {
                Combined::KBest
            }
            MarkTool::KDiskMark => Combined::NotStated,
        };
        let warm_up_s = (m.tool == MarkTool::CrystalDiskMark).then_some(if major.is_some_and(|v| v >= 9) {
            measure_s
        } else {
            5
        });
        let zeros = m.settings.iter().any(|(k, v)| (k == "Mode" || k == "Test") && v.contains("<0Fill>"));
        let drive = match m.tool {
            MarkTool::CrystalDiskMark => get(&m.settings, "Test").and_then(|t| crystal_drive(&t)),
            MarkTool::KDiskMark => get(&m.settings, "Target").filter(|t| !t.is_empty()),
        }
        .map(|d| one_line(&d));
        let capacity = drive.as_deref().and_then(capacity);
        Ok(Settings {
            tool: m.tool,
            version,
            fio: m.fio_version.clone().filter(|f| !f.is_empty()),
            settings: &m.settings,
            size,
            count,
            measure_s,
            measure_stated,
            interval_s,
            warm_up_s,
            combined,
            zeros,
            drive,
            capacity,
        })
    }

    fn get(&self, name: &str) -> Option<String> {
        get(self.settings, name)
    }

    /// Bytes a second of one of the file's MB/s.
    fn bytes_per_mb(&self) -> f64 {
        match self.tool {
            MarkTool::CrystalDiskMark => 1e6,
            // fio's `bw` is KiB/s; KDiskMark divides it by 1000.
            MarkTool::KDiskMark => 1_024_000.0,
        }
    }

    fn engine(&self) -> String {
        match self.tool {
            MarkTool::CrystalDiskMark => "DiskSpd -S (no software cache), as CrystalDiskMark runs it".into(),
            MarkTool::KDiskMark => {
                format!("{} ioengine=libaio, as KDiskMark runs it", self.fio.as_deref().unwrap_or("fio"))
            }
        }
    }

    /// How a step's figure is made, in words, with the tool's source.
    fn computed(&self) -> Option<String> {
        let runs = format!("{} runs of {}", self.count, seconds_words(self.measure_s));
        match self.combined {
            Combined::CrystalBest => Some(format!(
                "the best of {runs}, as CrystalDiskMark reports it (DiskSpd() in DiskBench.cpp): the highest MB/s \
                 of the runs, after a run of {} not counted, its IOPS worked out of that MB/s \
                 (GetResultString in DiskMarkDlg.cpp), and the lowest mean latency of the runs, not always the \
                 same run's",
                seconds_words(self.warm_up_s.unwrap_or(5))
            )),
            Combined::KMean => Some(format!(
                "the mean of {runs} (each until {} a job if sooner), as KDiskMark reports it \
                 (Benchmark::startTest and sendResult in src/benchmark.cpp): MB/s, IOPS and latency each \
                 averaged over the runs",
                size_words(self.size)
            )),
            Combined::KBest => Some(format!(
                "the best of {runs} (each until {} a job if sooner), as KDiskMark reports it \
                 (PerformanceResult::updateWithBetterValues in src/benchmark.h): the highest MB/s, the highest \
                 IOPS and the lowest latency of the runs, each on its own",
                size_words(self.size)
            )),
            Combined::NotStated => None,
        }
    }
}

fn get(settings: &[(String, String)], name: &str) -> Option<String> {
    settings.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
}

/// The drive CrystalDiskMark's `Test:` line names: `C: 35% (165/476GiB)`
/// in `1 GiB (x5) [C: 35% (165/476GiB)]`; none for a folder.
fn crystal_drive(test: &str) -> Option<String> {
    let (_, rest) = test.split_once('[')?;
    let inside = rest.rsplit_once(']').map_or(rest, |(i, _)| i).trim();
    (inside.contains('%') && inside.contains('/')).then(|| inside.to_string())
}

/// The capacity in a drive's words: `476GiB` of `(165/476GiB)`, `464.00
/// GiB` of `(190.00/464.00 GiB)`, in bytes, and as written.
fn capacity(drive: &str) -> Option<(u64, String)> {
    let mut found = None;
    let mut rest = drive;
    while let Some((_, after)) = rest.split_once('(') {
        let Some((inside, next)) = after.split_once(')') else { break };
        if let Some((_, total)) = inside.split_once('/')
            && let Some(bytes) = size_in_words(total.trim())
        {
            found = Some((bytes, total.trim().to_string()));
        }
        rest = next;
    }
    found
}

/// `476GiB`, `464.00 GiB`, `1,862.50 GiB`: a number (its last `.` or `,`
/// before one or two digits the decimal point, any other a thousands
/// separator) and a binary unit.
fn size_in_words(s: &str) -> Option<u64> {
    let end = s.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == ',')).unwrap_or(s.len());
    let (number, unit) = (&s[..end], s[end..].trim());
    let mult: f64 = match unit {
        "B" | "Bytes" => 1.0,
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        "TiB" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
        "PiB" => 1024.0 * 1024.0 * 1024.0 * 1024.0 * 1024.0,
        _ => return None,
    };
    let decimal = number.rfind(['.', ',']).filter(|&i| (2..=3).contains(&(number.len() - i)));
    let digits: String = match decimal {
        Some(i) => {
            let whole: String = number[..i].chars().filter(char::is_ascii_digit).collect();
            format!("{whole}.{}", &number[i + 1..])
        }
        None => number.chars().filter(char::is_ascii_digit).collect(),
    };
    let value: f64 = digits.parse().ok()?;
    let bytes = (value * mult).round();
    (bytes.is_finite() && (1.0..9.0e18).contains(&bytes)).then_some(bytes as u64)
}

/// A test line methodic can run as written, or why not.
fn check_row(r: &MarkRow, s: &Settings<'_>, input: &ResultsFile<'_>) -> Result<(), RunError> {
    let at = |what: String| {
        RunError::new(format!("{}: line {}: {what}", input.file, r.line))
            .hint("give the file as the tool saved it")
    };
    if r.block == 0 || r.block > s.size {
        return Err(at(format!(
            "a block of {} in a test file of {}",
            size_words(r.block),
            size_words(s.size)
        )));
    }
    let qd = u64::from(r.queues) * u64::from(r.threads);
    if qd > MAX_QD {
        return Err(at(format!(
            "{} I/Os in flight per thread over {} threads is {qd}, above the {MAX_QD} methodic runs",
            r.queues, r.threads
        )));
    }
    if s.tool == MarkTool::KDiskMark && s.size.checked_mul(u64::from(r.threads)).is_none() {
        return Err(at(format!(
            "{} threads moving {} each is more bytes than methodic counts",
            r.threads,
            size_words(s.size)
        )));
    }
    Ok(())
}

/// `seq1m_read`, `rnd4k_write`, `rnd4k_mix70`: CrystalDiskMark's names
/// for the tests (`SEQ1M`, `RND4K`) and the direction.
fn workload_name(r: &MarkRow) -> String {
    let access = if r.sequential { "seq" } else { "rnd" };
    let block = if r.block.is_multiple_of(1 << 20) {
        format!("{}m", r.block >> 20)
    } else {
        format!("{}k", r.block / 1024)
    };
    let direction = match r.direction {
        MarkDirection::Read => "read".to_string(),
        MarkDirection::Write => "write".to_string(),
        MarkDirection::Mix { read } => format!("mix{read}"),
    };
    format!("{access}{block}_{direction}")
}

fn workload_text(r: &MarkRow) -> String {
    let read = match r.direction {
        MarkDirection::Read => 100,
        MarkDirection::Write => 0,
        MarkDirection::Mix { read } => read,
    };
    format!(
        "{{ {}; block {}; read {read}% }}",
        if r.sequential { "sequential" } else { "random" },
        size_text(r.block)
    )
}

/// A size in the language: `1GiB`, `512MiB`, `4KiB`, `1536B`.
fn size_text(bytes: u64) -> String {
    for (unit, name) in [(1u64 << 40, "TiB"), (1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")] {
        if bytes >= unit && bytes.is_multiple_of(unit) {
            return format!("{}{name}", bytes / unit);
        }
    }
    format!("{bytes}B")
}

/// `1 GiB`: a size in the tools' words.
fn size_words(bytes: u64) -> String {
    let t = size_text(bytes);
    let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    format!("{} {}", &t[..digits], &t[digits..])
}

fn seconds_words(s: u64) -> String {
    format!("{s}s")
}

/// `SEQ1M Q8T1`: a test as CrystalDiskMark names it.
fn test_words(r: &MarkRow) -> String {
    let name = workload_name(r);
    let short = name.split('_').next().unwrap_or_default().to_ascii_uppercase();
    format!("{short} Q{}T{}", r.queues, r.threads)
}

/// The methodology text: the test file written, then each test, with the
/// interval between each two.
fn methodology(s: &Settings<'_>, tests: &[&MarkRow], input: &ResultsFile<'_>) -> String {
    let mut out = header(s, tests, input);
    out.push_str(&definitions(s, tests));
    out.push_str(&prepare(s));
    out.push_str(&test_phases(s, tests, input));
    out
}

/// `crystaldiskmark`, `kdiskmark`: the import's command word.
fn command(tool: MarkTool) -> &'static str {
    match tool {
        MarkTool::CrystalDiskMark => "crystaldiskmark",
        MarkTool::KDiskMark => "kdiskmark",
    }
}

/// The comments that say where the methodology comes from and how the
/// tool runs, the header and the description.
fn header(s: &Settings<'_>, tests: &[&MarkRow], input: &ResultsFile<'_>) -> String {
    let tool = s.tool.name();
    let version = one_line(s.version.as_deref().unwrap_or(tool));
    let mut out = comment(
        &format!(
            "Imported from {} by methodic {} (`methodic import {}`): the tests of the {version} text results, \
             run as {tool} runs them.",
            one_line(input.file),
            env!("CARGO_PKG_VERSION"),
            command(s.tool),
        ),
        WIDTH,
    );
    out.push_str(&comment(&how_it_runs(s), WIDTH));
    let name = if input.name.trim().is_empty() { command(s.tool) } else { input.name };
    out.push_str(&format!("methodology {} version \"1.0\"\n", quote(name)));
    let profile =
        s.get("Profile").filter(|p| !p.is_empty()).map(|p| format!(", profile {p}")).unwrap_or_default();
    out.push_str(&format!(
        "describe {}\n\n",
        quote(&format!(
            "{version} text results{profile}: {} tests on a {} test file, {} runs of {}",
            tests.len(),
            size_words(s.size),
            s.count,
            seconds_words(s.measure_s)
        ))
    ));
    out
}

/// How the tool runs its tests, and how the methodology states that.
fn how_it_runs(s: &Settings<'_>) -> String {
    let size = size_words(s.size);
    let count = s.count;
    let measure = seconds_words(s.measure_s);
    match s.tool {
        MarkTool::CrystalDiskMark => format!(
            "CrystalDiskMark (DiskBench.cpp, hiyohiyo/CrystalDiskMark@bf00fa6) writes a test file of {size} \
             first (Init), then runs each test as DiskSpd (DiskSpd()): one run of {warm} not counted, then \
             {count} runs of {measure}, one after the other; it reports the best run's MB/s and, apart, the \
             lowest mean latency of the runs. `repeat {count} aggregate max` would make {count} steps, each with \
             numbers of its own, and the file gives one figure a test: so each test here is one measurement of \
             {measure}, after a ramp for the run not counted. DiskSpd's -o is I/Os in flight per thread and -t \
             threads: here the queue depth per worker and the workers.",
            warm = seconds_words(s.warm_up_s.unwrap_or(5)),
        ),
        MarkTool::KDiskMark => format!(
            "KDiskMark (src/benchmark.cpp and src/helper.cpp, JonMagon/KDiskMark@e78d3c7) has fio lay out a test \
             file of {size} first, then runs each test {count} times as one fio job (--ioengine=libaio \
             --size={mib}m --runtime={secs} --iodepth=Q --numjobs=T --end_fsync=1, without time_based: a job \
             ends when it has moved {size} or after {measure}, whichever comes first) and reports {how}. \
             `repeat {count}` would make {count} steps, each with numbers of its own, and the file gives one \
             figure a test: so each test here is one measurement, as one run. fio's iodepth is per job and \
             numjobs the jobs: here the queue depth per worker and the workers. end_fsync (a flush at the end \
             of a job that writes) is not carried over: methodic sends no flush during a step.",
            mib = s.size >> 20,
            secs = s.measure_s,
            how = match s.combined {
                Combined::KMean => "the mean of the runs (the Default profile)",
                Combined::KBest => "each figure's best of the runs (a profile other than Default)",
                Combined::CrystalBest | Combined::NotStated => {
                    "the runs' mean (the Default profile) or each figure's best (the others): the file names no \
                     profile"
                }
            },
        ),
    }
}

/// The conventions, the target and the workloads.
fn definitions(s: &Settings<'_>, tests: &[&MarkRow]) -> String {
    let figure = match s.combined {
        Combined::CrystalBest | Combined::KBest => "the best of the runs",
        Combined::KMean => "the mean of the runs",
        Combined::NotStated => "the mean or the best of the runs",
    };
    let mut out = comment(
        &format!(
            "The tools report MB/s (decimal units); each figure is {figure}: not methodic's step average or \
             peak, as each step's `computed` says."
        ),
        WIDTH,
    );
    out.push_str("conventions {\n  units decimal\n  queue_depth per_worker\n  value step_average\n}\n\n");
    let target = match s.tool {
        MarkTool::CrystalDiskMark if s.zeros => {
            "The span is the test file. DiskSpd -S: no software cache. Test data: zeros (Mode's <0Fill>, \
             DiskSpd -Z)."
        }
        MarkTool::CrystalDiskMark => {
            "The span is the test file. DiskSpd -S: no software cache. Test data: random (Mode has no <0Fill>); \
             CrystalDiskMark writes one random buffer of the block size again and again (DiskSpd -Z<block>K), \
             where methodic writes fresh data every time."
        }
        MarkTool::KDiskMark => {
            "The span is the test file. Direct I/O and random test data are KDiskMark's defaults (Bypass Cache \
             on, Test Data Random); the file states neither."
        }
    };
    out.push_str(&comment(target, WIDTH));
    out.push_str(&format!(
        "target {{\n  span {}\n  workers 1\n  io direct\n  data {}\n}}\n\n",
        size_text(s.size),
        if s.zeros { "zeros" } else { "random" }
    ));
    let mut defined: Vec<String> = Vec::new();
    for r in tests {
        let name = workload_name(r);
        if !defined.contains(&name) {
            out.push_str(&format!("workload {name} {}\n", workload_text(r)));
            defined.push(name);
        }
    }
    out
}

/// The test file, written before the first test.
fn prepare(s: &Settings<'_>) -> String {
    let (said, block) = match s.tool {
        MarkTool::CrystalDiskMark if s.zeros => (
            "The test file, written 1MiB at a time before the first test (Init in DiskBench.cpp): not measured.",
            "1MiB",
        ),
        MarkTool::CrystalDiskMark => (
            "The test file, written 1MiB at a time before the first test (Init in DiskBench.cpp), one random \
             buffer over and over: not measured.",
            "1MiB",
        ),
        MarkTool::KDiskMark => (
            "The test file, written by fio's layout (--create_only=1) in its default 4KiB blocks before the \
             first test: not measured.",
            "4KiB",
        ),
    };
    format!(
        "\nphase \"prepare\" {{\n{}  fill {{ sequential; block {block}; read 0% }} passes 1 qd 1\n}}\n",
        indented(said)
    )
}

/// A phase for each direction, a measurement for each test with its line
/// in a comment, and the interval between each two.
fn test_phases(s: &Settings<'_>, tests: &[&MarkRow], input: &ResultsFile<'_>) -> String {
    let mut out = String::new();
    let mut phase: Option<&'static str> = None;
    for (k, r) in tests.iter().enumerate() {
        let this = match r.direction {
            MarkDirection::Read => "read",
            MarkDirection::Write => "write",
            MarkDirection::Mix { .. } => "mix",
        };
        if phase != Some(this) {
            if phase.is_some() {
                out.push_str("}\n");
            }
            out.push_str(&format!("\nphase \"{this}\" {{\n"));
            phase = Some(this);
        }
        let line = input.text.lines().nth(r.line.saturating_sub(1)).unwrap_or_default();
        let mut said = format!("{}, line {}: {}", test_words(r), r.line, line.trim());
        if r.sequential && r.threads > 1 {
            said.push_str(match s.tool {
                MarkTool::CrystalDiskMark => {
                    " (the threads share one sequential offset: DiskSpd -si, on Windows 8 and later)"
                }
                MarkTool::KDiskMark => " (each fio job reads or writes the file from its start)",
            });
        }
        out.push_str(&indented(&one_line(&said)));
        let workers = if r.threads > 1 { format!(" workers {}", r.threads) } else { String::new() };
        let stop = match s.tool {
            MarkTool::CrystalDiskMark => {
                format!("ramp {} for {}", seconds_words(s.warm_up_s.unwrap_or(5)), seconds_words(s.measure_s))
            }
            // fio's size is each job's: the step's is the jobs' together
            // (checked in check_row).
            MarkTool::KDiskMark => format!(
                "until transferred {} for {}",
                size_text(s.size.saturating_mul(u64::from(r.threads))),
                seconds_words(s.measure_s)
            ),
        };
        out.push_str(&format!("  measure {} qd {}{workers} {stop}\n", workload_name(r), r.queues));
        if k + 1 < tests.len() && s.interval_s > 0 {
            out.push_str(&format!("  idle {}\n", seconds_words(s.interval_s)));
        }
    }
    if phase.is_some() {
        out.push_str("}\n");
    }
    out
}

fn indented(text: &str) -> String {
    comment(text, WIDTH - 2).lines().map(|l| format!("  {l}\n")).collect()
}

/// Everything worked out rather than read, and from what.
fn notes(m: &DiskMark, s: &Settings<'_>, tests: &[&MarkRow], skipped: &[&MarkRow]) -> Vec<String> {
    let mut out = run_notes(s);
    out.extend(number_notes(s, tests));
    out.extend(file_notes(m, s, skipped));
    out
}

/// Who wrote the file, and how the plan runs its tests.
fn run_notes(s: &Settings<'_>) -> Vec<String> {
    let mut out = vec![match (&s.version, &s.fio) {
        (Some(v), Some(f)) => format!("written by {v}, which ran {f}"),
        (Some(v), None) => format!("written by {v}"),
        (None, _) => format!("written by {} (version not stated)", s.tool.name()),
    }];
    let (count, measure, interval) = (s.count, seconds_words(s.measure_s), seconds_words(s.interval_s));
    out.push(match s.tool {
        MarkTool::CrystalDiskMark => format!(
            "the plan is the file's tests as CrystalDiskMark runs them (DiskBench.cpp, \
             hiyohiyo/CrystalDiskMark@bf00fa6): the test file written first (Init), each test a run of {} not \
             counted (the ramp) and {count} runs of {measure}, {interval} between tests (Interval)",
            seconds_words(s.warm_up_s.unwrap_or(5)),
        ),
        MarkTool::KDiskMark => format!(
            "the plan is the file's tests as KDiskMark runs them (src/benchmark.cpp and src/helper.cpp, \
             JonMagon/KDiskMark@e78d3c7): the test file laid out first by fio, each test {count} runs of one fio \
             job that ends at {} a job or {measure}, whichever comes first, {interval} between tests",
            size_words(s.size),
        ),
    });
    let figure = match s.combined {
        Combined::CrystalBest | Combined::KBest => "the best of its runs",
        Combined::KMean => "the mean of its runs",
        Combined::NotStated => "the mean or the best of its runs: the file names no profile that says which",
    };
    out.push(format!(
        "each test is one measurement, of one run: the file gives one figure a test ({figure}), where `repeat \
         {count}` would make a step a run, each needing its own numbers"
    ));
    out.push(
        "the tests are taken to have run in the file's order, in one session (the tool's All button); a test \
         run on its own leaves no trace of that in the file"
            .into(),
    );
    if !s.measure_stated {
        out.push(format!(
            "the measure time is not in the file: {measure}, as CrystalDiskMark 7's DiskBench.cpp sets it"
        ));
    }
    out
}

/// How each of the file's numbers is read.
fn number_notes(s: &Settings<'_>, tests: &[&MarkRow]) -> Vec<String> {
    let crystal = s.tool == MarkTool::CrystalDiskMark;
    let mut out = vec![
        if crystal {
            "MB/s read as 1,000,000 bytes a second, as the file's header says".to_string()
        } else {
            "MB/s read as 1,024,000 bytes a second: KDiskMark divides fio's bandwidth, in KiB/s, by 1000 \
             (Benchmark::parseResult in src/benchmark.cpp), whatever its header says"
                .to_string()
        },
        if crystal {
            "IOPS as stated, which CrystalDiskMark works out of the MB/s and the block size (GetResultString in \
             DiskMarkDlg.cpp): they are not counted"
                .to_string()
        } else {
            "IOPS as stated: fio's count".to_string()
        },
        "I/O counts and bytes moved: not stated, 0 in every step; the rates are the file's".to_string(),
        if crystal {
            format!(
                "seconds: each step's are one run's, {}, the time the reported run measured",
                seconds_words(s.measure_s)
            )
        } else {
            format!(
                "seconds: not stated, 0 in every step: a fio job ends at {} or {}, whichever comes first, and \
                 the file does not say which",
                size_words(s.size),
                seconds_words(s.measure_s)
            )
        },
        if crystal {
            "latency: the mean DiskSpd measured (-L), the lowest of the runs', no percentiles; a test stating \
             0 us has none"
                .to_string()
        } else {
            "latency: fio's mean completion latency (clat: from issue to completion, without the submission \
             time methodic's latency includes), no percentiles; a test stating 0 us has none"
                .to_string()
        },
    ];
    let mix = tests.iter().find_map(|r| match r.direction {
        MarkDirection::Mix { read } => Some(read),
        MarkDirection::Read | MarkDirection::Write => None,
    });
    if let Some(read) = mix {
        let p = f64::from(read) / 100.0;
        out.push(if crystal {
            format!(
                "the [Mix] tests (Read {read}%/Write {}%): the file gives one figure for reads and writes \
                 together, taken as their total; each step's reads and writes are that total split by the read \
                 share (DiskSpd makes each I/O a read or a write at that share), with no latency of their own; \
                 the figure as stated is the step's part",
                100 - read
            )
        } else {
            format!(
                "the [Mix] tests (Read {read}%/Write {}%): KDiskMark's figure is the read-share-weighted mean of \
                 fio's read and write figures (Benchmark::startTest in src/benchmark.cpp), not their total; as \
                 fio makes each I/O a read at that share, the total is the figure over {:.2} ({p:.2}² + \
                 {:.2}²), and each step's reads and writes are that total split by the read share, with no \
                 latency of their own; the figure as stated is the step's part",
                100 - read,
                p * p + (1.0 - p) * (1.0 - p),
                1.0 - p
            )
        });
    }
    out
}

/// The span, the data, the tests left out, and the settings lines the
/// plan has no place for.
fn file_notes(m: &DiskMark, s: &Settings<'_>, skipped: &[&MarkRow]) -> Vec<String> {
    let size = size_words(s.size);
    let mut out = vec![match (&s.drive, &s.capacity) {
        (Some(d), Some((_, written))) => format!(
            "span: the test file, {size}; capacity: {written} of {d}, as the tool rounds it: the file system's \
             size, not the drive's"
        ),
        (Some(d), None) => {
            format!(
                "span: the test file, {size}; capacity: not stated (0), {d} not being in words methodic reads"
            )
        }
        (None, _) => {
            format!("span: the test file, {size}; capacity: not stated (0), the file names no drive")
        }
    }];
    out.push(match s.tool {
        MarkTool::CrystalDiskMark if s.zeros => "data: zeros, as Mode's <0Fill> says".to_string(),
        MarkTool::CrystalDiskMark => "data: random (no <0Fill> in Mode), as one buffer of the block size \
                                      written again and again (DiskSpd -Z<block>K), where methodic writes \
                                      fresh data every time"
            .to_string(),
        MarkTool::KDiskMark => "cache policy and data pattern: not stated; the methodology has KDiskMark's \
                                defaults (direct I/O, random data; it also drops the page cache before each \
                                run by default)"
            .to_string(),
    });
    if !skipped.is_empty() {
        let lines: Vec<String> = skipped.iter().map(|r| r.line.to_string()).collect();
        out.push(format!(
            "not imported: {} with 0 MB/s (line{} {}): the tool prints zeros for a test it did not run",
            crate::finish::count(skipped.len(), "test"),
            if skipped.len() == 1 { "" } else { "s" },
            lines.join(", ")
        ));
    }
    for (k, v) in &m.settings {
        if ["OS", "Mode", "Comment", "Profile"].contains(&k.as_str()) && !v.is_empty() {
            out.push(format!("the file's {k}: {}", one_line(v)));
        }
    }
    out
}

/// A test's numbers as the file states them.
fn step(r: &MarkRow, s: &Settings<'_>) -> ImportedStep {
    let seconds = match s.tool {
        MarkTool::CrystalDiskMark => s.measure_s as f64,
        MarkTool::KDiskMark => 0.0,
    };
    let stated = Direction {
        ios: 0,
        bytes: 0,
        seconds,
        iops: r.iops,
        bytes_per_second: r.mb_s * s.bytes_per_mb(),
        latency: (r.latency_us > 0.0)
            .then(|| StatedLatency { mean: Some(r.latency_us * 1000.0), ..Default::default() }),
        bins: Vec::new(),
    };
    // The test file is the span, in the file's words; the capacity 0 when
    // the file does not state it.
    let span = Some((size_words(s.size), s.size, s.capacity.as_ref().map_or(0, |(c, _)| *c)));
    let mut out = ImportedStep { span, computed: s.computed(), ..Default::default() };
    match r.direction {
        MarkDirection::Read => out.read = Some(stated),
        MarkDirection::Write => out.write = Some(stated),
        MarkDirection::Mix { read } => {
            let p = f64::from(read.min(100)) / 100.0;
            let total = match s.tool {
                MarkTool::CrystalDiskMark => 1.0,
                MarkTool::KDiskMark => 1.0 / (p * p + (1.0 - p) * (1.0 - p)),
            };
            let share = |f: f64| Direction {
                iops: stated.iops * total * f,
                bytes_per_second: stated.bytes_per_second * total * f,
                latency: None,
                ..stated.clone()
            };
            out.read = (p > 0.0).then(|| share(p));
            out.write = (p < 1.0).then(|| share(1.0 - p));
            let name = match s.tool {
                MarkTool::CrystalDiskMark => "reads and writes together",
                MarkTool::KDiskMark => "the read-share-weighted mean of reads and writes",
            };
            out.parts = vec![Part { name: name.into(), read: Some(stated), write: None }];
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const CDM: &str = include_str!("../../../tests/disk-mark/crystaldiskmark-8-default.txt");
    const CDM_MIX: &str = include_str!("../../../tests/disk-mark/crystaldiskmark-9-peak-mix.txt");
    const KDM: &str = include_str!("../../../tests/disk-mark/kdiskmark-3-default.txt");

    fn run(text: &str) -> ImportedRun {
        disk_mark_run(&ResultsFile { text, file: "cdm.txt", name: "cdm" }).unwrap()
    }

    fn refused(text: &str) -> RunError {
        disk_mark_run(&ResultsFile { text, file: "cdm.txt", name: "cdm" }).unwrap_err()
    }

    /// The steps with I/O of the plan, in order.
    fn measured(r: &ImportedRun) -> Vec<&str> {
        r.plan
            .steps
            .iter()
            .filter(|s| matches!(s.action.kind(), "measure" | "together"))
            .map(|s| s.id.as_str())
            .collect()
    }

    #[test]
    fn each_test_is_a_measurement_with_the_file_s_numbers() {
        for (text, per_mb) in [(CDM, 1e6), (CDM_MIX, 1e6), (KDM, 1_024_000.0)] {
            let r = run(text);
            let m = read_disk_mark(text).unwrap();
            assert_eq!(r.steps.len(), m.rows.len());
            assert_eq!(measured(&r).len(), r.steps.len(), "{}", r.methodology);
            for (row, step) in m.rows.iter().zip(&r.steps) {
                let (d, other) = match row.direction {
                    MarkDirection::Read => (step.read.as_ref().unwrap(), &step.write),
                    MarkDirection::Write => (step.write.as_ref().unwrap(), &step.read),
                    MarkDirection::Mix { .. } => (step.parts[0].read.as_ref().unwrap(), &None),
                };
                assert!(other.is_none(), "line {}", row.line);
                assert_eq!(d.iops, row.iops, "line {}", row.line);
                assert_eq!(d.bytes_per_second, row.mb_s * per_mb, "line {}", row.line);
                assert_eq!(d.latency.as_ref().unwrap().mean, Some(row.latency_us * 1000.0));
                assert_eq!((d.ios, d.bytes), (0, 0), "not stated");
                assert!(step.computed.is_some());
            }
        }
    }

    #[test]
    fn the_methodology_states_the_tests_as_the_tool_runs_them() {
        let r = run(CDM);
        let m = &r.methodology;
        assert!(m.contains("measure seq1m_read qd 8 ramp 5s for 5s"), "{m}");
        assert!(m.contains("measure rnd4k_write qd 1 ramp 5s for 5s"), "{m}");
        assert!(m.contains("span 1GiB") && m.contains("idle 5s") && m.contains("fill {"), "{m}");
        assert_eq!(m.matches("idle 5s").count(), 7, "between each two tests: {m}");
        assert!(m.contains("queue_depth per_worker") && m.contains("units decimal"), "{m}");
        // What the writer holds compiles again.
        methodic_compiler::compile(m, &methodic_compiler::Options::default()).unwrap();
        let r = run(CDM_MIX);
        assert!(
            r.methodology.contains("measure rnd4k_read qd 32 workers 16 ramp 5s for 5s"),
            "{}",
            r.methodology
        );
        assert!(r.methodology.contains("workload rnd4k_mix70 { random; block 4KiB; read 70% }"));
        let r = run(KDM);
        assert!(
            r.methodology.contains("measure seq1m_read qd 8 until transferred 1GiB for 5s"),
            "{}",
            r.methodology
        );
    }

    #[test]
    fn the_note_says_what_the_file_states_and_what_was_worked_out() {
        let r = run(CDM);
        let n = &r.note;
        assert_eq!(n.tool, "CrystalDiskMark");
        assert_eq!(n.version.as_deref(), Some("CrystalDiskMark 8.0.4 x64"));
        assert_eq!(n.format, "text results");
        assert_eq!(n.ran.as_deref(), Some("2021/05/05 14:03:27"));
        assert_eq!(n.targets, ["C: 35% (165/476GiB)"]);
        assert_eq!(n.not_stated, ["drive state", "host"]);
        assert!(
            n.notes
                .iter()
                .any(|x| x.contains("worked out of the MB/s") || x.contains("works out of the MB/s"))
        );
        assert!(n.notes.iter().any(|x| x.starts_with("the file's OS: Windows 10")), "{:?}", n.notes);
        assert!(r.host.os.is_none(), "the OS line is a note, not a fact of the host");
        assert_eq!(r.steps[0].span, Some(("1 GiB".into(), 1 << 30, 476 << 30)));
        assert!(r.steps[0].computed.as_deref().unwrap().starts_with("the best of 5 runs of 5s"));
        let r = run(KDM);
        assert_eq!(r.note.version.as_deref(), Some("KDiskMark 3.1.4"));
        assert!(r.note.not_stated.contains(&"cache policy".to_string()));
        assert!(r.note.notes.iter().any(|x| x.contains("1,024,000 bytes")));
        assert_eq!(r.steps[0].span.as_ref().map(|s| s.2), Some(464 << 30));
        assert!(r.steps[0].computed.as_deref().unwrap().starts_with("the mean of 5 runs"));
        assert_eq!(r.engine.as_deref(), Some("fio-3.33 ioengine=libaio, as KDiskMark runs it"));
    }

    #[test]
    fn a_mix_is_split_by_its_read_share_and_kept_as_stated() {
        let r = run(CDM_MIX);
        let m = read_disk_mark(CDM_MIX).unwrap();
        let (k, row) = m
            .rows
            .iter()
            .enumerate()
            .find(|(_, r)| matches!(r.direction, MarkDirection::Mix { .. }))
            .unwrap();
        let s = &r.steps[k];
        let (rd, wr) = (s.read.as_ref().unwrap(), s.write.as_ref().unwrap());
        assert!((rd.bytes_per_second + wr.bytes_per_second - row.mb_s * 1e6).abs() < 1e-3);
        assert!((rd.iops / (rd.iops + wr.iops) - 0.7).abs() < 1e-9);
        assert!(rd.latency.is_none() && wr.latency.is_none());
        assert_eq!(s.parts.len(), 1);
        // KDiskMark's mix figure is a weighted mean: the total is larger.
        let text = KDM.replacen("[Write]", "[Mix] Read 70%/Write 30%", 1);
        let r = run(&text);
        let s = &r.steps[4];
        let stated = s.parts[0].read.as_ref().unwrap().bytes_per_second;
        let total = s.read.as_ref().unwrap().bytes_per_second + s.write.as_ref().unwrap().bytes_per_second;
        assert!((total - stated / 0.58).abs() < 1.0, "{total} {stated}");
    }

    #[test]
    fn tests_that_did_not_run_are_left_out_and_said() {
        let text = CDM.replace(
            "  RND    4KiB (Q=  1, T= 1):   172.993 MB/s [  42234.6 IOPS] <    22.45 us>",
            "  RND    4KiB (Q=  1, T= 1):     0.000 MB/s [      0.0 IOPS] <     0.00 us>",
        );
        assert_ne!(text, CDM);
        let r = run(&text);
        assert_eq!((r.steps.len(), measured(&r).len()), (7, 7));
        assert!(r.note.notes.iter().any(|n| n.starts_with("not imported: 1 test")), "{:?}", r.note.notes);
        let none: String = CDM
            .lines()
            .map(|l| {
                if l.contains("MB/s [") {
                    l.split(':').next().unwrap().to_string() + ": 0.000 MB/s [ 0.0 IOPS] < 0.00 us>"
                } else {
                    l.to_string()
                }
            })
            .map(|l| l + "\n")
            .collect();
        assert!(refused(&none).text.contains("every test states 0 MB/s"));
    }

    #[test]
    fn foreign_cut_and_odd_files_are_refused_naming_the_file() {
        let e = disk_mark_run(&ResultsFile { text: "[global]\nrw=read\n", file: "job.fio", name: "x" })
            .unwrap_err();
        assert!(e.text.starts_with("job.fio: ") && e.hint.is_some(), "{}", e.text);
        let cut: String = CDM.lines().take(12).map(|l| format!("{l}\n")).collect();
        let e = refused(&cut);
        assert!(e.text.starts_with("cdm.txt: the file does not state"), "{}", e.text);
        let e = refused(&CDM.replace("1 GiB (x5)", "99999999999 GiB (x5)"));
        assert!(e.text.contains("more than nine digits"), "{}", e.text);
        let e = refused(&CDM.replace("(Q= 32, T= 1)", "(Q=512, T=999)"));
        assert!(e.text.starts_with("cdm.txt: line 11: "), "{}", e.text);
    }

    #[test]
    fn every_cut_of_each_file_is_imported_or_refused() {
        for file in [CDM, CDM_MIX, KDM] {
            for cut in (0..=file.len()).step_by(7) {
                let Some(text) = file.get(..cut) else { continue };
                if let Ok(r) = disk_mark_run(&ResultsFile { text, file: "f", name: "f" }) {
                    assert_eq!(measured(&r).len(), r.steps.len());
                }
            }
        }
    }

    #[test]
    fn capacities_in_either_tool_s_words() {
        assert_eq!(capacity("C: 35% (165/476GiB)"), Some((476 << 30, "476GiB".into())));
        assert_eq!(
            capacity("/home 41% (190.00/464.50 GiB) [SSD (x)]").map(|c| c.0),
            Some((464.5 * (1u64 << 30) as f64) as u64)
        );
        assert_eq!(capacity("/m 1% (1,000.00/1,862.00 GiB)").map(|c| c.0), Some(1862 << 30));
        assert_eq!(capacity("D: 12% (60/476ГиБ)"), None);
        assert_eq!(crystal_drive("1 GiB (x5) [Interval: 5 sec]"), None);
    }

    #[test]
    fn the_writer_takes_each_import_as_a_results_directory() {
        for text in [CDM, CDM_MIX, KDM] {
            let r = run(text);
            let dir = std::env::temp_dir().join(format!(
                "methodic-disk-mark-{}-{}",
                std::process::id(),
                r.steps.len()
            ));
            let _ = std::fs::remove_dir_all(&dir);
            methodic_results::imported::write(&r, &dir).unwrap();
            let _ = std::fs::remove_dir_all(&dir);
        }
    }

    #[test]
    fn each_version_and_profile_says_how_its_figures_are_made() {
        // CrystalDiskMark 7 wrote no measure time: 5s, as its source has it.
        let seven = CDM
            .replace("CrystalDiskMark 8.0.4 x64", "CrystalDiskMark 7.0.0 x64")
            .replace("   Time: Measure 5 sec / Interval 5 sec \r\n", "")
            .replace("   Mode: [Admin]\r\n", "")
            .replace(
                "1 GiB (x5) [C: 35% (165/476GiB)]",
                "1 GiB (x5) [Interval: 5 sec] <DefaultAffinity=DISABLED>",
            );
        let r = run(&seven);
        assert!(r.note.notes.iter().any(|n| n.starts_with("the measure time is not in the file: 5s")));
        assert!(r.methodology.contains("measure seq1m_read qd 8 ramp 5s for 5s"), "{}", r.methodology);
        assert_eq!(r.steps[0].span, Some(("1 GiB".into(), 1 << 30, 0)), "the span stated, the capacity not");
        assert!(r.note.targets.is_empty());
        // From 9.0.0 the run not counted is as long as the others.
        let r = run(&CDM_MIX.replace("Measure 5 sec", "Measure 10 sec"));
        assert!(r.methodology.contains("ramp 10s for 10s"), "{}", r.methodology);
        let r = run(&CDM.replace("Measure 5 sec", "Measure 10 sec"));
        assert!(r.methodology.contains("ramp 5s for 10s"), "{}", r.methodology);
        // Zeros, when Mode says so.
        let r = run(&CDM.replace("Mode: [Admin]", "Mode: [Admin] <0Fill>"));
        assert!(r.methodology.contains("data zeros"), "{}", r.methodology);
        // KDiskMark's profiles: the mean, the best, or not said.
        let r = run(&KDM.replace("Profile: Default", "Profile: Peak Performance"));
        assert!(r.steps[0].computed.as_deref().unwrap().starts_with("the best of 5 runs"));
        let r = run(&KDM.replace("Profile: Default\n", ""));
        assert!(r.steps[0].computed.is_none());
        let r = run(&KDM.replace("(Q=  1, T= 1)", "(Q=  1, T= 4)"));
        assert!(r.methodology.contains("measure seq1m_read qd 1 workers 4 until transferred 4GiB for 5s"));
    }
}
