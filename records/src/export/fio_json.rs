//! The `fio-json` format: a run's results as fio's own JSON output
//! (`--output-format=json+`), so that fio-plot, fio's
//! `fio_jsonplus_clat2csv` and other readers of fio results chart methodic
//! runs. A job a step that ran I/O (a job a cell for a `rounds` step, its
//! last round), named by the step's id, with the fio options `methodic
//! export` writes for it as "job options" (rw, bs, iodepth, numjobs, ...),
//! and for reads, writes and trims fio's counters: bytes, I/Os, bandwidth
//! in KiB/s, IOPS, runtime in ms, and latency in nanoseconds (min, max,
//! mean, standard deviation, percentiles and, from the step's
//! HdrHistogram log where it covers the same I/Os, the json+ `bins`).
//!
//! [`fio_plot_files`] splits the same jobs into the files and folders
//! fio-plot reads (`methodic report --fio-plot DIR`).
//!
//! methodic measures one latency an I/O, from submission to completion:
//! it is written both as fio's `clat_ns` (completion latency) and
//! `lat_ns` (total latency); `slat_ns` is zero with no samples. What fio
//! measures and methodic does not (CPU use, context switches, per-second
//! bandwidth samples, the depth distribution) is zero, as fio writes it for
//! a job that did not measure it; "fio version" names methodic, so that no
//! reader takes these numbers for fio's.

use std::collections::BTreeMap;

use methodic_compiler::plan::{Action, Step};
use serde_json::{Map, Value, json};

use super::{ExportError, Exporter, Format};
use crate::engine::EngineKind;
use crate::numbers::{Latency, Rates, Summary};
use crate::record::{IoInfo, StepResult};
use crate::step_files::StepFiles;
use crate::view::report::Report;

/// The `fio-json` exporter.
pub struct FioJson;

impl Exporter<Report> for FioJson {
    fn export(&self, r: &Report) -> Result<String, ExportError> {
        let doc = document(r);
        serde_json::to_string_pretty(&doc)
            .map(|mut s| {
                s.push('\n');
                s
            })
            .map_err(|e| ExportError::Failed { format: Format::FioJson, detail: e.to_string() })
    }
}

/// One of methodic's latency numbers.
type Pick = fn(&Latency) -> f64;

/// fio's percentiles, as its JSON names them.
const PERCENTILES: [(&str, Pick); 8] = [
    ("50.000000", |l| l.p50),
    ("90.000000", |l| l.p90),
    ("99.000000", |l| l.p99),
    ("99.900000", |l| l.p99_9),
    ("99.990000", |l| l.p99_99),
    ("99.999000", |l| l.p99_999),
    ("99.999900", |l| l.p99_9999),
    ("100.000000", |l| l.max),
];

/// The whole document: fio's top level and a job a step (or cell).
fn document(report: &Report) -> Value {
    with_jobs(report, jobs(report).into_iter().map(|(_, j)| j).collect())
}

/// Every job of the run, each with the workload it ran (the folder
/// fio-plot finds it in).
fn jobs(report: &Report) -> Vec<(String, Value)> {
    let run = &report.run;
    let mut jobs = Vec::new();
    for r in &run.steps {
        let Some(step) = run.plan_step(r) else { continue };
        let first = jobs.len();
        jobs.extend(step_jobs(&report.files, r, step, first));
    }
    jobs
}

/// A run as fio-plot reads results: a folder a phase and workload (as
/// bench-fio writes one a block size), in it a file a job named
/// `RW-IODEPTH-NUMJOBS.json` (fio-plot reads the first job of each), each
/// a whole fio JSON document. A second job of the same folder and name (a
/// repeated measurement) goes to a folder with `-2` after its name, and so
/// on. Paths are relative, in order.
pub fn fio_plot_files(report: &Report) -> Vec<(std::path::PathBuf, String)> {
    let mut out: Vec<(std::path::PathBuf, String)> = Vec::new();
    for (folder, job) in jobs(report) {
        let o = &job["job options"];
        let field = |k: &str| o[k].as_str().unwrap_or("0").to_string();
        let name = format!("{}-{}-{}.json", field("rw"), field("iodepth"), field("numjobs"));
        let mut n = 1;
        let path = loop {
            let f = if n == 1 { folder.clone() } else { format!("{folder}-{n}") };
            let p = std::path::Path::new(&f).join(&name);
            if !out.iter().any(|(q, _)| *q == p) {
                break p;
            }
            n += 1;
        };
        let mut text = serde_json::to_string_pretty(&with_jobs(report, vec![job])).unwrap_or_default();
        text.push('\n');
        out.push((path, text));
    }
    out
}

/// fio's top level around `jobs`; methodic's own object names the run
/// and, when some of its files could not be read, those files and why.
fn with_jobs(report: &Report, jobs: Vec<Value>) -> Value {
    let run = &report.run;
    let m = &run.manifest;
    let end = m.finished.as_deref().unwrap_or(&m.updated);
    let timestamp = unix_seconds(end).unwrap_or(0);
    let mut doc = json!({
        "fio version": format!("methodic-{}", m.tool.version),
        "timestamp": timestamp,
        "timestamp_ms": timestamp * 1000,
        "time": end,
        "global options": {
            "filename": m.targets.first().map_or(String::new(), |t| t.path.display().to_string()),
        },
        "methodic": {
            "methodology": m.methodology.name,
            "version": m.methodology.version,
            "rehearsal": m.rehearsal,
            "results": run.dir.display().to_string(),
            "hostname": m.host.hostname,
        },
        "jobs": jobs,
        "disk_util": [],
    });
    if !report.unreadable().is_empty() {
        doc["methodic"]["unreadable"] = json!(report.unreadable());
    }
    doc
}

/// The jobs of one step: one with its summary, or one a cell of a rounds
/// step (each cell's last round). Steps without I/O give none.
fn step_jobs(files: &StepFiles, r: &StepResult, step: &Step, first_group: usize) -> Vec<(String, Value)> {
    let engine = r.io.as_ref().map(engine_of);
    let options = methodic_fio::job_options(step, engine);
    let phase = methodic_fio::file_name(r.phase.as_deref().unwrap_or("steps"));
    let folder = |workload: &str| format!("{phase}-{}", methodic_fio::file_name(workload));
    let mut jobs = Vec::new();
    if let (Some(summary), Some(opts)) = (&r.summary, options.first()) {
        let bins = bins(files, r, "");
        let workload = step.action.workloads().first().map_or(r.kind.clone(), |w| w.name.clone());
        let job = job(&r.id, first_group, opts, summary, r.io.as_ref(), r.seconds, bins);
        jobs.push((folder(&workload), job));
    } else if let (Some(cells), Action::Rounds { .. }) = (&r.cells, &step.action) {
        for (k, (cell, opts)) in cells.iter().zip(&options).enumerate() {
            let name = format!("{} cell {} ({} QD{})", r.id, k + 1, cell.workload, cell.qd);
            let seconds = cell.last.seconds;
            let job = job(&name, first_group + k, opts, &cell.last, r.io.as_ref(), seconds, BTreeMap::new());
            jobs.push((folder(&cell.workload), job));
        }
    }
    jobs
}

fn engine_of(io: &IoInfo) -> methodic_fio::Engine {
    methodic_fio::Engine {
        psync: io.engine == EngineKind::Psync,
        threads: io.threads,
        depth: io.depth,
        registered: io.registered_buffers,
    }
}

/// One fio job.
fn job(
    name: &str,
    group: usize,
    options: &[(&'static str, Option<String>)],
    s: &Summary,
    io: Option<&IoInfo>,
    step_seconds: f64,
    bins: BTreeMap<&'static str, BTreeMap<u64, u64>>,
) -> Value {
    let mut opts = Map::new();
    opts.insert("name".into(), Value::String(name.into()));
    for (k, v) in options {
        opts.insert((*k).into(), Value::String(v.clone().unwrap_or_default()));
    }
    let runtime_ms = (s.seconds * 1000.0).round() as u64;
    let mut job = json!({
        "jobname": name,
        "groupid": group,
        "error": 0,
        "eta": 0,
        "elapsed": step_seconds.round() as u64,
        "job options": opts,
        "read": direction(s.read.as_ref(), runtime_ms, bins.get("read")),
        "write": direction(s.write.as_ref(), runtime_ms, bins.get("write")),
        "trim": direction(s.trim.as_ref(), runtime_ms, bins.get("trim")),
        "sync": { "total_ios": 0, "lat_ns": stats(None, 0, None) },
        "job_runtime": runtime_ms,
        "usr_cpu": 0.0,
        "sys_cpu": 0.0,
        "ctx": 0,
        "majf": 0,
        "minf": 0,
        "iodepth_level": {},
        "iodepth_submit": {},
        "iodepth_complete": {},
        "latency_ns": {},
        "latency_us": {},
        "latency_ms": {},
        "latency_depth": io.map_or(1, |i| i.depth),
        "latency_target": 0,
        "latency_percentile": 100.0,
        "latency_window": 0,
    });
    let (ns, us, ms) = latency_buckets(&bins);
    job["latency_ns"] = ns;
    job["latency_us"] = us;
    job["latency_ms"] = ms;
    job
}

/// fio's counters of one direction; all zero when the step did none.
fn direction(r: Option<&Rates>, runtime_ms: u64, bins: Option<&BTreeMap<u64, u64>>) -> Value {
    let Some(r) = r.filter(|r| r.ios > 0) else {
        return json!({
            "io_bytes": 0, "io_kbytes": 0, "bw_bytes": 0, "bw": 0, "iops": 0.0, "runtime": 0,
            "total_ios": 0, "short_ios": 0, "drop_ios": 0,
            "slat_ns": stats(None, 0, None), "clat_ns": stats(None, 0, None), "lat_ns": stats(None, 0, None),
            "bw_min": 0, "bw_max": 0, "bw_agg": 0.0, "bw_mean": 0.0, "bw_dev": 0.0, "bw_samples": 0,
            "iops_min": 0, "iops_max": 0, "iops_mean": 0.0, "iops_stddev": 0.0, "iops_samples": 0,
        });
    };
    let iops = finite(r.iops);
    let bw_bytes = finite(r.mib_s) * 1_048_576.0;
    let bins = bins.filter(|b| b.values().sum::<u64>() == r.ios);
    json!({
        "io_bytes": r.bytes,
        "io_kbytes": r.bytes / 1024,
        "bw_bytes": bw_bytes.round() as u64,
        "bw": (bw_bytes / 1024.0).round() as u64,
        "iops": iops,
        "runtime": runtime_ms,
        "total_ios": r.ios,
        "short_ios": 0,
        "drop_ios": 0,
        "slat_ns": stats(None, 0, None),
        "clat_ns": stats(Some(&r.latency_us), r.ios, bins),
        "lat_ns": stats(Some(&r.latency_us), r.ios, bins),
        "bw_min": 0, "bw_max": 0, "bw_agg": 100.0, "bw_mean": (bw_bytes / 1024.0), "bw_dev": 0.0, "bw_samples": 0,
        "iops_min": 0, "iops_max": 0, "iops_mean": iops, "iops_stddev": 0.0, "iops_samples": 0,
    })
}

/// fio's latency statistics in nanoseconds; with `bins`, json+'s bins
/// and the standard deviation computed from them.
fn stats(l: Option<&Latency>, n: u64, bins: Option<&BTreeMap<u64, u64>>) -> Value {
    let Some(l) = l else {
        return json!({ "min": 0, "max": 0, "mean": 0.0, "stddev": 0.0, "N": 0 });
    };
    let ns = |us: f64| (finite(us) * 1000.0).round() as u64;
    let mut percentile = Map::new();
    for (name, get) in PERCENTILES {
        percentile.insert(name.into(), json!(ns(get(l))));
    }
    let mut v = json!({
        "min": ns(l.min),
        "max": ns(l.max),
        "mean": finite(l.mean) * 1000.0,
        "stddev": bins.map_or(0.0, |b| stddev(b, finite(l.mean) * 1000.0)),
        "N": n,
        "percentile": percentile,
    });
    if let Some(b) = bins {
        v["bins"] = Value::Object(b.iter().map(|(k, c)| (k.to_string(), json!(c))).collect());
    }
    v
}

fn finite(x: f64) -> f64 {
    if x.is_finite() { x } else { 0.0 }
}

fn stddev(bins: &BTreeMap<u64, u64>, mean: f64) -> f64 {
    let n: u64 = bins.values().sum();
    if n < 2 {
        return 0.0;
    }
    let sum: f64 = bins.iter().map(|(v, c)| (*v as f64 - mean).powi(2) * *c as f64).sum();
    (sum / (n - 1) as f64).sqrt()
}

/// fio's latency buckets: the share of I/Os (in percent) that completed
/// within each of its bounds, in ns (2..1000), us (2..1000) and ms
/// (2..2000, then >=2000), from the bins of every direction.
fn latency_buckets(bins: &BTreeMap<&'static str, BTreeMap<u64, u64>>) -> (Value, Value, Value) {
    const BOUNDS: [u64; 10] = [2, 4, 10, 20, 50, 100, 250, 500, 750, 1000];
    const MS: [u64; 11] = [2, 4, 10, 20, 50, 100, 250, 500, 750, 1000, 2000];
    let all: Vec<(u64, u64)> = bins.values().flat_map(|b| b.iter().map(|(v, c)| (*v, *c))).collect();
    let total: u64 = all.iter().map(|(_, c)| c).sum();
    let share = |lo: u64, hi: u64| -> f64 {
        if total == 0 {
            return 0.0;
        }
        let n: u64 = all.iter().filter(|(v, _)| *v >= lo && *v < hi).map(|(_, c)| c).sum();
        n as f64 * 100.0 / total as f64
    };
    let scale = |unit: u64, bounds: &[u64]| -> Map<String, Value> {
        let mut m = Map::new();
        let mut lo = if unit == 1 { 0 } else { unit };
        for b in bounds {
            m.insert(b.to_string(), json!(share(lo, b * unit)));
            lo = b * unit;
        }
        m
    };
    let mut ms = scale(1_000_000, &MS);
    ms.insert(">=2000".into(), json!(share(2_000_000_000, u64::MAX)));
    (Value::Object(scale(1, &BOUNDS)), Value::Object(scale(1_000, &BOUNDS)), Value::Object(ms))
}

/// The step's latency histograms by direction, as json+ bins (latency in
/// ns to I/Os): the intervals of the step's log tagged `read`, `write` or
/// `trim` added up (each round of a steady-state step), as `files` read
/// it. A direction whose bins do not count the summary's I/Os is left out
/// by the caller; a log that could not be read gives none (the report
/// names it).
fn bins(files: &StepFiles, r: &StepResult, prefix: &str) -> BTreeMap<&'static str, BTreeMap<u64, u64>> {
    let mut out = BTreeMap::new();
    let Ok(Some(latencies)) = files.latencies(r) else { return out };
    for dir in ["read", "write", "trim"] {
        let Some(h) = latencies.of(&format!("{prefix}{dir}")) else { continue };
        let mut b = BTreeMap::new();
        for v in h.iter_recorded() {
            *b.entry(h.highest_equivalent(v.value_iterated_to())).or_insert(0) += v.count_at_value();
        }
        out.insert(dir, b);
    }
    out
}

/// Seconds since the epoch of `2026-12-02T09:52:02Z`.
fn unix_seconds(t: &str) -> Option<u64> {
    let (date, time) = t.strip_suffix('Z')?.split_once('T')?;
    let mut d = date.split('-').map(|x| x.parse::<i64>());
    let (y, m, day) = (d.next()?.ok()?, d.next()?.ok()?, d.next()?.ok()?);
    let mut c = time.split(':').map(|x| x.parse::<f64>());
    let (h, min, s) = (c.next()?.ok()?, c.next()?.ok()?, c.next()?.ok()?);
    // Days from the civil date (H. Hinnant's days_from_civil).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    u64::try_from(days * 86_400 + (h * 3600.0 + min * 60.0 + s) as i64).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_read_as_unix_seconds() {
        assert_eq!(unix_seconds("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(unix_seconds("2026-12-02T09:52:02Z"), Some(1_796_205_122));
        assert_eq!(unix_seconds("2000-03-01T00:00:01Z"), Some(951_868_801));
        assert_eq!(unix_seconds("yesterday"), None);
    }

    #[test]
    fn buckets_share_the_ios_by_latency() {
        let mut b = BTreeMap::new();
        b.insert("read", BTreeMap::from([(1_500u64, 3u64), (150_000, 1)]));
        let (ns, us, ms) = latency_buckets(&b);
        assert_eq!(us["2"], json!(75.0), "1.5us is under 2us: {us}");
        assert_eq!(us["250"], json!(25.0), "150us is in 100..250us: {us}");
        assert_eq!(ns["1000"], json!(0.0));
        assert_eq!(ms[">=2000"], json!(0.0));
    }

    #[test]
    fn the_deviation_comes_from_the_bins() {
        let b = BTreeMap::from([(10u64, 1u64), (20, 1)]);
        assert!((stddev(&b, 15.0) - 7.0710678).abs() < 1e-6);
        assert_eq!(stddev(&BTreeMap::from([(10u64, 1u64)]), 10.0), 0.0);
    }
}
