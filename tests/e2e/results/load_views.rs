//! `methodic report` and `methodic compare` on rehearsals of the loads
//! beyond one closed-loop job: a `together` step's jobs each in their own
//! row (and all of them merged), open-loop rates asked against kept, a QoS
//! search's verdict and every probe (in HTML, a chart of latency
//! percentiles against IOPS drawn in headless Chromium), their points in the
//! JSON and CSV exports; compare pairing jobs by what they do, whatever
//! their names and order, and naming a changed rate, arrival process or set
//! of jobs as a difference that can explain a gap.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::browser;
use crate::common;
use common::{methodic, text};

/// Rehearses the methodology `source` into `name`'s folder under cargo's
/// scratch folder for tests; the results directory.
fn rehearse(name: &str, source: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("load-views-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("m.method");
    std::fs::write(&file, source).unwrap();
    let out = dir.join("results");
    let o = methodic(&[
        "run",
        "--rehearse",
        "--no-ceiling",
        "--seed",
        "7",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{name}: {}", text(&o.stderr));
    out
}

/// The rehearsals of the three specs that use these loads, made once and
/// side by side (a rehearsal mostly waits on its timers): together with a
/// rate, QoS searches, rates as shares of a measurement.
fn specs() -> &'static (PathBuf, PathBuf, PathBuf) {
    static DIRS: OnceLock<(PathBuf, PathBuf, PathBuf)> = OnceLock::new();
    DIRS.get_or_init(|| {
        std::thread::scope(|s| {
            let t = s.spawn(|| common::rehearsal("mixed-read-under-write"));
            let q = s.spawn(|| common::rehearsal("qos-latency-ceiling"));
            let f = common::rehearsal("fixed-load-latency");
            (t.join().unwrap(), q.join().unwrap(), f)
        })
    })
}

fn report(dir: &Path, format: &str) -> String {
    let o = methodic(&["report", dir.to_str().unwrap(), "--format", format]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    text(&o.stdout)
}

/// The records of `dir`'s steps.jsonl, one a step.
fn steps(dir: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(dir.join("steps.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn report_shows_each_job_of_a_together_step_and_all_of_them() {
    let (dir, _, _) = specs();
    let t = report(dir, "table");
    // Three write rates: three steps of two jobs, each job a row of the
    // result table, and each step a table of its jobs and their total.
    assert_eq!(t.matches("together: job reads, with writes").count(), 3, "{t}");
    // The open-loop words after it are longer when a loaded machine did
    // not keep the rate, and the cell wraps: its start is what is counted.
    assert_eq!(t.matches("together: job writes, with reads").count(), 3, "{t}");
    assert_eq!(t.matches(": together: 2 jobs at once (reads, writes)").count(), 3, "{t}");
    assert_eq!(t.matches("│ all jobs ").count(), 3, "{t}");
    // A rate kept reads "at R", one a loaded machine did not keep "asked R".
    for rate in ["100.0", "200.0", "400.0"] {
        let asked = [format!("at {rate} MB/s (uniform)"), format!("asked {rate} MB/s (uniform)")];
        assert!(asked.iter().any(|a| t.contains(a.as_str())), "the writes' rate asked: {t}");
    }
    // Each job's numbers are its own record's, not the step's.
    let records = steps(dir);
    let together: Vec<&serde_json::Value> = records.iter().filter(|s| s["kind"] == "together").collect();
    assert_eq!(together.len(), 3);
    let v: serde_json::Value = serde_json::from_str(&report(dir, "json")).unwrap();
    let jobs: Vec<&serde_json::Value> =
        v["points"].as_array().unwrap().iter().filter(|p| p["kind"] == "together").collect();
    assert_eq!(jobs.len(), 6, "a point a job");
    for (p, r) in jobs.chunks(2).zip(&together) {
        for (point, job) in p.iter().zip(r["jobs"].as_array().unwrap()) {
            assert_eq!(point["job"]["name"], job["name"]);
            assert_eq!(point["iops"], job["summary"]["total"]["iops"], "{point}");
            assert_eq!(point["max_latency_us"], job["summary"]["total"]["latency_us"]["max"]);
            assert_eq!(point["open_loop"], job["io"]["rate"].clone(), "the job's rate, or none");
        }
        assert_ne!(p[0]["iops"], r["summary"]["total"]["iops"], "a job is not the whole step");
        // The writes' open loop keeps its own floor, run before and after
        // the jobs; the closed-loop reads have none.
        let floor = &r["jobs"][1]["io"]["rate"]["floor"];
        assert_eq!(floor["runs"].as_array().map(Vec::len), Some(4), "{floor}");
        assert!(r["jobs"][0]["io"]["rate"].is_null(), "{}", r["jobs"][0]);
    }
    assert!(jobs[1]["label"].as_str().unwrap().starts_with("writes: seq128k_write QD 8 at 100.0 MB/s"));
    let csv = report(dir, "csv");
    let mut lines = csv.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| head.iter().position(|h| *h == name).unwrap();
    let rows: Vec<Vec<String>> = lines.map(split_csv).collect();
    let writes: Vec<&Vec<String>> = rows.iter().filter(|r| r[col("job")] == "writes").collect();
    assert_eq!(writes.len(), 3, "{csv}");
    for w in &writes {
        assert_eq!(w[col("job_with")], "reads");
        assert!(w[col("rate_asked_iops")].parse::<f64>().unwrap() > 0.0, "{w:?}");
        assert!(["true", "false"].contains(&w[col("rate_kept")].as_str()));
    }
    let md = report(dir, "md");
    assert_eq!(md.matches("| all jobs | - | 12 |").count(), 3, "{md}");
}

/// A CSV line's fields, quotes undone.
fn split_csv(line: &str) -> Vec<String> {
    let (mut out, mut field, mut quoted) = (Vec::new(), String::new(), false);
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => out.push(std::mem::take(&mut field)),
            (c, _) => field.push(c),
        }
    }
    out.push(field);
    out
}

#[test]
fn report_shows_a_qos_search_its_verdict_and_every_probe() {
    let (_, dir, _) = specs();
    let records = steps(dir);
    let searches: Vec<&serde_json::Value> = records.iter().filter(|s| s["kind"] == "qos").collect();
    assert_eq!(searches.len(), 2);
    let t = report(dir, "table");
    let v: serde_json::Value = serde_json::from_str(&report(dir, "json")).unwrap();
    let points: Vec<&serde_json::Value> =
        v["points"].as_array().unwrap().iter().filter(|p| p["kind"] == "qos").collect();
    assert_eq!(points.len(), 2, "a point a search");
    for (r, p) in searches.iter().zip(&points) {
        let q = &r["qos"];
        let verdict = q["verdict"].as_str().unwrap();
        assert!(t.contains(&format!("): {verdict}\n")), "the verdict over the probes: {t}");
        assert!(t.contains(&format!("qos: {verdict}")), "and beside the step's row");
        assert_eq!(p["qos"]["points"].as_array().unwrap().len(), q["points"].as_array().unwrap().len());
        assert_eq!(p["iops"], r["summary"]["total"]["iops"], "the probe at the rate found");
        let name = p["workload"]["name"].as_str().unwrap();
        assert_eq!(p["label"], format!("{name} QD 32: p99.99 under 1ms"));
        if q["found_iops"].is_null() {
            assert!(p["value_note"].as_str().unwrap().contains("closed-loop probe"), "{p}");
        }
    }
    // A row a probe, the closed-loop probe first, the one found marked.
    let probes: usize = searches.iter().map(|r| r["qos"]["points"].as_array().unwrap().len()).sum();
    // One closed-loop probe a search, or more where one completed nothing
    // and ran again for longer.
    let closed = searches
        .iter()
        .flat_map(|r| r["qos"]["points"].as_array().unwrap())
        .filter(|p| p["rate_iops"].is_null());
    assert_eq!(t.matches("│ closed loop ").count(), closed.count(), "{t}");
    let rows = t
        .lines()
        .filter(|l| ["│ met ", "│ not met ", "│ cannot judge (the host) "].iter().any(|m| l.contains(m)))
        .count();
    assert_eq!(rows, probes, "{t}");
    let found = searches.iter().filter(|r| !r["qos"]["found_iops"].is_null()).count();
    assert_eq!(t.matches(" (found) ").count(), found, "{t}");
    let csv = report(dir, "csv");
    assert_eq!(csv.lines().filter(|l| l.contains(",p99.99,1000.000,")).count(), 2, "{csv}");
}

/// A search by queue depth at both ends the rehearsal can decide: a limit
/// of 1ns no I/O meets (depth 1 fails: one probe, nothing found, the
/// numbers are depth 1's) and one of 10s every I/O meets (1, 2, 4 per
/// worker: the ceiling met it). The bisection between is the plan's rule,
/// tested beside it.
#[test]
fn report_shows_a_qos_search_by_queue_depth_and_the_depth_found() {
    let dir = rehearse(
        "qos-depth",
        "methodology \"depth\" version \"1.0\"\n\
         conventions { queue_depth per_worker }\n\
         target { span 16MiB; workers 2 }\n\
         workload r { random; block 4KiB; read 100% }\n\
         qos r qd 4 { p99 under 1ns; probe 1s; by qd }\n\
         qos r qd 4 { p99 under 10s; probe 1s; by qd }\n",
    );
    let records = steps(&dir);
    let (none, all) = (&records[0]["qos"], &records[1]["qos"]);
    let depths = |q: &serde_json::Value| -> Vec<u64> {
        q["points"].as_array().unwrap().iter().map(|p| p["qd"].as_u64().unwrap()).collect()
    };
    assert_eq!(
        (depths(none), &none["found_qd"], &none["by"]),
        (vec![1], &serde_json::Value::Null, &"qd".into())
    );
    assert!(none["verdict"].as_str().unwrap().contains("even at QD 1: no depth met the limit"), "{none}");
    assert_eq!(
        (depths(all), &all["found_qd"], &all["failed_qd"]),
        (vec![1, 2, 4], &4.into(), &serde_json::Value::Null)
    );
    assert!(all["verdict"].as_str().unwrap().contains("up to the ceiling, QD 4 per worker"), "{all}");
    let io = &records[1]["io"];
    assert_eq!((&io["threads"], &io["depth"]), (&2.into(), &4.into()), "the probe at QD 4 per worker: {io}");
    let t = report(&dir, "table");
    assert_eq!(t.matches("│ QD per worker ").count(), 2, "{t}");
    assert_eq!(t.matches(" (found) ").count(), 1, "{t}");
    let v: serde_json::Value = serde_json::from_str(&report(&dir, "json")).unwrap();
    let labels: Vec<&str> =
        v["points"].as_array().unwrap().iter().map(|p| p["label"].as_str().unwrap()).collect();
    assert_eq!(
        labels,
        ["r QD up to 8: p99 under 1ns, by queue depth", "r QD up to 8: p99 under 10s, by queue depth"]
    );
    assert!(
        v["points"][0]["value_note"].as_str().unwrap().contains("the depth-1 probe's"),
        "{}",
        v["points"][0]
    );
    let csv = report(&dir, "csv");
    let header = split_csv(csv.lines().next().unwrap());
    let column = header.iter().position(|h| h == "qos_found_qd").expect("a qos_found_qd column");
    let part = header.iter().position(|h| h == "part").unwrap();
    // A row a step; its workers' rows (`part`) say nothing of the search.
    let rows: Vec<Vec<String>> = csv.lines().skip(1).map(split_csv).filter(|r| r[part].is_empty()).collect();
    let found: Vec<&str> = rows.iter().map(|r| r[column].as_str()).collect();
    assert_eq!(found, ["", "4"], "{csv}");
}

#[test]
fn report_says_each_open_loop_rate_asked_and_kept_and_flags_a_missed_one() {
    let (_, _, dir) = specs();
    let records = steps(dir);
    let open: Vec<&serde_json::Value> = records.iter().filter(|s| !s["io"]["rate"].is_null()).collect();
    assert_eq!(open.len(), 3, "25, 50 and 75% of the maximum");
    let t = report(dir, "table");
    let v: serde_json::Value = serde_json::from_str(&report(dir, "json")).unwrap();
    for r in open {
        let rate = &r["io"]["rate"];
        let asked = rate["asked_iops"].as_f64().unwrap();
        let p = v["points"].as_array().unwrap().iter().find(|p| p["id"] == r["id"]).unwrap();
        assert_eq!(p["label"], format!("rnd4k_read QD 32 at {asked:.0} IOPS"));
        assert_eq!(&p["open_loop"], rate);
        let line = t.lines().find(|l| l.starts_with(&format!("open loop, step {} ", r["index"]))).unwrap();
        assert!(line.contains(&format!("{asked:.0} IOPS (Poisson)")), "{line}");
        // A missed rate is never shown as a result at it; a kept one is
        // not flagged. Which the rehearsal gives depends on the machine:
        // the records decide.
        let note = p["value_note"].as_str().unwrap_or("");
        if rate["kept"] == true {
            assert!(!line.contains("rate not kept") && !note.contains("rate not kept"), "{line}");
        } else {
            assert!(
                line.contains("(rate not kept: its numbers are not a result at the rate asked)"),
                "{line}"
            );
            assert!(note.starts_with("rate not kept (asked "), "{p}");
        }
    }
}

#[test]
fn the_html_report_draws_each_qos_search_in_chromium() {
    let (_, dir, _) = specs();
    let page = Path::new(env!("CARGO_TARGET_TMPDIR")).join("load-views-qos.html");
    let o = methodic(&["report", dir.to_str().unwrap(), "--format", "html", "-o", page.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let shot = page.with_extension("png");
    let r = browser::render(&page, &shot).unwrap_or_else(|e| panic!("{e}"));
    assert!(r.console_errors.is_empty(), "console errors: {:?}", r.console_errors);
    // The loads section, up to the next: two searches, each a chart of
    // four percentiles, the limit and the rate found.
    let start = r.dom.find("Jobs at once, open-loop rates and QoS searches").expect("the loads section");
    let end = start + r.dom[start..].find("Every result").unwrap();
    let section = &r.dom[start..end];
    assert_eq!(section.matches("latency by IOPS achieved, each probe").count(), 4, "2 titles, 2 tooltips");
    let paths = browser::path_data(section);
    assert_eq!(paths.len(), 8, "p50, p99, p99.9 and p99.99 of each search");
    for d in &paths {
        assert!(d.starts_with('M') && d.matches(" L").count() >= 2, "a drawn line through the probes: {d:?}");
    }
    assert_eq!(section.matches(">limit: p99.99 under 1ms<").count(), 2, "the limit across each chart");
    let found = steps(dir).iter().filter(|s| s["kind"] == "qos" && !s["qos"]["found_iops"].is_null()).count();
    assert_eq!(section.matches(">found: ").count(), found, "the rate found marked");
    let _ = std::fs::remove_file(&page);
    let _ = std::fs::remove_file(&shot);
}

/// Reads (closed loop) beside writes (open loop), then the reads open loop
/// alone: `jobs` are the together step's job lines, `rate` the reads'.
fn loads(jobs: &str, rate: &str) -> String {
    format!(
        "methodology \"loads\" version \"1.0\"\n\
         target {{ span 16MiB }}\n\
         workload rnd4k_read {{ random; block 4KiB; read 100% }}\n\
         workload seq128k_write {{ sequential; block 128KiB; read 0% }}\n\
         phase \"load\" {{\n\
         together for 500ms {{\n{jobs}\n}}\n\
         measure rnd4k_read qd 4 rate {rate} for 500ms\n\
         }}\n"
    )
}

const READS: &str = "job reads rnd4k_read qd 4";
const WRITES: &str = "job writes seq128k_write qd 2 workers 1 rate 20MB/s";

fn compare(dirs: &[&Path]) -> (String, serde_json::Value) {
    let mut args = vec!["compare"];
    args.extend(dirs.iter().map(|d| d.to_str().unwrap()));
    let o = methodic(&args);
    assert!(o.status.success(), "{}", text(&o.stderr));
    args.extend(["--format", "json"]);
    let j = methodic(&args);
    (text(&o.stdout), serde_json::from_slice(&j.stdout).unwrap())
}

/// The fields of the differences between paired steps.
fn fields(v: &serde_json::Value) -> Vec<String> {
    v["differences"].as_array().unwrap().iter().map(|d| d["field"].as_str().unwrap().to_string()).collect()
}

#[test]
fn compare_pairs_jobs_by_what_they_do_whatever_their_names_and_order() {
    let renamed = "job slow seq128k_write qd 2 workers 1 rate 20MB/s\njob fast rnd4k_read qd 4";
    let (a, b) = std::thread::scope(|s| {
        let a = s.spawn(|| rehearse("pairs-a", &loads(&format!("{READS}\n{WRITES}"), "2000 iops")));
        (a.join().unwrap(), rehearse("pairs-b", &loads(renamed, "2000 iops")))
    });
    let (t, v) = compare(&[&a, &b]);
    let pairs = v["pairs"].as_array().unwrap();
    let jobs: Vec<(&str, &str)> = pairs
        .iter()
        .filter(|p| p["kind"] == "together")
        .map(|p| (p["values"][0]["job"].as_str().unwrap(), p["values"][1]["job"].as_str().unwrap()))
        .collect();
    assert_eq!(jobs, [("reads", "fast"), ("writes", "slow")], "job to job: {t}");
    assert!(t.contains("together rnd4k_read (4KiB random, 100% read) QD 4 (job reads, with writes)"), "{t}");
    assert!(!t.contains("only in"), "every job and step pairs: {t}");
    let f = fields(&v);
    for same in ["rate", "arrivals", "jobs at once"] {
        assert!(!f.contains(&same.to_string()), "renamed and reordered jobs are the same load: {f:?}");
    }
    for d in [a, b] {
        std::fs::remove_dir_all(d.parent().unwrap()).unwrap();
    }
}

#[test]
fn compare_names_a_changed_rate_arrival_process_and_set_of_jobs() {
    let base = loads(&format!("{READS}\n{WRITES}"), "2000 iops");
    // B: the writes faster and Poisson, the reads alone at another rate.
    let faster =
        loads(&format!("{READS}\njob writes seq128k_write qd 2 workers 1 rate 40MB/s poisson"), "1000 iops");
    // C: another job beside the two.
    let more = loads(&format!("{READS}\n{WRITES}\njob more rnd4k_read qd 1"), "2000 iops");
    let (a, b, c) = std::thread::scope(|s| {
        let a = s.spawn(|| rehearse("changed-a", &base));
        let b = s.spawn(|| rehearse("changed-b", &faster));
        (a.join().unwrap(), b.join().unwrap(), rehearse("changed-c", &more))
    });
    let (t, v) = compare(&[&a, &b]);
    // Another rate still pairs, and the difference says which.
    assert!(!t.contains("only in"), "{t}");
    assert_eq!(
        t.matches("- rate (A vs B, 1 of 2 paired steps").count(),
        2,
        "the together step, the reads: {t}"
    );
    assert!(t.contains("A 2000 IOPS; B 1000 IOPS"), "{t}");
    assert!(
        t.contains("128KiB sequential, 0% read at QD 2: 20MB/s")
            && t.contains("128KiB sequential, 0% read at QD 2: 40MB/s"),
        "the writes' rate by what they do: {t}"
    );
    assert!(t.contains("- arrivals (A vs B, 1 of 2 paired steps"), "{t}");
    assert!(t.contains(": uniform; B ") && t.contains(": Poisson\n"), "{t}");
    assert!(!fields(&v).contains(&"jobs at once".to_string()), "the same jobs: {t}");

    let (t, v) = compare(&[&a, &c]);
    let f = fields(&v);
    assert!(f.contains(&"jobs at once".to_string()), "{t}");
    assert!(!f.contains(&"rate".to_string()) && !f.contains(&"arrivals".to_string()), "{t}");
    assert!(t.contains("+ 4KiB random, 100% read at QD 1"), "the job added, by what it does: {t}");
    // A's jobs pair with C's like ones; C's third job has no counterpart.
    assert!(t.contains("only in B: together rnd4k_read (4KiB random, 100% read) QD 1 (job more"), "{t}");
    for d in [a, b, c] {
        std::fs::remove_dir_all(d.parent().unwrap()).unwrap();
    }
}
