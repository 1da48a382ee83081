//! `repeat N..M until cv P%` on a scratch file: which runs run is decided
//! from the records alone, so these tests set the records of runs 1 and 2
//! (values that agree, or that cannot) and let `run --resume` decide; the
//! outcome is then certain, whatever the machine measures. They check by
//! counts: the records kept, the steps marked skipped, the summary's runs.

use crate::common;

use std::path::Path;

use common::{methodic, text};
use methodic_results::manifest::{self, StepStatus};
use methodic_results::record::Status;

const SOURCE: &str = "methodology \"cv\" version \"1\"\ntarget { span 16MiB }\n\
                      workload r { random; block 4KiB; read 100% }\n\
                      repeat 2..4 until cv 3% { measure r qd 1 for 200ms }\nidle 100ms\n";

/// A run of [`SOURCE`] cut back to runs 1 and 2 of its repeat, measuring
/// `iops` (the scratch file kept): the results folder, ready to resume.
fn cut_back(name: &str, iops: [f64; 2]) -> std::path::PathBuf {
    cut_back_to(name, SOURCE, &[Some(iops[0]), Some(iops[1])])
}

/// A run of `source` cut back to its first records, one per entry of
/// `values`: a measurement's IOPS set, or as it was (`None`).
fn cut_back_to(name: &str, source: &str, values: &[Option<f64>]) -> std::path::PathBuf {
    let out = common::run_source(name, source, &["--no-ceiling", "--keep-scratch", "--seed", "1"]);
    let steps = out.join("steps.jsonl");
    let kept: Vec<String> = std::fs::read_to_string(&steps)
        .unwrap()
        .lines()
        .filter_map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
            let index = v["index"].as_u64().unwrap() as usize;
            if let Some(set) = *values.get(index.checked_sub(1)?)? {
                v["summary"]["total"]["iops"] = serde_json::json!(set);
            }
            Some(v.to_string())
        })
        .collect();
    assert_eq!(kept.len(), values.len(), "runs 1 and 2 always run");
    std::fs::write(&steps, kept.join("\n") + "\n").unwrap();
    let path = out.join("manifest.json");
    let mut m: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    m["status"] = serde_json::json!("interrupted");
    std::fs::write(&path, m.to_string()).unwrap();
    out
}

fn resume(out: &Path) -> String {
    let o = methodic(&["run", "--resume", out.to_str().unwrap()]);
    let said = format!("{}{}", text(&o.stdout), text(&o.stderr));
    assert!(o.status.success(), "{said}");
    said
}

fn indices(out: &Path) -> Vec<usize> {
    manifest::load(out).unwrap().steps.iter().map(|r| r.index).collect()
}

#[test]
fn runs_that_agree_stop_the_repeat_and_its_later_runs_are_skipped() {
    let out = cut_back("until-cv-stops", [1000.0, 1001.0]);
    let said = resume(&out);
    assert!(said.contains("repeat 1 stops after 2 of 4 runs: cv 0.1% is under 3%"), "{said}");
    let loaded = manifest::load(&out).unwrap();
    assert_eq!(loaded.manifest.status, Status::Completed);
    assert_eq!(indices(&out), [1, 2, 5], "runs 3 and 4 have no record");
    let status: Vec<StepStatus> = loaded.manifest.steps.iter().map(|s| s.status).collect();
    assert_eq!(
        status,
        [
            StepStatus::Completed,
            StepStatus::Completed,
            StepStatus::Skipped,
            StepStatus::Skipped,
            StepStatus::Completed
        ]
    );
    let why = loaded.manifest.steps[2].skipped.as_deref().unwrap();
    assert_eq!(why, "repeat 1 stops after 2 of 4 runs: cv 0.1% is under 3%");
    assert!(loaded.manifest.steps.iter().all(|s| s.error.is_none()), "skipped is not failed");
    let report = methodic(&["report", out.to_str().unwrap()]);
    let report = text(&report.stdout);
    std::fs::remove_dir_all(out.parent().unwrap()).unwrap();
    assert!(report.contains("2 of 4 runs"), "{report}");
}

#[test]
fn runs_that_cannot_agree_make_every_planned_run_and_warn() {
    // 1000 and 2000 IOPS: no third or fourth value brings their cv to 3%.
    let out = cut_back("until-cv-goes-on", [1000.0, 2000.0]);
    let said = resume(&out);
    assert!(!said.contains("stops after"), "{said}");
    assert!(said.contains("cv ") && said.contains("after 4 runs, over the 3% asked"), "{said}");
    let loaded = manifest::load(&out).unwrap();
    std::fs::remove_dir_all(out.parent().unwrap()).unwrap();
    assert_eq!(loaded.manifest.status, Status::Completed);
    assert_eq!(loaded.steps.iter().map(|r| r.index).collect::<Vec<_>>(), [1, 2, 3, 4, 5]);
    let last = loaded.steps.iter().find(|r| r.index == 4).unwrap().repeats.clone().unwrap();
    let until = last.until.unwrap();
    assert_eq!((until.planned, until.ran, until.min_runs, until.met), (4, 4, 2, false));
    assert_eq!(last.runs.len(), 4);
    assert_eq!(&last.runs[..2], [1000.0, 2000.0]);
    assert!(loaded.manifest.steps.iter().all(|s| s.status == StepStatus::Completed));
}

/// The run itself passes over the runs not needed: resumed in run 2,
/// after its measurement, it runs the rest of run 2 and then decides.
#[test]
fn the_run_decides_after_the_last_step_of_a_run() {
    let source = "methodology \"cv\" version \"1\"\ntarget { span 16MiB }\n\
                  workload r { random; block 4KiB; read 100% }\n\
                  repeat 2..3 until cv 3% { measure r qd 1 for 200ms; idle 50ms }\n";
    let out = cut_back_to("until-cv-run", source, &[Some(500.0), None, Some(500.0)]);
    let said = resume(&out);
    assert!(said.contains("repeat 1 stops after 2 of 3 runs: cv 0.0% is under 3%"), "{said}");
    let loaded = manifest::load(&out).unwrap();
    std::fs::remove_dir_all(out.parent().unwrap()).unwrap();
    assert_eq!(loaded.steps.iter().map(|r| r.index).collect::<Vec<_>>(), [1, 2, 3, 4]);
    let status: Vec<StepStatus> = loaded.manifest.steps.iter().map(|s| s.status).collect();
    assert_eq!(status[4..], [StepStatus::Skipped, StepStatus::Skipped]);
    assert_eq!(loaded.manifest.status, Status::Completed);
}
