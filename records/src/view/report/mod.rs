//! The report of one results directory: the run read and its points in,
//! out the view every format of `methodic report` draws from: the result
//! table's columns and rows (each number with the job that made it), what
//! the value columns hold, each sweep's best step, and the files of the
//! run that could not be read (`StepFiles`: every format names them, and
//! the charts they would have drawn say so). The header (platform,
//! device, setup) is in [`header`], what the numbers say beyond their
//! averages in [`findings`], the HTML page's charts in [`charts`], the jobs
//! run at once, open-loop rates and QoS searches in [`loads`], each
//! step's devices, workers and bursts in [`spread`], each host of a run
//! on many hosts in [`hosts`]; the exporters
//! (`crate::export`) write it as a table, Markdown, CSV, JSON or HTML.

pub mod charts;
pub mod findings;
pub mod header;
pub mod hosts;
pub mod latency;
pub mod loads;
pub mod matrix;
pub mod pts;
pub mod spread;

use methodic_compiler::plan::{Conventions, QosAxis, ValueKind};

use crate::manifest::{self, Loaded};
use crate::step_files::{StepFiles, Unreadable};
use crate::units::{human, num};
use crate::view::points::{Point, interval_words, kind_short, points, rate_unit, step_of, sweep_bests};

/// What `methodic report` shows: a results directory read, its numbers,
/// and the files its steps name, read back.
pub struct Report {
    pub(crate) run: Loaded,
    pub(crate) pts: Vec<Point>,
    pub(crate) files: StepFiles,
}

impl Report {
    /// A run read back, its points, and every file its step records
    /// name (series, rounds, probes, latency logs), read.
    pub fn new(run: Loaded) -> Report {
        let pts = points(&run);
        let files = StepFiles::every(&run);
        Report { run, pts, files }
    }

    /// The run the report shows.
    pub fn run(&self) -> &Loaded {
        &self.run
    }

    /// One point a measured step (a rounds step: a point a measurement).
    pub fn points(&self) -> &[Point] {
        &self.pts
    }

    /// The files of the run that could not be read, in step order: what
    /// they hold is missing from the report, which every format says.
    pub fn unreadable(&self) -> &[Unreadable] {
        self.files.unreadable()
    }
}

/// The sentence that heads a list of `n` files that could not be read, in
/// every format: `2 files of this run could not be read, and what they
/// hold is missing from this report` (`of` this run, `from` this report).
pub(crate) fn unreadable_line(n: usize, of: &str, from: &str) -> String {
    format!(
        "{} of {of} could not be read, and what {} is missing from {from}",
        if n == 1 { "1 file".to_string() } else { format!("{n} files") },
        if n == 1 { "it holds" } else { "they hold" }
    )
}

/// The columns of every result table: IOPS and RATE are the reported
/// value, OTHER IOPS and OTHER RATE the kind kept beside it.
const COLUMNS: [&str; 14] = [
    "#",
    "step",
    "workload",
    "QD",
    "IOPS",
    "RATE",
    "OTHER IOPS",
    "OTHER RATE",
    "mean us",
    "p99 us",
    "drive state",
    "span",
    "value",
    "notes",
];

/// The columns, the rate in the run's units and each value column named by
/// its kind: `IOPS (peak)`, `MB/s (peak)`, `IOPS (avg)`, `MB/s (avg)`.
pub(crate) fn columns(c: &Conventions) -> Vec<String> {
    let (head, other) = (kind_short(c.value), kind_short(beside(c.value)));
    let rate = rate_unit(c.units);
    COLUMNS
        .iter()
        .map(|col| match *col {
            "IOPS" => format!("IOPS ({head})"),
            "RATE" => format!("{rate} ({head})"),
            "OTHER IOPS" => format!("IOPS ({other})"),
            "OTHER RATE" => format!("{rate} ({other})"),
            _ => col.to_string(),
        })
        .collect()
}

/// The value kind shown beside the reported one: the step average beside a
/// peak, the peak beside an average.
pub(crate) fn beside(kind: ValueKind) -> ValueKind {
    if kind == ValueKind::Peak { ValueKind::StepAverage } else { ValueKind::Peak }
}

/// What the value columns hold, in a sentence: the convention's value and
/// how it is made, and the kind kept beside it.
pub(crate) fn value_line(run: &Loaded, pts: &[Point]) -> String {
    let c = &run.manifest.plan.conventions;
    let rate = rate_unit(c.units);
    let mut intervals: Vec<String> =
        pts.iter().filter_map(|p| p.peak_interval_s).map(interval_words).collect();
    intervals.sort();
    intervals.dedup();
    let interval = match intervals.as_slice() {
        [] => "best series interval (none recorded in these results)".to_string(),
        [one] => format!("best {one} interval"),
        many => format!("best series interval ({})", many.join(", ")),
    };
    match c.value {
        ValueKind::Peak => format!(
            "IOPS (peak) and {rate} (peak) are peaks: each step's {interval} of its record window (a \
             rounds measurement: its best round; a copy has no intervals: its average); beside them, IOPS (avg) \
             and {rate} (avg) are the step averages"
        ),
        ValueKind::StepAverage => format!(
            "IOPS (avg) and {rate} (avg) are step averages over each step's record window (a rounds \
             measurement: the average of its window's rounds); beside them, IOPS (peak) and {rate} (peak) are \
             each step's {interval} (a rounds measurement: its best round)"
        ),
        ValueKind::SteadyStateAverage => format!(
            "IOPS (steady) and {rate} (steady) are steady-state averages: a rounds measurement's window \
             rounds, a precondition until steady's last window (of the metric its rule tracks); a measurement, \
             fill or copy has no window and gives its step average; beside them, IOPS (peak) and {rate} (peak) \
             are each step's {interval} (a rounds measurement: its best round)"
        ),
    }
}

/// Under `value peak`, each sweep's best step, as review charts show a
/// sweep: `sweep 2 rnd4k_read: best step QD 32 (measure/rnd4k_read-qd32):
/// 512345 IOPS, 2098.6 MB/s (peak)`.
pub(crate) fn best_lines(run: &Loaded, pts: &[Point]) -> Vec<String> {
    let units = run.manifest.plan.conventions.units;
    if run.manifest.plan.conventions.value != ValueKind::Peak {
        return Vec::new();
    }
    sweep_bests(pts)
        .into_iter()
        .map(|p| {
            format!(
                "sweep {} {}: best step QD {} ({}): {} IOPS, {} {} ({})",
                p.sweep.unwrap_or(0),
                p.workload.as_ref().map_or("-", |w| w.name.as_str()),
                p.qd.map_or(0, |q| q.total),
                p.id,
                num(p.iops, 0),
                num(Some(p.rate(units)), 1),
                rate_unit(units),
                p.value.words()
            )
        })
        .collect()
}

/// One row a point, as text.
pub(crate) fn rows(run: &Loaded, pts: &[Point], short: bool) -> Vec<Vec<String>> {
    rows_in(run, pts, short, num)
}

/// The columns of [`checklist`].
pub(crate) const CHECKLIST: [&str; 8] =
    ["#", "step", "drive state before", "span", "queue depth", "cache", "value", "data"];

/// How each result was made, a row a point: its step, id, drive state
/// before it, span, queue depth, cache, value and data, from its step's
/// checklist in the manifest.
pub(crate) fn checklist(run: &Loaded, pts: &[Point]) -> Vec<[String; 8]> {
    pts.iter()
        .filter_map(|p| {
            let c = &step_of(run, p)?.checklist;
            Some([
                p.step.to_string(),
                p.id.clone(),
                c.drive_state
                    .as_ref()
                    .map_or_else(|| unstated(run, step_of(run, p), "drive state"), |d| d.description.clone()),
                c.span.as_ref().map_or_else(|| unstated(run, step_of(run, p), "span"), |s| s.words()),
                c.queue_depth.as_ref().map_or("-".into(), |q| q.description.clone()),
                c.cache.description.clone(),
                format!("{}: {}", c.value_kind.kind.words(), c.value_kind.computed),
                c.data_pattern.map_or("-".into(), |d| d.to_string()),
            ])
        })
        .collect()
}

/// Where the drive state is among [`COLUMNS`].
const DRIVE_STATE: usize = 10;

/// The result table's rows in groups for a page: a group a phase, and a
/// new one where the drive state is set anew within a phase (an erase, a
/// fill, a precondition), each with the drive state said once above it
/// (so not in its rows), with what the group's steps themselves wrote:
/// steps that only wrote to the state before them stay in its group.
/// Figures carry thousands separators.
#[derive(serde::Serialize)]
pub(crate) struct RowGroup {
    pub phase: String,
    /// The drive state before the group's steps.
    pub state: String,
    pub rows: Vec<Vec<String>>,
}

/// The columns of [`grouped_rows`]: the result table's without the drive state.
pub(crate) fn grouped_columns(c: &Conventions) -> Vec<String> {
    let mut cols = columns(c);
    cols.remove(DRIVE_STATE);
    // The unit in the column head, in the page's words.
    cols.iter()
        .map(|h| match h.as_str() {
            "mean us" => "mean latency (µs)".to_string(),
            "p99 us" => "p99 latency (µs)".to_string(),
            _ => h.clone(),
        })
        .collect()
}

pub(crate) fn grouped_rows(run: &Loaded, pts: &[Point]) -> Vec<RowGroup> {
    // Each group with its points, and the state as set that keys it.
    let mut groups: Vec<(RowGroup, Vec<&Point>, String)> = Vec::new();
    for (p, mut row) in pts.iter().zip(rows_in(run, pts, false, crate::units::thousands)) {
        let said =
            Some(row.remove(DRIVE_STATE)).filter(|s| s != "-").unwrap_or_else(|| "not recorded".into());
        let set = step_of(run, p)
            .and_then(|s| s.checklist.drive_state.as_ref())
            .map_or(said.clone(), |d| d.as_set());
        let phase = p.phase.clone().unwrap_or_else(|| "steps".into());
        match groups.last_mut() {
            Some((g, points, key)) if g.phase == phase && *key == set => {
                g.rows.push(row);
                points.push(p);
            }
            _ => groups.push((RowGroup { phase, state: said, rows: vec![row] }, vec![p], set)),
        }
    }
    groups
        .into_iter()
        .map(|(mut g, points, _)| {
            if points.iter().any(|p| step_of(run, p).is_some()) {
                g.state = matrix::states(run, &points);
            }
            g
        })
        .collect()
}

/// On the last run made of a repeat `until cv`: `mean 1000 ± 12 IOPS,
/// 4 of 10 runs, cv 1.2% (within the 3% asked)`.
fn until_words(run: &Loaded, p: &Point) -> Option<String> {
    p.repeat?.until?;
    let record = run.steps.iter().find(|s| s.index == p.step && s.id == p.id)?;
    let rep = record.repeats.as_ref()?;
    let u = rep.until.as_ref().filter(|_| !run.later_run_recorded(record))?;
    Some(format!(
        "mean {} ± {} {}, {}",
        crate::units::thousands(Some(rep.mean), 0),
        crate::units::thousands(Some(rep.sd), 0),
        rep.unit,
        u.words(rep.cv)
    ))
}

fn rows_in(
    run: &Loaded,
    pts: &[Point],
    short: bool,
    num: fn(Option<f64>, usize) -> String,
) -> Vec<Vec<String>> {
    let units = run.manifest.plan.conventions.units;
    let other = beside(run.manifest.plan.conventions.value);
    pts.iter()
        .map(|p| {
            let step = step_of(run, p);
            let c = step.map(|s| &s.checklist);
            let qd = p.qd.map_or("-".into(), |q| {
                if q.workers > 1 {
                    format!("{} ({}x{})", q.total, q.workers, q.per_worker)
                } else {
                    q.total.to_string()
                }
            });
            let mut notes = Vec::new();
            if let Some(e) = &p.error {
                notes.push(format!("failed: {e}"));
            }
            if let Some(v) = &p.value_note {
                notes.push(v.clone());
            }
            if let Some(r) = p.repeat {
                notes.push(format!("run {} of {}", r.run, r.runs));
            }
            if let Some(w) = until_words(run, p) {
                notes.push(w);
            }
            if p.kind == "rounds" {
                notes.push("rounds: p99 of the last round".into());
            } else if let Some(j) = &p.job {
                notes.push(format!("together: job {}, with {}", j.name, j.with.join(", ")));
            } else if let Some(q) = &p.qos {
                notes.push(format!("qos: {}", q.verdict));
            } else if p.kind != "measure" {
                notes.push(p.kind.clone());
            }
            if let Some(t) = &p.trim {
                notes.push(t.words());
            }
            // A mismatch fails the step, and its error says it.
            if let Some(v) = p.verify.as_ref().filter(|v| v.mismatches == 0) {
                notes.push(v.words());
            }
            // A missed rate is in the value note; a kept one says its rate.
            if let Some(o) = p.open_loop.as_ref().filter(|o| o.kept && p.qos.is_none()) {
                notes.push(format!("open loop {}", o.words()));
            }
            if !p.hosts.is_empty() {
                notes.push(format!("{} together", hosts::all_words(p.hosts.len())));
            }
            if let Some(st) = step.and_then(|s| s.steady.as_ref()) {
                notes.push(if st.reached {
                    format!("steady at round {}", st.rounds)
                } else {
                    format!("not steady in {} rounds", st.rounds)
                });
            }
            vec![
                p.step.to_string(),
                p.id.clone(),
                p.workload.as_ref().map_or("-".into(), |w| w.label()),
                qd,
                num(p.iops, 0),
                num(Some(p.rate(units)), 1),
                num(p.iops_as(other), 0),
                num(p.rate_as(other, units), 1),
                num(p.mean_latency_us, 1),
                num(p.p99_latency_us, 1),
                c.and_then(|c| c.drive_state.as_ref()).map_or_else(
                    || unstated(run, step, "drive state"),
                    |d| if short { short_state(d) } else { d.description.clone() },
                ),
                c.and_then(|c| c.span.as_ref()).map_or_else(
                    || unstated(run, step, "span"),
                    |s| {
                        if short {
                            s.declared.clone()
                        } else {
                            format!("{} ({})", s.declared, human(s.bytes))
                        }
                    },
                ),
                match &run.manifest.imported {
                    // The tool made the figure its own way, which the
                    // step's checklist says (`value_kind.computed`).
                    Some(n) => format!("as {} reports it", n.tool),
                    None => value_short(p, step),
                },
                notes.join("; "),
            ]
        })
        .collect()
}

/// `not stated` for a checklist field an imported result's file does
/// not state (the run's or the step's `not_stated`); `-` for one that is
/// simply empty.
pub(crate) fn unstated(run: &Loaded, step: Option<&manifest::ManifestStep>, field: &str) -> String {
    let named = |list: &[String]| list.iter().any(|f| f == field);
    let run_wide = run.manifest.imported.as_ref().is_some_and(|n| named(&n.not_stated));
    if run_wide || step.is_some_and(|s| named(&s.not_stated)) { "not stated".into() } else { "-".into() }
}

/// How this number was made, in a few words (the methodology's convention
/// is in the header).
fn value_short(p: &Point, step: Option<&manifest::ManifestStep>) -> String {
    let steady = step.and_then(|s| s.steady.as_ref());
    // A precondition whose steady-state rule tracks one rate reports the
    // other as its step average: the rate that is not says how.
    let kind = if p.value != ValueKind::StepAverage { p.value } else { p.rate_value };
    match (p.kind.as_str(), kind) {
        ("rounds", ValueKind::Peak) => "best round".into(),
        (_, ValueKind::Peak) => {
            format!("best {} interval", p.peak_interval_s.map_or("series".into(), interval_words))
        }
        ("precondition", ValueKind::SteadyStateAverage) if steady.is_some_and(|s| s.reached) => {
            "steady-state window average".into()
        }
        ("precondition", ValueKind::SteadyStateAverage) => "last-window average, not steady".into(),
        _ => value_average(p, steady),
    }
}

/// How an average was made, in a few words.
fn value_average(p: &Point, steady: Option<&crate::record::SteadyResult>) -> String {
    match p.kind.as_str() {
        "measure" => "step average".into(),
        "fill" => "fill average".into(),
        "precondition" => "precondition average".into(),
        "rounds" if steady.is_some_and(|s| s.reached) => "steady-state window average".into(),
        "rounds" => "last-window average, not steady".into(),
        "copy" => "copy average".into(),
        "together" => "job average".into(),
        "qos" => match p.qos.as_ref() {
            Some(q) if q.by == QosAxis::Qd && q.found_nothing() => "depth-1 probe average".into(),
            Some(q) if q.by == QosAxis::Qd => "average of the probe at the depth found".into(),
            Some(q) if q.found_nothing() => "closed-loop probe average".into(),
            _ => "average of the probe at the rate found".into(),
        },
        other => other.to_string(),
    }
}

/// `preconditioned`, `steady (round 7)`, `filled 2x`: the drive state in a word or two.
fn short_state(d: &manifest::DriveState) -> String {
    use manifest::Condition;
    let mut s = match d.condition {
        Condition::AsFound => "as found".to_string(),
        Condition::Fresh if d.erased.is_some() => "erased".into(),
        Condition::Fresh => "fresh".into(),
        Condition::Filled => format!("filled {}x", d.fill_passes),
        Condition::Preconditioned => "preconditioned".into(),
        Condition::Steady => format!("steady (round {})", d.steady.map_or(0, |s| s.rounds)),
    };
    if d.in_doubt {
        s.push_str(", in doubt");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_print_as_dashes_when_missing() {
        assert_eq!(num(None, 1), "-");
        assert_eq!(num(Some(f64::NAN), 1), "-");
        assert_eq!(num(Some(1.26), 1), "1.3");
    }
}
