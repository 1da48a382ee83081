//! A result another tool wrote (fio's JSON, Iometer's results CSV,
//! DiskSpd's XML, a CrystalDiskMark or KDiskMark text report) written as a
//! results directory that `report`, `compare` and the exports read like a
//! methodic run's: the methodology the import made of the tool's job (its
//! `plan.ron`), a manifest whose checklist holds only what the file states
//! and names every field it does not (`not_stated`), a step record of the
//! numbers the tool reported, and a step's latency bins, where the file has
//! them, as an HdrHistogram log.
//!
//! The importers (methodic-import) read the tools' files; this module
//! writes what they read and invents nothing: a latency the file does not
//! give is NaN (JSON `null`), shown as `-`.

use std::path::{Path, PathBuf};
use std::time::{Duration, UNIX_EPOCH};

use hdrhistogram::Histogram;
use methodic_compiler::plan::{Action, Plan, Step, ValueKind};

use crate::dir::{MANIFEST_FILE, ResultsDir, replace_synced};
use crate::engine::EngineNote;
use crate::error::{Error, Result};
use crate::host::Host;
use crate::manifest::{
    CacheFacts, Checklist, ImportedNote, MANIFEST_SCHEMA, Manifest, ManifestStep, Methodology, QdFacts,
    SpanFacts, StepStatus, Tool, ValueFacts, WorkloadFacts, cache_facts, jobs_of, load_of, workload_and_qd,
};
use crate::numbers::{Latency, Rates, Summary};
use crate::record::{JobResult, MethodologyRef, RunReport, Status, StepResult};

/// The checklist fields no imported file states: each step names them.
pub const NEVER_STATED: [&str; 1] = ["drive state"];

/// What an importer read: the methodology it made of the tool's job, and
/// a step's numbers for each of the plan's steps, in order.
#[derive(Debug, Clone)]
pub struct ImportedRun {
    pub note: ImportedNote,
    /// The methodology text the plan was compiled from.
    pub methodology: String,
    pub plan: Plan,
    /// The host as far as the file states it (unstated fields `None`, 0 or
    /// empty; `host` is then in the note's `not_stated`).
    pub host: Host,
    /// How the tool drove the I/O, in its words (`fio ioengine=libaio`);
    /// `None` when the file does not say.
    pub engine: Option<String>,
    pub steps: Vec<ImportedStep>,
}

/// One step's numbers, as the tool reported them.
#[derive(Debug, Clone, Default)]
pub struct ImportedStep {
    pub read: Option<Direction>,
    pub write: Option<Direction>,
    pub trim: Option<Direction>,
    /// The tool's error for the step (fio's job `error`), in words.
    pub error: Option<String>,
    /// The span as the file states it (`size=64M`), the bytes the I/O
    /// covered and the target's capacity (0 when the file does not state
    /// it); `None` when the file does not state the span.
    pub span: Option<(String, u64, u64)>,
    /// The checklist fields the file does not state for this step beyond
    /// the note's (`span`, `queue depth counting`).
    pub not_stated: Vec<String>,
    /// How the numbers are made, as the tool makes them (`the average
    /// over fio's runtime of the job`); `None`: not stated.
    pub computed: Option<String>,
    /// The step's parts as the tool reported each (Iometer's worker and
    /// target rows, DiskSpd's threads or targets): said in the step's
    /// notes, a line each.
    pub parts: Vec<Part>,
    /// A `together` step's jobs as the tool reported each, in the order
    /// of the plan step's jobs: each becomes a job of the step's record, as
    /// a methodic run's together step has. Empty when the tool did not
    /// report them apart; ignored for a step that is not `together`.
    pub jobs: Vec<Part>,
    /// The tool's latency over every direction together, when it states
    /// one (DiskSpd's total percentiles): the step's total latency then,
    /// rather than one worked out of the directions'.
    pub total_latency: Option<StatedLatency>,
    /// The step's series, interval by interval, when the tool logged one
    /// (fio's per-interval logs), and its interval in seconds: written as
    /// the step's series CSV, its best interval the step's peak.
    pub series: Option<(Vec<crate::series::Row>, f64)>,
}

/// A part of a step's I/O as the tool reported it.
#[derive(Debug, Clone, Default)]
pub struct Part {
    /// `worker 1 (Worker 1) on 1: "PHYSICALDRIVE:1"`, `thread 0 on target 0`.
    pub name: String,
    pub read: Option<Direction>,
    pub write: Option<Direction>,
}

impl Part {
    /// `worker 1 on disk 1: 12,345.6 IOPS, 48.2 MiB/s, latency mean 650.1 us, max 12,100.0 us`.
    pub fn words(&self) -> String {
        let step = ImportedStep { read: self.read.clone(), write: self.write.clone(), ..Default::default() };
        let t = step.summary().total;
        let mut s = format!(
            "{}: {} IOPS, {} MiB/s",
            self.name,
            crate::units::thousands(Some(t.iops), 1),
            crate::units::thousands(Some(t.mib_s), 1)
        );
        if t.latency_us.mean.is_finite() {
            s.push_str(&format!(", latency mean {} us", crate::units::thousands(Some(t.latency_us.mean), 1)));
        }
        if t.latency_us.max.is_finite() {
            s.push_str(&format!(", max {} us", crate::units::thousands(Some(t.latency_us.max), 1)));
        }
        s
    }
}

/// One direction of a step: the tool's counts, rates and latency.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Direction {
    pub ios: u64,
    pub bytes: u64,
    /// The seconds the rates are over.
    pub seconds: f64,
    /// As the tool reported them.
    pub iops: f64,
    pub bytes_per_second: f64,
    pub latency: Option<StatedLatency>,
    /// Latency buckets, `(value in nanoseconds, count)`, when the file has them.
    pub bins: Vec<(u64, u64)>,
}

/// A latency's figures as the file states them, in nanoseconds; `None`
/// (or a percentile left out) where it does not.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StatedLatency {
    pub mean: Option<f64>,
    pub min: Option<f64>,
    pub max: Option<f64>,
    /// `(percent, nanoseconds)`.
    pub percentiles: Vec<(f64, f64)>,
}

/// The percentiles a summary keeps, and their places in [`Latency`].
const KEPT: [f64; 7] = [50.0, 90.0, 99.0, 99.9, 99.99, 99.999, 99.9999];

impl Direction {
    fn rates(&self) -> Rates {
        Rates {
            ios: self.ios,
            bytes: self.bytes,
            iops: self.iops,
            mb_s: self.bytes_per_second / 1e6,
            mib_s: self.bytes_per_second / (1u64 << 20) as f64,
            latency_us: latency_us(self.latency.as_ref(), &self.bins),
        }
    }
}

/// Several parts of one direction (a job's clones, the jobs of a group,
/// a tool's workers) as one: counts and rates added, the longest time,
/// bins added up. A stated latency is kept whole only for a single part;
/// for several, its mean (weighted by I/Os), minimum and maximum, and
/// percentiles only through the bins (percentiles do not add up).
pub fn merged(parts: &[&Direction]) -> Option<Direction> {
    match parts {
        [] => None,
        [one] => Some((*one).clone()),
        _ => {
            let ios: u64 = parts.iter().fold(0u64, |n, d| n.saturating_add(d.ios));
            let lats: Vec<&StatedLatency> = parts.iter().filter_map(|d| d.latency.as_ref()).collect();
            let latency = (lats.len() == parts.len()).then(|| StatedLatency {
                mean: parts
                    .iter()
                    .map(|d| d.latency.as_ref().and_then(|l| l.mean).map(|m| m * d.ios as f64))
                    .sum::<Option<f64>>()
                    .filter(|_| ios > 0)
                    .map(|s| s / ios as f64),
                min: lats
                    .iter()
                    .map(|l| l.min)
                    .collect::<Option<Vec<f64>>>()
                    .map(|v| v.into_iter().fold(f64::INFINITY, f64::min)),
                max: lats
                    .iter()
                    .map(|l| l.max)
                    .collect::<Option<Vec<f64>>>()
                    .map(|v| v.into_iter().fold(0.0, f64::max)),
                percentiles: Vec::new(),
            });
            let mut bins: Vec<(u64, u64)> = Vec::new();
            if parts.iter().all(|d| !d.bins.is_empty()) {
                let mut all: std::collections::BTreeMap<u64, u64> = Default::default();
                for d in parts {
                    for &(v, n) in &d.bins {
                        let c = all.entry(v).or_default();
                        *c = c.saturating_add(n);
                    }
                }
                bins = all.into_iter().collect();
            }
            Some(Direction {
                ios,
                bytes: parts.iter().fold(0u64, |n, d| n.saturating_add(d.bytes)),
                seconds: parts.iter().map(|d| d.seconds).fold(0.0, f64::max),
                iops: parts.iter().map(|d| d.iops).sum(),
                bytes_per_second: parts.iter().map(|d| d.bytes_per_second).sum(),
                latency,
                bins,
            })
        }
    }
}

/// The histogram of `bins`; `None` when there are none or they do not fit.
fn histogram(bins: &[(u64, u64)]) -> Option<Histogram<u64>> {
    if bins.is_empty() {
        return None;
    }
    let mut h = Histogram::<u64>::new(3).ok()?;
    for &(v, n) in bins {
        h.record_n(v.max(1), n).ok()?;
    }
    Some(h)
}

/// The figures stated, in microseconds; a percentile the file leaves out
/// is read off the bins when it has them (fio's json+), else NaN.
fn latency_us(stated: Option<&StatedLatency>, bins: &[(u64, u64)]) -> Latency {
    let mut l = Latency::not_stated();
    let h = histogram(bins);
    let us = |ns: f64| ns / 1000.0;
    let mut at = [f64::NAN; 7];
    for (k, p) in KEPT.iter().enumerate() {
        let stated_p = stated.and_then(|s| s.percentiles.iter().find(|(q, _)| (q - p).abs() < 1e-9));
        at[k] = match (stated_p, &h) {
            (Some((_, ns)), _) => us(*ns),
            (None, Some(h)) => us(h.value_at_quantile(p / 100.0) as f64),
            (None, None) => f64::NAN,
        };
    }
    [l.p50, l.p90, l.p99, l.p99_9, l.p99_99, l.p99_999, l.p99_9999] = at;
    if let Some(s) = stated {
        l.mean = s.mean.map_or(f64::NAN, us);
        l.min = s.min.map_or(f64::NAN, us);
        l.max = s.max.map_or(f64::NAN, us);
    }
    if let Some(h) = &h {
        if l.mean.is_nan() {
            l.mean = us(h.mean());
        }
        if l.min.is_nan() {
            l.min = us(h.min() as f64);
        }
        if l.max.is_nan() {
            l.max = us(h.max() as f64);
        }
    }
    l
}

impl ImportedStep {
    fn directions(&self) -> impl Iterator<Item = &Direction> {
        [&self.read, &self.write, &self.trim].into_iter().flatten()
    }

    /// The step's numbers: each direction as stated, and all of them
    /// together. The total's latency is a direction's own when only one
    /// did I/O, read off the bins together when every direction has them,
    /// and otherwise only its mean (weighted by I/Os), minimum and maximum:
    /// percentiles of several directions cannot be added up.
    pub fn summary(&self) -> Summary {
        // A direction did I/O when it counted some or states a rate (a
        // CrystalDiskMark file states rates, not counts).
        let dirs: Vec<&Direction> = self
            .directions()
            .filter(|d| d.ios > 0 || d.bytes > 0 || d.iops > 0.0 || d.bytes_per_second > 0.0)
            .collect();
        let seconds = self.directions().map(|d| d.seconds).fold(0.0, f64::max);
        let ios: u64 = dirs.iter().fold(0u64, |n, d| n.saturating_add(d.ios));
        // A trim moves no data: its bytes are not the total's.
        let moved: Vec<&Direction> = [&self.read, &self.write].into_iter().flatten().collect();
        let bytes: u64 = moved.iter().fold(0u64, |n, d| n.saturating_add(d.bytes));
        let latency = match dirs.as_slice() {
            _ if self.total_latency.is_some() => latency_us(self.total_latency.as_ref(), &[]),
            [one] => one.rates().latency_us,
            _ if !dirs.is_empty() && dirs.iter().all(|d| !d.bins.is_empty()) => {
                let bins: Vec<(u64, u64)> = dirs.iter().flat_map(|d| d.bins.iter().copied()).collect();
                latency_us(None, &bins)
            }
            _ => {
                let each: Vec<Latency> = dirs.iter().map(|d| d.rates().latency_us).collect();
                let mut l = Latency::not_stated();
                let weighted: f64 = dirs.iter().zip(&each).map(|(d, l)| d.ios as f64 * l.mean).sum();
                l.mean = if ios > 0 { weighted / ios as f64 } else { f64::NAN };
                l.min = each.iter().map(|l| l.min).fold(f64::NAN, f64::min);
                l.max = each.iter().map(|l| l.max).fold(f64::NAN, f64::max);
                l
            }
        };
        let total = Rates {
            ios,
            bytes,
            iops: dirs.iter().map(|d| d.iops).sum(),
            mb_s: moved.iter().map(|d| d.bytes_per_second).sum::<f64>() / 1e6,
            mib_s: moved.iter().map(|d| d.bytes_per_second).sum::<f64>() / (1u64 << 20) as f64,
            latency_us: latency,
        };
        Summary {
            seconds,
            total,
            read: self.read.as_ref().map(Direction::rates),
            write: self.write.as_ref().map(Direction::rates),
            trim: self.trim.as_ref().map(Direction::rates),
        }
    }
}

/// Writes `run` as the results directory `dir`, which must not exist or
/// be empty. On any error what was written is removed.
pub fn write(run: &ImportedRun, dir: &Path) -> Result<()> {
    let measured = run.plan.steps.iter().filter(|s| has_io(s)).count();
    if measured != run.steps.len() {
        return Err(Error::results(
            dir,
            format!(
                "cannot hold this import (a bug in methodic import): its plan has {} with I/O, and the file's \
                 numbers are of {}",
                methodic_compiler::plan::plural(measured as u64, "step", "steps"),
                methodic_compiler::plan::plural(run.steps.len() as u64, "step", "steps"),
            ),
        ));
    }
    let plan_ron = run.plan.to_ron();
    let mut out = ResultsDir::create(dir, &plan_ron, Some(&run.methodology))?;
    match fill(run, &plan_ron, &mut out) {
        Ok(()) => Ok(()),
        Err(e) => {
            out.discard();
            Err(e)
        }
    }
}

/// Steps that do I/O the tool reported on.
fn has_io(step: &Step) -> bool {
    matches!(step.action, Action::Measure { .. } | Action::Together { .. })
}

fn fill(run: &ImportedRun, plan_ron: &str, out: &mut ResultsDir) -> Result<()> {
    let started = run.note.ran.clone().unwrap_or_default();
    let mut numbers = run.steps.iter();
    let mut records = Vec::new();
    let mut steps = Vec::new();
    for (i, step) in run.plan.steps.iter().enumerate() {
        let n = if has_io(step) { numbers.next() } else { None };
        let (r, m) = step_record(run, i, step, n, out)?;
        out.append_step(&r)?;
        steps.push(m);
        records.push(r);
    }
    let failed = records.iter().any(|r| r.error.is_some());
    let m = &run.plan.methodology;
    let manifest = Manifest {
        schema: MANIFEST_SCHEMA,
        tool: Tool::this(),
        status: if failed { Status::Failed } else { Status::Completed },
        error: failed.then(|| format!("{} reported an error for a step", run.note.tool)),
        rehearsal: false,
        started: started.clone(),
        updated: started.clone(),
        finished: run.note.ran.clone(),
        seconds: records.iter().map(|r| r.seconds).sum(),
        seed: 0,
        methodology: Methodology {
            name: m.name.clone(),
            version: m.version.clone(),
            description: m.description.clone(),
            source_hash: m.source_hash.clone(),
            plan_hash: methodic_compiler::source_hash(plan_ron),
            plan_schema: run.plan.schema,
            compiler: run.plan.compiler.clone(),
            non_destructive: m.non_destructive,
        },
        host: run.host.clone(),
        targets: Vec::new(),
        engine: EngineNote {
            choice: run.engine.clone().unwrap_or_else(|| "not stated".into()),
            io_uring: run.engine.as_deref().is_some_and(|e| e.contains("io_uring")),
            io_uring_unavailable: None,
            pinned: false,
            latency_recorded: true,
            psync_max_threads: 0,
        },
        ceilings: None,
        host_ceiling: None,
        datasets: None,
        plan: run.plan.clone(),
        steps,
        resumed: Vec::new(),
        write_cache: Vec::new(),
        hosts: Vec::new(),
        imported: Some(run.note.clone()),
    };
    let text = serde_json::to_string_pretty(&manifest)
        .map_err(|e| Error::io("cannot encode the manifest", std::io::Error::other(e)))?;
    replace_synced(&out.path, MANIFEST_FILE, format!("{text}\n").as_bytes())?;
    out.finish(&RunReport {
        manifest: PathBuf::from(MANIFEST_FILE),
        methodology: MethodologyRef {
            name: m.name.clone(),
            version: m.version.clone(),
            source_hash: m.source_hash.clone(),
        },
        rehearsal: false,
        status: manifest.status,
        error: manifest.error.clone(),
        seconds: manifest.seconds,
        results: out.path.clone(),
        steps: records,
        signal: None,
    })
}

/// Step `i`'s record and its manifest step, from the tool's numbers
/// (`None` for a step the tool does not report on); its latency log
/// written beside the results.
fn step_record(
    run: &ImportedRun,
    i: usize,
    step: &Step,
    numbers: Option<&ImportedStep>,
    out: &ResultsDir,
) -> Result<(StepResult, ManifestStep)> {
    let mut r = StepResult::new(i, step, false, run.note.ran.clone().unwrap_or_default());
    let mut not_stated: Vec<String> = Vec::new();
    let (mut span, mut computed) = (None, None);
    if let Some(n) = numbers {
        let summary = n.summary();
        r.seconds = summary.seconds;
        r.error = n.error.clone();
        if let Some(h) = histograms(n) {
            let path = out.histogram_path(&step.id)?;
            let mut log = crate::hlog::Writer::create(&path, &step.id, UNIX_EPOCH, "not stated")?;
            let length = Duration::from_secs_f64(summary.seconds.max(0.0));
            for (tag, h) in h {
                log.interval(tag, &h, Duration::ZERO, length)?;
            }
            log.flush()?;
            r.latency_log = Some(relative(&out.path, &path));
        }
        r.summary = Some(summary);
        r.jobs = job_results(step, n);
        if let Some((rows, interval_s)) = n.series.as_ref().filter(|(rows, _)| !rows.is_empty()) {
            let path = out.series_path(&step.id, "")?;
            let mut csv = crate::csv_file::Writer::create(&path)?;
            for row in rows {
                csv.row(row)?;
            }
            r.series = Some(relative(&out.path, &path));
            r.peak = crate::analysis::Peak::of(rows, *interval_s);
        }
        r.actions =
            n.parts.iter().map(|p| format!("as {} reported it: {}", run.note.tool, p.words())).collect();
        not_stated = n.not_stated.clone();
        span = n.span.clone();
        computed = n.computed.clone();
    }
    let run_wide = |f: &str| run.note.not_stated.iter().any(|n| n == f);
    for f in NEVER_STATED.iter().chain(if span.is_none() { ["span"].iter() } else { [].iter() }) {
        if !not_stated.iter().any(|n| n == f) && !run_wide(f) {
            not_stated.push(f.to_string());
        }
    }
    if computed.is_none() && !run_wide("value kind") {
        not_stated.push("value kind".into());
    }
    let m = manifest_step(run, i, step, &r, span, computed, not_stated);
    Ok((r, m))
}

/// A together step's jobs as the tool reported them, in the plan's order.
fn job_results(step: &Step, n: &ImportedStep) -> Vec<JobResult> {
    let Action::Together { jobs, .. } = &step.action else { return Vec::new() };
    jobs.iter()
        .zip(&n.jobs)
        .map(|(j, part)| {
            let numbers =
                ImportedStep { read: part.read.clone(), write: part.write.clone(), ..Default::default() };
            JobResult {
                name: j.name.clone(),
                device: format!("device {}", j.device + 1),
                workload: j.workload.label(),
                qd: j.qd.total,
                summary: numbers.summary(),
                io: None,
                series: None,
            }
        })
        .collect()
}

/// The step's bins as histograms by tag (`read`, `write`, `trim`); `None`
/// when no direction has bins.
fn histograms(n: &ImportedStep) -> Option<Vec<(&'static str, Histogram<u64>)>> {
    let out: Vec<(&'static str, Histogram<u64>)> =
        [("read", &n.read), ("write", &n.write), ("trim", &n.trim)]
            .into_iter()
            .filter_map(|(tag, d)| Some((tag, histogram(&d.as_ref()?.bins)?)))
            .collect();
    (!out.is_empty()).then_some(out)
}

fn relative(dir: &Path, path: &Path) -> PathBuf {
    path.strip_prefix(dir).map(Path::to_path_buf).unwrap_or_else(|_| path.to_path_buf())
}

fn manifest_step(
    run: &ImportedRun,
    i: usize,
    step: &Step,
    r: &StepResult,
    span: Option<(String, u64, u64)>,
    computed: Option<String>,
    not_stated: Vec<String>,
) -> ManifestStep {
    let settings = step.target.unwrap_or(run.plan.target);
    let (workload, qd) = workload_and_qd(&step.action);
    let touches = step.action.touches_target();
    let status = match (&r.error, has_io(step)) {
        (Some(_), _) => StepStatus::Failed,
        (None, true) => StepStatus::Completed,
        // A step the tool does not report on (an erase, a cache drop the
        // methodology has for its job) ran, or not, out of sight.
        (None, false) => StepStatus::Pending,
    };
    let hostname = run.host.hostname.clone().unwrap_or_else(|| "not stated".into());
    ManifestStep {
        index: i + 1,
        id: step.id.clone(),
        phase: step.phase.clone(),
        kind: step.action.kind().to_string(),
        description: step.describe(),
        status,
        started: run.note.ran.clone(),
        seconds: has_io(step).then_some(r.seconds),
        error: r.error.clone(),
        establishes_state: step.establishes_state,
        checklist: Checklist {
            workload: workload.map(WorkloadFacts::of),
            queue_depth: qd.map(|q| QdFacts::of(q, settings.devices)),
            drive_state: None,
            span: span.map(|(declared, bytes, capacity)| SpanFacts {
                declared,
                bytes,
                capacity,
                percent_of_capacity: if capacity > 0 {
                    (bytes as f64 * 10_000.0 / capacity as f64).round() / 100.0
                } else {
                    f64::NAN
                },
            }),
            value_kind: ValueFacts {
                kind: ValueKind::StepAverage,
                computed: computed.unwrap_or_else(|| "not stated".into()),
            },
            units: run.plan.conventions.units,
            data_pattern: workload.is_some().then_some(settings.data),
            cache: if touches {
                cache_facts(Some(settings.io), false, step.ram_limit)
            } else {
                CacheFacts { io: None, caches_dropped: false, ram_limit: None, description: String::new() }
            },
            host: hostname,
            load: load_of(&step.action),
            jobs: jobs_of(&step.action),
        },
        io: None,
        steady: None,
        actions: Vec::new(),
        workers: Vec::new(),
        not_stated,
        skipped: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(ios: u64, lat: Option<StatedLatency>, bins: Vec<(u64, u64)>) -> Direction {
        Direction {
            ios,
            bytes: ios * 4096,
            seconds: 2.0,
            iops: ios as f64 / 2.0,
            bytes_per_second: ios as f64 * 2048.0,
            latency: lat,
            bins,
        }
    }

    #[test]
    fn stated_percentiles_are_kept_and_missing_ones_are_not_invented() {
        let lat = StatedLatency {
            mean: Some(12_000.0),
            min: Some(3_000.0),
            max: Some(900_000.0),
            percentiles: vec![(50.0, 10_000.0), (99.0, 40_000.0)],
        };
        let s =
            ImportedStep { read: Some(read(1000, Some(lat), Vec::new())), ..Default::default() }.summary();
        let l = &s.read.as_ref().unwrap().latency_us;
        assert_eq!((l.p50, l.p99, l.mean, l.max), (10.0, 40.0, 12.0, 900.0));
        assert!(l.p90.is_nan() && l.p99_99.is_nan(), "not stated stays unknown");
        assert_eq!(s.total.latency_us.p99, 40.0, "one direction: the total is its own");
        assert_eq!(s.total.iops, 500.0);
    }

    #[test]
    fn bins_give_the_percentiles_the_file_leaves_out() {
        let bins: Vec<(u64, u64)> = (1..=100).map(|k| (k * 1000, 10)).collect();
        let s = ImportedStep { read: Some(read(1000, None, bins)), ..Default::default() }.summary();
        let l = &s.read.unwrap().latency_us;
        assert!((l.p50 - 50.0).abs() < 0.1 && (l.p99 - 99.0).abs() < 0.1, "{} {}", l.p50, l.p99);
        assert!((l.max - 100.0).abs() < 0.1, "{}", l.max);
    }

    #[test]
    fn merged_parts_add_counts_and_keep_no_percentile_without_bins() {
        let lat = |m: f64| StatedLatency {
            mean: Some(m),
            min: Some(m),
            max: Some(m),
            percentiles: vec![(99.0, m)],
        };
        let (a, b) = (read(100, Some(lat(1000.0)), Vec::new()), read(300, Some(lat(3000.0)), Vec::new()));
        let m = merged(&[&a, &b]).unwrap();
        assert_eq!((m.ios, m.iops), (400, 200.0));
        let l = m.latency.unwrap();
        assert_eq!((l.mean, l.min, l.max), (Some(2500.0), Some(1000.0), Some(3000.0)));
        assert!(l.percentiles.is_empty());
        let (a, b) = (read(1, None, vec![(1000, 1), (2000, 3)]), read(1, None, vec![(2000, 1)]));
        assert_eq!(merged(&[&a, &b]).unwrap().bins, vec![(1000, 1), (2000, 4)]);
    }

    #[test]
    fn two_directions_without_bins_give_no_total_percentile() {
        let lat = |m: f64| StatedLatency {
            mean: Some(m),
            min: Some(m / 2.0),
            max: Some(m * 10.0),
            percentiles: vec![(99.0, m * 3.0)],
        };
        let s = ImportedStep {
            read: Some(read(300, Some(lat(10_000.0)), Vec::new())),
            write: Some(read(100, Some(lat(30_000.0)), Vec::new())),
            ..Default::default()
        }
        .summary();
        let t = &s.total;
        assert_eq!((t.ios, t.iops), (400, 200.0));
        assert!(t.latency_us.p99.is_nan());
        assert_eq!(t.latency_us.mean, 15.0);
        assert_eq!((t.latency_us.min, t.latency_us.max), (5.0, 300.0));
    }
}
