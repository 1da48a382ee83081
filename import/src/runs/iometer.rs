//! Iometer's results CSV (the file Iometer appends a test's results to,
//! read by `crate::iometer::results`) as a run.
//!
//! The plan is the test the rows state, step by step: a `measure` (or,
//! when the workers ran apart, a `together` step) for each of Iometer's
//! runs in file order (a test's queue depth, worker or target cycling),
//! at the outstanding I/Os, workers and targets of the run's `WORKER` and
//! `DISK` rows, for the run's run time. The access specifications are
//! workloads by `methodic import iometer FILE.icf`'s rules: each one a run
//! used is handed to that import as an .icf file where a worker runs it
//! (so that it is held to the rules of a specification that runs), at its
//! own lines, so that its comments and refusals name the results file's
//! lines. Workers are methodic workers, a worker
//! of several targets a worker on each; the targets devices, matched by
//! name as Iometer matches them (the .icf import's rules too).
//!
//! What the results state and how it is read (iometer-org/iometer @
//! 7243b4da0fc108ea1297f3c1cde0d5e295c597a1, Iometer 1.1.0):
//! - The run time: a `WORKER` row's `Total Raw Run Time` (timer ticks from
//!   the end of the ramp up to the end of the run, `Grunt::Record_On` and
//!   `Record_Off`, `src/IOGrunt.cpp:489-511`) over its `Processor Speed`
//!   (the ticks a second, `manager->timer_resolution`), the longest of
//!   the run's workers as `Manager::UpdateResults` takes it
//!   (`src/Manager.cpp:801-803`); without them, the I/Os over the IOPS of
//!   the `ALL` row. The ramp up is not in the file: the steps have none.
//! - A step's numbers are the `ALL` row (every worker together): I/Os,
//!   bytes, IOPS and decimal MB/s of each direction, and the average and
//!   maximum response time (milliseconds, made nanoseconds). Iometer gives
//!   no percentiles; its 21 latency bins count reads and writes together,
//!   so they are kept (as the bins' upper bounds) only for a run whose
//!   I/O went one way, and only when they count every I/O.
//! - Each `WORKER` and `DISK` row is a part of the step, said in its notes.
//!
//! What is not: the host but for the manager's name, the data pattern,
//! the drive's state, the span's share of the drive (its capacity), the
//! ramp up. A run without `WORKER` or `DISK` rows (Iometer's Record
//! Results other than ALL), a second manager and network workers are
//! refused, with what to do.

use std::collections::HashSet;

use methodic_compiler::plan::{Bytes, Duration};
use methodic_grammar::ident;
use methodic_results::imported::{Direction, ImportedRun, ImportedStep, Part, StatedLatency, merged};

use super::{ResultsFile, RunError, compiled, note, unstated_host};
use crate::Input;
use crate::finish::comment;
use crate::iometer::results::{ResultsRow, ResultsRun, ResultsTest, RowKind, read_results};
use crate::text::{one_line, quote};

/// Comments are wrapped to this width, as the .icf import wraps them.
const WIDTH: usize = 100;

/// Iometer's test types by their code in the results (`'Test Type`, the
/// index of Test Setup's list: `src/PageSetup.h`, `CyclingTargets = 1`
/// to `CyclingQueueTargets`), in the words of an .icf file.
const TEST_TYPES: [&str; 8] = [
    "NORMAL",
    "CYCLE_TARGETS",
    "CYCLE_WORKERS",
    "INCREMENT_TARGETS_PARALLEL",
    "INCREMENT_TARGETS_SERIAL",
    "CYCLE_WORKERS_AND_TARGETS",
    "CYCLE_OUTSTANDING_IOS",
    "CYCLE_OUTSTANDING_IOS_AND_TARGETS",
];

/// The .icf import keeps this name from its workloads (its queue depth
/// loop variable): kept here too, so that a workload has the same name
/// both ways.
const QD_VAR: &str = "iometer_qd";

/// The sector Iometer's starting sector and disk size count, as the .icf
/// import takes it.
const SECTOR: u64 = 512;

/// The most outstanding I/Os a methodic step keeps.
const MAX_QD: u64 = 65_536;

/// The longest run time taken as one (ten years): a longer one is not a
/// run Iometer made.
const MAX_SECONDS: f64 = 315_360_000.0;

/// What to do about a file cut off or edited.
const WHOLE: &str = "give the results file as Iometer wrote it, its rows whole";

/// How a step's numbers are made, with Iometer's sources.
const COMPUTED: &str = "the average over the run's run time, ramp up left out, as Iometer reports it: the I/Os \
     and bytes completed from the end of the ramp up to the end of the run, over that time (Grunt::Record_On \
     and Record_Off, src/IOGrunt.cpp:489-511; Worker::UpdateResults, src/Worker.cpp:919-921, \
     iometer-org/iometer@7243b4d), every worker's added up in the ALL row (Manager::UpdateResults)";

/// Reads Iometer's results CSV into a run.
pub fn iometer_run(input: &ResultsFile<'_>) -> Result<ImportedRun, RunError> {
    let results = read_results(input.text).map_err(|e| {
        RunError::new(format!("{}: {e}", input.file)).hint(
            "give the .csv file Iometer wrote its results to (Test Setup's results file, or `IOmeter.exe /r \
             FILE.csv`), whole",
        )
    })?;
    let lines: Vec<&str> = input.text.lines().map(|l| l.trim_end_matches('\r')).collect();
    let file = Reading { file: input.file, lines: &lines };
    let tests: Vec<&ResultsTest> = results.tests.iter().filter(|t| !t.runs.is_empty()).collect();
    let defs = spec_defs(&lines);
    let mut devices = Devices::default();
    let mut runs = Vec::new();
    let mut hostname: Option<String> = None;
    let mut cpus: Option<usize> = None;
    for (t, test) in tests.iter().enumerate() {
        for (r, run) in test.runs.iter().enumerate() {
            let shape = shape(&file, run, &defs, &mut devices)?;
            if let Some(m) = &shape.manager {
                match &hostname {
                    Some(h) if h != m => {
                        return Err(RunError::new(format!(
                            "{}: the run at line {} is of manager \"{m}\", an earlier one of \"{h}\": the file holds \
                             tests of two hosts",
                            input.file, run.line
                        ))
                        .hint("import each host's tests on their own: split the file at its 'Test Type lines"));
                    }
                    _ => hostname = Some(m.clone()),
                }
            }
            if shape.cpus > 0 {
                cpus = Some(shape.cpus);
            }
            if let Some(first) = runs.first().map(|f: &Located<'_>| &f.shape)
                && (first.start, first.size) != (shape.start, shape.size)
            {
                return Err(RunError::new(format!(
                    "{}: the run at line {} has another starting sector or disk size than the run at line {}: a \
                     methodology's steps share one span and offset",
                    input.file, run.line, first.run.line
                ))
                .hint("import the runs of one span on their own: split the file at its 'Test Type lines"));
            }
            runs.push(Located { test: t, run: r, shape });
        }
    }
    let used = used_specs(&runs);
    let workloads = workloads(input, &defs, &used, &runs)?;
    let source = methodology(input, &tests, &runs, &workloads, &devices);
    let (methodology, plan) = compiled(&source, input.file).map_err(|e| {
        // Every refusal names the file first.
        let prefix = format!("{}: ", input.file);
        if e.text.starts_with(&prefix) { e } else { RunError { text: format!("{prefix}{}", e.text), ..e } }
    })?;
    let steps: Vec<ImportedStep> = runs.iter().map(|r| step(&r.shape)).collect();
    let measured = plan.steps.iter().filter(|s| matches!(s.action.kind(), "measure" | "together")).count();
    if measured != steps.len() {
        return Err(RunError::new(format!(
            "{}: bug in methodic import: the methodology made has {measured} steps with I/O for {} runs",
            input.file,
            steps.len()
        )));
    }
    let version = tests.iter().find_map(|t| t.version.clone());
    let mut note = note("Iometer", version, "results CSV", input);
    note.ran = tests.iter().find_map(|t| t.started.clone());
    note.targets = devices.names.clone();
    note.not_stated = vec!["host".into(), "drive state".into(), "data pattern".into()];
    note.notes = notes(&tests, &runs, cpus, &workloads);
    Ok(ImportedRun { note, methodology, plan, host: unstated_host(hostname), engine: None, steps })
}

/// The file's lines, as the reader numbers them, and its name for errors.
struct Reading<'a> {
    file: &'a str,
    lines: &'a [&'a str],
}

impl Reading<'_> {
    /// A refusal at `line` of the file.
    fn error(&self, line: usize, detail: impl std::fmt::Display) -> RunError {
        RunError::new(format!("{}: line {line}: {detail}", self.file))
    }
}

/// A run's header: its column names.
struct Columns<'a> {
    names: Vec<&'a str>,
}

impl<'a> Columns<'a> {
    /// The header line after the run's `'Results` (the reader has checked
    /// that it is one).
    fn of(file: &Reading<'a>, run: &ResultsRun) -> Columns<'a> {
        let header = file.lines.get(run.line).copied().unwrap_or("");
        Columns { names: header.trim().trim_start_matches('\'').split(',').map(str::trim).collect() }
    }

    /// A row's value under `name`, as written; `None` when the header has
    /// no such column or the row leaves it empty.
    fn raw<'b>(&self, file: &Reading<'b>, row: &ResultsRow, name: &str) -> Option<&'b str> {
        let k = self.names.iter().position(|c| *c == name)?;
        let line = file.lines.get(row.line.checked_sub(1)?)?;
        line.split(',').map(str::trim).nth(k).filter(|v| !v.is_empty())
    }

    fn float(&self, file: &Reading<'_>, row: &ResultsRow, name: &str) -> Result<Option<f64>, RunError> {
        self.raw(file, row, name)
            .map(|v| match v.parse::<f64>() {
                Ok(x) if x.is_finite() => Ok(x),
                _ => Err(file.error(row.line, format!("`{v}` under `{name}` is not a number"))),
            })
            .transpose()
    }

    fn whole(&self, file: &Reading<'_>, row: &ResultsRow, name: &str) -> Result<Option<u64>, RunError> {
        self.raw(file, row, name)
            .map(|v| {
                v.parse::<u64>()
                    .map_err(|_| file.error(row.line, format!("`{v}` under `{name}` is not a whole number")))
            })
            .transpose()
    }
}

/// An access specification as the file defines it: its lines, from its
/// `'Access specification name` key to its last access line.
struct SpecDef {
    /// As the reader names it (the value before its last comma).
    name: String,
    /// The key's line, from 1.
    line: usize,
    /// The lines as written, the key first.
    text: Vec<String>,
    /// The access lines' fields, for comparing two definitions.
    access: Vec<String>,
    /// A pause of this many milliseconds before every this many I/Os
    /// (delay and burst, as the .icf import makes them a think time).
    think: Option<(u64, u64)>,
}

/// Every definition of an access specification in the file, in order:
/// Iometer lists the specifications again before each specification
/// index's runs, so a name is defined again and again (with other lines
/// only when the file holds tests of two specifications of one name).
fn spec_defs(lines: &[&str]) -> Vec<SpecDef> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim() != "'Access specification name,default assignment" {
            i += 1;
            continue;
        }
        let value = lines.get(i + 1).map_or("", |l| l.trim());
        let name = value.rsplit_once(',').map_or(value, |(n, _)| n).to_string();
        let mut text = vec![lines[i].trim().to_string()];
        let mut j = i + 1;
        // The value, then the column header(s), then access lines up to a key.
        if j < lines.len() {
            text.push(lines[j].to_string());
            j += 1;
        }
        while j < lines.len() && lines[j].trim_start().starts_with('\'') && !is_key_end(lines[j]) {
            text.push(lines[j].trim().to_string());
            j += 1;
        }
        let mut access = Vec::new();
        while j < lines.len() && !lines[j].trim_start().starts_with('\'') {
            text.push(lines[j].to_string());
            access.push(lines[j].trim().trim_end_matches(',').to_string());
            j += 1;
        }
        // size, % of size, % reads, % random, delay, burst: the first line that runs.
        let fields: Option<Vec<u64>> = access
            .iter()
            .map(|a| a.split(',').map(|v| v.trim().parse().unwrap_or(0)).collect::<Vec<u64>>())
            .find(|f| f.len() >= 6 && f[1] > 0);
        let think = fields.filter(|f| f[4] > 0).map(|f| (f[4], f[5].max(1)));
        out.push(SpecDef { name, line: i + 1, text, access, think });
        i = j.max(i + 1);
    }
    out
}

/// Whether a `'` line ends a specification's column headers: the next
/// specification's key, or the end of the list.
fn is_key_end(line: &str) -> bool {
    let t = line.trim();
    t.eq_ignore_ascii_case("'Access specification name,default assignment")
        || t.eq_ignore_ascii_case("'End access specifications")
        || t == "'Results"
}

/// The disks the file names, in the order it first names them, each a
/// device: `1: "ATA ..."` and `1:` are one disk, as Iometer matches a
/// target name whose second character is `:` by its first two characters
/// (`Worker::LoadConfigTargets`; the .icf import's rule).
#[derive(Default)]
struct Devices {
    names: Vec<String>,
    keys: Vec<String>,
}

impl Devices {
    /// The device of a target, from 0.
    fn of(&mut self, name: &str) -> usize {
        let lower = name.to_ascii_lowercase();
        let key =
            if lower.as_bytes().get(1) == Some(&b':') { lower.chars().take(2).collect() } else { lower };
        match self.keys.iter().position(|k| *k == key) {
            Some(d) => d,
            None => {
                self.keys.push(key);
                self.names.push(name.to_string());
                self.names.len() - 1
            }
        }
    }
}

/// A run as its rows state it.
struct Shape<'a> {
    run: &'a ResultsRun,
    workers: Vec<WorkerAt<'a>>,
    /// The run's recorded seconds, and whether they are the workers' raw
    /// run time (else the I/Os over the IOPS).
    seconds: f64,
    raw_time: bool,
    manager: Option<String>,
    cpus: usize,
    /// The workers' starting sector and disk size (sectors).
    start: u64,
    size: u64,
    /// The step's numbers.
    read: Option<Direction>,
    write: Option<Direction>,
    error: Option<String>,
    /// Why the bins were left out, when the row has some.
    bins_left_out: Option<String>,
    parts: Vec<Part>,
}

/// A worker of a run, its targets and what it ran.
struct WorkerAt<'a> {
    row: &'a ResultsRow,
    number: usize,
    /// Index into the file's specification definitions.
    spec: usize,
    qd: u64,
    /// Each target's row and device.
    targets: Vec<(&'a ResultsRow, usize)>,
}

/// A run and where it is: which test, which run of it (from 0).
struct Located<'a> {
    test: usize,
    run: usize,
    shape: Shape<'a>,
}

/// The run's workers, targets, run time and numbers, or why they cannot
/// be a step.
fn shape<'a>(
    file: &Reading<'a>,
    run: &'a ResultsRun,
    defs: &[SpecDef],
    devices: &mut Devices,
) -> Result<Shape<'a>, RunError> {
    let columns = Columns::of(file, run);
    let (all, manager) = checked_rows(file, run, &columns)?;
    let workers = workers_of(file, run, defs, devices)?;
    let (start, size) = placement(file, &workers)?;
    let (seconds, raw_time) = run_time(file, &columns, all, &workers)?;
    let all_dirs = directions(file, &columns, all, seconds, true)?;
    let (read, write, bins_left_out) = with_bins(all, &run.bin_names, all_dirs);
    let parts = parts(file, &columns, &workers, seconds)?;
    let read_errors = columns.whole(file, all, "Read Errors")?;
    let write_errors = columns.whole(file, all, "Write Errors")?;
    let error = match all.errors {
        Some(n) if n > 0 => Some(match (read_errors, write_errors) {
            (Some(r), Some(w)) => format!("Iometer counted {n} I/O errors ({r} reads, {w} writes)"),
            _ => format!("Iometer counted {n} I/O errors"),
        }),
        _ => None,
    };
    Ok(Shape {
        run,
        workers,
        seconds,
        raw_time,
        manager: manager.map(|m| m.name.clone()),
        cpus: run.rows.iter().filter(|r| r.kind == RowKind::Processor).count(),
        start,
        size,
        read,
        write,
        error,
        bins_left_out,
        parts,
    })
}

/// The run's ALL row and its manager's row (one at most), its rows of
/// numbers checked whole.
fn checked_rows<'a>(
    file: &Reading<'_>,
    run: &'a ResultsRun,
    columns: &Columns<'_>,
) -> Result<(&'a ResultsRow, Option<&'a ResultsRow>), RunError> {
    let all = run.rows.iter().find(|r| r.kind == RowKind::All).ok_or_else(|| {
        file.error(run.line, "a run without its ALL row (the total of every worker)").hint(WHOLE)
    })?;
    let managers: Vec<&ResultsRow> = run.rows.iter().filter(|r| r.kind == RowKind::Manager).collect();
    if let Some(second) = managers.get(1) {
        return Err(file
            .error(
                second.line,
                format!(
                    "a second manager, \"{}\": Iometer ran the workers of each manager on its own host; a \
                     methodology runs on the targets of one",
                    second.name
                ),
            )
            .hint(
                "import the results of a test with one manager (as `methodic import iometer` takes an .icf)",
            ));
    }
    // A row of numbers shorter than its header: the file ends inside it.
    let width = columns.names.len();
    let values =
        |r: &ResultsRow| file.lines.get(r.line.saturating_sub(1)).map_or(0, |l| l.split(',').count());
    if let Some(short) = run
        .rows
        .iter()
        .find(|r| matches!(r.kind, RowKind::All | RowKind::Worker | RowKind::Disk) && values(r) < width)
    {
        return Err(file
            .error(
                short.line,
                format!(
                    "a row of {} of the header's {width} values: the file is cut off here, or the row was edited",
                    values(short)
                ),
            )
            .hint(WHOLE));
    }
    Ok((all, managers.first().copied()))
}

/// The run's workers, each with its targets (the DISK rows after it).
fn workers_of<'a>(
    file: &Reading<'_>,
    run: &'a ResultsRun,
    defs: &[SpecDef],
    devices: &mut Devices,
) -> Result<Vec<WorkerAt<'a>>, RunError> {
    let mut workers: Vec<WorkerAt<'a>> = Vec::new();
    for row in &run.rows {
        match &row.kind {
            RowKind::Worker => {
                let (spec, qd) = worker_row(file, row, defs)?;
                workers.push(WorkerAt { row, number: workers.len() + 1, spec, qd, targets: Vec::new() });
            }
            RowKind::Disk => match workers.last_mut() {
                Some(w) => w.targets.push((row, devices.of(&row.name))),
                None => return Err(file.error(row.line, "a DISK row before any WORKER row").hint(WHOLE)),
            },
            RowKind::Network => {
                return Err(file
                    .error(
                        row.line,
                        format!(
                            "a network target, {}: its worker exchanged I/O with another over the network; \
                             methodic measures storage",
                            one_line(&row.name)
                        ),
                    )
                    .hint("import the results of a test of disk workers"));
            }
            RowKind::Other(kind) => {
                return Err(file
                    .error(
                        row.line,
                        format!("a row of `{}`, which Iometer's results have no rows of", one_line(kind)),
                    )
                    .hint(WHOLE));
            }
            RowKind::All | RowKind::Manager | RowKind::Processor => {}
        }
    }
    let record_hint = "Iometer writes every worker's and target's row with Record Results ALL (its Test \
                       Setup tab): run the test so";
    if workers.is_empty() {
        return Err(file
            .error(
                run.line,
                "the run has no WORKER rows: which specification each worker ran, at which depth, is not stated",
            )
            .hint(record_hint));
    }
    if let Some(w) = workers.iter().find(|w| w.targets.is_empty()) {
        return Err(file
            .error(
                w.row.line,
                format!("worker \"{}\" has no DISK rows: the targets it ran on are not stated", w.row.name),
            )
            .hint(record_hint));
    }
    Ok(workers)
}

/// A WORKER row's specification (an index into `defs`) and outstanding
/// I/Os.
fn worker_row(file: &Reading<'_>, row: &ResultsRow, defs: &[SpecDef]) -> Result<(usize, u64), RunError> {
    let spec = defs.iter().position(|d| d.name == row.spec).ok_or_else(|| {
        if row.spec.is_empty() {
            file.error(row.line, format!("worker \"{}\" names no access specification", row.name)).hint(WHOLE)
        } else {
            file.error(
                row.line,
                format!(
                    "worker \"{}\" ran \"{}\", which no 'Access specifications list of the file defines",
                    row.name, row.spec
                ),
            )
            .hint("give the whole results file: each run's specifications are listed before it")
        }
    })?;
    let qd = row.queue_depth.ok_or_else(|| {
        file.error(row.line, format!("worker \"{}\" has no Queue Depth", row.name)).hint(WHOLE)
    })?;
    if qd == 0 || qd > MAX_QD {
        return Err(file.error(
            row.line,
            format!("worker \"{}\": {qd} outstanding I/Os; methodic keeps 1 to {MAX_QD} in flight", row.name),
        ));
    }
    Ok((spec, qd))
}

/// The workers' starting sector and disk size, which they must share (a
/// methodology's workers share one span and offset, as the .icf import
/// says), and their outstanding I/Os within what a step keeps.
fn placement(file: &Reading<'_>, workers: &[WorkerAt<'_>]) -> Result<(u64, u64), RunError> {
    let first = workers[0].row;
    let place = |r: &ResultsRow| (r.starting_sector.unwrap_or(0), r.maximum_size.unwrap_or(0));
    if let Some(other) = workers.iter().find(|w| place(w.row) != place(first)) {
        return Err(file
            .error(
                other.row.line,
                format!(
                    "worker \"{}\"'s starting sector or disk size differ from worker \"{}\"'s: a methodology's \
                     workers share one span and offset",
                    other.row.name, first.name
                ),
            )
            .hint("import the results of a test whose workers had one 'Disk maximum size,starting sector"));
    }
    let (start, size) = place(first);
    if start.checked_add(size).and_then(|e| e.checked_mul(SECTOR)).is_none() {
        return Err(file.error(first.line, "a starting sector or disk size too large to hold"));
    }
    for j in jobs(workers) {
        if j.qd.saturating_mul(j.workers) > MAX_QD {
            return Err(file.error(
                j.first.row.line,
                format!(
                    "{} workers at {} outstanding I/Os each on one target: more than the {MAX_QD} a methodic \
                     step keeps in flight",
                    j.workers, j.qd
                ),
            ));
        }
    }
    Ok((start, size))
}

/// Each WORKER and DISK row as a part of the step, over the worker's own
/// run time where its row states it.
fn parts(
    file: &Reading<'_>,
    columns: &Columns<'_>,
    workers: &[WorkerAt<'_>],
    seconds: f64,
) -> Result<Vec<Part>, RunError> {
    let mut parts = Vec::new();
    for w in workers {
        let own = worker_seconds(file, columns, w.row)?.unwrap_or(seconds);
        let (read, write) = directions(file, columns, w.row, own, false)?;
        parts.push(Part { name: format!("worker {} ({})", w.number, one_line(&w.row.name)), read, write });
        for (k, (t, _)) in w.targets.iter().enumerate() {
            let (read, write) = directions(file, columns, t, own, false)?;
            let name = format!("worker {} on target {} ({})", w.number, k + 1, one_line(&t.name));
            parts.push(Part { name, read, write });
        }
    }
    Ok(parts)
}

/// A worker's recorded seconds: its `Total Raw Run Time` over its
/// `Processor Speed` (the timer's ticks a second), when both are stated.
fn worker_seconds(
    file: &Reading<'_>,
    columns: &Columns<'_>,
    row: &ResultsRow,
) -> Result<Option<f64>, RunError> {
    let ticks = columns.whole(file, row, "Total Raw Run Time")?;
    let rate = columns.float(file, row, "Processor Speed")?;
    Ok(match (ticks, rate) {
        (Some(t), Some(r)) if t > 0 && r > 0.0 => Some(t as f64 / r).filter(|s| s.is_finite()),
        _ => None,
    })
}

/// The run's recorded seconds: the longest of its workers' (as Iometer
/// takes the manager's), else the ALL row's I/Os over its IOPS; and
/// whether they are the workers'.
fn run_time(
    file: &Reading<'_>,
    columns: &Columns<'_>,
    all: &ResultsRow,
    workers: &[WorkerAt<'_>],
) -> Result<(f64, bool), RunError> {
    let mut longest: Option<f64> = None;
    for w in workers {
        if let Some(s) = worker_seconds(file, columns, w.row)? {
            longest = Some(longest.map_or(s, |l: f64| l.max(s)));
        }
    }
    let (seconds, raw) = match longest {
        Some(s) => (s, true),
        None => {
            let ios = all.reads.unwrap_or(0).saturating_add(all.writes.unwrap_or(0));
            match all.iops {
                Some(iops) if iops > 0.0 && ios > 0 => (ios as f64 / iops, false),
                _ => {
                    return Err(file
                        .error(
                            all.line,
                            "the run's run time is not stated: no Total Raw Run Time and Processor Speed on its \
                             WORKER rows, and no I/Os with IOPS on its ALL row to work it out from",
                        )
                        .hint(WHOLE));
                }
            }
        }
    };
    if !seconds.is_finite() || seconds <= 0.0 || seconds > MAX_SECONDS {
        return Err(
            file.error(all.line, format!("a run time of {seconds} seconds: not one Iometer could have run"))
        );
    }
    Ok((seconds, raw))
}

/// A row's read and write: counts, rates and latency as the row states
/// them; a direction without I/O is `None`. `whole`: the row must state
/// its counts (the ALL row, whose numbers are the step's).
fn directions(
    file: &Reading<'_>,
    columns: &Columns<'_>,
    row: &ResultsRow,
    seconds: f64,
    whole: bool,
) -> Result<(Option<Direction>, Option<Direction>), RunError> {
    let mut out = [None, None];
    let sides = [
        (row.reads, row.bytes_read, row.read_iops, row.read_mean_ms, "Read"),
        (row.writes, row.bytes_written, row.write_iops, row.write_mean_ms, "Write"),
    ];
    for (k, (ios, bytes, iops, mean, word)) in sides.into_iter().enumerate() {
        let (Some(ios), Some(bytes)) = (ios, bytes) else {
            if whole {
                return Err(file
                    .error(row.line, format!("the ALL row has no {word} I/Os or Bytes {word}"))
                    .hint(WHOLE));
            }
            continue;
        };
        if ios == 0 && bytes == 0 {
            continue;
        }
        let rate = columns.float(file, row, &format!("{word} MBps (Decimal)"))?;
        let max = columns.float(file, row, &format!("Maximum {word} Response Time"))?;
        let ns = |ms: f64| ms * 1e6;
        out[k] = Some(Direction {
            ios,
            bytes,
            seconds,
            iops: iops.unwrap_or(ios as f64 / seconds),
            bytes_per_second: rate.map_or(bytes as f64 / seconds, |mb| mb * 1e6),
            latency: (mean.is_some() || max.is_some()).then(|| StatedLatency {
                mean: mean.map(ns),
                min: None,
                max: max.map(ns),
                percentiles: Vec::new(),
            }),
            bins: Vec::new(),
        });
    }
    let [read, write] = out;
    Ok((read, write))
}

/// The ALL row's latency bins on its one direction with I/O, as `(upper
/// bound in nanoseconds, count)`, no bound above the stated maximum; or
/// why they are left out.
fn with_bins(
    all: &ResultsRow,
    names: &[String],
    (mut read, mut write): (Option<Direction>, Option<Direction>),
) -> (Option<Direction>, Option<Direction>, Option<String>) {
    if all.bins.is_empty() {
        return (read, write, None);
    }
    let why = |s: &str| Some(s.to_string());
    let bounds: Option<Vec<u64>> = names.iter().map(|n| bin_bound(n)).collect();
    let Some(bounds) = bounds.filter(|b| b.len() == all.bins.len()) else {
        return (read, write, why("their names are not ranges of a time"));
    };
    let counted: u64 = all.bins.iter().fold(0u64, |a, b| a.saturating_add(*b));
    let ios = read.as_ref().map_or(0, |d| d.ios).saturating_add(write.as_ref().map_or(0, |d| d.ios));
    let one_way = match (&mut read, &mut write) {
        (Some(d), None) | (None, Some(d)) => d,
        (None, None) => return (read, write, None),
        (Some(_), Some(_)) => {
            return (
                read,
                write,
                why("they count reads and writes together, and a step's bins are a direction's"),
            );
        }
    };
    if counted != ios {
        return (
            read,
            write,
            why("they count other than every I/O (Iometer counts an I/O of 10 s or more in none of them)"),
        );
    }
    // No I/O took longer than the stated maximum: the last bin's bound is at most it.
    let most = one_way.latency.as_ref().and_then(|l| l.max).map_or(u64::MAX, |m| m.ceil() as u64);
    one_way.bins =
        bounds.iter().zip(&all.bins).filter(|(_, n)| **n > 0).map(|(b, n)| ((*b).min(most), *n)).collect();
    (read, write, None)
}

/// A bin's upper bound in nanoseconds, from its name: `0 to 50 uS`,
/// `0.5 to 1 mS`, `2 to 4.7 s`; the open last bin (`>= 10 s`) by its
/// lower bound.
fn bin_bound(name: &str) -> Option<u64> {
    let t = name.trim();
    let bound = match t.split_once(" to ") {
        Some((_, upper)) => upper,
        None => t.strip_prefix(">=")?,
    };
    let (number, unit) = bound.trim().split_once(' ')?;
    let value: f64 = number.parse().ok()?;
    let scale = match unit.trim().to_ascii_lowercase().as_str() {
        "us" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        _ => return None,
    };
    let ns = value * scale;
    (ns.is_finite() && ns >= 0.0).then_some(ns.round() as u64)
}

/// The specifications the runs use, by definition, in the order the file
/// defines them.
fn used_specs(runs: &[Located<'_>]) -> Vec<usize> {
    let mut used: Vec<usize> = runs.iter().flat_map(|r| r.shape.workers.iter().map(|w| w.spec)).collect();
    used.sort_unstable();
    used.dedup();
    used
}

/// A specification as a methodic workload: its name in the methodology,
/// its text (comments and the `workload` line, as `methodic import
/// iometer` writes it) and its think time.
struct Workload {
    def: usize,
    /// Its name in Iometer.
    name: String,
    ident: String,
    text: String,
    think: Option<(u64, u64)>,
}

/// Each used specification as a workload, by the .icf import's rules; a
/// refusal of one that a run used names the run.
fn workloads(
    input: &ResultsFile<'_>,
    defs: &[SpecDef],
    used: &[usize],
    runs: &[Located<'_>],
) -> Result<Vec<Workload>, RunError> {
    let mut taken: HashSet<String> = HashSet::from([QD_VAR.to_string()]);
    let mut out = Vec::new();
    for &d in used {
        let def = &defs[d];
        let used_at =
            runs.iter().find(|r| r.shape.workers.iter().any(|w| w.spec == d)).map_or(0, |r| r.shape.run.line);
        if let Some(other) =
            defs.iter().find(|o| o.line > def.line && o.name == def.name && o.access != def.access)
        {
            return Err(RunError::new(format!(
                "{}: access specification \"{}\" is defined at line {} and again, with other lines, at line {}: \
                 the file holds tests of two specifications of that name",
                input.file,
                def.name,
                def.line + 1,
                other.line + 1
            ))
            .hint("import each test on its own: split the file at its 'Test Type lines"));
        }
        let icf_name =
            def.text.get(1).map_or("", |v| v.trim().split_once(',').map_or(v.trim(), |(n, _)| n.trim()));
        let text = icf_of(def, icf_name);
        let imported = crate::iometer::to_method(&Input {
            text: &text,
            file: input.file,
            name: input.name,
            vars: &[],
            include: &|_| Err("an access specification includes no file".into()),
        })
        .map_err(|errors| {
            // The specification's own problems; the rest of the file is ours.
            let lines = def.line..def.line + def.text.len();
            let own: Vec<&crate::ImportError> = errors.iter().filter(|e| lines.contains(&e.line)).collect();
            let errors = if own.is_empty() { errors.iter().collect() } else { own };
            let said: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
            let e = RunError::new(format!(
                "{}: access specification \"{}\" (line {}), which the run at line {used_at} ran, cannot be a \
                 methodic workload by `methodic import iometer`'s rules: {}",
                input.file,
                def.name,
                def.line + 1,
                said.join("; ")
            ));
            match errors.iter().find_map(|e| e.hint.clone()) {
                Some(h) => e.hint(h),
                None => e,
            }
        })?;
        // The .icf import names a file's only specification as here the
        // first; the file's others may take the name before it.
        let alone = ident(icf_name, "spec", &mut HashSet::from([QD_VAR.to_string()]));
        let name = ident(&def.name, "spec", &mut taken);
        let Some(body) = workload_text(&imported.text, &alone, &name) else {
            return Err(RunError::new(format!(
                "{}: bug in methodic import: `methodic import iometer` made no workload `{alone}` of access \
                 specification \"{}\" (line {})",
                input.file,
                def.name,
                def.line + 1
            )));
        };
        out.push(Workload { def: d, name: def.name.clone(), ident: name, text: body, think: def.think });
    }
    Ok(out)
}

/// An .icf file of the one access specification `def`, run by a worker
/// as the results say it was (so that the .icf import holds it to the
/// rules of a specification a worker runs, not of one merely listed); the
/// specification at the lines it has in the results file (blank lines
/// before it, which the import passes over), so that its comments and
/// refusals name those lines. `icf_name` is its name as the .icf reader
/// reads the name line.
fn icf_of(def: &SpecDef, icf_name: &str) -> String {
    let mut out = String::from("Version 1.1.0\n");
    for _ in 3..def.line {
        out.push('\n');
    }
    out.push_str("'ACCESS SPECIFICATIONS =========================================================\n");
    for l in &def.text {
        out.push_str(l);
        out.push('\n');
    }
    out.push_str("'END access specifications\n");
    out.push_str(
        "'TEST SETUP ====================================================================\n\
         'Run Time\n'\thours      minutes    seconds\n\t0          1          0\n\
         'Test Type\n\tNORMAL\n'END test setup\n\
         'MANAGER LIST ==================================================================\n\
         'Manager ID, manager name\n\t1,RESULTS\n'Manager network address\n\t\n\
         'Worker\n\tWorker 1\n'Worker type\n\tDISK\n\
         'Default target settings for worker\n\
         'Number of outstanding IOs,test connection rate,transactions per connection,use fixed seed,fixed seed value\n\
         \t1,DISABLED,1,DISABLED,0\n\
         'Disk maximum size,starting sector,Data pattern\n\t0,0,2\n\
         'End default target settings for worker\n'Assigned access specs\n",
    );
    out.push_str(&format!("\t{icf_name}\n"));
    out.push_str(
        "'End assigned access specs\n'Target assignments\n'Target\n\tDISK1\n'Target type\n\tDISK\n\
         'End target\n'End target assignments\n'End worker\n'End manager\n'END manager list\nVersion 1.1.0\n",
    );
    out
}

/// The comments and statement of the workload `alone` in the .icf
/// import's methodology `text`, renamed `name`; `None` when it has no such
/// workload.
fn workload_text(text: &str, alone: &str, name: &str) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let head = format!("workload {alone} ");
    let at = lines.iter().position(|l| l.starts_with(&head))?;
    let first = lines[..at].iter().rposition(|l| !l.starts_with('#')).map_or(0, |k| k + 1);
    // The statement: up to the line where its braces close.
    let mut depth = 0i64;
    let mut last = at;
    for (k, l) in lines.iter().enumerate().skip(at) {
        depth += l.matches('{').count() as i64 - l.matches('}').count() as i64;
        last = k;
        if depth <= 0 {
            break;
        }
    }
    let mut out: Vec<String> = lines[first..=last].iter().map(|l| l.to_string()).collect();
    let k = at - first;
    out[k] = format!("workload {name} {}", &lines[at][head.len()..]);
    Some(out.join("\n"))
}

/// `workload x { ...; offset 1MiB }`: the offset added to a workload's
/// statement.
fn with_offset(text: &str, ident: &str, offset: u64) -> String {
    let head = format!("workload {ident} {{");
    let Some(start) = text.find(&head) else { return text.to_string() };
    let mut depth = 0usize;
    for (k, c) in text[start..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    let at = start + k;
                    let body = text[..at].trim_end();
                    return format!("{body}; offset {} {}", Bytes(offset), &text[at..]);
                }
            }
            _ => {}
        }
    }
    text.to_string()
}

/// `for 30s`: a run time of whole seconds as Iometer's run time is set
/// (its recorded time is a few ticks more), or milliseconds below one.
fn length(seconds: f64) -> Duration {
    let whole = seconds.round();
    if whole >= 1.0 {
        Duration::from_secs(whole as u64)
    } else {
        Duration::from_millis(((seconds * 1000.0).round() as u64).max(1))
    }
}

/// The methodology's source: header comments, the target, the workloads
/// and a step a run.
fn methodology(
    input: &ResultsFile<'_>,
    tests: &[&ResultsTest],
    runs: &[Located<'_>],
    workloads: &[Workload],
    devices: &Devices,
) -> String {
    let mut out = format!(
        "# Imported from {} by methodic {} (`methodic import iometer`, a results file).\n",
        one_line(input.file),
        env!("CARGO_PKG_VERSION")
    );
    let version = tests.iter().find_map(|t| t.version.as_deref()).unwrap_or("(version not stated)");
    out.push_str(&comment(
        &format!(
            "Iometer {}'s results: {}, {}. A step a run of Iometer's, at the outstanding I/Os, workers and \
             targets its WORKER and DISK rows state, for its run time; its numbers are the results directory's.",
            one_line(version),
            crate::finish::count(tests.len(), "test"),
            crate::finish::count(runs.len(), "run"),
        ),
        WIDTH,
    ));
    out.push_str(&devices_text(devices));
    out.push_str(&format!("methodology {} version \"1.0\"\n", quote(input.name)));
    let description = match tests {
        [one] if !one.description.trim().is_empty() => one.description.trim().to_string(),
        _ => format!("Iometer's results in {}: {}", input.file, crate::finish::count(runs.len(), "run")),
    };
    out.push_str(&format!("describe {}\n\n", quote(&description)));
    out.push_str("# Iometer counts outstanding I/Os per worker (per target of a worker).\n");
    out.push_str("conventions {\n  units decimal\n  queue_depth per_worker\n  value step_average\n}\n\n");
    out.push_str("# Iometer's I/O is unbuffered (O_DIRECT on Linux, FILE_FLAG_NO_BUFFERING on Windows).\n");
    out.push_str(
        "# Its data pattern is not in its results: `data` is methodic's default here, and not stated.\n",
    );
    let (start, size) = runs.first().map_or((0, 0), |r| (r.shape.start, r.shape.size));
    let span = if size == 0 { "100%".to_string() } else { Bytes((start + size) * SECTOR).to_string() };
    if size > 0 || start > 0 {
        out.push_str(&comment(
            &format!(
                "Disk maximum size {size} and starting sector {start}: Iometer counts them in the target's \
                 sectors; 512 bytes here, so I/O from {} to {} (on a drive of 4KiB sectors, multiply by 8).",
                Bytes(start * SECTOR),
                if size == 0 { "the end".to_string() } else { Bytes((start + size) * SECTOR).to_string() }
            ),
            WIDTH,
        ));
    }
    let most = runs.iter().map(|r| pairs(&r.shape)).max().unwrap_or(1);
    out.push_str(&format!("target {{ span {span}; workers {most}; io direct }}\n\n"));
    for w in workloads {
        let text = if start > 0 { with_offset(&w.text, &w.ident, start * SECTOR) } else { w.text.clone() };
        out.push_str(&text);
        out.push('\n');
    }
    let mut last_test = None;
    for r in runs {
        let test = tests[r.test];
        if last_test != Some(r.test) {
            last_test = Some(r.test);
            out.push('\n');
            out.push_str(&comment(&test_words(r.test, test), WIDTH));
        }
        out.push('\n');
        out.push_str(&comment(&run_words(r, workloads, devices), WIDTH));
        out.push_str(&step_text(&r.shape, workloads, most, devices.names.len() > 1));
        out.push('\n');
    }
    out
}

/// The devices, by the targets Iometer names, and how to run the
/// methodology on them, in the .icf import's words.
fn devices_text(devices: &Devices) -> String {
    crate::iometer::writer::devices(&devices.names)
}

/// `Test 1 (line 1): "...", CYCLE_OUTSTANDING_IOS, Iometer 1.1.0, started ...`.
fn test_words(k: usize, t: &ResultsTest) -> String {
    let kind = match t.test_type {
        Some(code) => match TEST_TYPES.get(code as usize) {
            Some(word) => (*word).to_string(),
            None => format!("test type {code}"),
        },
        None => "test type not stated".to_string(),
    };
    let mut s = format!("Test {} (line {}): ", k + 1, t.line);
    if !t.description.trim().is_empty() {
        s.push_str(&format!("{}, ", quote(t.description.trim())));
    }
    s.push_str(&kind);
    if let Some(v) = &t.version {
        s.push_str(&format!(", Iometer {}", one_line(v)));
    }
    if let Some(at) = &t.started {
        s.push_str(&format!(", started {}", one_line(at)));
    }
    s.push_str(&format!(": {}.", crate::finish::count(t.runs.len(), "run")));
    s
}

/// What a run's rows say: who ran what where, and for how long.
fn run_words(r: &Located<'_>, workloads: &[Workload], devices: &Devices) -> String {
    let s = &r.shape;
    let each: Vec<String> = s
        .workers
        .iter()
        .map(|w| {
            let spec = workloads.iter().find(|l| l.def == w.spec).map_or("", |l| l.name.as_str());
            let on: Vec<String> = w
                .targets
                .iter()
                .map(|(_, d)| devices.names.get(*d).map_or(String::new(), |n| one_line(n)))
                .collect();
            format!(
                "\"{}\" runs \"{}\" at {} on {}",
                one_line(&w.row.name),
                one_line(spec),
                methodic_compiler::plan::plural(w.qd, "outstanding I/O", "outstanding I/Os"),
                on.join(" and ")
            )
        })
        .collect();
    let how = if s.raw_time {
        "its workers' Total Raw Run Time over their Processor Speed"
    } else {
        "the ALL row's I/Os over its IOPS"
    };
    let mut words = format!(
        "Run {} (results at line {}): {}; recorded {:.3} s ({how})",
        r.run + 1,
        s.run.line,
        each.join(", "),
        s.seconds
    );
    if let Some(end) = &s.run.ended {
        words.push_str(&format!(", ended {}", one_line(end)));
    }
    words.push('.');
    words
}

/// The methodic workers of a run: a worker on each of its targets.
fn pairs(s: &Shape<'_>) -> u64 {
    s.workers.iter().map(|w| w.targets.len() as u64).sum()
}

/// Workers of a run that do the same: one specification at one depth on
/// one device (a worker on each of an Iometer worker's targets).
struct Job<'a> {
    /// The first of them, whose name the job takes.
    first: &'a WorkerAt<'a>,
    spec: usize,
    qd: u64,
    device: usize,
    workers: u64,
}

/// The run's workers as jobs, in the order of their first worker.
fn jobs<'a>(workers: &'a [WorkerAt<'a>]) -> Vec<Job<'a>> {
    let mut out: Vec<Job<'a>> = Vec::new();
    for w in workers {
        for (_, device) in &w.targets {
            match out.iter_mut().find(|j| j.spec == w.spec && j.qd == w.qd && j.device == *device) {
                Some(j) => j.workers += 1,
                None => out.push(Job { first: w, spec: w.spec, qd: w.qd, device: *device, workers: 1 }),
            }
        }
    }
    out
}

/// The run as a step: a measurement when its workers run one workload at
/// one depth on the first device, else a together step of a job each
/// (the .icf import's rule).
fn step_text(s: &Shape<'_>, workloads: &[Workload], target_workers: u64, several_devices: bool) -> String {
    let jobs: Vec<(&WorkerAt<'_>, usize, u64, usize, u64)> = jobs(&s.workers)
        .into_iter()
        .filter_map(|j| {
            Some((j.first, workloads.iter().position(|l| l.def == j.spec)?, j.qd, j.device, j.workers))
        })
        .collect();
    let length = length(s.seconds);
    let think = |l: usize| {
        workloads[l].think.map_or(String::new(), |(ms, every)| {
            format!(" think {} every {every}", Duration::from_millis(ms))
        })
    };
    if let [(_, l, qd, 0, n)] = jobs.as_slice() {
        let workers = if *n == target_workers { String::new() } else { format!(" workers {n}") };
        return format!("measure {} qd {qd}{workers} for {length}{}", workloads[*l].ident, think(*l));
    }
    let mut taken = HashSet::new();
    let mut out = format!("together for {length} {{\n");
    for (w, l, qd, device, n) in &jobs {
        let device = if several_devices { format!(" device {}", device + 1) } else { String::new() };
        out.push_str(&format!(
            "  job {} {} qd {qd} workers {n}{}{device}\n",
            ident(&w.row.name, "spec", &mut taken),
            workloads[*l].ident,
            think(*l)
        ));
    }
    out.push('}');
    out
}

/// Each job's numbers (the DISK rows of its workers on its device,
/// added up), in the order of [`jobs`], the together step's job order;
/// empty when the parts were not read. The parts hold, a worker at a time,
/// the WORKER row and then each of its DISK rows.
fn job_parts(s: &Shape<'_>) -> Vec<Part> {
    let mut disk: Vec<(usize, usize, &Part)> = Vec::new();
    let mut at = 0;
    for w in &s.workers {
        at += 1;
        for (_, device) in &w.targets {
            let Some(p) = s.parts.get(at) else { return Vec::new() };
            disk.push((w.number, *device, p));
            at += 1;
        }
    }
    jobs(&s.workers)
        .iter()
        .map(|j| {
            let of: Vec<&Part> = s
                .workers
                .iter()
                .filter(|w| w.spec == j.spec && w.qd == j.qd)
                .flat_map(|w| disk.iter().filter(move |(n, d, _)| *n == w.number && *d == j.device))
                .map(|(_, _, p)| *p)
                .collect();
            let reads: Vec<&Direction> = of.iter().filter_map(|p| p.read.as_ref()).collect();
            let writes: Vec<&Direction> = of.iter().filter_map(|p| p.write.as_ref()).collect();
            Part { name: format!("worker {}", j.first.number), read: merged(&reads), write: merged(&writes) }
        })
        .collect()
}

/// A step's numbers: the ALL row's, each WORKER and DISK row a part; the
/// span when the workers were given a disk size.
fn step(s: &Shape<'_>) -> ImportedStep {
    ImportedStep {
        jobs: job_parts(s),
        total_latency: None,
        series: None,
        read: s.read.clone(),
        write: s.write.clone(),
        trim: None,
        error: s.error.clone(),
        // The disk size the workers were given: the bytes they covered
        // (of a capacity the results do not state); 0 is the whole disk,
        // whose size is not stated either.
        span: (s.size > 0).then(|| (format!("Maximum Size {} sectors", s.size), s.size * SECTOR, 0)),
        not_stated: Vec::new(),
        computed: Some(COMPUTED.to_string()),
        parts: s.parts.clone(),
    }
}

/// What was worked out rather than read, and what was left out.
fn notes(
    tests: &[&ResultsTest],
    runs: &[Located<'_>],
    cpus: Option<usize>,
    workloads: &[Workload],
) -> Vec<String> {
    let mut out = Vec::new();
    let versions: Vec<&str> = tests.iter().filter_map(|t| t.version.as_deref()).collect();
    if let Some(v) = versions.first() {
        out.push(format!("written by Iometer {v}"));
    }
    if tests.len() > 1 {
        let started: Vec<String> =
            tests.iter().map(|t| t.started.clone().unwrap_or_else(|| "not stated".into())).collect();
        out.push(format!(
            "the file holds {} (Iometer appends to its results file), started {}: `ran` is the first's",
            crate::finish::count(tests.len(), "test"),
            started.join(", ")
        ));
        let mut seen: Vec<&str> = Vec::new();
        for v in &versions {
            if !seen.contains(v) {
                seen.push(v);
            }
        }
        if seen.len() > 1 {
            out.push(format!(
                "its tests were written by Iometer {}: the note's version is the first's",
                seen.join(", ")
            ));
        }
    }
    out.push(format!(
        "the plan is the test the results state: a step for each of Iometer's runs ({}), at the outstanding \
         I/Os and on the targets of its WORKER and DISK rows; the access specifications the runs used ({}) \
         are workloads by `methodic import iometer`'s rules",
        runs.len(),
        workloads.len(),
    ));
    let raw = runs.iter().filter(|r| r.shape.raw_time).count();
    if raw > 0 {
        out.push(format!(
            "run time: {} of {} from the WORKER rows' Total Raw Run Time (timer ticks) over their Processor \
             Speed (the timer's ticks a second, not the CPU's), the longest worker's; each step's `for` is it \
             rounded to whole seconds",
            raw,
            crate::finish::count(runs.len(), "run")
        ));
    }
    if raw < runs.len() {
        out.push(format!(
            "run time: {} of {} worked out as the ALL row's I/Os over its IOPS (the rows state no raw run \
             time); each step's `for` is it rounded to whole seconds",
            runs.len() - raw,
            crate::finish::count(runs.len(), "run")
        ));
    }
    out.push("ramp up: not in Iometer's results; the steps have none".into());
    if runs.iter().any(|r| r.shape.size > 0 || r.shape.start > 0) {
        out.push(
            "span and offset: the workers' Maximum Size and Starting Sector, in sectors taken as 512 bytes (as \
             `methodic import iometer` takes them); the disk's capacity is not stated"
                .into(),
        );
    }
    out.push(
        "numbers: each run's ALL row (every worker together); its WORKER and DISK rows are the step's parts \
         (a DISK row's own I/Os, rates and response times; its raw latency sums and bins are its worker's, as \
         Iometer writes them)"
            .into(),
    );
    out.extend(latency_notes(runs));
    if runs.iter().any(|r| r.shape.run.rows.iter().any(|x| x.kind == RowKind::Manager)) {
        out.push(
            "MANAGER rows: only the manager's name is read (the host's name); with one manager their numbers \
             are the ALL row's"
                .into(),
        );
    }
    if let Some(n) = cpus {
        out.push(format!(
            "the manager's {} (PROCESSOR rows) and their utilization: not carried over",
            crate::finish::count(n, "CPU")
        ));
    }
    if runs.iter().any(|r| r.shape.error.is_some()) {
        out.push(
            "a run with I/O errors (the ALL row's Errors) is a failed step, the errors in its words".into(),
        );
    }
    out
}

/// What the steps' latency is: Iometer's mean and maximum, and its bins
/// where they were kept (and why not elsewhere).
fn latency_notes(runs: &[Located<'_>]) -> Vec<String> {
    let mut latency =
        "latency: Iometer's average and maximum response time of each direction (milliseconds, \
                       made nanoseconds); Iometer gives no minimum and no percentiles"
            .to_string();
    let binned =
        runs.iter().filter(|r| r.shape.read.iter().chain(&r.shape.write).any(|d| !d.bins.is_empty())).count();
    if binned > 0 {
        latency.push_str(&format!(
            "; for {binned} of the runs, percentiles and the minimum read off Iometer's latency bins, each bin \
             by its upper bound, at most the stated maximum (as coarse as the bins: 50 us, 100 us, 200 us, \
             500 us, 1 ms ...)"
        ));
    }
    let mut out = vec![latency];
    for r in runs {
        if let Some(why) = &r.shape.bins_left_out {
            let said = format!("latency bins left out where {why}");
            if !out.contains(&said) {
                out.push(said);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::iometer::results::IometerResults;

    /// Iometer 1.1.0's results of a CYCLE_OUTSTANDING_IOS test at depths
    /// 1 and 2, one worker on one disk, a 70% read specification.
    const FILE: &str = include_str!("../../../tests/iometer/results-1.1.0.csv");
    /// Iometer 1.1.0's results of a NORMAL test: two workers, each on a
    /// disk of its own running its own read-only specification, written
    /// as Iometer 1.1.0's `SaveResults` functions write them (MANAGER rows
    /// at full width, default assignments as numbers).
    const TWO: &str = include_str!("../../../tests/iometer/results-two-disks-1.1.0.csv");

    fn run(text: &str) -> ImportedRun {
        iometer_run(&ResultsFile { text, file: "results.csv", name: "results" }).unwrap_or_else(|e| {
            panic!("{} ({})", e.text, e.hint.unwrap_or_default());
        })
    }

    fn refused(text: &str) -> RunError {
        iometer_run(&ResultsFile { text, file: "results.csv", name: "results" }).unwrap_err()
    }

    fn all_rows(r: &IometerResults) -> Vec<&ResultsRow> {
        r.tests.iter().flat_map(|t| &t.runs).map(|run| &run.rows[0]).collect()
    }

    /// The plan's steps with I/O, by kind.
    fn kinds(r: &ImportedRun) -> Vec<&'static str> {
        r.plan
            .steps
            .iter()
            .map(|s| s.action.kind())
            .filter(|k| matches!(*k, "measure" | "together"))
            .collect()
    }

    #[test]
    fn each_run_is_a_step_of_its_all_row() {
        let r = run(FILE);
        let read = read_results(FILE).unwrap();
        let alls = all_rows(&read);
        assert_eq!(r.steps.len(), alls.len());
        assert_eq!(kinds(&r), ["measure", "measure"], "{}", r.methodology);
        for (step, all) in r.steps.iter().zip(&alls) {
            assert_eq!(all.kind, RowKind::All);
            let (rd, wr) = (step.read.as_ref().unwrap(), step.write.as_ref().unwrap());
            assert_eq!((Some(rd.ios), Some(wr.ios)), (all.reads, all.writes));
            assert_eq!((Some(rd.bytes), Some(wr.bytes)), (all.bytes_read, all.bytes_written));
            assert_eq!((Some(rd.iops), Some(wr.iops)), (all.read_iops, all.write_iops));
            let mean = |d: &Direction| d.latency.as_ref().unwrap().mean.unwrap() / 1e6;
            assert_eq!((Some(mean(rd)), Some(mean(wr))), (all.read_mean_ms, all.write_mean_ms));
            let max = |d: &Direction| d.latency.as_ref().unwrap().max.unwrap() / 1e6;
            assert_eq!(Some(max(rd).max(max(wr))), all.max_ms);
            let mb = (rd.bytes_per_second + wr.bytes_per_second) / 1e6;
            assert!((mb - all.mb_s.unwrap()).abs() < 1e-6, "{mb}");
            assert_eq!(rd.seconds, 30.0, "Total Raw Run Time over Processor Speed");
            assert!(rd.bins.is_empty() && wr.bins.is_empty(), "the bins count reads and writes together");
            assert!(step.computed.as_deref().unwrap().contains("Worker.cpp"));
            assert!(step.error.is_none() && step.span.is_none());
        }
        assert!(
            r.methodology.contains("measure spec_4_kib_random_70_read qd 1 for 30s\n"),
            "{}",
            r.methodology
        );
        assert!(
            r.methodology.contains("measure spec_4_kib_random_70_read qd 2 for 30s\n"),
            "{}",
            r.methodology
        );
        assert!(
            r.methodology.contains("workload spec_4_kib_random_70_read { random; block 4KiB; read 70% }")
        );
    }

    #[test]
    fn the_all_row_is_the_step_and_the_others_its_parts() {
        let text = FILE.replacen(
            "ALL,All,4 KiB random 70% read,1,1,1,10000.000000,7000.000000",
            "ALL,All,4 KiB random 70% read,1,1,1,10000.000000,7111.000000",
            1,
        );
        assert_ne!(text, FILE, "the fixture's ALL row is where the test expects it");
        let r = run(&text);
        let s = &r.steps[0];
        assert_eq!(s.read.as_ref().unwrap().iops, 7111.0, "the ALL row's Read IOps, not its worker's");
        assert_eq!(s.parts[0].read.as_ref().unwrap().iops, 7000.0);
        let names: Vec<&str> = s.parts.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["worker 1 (Worker 1)", "worker 1 on target 1 (1: \"ATA EXAMPLE-SSD 1.0\")"]);
        let worker = &s.parts[0];
        assert_eq!(worker.read.as_ref().unwrap().ios, 210_000);
        assert_eq!(worker.write.as_ref().unwrap().latency.as_ref().unwrap().max, Some(3.2e6));
    }

    #[test]
    fn the_note_says_what_the_file_states() {
        let r = run(FILE);
        let n = &r.note;
        assert_eq!(
            (n.tool.as_str(), n.version.as_deref(), n.format.as_str()),
            ("Iometer", Some("1.1.0"), "results CSV")
        );
        assert_eq!(n.ran.as_deref(), Some("2026-12-06 21:00:00:123"));
        assert_eq!(n.targets, ["1: \"ATA EXAMPLE-SSD 1.0\""]);
        for f in ["host", "drive state", "data pattern"] {
            assert!(n.not_stated.iter().any(|x| x == f), "{f}: {:?}", n.not_stated);
        }
        assert_eq!(r.host.hostname.as_deref(), Some("BENCH-HOST"));
        assert!(n.notes.iter().any(|x| x.starts_with("run time: 2 of 2 runs")), "{:?}", n.notes);
        assert!(n.notes.iter().any(|x| x.contains("reads and writes together")), "{:?}", n.notes);
        assert!(n.notes.iter().any(|x| x.contains("1 CPU")), "{:?}", n.notes);
        assert!(r.engine.is_none());
    }

    #[test]
    fn workers_apart_are_a_together_step_and_one_way_bins_are_kept() {
        let r = run(TWO);
        let read = read_results(TWO).unwrap();
        let all = all_rows(&read)[0];
        assert_eq!(kinds(&r), ["together"], "{}", r.methodology);
        assert!(
            r.methodology.contains("job worker_1 spec_4_kib_random_read qd 4 workers 1 device 1"),
            "{}",
            r.methodology
        );
        assert!(
            r.methodology.contains("job worker_2 spec_128_kib_sequential_read qd 4 workers 1 device 2"),
            "{}",
            r.methodology
        );
        assert!(r.methodology.contains("together for 1min {"), "{}", r.methodology);
        let s = &r.steps[0];
        assert!(s.write.is_none());
        let rd = s.read.as_ref().unwrap();
        assert_eq!(Some(rd.ios), all.reads);
        assert_eq!(rd.bins.iter().map(|b| b.1).sum::<u64>(), all.reads.unwrap());
        assert_eq!(rd.bins[0], (100_000, 1_500_000), "50 to 100 uS by its upper bound");
        assert_eq!(rd.bins.last(), Some(&(8_000_000, 5)), "5 to 10 mS, but no I/O took over 8 ms");
        assert!((rd.seconds - 60.0012345).abs() < 1e-9, "{}", rd.seconds);
        assert_eq!(s.parts.len(), 4);
        assert_eq!(r.note.targets.len(), 2);
        // The together step's jobs: each worker's DISK row, in job order,
        // adding up to the ALL row.
        let jobs: Vec<u64> = s.jobs.iter().map(|j| j.read.as_ref().unwrap().ios).collect();
        assert_eq!(jobs.len(), 2);
        assert_eq!(Some(jobs.iter().sum::<u64>()), all.reads);
        let summary = s.summary();
        assert!((summary.read.unwrap().latency_us.p50 - 100.0).abs() < 0.2, "read off the bins");
    }

    #[test]
    fn foreign_and_broken_files_are_refused_with_the_file_and_a_hint() {
        for text in ["[global]\nrw=read\n", "", "Version 1.1.0\n'TEST SETUP\n"] {
            let e = refused(text);
            assert!(e.text.starts_with("results.csv: "), "{}", e.text);
            assert!(e.hint.is_some());
        }
        let e = refused(&FILE.replacen("10000.000000", "many", 1));
        assert!(e.text.starts_with("results.csv: line 15: "), "{}", e.text);
        // No worker rows: Record Results other than ALL.
        let text: String = FILE
            .split_inclusive('\n')
            .filter(|l| !l.starts_with("WORKER") && !l.starts_with("DISK"))
            .collect();
        let e = refused(&text);
        assert!(e.text.contains("no WORKER rows"), "{}", e.text);
        assert!(e.hint.unwrap().contains("Record Results ALL"));
        // A specification the .icf import refuses, by its line.
        let e = refused(&FILE.replacen("4096,100,70,100,0,1,4096,0,", "4096,100,70,100,0,1,4096,512,", 1));
        assert!(e.text.contains("reply 512") && e.text.contains("results.csv:11"), "{}", e.text);
    }

    /// Every cut of the files, by lines and every 29 bytes, and each line
    /// left out: a run or a refusal naming the file, never a panic (what
    /// the fuzz target checks).
    #[test]
    fn every_cut_and_edit_is_imported_or_refused() {
        for file in [FILE, TWO] {
            let lines: Vec<&str> = file.split_inclusive('\n').collect();
            let mut texts: Vec<String> = Vec::new();
            for n in 0..=lines.len() {
                texts.push(lines[..n].concat());
                if n < lines.len() {
                    let mut without = lines.clone();
                    without.remove(n);
                    texts.push(without.concat());
                }
            }
            for cut in (0..=file.len()).step_by(29) {
                texts.push(String::from_utf8_lossy(&file.as_bytes()[..cut]).into_owned());
            }
            for text in &texts {
                match iometer_run(&ResultsFile { text, file: "cut.csv", name: "cut" }) {
                    Ok(r) => assert_eq!(kinds(&r).len(), r.steps.len()),
                    Err(e) => {
                        assert!(e.text.starts_with("cut.csv: "), "{}", e.text);
                        assert!(!e.text.contains("bug in methodic import"), "{}\n{text}", e.text);
                    }
                }
            }
        }
    }

    #[test]
    fn bin_names_are_read_as_their_upper_bounds() {
        assert_eq!(bin_bound("0 to 50 uS"), Some(50_000));
        assert_eq!(bin_bound("0.5 to 1 mS"), Some(1_000_000));
        assert_eq!(bin_bound("2 to 4.7 s"), Some(4_700_000_000));
        assert_eq!(bin_bound(" >= 10 s"), Some(10_000_000_000));
        assert_eq!(bin_bound("Queue Depth"), None);
    }

    #[test]
    fn delay_burst_and_the_starting_sector_are_the_job_import_s() {
        let text = FILE
            .replacen("4096,100,70,100,0,1,4096,0,", "4096,100,70,100,10,4,4096,0,", 1)
            .replace("300000000,0,0,", "300000000,2048,2097152,");
        let r = run(&text);
        assert_eq!(r.steps[0].span, Some(("Maximum Size 2097152 sectors".to_string(), 1 << 30, 0)));
        assert!(r.methodology.contains("span 1025MiB"), "{}", r.methodology);
        assert!(run(FILE).steps[0].span.is_none(), "the whole disk, of a size not stated");
        assert!(
            r.methodology.contains("measure spec_4_kib_random_70_read qd 1 for 30s think 10ms every 4"),
            "{}",
            r.methodology
        );
        assert!(r.methodology.contains("read 70%; offset 1MiB }"), "{}", r.methodology);
        assert!(r.methodology.contains("starting sector 2048"), "{}", r.methodology);
        assert!(
            r.methodology.contains("- delay 10ms, burst 4"),
            "the .icf import's comment: {}",
            r.methodology
        );
    }

    #[test]
    fn appended_tests_are_steps_in_file_order() {
        let text = format!("{FILE}{TWO}");
        let r = run(&text);
        assert_eq!(kinds(&r), ["measure", "measure", "together"], "{}", r.methodology);
        assert_eq!(r.steps.len(), 3);
        assert_eq!(r.note.ran.as_deref(), Some("2026-12-06 21:00:00:123"), "the first test's");
        assert!(r.note.notes.iter().any(|n| n.starts_with("the file holds 2 tests")), "{:?}", r.note.notes);
        assert_eq!(r.note.targets.len(), 2, "{:?}", r.note.targets);
        assert!(r.methodology.contains("# Test 2 (line 31)"), "{}", r.methodology);
    }

    #[test]
    fn what_a_methodology_cannot_be_is_refused_at_its_line() {
        let manager = FILE.lines().find(|l| l.starts_with("MANAGER")).unwrap();
        let e = refused(&FILE.replacen(
            manager,
            &format!("{manager}\r\n{}", manager.replacen("BENCH-HOST", "OTHER-HOST", 1)),
            1,
        ));
        assert!(e.text.starts_with("results.csv: line 17: a second manager, \"OTHER-HOST\""), "{}", e.text);
        let e = refused(&FILE.replacen("DISK,1: ", "NETWORK,1: ", 1));
        assert!(e.text.contains("a network target"), "{}", e.text);
        let e =
            refused(&FILE.replacen("WORKER,Worker 1,4 KiB random 70% read", "WORKER,Worker 1,Database", 1));
        assert!(e.text.contains("\"Database\", which no 'Access specifications list"), "{}", e.text);
        let e = refused(&FILE.replacen("4096,100,70,100,0,1,4096,0,", "4096,90,70,100,0,1,4096,0,", 1));
        assert!(e.text.contains("add up to 90"), "{}", e.text);
    }
}
