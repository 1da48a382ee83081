//! `methodic diff` end to end: golden diffs (the command's text output and
//! exit code, snapshotted into golden/) for a methodology's versions, a
//! shorter record time, two methodologies from practice, and a spec
//! against itself reformatted; and the exit codes CI branches on.

mod common;
use common::methodic;

/// `methodic diff OLD NEW`: its exit code and its output.
fn diff(old: &str, new: &str) -> (i32, String) {
    let o = methodic(&["diff", old, new]);
    let code = o.status.code().expect("an exit code");
    assert!(o.stderr.is_empty() || code == 3, "{}", String::from_utf8_lossy(&o.stderr));
    (code, String::from_utf8_lossy(&o.stdout).into_owned())
}

fn golden(name: &str, old: &str, new: &str, expected_code: i32) {
    let (code, out) = diff(old, new);
    assert_eq!(code, expected_code, "{out}");
    insta::with_settings!({ snapshot_path => "../golden", prepend_module_to_snapshot => false, omit_expression => true }, {
        insta::assert_snapshot!(format!("diff@{name}"), format!("$ methodic diff {old} {new}\nexit {code}\n{out}"));
    });
}

#[test]
fn consumer_v1_0_to_v1_1_breaks_every_copy() {
    golden("consumer-v1.0__consumer-v1.1", "specs/consumer-v1.0.method", "specs/consumer-v1.1.method", 2);
    let (_, out) = diff("specs/consumer-v1.0.method", "specs/consumer-v1.1.method");
    assert!(out.contains("RAM limit") && out.contains("all 10 buffered copy steps"), "{out}");
}

#[test]
fn a_shorter_record_time_shifts_precision_only() {
    golden(
        "enterprise-sweep__enterprise-sweep-30s",
        "specs/enterprise-sweep.method",
        "tests/diff/enterprise-sweep-30s.method",
        1,
    );
}

#[test]
fn tweaktown_against_the_enterprise_sweep_breaks_comparability() {
    golden(
        "tweaktown-style__enterprise-sweep",
        "specs/tweaktown-style.method",
        "specs/enterprise-sweep.method",
        2,
    );
}

#[test]
fn a_reformatted_spec_with_renamed_workloads_is_no_change() {
    golden("quick__quick-reformatted", "specs/quick.method", "tests/diff/quick-reformatted.method", 0);
}

#[test]
fn a_plan_diffs_like_its_source_and_json_is_machine_readable() {
    let dir = common::temp_dir("diff");
    let plan = dir.join("quick.ron");
    let o = methodic(&["compile", "specs/quick.method", "-o", plan.to_str().unwrap()]);
    assert!(o.status.success());
    let (code, out) = diff(plan.to_str().unwrap(), "tests/diff/quick-reformatted.method");
    assert_eq!(code, 0, "{out}");
    let o =
        methodic(&["diff", "--format", "json", "specs/consumer-v1.0.method", "specs/consumer-v1.1.method"]);
    assert_eq!(o.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["changes"][0]["class"], "breaks_comparability");
    assert_eq!(v["changes"][0]["steps"].as_array().unwrap().len(), 10);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn unreadable_inputs_exit_3_not_as_a_change() {
    let o = methodic(&["diff", "specs/quick.method", "/no/such.method"]);
    assert_eq!(o.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&o.stderr).contains("/no/such.method"));
    let o = methodic(&["diff", "tests/errors/err_qd_split.method", "specs/quick.method"]);
    assert_eq!(o.status.code(), Some(3), "an input with errors");
    let o = methodic(&["diff", "specs/quick.method"]);
    assert_eq!(o.status.code(), Some(3), "a usage error is not 'breaking'");
}
