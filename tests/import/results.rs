//! `methodic import FORMAT RESULTS -o DIR`: each tool's results file in
//! tests/ becomes a results directory that `report` reads, saying what the
//! file does not state; a cut or foreign file is refused and nothing is
//! written; a results file without `-o`, or into a directory that holds
//! something, is refused; DiskSpd's results to standard output import the
//! profile they ran, as before.

use crate::common::{methodic, temp_dir, text};

/// Each tool's results file, the format `import` takes, and what the file
/// does not state for every step.
const FILES: [(&str, &str, &[&str]); 6] = [
    ("fio", "tests/fio-results/fio-3.33-plus.json", &["host", "drive state"]),
    ("fio", "tests/fio-results/fio-2-shape.json", &["host", "drive state"]),
    ("iometer", "tests/iometer/results-two-disks-1.1.0.csv", &["host", "drive state", "data pattern"]),
    ("diskspd", "tests/diskspd/results-2.2-two-spans.xml", &["host", "drive state"]),
    ("crystaldiskmark", "tests/disk-mark/crystaldiskmark-8-default.txt", &["drive state", "host"]),
    (
        "kdiskmark",
        "tests/disk-mark/kdiskmark-3-default.txt",
        &["drive state", "host", "cache policy", "data pattern"],
    ),
];

#[test]
fn each_tools_results_import_into_a_directory_report_reads() {
    let dir = temp_dir("import-results");
    for (k, (format, file, unstated)) in FILES.iter().enumerate() {
        let out = dir.join(format!("r{k}"));
        let o = methodic(&["import", format, file, "-o", out.to_str().unwrap()]);
        assert!(o.status.success(), "{file}: {}", text(&o.stderr));
        let said = text(&o.stderr);
        assert!(said.starts_with(&format!("wrote {}: ", out.display())), "{said}");
        let m: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).unwrap()).unwrap();
        let stated: Vec<&str> =
            m["imported"]["not_stated"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
        assert_eq!(&stated, unstated, "{file}");
        let bytes = std::fs::read(file).unwrap();
        let hash = m["imported"]["hash"].as_str().unwrap();
        assert_eq!(hash, methodic_compiler::source_hash(std::str::from_utf8(&bytes).unwrap()), "{file}");
        let steps = std::fs::read_to_string(out.join("steps.jsonl")).unwrap();
        assert!(steps.lines().count() >= 1, "{file}");
        let report = methodic(&["report", out.to_str().unwrap()]);
        assert!(report.status.success(), "{file}: {}", text(&report.stderr));
        let shown = text(&report.stdout);
        assert!(shown.contains("imported from ") && shown.contains("not stated"), "{file}:\n{shown}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn cut_foreign_and_misdirected_results_are_refused_and_nothing_written() {
    let dir = temp_dir("import-results-refused");
    let json = std::fs::read_to_string("tests/fio-results/fio-3.33.json").unwrap();
    let cut = dir.join("cut.json");
    std::fs::write(&cut, &json[..json.len() / 2]).unwrap();
    let out = dir.join("out");
    let o = methodic(&["import", "fio", cut.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let said = text(&o.stderr);
    assert!(said.contains("ends early") && said.contains("nothing written"), "{said}");
    assert!(!out.exists(), "nothing is written for a refused file");
    // A DiskSpd results file given as CrystalDiskMark's is not one.
    let o = methodic(&[
        "import",
        "crystaldiskmark",
        "tests/diskspd/results-2.2.xml",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    assert!(!out.exists());
    // Results without -o, and into a directory that holds something.
    let o = methodic(&["import", "fio", "tests/fio-results/fio-3.33.json"]);
    assert!(!o.status.success() && text(&o.stderr).contains("give -o DIR"), "{}", text(&o.stderr));
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("x"), "").unwrap();
    let o = methodic(&["import", "fio", "tests/fio-results/fio-3.33.json", "-o", out.to_str().unwrap()]);
    assert!(!o.status.success() && text(&o.stderr).contains("not an empty directory"), "{}", text(&o.stderr));
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 1, "the directory is left as it was");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn diskspd_results_to_standard_output_import_the_profile_they_ran() {
    let o = methodic(&["import", "diskspd", "tests/diskspd/results-2.2.xml"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("measure ts1_t1"), "{}", text(&o.stdout));
    assert!(text(&o.stderr).contains("-o DIR"), "{}", text(&o.stderr));
}
