//! The `csv` format: comma-separated values, a header then a row each,
//! quoted where a field needs it ([`line()`]). A report: a row a point, with
//! its workload, values, latencies and checklist, and where it has them
//! its job, open-loop rate and QoS search (the probes are in the JSON),
//! its trims and what `verify` checked,
//! then a row for each device and worker its I/O spread over, each host
//! of a run on many hosts (`part` is `host` and its name, `part_device`
//! its target) and each of its bursts (`part` names it). A plan's steps: a
//! row a step.

use methodic_compiler::plan::IoMode;

use super::{ExportError, Exporter};
use crate::manifest::Loaded;
use crate::numbers::Rates;
use crate::view::plan::{HEADERS, PlanSteps};
use crate::view::points::{Point, step_of};
use crate::view::report::Report;
use crate::view::report::spread::{device_words, vs_group};

/// The `csv` exporter: a header and rows.
pub struct Csv;

impl Exporter<Report> for Csv {
    fn export(&self, r: &Report) -> Result<String, ExportError> {
        Ok(csv(&r.run, &r.pts))
    }
}

/// A row a step, in `view::plan::HEADERS`' order.
impl Exporter<PlanSteps> for Csv {
    fn export(&self, p: &PlanSteps) -> Result<String, ExportError> {
        let mut out = line(&HEADERS);
        for r in p.rows() {
            out.push_str(&line(&r));
        }
        Ok(out)
    }
}

/// One CSV line: the fields joined by commas, a field with a comma, quote
/// or newline in quotes (its quotes doubled), and a newline.
pub fn line(fields: &[impl AsRef<str>]) -> String {
    let quoted: Vec<String> = fields
        .iter()
        .map(|f| {
            let f = f.as_ref();
            if f.contains([',', '"', '\n']) {
                format!("\"{}\"", f.replace('"', "\"\""))
            } else {
                f.to_string()
            }
        })
        .collect();
    format!("{}\n", quoted.join(","))
}

/// The report's columns: a point's, then those of its parts' rows.
const HEADER: [&str; 56] = [
    "step",
    "id",
    "phase",
    "kind",
    "workload",
    "blocks",
    "read_percent",
    "random_percent",
    "qd_total",
    "workers",
    "per_worker",
    "iops",
    "mb_s",
    "mib_s",
    "reported_value",
    "average_iops",
    "average_mb_s",
    "average_mib_s",
    "peak_iops",
    "peak_mb_s",
    "peak_mib_s",
    "peak_interval_s",
    "mean_latency_us",
    "p99_latency_us",
    "max_latency_us",
    "seconds",
    "drive_state",
    "span_bytes",
    "span_percent",
    "value_kind",
    "io",
    "error",
    "job",
    "job_with",
    "rate_asked_iops",
    "rate_started_iops",
    "rate_kept",
    "late_percent",
    "qos_percentile",
    "qos_limit_us",
    "qos_found_iops",
    "qos_found_qd",
    "qos_probes",
    "trim_iops",
    "trim_mean_latency_us",
    "trim_p99_latency_us",
    "verify_checked",
    "verify_mismatches",
    "verify_first_offset",
    "part",
    "part_device",
    "part_workers",
    "vs_group",
    "intervals",
    "burst_start_s",
    "burst_on_s",
];

fn csv(run: &Loaded, pts: &[Point]) -> String {
    let mut out = line(&HEADER);
    for p in pts {
        let c = step_of(run, p).map(|s| &s.checklist);
        let w = p.workload.as_ref();
        let blocks = w.map_or(String::new(), |w| {
            w.blocks
                .iter()
                .map(|b| format!("{}:{}", b.size.0, b.share.as_f64()))
                .collect::<Vec<_>>()
                .join(" ")
        });
        let f = |v: Option<f64>| v.filter(|v| v.is_finite()).map_or(String::new(), |v| format!("{v:.3}"));
        let mut row = vec![
            p.step.to_string(),
            p.id.clone(),
            p.phase.clone().unwrap_or_default(),
            p.kind.clone(),
            w.map_or(String::new(), |w| w.name.clone()),
            blocks,
            w.map_or(String::new(), |w| w.read.as_f64().to_string()),
            w.map_or(String::new(), |w| w.random.as_f64().to_string()),
            p.qd.map_or(String::new(), |q| q.total.to_string()),
            p.qd.map_or(String::new(), |q| q.workers.to_string()),
            p.qd.map_or(String::new(), |q| q.per_worker.to_string()),
            f(p.iops),
            f(Some(p.mb_s)),
            f(Some(p.mib_s)),
            if p.value == p.rate_value {
                p.value.words().to_string()
            } else {
                format!("IOPS {}, rate {}", p.value.words(), p.rate_value.words())
            },
            f(p.average_iops),
            f(Some(p.average_mb_s)),
            f(Some(p.average_mib_s)),
            f(p.peak_iops),
            f(p.peak_mb_s),
            f(p.peak_mib_s),
            f(p.peak_interval_s),
            f(p.mean_latency_us),
            f(p.p99_latency_us),
            f(p.max_latency_us),
            format!("{:.3}", p.seconds),
            c.and_then(|c| c.drive_state.as_ref()).map_or(String::new(), |d| d.description.clone()),
            c.and_then(|c| c.span.as_ref()).map_or(String::new(), |s| s.bytes.to_string()),
            c.and_then(|c| c.span.as_ref())
                .filter(|s| s.percent_of_capacity.is_finite())
                .map_or(String::new(), |s| s.percent_of_capacity.to_string()),
            c.map_or(String::new(), |c| c.value_kind.kind.words().to_string()),
            c.and_then(|c| c.cache.io).map_or(String::new(), |io| {
                match io {
                    IoMode::Direct => "direct",
                    IoMode::Buffered => "buffered",
                }
                .to_string()
            }),
            p.error.clone().unwrap_or_default(),
            p.job.as_ref().map_or(String::new(), |j| j.name.clone()),
            p.job.as_ref().map_or(String::new(), |j| j.with.join(" ")),
            f(p.open_loop.as_ref().map(|o| o.asked_iops)),
            f(p.open_loop.as_ref().map(|o| o.started_iops)),
            p.open_loop.as_ref().map_or(String::new(), |o| o.kept.to_string()),
            f(p.open_loop.as_ref().map(|o| o.late_percent)),
            p.qos.as_ref().map_or(String::new(), |q| q.percentile.clone()),
            f(p.qos.as_ref().map(|q| q.limit_us)),
            f(p.qos.as_ref().and_then(|q| q.found_iops)),
            p.qos.as_ref().and_then(|q| q.found_qd).map_or(String::new(), |d| d.to_string()),
            p.qos.as_ref().map_or(String::new(), |q| q.points.len().to_string()),
            f(p.trim.as_ref().map(|t| t.iops)),
            f(p.trim.as_ref().map(|t| t.mean_latency_us)),
            f(p.trim.as_ref().map(|t| t.p99_latency_us)),
            p.verify.as_ref().map_or(String::new(), |v| v.checked.to_string()),
            p.verify.as_ref().map_or(String::new(), |v| v.mismatches.to_string()),
            p.verify.as_ref().and_then(|v| v.first.first()).map_or(String::new(), |m| m.offset.to_string()),
        ];
        // The parts' columns are empty on the point's own row.
        row.resize(HEADER.len(), String::new());
        out.push_str(&line(&row));
        out.push_str(&parts(run, p, &row));
    }
    out
}

/// The rows of a point's parts, after its own: each device and each
/// worker its I/O spread over, each host, each burst. Each has the point's columns
/// that say what ran (`step` to `per_worker`, and `job`), the part's
/// numbers (its rates as its own average, no peak) and the part named;
/// the point's other columns are left empty.
fn parts(run: &Loaded, p: &Point, point_row: &[String]) -> String {
    let at = |name: &str| HEADER.iter().position(|h| *h == name).expect("a column of the header");
    let f = |v: f64| if v.is_finite() { format!("{v:.3}") } else { String::new() };
    let blank = || {
        let mut row = point_row.to_vec();
        for cell in &mut row[at("iops")..] {
            cell.clear();
        }
        row[at("job")].clone_from(&point_row[at("job")]);
        row
    };
    let rated = |row: &mut Vec<String>, r: &Rates, seconds: f64| {
        for (c, v) in [("iops", r.iops), ("mb_s", r.mb_s), ("mib_s", r.mib_s)] {
            row[at(c)] = f(v);
            row[at(&format!("average_{c}"))] = f(v);
        }
        row[at("reported_value")] = "step average".into();
        row[at("mean_latency_us")] = f(r.latency_us.mean);
        row[at("p99_latency_us")] = f(r.latency_us.p99);
        row[at("max_latency_us")] = f(r.latency_us.max);
        row[at("seconds")] = format!("{seconds:.3}");
    };
    let mut out = String::new();
    if let Some(s) = &p.spread {
        for d in &s.devices {
            let mut row = blank();
            rated(&mut row, &d.rates, d.seconds);
            row[at("part")] = format!("device {}", d.target);
            row[at("part_device")] = device_words(&run.manifest.targets, d.target, &d.path);
            row[at("part_workers")] = d.workers.iter().map(u32::to_string).collect::<Vec<_>>().join(" ");
            row[at("vs_group")] = vs_group(&d.noise);
            row[at("intervals")] = d.noise.intervals.to_string();
            out.push_str(&line(&row));
        }
        for w in &s.workers {
            let mut row = blank();
            rated(&mut row, &w.rates, w.seconds);
            row[at("part")] = format!("worker {}", w.worker);
            row[at("part_device")] = device_words(&run.manifest.targets, w.target, &w.path);
            row[at("part_workers")] = w.worker.to_string();
            row[at("vs_group")] = vs_group(&w.noise);
            row[at("intervals")] = w.noise.intervals.to_string();
            out.push_str(&line(&row));
        }
    }
    // A rounds measurement's hosts are of its last round.
    let (share, of) = if p.kind == "rounds" { ("last round", ", last round") } else { ("step average", "") };
    for h in &p.hosts {
        let mut row = blank();
        rated(&mut row, &h.total, h.seconds);
        row[at("reported_value")] = share.into();
        row[at("part")] = format!("host {}{of}", h.host);
        row[at("part_device")].clone_from(&h.target);
        out.push_str(&line(&row));
    }
    for b in &p.bursts {
        let mut row = blank();
        row[at("iops")] = f(b.iops);
        row[at("average_iops")] = f(b.iops);
        row[at("reported_value")] = "burst average".into();
        row[at("mean_latency_us")] = b.mean_latency_us.map_or(String::new(), f);
        row[at("seconds")] = format!("{:.3}", b.on_s);
        row[at("part")] = format!("burst {}", b.index + 1);
        row[at("burst_start_s")] = f(b.start_s);
        row[at("burst_on_s")] = f(b.on_s);
        out.push_str(&line(&row));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_quotes_what_needs_it() {
        assert_eq!(line(&["a", "b,c", "d\"e"]), "a,\"b,c\",\"d\"\"e\"\n");
    }
}
