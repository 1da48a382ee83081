//! `methodic report` and `methodic compare` on rehearsal runs: every
//! format, the HTML page in headless Chromium, the differences compare
//! names (span, drive state), and bad results directories refused with an
//! error that names the file, leaving the directory as it was.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

mod browser;
mod common;
use common::{methodic, text};

fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("methodic-report-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// A small methodology: `prepare` goes before a QD1/QD4 sweep of 4KiB
/// random reads and writes, over `span`.
fn methodology(span: &str, prepare: &str) -> String {
    format!(
        "methodology \"cmp\" version \"1.0\"\n\
         target {{ span {span} }}\n\
         workload rnd4k_read {{ random; block 4KiB; read 100% }}\n\
         workload rnd4k_write {{ random; block 4KiB; read 0% }}\n\
         phase \"prepare\" {{ {prepare} }}\n\
         phase \"measure\" {{\n  sweep rnd4k_read qd [1, 4] record 1s\n  sweep rnd4k_write qd [1, 4] record 1s\n}}\n"
    )
}

/// Rehearses `source` into a new results directory.
fn rehearse(name: &str, source: &str) -> PathBuf {
    let dir = temp(name);
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.with_extension("method");
    std::fs::write(&file, source).unwrap();
    let out = dir.join("results");
    let o = methodic(&[
        "run",
        "--rehearse",
        "--seed",
        "7",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{name}: {}", text(&o.stderr));
    out
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
    assert_eq!(v["units"], "Binary");
}

#[test]
fn the_html_report_renders_in_chromium_with_charts_and_no_errors() {
    let page = temp("html").with_extension("html");
    let o =
        methodic(&["report", quick().to_str().unwrap(), "--html", page.to_str().unwrap(), "--format", "csv"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
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

#[test]
fn compare_names_the_span_when_only_the_span_differs() {
    let a = rehearse("span-a", &methodology("100%", "fill rnd4k_write passes 1"));
    let b = rehearse("span-b", &methodology("25%", "fill rnd4k_write passes 1"));
    let o = methodic(&["compare", a.to_str().unwrap(), b.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let t = text(&o.stdout);
    assert!(t.contains("rnd4k_read (4KiB random, 100% read) QD 4"), "paired by workload and QD: {t}");
    assert!(t.contains("- span (A vs B, 5 of 5 paired steps"), "the fill and the 4 measurements: {t}");
    assert!(t.contains("A 128.0 MiB (100% of 128.0 MiB); B 32.0 MiB (25% of 128.0 MiB)"), "{t}");
    assert!(!t.contains("- drive state"), "the same preparation: {t}");
    assert!(t.contains("- plan: span (A vs B, breaks comparability: every step"), "the plan diff: {t}");

    let o = methodic(&["compare", "--json", a.to_str().unwrap(), b.to_str().unwrap()]);
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
    let a = rehearse("erased", &methodology("100%", "erase discard"));
    let b = rehearse("preconditioned", &methodology("100%", "precondition rnd4k_write qd 32 for 2s"));
    let o = methodic(&["compare", a.to_str().unwrap(), b.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let t = text(&o.stdout);
    assert!(t.contains("- drive state (A vs B"), "{t}");
    assert!(t.contains("A fresh (erased); B preconditioned (rnd4k_write"), "{t}");
    assert!(t.contains("B preconditioned (rnd4k_write (4KiB random, 0% read) at QD 32 for"), "{t}");
    assert!(t.contains("steady state"), "the sentence says why it matters: {t}");
    assert!(!t.contains("- span"), "{t}");
    // The erase and the precondition have no counterpart; the sweeps pair.
    assert!(t.contains("only in B: precondition rnd4k_write"), "{t}");
    for d in [a, b] {
        std::fs::remove_dir_all(d.parent().unwrap()).unwrap();
    }
}

#[test]
fn bad_results_directories_are_refused_naming_the_file_and_left_alone() {
    // Not a results directory.
    let plain = temp("plain");
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
    let copy = temp("damaged");
    std::fs::create_dir_all(&copy).unwrap();
    for f in ["manifest.json", "steps.jsonl", "plan.ron"] {
        std::fs::copy(quick().join(f), copy.join(f)).unwrap();
    }
    let steps = std::fs::read_to_string(copy.join("steps.jsonl")).unwrap();
    std::fs::write(copy.join("steps.jsonl"), &steps[..steps.len() - 40]).unwrap();
    let before = snapshot(&copy);
    let o = methodic(&["report", copy.to_str().unwrap(), "--html", copy.join("r.html").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let e = text(&o.stderr);
    assert!(e.contains(&format!("{}: line 10 is truncated", copy.join("steps.jsonl").display())), "{e}");
    assert_eq!(snapshot(&copy), before, "no HTML written, nothing changed");

    std::fs::write(copy.join("steps.jsonl"), &steps).unwrap();
    let manifest = std::fs::read_to_string(copy.join("manifest.json")).unwrap();
    let newer = manifest.replacen("\"schema\": 1,", "\"schema\": 99,", 1);
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
