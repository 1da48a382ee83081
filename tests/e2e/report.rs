//! `methodic report` and `methodic compare` on rehearsal runs: every
//! format, the HTML pages (a report's, a comparison's) in headless
//! Chromium, the differences compare
//! names (span, drive state), the values `value peak` reports (the peaks of
//! steps.jsonl, each sweep's best step, like paired with like across
//! conventions), and bad results directories refused with an error that
//! names the file, leaving the directory as it was; in
//! `report/unreadable.rs`, damaged files of a run named in every output
//! and the exit code; in `report/xlsx.rs`, the workbooks opened by
//! LibreOffice; and, in `report/install.rs`, methodic as `cargo
//! install` and the .deb install it, with its man pages and completions.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

#[path = "report/install.rs"]
mod install;
#[path = "report/pts.rs"]
mod pts;
#[path = "report/unreadable.rs"]
mod unreadable;
#[path = "report/xlsx.rs"]
mod xlsx;
use crate::browser;
use crate::common::{self, methodic, text};

/// A small methodology: `prepare` goes before a QD1/QD4 sweep of 4KiB
/// random reads and writes, over `span`.
fn methodology(span: &str, prepare: &str) -> String {
    format!(
        "methodology \"cmp\" version \"1.0\"\n\
         target {{ span {span} }}\n\
         workload rnd4k_read {{ random; block 4KiB; read 100% }}\n\
         workload rnd4k_write {{ random; block 4KiB; read 0% }}\n\
         phase \"prepare\" {{ {prepare} }}\n\
         phase \"measure\" {{\n  sweep rnd4k_read qd [1, 4] record 200ms\n  sweep rnd4k_write qd [1, 4] record 200ms\n}}\n"
    )
}

/// Rehearses `source` into a new results directory, without the host
/// ceiling (what compare says of two runs does not depend on it; the quick
/// rehearsal below has one).
fn rehearse(name: &str, source: &str) -> PathBuf {
    rehearse_with(&common::temp_path(&format!("report-{name}")), source, &["--no-ceiling"])
}

/// Rehearses `source` into `dir`/results (`dir` made anew), with more
/// `run` options.
fn rehearse_with(dir: &Path, source: &str, options: &[&str]) -> PathBuf {
    let name = dir.display().to_string();
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).unwrap();
    let file = dir.join("m.method");
    std::fs::write(&file, source).unwrap();
    let out = dir.join("results");
    let mut args =
        vec!["run", "--rehearse", "--seed", "7", file.to_str().unwrap(), "--out", out.to_str().unwrap()];
    args.extend(options);
    let o = methodic(&args);
    assert!(o.status.success(), "{name}: {}", text(&o.stderr));
    out
}

/// Two rehearsals side by side (a rehearsal mostly waits on its steps'
/// timers, so two share the machine well): `(name, source)` each.
fn rehearse_two(a: (&str, &str), b: (&str, &str)) -> (PathBuf, PathBuf) {
    std::thread::scope(|s| {
        let first = s.spawn(|| rehearse(a.0, a.1));
        let second = rehearse(b.0, b.1);
        (first.join().unwrap(), second)
    })
}

/// One rehearsal of the quick spec, shared by the tests that only read it.
fn quick() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        // Under cargo's scratch folder for tests: replaced by the next run,
        // never left in /tmp.
        let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("report-quick");
        let _ = std::fs::remove_dir_all(&out);
        let o = methodic(&["run", "--rehearse", "specs/quick.method", "--out", out.to_str().unwrap()]);
        assert!(o.status.success(), "{}", text(&o.stderr));
        out
    })
}

/// Every file under `dir` with its bytes.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.insert(p.clone(), std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

#[test]
fn report_prints_each_format_with_units_and_checklist() {
    let dir = quick().to_str().unwrap();
    let o = methodic(&["report", dir]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let t = text(&o.stdout);
    assert!(t.starts_with("REHEARSAL"), "{t}");
    assert!(t.contains("quick version 1.0 (completed"), "{t}");
    assert!(t.contains("MiB/s") && t.contains("mean us") && t.contains("drive state"), "binary units: {t}");
    assert!(t.contains("measure/rnd4k_read-qd32") && t.contains("filled 1x"), "{t}");

    let md = text(&methodic(&["report", dir, "--format", "md"]).stdout);
    assert!(md.starts_with("# quick version 1.0"), "{md}");
    assert!(md.contains("## Platform") && md.contains("| units | binary: MiB = 2^20 bytes |"), "{md}");
    for power in ["| CPU frequency governor | ", "| turbo | ", "| C-states | "] {
        assert!(md.contains(power), "the host's power settings, or that it does not expose them: {md}");
    }

    let csv = text(&methodic(&["report", dir, "--format", "csv"]).stdout);
    let mut lines = csv.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert!(head.contains(&"iops") && head.contains(&"drive_state") && head.contains(&"span_bytes"));
    assert_eq!(lines.count(), 9, "a fill and 8 measurements: {csv}");

    let o = methodic(&["report", dir, "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON only on stdout");
    let points = v["points"].as_array().unwrap();
    assert_eq!(points.len(), 9);
    let p = &points[1];
    assert!(p["iops"].as_f64().unwrap() > 0.0, "{p}");
    assert!(p["checklist"]["span"]["bytes"].as_u64().unwrap() > 0, "{p}");
    assert_eq!(v["units"], "binary");
}

/// A job of fio's JSON as fio-plot reads one (its `get_json_mapping`):
/// the options it sorts and labels by, and the numbers it charts. A missing
/// key fails the test as it would fail fio-plot.
#[derive(Debug)]
struct FioPlotRow {
    rw: String,
    iodepth: u32,
    numjobs: u32,
    bs: String,
    iops: f64,
    iops_stddev: f64,
    lat_ns: f64,
    lat_stddev: f64,
    bw: u64,
    total_ios: u64,
}

fn fio_plot_rows(doc: &serde_json::Value) -> Vec<(String, FioPlotRow)> {
    assert!(doc["fio version"].is_string(), "fio version");
    let global = doc["global options"].as_object().expect("global options");
    let mut rows = Vec::new();
    for job in doc["jobs"].as_array().expect("jobs") {
        let mut options = job["job options"].as_object().expect("job options").clone();
        options.extend(global.clone());
        let rw = options["rw"].as_str().expect("rw").to_string();
        // fio-plot's mode: randread -> read, randrw -> the filter's side.
        let mode = if rw.contains("read") { "read" } else { "write" };
        let d = &job[mode];
        let number = |v: &serde_json::Value| v.as_f64().unwrap_or_else(|| panic!("a number: {v}"));
        for key in ["latency_ms", "latency_us", "latency_ns"] {
            assert!(job[key].is_object(), "{key}");
        }
        number(&job["usr_cpu"]);
        number(&job["sys_cpu"]);
        let int = |k: &str| options[k].as_str().and_then(|v| v.parse().ok()).unwrap_or_else(|| panic!("{k}"));
        rows.push((
            job["jobname"].as_str().unwrap().to_string(),
            FioPlotRow {
                iodepth: int("iodepth"),
                numjobs: int("numjobs"),
                bs: options["bs"].as_str().expect("bs").to_string(),
                rw,
                iops: number(&d["iops"]),
                iops_stddev: number(&d["iops_stddev"]),
                lat_ns: number(&d["lat_ns"]["mean"]),
                lat_stddev: number(&d["lat_ns"]["stddev"]),
                bw: d["bw"].as_u64().expect("bw"),
                total_ios: d["total_ios"].as_u64().expect("total_ios"),
            },
        ));
    }
    rows
}

#[test]
fn report_as_fio_json_reads_in_fio_readers_with_the_same_numbers() {
    let dir = quick().to_str().unwrap();
    let o = methodic(&["report", dir, "--format", "fio-json"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).expect("fio-json is JSON");
    let ours: serde_json::Value =
        serde_json::from_slice(&methodic(&["report", dir, "--format", "json"]).stdout).unwrap();
    let points = ours["points"].as_array().unwrap();

    // As fio-plot maps each job: every step that ran I/O, with its numbers.
    let rows = fio_plot_rows(&doc);
    assert_eq!(rows.len(), points.len(), "a job a step with I/O: {rows:?}");
    for (name, row) in &rows {
        let p = points.iter().find(|p| p["id"] == name.as_str()).unwrap_or_else(|| panic!("{name}"));
        assert!((row.iops - p["iops"].as_f64().unwrap()).abs() < 1e-6 * row.iops, "{name}: {row:?} {p}");
        assert!(
            row.lat_ns > 0.0 && row.lat_stddev > 0.0 && row.bw > 0 && row.total_ios > 0,
            "{name}: {row:?}"
        );
        assert_eq!(row.iops_stddev, 0.0, "methodic keeps no per-second IOPS samples: {name}");
        assert!(row.bs == "4096" || row.bs == "131072", "{name}: {row:?}");
    }
    let qd32 = &rows.iter().find(|(n, _)| n == "measure/rnd4k_read-qd32").unwrap().1;
    assert_eq!((qd32.rw.as_str(), qd32.iodepth * qd32.numjobs), ("randread", 32), "{qd32:?}");

    // As fio-plot finds results: a folder, files RW-IODEPTH-NUMJOBS.json in
    // it, the first job of each (its list_json_files and get_json_mapping).
    let tree = common::temp_path("report-fio-plot");
    let split = methodic(&["report", dir, "--format", "csv", "--fio-plot", tree.to_str().unwrap()]);
    assert!(split.status.success(), "{}", text(&split.stderr));
    assert!(text(&split.stderr).contains("fio-plot -i "), "how to chart it: {}", text(&split.stderr));
    let folder = tree.join("measure-rnd4k_read");
    let mut depths = Vec::new();
    for e in std::fs::read_dir(&folder).unwrap_or_else(|e| panic!("{}: {e}", folder.display())) {
        let path = e.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        let fields: Vec<&str> = name.strip_suffix(".json").unwrap().split('-').collect();
        assert_eq!(fields[0], "randread", "{name}");
        let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let (job, row) = fio_plot_rows(&doc).remove(0);
        assert_eq!(
            (fields[1].parse::<u32>().unwrap(), fields[2].parse::<u32>().unwrap()),
            (row.iodepth, row.numjobs)
        );
        let whole = rows.iter().find(|(n, _)| *n == job).unwrap_or_else(|| panic!("{job}"));
        assert_eq!(whole.1.total_ios, row.total_ios, "{job}");
        depths.push(row.iodepth);
    }
    depths.sort();
    assert_eq!(depths, [1, 32], "a file a queue depth of the sweep");
    let folders = std::fs::read_dir(&tree).unwrap().count();
    assert_eq!(folders, 5, "the fill, and each of the four workloads measured");
    let _ = std::fs::remove_dir_all(&tree);

    // fio's own json+ reader turns each job's latency bins into a CSV, and
    // checks them against the JSON (--validate).
    if !common::require_tool("fio_jsonplus_clat2csv") {
        return;
    }
    let work = common::temp_dir("report-fio-json");
    let json = work.join("quick.json");
    std::fs::write(&json, &o.stdout).unwrap();
    let csv = work.join("quick.csv");
    for extra in [None, Some("--validate")] {
        let mut c = std::process::Command::new("fio_jsonplus_clat2csv");
        c.arg(&json).arg(&csv).args(extra);
        let out = c.output().expect("fio_jsonplus_clat2csv runs");
        assert!(
            out.status.success(),
            "fio_jsonplus_clat2csv {extra:?}: {}{}",
            text(&out.stdout),
            text(&out.stderr)
        );
    }
    for (k, (name, row)) in rows.iter().enumerate() {
        let table = std::fs::read_to_string(work.join(format!("quick_job{k}.csv"))).unwrap();
        // The clat column of the job's direction: its last cumulative count
        // is every I/O the step recorded.
        let head: Vec<&str> = table.lines().next().unwrap().split(", ").collect();
        let mode = if row.rw.contains("read") { "read" } else { "write" };
        let col = head.iter().position(|h| *h == format!("{mode}_clat_ns_cumulative")).unwrap();
        let last = table
            .lines()
            .skip(1)
            .filter_map(|l| l.split(',').nth(col).map(str::trim).filter(|v| !v.is_empty()))
            .last()
            .unwrap_or_else(|| panic!("{name}: no bins in {table}"));
        assert_eq!(last.parse::<u64>().unwrap(), row.total_ios, "{name}");
    }
    let _ = std::fs::remove_dir_all(&work);
}

#[test]
fn the_html_report_renders_in_chromium_with_charts_and_no_errors() {
    let page = common::temp_path("report-html").with_extension("html");
    let o =
        methodic(&["report", quick().to_str().unwrap(), "--format", "html", "-o", page.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(o.stdout.is_empty(), "the page goes to -o alone");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(!html.contains("<script") && !html.contains("src=\"http"), "self-contained, no script");
    assert!(html.contains("IOPS by queue depth") && html.contains("MiB/s"), "charts and units");
    assert!(html.contains("Rehearsal"), "the rehearsal banner");
    let shot = page.with_extension("png");
    let r = browser::render(&page, &shot).unwrap_or_else(|e| panic!("{e}"));
    assert!(r.console_errors.is_empty(), "console errors: {:?}", r.console_errors);
    let paths = browser::path_data(&r.dom);
    assert!(paths.len() >= 4, "IOPS and latency charts for the sweeps, a fill plot: {}", paths.len());
    for d in &paths {
        assert!(d.starts_with('M') && d.len() > 5, "a drawn path: {d:?}");
    }
    assert!(std::fs::metadata(&shot).unwrap().len() > 10_000, "a screenshot with something in it");
    let _ = std::fs::remove_file(&page);
    let _ = std::fs::remove_file(&shot);
}

/// A run with repeated steps (kitguru-style: two steps, 5 runs each):
/// Chromium draws each one's runs and the mean's error bar, and a
/// comparison of three such runs each ranking's error bars.
#[test]
fn repeated_steps_are_drawn_with_error_bars_in_chromium() {
    let dir = common::rehearsal("kitguru-style");
    let page = common::temp_path("report-repeats").with_extension("html");
    let o = methodic(&["report", dir.to_str().unwrap(), "--format", "html", "-o", page.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let compared = common::temp_path("compare-repeats").with_extension("html");
    let d = dir.to_str().unwrap();
    let o = methodic(&["compare", d, d, d, "--format", "html", "-o", compared.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    for (html, bars) in [(&page, 2), (&compared, 6)] {
        let shot = html.with_extension("png");
        let r = browser::render(html, &shot).unwrap_or_else(|e| panic!("{e}"));
        assert!(r.console_errors.is_empty(), "console errors: {:?}", r.console_errors);
        assert_eq!(r.dom.matches("class=\"error-bar\"").count(), bars, "{}", html.display());
        // An error bar's path: up its span, then a cap at each end.
        let drawn = browser::path_data(&r.dom)
            .iter()
            .filter(|d| d.matches('V').count() == 1 && d.matches('H').count() == 2)
            .count();
        assert!(drawn >= bars, "{drawn} error bars drawn in {}", html.display());
        let _ = std::fs::remove_file(html);
        let _ = std::fs::remove_file(&shot);
    }
}

#[test]
fn compare_names_the_span_when_only_the_span_differs() {
    let (a, b) = rehearse_two(
        ("span-a", &methodology("100%", "fill rnd4k_write passes 1")),
        ("span-b", &methodology("25%", "fill rnd4k_write passes 1")),
    );
    let o = methodic(&["compare", a.to_str().unwrap(), b.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let t = text(&o.stdout);
    assert!(t.contains("rnd4k_read (4KiB random, 100% read) QD 4"), "paired by workload and QD: {t}");
    assert!(t.contains("- span (A vs B, 5 of 5 paired steps"), "the fill and the 4 measurements: {t}");
    assert!(t.contains("A 128.0 MiB (100% of 128.0 MiB); B 32.0 MiB (25% of 128.0 MiB)"), "{t}");
    assert!(!t.contains("- drive state"), "the same preparation: {t}");
    assert!(t.contains("- plan: span (A vs B, breaks comparability: every step"), "the plan diff: {t}");

    let o = methodic(&["compare", "--format", "json", a.to_str().unwrap(), b.to_str().unwrap()]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["pairs"].as_array().unwrap().len(), 5);
    assert!(v["pairs"][0]["ratios"][0].as_f64().unwrap() > 0.0);
    let fields: Vec<&str> =
        v["differences"].as_array().unwrap().iter().map(|d| d["field"].as_str().unwrap()).collect();
    assert!(fields.contains(&"span"), "{fields:?}");
    for d in [a, b] {
        std::fs::remove_dir_all(d.parent().unwrap()).unwrap();
    }
}

#[test]
fn compare_names_the_drive_state_of_an_erased_and_a_preconditioned_drive() {
    let (a, b) = rehearse_two(
        ("erased", &methodology("100%", "erase discard")),
        ("preconditioned", &methodology("100%", "precondition rnd4k_write qd 32 for 2s")),
    );
    let o = methodic(&["compare", a.to_str().unwrap(), b.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let t = text(&o.stdout);
    assert!(t.contains("- drive state (A vs B"), "{t}");
    // Named by what the precondition does, not by its workload's name.
    assert!(t.contains("A fresh (erased); B preconditioned (4KiB random, 0% read at QD 32 for"), "{t}");
    assert!(t.contains("steady state"), "the sentence says why it matters: {t}");
    assert!(!t.contains("- span"), "{t}");
    // The erase and the precondition have no counterpart; the sweeps pair.
    assert!(t.contains("only in B: precondition rnd4k_write"), "{t}");
    for d in [a, b] {
        std::fs::remove_dir_all(d.parent().unwrap()).unwrap();
    }
}

/// A QD sweep and a rounds step under `value VALUE`.
fn valued(value: &str) -> String {
    format!(
        "methodology \"val\" version \"1.0\"\n\
         conventions {{ value {value} }}\n\
         target {{ span 64MiB }}\n\
         workload rnd4k_read {{ random; block 4KiB; read 100% }}\n\
         workload rnd4k_write {{ random; block 4KiB; read 0% }}\n\
         phase \"measure\" {{ sweep rnd4k_read qd [1, 4, 16] record 1s }}\n\
         phase \"rounds\" {{ rounds {{ measure rnd4k_write qd 4 for 1s }} until steady {{ window 2; max_rounds 3 }} }}\n"
    )
}

/// One rehearsal under `value peak` and one under `value step_average`,
/// made side by side under cargo's scratch folder for tests and shared by
/// the tests that read them (no host ceiling: it has nothing to do with
/// the values).
fn peak_and_average() -> &'static (PathBuf, PathBuf) {
    static DIRS: OnceLock<(PathBuf, PathBuf)> = OnceLock::new();
    DIRS.get_or_init(|| {
        let scratch = Path::new(env!("CARGO_TARGET_TMPDIR"));
        let (p, a) = (scratch.join("report-value-peak"), scratch.join("report-value-average"));
        let peak = std::thread::spawn(move || rehearse_with(&p, &valued("peak"), &["--no-ceiling"]));
        let average = rehearse_with(&a, &valued("step_average"), &["--no-ceiling"]);
        (peak.join().unwrap(), average)
    })
}

/// Each line of a results directory's steps.jsonl.
fn steps_of(dir: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(dir.join("steps.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The step of steps.jsonl with this id.
fn step<'a>(steps: &'a [serde_json::Value], id: &str) -> &'a serde_json::Value {
    steps.iter().find(|s| s["id"] == id).unwrap_or_else(|| panic!("no step {id}"))
}

#[test]
fn under_value_peak_report_shows_the_peaks_beside_the_averages_and_each_sweeps_best_step() {
    let (peak, _) = peak_and_average();
    let steps = steps_of(peak);
    let dir = peak.to_str().unwrap();

    let o = methodic(&["report", dir, "--format", "json"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["value"], "peak");
    let points = v["points"].as_array().unwrap();
    let sweep: Vec<&serde_json::Value> = points.iter().filter(|p| p["kind"] == "measure").collect();
    assert_eq!(sweep.len(), 3, "{v}");
    for p in &sweep {
        let s = step(&steps, p["id"].as_str().unwrap());
        assert_eq!(p["iops"], s["peak"]["iops"], "the reported IOPS is the peak of steps.jsonl: {p}");
        assert_eq!(p["mb_s"], s["peak"]["mb_s"], "{p}");
        assert_eq!(p["value"], "peak", "{p}");
        assert_eq!(p["average_iops"], s["summary"]["total"]["iops"], "the step average kept beside it: {p}");
        assert!(p["iops"].as_f64().unwrap() >= p["average_iops"].as_f64().unwrap(), "{p}");
    }
    // A rounds measurement's peak is its best round.
    let cell = points.iter().find(|p| p["kind"] == "rounds").unwrap();
    let c = &step(&steps, cell["id"].as_str().unwrap())["cells"][0];
    assert_eq!(cell["iops"], c["peak_iops"], "{cell}");
    assert_eq!(cell["average_iops"], c["window_iops"], "{cell}");

    // The sweep's best step: the one with the highest peak in steps.jsonl.
    let best = sweep
        .iter()
        .max_by(|a, b| a["iops"].as_f64().unwrap().total_cmp(&b["iops"].as_f64().unwrap()))
        .unwrap();
    assert_eq!(v["sweep_bests"].as_array().unwrap().len(), 1, "{v}");
    assert_eq!(v["sweep_bests"][0]["id"], best["id"]);
    let best_line = format!(
        "sweep 1 rnd4k_read: best step QD {} ({}): {:.0} IOPS",
        best["qd"]["total"],
        best["id"].as_str().unwrap(),
        best["iops"].as_f64().unwrap()
    );

    let t = text(&methodic(&["report", dir]).stdout);
    assert!(t.contains("IOPS (peak)") && t.contains("MB/s (peak)") && t.contains("IOPS (avg)"), "{t}");
    assert!(t.contains("values: IOPS (peak) and MB/s (peak) are peaks: each step's best"), "{t}");
    assert!(t.contains(&best_line), "{best_line} in {t}");
    let row = t.lines().find(|l| l.contains("measure/rnd4k_read-qd4 ")).unwrap();
    let s = step(&steps, "measure/rnd4k_read-qd4");
    for (what, n) in [("peak", &s["peak"]["iops"]), ("average", &s["summary"]["total"]["iops"])] {
        let n = format!(" {:.0} ", n.as_f64().unwrap());
        assert!(row.contains(&n), "the {what}{n}in {row}");
    }
    let md = text(&methodic(&["report", dir, "--format", "md"]).stdout);
    assert!(md.contains(&format!("- {best_line}")), "{md}");

    let csv = text(&methodic(&["report", dir, "--format", "csv"]).stdout);
    let mut lines = csv.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| head.iter().position(|h| *h == name).unwrap();
    let qd4 = lines.find(|l| l.contains("measure/rnd4k_read-qd4")).unwrap();
    let f: Vec<&str> = qd4.split(',').collect();
    assert_eq!(f[col("iops")], format!("{:.3}", s["peak"]["iops"].as_f64().unwrap()), "{qd4}");
    assert_eq!(f[col("average_iops")], format!("{:.3}", s["summary"]["total"]["iops"].as_f64().unwrap()));
    assert_eq!(f[col("reported_value")], "peak");

    let page = common::temp_path("report-peak-html").with_extension("html");
    // The older --html FILE still writes the page, beside --format on
    // standard output, and says what replaced it.
    let o = methodic(&["report", dir, "--html", page.to_str().unwrap(), "--format", "csv"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(text(&o.stdout).starts_with("step,id,"), "{}", text(&o.stdout));
    assert!(text(&o.stderr).contains("--html FILE is now --format html -o FILE"), "{}", text(&o.stderr));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        html.contains("IOPS by queue depth (peak)") && html.contains("<th class=\"num\">IOPS (peak)</th>")
    );
    assert!(html.contains("measure&#x2f;") && html.contains("best step QD"), "the best step listed");
    std::fs::remove_file(&page).unwrap();

    // Results written before peaks were kept: they load, and report the
    // step average, saying why.
    let old = common::temp_path("report-no-peaks");
    std::fs::create_dir_all(&old).unwrap();
    for f in ["manifest.json", "plan.ron"] {
        std::fs::copy(peak.join(f), old.join(f)).unwrap();
    }
    // The series and latency logs the records name, which the report reads.
    let cp = std::process::Command::new("cp").arg("-a").arg(peak.join("series")).arg(&old).status();
    assert!(cp.is_ok_and(|s| s.success()), "cp -a series");
    let stripped: Vec<String> = steps
        .iter()
        .map(|s| {
            let mut s = s.clone();
            s.as_object_mut().unwrap().remove("peak");
            for c in s["cells"].as_array_mut().into_iter().flatten() {
                c.as_object_mut().unwrap().remove("peak_iops");
                c.as_object_mut().unwrap().remove("peak_mb_s");
            }
            s.to_string()
        })
        .collect();
    std::fs::write(old.join("steps.jsonl"), stripped.join("\n") + "\n").unwrap();
    let o = methodic(&["report", old.to_str().unwrap(), "--format", "json"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let p = v["points"].as_array().unwrap().iter().find(|p| p["id"] == "measure/rnd4k_read-qd4").unwrap();
    assert_eq!(p["iops"], s["summary"]["total"]["iops"], "{p}");
    assert_eq!(
        (&p["value"], &p["peak_iops"]),
        (&serde_json::json!("step_average"), &serde_json::Value::Null)
    );
    assert!(p["value_note"].as_str().unwrap().contains("no peak recorded"), "{p}");
    let t = text(&methodic(&["report", old.to_str().unwrap()]).stdout);
    assert!(t.contains("no peak recorded") && t.contains("no best round recorded"), "{t}");
    std::fs::remove_dir_all(&old).unwrap();
}

#[test]
fn compare_pairs_a_peak_run_and_a_step_average_run_like_with_like_and_says_so() {
    let (peak, average) = peak_and_average();
    let (ps, avs) = (steps_of(peak), steps_of(average));
    let (p, a) = (peak.to_str().unwrap(), average.to_str().unwrap());

    // The peak run first: peaks on both sides, the average run's own.
    let o = methodic(&["compare", "--format", "json", p, a]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let pairs = v["pairs"].as_array().unwrap();
    assert_eq!(pairs.len(), 4, "three sweep steps and a rounds measurement: {v}");
    for pair in pairs.iter().filter(|q| q["kind"] == "measure") {
        assert_eq!(pair["value_kind"], "peak", "{pair}");
        let (va, vb) = (&pair["values"][0], &pair["values"][1]);
        assert_eq!(va["value"], step(&ps, va["step_id"].as_str().unwrap())["peak"]["iops"], "{pair}");
        assert_eq!(vb["value"], step(&avs, vb["step_id"].as_str().unwrap())["peak"]["iops"], "{pair}");
        assert_eq!((&va["reported_kind"], &vb["reported_kind"]), (&"peak".into(), &"step average".into()));
    }
    let note = v["values_note"].as_str().unwrap();
    assert!(note.starts_with("A reports peaks, B reports step averages"), "{note}");
    assert!(note.contains("4 pairs compare peaks"), "{note}");
    assert!(
        note.contains("B's are the peaks it keeps beside the step averages it reports (4 of them)"),
        "{note}"
    );
    let kinds: Vec<(&serde_json::Value, &serde_json::Value)> = v["differences"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["field"] == "value kind")
        .map(|d| (&d["a"], &d["b"]))
        .collect();
    assert_eq!(kinds, [(&"peak".into(), &"step average".into())], "said once, in words: {v}");

    let t = text(&methodic(&["compare", p, a]).stdout);
    assert!(t.contains("A: ") && t.contains("reports peaks)") && t.contains("reports step averages)"), "{t}");
    assert!(t.contains("IOPS (peak)") && !t.contains("IOPS (avg)"), "{t}");
    assert!(
        t.contains("values: A reports peaks, B reports step averages; each pair compares one kind"),
        "{t}"
    );
    assert!(
        t.contains("the best step of each sweep") && t.contains("sweep 1 rnd4k_read (peak): A QD"),
        "{t}"
    );
    assert!(!t.contains("Peak") && !t.contains("StepAverage"), "no Rust names: {t}");

    // The average run first: step averages on both sides, the peak run's
    // kept beside its peaks.
    let v: serde_json::Value =
        serde_json::from_slice(&methodic(&["compare", "--format", "json", a, p]).stdout).unwrap();
    for pair in v["pairs"].as_array().unwrap().iter().filter(|q| q["kind"] == "measure") {
        assert_eq!(pair["value_kind"], "step average", "{pair}");
        let vb = &pair["values"][1];
        assert_eq!(
            vb["value"],
            step(&ps, vb["step_id"].as_str().unwrap())["summary"]["total"]["iops"],
            "{pair}"
        );
    }
    assert!(
        v["values_note"].as_str().unwrap().contains("B's are the step averages it keeps beside the peaks")
    );
    assert_eq!(v["sweep_bests"].as_array().unwrap().len(), 1, "B reports peaks: its sweeps' best steps");

    // The same convention on both sides: no note. (The older --json still
    // works, and says what replaced it.)
    let o = methodic(&["compare", "--json", p, p]);
    assert!(text(&o.stderr).contains("--json is now --format json"), "{}", text(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["values_note"], serde_json::Value::Null);
    assert!(v["pairs"].as_array().unwrap().iter().all(|q| q["ratios"][0] == 1.0), "{v}");
}

/// Each inline SVG chart of a page (`class="chart"` or `class="bars"`),
/// from its opening tag to its end.
fn svgs<'a>(dom: &'a str, class: &str) -> Vec<&'a str> {
    let open = format!("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"{class}\"");
    dom.match_indices(&open).map(|(at, _)| &dom[at..at + dom[at..].find("</svg>").unwrap()]).collect()
}

/// Three rehearsals on one HTML page: two of one methodology under two
/// value conventions, and the quick spec, whose steps mostly pair with
/// nothing in the others. The differences come first, then a legend
/// entry a run, charts with every run's lines, a bar chart a paired step
/// with its ratios; Chromium draws it with no console error.
#[test]
fn compare_draws_three_runs_on_one_html_page_in_chromium() {
    let quick = std::thread::spawn(|| quick().to_path_buf());
    let (peak, average) = peak_and_average();
    let quick = quick.join().unwrap();
    let dirs = [average.to_str().unwrap(), peak.to_str().unwrap(), quick.to_str().unwrap()];
    let page = common::temp_path("compare-html").with_extension("html");
    let o = methodic(&[&["compare", "--format", "html", "-o", page.to_str().unwrap()][..], &dirs].concat());
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(o.stdout.is_empty(), "the page goes to -o alone");
    let html = std::fs::read_to_string(&page).unwrap();
    // --html FILE, as the issue names it: the same page, and the table on
    // standard output.
    let again = common::temp_path("compare-html-again").with_extension("html");
    let o = methodic(&[&["compare", "--html", again.to_str().unwrap()][..], &dirs].concat());
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(text(&o.stdout).starts_with("A: ") && text(&o.stdout).contains("C/A"), "{}", text(&o.stdout));
    assert_eq!(std::fs::read_to_string(&again).unwrap(), html, "--html writes the page --format html does");

    assert!(!html.contains("<script") && !html.contains("src=") && !html.contains("href="), "self-contained");
    let differences = html.find("Differences that can explain the gaps").expect("the differences");
    assert!(differences < html.find("<svg xmlns").unwrap(), "the differences before any chart");
    assert!(html.contains("<strong>value kind</strong> (A vs B"), "A and B report different values");
    assert!(html.contains("<strong>methodology</strong> (A vs C"), "C ran the quick spec");
    assert!(html.contains("only in A, B: "), "the steps C lacks are said, not dropped");
    // The ratios of the paired steps, as compare computes them.
    let o = methodic(&[&["compare", "--format", "json"][..], &dirs].concat());
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let pairs = v["pairs"].as_array().unwrap();
    assert!(!pairs.is_empty(), "{v}");
    for r in pairs.iter().flat_map(|p| p["ratios"].as_array().unwrap()) {
        let r = format!(">{:.2}x<", r.as_f64().unwrap());
        assert!(html.contains(&r), "the ratio {r} under its bar");
    }
    // Three runs: each paired measurement ranked, highest first, in JSON,
    // on the page (a table each) and in the terminal.
    let rankings = v["rankings"].as_array().unwrap();
    assert!(!rankings.is_empty(), "{v}");
    for r in rankings {
        let values: Vec<f64> =
            r["ranked"].as_array().unwrap().iter().filter_map(|e| e["value"].as_f64()).collect();
        assert!(values.windows(2).all(|w| w[0] >= w[1]), "highest first: {r}");
    }
    assert_eq!(html.matches("<table class=\"ranked\">").count(), rankings.len(), "a table a ranking");
    let table = text(&methodic(&[&["compare"][..], &dirs].concat()).stdout);
    assert!(table.contains("each paired measurement, ranked:"), "{table}");

    let shot = page.with_extension("png");
    let r = browser::render(&page, &shot).unwrap_or_else(|e| panic!("{e}"));
    assert!(r.console_errors.is_empty(), "console errors: {:?}", r.console_errors);
    let legend: Vec<&str> = r.dom.matches("class=\"legend-run\" data-run=\"").collect();
    assert_eq!(legend.len(), 3, "one legend entry a run");
    for run in ["A", "B", "C"] {
        assert_eq!(r.dom.matches(&format!("class=\"legend-run\" data-run=\"{run}\"")).count(), 1, "{run}");
    }
    let charts = svgs(&r.dom, "chart");
    assert!(charts.len() >= 4, "IOPS and latency by QD, rounds, a fill: {}", charts.len());
    for c in &charts {
        let d = browser::path_data(c);
        assert!(!d.is_empty() && d.iter().all(|d| d.starts_with('M') && d.len() > 5), "a drawn line: {c}");
    }
    assert!(
        charts.iter().any(|c| c.matches("<path class=\"line\"").count() == 3),
        "a chart with the three runs' lines on the same axes"
    );
    // Each measurement's latency distribution: a chart a step, a line a
    // run that has it, each drawn; A and B share steps, so some chart has
    // both.
    let spread = svgs(&r.dom, "chart exceedance");
    assert!(!spread.is_empty(), "no latency distribution");
    assert_eq!(spread.len(), r.dom.matches("<h3>Latency distribution: ").count(), "a heading a chart");
    for c in &spread {
        let d = browser::path_data(c);
        assert!(
            !d.is_empty() && d.iter().all(|d| d.starts_with('M') && d.contains(" L")),
            "a drawn line: {c}"
        );
    }
    assert!(spread.iter().any(|c| c.matches("<path class=\"line\"").count() >= 2), "two runs on one chart");
    let bars = svgs(&r.dom, "bars");
    assert_eq!(bars.len(), pairs.len(), "a bar chart a paired step");
    for b in &bars {
        assert_eq!(b.matches("<rect class=\"bar\"").count(), 3, "a bar a run: {b}");
    }
    assert!(std::fs::metadata(&shot).unwrap().len() > 10_000, "a screenshot with something in it");
    for f in [&page, &again, &shot] {
        let _ = std::fs::remove_file(f);
    }
}

#[test]
fn bad_results_directories_are_refused_naming_the_file_and_left_alone() {
    // Not a results directory.
    let plain = common::temp_path("report-plain");
    std::fs::create_dir_all(&plain).unwrap();
    std::fs::write(plain.join("notes.txt"), "hello").unwrap();
    let before = snapshot(&plain);
    for cmd in [
        vec!["report", plain.to_str().unwrap()],
        vec!["compare", plain.to_str().unwrap(), plain.to_str().unwrap()],
    ] {
        let o = methodic(&cmd);
        assert_eq!(o.status.code(), Some(1), "{cmd:?}");
        let e = text(&o.stderr);
        assert!(e.contains(&format!("{}: is not a methodic results directory", plain.display())), "{e}");
        assert!(o.stdout.is_empty());
    }
    assert_eq!(snapshot(&plain), before);

    // A copy of a real run, then damaged in two ways.
    let copy = common::temp_path("report-damaged");
    std::fs::create_dir_all(&copy).unwrap();
    for f in ["manifest.json", "steps.jsonl", "plan.ron"] {
        std::fs::copy(quick().join(f), copy.join(f)).unwrap();
    }
    let steps = std::fs::read_to_string(copy.join("steps.jsonl")).unwrap();
    std::fs::write(copy.join("steps.jsonl"), &steps[..steps.len() - 40]).unwrap();
    let before = snapshot(&copy);
    let o = methodic(&[
        "report",
        copy.to_str().unwrap(),
        "--format",
        "html",
        "-o",
        copy.join("r.html").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let e = text(&o.stderr);
    assert!(e.contains(&format!("{}: line 10 is truncated", copy.join("steps.jsonl").display())), "{e}");
    assert_eq!(snapshot(&copy), before, "no HTML written, nothing changed");

    std::fs::write(copy.join("steps.jsonl"), &steps).unwrap();
    let manifest = std::fs::read_to_string(copy.join("manifest.json")).unwrap();
    let newer = manifest.replacen(
        &format!("\"schema\": {},", methodic_results::manifest::MANIFEST_SCHEMA),
        "\"schema\": 99,",
        1,
    );
    assert_ne!(newer, manifest);
    std::fs::write(copy.join("manifest.json"), newer).unwrap();
    let before = snapshot(&copy);
    let o = methodic(&["report", copy.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let e = text(&o.stderr);
    assert!(
        e.contains(&format!("{}: was written with manifest schema 99", copy.join("manifest.json").display())),
        "{e}"
    );
    assert!(e.contains("newer methodic"), "{e}");
    assert_eq!(snapshot(&copy), before);

    let o = methodic(&["report", "/no/such/results"]);
    assert!(text(&o.stderr).contains("/no/such/results: does not exist"), "{}", text(&o.stderr));
    std::fs::remove_dir_all(&plain).unwrap();
    std::fs::remove_dir_all(&copy).unwrap();
}

/// A fill whose series has the drive's temperature (as an NVMe target's
/// does; a rehearsal's scratch file has none) draws it under the
/// throughput in the HTML report; without it, no temperature chart.
#[test]
fn the_html_report_draws_the_temperature_where_the_series_has_it() {
    let dir = rehearse("temperature", &methodology("32MiB", "fill rnd4k_write passes 1"));
    let html = |dir: &Path| {
        let o = methodic(&["report", dir.to_str().unwrap(), "--format", "html"]);
        assert!(o.status.success(), "{}", text(&o.stderr));
        text(&o.stdout)
    };
    let page = html(&dir);
    assert!(page.contains("each interval"), "the fill's throughput chart");
    assert!(!page.contains("drive temperature"), "a file has no temperature to draw");
    let series = dir.join("series/prepare/fill-rnd4k_write.csv");
    let csv = std::fs::read_to_string(&series).unwrap();
    let mut lines = csv.lines();
    let head = lines.next().unwrap();
    assert!(head.ends_with(",temperature_c"), "{head}");
    let rows: Vec<&str> = lines.collect();
    assert!(!rows.is_empty() && rows.iter().all(|l| l.ends_with(',')), "empty temperature cells: {csv}");
    let hot: Vec<String> = rows.iter().enumerate().map(|(i, l)| format!("{l}{}", 40 + i)).collect();
    std::fs::write(&series, format!("{head}\n{}\n", hot.join("\n"))).unwrap();
    let page = html(&dir);
    assert!(page.contains("fill-rnd4k_write: drive temperature each interval"), "the temperature chart");
    assert!(page.contains("temperature (°C)"), "its axis with its unit");
    std::fs::remove_dir_all(dir.parent().unwrap()).unwrap();
}
