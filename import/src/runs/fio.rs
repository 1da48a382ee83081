//! fio's JSON results (`--output-format=json` or `json+`, fio 2 and 3,
//! and `fio --client`'s `client_stats`) as a run.
//!
//! The plan is the job file the JSON states, imported by methodic-fio's
//! job import (the same rules, and the same refusals, as `methodic import
//! fio JOBFILE`). fio's JSON lists only options given a value
//! (`add_to_dump_list` in fio's parse.c skips the others), so three are
//! worked out, and the note says so:
//! - `stonewall`: each fio group (`groupid`) ran after the one before;
//!   the jobs of one group ran at the same time (fio's `stonewall` and
//!   `new_group` start a group).
//! - `time_based`: a job that moved more bytes than its `size` went round
//!   its region again, which only `time_based` does. A job that moved less
//!   is read without it: whichever came first, size or runtime, is what
//!   the JSON shows either way.
//! - `numjobs` clones: fio lists each clone as a job of the same name and
//!   group, unless `group_reporting` added them up into one.
//!
//! A step's numbers are fio's: its IOPS and bandwidth, and the latency fio
//! gives percentiles of (the completion latency, fio's default, or the
//! total with `lat_percentiles`), which the note names. json+'s bins
//! become the step's HdrHistogram log. A run on several hosts
//! (`fio --client` with more than one) is the `All clients` total fio
//! writes, the hosts named in the note.

use std::collections::BTreeMap;

use methodic_compiler::plan::ValueKind;
use methodic_fio::{
    Direction as FioDirection, FioJob, FioResults, read_fio_results, read_log, size_in_bytes,
};
use methodic_results::imported::{Direction, ImportedRun, ImportedStep, Part, StatedLatency, merged};
use methodic_results::manifest::computed;
use methodic_results::series::FioInterval;

use super::{ResultsFile, RunError, compiled, note, unstated_host};

/// Reads fio's JSON results into a run, without its logs.
pub fn fio_run(input: &ResultsFile<'_>) -> Result<ImportedRun, RunError> {
    fio_run_with_logs(input, &|_| None)
}

/// Reads fio's JSON results into a run; `log` reads a per-interval log
/// fio wrote beside it, by the name fio gave it (`None`: not there), for
/// the jobs whose options asked for logs (`write_iops_log=NAME` and
/// `log_avg_msec`): each step's series.
pub fn fio_run_with_logs(
    input: &ResultsFile<'_>,
    log: &dyn Fn(&str) -> Option<String>,
) -> Result<ImportedRun, RunError> {
    let results = read_fio_results(input.text).map_err(|e| {
        RunError::new(format!("{}: {e}", input.file))
            .hint("give the file fio wrote with --output-format=json or json+ (--output FILE)")
    })?;
    let format =
        if has_bins(&results) { "JSON+ (--output-format=json+)" } else { "JSON (--output-format=json)" };
    let mut note = note("fio", results.version.clone(), format, input);
    let (jobs, hosts) = chosen_jobs(&results);
    if jobs.is_empty() {
        return Err(RunError::new(format!("{}: the file lists no job with numbers", input.file)));
    }
    let groups = groups(&jobs);
    let (job_file, inferred) = job_file(&results, &groups);
    let imported = methodic_fio::fio_to_method(&job_file, input.file, input.name)
        .map_err(|errors| refused(input, &errors))?;
    let (methodology, plan) = compiled(&imported.text, input.file)?;
    note.ran = results_time(input.text);
    note.targets = targets(&results, &jobs);
    note.not_stated = vec!["host".into(), "drive state".into()];
    let mut said = Vec::new();
    if let Some(v) = &results.version {
        said.push(format!("written by {v}"));
    }
    if results.microseconds {
        said.push("latencies in microseconds (fio 2's shape), converted to nanoseconds".into());
    }
    if !results.said_before.is_empty() {
        said.push(format!("fio said before its results: {}", results.said_before.join(" / ")));
    }
    note.notes.extend(said);
    note.notes.extend(inferred);
    note.notes.push(
        "the plan is the job file the JSON states, imported by `methodic import fio`'s rules; fio's JSON leaves \
         out options that take no value (time_based, stonewall, group_reporting, norandommap): the notes above \
         say which were worked out"
            .into(),
    );
    if hosts.len() > 1 {
        note.notes.push(format!(
            "run on {} hosts by fio --client ({}): each step is fio's `All clients` total",
            hosts.len(),
            hosts.join(", ")
        ));
    }
    let which = latency_words(&jobs);
    note.notes.push(format!("latency: {which}, as fio reported it"));
    // fio's runtime leaves ramp_time out, as methodic's record window
    // does: each step's value is made as its plan step says, in the same
    // words as a methodic run's, so that compare finds no difference there.
    note.notes.push(
        "values: I/Os over each job's runtime, which leaves ramp_time out, as fio reports them: a step average \
         over the record window"
            .into(),
    );
    let io_steps = plan.steps.iter().filter(|s| matches!(s.action.kind(), "measure" | "together"));
    let threads = thread_numbers(&results);
    let mut logs = Logs::default();
    let steps = groups
        .iter()
        .zip(io_steps)
        .map(|(g, s)| ImportedStep {
            computed: Some(computed(s, ValueKind::StepAverage)),
            span: span(&results, g[0].clones[0]),
            series: if results.clients { None } else { series(&results, g, &threads, log, &mut logs) },
            ..step(g)
        })
        .collect();
    note.notes.extend(logs.notes());
    Ok(ImportedRun {
        note,
        methodology,
        plan,
        host: unstated_host(match hosts.as_slice() {
            [one] => Some(one.clone()),
            _ => None,
        }),
        engine: engine(&results, &jobs),
        steps,
    })
}

fn has_bins(r: &FioResults) -> bool {
    r.jobs.iter().any(|j| dirs(j).any(|d| d.reported().is_some_and(|(l, _)| !l.bins.is_empty())))
}

fn dirs(j: &FioJob) -> impl Iterator<Item = &FioDirection> {
    [&j.read, &j.write, &j.trim].into_iter().flatten()
}

/// The jobs whose numbers make the steps, and the hosts of a client run:
/// for one host its own jobs, for several fio's `All clients` totals.
fn chosen_jobs(r: &FioResults) -> (Vec<&FioJob>, Vec<String>) {
    let mut hosts: Vec<String> = Vec::new();
    for j in &r.jobs {
        if let Some(h) = &j.host
            && h != "All clients"
            && !hosts.contains(h)
        {
            hosts.push(h.clone());
        }
    }
    let jobs = if hosts.len() > 1 {
        r.jobs.iter().filter(|j| j.host.as_deref() == Some("All clients")).collect()
    } else {
        r.jobs.iter().filter(|j| j.host.as_deref() != Some("All clients")).collect()
    };
    (jobs, hosts)
}

/// One fio job as the steps know it: its clones (numjobs without
/// group_reporting) together.
struct Job<'a> {
    name: &'a str,
    clones: Vec<&'a FioJob>,
}

/// The jobs by fio group, in the file's order; a job's clones (same name,
/// same group, one after the other) together.
fn groups<'a>(jobs: &[&'a FioJob]) -> Vec<Vec<Job<'a>>> {
    let mut out: Vec<Vec<Job<'a>>> = Vec::new();
    let mut last_group = None;
    for j in jobs {
        if last_group != Some(j.group) || out.is_empty() {
            out.push(Vec::new());
            last_group = Some(j.group);
        }
        let group = out.last_mut().expect("pushed above");
        match group.last_mut() {
            Some(job) if job.name == j.name => job.clones.push(j),
            _ => group.push(Job { name: &j.name, clones: vec![j] }),
        }
    }
    out
}

/// The job file the JSON states: `[global]`'s options, each job's, and
/// the value-less options worked out (with a note for each).
fn job_file(r: &FioResults, groups: &[Vec<Job<'_>>]) -> (String, Vec<String>) {
    let mut text = String::from("[global]\n");
    for (k, v) in &r.global {
        text.push_str(&format!("{k}={v}\n"));
    }
    let mut notes = Vec::new();
    let mut looped = Vec::new();
    for (g, group) in groups.iter().enumerate() {
        for (k, job) in group.iter().enumerate() {
            let first = job.clones[0];
            text.push_str(&format!("\n[{}]\n", job.name));
            for (o, v) in &first.options {
                text.push_str(&format!("{o}={v}\n"));
            }
            if g > 0 && k == 0 {
                text.push_str("stonewall\n");
            }
            if went_round(r, first) {
                text.push_str("time_based\n");
                looped.push(format!("[{}]", job.name));
            }
        }
    }
    if groups.len() > 1 {
        notes.push(format!(
            "stonewall: worked out from fio's groups ({} groups, each run after the one before)",
            groups.len()
        ));
    }
    if !looped.is_empty() {
        notes.push(format!(
            "time_based: worked out for {}, which moved more bytes than its size",
            looped.join(", ")
        ));
    }
    (text, notes)
}

/// Whether a job moved more than its size: it went round its region
/// again, which only `time_based` does.
fn went_round(r: &FioResults, j: &FioJob) -> bool {
    let Some((_, size)) = size(r, j) else { return false };
    let moved: u64 = dirs(j).map(|d| d.bytes).sum();
    moved > size
}

/// Each job's first thread number and how many threads it stands for (from 1, in the file's order, as fio
/// numbers the threads its logs are named by: `init.c`, `gen_log_name`),
/// by the job's place in the file's list: a job is one thread, or with
/// `group_reporting` (its clones in one entry) `numjobs` of them.
fn thread_numbers(r: &FioResults) -> Vec<(*const FioJob, u64, u64)> {
    let grouped = |j: &FioJob| {
        let on = |v: Option<&String>| v.is_some_and(|v| v != "0");
        on(j.options.get("group_reporting")) || on(r.global.get("group_reporting"))
    };
    let mut next = 1;
    r.jobs
        .iter()
        .map(|j| {
            let first = next;
            let clones = if grouped(j) {
                option(r, j, "numjobs").and_then(|n| n.parse().ok()).unwrap_or(1)
            } else {
                1
            };
            let clones = clones.max(1);
            next += clones;
            (j as *const FioJob, first, clones)
        })
        .collect()
}

/// A job's option, or `[global]`'s.
fn option<'a>(r: &'a FioResults, j: &'a FioJob, name: &str) -> Option<&'a String> {
    j.options.get(name).or_else(|| r.global.get(name))
}

/// What the logs said, for the note.
#[derive(Default)]
struct Logs {
    read: Vec<String>,
    missing: Vec<String>,
    per_io: Vec<String>,
}

impl Logs {
    fn notes(&self) -> Vec<String> {
        let mut out = Vec::new();
        if !self.read.is_empty() {
            out.push(format!(
                "series: fio's per-interval logs {} (IOPS and bandwidth added up over a step's threads, completion \
                 latency weighted by each thread's I/Os; fio logs no percentile an interval)",
                self.read.join(", ")
            ));
        }
        if !self.missing.is_empty() {
            out.push(format!("series: not read: {} not found beside the JSON file", self.missing.join(", ")));
        }
        if !self.per_io.is_empty() {
            out.push(format!(
                "series: not read for {}: without log_avg_msec fio logs each I/O, not intervals",
                self.per_io.join(", ")
            ));
        }
        out
    }
}

/// A step's series from the logs of its jobs' threads: rows of the logs'
/// interval (`log_avg_msec`), each line placed at the interval its time
/// rounds to. `None` when no thread of the step asked for an IOPS log, or
/// none was found.
fn series(
    r: &FioResults,
    group: &[Job<'_>],
    threads: &[(*const FioJob, u64, u64)],
    log: &dyn Fn(&str) -> Option<String>,
    said: &mut Logs,
) -> Option<(Vec<methodic_results::series::Row>, f64)> {
    let mut at: BTreeMap<u64, FioInterval> = BTreeMap::new();
    let mut interval_ms = 0;
    for entry in group.iter().flat_map(|j| j.clones.iter().copied()) {
        let Some(prefix) = option(r, entry, "write_iops_log") else {
            continue;
        };
        let avg: u64 = option(r, entry, "log_avg_msec").and_then(|v| v.parse().ok()).unwrap_or(0);
        if avg == 0 {
            said.per_io.push(format!("[{}]", entry.name));
            continue;
        }
        interval_ms = avg;
        let (first, clones) =
            threads.iter().find(|(p, _, _)| std::ptr::eq(*p, entry)).map_or((1, 1), |(_, n, c)| (*n, *c));
        let per_job = option(r, entry, "per_job_logs").is_none_or(|v| v != "0");
        let name = |pre: &str, kind: &str, n: u64| {
            if per_job { format!("{pre}_{kind}.{n}.log") } else { format!("{pre}_{kind}.log") }
        };
        let slot = |t: u64| ((t as f64 / avg as f64).round() as u64).max(1);
        let scale = if r.microseconds { 1000.0 } else { 1.0 };
        for n in first..first + clones {
            let file = name(prefix, "iops", n);
            let Some(text) = log(&file) else {
                said.missing.push(file);
                continue;
            };
            said.read.push(file);
            let mut ios_of: BTreeMap<(u64, usize), f64> = BTreeMap::new();
            for (t, v, d) in read_log(&text) {
                at.entry(slot(t)).or_default().iops[d] += v;
                *ios_of.entry((slot(t), d)).or_default() += v;
            }
            if let Some(bw) = option(r, entry, "write_bw_log").and_then(|p| log(&name(p, "bw", n))) {
                // Only into intervals the IOPS log has: a row is an
                // interval with I/Os counted.
                for (t, v, _) in read_log(&bw) {
                    if let Some(s) = at.get_mut(&slot(t)) {
                        s.kib_s += v;
                    }
                }
            }
            if let Some(lat) = option(r, entry, "write_lat_log").and_then(|p| log(&name(p, "clat", n))) {
                // fio times its latency log's windows apart from its IOPS
                // log's (here 250, 500, ... against 392, 641, ...): each
                // goes to the interval its time rounds to, weighted by the
                // I/Os this thread logged there.
                for (t, v, d) in read_log(&lat) {
                    let ios = ios_of.get(&(slot(t), d)).copied().unwrap_or(0.0);
                    if let Some(s) = at.get_mut(&slot(t)).filter(|_| ios > 0.0) {
                        s.lat_weighted_ns += v * scale * ios;
                        s.lat_ios += ios;
                    }
                }
            }
        }
    }
    if at.is_empty() {
        return None;
    }
    Some((FioInterval::rows(at, interval_ms), interval_ms as f64 / 1000.0))
}

/// The span a job states (`size`), of a target whose size fio's JSON does
/// not give; `None` when the job has no `size` (fio then uses the whole
/// file or device, whose size is not stated).
fn span(r: &FioResults, j: &FioJob) -> Option<(String, u64, u64)> {
    let (said, bytes) = size(r, j)?;
    Some((format!("size={said}"), bytes, 0))
}

/// A job's `size` as it says it and in bytes, read with its `kb_base` as
/// fio reads it; `None` without one, or for what the job import refuses.
fn size<'a>(r: &'a FioResults, j: &'a FioJob) -> Option<(&'a str, u64)> {
    let said = option(r, j, "size")?;
    Some((said, size_in_bytes(said, option(r, j, "kb_base").map(String::as_str))?))
}

fn refused(input: &ResultsFile<'_>, errors: &[methodic_fio::ImportError]) -> RunError {
    let said: Vec<String> = errors
        .iter()
        .map(|e| {
            let mut s = String::new();
            if let Some(sec) = &e.section {
                s.push_str(&format!("[{sec}] "));
            }
            if let Some(o) = &e.option {
                s.push_str(&format!("`{o}`: "));
            }
            s.push_str(&e.detail);
            s
        })
        .collect();
    let hint = errors.iter().find_map(|e| e.hint.clone());
    let e = RunError::new(format!(
        "{}: the job its results are of cannot be imported by `methodic import fio`'s rules: {}",
        input.file,
        said.join("; ")
    ));
    match hint {
        Some(h) => e.hint(h),
        None => e,
    }
}

/// fio's `time` line (`Sun Dec  6 10:00:00 2026`), as written.
fn results_time(text: &str) -> Option<String> {
    let start = text.find('{')?;
    let v: serde_json::Value = serde_json::Deserializer::from_str(&text[start..]).into_iter().next()?.ok()?;
    v["time"].as_str().map(str::to_string)
}

fn targets(r: &FioResults, jobs: &[&FioJob]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for f in jobs.iter().filter_map(|j| j.options.get("filename")).chain(r.global.get("filename")) {
        if !out.contains(f) {
            out.push(f.clone());
        }
    }
    out
}

fn engine(r: &FioResults, jobs: &[&FioJob]) -> Option<String> {
    let mut seen: Vec<&String> = Vec::new();
    for e in jobs.iter().filter_map(|j| j.options.get("ioengine")).chain(r.global.get("ioengine")) {
        if !seen.contains(&e) {
            seen.push(e);
        }
    }
    // fio's default engine is psync on Linux.
    match seen.as_slice() {
        [] => Some("fio ioengine=psync (fio's default)".into()),
        many => {
            Some(format!("fio ioengine={}", many.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")))
        }
    }
}

/// Which latency fio gave percentiles of, over the file's jobs.
fn latency_words(jobs: &[&FioJob]) -> String {
    let mut words: BTreeMap<&str, ()> = BTreeMap::new();
    for j in jobs {
        for d in dirs(j) {
            if let Some((_, w)) = d.reported() {
                words.insert(w, ());
            }
        }
    }
    match words.keys().copied().collect::<Vec<_>>().as_slice() {
        [] => "none stated".into(),
        ["issue to completion"] => {
            "fio's completion latency (issue to completion: fio's default, without the submission time that \
             methodic's latency includes)"
                .into()
        }
        ["submission to completion"] => {
            "fio's total latency (submission to completion, lat_percentiles)".into()
        }
        _ => "fio's completion latency for some jobs and total latency for others".into(),
    }
}

/// A step's numbers: every job and clone of the group, each direction added up.
fn step(group: &[Job<'_>]) -> ImportedStep {
    // With several jobs (a together step), each job's own numbers, its
    // clones added up, in the group's order (the plan's job order).
    let jobs = match group {
        [_] => Vec::new(),
        _ => group
            .iter()
            .map(|j| {
                let each = |pick: fn(&FioJob) -> Option<&FioDirection>| -> Option<Direction> {
                    let parts: Vec<Direction> =
                        j.clones.iter().filter_map(|c| pick(c)).map(direction).collect();
                    merged(&parts.iter().collect::<Vec<_>>())
                };
                Part {
                    name: j.name.to_string(),
                    read: each(|c| c.read.as_ref()),
                    write: each(|c| c.write.as_ref()),
                }
            })
            .collect(),
    };
    let all: Vec<&FioJob> = group.iter().flat_map(|j| j.clones.iter().copied()).collect();
    let each = |pick: fn(&FioJob) -> Option<&FioDirection>| -> Option<Direction> {
        let parts: Vec<Direction> = all.iter().filter_map(|j| pick(j)).map(direction).collect();
        merged(&parts.iter().collect::<Vec<_>>())
    };
    let errors: Vec<String> = all
        .iter()
        .filter(|j| j.error != 0)
        .map(|j| format!("fio reported error {} for job {}", j.error, j.name))
        .collect();
    ImportedStep {
        read: each(|j| j.read.as_ref()),
        write: each(|j| j.write.as_ref()),
        trim: each(|j| j.trim.as_ref()),
        error: (!errors.is_empty()).then(|| errors.join("; ")),
        span: None,
        not_stated: Vec::new(),
        parts: Vec::new(),
        jobs,
        total_latency: None,
        series: None,
        computed: None,
    }
}

fn direction(d: &FioDirection) -> Direction {
    let lat = d.reported().map(|(l, _)| l);
    Direction {
        ios: d.ios,
        bytes: d.bytes,
        seconds: d.runtime_ms as f64 / 1000.0,
        iops: d.iops,
        bytes_per_second: d.bandwidth,
        latency: lat.map(|l| StatedLatency {
            mean: Some(l.mean),
            min: Some(l.min as f64),
            max: Some(l.max as f64),
            percentiles: l.percentiles.iter().map(|&(p, ns)| (p, ns as f64)).collect(),
        }),
        bins: lat.map(|l| l.bins.clone()).unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const JSON: &str = include_str!("../../../tests/fio-results/fio-3.33.json");
    const JSON_PLUS: &str = include_str!("../../../tests/fio-results/fio-3.33-plus.json");
    const CLIENT: &str = include_str!("../../../tests/fio-results/fio-3.33-client.json");
    const FIO2: &str = include_str!("../../../tests/fio-results/fio-2-shape.json");
    /// fio 3.33 here, json+, running the job file `methodic export fio`
    /// made of tests/fio-results/roundtrip.method on a 64MiB file.
    const EXPORTED: &str = include_str!("../../../tests/fio-results/fio-3.33-exported.json");

    fn run(text: &str) -> ImportedRun {
        fio_run(&ResultsFile { text, file: "run.json", name: "run" }).unwrap()
    }

    #[test]
    fn each_group_is_a_step_with_fio_s_numbers() {
        let r = run(JSON);
        assert_eq!(r.steps.len(), 2);
        assert_eq!(r.note.version.as_deref(), Some("fio-3.33"));
        let ids: Vec<&str> =
            r.plan.steps.iter().filter(|s| s.action.kind() == "measure").map(|s| s.id.as_str()).collect();
        assert_eq!(ids.len(), 2, "{ids:?}");
        let parsed = read_fio_results(JSON).unwrap();
        let read = r.steps[0].read.as_ref().unwrap();
        assert_eq!(read.ios, parsed.jobs[0].read.as_ref().unwrap().ios);
        assert!(r.steps[1].write.is_some(), "the 70/30 mix wrote");
        assert!(r.note.notes.iter().any(|n| n.starts_with("stonewall")), "{:?}", r.note.notes);
        assert!(r.note.not_stated.contains(&"host".to_string()));
        assert!(r.methodology.contains("measure randread"), "{}", r.methodology);
    }

    #[test]
    fn json_plus_bins_are_kept_and_the_format_named() {
        let r = run(JSON_PLUS);
        assert!(r.note.format.starts_with("JSON+"));
        assert!(r.steps.iter().all(|s| !s.read.as_ref().unwrap().bins.is_empty()));
        let r = run(JSON);
        assert!(r.note.format.starts_with("JSON ("));
    }

    #[test]
    fn a_client_run_names_its_host_and_fio_2_its_units() {
        let r = run(CLIENT);
        assert_eq!(r.host.hostname.as_deref(), Some("127.0.0.1"));
        let r = run(FIO2);
        assert!(r.note.notes.iter().any(|n| n.contains("microseconds")), "{:?}", r.note.notes);
    }

    #[test]
    fn a_job_that_moved_more_than_its_size_was_time_based() {
        let text = JSON.replacen("\"size\" : \"32M\"", "\"size\" : \"1M\"", 1);
        assert_ne!(text, JSON, "the fixture's size is where the test expects it");
        let r = run(&text);
        assert!(r.note.notes.iter().any(|n| n.starts_with("time_based")), "{:?}", r.note.notes);
        assert!(!r.methodology.contains("until transferred"), "{}", r.methodology);
    }

    #[test]
    fn a_job_the_job_import_refuses_is_refused_with_its_option() {
        let text = JSON.replacen("\"rw\" : \"randread\"", "\"rw\" : \"randread\", \"zonemode\" : \"zbd\"", 1);
        let e = fio_run(&ResultsFile { text: &text, file: "run.json", name: "run" }).unwrap_err();
        assert!(e.text.contains("zonemode"), "{}", e.text);
        let e =
            fio_run(&ResultsFile { text: "[global]\nrw=read\n", file: "job.fio", name: "x" }).unwrap_err();
        assert!(e.text.starts_with("job.fio: "), "{}", e.text);
    }

    #[test]
    fn a_job_methodic_exported_comes_back_as_the_same_i_o() {
        use methodic_compiler::plan::IoKey;
        let r = run(EXPORTED);
        let source = include_str!("../../../tests/fio-results/roundtrip.method");
        let own = methodic_compiler::compile(source, &Default::default()).unwrap().plan;
        let keys = |p: &methodic_compiler::plan::Plan| -> Vec<IoKey> {
            p.steps.iter().flat_map(IoKey::of_step).collect()
        };
        assert_eq!(keys(&r.plan), keys(&own), "{}", r.methodology);
        assert!(r.note.notes.iter().any(|n| n.contains("completion latency")), "{:?}", r.note.notes);
        assert_eq!(r.engine.as_deref(), Some("fio ioengine=io_uring"));
    }

    #[test]
    fn jobs_of_one_group_are_a_together_step_with_a_record_each() {
        // The second job in the first one's group: fio ran them at once.
        let text = EXPORTED.replacen("\"groupid\" : 1", "\"groupid\" : 0", 1);
        assert_ne!(text, EXPORTED, "the fixture's second group is where the test expects it");
        let r = run(&text);
        assert_eq!(r.steps.len(), 1, "{}", r.methodology);
        assert!(r.methodology.contains("together"), "{}", r.methodology);
        let parsed = read_fio_results(&text).unwrap();
        let jobs: Vec<(Option<u64>, Option<u64>)> = r.steps[0]
            .jobs
            .iter()
            .map(|j| (j.read.as_ref().map(|d| d.ios), j.write.as_ref().map(|d| d.ios)))
            .collect();
        let each: Vec<(Option<u64>, Option<u64>)> = parsed
            .jobs
            .iter()
            .map(|j| (j.read.as_ref().map(|d| d.ios), j.write.as_ref().map(|d| d.ios)))
            .collect();
        assert_eq!(jobs, each);
        // Written, each job is a job of the step's record.
        let dir = std::env::temp_dir().join(format!("methodic-fio-together-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        methodic_results::imported::write(&r, &dir).unwrap();
        let loaded = methodic_results::manifest::load(&dir).unwrap();
        let names: Vec<&str> = loaded.steps[0].jobs.iter().map(|j| j.name.as_str()).collect();
        assert_eq!(names.len(), 2, "{names:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn per_interval_logs_beside_the_json_are_each_step_s_series() {
        // fio 3.33 here: tests/fio-results/logs/logs.fio, 250ms logs of
        // IOPS, bandwidth and latency; the second job has two clones.
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fio-results/logs");
        let text = std::fs::read_to_string(dir.join("logs.json")).unwrap();
        let read = |name: &str| std::fs::read_to_string(dir.join(name)).ok();
        let r =
            fio_run_with_logs(&ResultsFile { text: &text, file: "logs.json", name: "logs" }, &read).unwrap();
        let parsed = read_fio_results(&text).unwrap();
        for (k, step) in r.steps.iter().enumerate() {
            let (rows, interval) = step.series.as_ref().unwrap_or_else(|| panic!("step {k} has no series"));
            assert_eq!(*interval, 0.25);
            // Each thread's log, added up: its whole intervals hold most of
            // the step's I/Os, never more (fio logs no last part interval;
            // a clone left out would halve the second step's, one read
            // twice double it).
            let logged: f64 = rows.iter().map(|row| row.iops * row.seconds).sum();
            let ios = step.summary().total.ios as f64;
            assert!(logged > ios * 0.6 && logged < ios * 1.05, "step {k}: {logged} logged, {ios} counted");
            assert!(rows.iter().all(|row| row.mb_s > 0.0 && row.mean_latency_us > 0.0), "step {k}");
        }
        assert!(
            r.steps[1].series.as_ref().unwrap().0.iter().any(|row| row.write_iops > 0.0),
            "the mix wrote"
        );
        let said = r.note.notes.join("\n");
        assert!(said.contains("logs_iops.3.log"), "the second clone's log is read: {said}");
        assert_eq!(parsed.jobs.len(), 3);
        // Without the logs: no series, and the note says which are missing.
        let r = fio_run_with_logs(&ResultsFile { text: &text, file: "logs.json", name: "logs" }, &|_| None)
            .unwrap();
        assert!(r.steps.iter().all(|s| s.series.is_none()));
        assert!(r.note.notes.iter().any(|n| n.contains("not found beside")), "{:?}", r.note.notes);
    }

    #[test]
    fn sizes_read_with_fio_s_units_and_kb_base() {
        assert_eq!(size_in_bytes("32M", None), Some(32 << 20));
        assert_eq!(size_in_bytes("4k", None), Some(4096));
        assert_eq!(size_in_bytes("512", None), Some(512));
        assert_eq!(size_in_bytes("50%", None), None);
        // fio's default kb_base=1024 reads IEC units as powers of 1000,
        // which the job import refuses; kb_base=1000 reads them as said.
        assert_eq!(size_in_bytes("1GiB", None), None);
        assert_eq!(size_in_bytes("1GiB", Some("1000")), Some(1 << 30));
        assert_eq!(size_in_bytes("1k", Some("1000")), Some(1000));
    }
}
