//! DiskSpd's XML results (`-Rxml`, DiskSpd 2.x) as a run.
//!
//! The plan is the `<Profile>` the results embed (DiskSpd writes the
//! profile it ran into its results: `XmlResultParser::ParseResults`),
//! imported by `methodic import diskspd` (the same rules, and the same
//! refusals): a phase a time span, its one `measure` or `together` step
//! the span's numbers. A warm-up is the step's ramp, and a cool-down
//! that writes before another time span a `precondition` after it (any
//! other a comment): neither is a step with numbers, so the steps with
//! I/O and DiskSpd's `<TimeSpan>`s of results pair up one to one, and a
//! file where they do not is refused.
//!
//! A step's numbers are DiskSpd's: the I/Os and bytes each thread counted
//! on each target, added up, over the span's `<TestTimeSeconds>`. The XML
//! states the counts and the time, not the rates, so IOPS and bytes per
//! second are worked out as DiskSpd's text report works them out (count
//! over time, `ResultParser.cpp`). With `-L`, the latency percentiles
//! DiskSpd gives over all threads and targets (1 to 99, 99.9 to
//! 99.9999999), its minimum and maximum (percentiles 0 and 100) and mean,
//! for reads and for writes; without it, none. Each thread's I/O on each
//! target is a part, said in the step's notes.
//!
//! Cited sources are microsoft/diskspd at commit c361eed (DiskSpd 2.2):
//! `XmlResultParser/XmlResultParser.cpp`, `ResultParser/ResultParser.cpp`,
//! `IORequestGenerator/IORequestGenerator.cpp`,
//! `XmlProfileParser/XmlProfileParser.cpp`, `Common/Common.h`
//! (`SystemInformation::GetXml`, what `<System>` states).

use methodic_results::imported::{Direction, ImportedRun, ImportedStep, Part, StatedLatency, merged};
use roxmltree::{Document, Node};

use super::{ResultsFile, RunError, compiled, note, unstated_host};
use crate::diskspd::results::{DiskSpdResults, Percentile, SpanLatency, SpanResult, read_results};
use crate::{ImportError, Input};

/// What to give instead of a file that is not DiskSpd's results.
const GIVE: &str =
    "give the file DiskSpd wrote with -Rxml (`diskspd -Rxml ... > results.xml`), whole and unedited";

/// How a step's numbers are made, as DiskSpd makes them.
const COMPUTED: &str = "total over the span's duration, warm-up and cool-down left out: the I/Os and bytes \
     DiskSpd counted from the end of the warm-up to the start of the cool-down, over that time \
     (<TestTimeSeconds>), as its text report divides them (microsoft/diskspd@c361eed: \
     IORequestGenerator.cpp:2550-2574 and 769, ResultParser.cpp:950-955)";

/// Reads DiskSpd's XML results (`-Rxml`) into a run.
pub fn diskspd_run(input: &ResultsFile<'_>) -> Result<ImportedRun, RunError> {
    let results =
        read_results(input.text).map_err(|e| RunError::new(format!("{}: {e}", input.file)).hint(GIVE))?;
    let Some(profile) = results.profile.clone() else {
        return Err(RunError::new(format!(
            "{}: the results embed no <Profile>, which DiskSpd writes before its time spans and the plan is made from",
            input.file
        ))
        .hint(GIVE));
    };
    if results.time_spans.iter().all(|s| s.error.is_some()) {
        let said = results.time_spans.iter().filter_map(|s| s.error.as_deref()).next().unwrap_or_default();
        return Err(RunError::new(format!(
            "{}: DiskSpd measured nothing: every time span says: {said}",
            input.file
        ))
        .hint("run DiskSpd again without stopping it, and give the results it writes then"));
    }
    // The whole file: the job import's XML reader takes <Results>'s
    // <Profile>, so the lines its refusals name are this file's.
    let import = crate::diskspd::to_method(&Input {
        text: input.text,
        file: input.file,
        name: input.name,
        vars: &[],
        include: &|_| Err("a results file's profile includes nothing".into()),
    })
    .map_err(|errors| refused(input, &errors))?;
    let (methodology, plan) = compiled(&import.text, input.file)?;
    let with_io = plan.steps.iter().filter(|s| matches!(s.action.kind(), "measure" | "together")).count();
    if with_io != results.time_spans.len() {
        return Err(RunError::new(format!(
            "{}: the profile the results embed imports to {} with I/O, but the file holds results of {}: DiskSpd writes one <TimeSpan> of results for each time span of its profile",
            input.file,
            crate::finish::count(with_io, "step"),
            crate::finish::count(results.time_spans.len(), "time span"),
        ))
        .hint(GIVE));
    }
    let stated = Stated::read(input.text);
    let steps = results
        .time_spans
        .iter()
        .enumerate()
        .map(|(i, s)| step(s, i + 1, input.file))
        .collect::<Result<Vec<_>, _>>()?;
    // The span each time span's profile states (its targets' <FileSize>,
    // the plan's `span`), of a target whose size the results do not give.
    let io_steps = plan.steps.iter().filter(|s| matches!(s.action.kind(), "measure" | "together"));
    let steps: Vec<ImportedStep> = steps
        .into_iter()
        .zip(io_steps)
        .map(|(n, s)| match s.target.unwrap_or(plan.target).span {
            methodic_compiler::plan::Extent::Bytes(b) => {
                ImportedStep { span: Some((format!("span {b} (<FileSize>)"), b.0, 0)), ..n }
            }
            methodic_compiler::plan::Extent::Percent(_) => n,
        })
        .collect();

    let version = results.version.as_ref().map(|v| format!("DiskSpd {v}"));
    let mut note = note("DiskSpd", version, "XML results (-Rxml)", input);
    note.ran = results.run_time.clone();
    note.targets = targets(&results);
    note.not_stated = vec!["host".into(), "drive state".into()];
    note.notes = notes(&results, &stated, &import, line_of(input.text, profile.start));
    let mut host = unstated_host(results.computer.clone().filter(|c| !c.is_empty()));
    host.cpus = stated.cpus.unwrap_or(0);
    Ok(ImportedRun { note, methodology, plan, host, engine: stated.engine(), steps })
}

/// The job import's refusal of the embedded profile, every problem in one
/// error, with the first hint.
fn refused(input: &ResultsFile<'_>, errors: &[ImportError]) -> RunError {
    let said: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
    let e = RunError::new(format!(
        "{}: the <Profile> these results embed cannot be imported by `methodic import diskspd`'s rules, and the plan is made from it: {}",
        input.file,
        said.join("; ")
    ));
    match errors.iter().find_map(|e| e.hint.clone()) {
        Some(h) => e.hint(h),
        None => e,
    }
}

/// The line of byte `at`, from 1.
fn line_of(text: &str, at: usize) -> usize {
    text.get(..at).map_or(0, |t| t.matches('\n').count()) + 1
}

/// The targets the results name, each once, in the order first named.
fn targets(r: &DiskSpdResults) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for t in r.time_spans.iter().flat_map(|s| &s.targets) {
        if !t.path.is_empty() && !out.contains(&t.path) {
            out.push(t.path.clone());
        }
    }
    out
}

/// The first child element of `n` named `name`.
fn child<'a, 'i>(n: Node<'a, 'i>, name: &str) -> Option<Node<'a, 'i>> {
    n.children().find(|c| c.has_tag_name(name))
}

/// What the file states beyond the reader's shape: the processors of
/// `<System>`'s `<ProcessorTopology>` and power plan, and for each time
/// span of the profile its `<CompletionRoutines>` and `<Duration>`.
#[derive(Default)]
struct Stated {
    /// The active logical processors, over the processor groups.
    cpus: Option<u32>,
    power_plan: Option<String>,
    /// `-x` for each time span.
    completion_routines: Vec<bool>,
    /// `-d` for each time span, in seconds (DiskSpd's default 10).
    durations: Vec<u64>,
}

impl Stated {
    fn read(text: &str) -> Stated {
        let Ok(doc) = Document::parse(text) else { return Stated::default() };
        let root = doc.root_element();
        let mut out = Stated::default();
        if let Some(system) = child(root, "System") {
            out.power_plan =
                child(system, "PowerScheme").and_then(|p| p.attribute("Name")).map(str::to_string);
            out.cpus = child(system, "ProcessorTopology").and_then(|t| {
                let counts: Vec<u32> = t
                    .children()
                    .filter(|g| g.has_tag_name("Group"))
                    .filter_map(|g| g.attribute("ActiveProcessors")?.trim().parse().ok())
                    .collect();
                let total = counts.iter().try_fold(0u32, |a, &n| a.checked_add(n))?;
                (total > 0).then_some(total)
            });
        }
        let spans = child(root, "Profile").and_then(|p| child(p, "TimeSpans"));
        for span in spans.iter().flat_map(|s| s.children().filter(|c| c.has_tag_name("TimeSpan"))) {
            let value = |name: &str| child(span, name).and_then(|c| c.text()).map(str::trim);
            // DiskSpd reads `true`, in any case, as true and anything else as
            // false (XmlProfileParser.cpp:1528).
            out.completion_routines
                .push(value("CompletionRoutines").is_some_and(|v| v.eq_ignore_ascii_case("true")));
            out.durations.push(value("Duration").and_then(|d| d.parse().ok()).unwrap_or(10));
        }
        out
    }

    /// How DiskSpd drove the I/O: overlapped I/O on completion ports, or
    /// completion routines with `-x` (IORequestGenerator.cpp:1681-1699).
    fn engine(&self) -> Option<String> {
        let routines = self.completion_routines.iter().filter(|&&x| x).count();
        let spans = |on: bool| {
            let n: Vec<String> = (1..=self.completion_routines.len())
                .filter(|&i| self.completion_routines[i - 1] == on)
                .map(|i| i.to_string())
                .collect();
            n.join(", ")
        };
        match (routines, self.completion_routines.len()) {
            (_, 0) => None,
            (0, _) => {
                Some("DiskSpd, Windows overlapped I/O on I/O completion ports (DiskSpd's default)".into())
            }
            (r, n) if r == n => Some("DiskSpd, Windows overlapped I/O with completion routines (-x)".into()),
            _ => Some(format!(
                "DiskSpd, Windows overlapped I/O on I/O completion ports in time spans {}, with completion routines (-x) in {}",
                spans(false),
                spans(true)
            )),
        }
    }
}

/// The note's notes: where the file came from, how the plan was made, how
/// the numbers were worked out, and what was left out.
fn notes(r: &DiskSpdResults, stated: &Stated, import: &crate::Imported, profile_line: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut written = String::from("written by DiskSpd");
    if let Some(v) = &r.version {
        written.push_str(&format!(" {v}"));
    }
    if let Some(d) = &r.version_date {
        written.push_str(&format!(" ({d})"));
    }
    if let Some(c) = r.computer.as_ref().filter(|c| !c.is_empty()) {
        written.push_str(&format!(" on {c}"));
    }
    out.push(written);
    let mut system = Vec::new();
    if r.computer.as_ref().is_some_and(|c| !c.is_empty()) {
        system.push("the computer's name".to_string());
    }
    if let Some(n) = stated.cpus {
        system.push(format!("{n} active logical processors"));
    }
    if let Some(p) = &stated.power_plan {
        system.push(format!("the Windows power plan \"{p}\""));
    }
    if !system.is_empty() {
        out.push(format!(
            "host: the <System> states {}; not the CPU model, memory or Windows version",
            said_list(&system)
        ));
    }
    out.push(format!(
        "the plan is the <Profile> the results embed (line {profile_line}), imported by `methodic import diskspd`'s rules: each time span a phase, its warm-up the step's ramp, a cool-down that writes before another time span a precondition after it"
    ));
    if import.dropped > 0 {
        out.push(format!(
            "{} of the profile not carried over: the methodology's comments say which and why",
            crate::finish::count(import.dropped, "setting")
        ));
    }
    for w in &import.warnings {
        out.push(format!("the profile's import says: {w}"));
    }
    out.push(
        "IOPS and bytes per second worked out as DiskSpd's text report works them out (ResultParser.cpp:950-955): \
         each count over <TestTimeSeconds>, which DiskSpd writes to 1/100 s; the XML states the counts and the time, not the rates"
            .into(),
    );
    let with: Vec<usize> = span_numbers(r, |s| s.latency.is_some());
    let without: Vec<usize> = span_numbers(r, |s| s.error.is_none() && s.latency.is_none());
    if !with.is_empty() {
        out.push(format!(
            "latency ({}): DiskSpd's -L, from before its ReadFile or WriteFile to the completion it sees \
             (IORequestGenerator.cpp:689, 1031): the percentiles it gives over all threads and targets (1 to 99, \
             99.9 to 99.9999999), minimum and maximum (its percentiles 0 and 100) and mean, for reads, for writes \
             and for both together (the step's total), in milliseconds to 3 decimals (XmlResultParser.cpp:393-500); \
             a part's mean only",
            spans_said(&with, r.time_spans.len())
        ));
    }
    if !without.is_empty() {
        out.push(format!(
            "latency ({}): not stated: DiskSpd measures it only with -L (<MeasureLatency>)",
            spans_said(&without, r.time_spans.len())
        ));
    }
    for (i, s) in r.time_spans.iter().enumerate() {
        if let Some(e) = &s.error {
            out.push(format!("time span {}: DiskSpd says: {e}", i + 1));
        } else if let (Some(secs), Some(&d)) = (s.seconds, stated.durations.get(i)) {
            // DiskSpd measures whole seconds; less by more than its rounding is a stop (Ctrl+C).
            if secs.is_finite() && secs + 0.5 < d as f64 {
                out.push(format!(
                    "time span {}: measured {secs:.2} s of its {d} s: DiskSpd was stopped early, and the numbers are of the time it ran",
                    i + 1
                ));
            }
        }
    }
    out.push(
        "left out: CPU utilization, the latency and IOPS standard deviations and IOPS per interval (-D), \
         which a step's numbers have no place for"
            .into(),
    );
    out
}

/// `a`, `a and b`, `a, b and c`.
fn said_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// The numbers, from 1, of the time spans `pick` chooses.
fn span_numbers(r: &DiskSpdResults, pick: impl Fn(&SpanResult) -> bool) -> Vec<usize> {
    r.time_spans.iter().enumerate().filter(|(_, s)| pick(s)).map(|(i, _)| i + 1).collect()
}

/// `every time span`, `time span 2`, `time spans 1, 3`.
fn spans_said(numbers: &[usize], of: usize) -> String {
    match numbers {
        [one] if of > 1 => format!("time span {one}"),
        _ if numbers.len() == of => "every time span".into(),
        _ => format!("time spans {}", numbers.iter().map(|n| n.to_string()).collect::<Vec<_>>().join(", ")),
    }
}

/// Milliseconds as DiskSpd writes them, in nanoseconds (whole: DiskSpd's
/// three decimals are microseconds).
fn ns(ms: f64) -> f64 {
    (ms * 1e6).round()
}

/// One time span's numbers: reads and writes over every thread and
/// target, each thread's I/O on each target a part. A span DiskSpd did
/// not measure is a step with DiskSpd's error and no numbers.
fn step(span: &SpanResult, n: usize, file: &str) -> Result<ImportedStep, RunError> {
    let base = ImportedStep { computed: Some(COMPUTED.into()), ..ImportedStep::default() };
    if let Some(e) = &span.error {
        return Ok(ImportedStep { error: Some(format!("DiskSpd: {e}")), ..base });
    }
    let seconds = match span.seconds {
        Some(s) if s.is_finite() && s > 0.0 => s,
        // DiskSpd writes the time to 1/100 s: 0.00 is a stop within 5 ms.
        Some(s) if s.is_finite() && s >= 0.0 => {
            return Ok(ImportedStep {
                error: Some(format!(
                    "DiskSpd measured time span {n} for under 0.005 s (<TestTimeSeconds>0.00</TestTimeSeconds>): too short for rates"
                )),
                ..base
            });
        }
        Some(s) => {
            return Err(RunError::new(format!(
                "{file}: time span {n}: <TestTimeSeconds>{s}</TestTimeSeconds> is no time DiskSpd measures"
            ))
            .hint(GIVE));
        }
        None => {
            return Err(RunError::new(format!(
                "{file}: time span {n} has results but no <TestTimeSeconds>, which the rates are over"
            ))
            .hint(GIVE));
        }
    };
    // The counts added up; an overflow is no file DiskSpd wrote.
    let mut sums = [0u64; 4];
    for t in &span.targets {
        for (sum, v) in sums.iter_mut().zip([t.reads, t.read_bytes, t.writes, t.write_bytes]) {
            *sum = sum.checked_add(v).ok_or_else(|| {
                RunError::new(format!("{file}: time span {n}: counts too large to add up (more than 2^64)"))
                    .hint(GIVE)
            })?;
        }
    }
    if sums[0].checked_add(sums[2]).is_none() || sums[1].checked_add(sums[3]).is_none() {
        return Err(RunError::new(format!(
            "{file}: time span {n}: counts too large to add up (more than 2^64)"
        ))
        .hint(GIVE));
    }
    let [reads, read_bytes, writes, write_bytes] = sums;
    let l = span.latency.as_ref();
    let parts: Vec<Part> = span
        .targets
        .iter()
        .map(|t| Part {
            name: format!("thread {} on {}", t.thread, t.path),
            read: direction(t.reads, t.read_bytes, seconds, t.read_mean.map(mean_only)),
            write: direction(t.writes, t.write_bytes, seconds, t.write_mean.map(mean_only)),
        })
        .collect();
    // A together step's jobs are its targets, in the order the profile
    // first names them: each target's threads added up.
    let mut paths: Vec<&str> = Vec::new();
    for t in &span.targets {
        if !paths.contains(&t.path.as_str()) {
            paths.push(&t.path);
        }
    }
    let jobs = paths
        .iter()
        .map(|path| {
            let of: Vec<&Part> =
                parts.iter().zip(&span.targets).filter(|(_, t)| t.path == *path).map(|(p, _)| p).collect();
            let reads: Vec<&Direction> = of.iter().filter_map(|p| p.read.as_ref()).collect();
            let writes: Vec<&Direction> = of.iter().filter_map(|p| p.write.as_ref()).collect();
            Part { name: path.to_string(), read: merged(&reads), write: merged(&writes) }
        })
        .collect();
    Ok(ImportedStep {
        read: direction(reads, read_bytes, seconds, l.and_then(|l| latency(l, l.read_mean, |p| p.read))),
        write: direction(writes, write_bytes, seconds, l.and_then(|l| latency(l, l.write_mean, |p| p.write))),
        total_latency: l.and_then(|l| latency(l, l.total_mean, |p| p.total)),
        parts,
        jobs,
        ..base
    })
}

/// A direction that did I/O, its rates DiskSpd's: count over time.
fn direction(ios: u64, bytes: u64, seconds: f64, latency: Option<StatedLatency>) -> Option<Direction> {
    (ios > 0 || bytes > 0).then(|| Direction {
        ios,
        bytes,
        seconds,
        iops: ios as f64 / seconds,
        bytes_per_second: bytes as f64 / seconds,
        latency,
        bins: Vec::new(),
    })
}

/// A part's latency: DiskSpd gives each thread's mean on a target only.
fn mean_only(ms: f64) -> StatedLatency {
    StatedLatency { mean: Some(ns(ms)), ..StatedLatency::default() }
}

/// A direction's latency over the span: its percentiles, 0 the minimum
/// and 100 the maximum; `None` when DiskSpd states none for it.
fn latency(
    l: &SpanLatency,
    mean: Option<f64>,
    pick: fn(&Percentile) -> Option<f64>,
) -> Option<StatedLatency> {
    let at = |percent: f64| l.percentiles.iter().find(|p| p.percent == percent).and_then(pick).map(ns);
    let out = StatedLatency {
        mean: mean.map(ns),
        min: at(0.0),
        max: at(100.0),
        percentiles: l
            .percentiles
            .iter()
            .filter(|p| p.percent > 0.0 && p.percent < 100.0)
            .filter_map(|p| Some((p.percent, ns(pick(p)?))))
            .collect(),
    };
    (out != StatedLatency::default()).then_some(out)
}

/// What the fuzz target (`runs::fuzz`) checks of every import, and this
/// import's own promise, for this module's tests: any bytes, as text with
/// invalid UTF-8 replaced. It panics when the import does, when it
/// refuses a file without naming the file or with a bug of the job
/// import, or when a run it makes breaks a promise: a step of numbers for
/// each step of the plan with I/O, and rates over a time that is there.
#[cfg(test)]
fn fuzz(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    match diskspd_run(&ResultsFile { text: &text, file: "fuzz.xml", name: "fuzz" }) {
        Ok(run) => {
            let with_io =
                run.plan.steps.iter().filter(|s| matches!(s.action.kind(), "measure" | "together")).count();
            assert_eq!(with_io, run.steps.len());
            for s in &run.steps {
                for d in [&s.read, &s.write].into_iter().flatten() {
                    assert!(d.seconds > 0.0 && d.seconds.is_finite());
                }
            }
        }
        Err(e) => {
            assert!(e.text.starts_with("fuzz.xml: "), "an error that does not name the file: {}", e.text);
            assert!(!e.text.contains("bug in methodic import"), "{}", e.text);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One time span, two threads on one target, with -L and -D.
    const FILE: &str = include_str!("../../../tests/diskspd/results-2.2.xml");
    /// Two time spans: 128KiB sequential writes without -L and a
    /// cool-down, then 4KiB random reads on two targets with -L.
    const TWO: &str = include_str!("../../../tests/diskspd/results-2.2-two-spans.xml");

    fn run(text: &str) -> ImportedRun {
        diskspd_run(&ResultsFile { text, file: "run.xml", name: "run" })
            .unwrap_or_else(|e| panic!("{}\nhint: {}", e.text, e.hint.unwrap_or_default()))
    }

    fn refused(text: &str) -> RunError {
        match diskspd_run(&ResultsFile { text, file: "run.xml", name: "run" }) {
            Ok(r) => panic!("imported:\n{}", r.methodology),
            Err(e) => e,
        }
    }

    fn kinds(r: &ImportedRun) -> Vec<&'static str> {
        r.plan.steps.iter().map(|s| s.action.kind()).collect()
    }

    /// A span's sums as the reader read them: reads, read bytes, writes, write bytes.
    fn sums(s: &SpanResult) -> (u64, u64, u64, u64) {
        s.targets.iter().fold((0, 0, 0, 0), |a, t| {
            (a.0 + t.reads, a.1 + t.read_bytes, a.2 + t.writes, a.3 + t.write_bytes)
        })
    }

    #[test]
    fn each_time_span_is_a_step_with_the_numbers_the_reader_read() {
        let r = run(FILE);
        let read = read_results(FILE).unwrap();
        assert_eq!(kinds(&r), ["measure"]);
        assert_eq!(r.steps.len(), read.time_spans.len());
        let (s, span) = (&r.steps[0], &read.time_spans[0]);
        let secs = span.seconds.unwrap();
        let (reads, read_bytes, writes, write_bytes) = sums(span);
        let rd = s.read.as_ref().unwrap();
        let wr = s.write.as_ref().unwrap();
        assert_eq!((rd.ios, rd.bytes, wr.ios, wr.bytes), (reads, read_bytes, writes, write_bytes));
        assert_eq!((rd.seconds, wr.seconds), (secs, secs));
        assert_eq!(rd.iops, reads as f64 / secs);
        assert_eq!(wr.bytes_per_second, write_bytes as f64 / secs);
        assert!(s.trim.is_none() && s.error.is_none());
        assert!(s.computed.as_deref().unwrap().starts_with("total over the span's duration"));
        // A part a thread's target.
        assert_eq!(s.parts.len(), span.targets.len());
        for (p, t) in s.parts.iter().zip(&span.targets) {
            assert_eq!(p.name, format!("thread {} on {}", t.thread, t.path));
            assert_eq!(p.read.as_ref().unwrap().ios, t.reads);
            let mean = p.read.as_ref().unwrap().latency.as_ref().unwrap().mean.unwrap();
            assert!((mean - t.read_mean.unwrap() * 1e6).abs() < 1.0, "{mean}");
        }
        assert!(s.parts[1].words().starts_with("thread 1 on E:\\bench\\t.dat: "), "{}", s.parts[1].words());
    }

    #[test]
    fn with_latency_the_percentiles_are_kept() {
        let r = run(FILE);
        let l = read_results(FILE).unwrap().time_spans[0].latency.clone().unwrap();
        let close = |ns: Option<f64>, ms: Option<f64>| (ns.unwrap() - ms.unwrap() * 1e6).abs() < 1.0;
        let at = |p: f64| l.percentiles.iter().find(|b| b.percent == p).unwrap();
        for (d, pick, mean) in [
            (&r.steps[0].read, (|p: &Percentile| p.read) as fn(&Percentile) -> Option<f64>, l.read_mean),
            (&r.steps[0].write, |p: &Percentile| p.write, l.write_mean),
        ] {
            let s = d.as_ref().unwrap().latency.as_ref().unwrap();
            assert_eq!(s.percentiles.len(), l.percentiles.len() - 2, "0 and 100 are the minimum and maximum");
            assert!(close(s.min, pick(at(0.0))) && close(s.max, pick(at(100.0))) && close(s.mean, mean));
            let p99 = s.percentiles.iter().find(|(p, _)| *p == 99.0).map(|(_, ns)| *ns);
            assert!(close(p99, pick(at(99.0))));
            let p = s.percentiles.iter().find(|(p, _)| *p == 99.9999999).map(|(_, ns)| *ns);
            assert!(close(p, pick(at(99.9999999))));
        }
        // What the summary shows: the stated p99 of reads, in microseconds,
        // and DiskSpd's own p99 of reads and writes together as the total.
        let summary = r.steps[0].summary();
        assert!((summary.read.unwrap().latency_us.p99 - at(99.0).read.unwrap() * 1000.0).abs() < 1e-6);
        assert!((summary.total.latency_us.p99 - at(99.0).total.unwrap() * 1000.0).abs() < 1e-6);
    }

    #[test]
    fn the_note_says_what_the_file_states_and_what_it_does_not() {
        let r = run(FILE);
        let n = &r.note;
        assert_eq!((n.tool.as_str(), n.version.as_deref()), ("DiskSpd", Some("DiskSpd 2.2.0")));
        assert_eq!(n.format, "XML results (-Rxml)");
        assert_eq!(n.ran.as_deref(), Some("2026/12/06 20:10:11 UTC"));
        assert_eq!(n.targets, ["E:\\bench\\t.dat"]);
        assert_eq!(n.not_stated, ["host", "drive state"]);
        assert_eq!(r.host.hostname.as_deref(), Some("BENCH-07"));
        assert_eq!(r.host.cpus, 8);
        assert!(r.host.cpu_model.is_none() && r.host.memory_bytes == 0);
        assert!(r.engine.as_deref().unwrap().contains("I/O completion ports"), "{:?}", r.engine);
        let said = n.notes.join("\n");
        for s in ["written by DiskSpd 2.2.0 (2024/6/3) on BENCH-07", "line 14", "latency (every time span)"] {
            assert!(said.contains(s), "{s}: {said}");
        }
        assert!(n.describe().starts_with("DiskSpd 2.2.0 XML results (-Rxml), run.xml"), "{}", n.describe());
        assert!(r.methodology.contains("measure ts1_t1 qd 16 for 60s ramp 5s"), "{}", r.methodology);
    }

    #[test]
    fn a_cool_down_is_no_step_with_numbers_and_spans_without_latency_state_none() {
        let r = run(TWO);
        let read = read_results(TWO).unwrap();
        assert_eq!(kinds(&r), ["measure", "precondition", "together"]);
        assert_eq!(r.steps.len(), 2);
        // Sequential writes, without -L.
        let w = &r.steps[0];
        assert!(w.read.is_none());
        let d = w.write.as_ref().unwrap();
        assert_eq!((d.ios, d.bytes), (sums(&read.time_spans[0]).2, sums(&read.time_spans[0]).3));
        assert!(d.latency.is_none() && w.parts[0].write.as_ref().unwrap().latency.is_none());
        // Reads on two targets at once, with -L: a part each.
        let s = &r.steps[1];
        assert!(s.write.is_none());
        let d = s.read.as_ref().unwrap();
        assert_eq!(d.ios, sums(&read.time_spans[1]).0);
        assert_eq!(d.seconds, read.time_spans[1].seconds.unwrap());
        assert!(!d.latency.as_ref().unwrap().percentiles.is_empty());
        let names: Vec<&str> = s.parts.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["thread 0 on E:\\a.dat", "thread 1 on F:\\b.dat"]);
        // The together step's jobs, a target each, in the profile's order.
        let jobs: Vec<(&str, u64)> =
            s.jobs.iter().map(|j| (j.name.as_str(), j.read.as_ref().unwrap().ios)).collect();
        let each: Vec<u64> = read.time_spans[1].targets.iter().map(|t| t.reads).collect();
        assert_eq!(jobs, [("E:\\a.dat", each[0]), ("F:\\b.dat", each[1])]);
        assert_eq!(r.note.targets, ["E:\\a.dat", "F:\\b.dat"]);
        assert_eq!((r.host.hostname.as_deref(), r.host.cpus), (Some("LAB-SRV-03"), 4));
        let said = r.note.notes.join("\n");
        for s in [
            "latency (time span 2): DiskSpd's -L",
            "latency (time span 1): not stated",
            "\"High performance\"",
        ] {
            assert!(said.contains(s), "{s}: {said}");
        }
    }

    #[test]
    fn the_runs_are_written_as_results_directories() {
        for (k, text) in [FILE, TWO].into_iter().enumerate() {
            let r = run(text);
            let dir = std::env::temp_dir().join(format!("methodic-diskspd-run-{}-{k}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            let written = methodic_results::imported::write(&r, &dir);
            let manifest = std::fs::read_to_string(dir.join("manifest.json"));
            let _ = std::fs::remove_dir_all(&dir);
            assert!(written.is_ok(), "{}", written.err().map(|e| e.to_string()).unwrap_or_default());
            assert!(manifest.unwrap().contains("\"tool\": \"DiskSpd\""));
        }
    }

    /// `text` with its `n`th `<TimeSpan>` of results (from 1) replaced by `with`.
    fn span_replaced(text: &str, n: usize, with: &str) -> String {
        let profile_end = text.find("</Profile>").unwrap();
        let mut start = profile_end;
        for _ in 0..n {
            start += text[start..].find("\n  <TimeSpan>").unwrap() + 1;
        }
        let end = start + text[start..].find("</TimeSpan>").unwrap() + "</TimeSpan>".len();
        format!("{}{with}{}", &text[..start], &text[end..])
    }

    #[test]
    fn an_interrupted_time_span_is_a_failed_step_and_all_of_them_refused() {
        let error = "<TimeSpan>\n    <Error>The test was interrupted before the measurements began. No results are displayed.</Error>\n  </TimeSpan>";
        let r = run(&span_replaced(TWO, 2, error));
        assert_eq!(r.steps.len(), 2);
        assert!(r.steps[0].error.is_none());
        assert!(r.steps[1].error.as_deref().unwrap().contains("interrupted"), "{:?}", r.steps[1].error);
        assert!(r.steps[1].read.is_none() && r.steps[1].parts.is_empty());
        assert!(r.note.notes.iter().any(|n| n.starts_with("time span 2: DiskSpd says")));
        let e = refused(&span_replaced(FILE, 1, error));
        assert!(e.text.starts_with("run.xml: DiskSpd measured nothing"), "{}", e.text);
        // Stopped while it measured: the numbers are of the time it ran.
        let r = run(&TWO.replacen(
            "<TestTimeSeconds>20.01</TestTimeSeconds>",
            "<TestTimeSeconds>7.32</TestTimeSeconds>",
            1,
        ));
        assert!(r.note.notes.iter().any(|n| n.contains("measured 7.32 s of its 20 s")), "{:?}", r.note.notes);
    }

    #[test]
    fn results_that_do_not_match_their_profile_are_refused() {
        // A time span of results removed.
        let cut = span_replaced(TWO, 2, "");
        let e = refused(&cut);
        assert!(e.text.contains("2 steps with I/O") && e.text.contains("1 time span"), "{}", e.text);
        assert!(e.hint.is_some());
        // No time to divide by.
        let e = refused(&FILE.replacen("<TestTimeSeconds>60.01</TestTimeSeconds>", "", 1));
        assert!(e.text.contains("no <TestTimeSeconds>"), "{}", e.text);
        // Counts no DiskSpd wrote.
        let big =
            FILE.replace("<ReadCount>2100000</ReadCount>", &format!("<ReadCount>{}</ReadCount>", u64::MAX));
        assert!(refused(&big).text.contains("too large"));
    }

    #[test]
    fn a_profile_the_job_import_refuses_is_refused_with_its_hint() {
        let text = FILE.replacen(
            "<ParallelAsyncIO>false</ParallelAsyncIO>",
            "<ParallelAsyncIO>true</ParallelAsyncIO>",
            1,
        );
        assert_ne!(text, FILE);
        let e = refused(&text);
        assert!(
            e.text.starts_with("run.xml: the <Profile> these results embed cannot be imported"),
            "{}",
            e.text
        );
        assert!(e.text.contains("ParallelAsyncIO"), "{}", e.text);
        assert!(e.hint.is_some());
    }

    #[test]
    fn foreign_and_truncated_files_are_refused_naming_the_file() {
        let profile = include_str!("../../../tests/diskspd/random4k-oltp.xml");
        for (text, says) in [
            (&FILE[..FILE.len() / 2], "not XML"),
            ("{\"fio version\": \"fio-3.33\"}", "not XML"),
            (profile, "a profile"),
            ("<Results><TimeSpan><Error>x</Error></TimeSpan></Results>", "no <Profile>"),
            ("<Html><Body/></Html>", "<Html>"),
        ] {
            let e = refused(text);
            assert!(e.text.starts_with("run.xml: ") && e.text.contains(says), "{says}: {}", e.text);
            assert!(e.hint.is_some(), "{}", e.text);
        }
    }

    #[test]
    fn every_cut_of_the_files_is_read_or_refused() {
        for text in [FILE, TWO] {
            for cut in (0..=text.len()).step_by(211).chain([text.len()]) {
                fuzz(&text.as_bytes()[..cut]);
            }
        }
        fuzz(b"<Results><Profile><TimeSpans><TimeSpan><Targets><Target><Path>x</Path></Target></Targets></TimeSpan></TimeSpans></Profile><TimeSpan><TestTimeSeconds>NaN</TestTimeSeconds><Thread><Id>0</Id><Target><Path>x</Path><ReadBytes>1</ReadBytes><ReadCount>1</ReadCount><WriteBytes>0</WriteBytes><WriteCount>0</WriteCount></Target></Thread></TimeSpan></Results>");
    }
}
