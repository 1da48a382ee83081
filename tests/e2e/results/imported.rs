//! Another tool's results, imported and compared with methodic's own run:
//! the round trip the user guide shows (docs/others-results.md). A
//! methodology runs with methodic on a file; the job file `methodic export
//! fio` makes of it runs with fio on the same file (json+, with
//! per-interval logs); fio's JSON and logs are imported; `compare` pairs
//! the same I/O step by step and names what the import cannot know; the
//! comparison page and the imported result's report render in Chromium
//! without a console error. What is checked is what the files say (pairs,
//! counts, fields), never how fast anything ran.

use std::path::Path;

use crate::browser;
use crate::common::{methodic, require_tool, temp_dir, text};

const METHOD: &str = "methodology \"roundtrip\" version \"1\"\n\
    conventions { units binary; queue_depth per_worker; value step_average }\n\
    target { span 16MiB; io direct }\n\
    workload rnd4k_read { random; block 4KiB; read 100% }\n\
    workload seq128k_write { sequential; block 128KiB; read 0% }\n\
    phase \"p\" {\n\
      measure rnd4k_read qd 4 ramp 100ms for 400ms\n\
      measure seq128k_write qd 2 ramp 100ms for 400ms\n\
    }\n";

fn ok(args: &[&str]) -> std::process::Output {
    let o = methodic(args);
    assert!(o.status.success(), "methodic {}: {}", args.join(" "), text(&o.stderr));
    o
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn fio_json_imported_compares_step_by_step_with_methodic_s_run() {
    if !require_tool("fio") {
        return;
    }
    let dir = temp_dir("imported-round-trip");
    let method = dir.join("roundtrip.method");
    std::fs::write(&method, METHOD).unwrap();
    let target = dir.join("target.img");
    // Written through, so that neither tool reads holes of a sparse file.
    std::fs::write(&target, vec![0x5a_u8; 16 << 20]).unwrap();
    let own = dir.join("methodic");
    ok(&["run", s(&method), "--target", s(&target), "--overwrite", "--no-ceiling", "--out", s(&own)]);

    let job = dir.join("roundtrip.fio");
    let exported = ok(&["export", "fio", s(&method)]);
    std::fs::write(&job, &exported.stdout).unwrap();
    let json = dir.join("fio.json");
    // With per-interval logs (in fio's working folder, beside the JSON):
    // each step's series.
    let fio = std::process::Command::new("fio")
        .args(["--output-format=json+", "--output", s(&json)])
        .args(["--write_iops_log=log", "--write_bw_log=log", "--log_avg_msec=100", s(&job)])
        .env("TARGET", &target)
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(fio.status.success(), "fio: {}", text(&fio.stderr));

    let imported = dir.join("fio");
    let o = ok(&["import", "fio", s(&json), "-o", s(&imported)]);
    assert!(text(&o.stderr).contains("2 steps of fio-"), "{}", text(&o.stderr));
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(imported.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["imported"]["tool"], "fio");
    assert!(manifest["imported"]["hash"].as_str().unwrap().starts_with("sha256:"));
    // json+: each step's bins as an HdrHistogram log.
    let steps = std::fs::read_to_string(imported.join("steps.jsonl")).unwrap();
    assert_eq!(steps.lines().count(), 2);
    for line in steps.lines() {
        let step: serde_json::Value = serde_json::from_str(line).unwrap();
        let log = step["latency_log"].as_str().unwrap_or_else(|| panic!("no latency log: {line}"));
        assert!(imported.join(log).is_file());
        assert!(step["summary"]["total"]["ios"].as_u64().unwrap() > 0, "{line}");
        let series = step["series"].as_str().unwrap_or_else(|| panic!("no series from fio's logs: {line}"));
        assert!(std::fs::read_to_string(imported.join(series)).unwrap().lines().count() > 1, "{series}");
    }

    let o = ok(&["compare", "--json", s(&own), s(&imported)]);
    let c: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let pairs = c["pairs"].as_array().unwrap_or_else(|| panic!("{c}"));
    assert_eq!(pairs.len(), 2, "{c}");
    assert!(c["unpaired"].as_array().is_none_or(|u| u.is_empty()), "{c}");
    let fields: Vec<(&str, &str)> = c["differences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["field"].as_str().unwrap(), d["b"].as_str().unwrap_or("")))
        .collect();
    for field in ["drive state", "host"] {
        assert!(fields.contains(&(field, "not stated")), "{field} not named as not stated: {fields:?}");
    }
    assert!(fields.iter().any(|(f, _)| *f == "measured by"), "{fields:?}");

    for (args, page) in [
        (vec!["compare", s(&own), s(&imported), "--format", "html"], "compare.html"),
        (vec!["report", s(&imported), "--format", "html"], "report.html"),
    ] {
        let html = dir.join(page);
        let mut all = args.clone();
        all.extend(["-o", s(&html)]);
        ok(&all);
        let shot = dir.join(format!("{page}.png"));
        let r = browser::render(&html, &shot).unwrap_or_else(|e| panic!("{page}: {e}"));
        assert!(r.console_errors.is_empty(), "{page}: {:?}", r.console_errors);
        assert!(r.dom.contains("not stated"), "{page} does not say what is not stated");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
