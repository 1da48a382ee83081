//! fio's JSON results read into one shape, whichever fio wrote them: the
//! first step of importing others' results (issue 32), kept apart from
//! any results directory so that each shape is tested on its own.
//!
//! The shapes, from fio's `stat.c` (axboe/fio; `add_ddir_status_json`):
//! - fio 3.0 and later (`fio-2.99` on, commit d6bb626e, 2017): latencies
//!   in nanoseconds under `slat_ns`, `clat_ns` and `lat_ns`; a
//!   `percentile` object of only the percentiles asked for; with
//!   `--output-format=json+` a `bins` object of each latency bucket's
//!   count, keyed by the bucket's value in nanoseconds; `bw_bytes`.
//! - fio 2 (2.21 read here): the same objects named `slat`, `clat` and
//!   `lat`, in microseconds; `percentile` padded to 20 keys with
//!   `"0.00": 0`; `bins` keyed in microseconds; no `bw_bytes` (`bw` in
//!   KiB/s).
//! - `fio --client`: the jobs under `client_stats`, each with its
//!   `hostname`, and with several hosts an `All clients` total.
//! - Lines before the JSON: with `--output` fio writes what it has to say
//!   (errors, warnings) into the same file first; they are kept, not
//!   parsed.

use std::collections::BTreeMap;

use serde_json::Value;

/// Why a file is not fio's JSON results.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct FioResultsError(String);

/// A file of fio's JSON results.
#[derive(Debug, Clone, PartialEq)]
pub struct FioResults {
    /// `fio-3.33`, as fio wrote it; `None` when the file does not say.
    pub version: Option<String>,
    /// The lines before the JSON (fio's messages), as written.
    pub said_before: Vec<String>,
    /// `[global]`'s options, as fio lists them.
    pub global: BTreeMap<String, String>,
    /// Each job (or group, with `group_reporting`), in the file's order;
    /// from `client_stats` for `fio --client`.
    pub jobs: Vec<FioJob>,
    /// The file came from `fio --client` (`client_stats`).
    pub clients: bool,
    /// Latencies were written in microseconds (fio 2) and are converted.
    pub microseconds: bool,
}

/// One job's results.
#[derive(Debug, Clone, PartialEq)]
pub struct FioJob {
    pub name: String,
    pub group: u64,
    /// The host that ran it, for `fio --client`; `All clients` is the
    /// total of several.
    pub host: Option<String>,
    /// fio's error number for the job; 0 when it ran without one.
    pub error: i64,
    /// The job's own options, as fio lists them.
    pub options: BTreeMap<String, String>,
    pub read: Option<Direction>,
    pub write: Option<Direction>,
    pub trim: Option<Direction>,
}

/// One direction's numbers; `None` above when it did no I/O.
#[derive(Debug, Clone, PartialEq)]
pub struct Direction {
    pub ios: u64,
    pub bytes: u64,
    /// Milliseconds the direction ran.
    pub runtime_ms: u64,
    pub iops: f64,
    /// Bytes a second.
    pub bandwidth: f64,
    /// Submission to completion (fio's `lat`).
    pub total: Option<Latency>,
    /// Issue to completion (fio's `clat`).
    pub completion: Option<Latency>,
}

/// A latency's statistics, in nanoseconds.
#[derive(Debug, Clone, PartialEq)]
pub struct Latency {
    pub min: u64,
    pub max: u64,
    pub mean: f64,
    pub stddev: f64,
    /// `(percent, nanoseconds)`, in fio's order.
    pub percentiles: Vec<(f64, u64)>,
    /// With json+: `(bucket value in nanoseconds, count)`, by value.
    pub bins: Vec<(u64, u64)>,
}

impl Direction {
    /// The latency whose percentiles fio gave: the total when it has
    /// them (`lat_percentiles=1`), else the completion latency (fio's
    /// default), with which it is.
    pub fn reported(&self) -> Option<(&Latency, &'static str)> {
        match (&self.total, &self.completion) {
            (Some(t), _) if !t.percentiles.is_empty() => Some((t, "submission to completion")),
            (_, Some(c)) if !c.percentiles.is_empty() => Some((c, "issue to completion")),
            (Some(t), _) => Some((t, "submission to completion")),
            (None, Some(c)) => Some((c, "issue to completion")),
            (None, None) => None,
        }
    }
}

/// The samples of one of fio's per-interval logs (`write_iops_log`,
/// `write_bw_log`, `write_lat_log`): each line `time, value, direction,
/// block size[, offset[, priority]]` (fio's `iolog.c`, `flush_samples`),
/// the time in milliseconds since the job began, the direction 0 read, 1
/// write, 2 trim; a line that does not read so is skipped, as are other
/// directions (3, a sync). As `(milliseconds, value, direction)`.
pub fn read_log(text: &str) -> Vec<(u64, f64, usize)> {
    text.lines()
        .filter_map(|l| {
            let mut f = l.split(',').map(str::trim);
            let t: u64 = f.next()?.parse().ok()?;
            let v: f64 = f.next()?.parse().ok()?;
            let d: usize = f.next()?.parse().ok()?;
            (d < 3 && v.is_finite()).then_some((t, v, d))
        })
        .collect()
}

/// Reads `text`, a file fio wrote with `--output-format=json` or `json+`.
pub fn read_fio_results(text: &str) -> Result<FioResults, FioResultsError> {
    // The JSON starts the file, or the first line that starts with `{`.
    let lead = text.len() - text.trim_start().len();
    let start = if text[lead..].starts_with('{') { Some(lead) } else { text.find("\n{").map(|i| i + 1) }
        .ok_or_else(|| {
            FioResultsError("no JSON object in the file: not fio's --output-format=json".into())
        })?;
    let said_before: Vec<String> =
        text[..start].lines().map(str::trim_end).filter(|l| !l.is_empty()).map(str::to_string).collect();
    let mut stream = serde_json::Deserializer::from_str(&text[start..]).into_iter::<Value>();
    let v = match stream.next() {
        Some(Ok(v)) => v,
        Some(Err(e)) if e.is_eof() => {
            return Err(FioResultsError(format!(
                "the JSON ends early (line {} of it): a truncated file, or fio was stopped while writing",
                e.line()
            )));
        }
        Some(Err(e)) => return Err(FioResultsError(format!("not JSON fio writes: {e}"))),
        None => return Err(FioResultsError("no JSON object in the file".into())),
    };
    let (list, clients) = match (v.get("jobs"), v.get("client_stats")) {
        (Some(j), _) => (j, false),
        (None, Some(c)) => (c, true),
        (None, None) => {
            return Err(FioResultsError(
                "a JSON object without `jobs` or `client_stats`: not fio's results".into(),
            ));
        }
    };
    let list = list.as_array().ok_or_else(|| FioResultsError("`jobs` is not a list".into()))?;
    if list.is_empty() {
        return Err(FioResultsError("the file lists no job".into()));
    }
    let microseconds =
        list.iter().any(|j| j["read"].get("clat").is_some() || j["write"].get("clat").is_some());
    let jobs = list.iter().map(|j| job(j, clients, microseconds)).collect::<Result<Vec<_>, _>>()?;
    Ok(FioResults {
        version: v["fio version"].as_str().map(str::to_string),
        said_before,
        global: options(&v["global options"]),
        jobs,
        clients,
        microseconds,
    })
}

fn options(v: &Value) -> BTreeMap<String, String> {
    v.as_object()
        .into_iter()
        .flatten()
        .map(|(k, v)| (k.clone(), v.as_str().map_or_else(|| v.to_string(), str::to_string)))
        .collect()
}

fn job(j: &Value, clients: bool, microseconds: bool) -> Result<FioJob, FioResultsError> {
    let name = j["jobname"]
        .as_str()
        .ok_or_else(|| FioResultsError("a job without `jobname`: not fio's results".into()))?
        .to_string();
    let direction = |key: &str| direction(&j[key], microseconds);
    Ok(FioJob {
        group: j["groupid"].as_u64().unwrap_or(0),
        host: if clients { j["hostname"].as_str().map(str::to_string) } else { None },
        error: j["error"].as_i64().unwrap_or(0),
        options: options(&j["job options"]),
        read: direction("read"),
        write: direction("write"),
        trim: direction("trim"),
        name,
    })
}

fn direction(d: &Value, microseconds: bool) -> Option<Direction> {
    let ios = d["total_ios"].as_u64()?;
    if ios == 0 {
        return None;
    }
    let bytes = d["io_bytes"].as_u64().unwrap_or(0);
    let runtime_ms = d["runtime"].as_u64().unwrap_or(0);
    let bandwidth = match d["bw_bytes"].as_f64() {
        Some(b) => b,
        // fio 2: KiB/s.
        None => d["bw"].as_f64().unwrap_or(0.0) * 1024.0,
    };
    let (total, completion) = if microseconds { ("lat", "clat") } else { ("lat_ns", "clat_ns") };
    Some(Direction {
        ios,
        bytes,
        runtime_ms,
        iops: d["iops"].as_f64().unwrap_or(0.0),
        bandwidth,
        total: latency(&d[total], microseconds),
        completion: latency(&d[completion], microseconds),
    })
}

fn latency(l: &Value, microseconds: bool) -> Option<Latency> {
    l.as_object()?;
    let scale = if microseconds { 1000.0 } else { 1.0 };
    let ns = |v: &Value| (v.as_f64().unwrap_or(0.0) * scale).round() as u64;
    let mut percentiles: Vec<(f64, u64)> = l["percentile"]
        .as_object()
        .into_iter()
        .flatten()
        // fio 2 pads the list with "0.00": 0.
        .filter_map(|(k, v)| k.parse::<f64>().ok().filter(|p| *p > 0.0).map(|p| (p, ns(v))))
        .collect();
    percentiles.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut bins: Vec<(u64, u64)> = l["bins"]
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(k, v)| Some(((k.parse::<f64>().ok()? * scale).round() as u64, v.as_u64()?)))
        .collect();
    bins.sort_unstable();
    Some(Latency {
        min: ns(&l["min"]),
        max: ns(&l["max"]),
        mean: l["mean"].as_f64().unwrap_or(0.0) * scale,
        stddev: l["stddev"].as_f64().unwrap_or(0.0) * scale,
        percentiles,
        bins,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// fio 3.33 on this machine, `--output-format=json`: two jobs, the
    /// second a 70/30 mix after a stonewall.
    const JSON: &str = include_str!("../../tests/fio-results/fio-3.33.json");
    /// The same job file with `--output-format=json+`.
    const JSON_PLUS: &str = include_str!("../../tests/fio-results/fio-3.33-plus.json");
    /// `fio --client=ip:127.0.0.1,8799 --output-format=json+` against a
    /// `fio --server` on loopback.
    const CLIENT: &str = include_str!("../../tests/fio-results/fio-3.33-client.json");
    /// fio 2's shape, written from fio-2.21's `stat.c`
    /// (`add_ddir_status_json`): microseconds, a padded percentile list.
    const FIO2: &str = include_str!("../../tests/fio-results/fio-2-shape.json");

    #[test]
    fn fio3_json_has_each_job_and_direction_in_nanoseconds() {
        let r = read_fio_results(JSON).unwrap();
        assert_eq!(r.version.as_deref(), Some("fio-3.33"));
        assert!(!r.clients && !r.microseconds && r.said_before.is_empty());
        assert_eq!(r.global["size"], "32M");
        let names: Vec<&str> = r.jobs.iter().map(|j| j.name.as_str()).collect();
        assert_eq!(names, ["randread", "mixed"]);
        let read = r.jobs[0].read.as_ref().unwrap();
        assert!(r.jobs[0].write.is_none() && r.jobs[0].trim.is_none());
        assert_eq!(read.bytes, read.ios * 4096);
        // fio's iops is its I/Os over its runtime.
        let iops = read.ios as f64 / (read.runtime_ms as f64 / 1000.0);
        assert!((read.iops - iops).abs() / iops < 0.01, "{} vs {iops}", read.iops);
        let (lat, said) = read.reported().unwrap();
        assert_eq!(said, "issue to completion", "fio's default percentiles are the completion latency's");
        assert!(lat.percentiles.iter().any(|(p, _)| *p == 99.0));
        assert!(lat.min as f64 <= lat.mean && lat.mean <= lat.max as f64);
        assert!(lat.bins.is_empty(), "json has no bins");
        let mixed = &r.jobs[1];
        assert_eq!(mixed.options["rwmixread"], "70");
        let (rd, wr) = (mixed.read.as_ref().unwrap(), mixed.write.as_ref().unwrap());
        let share = rd.ios as f64 / (rd.ios + wr.ios) as f64;
        assert!((0.6..0.8).contains(&share), "{share}");
    }

    #[test]
    fn json_plus_bins_add_up_to_the_ios() {
        let r = read_fio_results(JSON_PLUS).unwrap();
        for j in &r.jobs {
            for d in [&j.read, &j.write].into_iter().flatten() {
                let c = d.completion.as_ref().unwrap();
                assert_eq!(c.bins.iter().map(|(_, n)| n).sum::<u64>(), d.ios, "{}", j.name);
                assert!(c.bins.windows(2).all(|w| w[0].0 < w[1].0));
                assert!(
                    c.bins.first().unwrap().0 <= c.min.max(1) * 2 && c.bins.last().unwrap().0 >= c.max / 2
                );
            }
        }
    }

    #[test]
    fn a_client_file_names_the_host_of_each_job() {
        let r = read_fio_results(CLIENT).unwrap();
        assert!(r.clients);
        assert_eq!(r.jobs.len(), 1);
        assert_eq!(r.jobs[0].host.as_deref(), Some("127.0.0.1"));
        assert!(r.jobs[0].read.as_ref().unwrap().ios > 0);
    }

    #[test]
    fn fio2_microseconds_become_nanoseconds_and_padding_is_dropped() {
        let r = read_fio_results(FIO2).unwrap();
        assert!(r.microseconds);
        assert_eq!(r.version.as_deref(), Some("fio-2.21"));
        let read = r.jobs[0].read.as_ref().unwrap();
        assert_eq!(read.bandwidth, 40_000.0 * 1024.0, "fio 2's bw is KiB/s");
        let c = read.completion.as_ref().unwrap();
        assert_eq!((c.min, c.max), (50_000, 9_000_000));
        assert_eq!(c.percentiles, [(50.0, 100_000), (99.0, 400_000), (99.99, 8_000_000)]);
        assert_eq!(c.bins, [(100_000, 9000), (400_000, 999), (8_000_000, 1)]);
    }

    #[test]
    fn messages_before_the_json_are_kept_and_broken_files_refused() {
        let with = format!("fio: job 'x' (file.fio) has no size\nnote: both iodepth >= 1\n{JSON}");
        let r = read_fio_results(&with).unwrap();
        assert_eq!(r.said_before.len(), 2);
        assert_eq!(r.jobs.len(), 2);
        let cut = &JSON[..JSON.len() / 2];
        assert!(read_fio_results(cut).unwrap_err().to_string().contains("ends early"));
        assert!(read_fio_results("[global]\nrw=read\n").unwrap_err().to_string().contains("no JSON object"));
        assert!(read_fio_results("{\"a\": 1}").unwrap_err().to_string().contains("not fio's results"));
        assert!(read_fio_results("{\"jobs\": []}").unwrap_err().to_string().contains("no job"));
    }
}
