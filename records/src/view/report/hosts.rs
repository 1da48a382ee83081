//! A run on many hosts (`--hosts`): its manifest and records in, out the
//! views every report format draws: each host in words (name, fio version,
//! OS and architecture, target, and what its fio server does not report)
//! for the setup header, and for each step that ran on them a table of a
//! row for all hosts together (the step's summary, or a rounds cell's last
//! round) and a row a host (`hosts` of steps.jsonl). A run on one machine
//! has none of these: its report is as it was.

use methodic_compiler::plan::{Action, Units};
use serde::Serialize;

use crate::manifest::{HostNote, Loaded, Manifest};
use crate::numbers::Rates;
use crate::record::{HostRates, StepResult};
use crate::units::num;
use crate::view::points::rate_unit;
use crate::view::report::spread::cell_words;

/// One step's hosts (a rounds step: one cell's), as every format draws
/// them.
#[derive(Debug, Serialize)]
pub struct HostTable {
    pub step: usize,
    pub id: String,
    /// `cell 2 (rnd4k_read QD 4), its last round`, `job reads`; empty for
    /// the step's one I/O run.
    pub part: String,
    /// `3 hosts, 900 to 1100 IOPS each (18.2% apart)`.
    pub line: String,
    pub columns: Vec<String>,
    /// `all 3 hosts` first (where the step has a summary), then a row a
    /// host in the order the records give them.
    pub rows: Vec<Vec<String>>,
}

/// `all 3 hosts`: the label of the row of every host together.
pub fn all_words(n: usize) -> String {
    format!("all {n} hosts")
}

/// Each step's hosts, a table a step (a rounds step: a table a cell; a
/// `together` step: a table a job), in step order; none for a run on one
/// machine.
pub fn host_tables(run: &Loaded) -> Vec<HostTable> {
    let units = run.manifest.plan.conventions.units;
    let mut out = Vec::new();
    for r in &run.steps {
        // A table a rounds cell (in the plan's order), a table a
        // `together` job (in the records' order), or the step's one.
        let mut parts: Vec<(Option<u32>, Option<&str>)> = Vec::new();
        for h in &r.hosts {
            let key = (h.cell, h.job.as_deref());
            if !parts.contains(&key) {
                parts.push(key);
            }
        }
        parts.sort_by_key(|(cell, _)| *cell);
        for (cell, job) in parts {
            let hosts: Vec<&HostRates> =
                r.hosts.iter().filter(|h| h.cell == cell && h.job.as_deref() == job).collect();
            let (part, total) = match (cell, job) {
                (Some(c), _) => (cell_words(run, r, c), last_round(run, r, c).map(|s| (s.seconds, &s.total))),
                (None, Some(name)) => (
                    format!("job {name}"),
                    r.jobs.iter().find(|j| j.name == name).map(|j| (j.summary.seconds, &j.summary.total)),
                ),
                (None, None) => (String::new(), r.summary.as_ref().map(|s| (s.seconds, &s.total))),
            };
            let mut rows = Vec::with_capacity(hosts.len() + 1);
            if let Some((seconds, total)) = total {
                rows.push(row(all_words(hosts.len()), "-".into(), total, seconds, units));
            }
            rows.extend(
                hosts.iter().map(|h| row(h.host.clone(), h.target.clone(), &h.total, h.seconds, units)),
            );
            out.push(HostTable {
                step: r.index,
                id: r.id.clone(),
                part,
                line: line(&hosts),
                columns: columns(units),
                rows,
            });
        }
    }
    out
}

/// The last round of a rounds step's cell `c` (from 1, in the plan's
/// order): what its hosts' rows are of.
fn last_round<'a>(run: &Loaded, r: &'a StepResult, c: u32) -> Option<&'a crate::numbers::Summary> {
    let Some(Action::Rounds { cells, .. }) = run.plan_step(r).map(|s| &s.action) else { return None };
    let cell = cells.get(c.checked_sub(1)? as usize)?;
    r.cells
        .as_ref()?
        .iter()
        .find(|k| k.workload == cell.workload.name && k.qd == cell.qd.total)
        .map(|k| &k.last)
}

/// The columns of a host table, the rate in the run's units.
fn columns(units: Units) -> Vec<String> {
    ["host", "target", "IOPS", rate_unit(units), "mean us", "p99 us", "p99.9 us", "max us", "seconds"]
        .iter()
        .map(|c| c.to_string())
        .collect()
}

fn row(host: String, target: String, r: &Rates, seconds: f64, units: Units) -> Vec<String> {
    let l = &r.latency_us;
    vec![
        host,
        target,
        num(Some(r.iops), 0),
        num(Some(if units == Units::Binary { r.mib_s } else { r.mb_s }), 1),
        num(Some(l.mean), 1),
        num(Some(l.p99), 1),
        num(Some(l.p99_9), 1),
        num(Some(l.max), 1),
        num(Some(seconds), 1),
    ]
}

/// `3 hosts, 900 to 1100 IOPS each (18.2% apart: bench-07 the fewest,
/// 10.0.0.3,8765 the most)`.
fn line(hosts: &[&HostRates]) -> String {
    let by = |f: fn(f64, f64) -> bool| {
        hosts.iter().copied().reduce(|a, b| if f(b.total.iops, a.total.iops) { b } else { a })
    };
    let (Some(lo), Some(hi)) = (by(|a, b| a < b), by(|a, b| a > b)) else { return "no host".into() };
    let n = hosts.len();
    if n == 1 {
        return format!("1 host, {} IOPS", num(Some(lo.total.iops), 0));
    }
    let apart =
        if hi.total.iops > 0.0 { (hi.total.iops - lo.total.iops) / hi.total.iops * 100.0 } else { 0.0 };
    // Hosts alike to the tenth of a percent: no fewest and most to name.
    if format!("{apart:.1}") == "0.0" {
        return format!("{n} hosts, {} IOPS each", num(Some(hi.total.iops), 0));
    }
    format!(
        "{n} hosts, {} to {} IOPS each ({apart:.1}% apart: {} the fewest, {} the most)",
        num(Some(lo.total.iops), 0),
        num(Some(hi.total.iops), 0),
        lo.host,
        hi.host
    )
}

/// `10.0.0.2,8765: bench-05, fio-3.36, Linux x86-64, target /dev/nvme0n1,
/// disk nvme0n1; kernel and CPU not reported by fio`.
pub fn host_words(h: &HostNote) -> String {
    let mut parts = vec![
        h.hostname.clone().unwrap_or_else(|| "hostname not reported".into()),
        h.fio_version.clone().unwrap_or_else(|| "fio version not reported".into()),
    ];
    let system: Vec<&str> = [&h.os, &h.arch].into_iter().flatten().map(String::as_str).collect();
    parts.push(if system.is_empty() { "OS not reported".into() } else { system.join(" ") });
    parts.push(format!("target {}", h.target));
    if !h.disks.is_empty() {
        parts.push(format!("{} {}", if h.disks.len() == 1 { "disk" } else { "disks" }, h.disks.join(" ")));
    }
    if let Some(k) = &h.kernel {
        parts.push(format!("kernel {k}"));
    }
    if let Some(c) = &h.cpu {
        parts.push(format!("CPU {c}"));
    }
    let missing = unreported(h);
    let missing = if missing.is_empty() { String::new() } else { format!("; {missing} not reported by fio") };
    format!("{}: {}{missing}", h.host, parts.join(", "))
}

/// `kernel and CPU`, `CPU`, or nothing: what the host's fio server did not
/// say of it.
fn unreported(h: &HostNote) -> String {
    match (h.kernel.is_none(), h.cpu.is_none()) {
        (true, true) => "kernel and CPU".into(),
        (true, false) => "kernel".into(),
        (false, true) => "CPU".into(),
        (false, false) => String::new(),
    }
}

/// `on 3 hosts at once, through fio's client/server mode`: how the run's
/// I/O ran, for the header; `None` for a run on one machine.
pub fn ran_on(m: &Manifest) -> Option<String> {
    (!m.hosts.is_empty()).then(|| {
        format!(
            "on {} at once, through fio's client/server mode (methodic itself ran on {})",
            methodic_compiler::plan::plural(m.hosts.len() as u64, "host", "hosts"),
            m.host.hostname.as_deref().unwrap_or("an unnamed host")
        )
    })
}

/// The setup header's `Hosts` table: how the I/O ran, then each host's
/// rows (numbered as the `Device` table numbers targets); empty for a run
/// on one machine.
pub fn header_rows(m: &Manifest) -> Vec<(String, String)> {
    let Some(ran) = ran_on(m) else { return Vec::new() };
    let mut rows = vec![("I/O ran".to_string(), ran)];
    for (i, h) in m.hosts.iter().enumerate() {
        let n = i + 1;
        let or = |v: &Option<String>, missing: &str| v.clone().unwrap_or_else(|| missing.to_string());
        rows.push((
            format!("host {n}"),
            match &h.hostname {
                Some(name) => format!("{} ({name})", h.host),
                None => h.host.clone(),
            },
        ));
        rows.push((format!("target {n}"), h.target.clone()));
        if !h.disks.is_empty() {
            rows.push((format!("disks {n}"), h.disks.join(", ")));
        }
        rows.push((format!("fio {n}"), or(&h.fio_version, "not reported")));
        let system: Vec<&str> = [&h.os, &h.arch].into_iter().flatten().map(String::as_str).collect();
        rows.push((
            format!("OS {n}"),
            if system.is_empty() { "not reported".into() } else { system.join(" ") },
        ));
        rows.push((format!("kernel {n}"), or(&h.kernel, "not reported by fio")));
        rows.push((format!("CPU {n}"), or(&h.cpu, "not reported by fio")));
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::{Exports, Format};
    use crate::view::report::Report;
    use crate::view::report::header::header;
    use crate::view::testing::{HOSTS, run};

    fn cells(row: &[&str]) -> Vec<String> {
        row.iter().map(|c| c.to_string()).collect()
    }

    #[test]
    fn a_step_on_three_hosts_has_a_row_for_all_of_them_then_one_a_host() {
        let run = run(true);
        let tables = host_tables(&run);
        let parts: Vec<(usize, &str)> = tables.iter().map(|t| (t.step, t.part.as_str())).collect();
        assert_eq!(
            parts,
            [
                (1, ""),
                (2, "cell 1 (rnd4k_write QD 4), its last round"),
                (2, "cell 2 (rnd4k_read QD 4), its last round")
            ]
        );
        let t = &tables[0];
        assert_eq!(
            t.columns,
            cells(&["host", "target", "IOPS", "MB/s", "mean us", "p99 us", "p99.9 us", "max us", "seconds"])
        );
        assert_eq!(
            t.rows,
            [
                cells(&["all 3 hosts", "-", "3000", "12.3", "10.5", "40.0", "95.0", "900.0", "30.2"]),
                cells(&[
                    "10.0.0.2,8765",
                    "/dev/nvme0n1",
                    "1000",
                    "4.1",
                    "10.0",
                    "38.0",
                    "90.0",
                    "700.0",
                    "30.0"
                ]),
                cells(&[
                    "10.0.0.3,8765",
                    "/dev/nvme0n1",
                    "1100",
                    "4.5",
                    "9.5",
                    "36.0",
                    "88.0",
                    "650.0",
                    "30.2"
                ]),
                cells(&[
                    "bench-07",
                    "/mnt/scratch/fio.dat",
                    "900",
                    "3.7",
                    "12.0",
                    "44.0",
                    "99.0",
                    "900.0",
                    "30.1"
                ]),
            ]
        );
        assert_eq!(
            t.line,
            "3 hosts, 900 to 1100 IOPS each (18.2% apart: bench-07 the fewest, 10.0.0.3,8765 the most)"
        );
        // Hosts alike name no fewest and most.
        let alike: Vec<HostRates> = run.steps[0]
            .hosts
            .iter()
            .map(|h| HostRates { total: run.steps[0].hosts[0].total.clone(), ..h.clone() })
            .collect();
        assert_eq!(
            line(&alike.iter().collect::<Vec<_>>()),
            format!("3 hosts, {:.0} IOPS each", alike[0].total.iops)
        );
        // A rounds cell's rows are its last round: all hosts together are
        // the cell's last round, not its window average.
        let last = &run.steps[1].cells.as_ref().unwrap()[0].last;
        assert_eq!(tables[1].rows[0][2], format!("{:.0}", last.total.iops));
        let hosts: Vec<&str> = tables[1].rows[1..].iter().map(|r| r[0].as_str()).collect();
        assert_eq!(hosts, HOSTS.map(|h| h.0));
        assert_eq!(
            tables[2].rows[3],
            cells(&[
                "bench-07",
                "/mnt/scratch/fio.dat",
                "790",
                "3.2",
                "5.1",
                "15.5",
                "32.0",
                "230.0",
                "10.0"
            ])
        );
        // Every host's IOPS add up to the row of all of them.
        for t in &tables {
            let sum: f64 = t.rows[1..].iter().map(|r| r[2].parse::<f64>().unwrap()).sum();
            assert_eq!(sum, t.rows[0][2].parse::<f64>().unwrap(), "{}", t.part);
        }
    }

    #[test]
    fn every_format_shows_the_hosts_and_a_run_on_one_machine_none() {
        let many = Report::new(run(true));
        let table = many.export(Format::Table).unwrap();
        assert!(
            table.contains("\nhosts, step 1 (measure/rnd4k_read-qd32): 3 hosts, 900 to 1100 IOPS each"),
            "{table}"
        );
        assert!(table.contains("│ all 3 hosts   │ -                    │ 3000 │ 12.3 │"), "{table}");
        assert!(table.contains("│ bench-07      │ /mnt/scratch/fio.dat │  900 │  3.7 │"), "{table}");
        assert!(table.contains("I/O ran on 3 hosts at once, through fio's client/server mode (methodic itself ran on controller):\n  10.0.0.2,8765: bench-05, fio-3.36, Linux x86-64, target /dev/nvme0n1, disk nvme0n1; kernel and CPU not reported by fio\n"), "{table}");
        assert_eq!(table.matches("all 3 hosts together").count(), 3, "a note on each result row: {table}");
        let md = many.export(Format::Md).unwrap();
        assert!(md.contains("| all 3 hosts | - | 3000 | 12.3 | 10.5 | 40.0 | 95.0 | 900.0 | 30.2 |\n| 10.0.0.2,8765 | /dev/nvme0n1 | 1000 |"), "{md}");
        assert!(md.contains("| kernel 3 | not reported by fio |\n| CPU 3 | not reported by fio |"), "{md}");
        let html = many.export(Format::Html).unwrap();
        assert_eq!(html.matches("<table class=\"results hosts\">").count(), 3);
        assert!(html.contains("<tr><td>all 3 hosts</td><td>-</td><td class=\"num\">3000</td>"), "{html}");
        let csv = many.export(Format::Csv).unwrap();
        let hosts: Vec<&str> = csv.lines().filter(|l| l.contains(",\"host 10.0.0.2,8765")).collect();
        assert_eq!(hosts.len(), 3, "the measurement's and each cell's: {csv}");
        assert!(
            hosts[0].starts_with("1,measure/rnd4k_read-qd32,") && hosts[0].contains(",1000.000,4.096,"),
            "{}",
            hosts[0]
        );
        let json: serde_json::Value = serde_json::from_str(&many.export(Format::Json).unwrap()).unwrap();
        assert_eq!(json["hosts"].as_array().unwrap().len(), 3);
        let first = &json["points"][0]["hosts"];
        assert_eq!(
            (first[2]["host"].as_str(), first[2]["total"]["iops"].as_f64()),
            (Some("bench-07"), Some(900.0))
        );
        assert_eq!(json["points"][2]["hosts"][0]["cell"], 2);

        let one = Report::new(run(false));
        assert!(host_tables(one.run()).is_empty());
        assert!(header(&one.run().manifest).iter().all(|(name, _)| name != "Hosts"));
        for f in Report::formats().into_iter().filter(|f| f.is_text()) {
            let text = one.export(f).unwrap();
            assert!(!text.contains("all 3 hosts") && !text.contains("10.0.0.2"), "{f}: {text}");
        }
    }

    #[test]
    fn the_header_names_each_host_and_what_fio_does_not_report() {
        let m = run(true).manifest;
        let sections = header(&m);
        let names: Vec<&str> = sections.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            ["Platform", "Hosts", "Setup", "Test parameters"],
            "no target here: no Device table"
        );
        let rows = &sections[1].1;
        let get = |k: &str| rows.iter().find(|(key, _)| key == k).map(|(_, v)| v.as_str());
        assert_eq!(get("host 1"), Some("10.0.0.2,8765 (bench-05)"));
        assert_eq!(get("host 3"), Some("bench-07"));
        assert_eq!(get("target 3"), Some("/mnt/scratch/fio.dat"));
        assert_eq!((get("fio 3"), get("OS 3")), (Some("fio-3.33"), Some("Linux")));
        assert_eq!(
            (get("kernel 2"), get("CPU 2")),
            (Some("not reported by fio"), Some("not reported by fio"))
        );
        assert_eq!(get("disks 3"), None);
        let mut h = m.hosts[2].clone();
        assert_eq!(
            host_words(&h),
            "bench-07: hostname not reported, fio-3.33, Linux, target /mnt/scratch/fio.dat; kernel and CPU not reported by fio"
        );
        h.kernel = Some("6.12.1".into());
        (h.os, h.fio_version) = (None, None);
        assert_eq!(
            host_words(&h),
            "bench-07: hostname not reported, fio version not reported, OS not reported, target /mnt/scratch/fio.dat, kernel 6.12.1; CPU not reported by fio"
        );
    }

    /// Every format of a report on three hosts, as snapshots to read.
    #[test]
    fn a_report_on_three_hosts_in_every_format() {
        let report = Report::new(run(true));
        insta::with_settings!({ snapshot_path => "../../../snapshots", prepend_module_to_snapshot => false, omit_expression => true }, {
            for f in Report::formats().into_iter().filter(|f| f.is_text()) {
                insta::assert_snapshot!(format!("three-hosts-report.{f}"), report.export(f).unwrap());
            }
        });
    }
}
